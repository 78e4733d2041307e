"""This process's handles on a store file: DuckDB connections and the raw descriptors the block checks read.

DuckDB locks a store with POSIX (fcntl) locks, and POSIX drops every lock a process holds on a file when the
process closes *any* descriptor of that file. Two ways that happened, both measured
(bench/bench_lock_race.py):

- two DuckDB instances of one file in one process: a connection closed by one thread tears its instance
  down (closing its descriptor) while another thread opens a new instance, whose fresh lock the close then
  drops. The connection stays open without a lock; another process's writer gets in and checkpoints, and
  the read meets blocks that moved ("Could not read enough bytes ...", reported as damage);
- a plain open()/close() of the store (a checksum read) while a connection is open.

So every DuckDB open and close of a store file goes through :func:`connect` and :func:`close`, which hold
one lock per file and process around them (an instance is made or torn down with no other doing so), and
count the connections open; the descriptors the block checks read through are never closed while one is.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path

import duckdb

_GUARDS: dict[str, threading.Lock] = {}
_OPEN: dict[str, int] = {}  # connections of this process open per file (through connect)
_GUARDS_GUARD = threading.Lock()


def _key(path: str | os.PathLike) -> str:
    return str(Path(path).resolve())


def _guard(key: str) -> threading.Lock:
    with _GUARDS_GUARD:
        return _GUARDS.setdefault(key, threading.Lock())


def connect(path: str | os.PathLike, read_only: bool, **kwargs) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` with no other open or close of the same file by this process at the same time."""
    key = _key(path)
    with _guard(key):
        conn = duckdb.connect(str(path), read_only=read_only, **kwargs)
        _OPEN[key] = _OPEN.get(key, 0) + 1
        return conn


def close(conn: duckdb.DuckDBPyConnection, path: str | os.PathLike) -> None:
    """Close a connection made by :func:`connect` (its instance, if the last, torn down under the guard)."""
    key = _key(path)
    with _guard(key):
        try:
            conn.close()
        finally:
            _OPEN[key] = max(0, _OPEN.get(key, 0) - 1)
            if not _OPEN[key]:
                _close_fds_unguarded(key, _DEFERRED.pop(key, False))


# Files this process reads beside DuckDB (block checksums, backup copies), each through one descriptor
# that is never closed while a connection of this process holds the file (see the module docstring). Keyed
# by path, checked against the file's identity (a restore renames a new file over the path; the old
# descriptor is kept, as a connection of this process may still hold the old file). At most
# _READ_FDS_KEPT files are kept open (beyond that, the least recently used one no connection holds is
# closed); release_fd closes one's (at once, or when its last connection closes).
_READ_FDS: OrderedDict[str, list[int]] = OrderedDict()
_DEFERRED: dict[str, bool] = {}  # files whose descriptors release_fd asked to close while a connection was open
_READ_FDS_GUARD = threading.Lock()
_READ_FDS_KEPT = 32


def read_fd(path: Path) -> int:
    key = _key(path)
    with _READ_FDS_GUARD:
        st = os.stat(key)
        fds = _READ_FDS.setdefault(key, [])
        _READ_FDS.move_to_end(key)
        if fds:
            fst = os.fstat(fds[-1])
            if (fst.st_dev, fst.st_ino) == (st.st_dev, st.st_ino):
                return fds[-1]
        fds.append(os.open(key, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)))
        for old in list(_READ_FDS)[:-_READ_FDS_KEPT]:
            if not _OPEN.get(old):  # held by a connection: kept (closing would drop its lock)
                for fd in _READ_FDS.pop(old):
                    os.close(fd)
        return fds[-1]


def _close_fds_unguarded(key: str, asked: bool) -> None:
    if asked:
        with _READ_FDS_GUARD:
            for fd in _READ_FDS.pop(key, []):
                os.close(fd)


def release_fd(path: Path) -> None:
    """Close the descriptors ``read_chunks`` kept for ``path``: now if no connection of this process holds
    the file, else when the last one closes (closing earlier would drop its POSIX locks)."""
    key = _key(path)
    with _guard(key):
        if _OPEN.get(key):
            _DEFERRED[key] = True
        else:
            _close_fds_unguarded(key, True)


def read_chunks(path: Path, chunk: int = 1 << 20) -> Iterator[bytes]:
    """The bytes of ``path`` in chunks, read without ever closing a descriptor of it (see ``_READ_FDS``)."""
    fd = read_fd(path)
    offset = 0
    while True:
        data = os.pread(fd, chunk, offset)
        if not data:
            return
        yield data
        offset += len(data)
