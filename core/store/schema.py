"""The store's schema: the numbered SQL migrations shipped in ``core/store/migrations/`` and the version
they make. Read by core.store.db (which migrates a store on open) and by the copies and checks of a store,
which need the version without opening one (no circle through db)."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import NamedTuple

import duckdb

from core.store.errors import StoreError

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


class Migration(NamedTuple):
    number: int
    name: str
    sql: str


@functools.lru_cache(maxsize=1)
def all_migrations() -> tuple[Migration, ...]:
    """The numbered migrations shipped with this RadConcord, read once per process.

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
        raise StoreError(f"cannot read RadConcord's schema migrations in {MIGRATIONS_DIR}: "
                         f"{exc.strerror or exc}; check that this user can read the installation") from exc
    numbers = [m.number for m in found]
    if not numbers or numbers != list(range(1, len(numbers) + 1)):
        raise StoreError(f"migrations in {MIGRATIONS_DIR} must be numbered 1..n without gaps, found {numbers}")
    return tuple(found)


def latest_schema_version() -> int:
    return len(all_migrations())


def split_sql(text: str) -> list[str]:
    # Migration files hold plain DDL/DML: no "--" or ";" inside string literals.
    text = re.sub(r"--[^\n]*", "", text)
    return [s.strip() for s in text.split(";") if s.strip()]


def store_kind(conn) -> tuple[str, int, list[str]]:
    """What the DuckDB database behind ``conn`` is: ``("store", schema version, [])`` for a RadConcord
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
            return "store", schema_version(conn), []
    return "foreign", 0, names


def schema_version(conn: duckdb.DuckDBPyConnection) -> int:
    """The schema version a store's ``schema_version`` table records (0: none yet)."""
    exists = conn.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version' "
        "AND table_schema = 'main'"
    ).fetchone()[0]
    if not exists:
        return 0
    value = conn.execute("SELECT max(version) FROM main.schema_version").fetchone()[0]
    return int(value or 0)
