"""The other side of ``python -m core merge``: another store file, or a folder written by ``export-store``.

:func:`open_source` yields a DuckDB file at this RadConcord's schema that the merge attaches read-only:

- a store at this schema is used as it is, opened read-only (it is never written);
- a store at an older schema is copied, table by table, into a temporary file made with the migrations of
  its own version, and that copy is migrated (the source file is never touched; the automatic pre-migration
  backup is not needed for a throw-away copy);
- an export folder is checked first (its manifest's format, every table file's SHA-256, every row count)
  and loaded the same way into a temporary file, migrated from the export's schema version.

A newer schema is refused (upgrade RadConcord first), as is a DuckDB file that is not a RadConcord store. Only
the tables a merge reads are copied (:data:`MERGED_TABLES`); the temporary folder is made beside the target
store (its disk, its permissions) and removed when the merge ends.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from core.store import handles
from core.store.db import (
    Store,
    StoreDamaged,
    StoreError,
    all_migrations,
    damage,
    latest_schema_version,
    split_sql,
    sql_string,
    store_kind,
    unreadable_tables,
)
from core.store.integrity import EXPORT_FORMAT, INTRODUCED_IN, sha256_file

__all__ = ["MERGED_TABLES", "MergeRefused", "Source", "open_source", "sql_string"]

#: The tables a merge brings over, in the order it inserts them (a row's parents first).
MERGED_TABLES: tuple[str, ...] = ("datasets", "pairs", "annotations", "judge_runs", "judge_outputs", "judge_errors",
                                  "metric_values", "rating_queues", "rating_queue_pairs", "ratings", "adjudications",
                                  "preferences")


class MergeRefused(StoreError):
    """The source cannot be merged as it is (not a store, a newer schema, a damaged export...)."""


@dataclass
class Source:
    path: Path  # the DuckDB file to attach read-only: the source store itself, or a temporary copy
    kind: str  # "store" | "export"
    schema_version: int  # the source's own schema version
    migrated: bool  # True: ``path`` is a copy migrated from ``schema_version`` to this RadConcord's


@contextmanager
def open_source(path: Path, workdir: Path) -> Iterator[Source]:
    """The merge source at ``path`` (a store file or an export folder), at this schema; see the module docstring."""
    path = Path(path)
    if path.is_dir():
        manifest, version = _read_export(path)
        with _temporary(workdir) as tmp:
            _build(tmp, version, lambda con, table: _load_parquet(con, path, manifest, table))
            yield Source(tmp, "export", version, version != latest_schema_version())
        return
    if not path.is_file():
        raise MergeRefused(f"{path} does not exist; give a store file or a folder written by export-store")
    version = _store_version(path)
    if version == latest_schema_version():
        yield Source(path, "store", version, False)
        return
    with _temporary(workdir) as tmp:
        _build(tmp, version, lambda con, table: con.execute(f'INSERT INTO "{table}" BY NAME SELECT * FROM old."{table}"'),
               attach=path)
        yield Source(tmp, "store", version, True)


def _store_version(path: Path) -> int:
    """The schema version of the store file at ``path``, opened read-only (refused: not a store, newer)."""
    try:  # Store's opening: the same retries while a writer holds the file, the same patience
        conn = Store(path, create=False)._connect(read_only=True)
    except StoreError as exc:
        first = str(exc.__cause__ or exc).splitlines()[0]
        if isinstance(exc, StoreDamaged):
            raise MergeRefused(f"the source {path} is damaged ({first}); nothing was merged; run check-store on it"
                               ) from exc
        raise MergeRefused(f"cannot open the source {path} read-only: {first}; nothing was merged (a job or "
                           "dashboard writing it holds it: try when it is done)") from exc
    try:
        kind, version, _ = store_kind(conn)
        # the merge reads every row of the source: a damaged source is named here, before the target is touched
        why = damage(path, conn) or next((f"table {t} does not read: {first}" for t, first in unreadable_tables(conn)),
                                         None)
    except duckdb.Error as exc:
        why = str(exc).strip().splitlines()[0]
    finally:
        handles.close(conn, path)
    if why:
        raise MergeRefused(f"the source {path} is damaged ({why}); nothing was merged; run check-store on it")
    if kind != "store":
        raise MergeRefused(f"{path} is not a RadConcord store ({'an empty' if kind == 'empty' else 'another'} DuckDB "
                           "database); nothing was merged")
    _check_version(path, version)
    return version


def _check_version(path: Path, version: int) -> None:
    latest = latest_schema_version()
    if version > latest:
        raise MergeRefused(f"the source {path} has schema v{version}, newer than this RadConcord (v{latest}); "
                           "upgrade RadConcord here first; nothing was merged")
    if version < 1:
        raise MergeRefused(f"the source {path} has no schema version; nothing was merged")


def _read_export(folder: Path) -> tuple[dict, int]:
    """The export's manifest and schema version, after checking each merged table's file (hash, presence)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MergeRefused(f"{folder} is a folder without a readable manifest.json, so not an export-store folder "
                           f"({exc}); nothing was merged") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != EXPORT_FORMAT:
        raise MergeRefused(f"{folder}/manifest.json is not an export-store manifest ({EXPORT_FORMAT}); "
                           "nothing was merged")
    try:
        version = int(manifest.get("schema_version"))
    except (TypeError, ValueError):
        raise MergeRefused(f"{folder}/manifest.json has no schema version; nothing was merged") from None
    _check_version(folder, version)
    tables = manifest.get("tables") or {}
    for table in _tables_at(version):
        entry = tables.get(table)
        name = str((entry or {}).get("file", ""))
        file = folder / name
        if not entry or "/" in name or "\\" in name or not name or not file.is_file():
            raise MergeRefused(f"the export {folder} lacks the table {table} (schema v{version} has it); "
                               "nothing was merged")
        if sha256_file(file) != entry.get("sha256"):
            raise MergeRefused(f"{file}: its SHA-256 differs from the manifest's: the export is damaged or was "
                               "edited; nothing was merged")
    return manifest, version


def _tables_at(version: int) -> list[str]:
    return [t for t in MERGED_TABLES if INTRODUCED_IN.get(t, 0) <= version]


def _load_parquet(con, folder: Path, manifest: dict, table: str) -> None:
    entry = manifest["tables"][table]
    con.execute(f'INSERT INTO "{table}" BY NAME SELECT * FROM read_parquet({sql_string(folder / entry["file"])})')
    rows = con.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    if rows != entry.get("rows"):
        raise MergeRefused(f"the export's {entry['file']} holds {rows:,} rows, its manifest says {entry.get('rows')}; "
                           "nothing was merged")


def _apply(con, migrations) -> None:
    for number, name, sql in migrations:
        for statement in split_sql(sql):
            con.execute(statement)
        con.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", [number, name])


def _build(dest: Path, version: int, load, attach: Path | None = None) -> None:
    """A store at ``dest``: migrations 1..``version``, the merged tables loaded by ``load(con, table)``, then
    the later migrations (which fill what they add from the rows, as they do for any store)."""
    migrations = all_migrations()
    con = duckdb.connect(str(dest))
    try:
        con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
                    "applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)")
        _apply(con, migrations[:version])
        if attach is not None:
            con.execute(f"ATTACH {sql_string(attach)} AS old (READ_ONLY)")
        for table in _tables_at(version):
            load(con, table)
        if attach is not None:
            con.execute("DETACH old")
        _apply(con, migrations[version:])
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        raise MergeRefused(f"could not bring the source to this schema (v{latest_schema_version()}) in a "
                           f"temporary copy: {str(exc).splitlines()[0]}; nothing was merged") from exc
    finally:
        con.close()


@contextmanager
def _temporary(workdir: Path) -> Iterator[Path]:
    """A file path in a new hidden folder in ``workdir``, removed with everything in it when the block ends."""
    workdir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=".merge-source-", dir=workdir))
    try:
        yield folder / "source.duckdb"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
