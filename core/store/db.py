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

import os
import random
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

import duckdb
import pandas as pd

from core import settings
from core.store import handles
from core.store.errors import (  # noqa: F401 (re-exported: callers import the store's errors from here)
    CONTENTION,
    WRITE_FAILED,
    StoreBusy,
    StoreDamaged,
    StoreError,
    StoreForeign,
    StoreFull,
    StoreMissing,
    StoreRaced,
    damaged,
    is_damage,
    raced,
)
from core.store.forensics import (  # noqa: F401 (re-exported)
    FIRST_BLOCK,
    block_owners,
    check_blocks,
    damage,
    damaged_tables,
    truncation,
    unreadable_tables,
    verdict,
)
from core.store.handles import read_chunks, release_fd  # noqa: F401 (re-exported)
from core.store.keys import content_hash_for, pair_id_for, stable_hash  # noqa: F401 (re-exported)
from core.store.paths import DEFAULT_STORE, OLD_DEFAULT_STORE, default_store_path  # noqa: F401 (re-exported)
from core.store.schema import (  # noqa: F401 (re-exported)
    MIGRATIONS_DIR,
    Migration,
    all_migrations,
    latest_schema_version,
    schema_version,
    split_sql,
    store_kind,
)

# One lock per store file and process: writes from threads of one process
# (Streamlit sessions, runner workers) queue here instead of racing DuckDB.
_PROCESS_LOCKS: dict[str, threading.RLock] = {}
_PROCESS_LOCKS_GUARD = threading.Lock()


# The counters in store_meta that Store.write bumps (see Store.write).
COUNTERS = ("data_version", "job_version", "cache_version")


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
        ``RADCONCORD_STORE_TIMEOUT``, else 30).
    """

    def __init__(self, path: str | os.PathLike | None = None, *, timeout: float | None = None,
                 create: bool = True):
        self.path = Path(path) if path is not None else default_store_path()
        self.timeout = settings.store_timeout() if timeout is None else timeout
        # May this handle make a store: of a missing file, or of an existing empty DuckDB database?
        # (The CLI passes False for every command but CREATES_STORE's; a non-empty DuckDB file that is
        # not a RadConcord store is refused whatever this says, and left untouched.)
        self.create = create
        key = str(self.path.resolve())
        with _PROCESS_LOCKS_GUARD:
            self._lock = _PROCESS_LOCKS.setdefault(key, threading.RLock())
        self._local = threading.local()  # this thread's session connection (see session())
        self._schema_ok = False  # set once the file's schema is known to be this RadConcord's
        self._write_checked = False  # set once the file's blocks are checked before this handle's first write
        if not self.path.exists():
            self._migrate()

    # -- connections -------------------------------------------------------

    def _connect(self, read_only: bool, recheck: bool = True) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + self.timeout
        delay = 0.01
        while True:
            try:
                return handles.connect(self.path, read_only=read_only)
            except duckdb.Error as exc:
                msg = str(exc).lower()
                if is_damage(exc):
                    raise (self._recheck(exc) if recheck else damaged(self.path, exc)) from exc
                if not any(s in msg for s in CONTENTION):
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
                    self._release_session()
                    raise self._recheck(exc) from exc
                raise
            return
        with self._closed_after(self._open_read()) as conn:
            yield Connection(conn)

    @contextmanager
    def _closed_after(self, conn) -> Iterator:
        """``conn`` for the block, closed when it ends; a DuckDB error that reads as damage closes it first
        and is then re-checked (:meth:`_recheck` wants no connection of this thread open)."""
        try:
            yield conn
        except duckdb.Error as exc:
            if is_damage(exc):
                handles.close(conn, self.path)
                conn = None
                raise self._recheck(exc) from exc
            raise
        finally:
            if conn is not None:
                handles.close(conn, self.path)

    def _recheck(self, exc: BaseException) -> StoreError:
        """What a DuckDB error that reads as damage means, decided by a fresh read-only connection: the
        file's blocks, its length and every table read in full (:func:`core.store.forensics.damage`,
        ``unreadable_tables``). Damage only when that re-check finds it; else the read met a file that
        changed under it (:class:`StoreRaced`, transient). Call it with no connection of this thread open."""
        try:
            conn = self._connect(read_only=True, recheck=False)
        except StoreDamaged as again:
            return again
        except StoreError as busy:
            return raced(self.path, exc) if not isinstance(busy, StoreBusy) else StoreRaced(
                f"a read of the store at {self.path} failed ({str(exc).strip().splitlines()[0]}) and the file could "
                "not be re-checked (held by another connection); it is not known to be damaged; try again")
        try:
            why = damage(self.path, conn)
            hurt = None if why else unreadable_tables(conn)
        except duckdb.Error as again:
            return damaged(self.path, again) if is_damage(again) else StoreError(f"store {self.path}: {again}")
        finally:
            handles.close(conn, self.path)
        if why:
            return damaged_line(self.path, why)
        if hurt:
            return damaged_line(self.path, f"table {hurt[0][0]} does not read: {hurt[0][1]}")
        return raced(self.path, exc)

    def _open_read(self) -> duckdb.DuckDBPyConnection:
        if not self.path.exists():
            raise StoreError(f"store {self.path} does not exist")
        conn = self._connect(read_only=True)
        try:
            if not self._schema_ok:
                current = self._recognise(conn)
                if current != latest_schema_version():  # older: migrate; newer: refused there
                    handles.close(conn, self.path)
                    conn = None
                    self._migrate(current)
                    conn = self._connect(read_only=True)
                self._schema_ok = True
            why = verdict(self.path, conn)  # once per version of the file (forensics.verdict)
        except duckdb.Error as exc:
            if conn is not None:
                handles.close(conn, self.path)
            if is_damage(exc):
                raise self._recheck(exc) from exc
            raise
        except BaseException:
            if conn is not None:
                handles.close(conn, self.path)
            raise
        if why:
            handles.close(conn, self.path)
            raise damaged_line(self.path, why)
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

    @contextmanager
    def outside_session(self) -> Iterator[None]:
        """Inside a :meth:`session`, a block whose reads open their own connections again (the session's one
        closed first, so the file is not held while the block runs): around a long computation in a session
        that spans a whole dashboard run. The session resumes after the block; a no-op outside one."""
        if not getattr(self._local, "active", False):
            yield
            return
        self._release_session()
        self._local.active = False
        try:
            yield
        finally:
            self._release_session()
            self._local.active, self._local.conn = True, None

    def let_go(self) -> None:
        """Inside a :meth:`session`: close its connection now (the next read in it opens the file again), before
        work that reads nothing for a while; a no-op outside one or before its first read."""
        self._release_session()

    def _release_session(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            handles.close(conn, self.path)

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
                        raise damaged_line(self.path, f"blocks of {', '.join(hurt)} fail their checksum; "
                                           "nothing was written")
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
                    handles.close(conn, self.path)
                    conn = None
                    raise self._recheck(exc) from exc
                if "read-only" in text.lower() or "permission" in text.lower():
                    raise StoreError(f"store {self.path} is not writable: {text}") from exc
                if any(s in text.lower() for s in WRITE_FAILED):  # disk full, file size limit
                    raise StoreFull(f"could not write store {self.path}; this write was not saved (earlier "
                                    f"commits are kept; free disk space and try again): {text}") from exc
                raise
            finally:
                if conn is not None:
                    for alias in attach or {}:  # an error here must not hide the block's own
                        with suppress(duckdb.Error):
                            conn.execute(f"DETACH DATABASE IF EXISTS {alias}")
                    handles.close(conn, self.path)

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
            return schema_version(conn)

    # -- migrations --------------------------------------------------------

    def _recognise(self, conn) -> int:
        """The schema version of the file behind ``conn`` (0: an empty database this handle may make a
        store of). Raises :class:`StoreForeign` for a DuckDB file that is not a RadConcord store (nothing
        is written to it), and for an empty one when this handle may not create a store."""
        kind, version, names = store_kind(conn)
        if kind == "store":
            short = truncation(self.path, conn)
            if short:
                raise damaged_line(self.path, short)
            return version
        if kind == "foreign":
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            raise StoreForeign(f"{self.path} is a DuckDB database but not a RadConcord store (it holds {shown}); "
                               "it was left unchanged; point --store or RADCONCORD_STORE at a RadConcord store")
        if not self.create:
            raise StoreForeign(f"{self.path} is an empty DuckDB database, not a RadConcord store; it was left "
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
                with self._closed_after(self._connect(read_only=True)) as conn:
                    current = self._recognise(conn)
            if current > latest:
                raise StoreError(
                    f"store {self.path} has schema v{current}, newer than this RadConcord "
                    f"(v{latest}); upgrade RadConcord before opening it"
                )
            if current == latest:
                self._schema_ok = True
                return
            if current >= 1:
                from core.store.copies import backup_before_migration

                backup_before_migration(self, current)
        else:
            if not self.create:
                raise StoreError(f"store {self.path} does not exist")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, self._closed_after(self._connect(read_only=False)) as conn:
            current = schema_version(conn)  # re-check: another process may have won
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
        self._schema_ok = True


def damaged_line(path: Path, why: str) -> StoreDamaged:
    """The one-line error for a store a check found damaged (``why``: what the check found)."""
    return StoreDamaged(f"the store at {path} is damaged: {why}; run check-store; restore from a backup or export")
