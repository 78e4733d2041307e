"""A store as an older RadConcord left it: for the migration tests.

DuckDB drops no column of an indexed table (metric_values has a primary key), so an older store is not
made by undoing migrations: the first ``version`` migrations build a new file, and the rows of a current
store are copied into it by column name (the columns later migrations added are left out).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from core.store.db import all_migrations, split_sql


def older_copy(source: Path, dest: Path, version: int) -> Path:
    """``dest``: the schema of migrations 1..``version`` holding the rows of the store at ``source``."""
    con = duckdb.connect(str(dest))
    try:
        con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
                    "applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)")
        for number, name, sql in all_migrations()[:version]:
            for statement in split_sql(sql):
                con.execute(statement)
            con.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", [number, name])
        con.execute("DELETE FROM store_meta")
        con.execute(f"ATTACH '{source}' AS src (READ_ONLY)")
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                                            "current_database() AND table_name <> 'schema_version'").fetchall()]
        for table in tables:
            cols = ", ".join(f'"{r[0]}"' for r in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
                "AND table_name = ? ORDER BY column_index", [table]).fetchall())
            con.execute(f'INSERT INTO "{table}" ({cols}) SELECT {cols} FROM src."{table}"')
    finally:
        con.close()
    return dest
