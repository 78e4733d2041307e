"""Where the CLI's ``--out`` may write, and writing there without leaving debris.

A command that writes a file the user named must never replace what it did
not create: the store itself, any DuckDB database, or an existing file unless
the user says ``--force``. An existing folder gets a message, not a traceback.
Files are written under a temporary name that cannot collide with anything
(``tempfile``) in the target folder and renamed when complete; on failure the
temporary file is removed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

_DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of every DuckDB database file


def is_duckdb_file(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(12)
    except OSError:
        return False
    return head[8:12] == _DUCKDB_MAGIC


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def check_out_file(out: str | os.PathLike, *, store: str | os.PathLike | None, force: bool,
                   example: str = "report.html") -> Path:
    """Refuse an ``--out`` that would destroy something; return it as a Path.

    Never the store (or its WAL) nor any DuckDB file, even with ``force``; an
    existing file only with ``force``; a folder never (name a file in it).
    """
    path = Path(out)
    if store is not None:
        store = Path(store)
        for protected in (store, store.with_name(store.name + ".wal")):
            if _same_file(path, protected) or path.resolve() == protected.resolve():
                raise ValueError(f"--out {path} is the store; RadConcord never writes a file over its store")
    if path.is_dir():
        raise ValueError(f"--out {path} is a folder; name a file in it, e.g. {path / example}")
    if path.exists():
        if is_duckdb_file(path):
            raise ValueError(f"--out {path} is a DuckDB database; RadConcord never writes a file over one")
        if not force:
            raise ValueError(f"--out {path} exists; add --force to replace it")
    return path


def write_atomic(path: Path, chunks: Iterable[str | bytes]) -> int:
    """Write ``chunks`` to ``path`` via a unique temporary file in its folder; returns bytes written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    written = 0
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                data = chunk.encode("utf-8") if isinstance(chunk, str) else chunk
                fh.write(data)
                written += len(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return written
