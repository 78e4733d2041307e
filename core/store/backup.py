"""Backups of the store (``python -m core backup`` / ``restore``) and the copy kept before a migration.

How a backup stays consistent while the dashboard and jobs keep running: DuckDB lets one process hold
the file read-write and no other process open it meanwhile, and a read-only connection takes the
file's shared lock, so while :func:`backup_store` holds one no writer can commit (writers wait and
retry, as they do behind any long read: ``Store``'s backoff, ``RADJUDGE_STORE_TIMEOUT``). Under that
lock the file (and its ``.wal``, if a writer left one) is copied byte for byte: cheaper than
``EXPORT DATABASE`` or ``COPY FROM DATABASE``, which decode and re-encode every table (and rebuild
every index) while the writers wait. A copied WAL is then folded into the copy by a checkpoint, so a
backup is one file. The copy is verified by :func:`core.store.integrity.check_store` (every block's
checksum, every table read in full) before the folder appears under its final name.

A backup folder holds ``store.duckdb`` and ``manifest.json`` (format, source, size, SHA-256, schema and
data version, row counts, time, seconds). :func:`restore_store` verifies both (size, hash, check-store)
before it writes anything, refuses to replace an existing store without ``force``, and writes the copy
under a temporary name beside the target, renaming it over the target only when complete: a store is
never half written.

Before a migration changes an existing store (``Store._migrate``), a backup of it in this format is kept
in ``PATH.backups/<UTC time>-schema-v<old version>/`` (not checked: the check reads every block, and the
copy is a byte copy of a file DuckDB has just opened); the :data:`AUTO_BACKUPS_KEPT` newest are kept,
older ones (only folders of that name pattern) are deleted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from core.store.db import Store, StoreError, damaged, is_damage, latest_schema_version, read_chunks
from core.store.integrity import sha256_file

__all__ = ["AUTO_BACKUPS_KEPT", "BACKUP_FORMAT", "auto_backups", "backup_before_migration", "backup_store",
           "restore_store"]

BACKUP_FORMAT = "radjudge-backup/1"
STORE_FILE = "store.duckdb"
#: how many automatic pre-migration backups are kept beside a store (the newest)
AUTO_BACKUPS_KEPT = 3
_AUTO_NAME = re.compile(r"^\d{8}T\d{6}\d{6}Z-schema-v\d+$")


def _fsync(path: Path) -> None:
    with path.open("rb+") as f:
        os.fsync(f.fileno())


def _copy_under_read_lock(store: Store, dest: Path) -> dict:
    """Copy the store file (and its WAL) to ``dest`` while holding it read-only; fold the WAL in."""
    conn = store._connect(read_only=True)  # the shared lock: no writer commits until it is closed
    try:
        try:
            schema = store._recognise(conn)  # a foreign or truncated file: its one-line error
            if schema == 0:
                raise StoreError(f"{store.path} is an empty DuckDB database; nothing was backed up")
            data_version = int(conn.execute("SELECT value FROM store_meta WHERE key = 'data_version'").fetchone()[0])
        except duckdb.Error as exc:
            if is_damage(exc):
                raise damaged(store.path, exc) from exc
            raise
        # Through descriptors never closed (core.store.db.read_chunks): closing one would drop the lock
        _copy_bytes(store.path, dest)  # this connection holds (POSIX locks) and let a writer in mid-copy.
        wal = Path(f"{store.path}.wal")
        had_wal = wal.exists()
        if had_wal:
            _copy_bytes(wal, Path(f"{dest}.wal"))
    finally:
        conn.close()
    if had_wal:  # the copy's own WAL: replayed and checkpointed into the copy, then gone
        c = duckdb.connect(str(dest))
        try:
            c.execute("CHECKPOINT")
        finally:
            c.close()
        Path(f"{dest}.wal").unlink(missing_ok=True)
    _fsync(dest)
    return {"schema_version": schema, "data_version": data_version}


def _copy_bytes(src: Path, dest: Path) -> None:
    with dest.open("xb") as out:
        for chunk in read_chunks(src, 8 << 20):
            out.write(chunk)


def _manifest(store: Store, file: Path, versions: dict, seconds: float) -> dict:
    return {"format": BACKUP_FORMAT, "source": str(store.path.resolve()), "file": file.name,
            "bytes": file.stat().st_size, "sha256": sha256_file(file), **versions,
            "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "copy_seconds": round(seconds, 3)}


def _older_schema_only(problems: list[str], schema: int | None) -> bool:
    """Whether the only problem check-store found is an older schema (a pre-migration backup's)."""
    latest = latest_schema_version()
    return bool(schema) and schema < latest and problems == [f"schema v{schema}, this RadJudge expects v{latest}"]


def backup_store(store: Store, out: str | os.PathLike) -> dict:
    """A verified backup of ``store`` in the new folder ``out`` (must not exist, or be empty).

    Written into a hidden folder beside ``out`` and renamed when the copy is checked; returns the manifest.
    """
    from core.store.integrity import check_store

    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise StoreError(f"{out} exists and is not an empty folder; choose a new folder")
    if not store.path.exists():
        raise StoreError(f"store {store.path} does not exist")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        t0 = time.monotonic()
        file = partial / STORE_FILE
        versions = _copy_under_read_lock(store, file)
        manifest = _manifest(store, file, versions, time.monotonic() - t0)
        report = check_store(file)
        if not report.ok and not _older_schema_only(report.problems, report.schema_version):
            raise StoreError(f"the copy of {store.path} failed check-store ({'; '.join(report.problems[:3])}); "
                             "no backup was written: run check-store on the store")
        manifest.update(rows=report.rows, check_seconds=report.seconds)
        (partial / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if out.exists():
            out.rmdir()  # empty, checked above
        partial.rename(out)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return manifest


def read_backup(folder: str | os.PathLike) -> tuple[dict, Path]:
    """The manifest of the backup in ``folder`` and its store file, after checking size and SHA-256."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreError(f"{folder} holds no readable backup manifest (manifest.json): {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != BACKUP_FORMAT:
        raise StoreError(f"{folder}/manifest.json is not a RadJudge backup manifest ({BACKUP_FORMAT})")
    name = str(manifest.get("file", STORE_FILE))
    file = folder / name
    if "/" in name or "\\" in name or name in ("", ".", "..") or not file.is_file():
        raise StoreError(f"{folder}: the backup's store file {name!r} is missing")
    size = file.stat().st_size
    if size != manifest.get("bytes"):
        raise StoreError(f"{file}: {size:,} bytes, the manifest says {manifest.get('bytes')}; the backup is damaged")
    if sha256_file(file) != manifest.get("sha256"):
        raise StoreError(f"{file}: its SHA-256 differs from the manifest's; the backup is damaged")
    return manifest, file


def restore_store(folder: str | os.PathLike, to: str | os.PathLike, *, force: bool = False) -> dict:
    """Put the backup in ``folder`` at ``to``: checked first (manifest, hash, check-store), written under a
    temporary name beside ``to`` and renamed over it. An existing ``to`` is replaced only with ``force``."""
    from core.store.integrity import check_store

    manifest, file = read_backup(folder)
    to = Path(to)
    report = check_store(file)
    if not report.ok and not _older_schema_only(report.problems, report.schema_version):
        raise StoreError(f"the backup in {folder} fails check-store ({'; '.join(report.problems[:3])}); "
                         "nothing was restored")
    if to.exists() and not force:
        raise StoreError(f"{to} exists; pass --force to replace it with the backup (it was left unchanged)")
    if to.exists() and to.resolve() == file.resolve():
        raise StoreError(f"{to} is the backup's own file; choose another --to")
    to.parent.mkdir(parents=True, exist_ok=True)
    wal = Path(f"{to}.wal")
    if to.exists():
        # Take the old store from every other process (read-write: exclusive) so nobody writes it while it
        # is replaced, and fold its WAL in: a WAL left beside the new file would be replayed onto it.
        try:
            c = duckdb.connect(str(to))
        except duckdb.Error as exc:
            if any(s in str(exc).lower() for s in ("lock", "conflicting")):
                raise StoreError(f"{to} is in use by another process; stop the dashboard and jobs using it, "
                                 "then restore (nothing was changed)") from exc
            c = None  # damaged or not a database: it is being replaced
        if c is not None:
            c.close()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{to.name}.", suffix=".restoring", dir=to.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        shutil.copyfile(file, tmp)
        _fsync(tmp)
        if sha256_file(tmp) != manifest["sha256"]:
            raise StoreError(f"the copy written to {tmp} differs from the backup; nothing was restored")
        wal.unlink(missing_ok=True)  # the old store's (checkpointed above, or of a damaged file)
        os.replace(tmp, to)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return {**manifest, "restored_to": str(to)}


# -- the copy kept before a migration -------------------------------------------------------------


def auto_backup_folder(store_path: Path) -> Path:
    return Path(f"{store_path}.backups")


def auto_backups(store_path: Path) -> list[Path]:
    """The automatic pre-migration backups beside ``store_path``, oldest first."""
    folder = auto_backup_folder(store_path)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and _AUTO_NAME.match(p.name))


def backup_before_migration(store: Store, schema: int) -> Path:
    """Keep a copy of ``store`` (schema ``schema``) in ``PATH.backups/`` before it is migrated; prune to
    the :data:`AUTO_BACKUPS_KEPT` newest. A copy that cannot be written stops the migration."""
    folder = auto_backup_folder(store.path)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{stamp}-schema-v{schema}"
    try:
        folder.mkdir(exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=folder))
        try:
            t0 = time.monotonic()
            file = partial / STORE_FILE
            versions = _copy_under_read_lock(store, file)
            manifest = _manifest(store, file, versions, time.monotonic() - t0)
            manifest["reason"] = f"before migrating from schema v{schema} to v{latest_schema_version()}"
            (partial / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
            partial.rename(target)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
    except OSError as exc:
        raise StoreError(f"could not keep a copy of {store.path} in {folder} before migrating it "
                         f"({exc.strerror or exc}); the store was not migrated") from exc
    for old in auto_backups(store.path)[:-AUTO_BACKUPS_KEPT]:
        shutil.rmtree(old, ignore_errors=True)
    return target
