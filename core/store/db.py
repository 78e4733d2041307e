"""The DuckDB store: one file, numbered migrations, short transactions.

DuckDB lets one *process* hold a file read-write, and while it does no other
process can open it at all (see docs/ARCHITECTURE.md, "Sharing one store").
So the store never keeps a connection open between operations: every read
opens the file read-only, every write opens it read-write inside one
BEGIN/COMMIT, and both close at once. Opening is cheap (tens of ms); when the
file is held by another process the open is retried with exponential backoff
and jitter until ``timeout`` seconds have passed, then ``StoreBusy`` is raised.

Every value goes through ``?`` parameters; identifiers are never built from
user input (the only dynamic identifiers are the fixed column names below).
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import NamedTuple

import duckdb
import numpy as np
import pandas as pd

from core import settings

DEFAULT_STORE = Path("data/radjudge.duckdb")
MIGRATIONS_DIR = Path(__file__).with_name("migrations")

# Substrings of DuckDB errors that mean "someone else holds the file": retry. The last two come from this
# process: DuckDB keeps one database instance per file and process, so a read opened while another thread's
# write is open (or the reverse) is refused for its different configuration, and one opened while that
# instance is being made or torn down meets a "unique file handle conflict". Both pass once the other
# connection closes.
_CONTENTION = (
    "could not set lock",
    "conflicting lock",
    "database is locked",
    "different configuration",
    "unique file handle conflict",
)
# Substrings of DuckDB errors that mean "the disk refused the write" (full, or a size limit).
_WRITE_FAILED = ("no space left", "file too large", "could not write", "disk quota")

# One lock per store file and process: writes from threads of one process
# (Streamlit sessions, runner workers) queue here instead of racing DuckDB.
_PROCESS_LOCKS: dict[str, threading.RLock] = {}
_PROCESS_LOCKS_GUARD = threading.Lock()


class StoreError(RuntimeError):
    """A store problem the user can act on (message says what and where)."""


class StoreBusy(StoreError):
    """Another process held the store file for longer than the timeout."""


class StoreFull(StoreError):
    """The disk refused a write (full, or a file size limit): that transaction was rolled back."""


class StoreDamaged(StoreError):
    """DuckDB found the file damaged (a failed block checksum, a truncated file, not a database)."""


class StoreForeign(StoreError):
    """The file is a DuckDB database of something else, or an empty one a read may not initialise."""


# Substrings of DuckDB errors that mean "the file itself is damaged": no retry, no write.
_DAMAGE = ("corrupt database file", "does not match stored checksum", "could not read enough bytes",
           "not a valid duckdb database file", "file is truncated", "failed to read", "invalid block")


def is_damage(exc: BaseException) -> bool:
    """Whether a DuckDB error says the store file is damaged (see ``_DAMAGE``)."""
    return isinstance(exc, duckdb.Error) and any(s in str(exc).lower() for s in _DAMAGE)


def damaged(path: Path, exc: BaseException) -> StoreDamaged:
    """The one-line error for a damaged store file."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return StoreDamaged(f"the store at {path} is damaged: {first}; run check-store; "
                        "restore from a backup or export")


# The counters in store_meta that Store.write bumps (see Store.write).
COUNTERS = ("data_version", "job_version")


def default_store_path() -> Path:
    """The store path: ``RADJUDGE_STORE`` if set, else ``data/radjudge.duckdb``."""
    return Path(settings.store_path() or DEFAULT_STORE)


def stable_hash(*parts: str, length: int = 20) -> str:
    """Hex digest of the parts joined by a separator no report text contains."""
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:length]


def pair_id_for(dataset: str, ext_id: str) -> str:
    """Stable pair id: the same dataset and external id always give the same id."""
    return stable_hash("pair", dataset, ext_id)


def content_hash_for(reference: str, candidate: str) -> str:
    """Hash of a pair's texts: a rating records it so later edits are visible."""
    return stable_hash("content", reference, candidate, length=16)


class Migration(NamedTuple):
    number: int
    name: str
    sql: str


@functools.lru_cache(maxsize=1)
def all_migrations() -> tuple[Migration, ...]:
    """The numbered migrations shipped with this RadJudge, read once per process.

    Read once and kept, so a process that has started (and, say, dropped its privileges, or whose
    checkout has become unreachable) no longer needs the install's files to open a store. An
    unreadable install is a one-line :class:`StoreError`, not a traceback.
    """
    try:
        names = sorted(os.listdir(MIGRATIONS_DIR))
        found = []
        for name in names:
            m = re.match(r"(\d+)_.*\.sql$", name)
            if m:
                found.append(Migration(int(m.group(1)), name, (MIGRATIONS_DIR / name).read_text(encoding="utf-8")))
    except OSError as exc:
        raise StoreError(f"cannot read RadJudge's schema migrations in {MIGRATIONS_DIR}: "
                         f"{exc.strerror or exc}; check that this user can read the installation") from exc
    numbers = [m.number for m in found]
    if not numbers or numbers != list(range(1, len(numbers) + 1)):
        raise StoreError(f"migrations in {MIGRATIONS_DIR} must be numbered 1..n without gaps, found {numbers}")
    return tuple(found)


def sql_string(text: str | os.PathLike) -> str:
    """A SQL string literal (for ATTACH and read_parquet, which take no ``?`` parameters)."""
    return "'" + str(text).replace("'", "''") + "'"


def new_pair_numbers(order_by: str) -> str:
    """SQL numbering the rows of an INSERT INTO pairs in ``order_by`` order from the first free pair
    number (migration 005): above every live and trashed pair, so a restored dataset never meets its
    numbers again. Use it inside the write transaction that inserts the pairs."""
    return ("(SELECT greatest((SELECT coalesce(max(pair_no), 0) FROM pairs), "
            f"(SELECT coalesce(max(pair_no), 0) FROM trash_pairs))) + row_number() OVER (ORDER BY {order_by})")


def insert_metric_values(conn, source: str, params: Sequence | None = None) -> None:
    """Insert the rows of ``source`` (a SELECT giving run_id, pair_id, metric, value) into
    metric_values, each with its pair's ``pair_no`` (NULL when the pair is missing; readers then
    match on pair_id). Every writer of metric values goes through here."""
    conn.execute("INSERT INTO metric_values (run_id, pair_id, metric, value, pair_no) "
                 f"SELECT s.run_id, s.pair_id, s.metric, s.value, p.pair_no FROM ({source}) s "
                 "LEFT JOIN pairs p ON p.pair_id = s.pair_id", list(params or []))


def latest_schema_version() -> int:
    return len(all_migrations())


def split_sql(text: str) -> list[str]:
    # Migration files hold plain DDL/DML: no "--" or ";" inside string literals.
    text = re.sub(r"--[^\n]*", "", text)
    return [s.strip() for s in text.split(";") if s.strip()]


class Connection:
    """A DuckDB connection that finishes pending statements before (un)registering frames.

    DuckDB 2 refuses ``register``/``unregister`` while an ``execute`` result
    is unfetched (an INSERT's row count, say); the callers never need those.
    """

    def __init__(self, conn: duckdb.DuckDBPyConnection):
        self._conn = conn

    def execute(self, sql: str, params: Sequence | None = None):
        return self._conn.execute(sql, list(params) if params is not None else [])

    def register(self, name: str, frame) -> None:
        self._conn.complete()
        self._conn.register(name, frame)

    def unregister(self, name: str) -> None:
        self._conn.complete()
        self._conn.unregister(name)

    def __getattr__(self, attr):
        return getattr(self._conn, attr)


class Store:
    """Handle on one store file. Cheap to create; holds no open connection.

    Parameters
    ----------
    path
        The DuckDB file. A missing file is created (with its folder) and migrated at once; an
        existing file's schema is checked, and migrated, on the first connection this handle opens
        (saving an extra open of a large file: the check rides on the first read).
    timeout
        Seconds to keep retrying when another process holds the file (default:
        ``RADJUDGE_STORE_TIMEOUT``, else 30).
    """

    def __init__(self, path: str | os.PathLike | None = None, *, timeout: float | None = None,
                 create: bool = True):
        self.path = Path(path) if path is not None else default_store_path()
        self.timeout = settings.store_timeout() if timeout is None else timeout
        # May this handle make a store: of a missing file, or of an existing empty DuckDB database?
        # (The CLI passes False for every command but CREATES_STORE's; a non-empty DuckDB file that is
        # not a RadJudge store is refused whatever this says, and left untouched.)
        self.create = create
        key = str(self.path.resolve())
        with _PROCESS_LOCKS_GUARD:
            self._lock = _PROCESS_LOCKS.setdefault(key, threading.RLock())
        self._local = threading.local()  # this thread's session connection (see session())
        self._schema_ok = False  # set once the file's schema is known to be this RadJudge's
        self._write_checked = False  # set once the file's blocks are checked before this handle's first write
        if not self.path.exists():
            self._migrate()

    # -- connections -------------------------------------------------------

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + self.timeout
        delay = 0.01
        while True:
            try:
                return duckdb.connect(str(self.path), read_only=read_only)
            except duckdb.Error as exc:
                msg = str(exc).lower()
                if is_damage(exc):
                    raise damaged(self.path, exc) from exc
                if not any(s in msg for s in _CONTENTION):
                    raise StoreError(f"cannot open store {self.path}: {exc}") from exc
                if time.monotonic() >= deadline:
                    # "different configuration" and "unique file handle conflict" come from this process
                    raise StoreBusy(
                        f"store {self.path} stayed locked by another connection (this or another process) for "
                        f"{self.timeout:g} s ({str(exc).strip().splitlines()[0]}); close the other job or try again"
                    ) from exc
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only connection for the duration of the block (this thread's session one, inside
        :meth:`session`)."""
        if getattr(self._local, "active", False):
            if self._local.conn is None:
                self._local.conn = self._open_read()
            try:
                yield Connection(self._local.conn)
            except duckdb.Error as exc:
                if is_damage(exc):
                    raise damaged(self.path, exc) from exc
                raise
            return
        conn = self._open_read()
        try:
            yield Connection(conn)
        except duckdb.Error as exc:
            if is_damage(exc):
                raise damaged(self.path, exc) from exc
            raise
        finally:
            conn.close()

    def _open_read(self) -> duckdb.DuckDBPyConnection:
        if not self.path.exists():
            raise StoreError(f"store {self.path} does not exist")
        conn = self._connect(read_only=True)
        if not self._schema_ok:
            try:
                current = self._recognise(conn)
            except duckdb.Error as exc:
                conn.close()
                if is_damage(exc):
                    raise damaged(self.path, exc) from exc
                raise
            except BaseException:
                conn.close()
                raise
            if current != latest_schema_version():  # older: migrate; newer: refused there
                conn.close()
                self._migrate(current)
                conn = self._connect(read_only=True)
            self._schema_ok = True
        return conn

    @contextmanager
    def session(self) -> Iterator[None]:
        """Reads of this thread inside the block share one read-only connection.

        Each open of the file costs tens of ms, and the first query after it reads cold blocks;
        a page that makes ten small reads in a row wraps them in a session and opens the file
        once. The file stays held (read-only) until the block ends, as during one long read, so
        keep sessions around reading, not around long computations. A write inside a session
        closes the shared connection first (DuckDB does not mix modes in one process); the next
        read opens it again. Nested sessions are one session.
        """
        if getattr(self._local, "active", False):
            yield
            return
        self._local.active, self._local.conn = True, None
        try:
            yield
        finally:
            self._local.active = False
            self._release_session()

    def _release_session(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            conn.close()

    @contextmanager
    def write(self, counter: str = "data_version",
              attach: dict[str, str | os.PathLike] | None = None) -> Iterator[Connection]:
        """One write transaction: everything in the block commits, or nothing does.

        The ``counter`` in ``store_meta`` is bumped in the same transaction: ``data_version`` (the
        default), so caches keyed on :meth:`data_version` see every committed change; job
        bookkeeping (progress, heartbeats, leases: core.jobs) bumps ``job_version`` instead, so a
        running job does not empty the dashboard's data caches every second.

        ``attach``: ``{alias: path}`` of DuckDB files read in the block, attached read-only before the transaction
        and detached after it (DuckDB refuses inside it); left attached, a file outlives this connection in the
        process's instance of the store while another connection of this process holds it.
        """
        if counter not in COUNTERS:
            raise ValueError(f"unknown store counter {counter!r}")
        self._release_session()
        if not self._schema_ok:
            self._migrate()
        with self._lock:
            conn = self._connect(read_only=False)
            try:
                if not self._write_checked:  # once per handle: no write on a file with damaged table blocks
                    hurt = damaged_tables(self.path, conn)
                    if hurt:
                        raise StoreDamaged(
                            f"the store at {self.path} is damaged: blocks of {', '.join(hurt)} fail their "
                            "checksum; nothing was written; run check-store; restore from a backup or export")
                    self._write_checked = True
                for alias, path in (attach or {}).items():
                    conn.execute(f"ATTACH {sql_string(path)} AS {alias} (READ_ONLY)")
                conn.execute("BEGIN TRANSACTION")
                try:
                    yield Connection(conn)
                    conn.complete()
                    conn.execute(
                        "UPDATE store_meta SET value = CAST(CAST(value AS BIGINT) + 1 AS VARCHAR) "
                        "WHERE key = ?", [counter])
                    conn.execute("COMMIT")
                except BaseException:
                    try:
                        conn.execute("ROLLBACK")
                    except duckdb.Error:
                        pass
                    raise
            except duckdb.Error as exc:
                text = str(exc)
                if is_damage(exc):
                    raise damaged(self.path, exc) from exc
                if "read-only" in text.lower() or "permission" in text.lower():
                    raise StoreError(f"store {self.path} is not writable: {text}") from exc
                if any(s in text.lower() for s in _WRITE_FAILED):  # disk full, file size limit
                    raise StoreFull(f"could not write store {self.path}; this write was not saved (earlier "
                                    f"commits are kept; free disk space and try again): {text}") from exc
                raise
            finally:
                for alias in attach or {}:  # an error here must not hide the block's own
                    with suppress(duckdb.Error):
                        conn.execute(f"DETACH DATABASE IF EXISTS {alias}")
                conn.close()

    # -- convenience -------------------------------------------------------

    def query_df(self, sql: str, params: Sequence | None = None) -> pd.DataFrame:
        """Run one read query with parameters and return a DataFrame."""
        with self.read() as conn:
            return conn.execute(sql, list(params or [])).df()

    def query_one(self, sql: str, params: Sequence | None = None):
        with self.read() as conn:
            row = conn.execute(sql, list(params or [])).fetchone()
        return None if row is None else (row[0] if len(row) == 1 else row)

    def execute(self, sql: str, params: Sequence | None = None) -> None:
        """Run one write statement in its own transaction."""
        with self.write() as conn:
            conn.execute(sql, list(params or []))

    def data_version(self) -> int:
        """Counter bumped by every committed write of data (a cache key for readers)."""
        return int(self.query_one("SELECT value FROM store_meta WHERE key = 'data_version'"))

    def job_version(self) -> int:
        """Counter bumped by every write of job bookkeeping (core.jobs)."""
        return int(self.query_one("SELECT value FROM store_meta WHERE key = 'job_version'") or 0)

    def schema_version(self) -> int:
        with self.read() as conn:
            return _schema_version(conn)

    # -- migrations --------------------------------------------------------

    def _recognise(self, conn) -> int:
        """The schema version of the file behind ``conn`` (0: an empty database this handle may make a
        store of). Raises :class:`StoreForeign` for a DuckDB file that is not a RadJudge store (nothing
        is written to it), and for an empty one when this handle may not create a store."""
        kind, version, names = store_kind(conn)
        if kind == "store":
            short = truncation(self.path, conn)
            if short:
                raise StoreDamaged(f"the store at {self.path} is damaged: {short}; run check-store; "
                                   "restore from a backup or export")
            return version
        if kind == "foreign":
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            raise StoreForeign(f"{self.path} is a DuckDB database but not a RadJudge store (it holds {shown}); "
                               "it was left unchanged; point --store or RADJUDGE_STORE at a RadJudge store")
        if not self.create:
            raise StoreForeign(f"{self.path} is an empty DuckDB database, not a RadJudge store; it was left "
                               "unchanged (only demo, import-pairs, import-preset and import-review make a store)")
        return 0

    def _migrate(self, current: int | None = None) -> None:
        """Bring the file to the latest schema; ``current``: its version, when the caller has read it.

        Before migrating an existing store (schema v1 or later) a copy of it is kept beside it
        (:func:`core.store.backup.backup_before_migration`: ``PATH.backups/``, the 3 newest kept).
        """
        migrations = all_migrations()
        latest = len(migrations)
        if self.path.exists():
            if current is None:
                conn = self._connect(read_only=True)
                try:
                    current = self._recognise(conn)
                except duckdb.Error as exc:
                    if is_damage(exc):
                        raise damaged(self.path, exc) from exc
                    raise
                finally:
                    conn.close()
            if current > latest:
                raise StoreError(
                    f"store {self.path} has schema v{current}, newer than this RadJudge "
                    f"(v{latest}); upgrade RadJudge before opening it"
                )
            if current == latest:
                self._schema_ok = True
                return
            if current >= 1:
                from core.store.backup import backup_before_migration

                backup_before_migration(self, current)
        else:
            if not self.create:
                raise StoreError(f"store {self.path} does not exist")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            conn = self._connect(read_only=False)
            try:
                current = _schema_version(conn)  # re-check: another process may have won
                for number, name, sql in migrations:
                    if number <= current:
                        continue
                    conn.execute("BEGIN TRANSACTION")
                    try:
                        conn.execute(
                            "CREATE TABLE IF NOT EXISTS schema_version ("
                            "version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
                            "applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
                        )
                        for statement in split_sql(sql):
                            conn.execute(statement)
                        conn.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", [number, name])
                        conn.execute("COMMIT")
                    except BaseException:
                        conn.execute("ROLLBACK")
                        raise
            except duckdb.Error as exc:
                if is_damage(exc):
                    raise damaged(self.path, exc) from exc
                raise
            finally:
                conn.close()
        self._schema_ok = True


def truncation(path: Path, conn) -> str | None:
    """Why the file behind ``conn`` is shorter than its contents (None: it is not). DuckDB writes whole
    blocks after three 4 KiB headers, so a file ending inside a block, or before the last block a
    table's rows are in, has been cut. Reads the catalog only (milliseconds), not the data."""
    size = path.stat().st_size
    block = conn.execute("SELECT block_size FROM pragma_database_size() "
                         "WHERE database_name = current_database()").fetchone()
    if not block or not block[0]:
        return None
    block = int(block[0])
    if size < 3 * 4096:
        return f"the file is {size:,} bytes, shorter than DuckDB's headers: it was cut short"
    # A tail shorter than a block is not damage by itself: a write that met a full disk leaves one, and
    # DuckDB uses no block it did not finish. Only a table block beyond the last whole block is missing.
    blocks = (size - 3 * 4096) // block
    last = -1
    for (table,) in conn.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
                                 "AND NOT internal").fetchall():
        quoted = table.replace("'", "''")
        row = conn.execute(f"SELECT max(block_id) FROM pragma_storage_info('{quoted}')").fetchone()
        last = max(last, int(row[0]) if row and row[0] is not None else -1)
    if last >= blocks:
        return (f"the file holds {blocks:,} blocks but table rows are stored in block {last:,}: it was cut short")
    return None


# DuckDB's file layout (storage version 64+): a 4 KiB main header, two 4 KiB database headers (the one
# with the higher iteration is current), then blocks of ``block_alloc_size`` bytes, each starting with
# the 8-byte checksum of the rest of the block. The checksum (DuckDB's ``Checksum``): 5381 XOR the
# product of every 8-byte word with 0xbf58476d1ce4e5b9 (a block is a whole number of words).
_HEADER = 4096
FIRST_BLOCK = 3 * _HEADER
_CHECKSUM_MUL = np.uint64(0xBF58476D1CE4E5B9)


def _checksum(words: np.ndarray) -> int:
    with np.errstate(over="ignore"):
        return int(np.bitwise_xor.reduce(words * _CHECKSUM_MUL) ^ np.uint64(5381))


def _block_size(data: np.ndarray) -> int | None:
    """The block size the current database header records (None: a layout this code does not know)."""
    if len(data) < FIRST_BLOCK or bytes(data[8:12]) != b"DUCK":
        return None
    best = None
    for start in (_HEADER, 2 * _HEADER):
        head = data[start:start + _HEADER]
        if _checksum(head[8:].view(np.uint64)) != int(head[:8].view(np.uint64)[0]):
            continue
        fields = head[8:56].view(np.uint64)  # iteration, meta block, free list, block count, block size
        iteration, size = int(fields[0]), int(fields[4])
        if best is None or iteration > best[0]:
            best = (iteration, size)
    if best is None or best[1] < 16384 or best[1] & (best[1] - 1):
        return None
    return best[1]


# Files this process reads beside DuckDB (block checksums, backup copies), each through one descriptor
# that is never closed. DuckDB locks the store with POSIX (fcntl) locks, and POSIX drops every lock a
# process holds on a file when the process closes *any* descriptor of that file: a plain open()/close()
# of the store while a connection is open would let another process's writer in. Keyed by path, checked
# against the file's identity (a restore renames a new file over the path; the old descriptor is kept,
# as a connection of this process may still hold the old file). At most _READ_FDS_KEPT files are kept
# open (the least recently used beyond that is closed: a dashboard or a command uses one store; a test
# process many, one after the other); release_fd closes one when no connection of this process holds it.
_READ_FDS: OrderedDict[str, list[int]] = OrderedDict()
_READ_FDS_GUARD = threading.Lock()
_READ_FDS_KEPT = 32


def _read_fd(path: Path) -> int:
    key = str(Path(path).resolve())
    with _READ_FDS_GUARD:
        st = os.stat(key)
        fds = _READ_FDS.setdefault(key, [])
        _READ_FDS.move_to_end(key)
        if fds:
            fst = os.fstat(fds[-1])
            if (fst.st_dev, fst.st_ino) == (st.st_dev, st.st_ino):
                return fds[-1]
        fds.append(os.open(key, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)))
        while len(_READ_FDS) > _READ_FDS_KEPT:
            for fd in _READ_FDS.popitem(last=False)[1]:
                os.close(fd)
        return fds[-1]


def release_fd(path: Path) -> None:
    """Close the descriptors ``read_chunks`` kept for ``path``: only when no connection of this process
    holds the file (closing drops its POSIX locks)."""
    with _READ_FDS_GUARD:
        for fd in _READ_FDS.pop(str(Path(path).resolve()), []):
            os.close(fd)


def read_chunks(path: Path, chunk: int = 1 << 20) -> Iterator[bytes]:
    """The bytes of ``path`` in chunks, read without ever closing a descriptor of it (see ``_READ_FDS``)."""
    fd = _read_fd(path)
    offset = 0
    while True:
        data = os.pread(fd, chunk, offset)
        if not data:
            return
        yield data
        offset += len(data)


def bad_blocks(path: Path) -> tuple[list[int], int, int | None]:
    """(blocks whose checksum fails, blocks checked, block size) of the DuckDB file at ``path``; block size
    None when the layout is not one this code knows (nothing checked). Reads the whole file once, safely
    while this process holds a DuckDB connection to it (``read_chunks``)."""
    size_on_disk = path.stat().st_size
    if size_on_disk < FIRST_BLOCK:
        return [], 0, None
    fd = _read_fd(path)
    head = np.frombuffer(os.pread(fd, FIRST_BLOCK, 0), dtype=np.uint8)
    size = _block_size(head)
    if size is None:
        return [], 0, None
    n = (size_on_disk - FIRST_BLOCK) // size
    bad = []
    for b in range(n):
        block = np.frombuffer(os.pread(fd, size, FIRST_BLOCK + b * size), dtype=np.uint8)
        if len(block) < size:
            break  # the file shrank meanwhile
        if _checksum(block[8:].view(np.uint64)) != int(block[:8].view(np.uint64)[0]):
            bad.append(b)
    return bad, n, size


def block_owners(conn) -> dict[int, set[str]]:
    """Block id -> the tables whose rows it holds (from DuckDB's catalog: ``pragma_storage_info``)."""
    owners: dict[int, set[str]] = {}
    for (table,) in conn.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                                 "current_database() AND NOT internal").fetchall():
        quoted = table.replace("'", "''")
        for block_id, extra in conn.execute(  # catalog names only
                f"SELECT block_id, additional_block_ids FROM pragma_storage_info('{quoted}') "
                "WHERE block_id >= 0").fetchall():
            for bid in [block_id, *(extra or [])]:
                owners.setdefault(int(bid), set()).add(table)
    return owners


def damaged_tables(path: Path, conn) -> list[str]:
    """The tables with rows in a block of ``path`` whose checksum fails (the check before a handle's
    first write: a write must not build on a damaged file). A failing block holding no table's rows
    (free space, an index or the catalog) is left to check-store, which reports it."""
    bad, _, _ = bad_blocks(path)
    if not bad:
        return []
    owners = block_owners(conn)
    return sorted({t for b in bad for t in owners.get(b, ())})


def store_kind(conn) -> tuple[str, int, list[str]]:
    """What the DuckDB database behind ``conn`` is: ``("store", schema version, [])`` for a RadJudge
    store (its marker: the ``schema_version`` and ``store_meta`` tables every store has had since
    migration 001, with ``store_meta``'s ``data_version`` row), ``("empty", 0, [])`` for a database
    with no tables or views, else ``("foreign", 0, its table and view names)``."""
    names = sorted(r[0] for r in conn.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND NOT internal "
        "UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = current_database() "
        "AND NOT internal").fetchall())
    if not names:
        return "empty", 0, []
    if {"schema_version", "store_meta"} <= set(names):
        cols = {r[0] for r in conn.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
            "AND schema_name = 'main' AND table_name = 'store_meta'").fetchall()}
        if {"key", "value"} <= cols and conn.execute(
                "SELECT count(*) FROM main.store_meta WHERE key = 'data_version'").fetchone()[0]:
            return "store", _schema_version(conn), []
    return "foreign", 0, names


def _schema_version(conn: duckdb.DuckDBPyConnection) -> int:
    exists = conn.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version' "
        "AND table_schema = 'main'"
    ).fetchone()[0]
    if not exists:
        return 0
    value = conn.execute("SELECT max(version) FROM main.schema_version").fetchone()[0]
    return int(value or 0)
