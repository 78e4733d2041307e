"""Byte copies of a store taken under its read lock: the copy a backup starts from
(core.store.backup) and the copy kept beside a store before a migration changes it (``Store._migrate``).

Before a migration changes an existing store, a backup of it in the backup format is kept in
``PATH.backups/<UTC time>-schema-v<old version>/`` (not checked: the check reads every block, and the copy
is a byte copy of a file DuckDB has just opened); the :data:`AUTO_BACKUPS_KEPT` newest are kept, older ones
(only folders of that name pattern) are deleted.

Imports no store module above it (errors, handles, schema only): core.store.db calls it while migrating,
so importing db here would make a circle. A ``store`` argument is a core.store.db.Store.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from core.store.errors import StoreError, damaged, is_damage
from core.store.handles import read_chunks
from core.store.schema import latest_schema_version

BACKUP_FORMAT = "radjudge-backup/1"
STORE_FILE = "store.duckdb"
#: how many automatic pre-migration backups are kept beside a store (the newest)
AUTO_BACKUPS_KEPT = 3
_AUTO_NAME = re.compile(r"^\d{8}T\d{6}\d{6}Z-schema-v\d+$")


def fsync_file(path: Path) -> None:
    with path.open("rb+") as f:
        os.fsync(f.fileno())


def copy_under_read_lock(store, dest: Path) -> dict:
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
    fsync_file(dest)
    return {"schema_version": schema, "data_version": data_version}


def _copy_bytes(src: Path, dest: Path) -> None:
    with dest.open("xb") as out:
        for chunk in read_chunks(src, 8 << 20):
            out.write(chunk)


def manifest_of(store, file: Path, versions: dict, seconds: float) -> dict:
    return {"format": BACKUP_FORMAT, "source": str(store.path.resolve()), "file": file.name,
            "bytes": file.stat().st_size, "sha256": sha256_file(file), **versions,
            "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "copy_seconds": round(seconds, 3)}


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file (an export's or a backup's), read in 1 MiB chunks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def auto_backup_folder(store_path: Path) -> Path:
    return Path(f"{store_path}.backups")


def auto_backups(store_path: Path) -> list[Path]:
    """The automatic pre-migration backups beside ``store_path``, oldest first."""
    folder = auto_backup_folder(store_path)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and _AUTO_NAME.match(p.name))


@contextmanager
def folder_written_whole(out: Path) -> Iterator[Path]:
    """A folder written whole or not at all: the block writes into a new uniquely named hidden folder beside
    ``out`` (``.OUT.XXXX.partial``, made by ``tempfile.mkdtemp``, so never a folder the user already has),
    which is renamed to ``out`` when the block ends (``out`` must not exist, or be an empty folder: the
    caller checks). On any error that folder, and only it, is removed: no half folder under the final name."""
    partial = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        yield partial
        if out.exists():
            out.rmdir()  # empty, checked by the caller
        partial.rename(out)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def write_manifest(folder: Path, manifest: dict) -> None:
    """``folder/manifest.json``: a backup's or an export's manifest, indented, one final newline."""
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def backup_before_migration(store, schema: int) -> Path:
    """Keep a copy of ``store`` (schema ``schema``) in ``PATH.backups/`` before it is migrated; prune to
    the :data:`AUTO_BACKUPS_KEPT` newest. A copy that cannot be written stops the migration."""
    folder = auto_backup_folder(store.path)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{stamp}-schema-v{schema}"
    try:
        folder.mkdir(exist_ok=True)
        with folder_written_whole(target) as partial:
            t0 = time.monotonic()
            file = partial / STORE_FILE
            versions = copy_under_read_lock(store, file)
            manifest = manifest_of(store, file, versions, time.monotonic() - t0)
            manifest["reason"] = f"before migrating from schema v{schema} to v{latest_schema_version()}"
            write_manifest(partial, manifest)
    except OSError as exc:
        raise StoreError(f"could not keep a copy of {store.path} in {folder} before migrating it "
                         f"({exc.strerror or exc}); the store was not migrated") from exc
    for old in auto_backups(store.path)[:-AUTO_BACKUPS_KEPT]:
        shutil.rmtree(old, ignore_errors=True)
    return target
