"""Backups of the store (``python -m core backup`` / ``restore``) and the copy kept before a migration.

How a backup stays consistent while the dashboard and jobs keep running: DuckDB lets one process hold
the file read-write and no other process open it meanwhile, and a read-only connection takes the
file's shared lock, so while :func:`backup_store` holds one no writer can commit (writers wait and
retry, as they do behind any long read: ``Store``'s backoff, ``RADCONCORD_STORE_TIMEOUT``). Under that
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

The copy under the read lock, and the copy kept before a migration changes an existing store
(``PATH.backups/``), are core.store.copies (which imports no module above it, so db can call it).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import duckdb

from core.store.copies import (  # noqa: F401 (re-exported)
    AUTO_BACKUPS_KEPT,
    BACKUP_FORMAT,
    STORE_FILE,
    auto_backup_folder,
    auto_backups,
    backup_before_migration,
    copy_under_read_lock,
    folder_written_whole,
    fsync_file,
    manifest_of,
    sha256_file,
    write_manifest,
)
from core.store.db import Store, StoreError, latest_schema_version

__all__ = ["AUTO_BACKUPS_KEPT", "BACKUP_FORMAT", "auto_backups", "backup_before_migration", "backup_store",
           "restore_store"]

def _older_schema_only(problems: list[str], schema: int | None) -> bool:
    """Whether the only problem check-store found is an older schema (a pre-migration backup's)."""
    latest = latest_schema_version()
    return bool(schema) and schema < latest and problems == [f"schema v{schema}, this RadConcord expects v{latest}"]


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
    with folder_written_whole(out) as partial:
        t0 = time.monotonic()
        file = partial / STORE_FILE
        versions = copy_under_read_lock(store, file)
        manifest = manifest_of(store, file, versions, time.monotonic() - t0)
        report = check_store(file)
        if not report.ok and not _older_schema_only(report.problems, report.schema_version):
            raise StoreError(f"the copy of {store.path} failed check-store ({'; '.join(report.problems[:3])}); "
                             "no backup was written: run check-store on the store")
        manifest.update(rows=report.rows, check_seconds=report.seconds)
        write_manifest(partial, manifest)
    return manifest


def read_backup(folder: str | os.PathLike) -> tuple[dict, Path]:
    """The manifest of the backup in ``folder`` and its store file, after checking size and SHA-256."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreError(f"{folder} holds no readable backup manifest (manifest.json): {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != BACKUP_FORMAT:
        raise StoreError(f"{folder}/manifest.json is not a RadConcord backup manifest ({BACKUP_FORMAT})")
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
        fsync_file(tmp)
        if sha256_file(tmp) != manifest["sha256"]:
            raise StoreError(f"the copy written to {tmp} differs from the backup; nothing was restored")
        wal.unlink(missing_ok=True)  # the old store's (checkpointed above, or of a damaged file)
        os.replace(tmp, to)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return {**manifest, "restored_to": str(to)}


# -- the copy kept before a migration -------------------------------------------------------------


