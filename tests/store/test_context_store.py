"""Patient context in the store (migration 009): an older store gains it empty; trash, undo, export,
backup and check-store carry it like the rest of a pair."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pandas as pd

from core.cli.main import main
from core.ingest.demo import build_demo
from core.store.backup import auto_backups
from core.store.datasets import delete_dataset, restore_dataset
from core.store.db import Store, latest_schema_version
from core.store.integrity import check_store, export_store
from core.taxonomy import CONTEXT_FIELDS
from tests.conftest import DEMO_PAIRS, DEMO_SEED, copy_store
from tests.old_schema import older_copy

PAIR_COLS = f"pair_id, ext_id, reference, candidate, {', '.join(CONTEXT_FIELDS)}"


def _pairs(store: Store, table: str = "pairs") -> pd.DataFrame:
    return store.query_df(f"SELECT {PAIR_COLS} FROM {table} ORDER BY pair_id")


def _columns(path, table: str) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                                          "ORDER BY column_index", [table]).fetchall()]
    finally:
        con.close()


def test_the_demo_carries_context_for_every_pair(demo_store: Store):
    frame = _pairs(demo_store)
    assert frame[["age", "sex", "indication"]].notna().all().all() and len(frame) == DEMO_PAIRS
    assert frame["history"].notna().any() and frame["history"].isna().any()  # a prior only where the reference has one
    assert frame["age"].astype(int).between(18, 92).all() and set(frame["sex"]) <= {"F", "M"}


def test_a_store_from_before_migration_9_opens_and_gains_empty_context(demo_store: Store, tmp_path):
    old = older_copy(demo_store.path, tmp_path / "v8.duckdb", 8)
    assert not set(CONTEXT_FIELDS) & set(_columns(old, "pairs"))
    assert not set(CONTEXT_FIELDS) & set(_columns(old, "trash_pairs"))
    store = Store(old)
    frame = _pairs(store)  # the first read migrates
    assert store.schema_version() == latest_schema_version() >= 9
    assert frame[list(CONTEXT_FIELDS)].isna().all().all()
    assert _columns(old, "trash_pairs")[-4:] == list(CONTEXT_FIELDS)
    demo = _pairs(demo_store)
    assert frame[["pair_id", "reference", "candidate"]].equals(demo[["pair_id", "reference", "candidate"]])
    assert [p.name.endswith("-schema-v8") for p in auto_backups(old)] == [True]  # the copy before migrating
    report = check_store(old)
    assert report.ok and not report.notes, (report.problems, report.notes)

    # building the demo again adds no pair and fills in its context
    again = build_demo(store, n_pairs=DEMO_PAIRS, seed=DEMO_SEED)
    assert again.added == 0
    assert _pairs(store).equals(demo)


def test_trash_and_undo_keep_the_context(demo_store: Store, tmp_path):
    store = copy_store(demo_store, tmp_path / "s.duckdb")
    before = _pairs(store)
    record = delete_dataset(store, "demo")
    assert store.query_one("SELECT count(*) FROM pairs") == 0
    trashed = store.query_df(f"SELECT {PAIR_COLS} FROM trash_pairs WHERE batch_id = ? ORDER BY pair_id",
                             [record.batch_id])
    assert trashed.equals(before)
    restore_dataset(store, record.batch_id)
    assert _pairs(store).equals(before)


def test_export_and_backup_restore_keep_the_context(demo_store: Store, tmp_path, capsys):
    store = copy_store(demo_store, tmp_path / "s.duckdb")
    before = _pairs(store)
    manifest = export_store(store, tmp_path / "export")
    assert manifest["schema_version"] == latest_schema_version()
    exported = pd.read_parquet(tmp_path / "export" / "pairs.parquet")
    exported = exported[before.columns].sort_values("pair_id", ignore_index=True)
    assert exported.equals(before)
    assert list(pd.read_parquet(tmp_path / "export" / "trash_pairs.parquet").columns)[-4:] == list(CONTEXT_FIELDS)

    assert main(["--store", str(store.path), "backup", "--out", str(tmp_path / "bk")]) == 0
    assert main(["restore", "--from", str(tmp_path / "bk"), "--to", str(tmp_path / "restored.duckdb")]) == 0
    capsys.readouterr()
    assert _pairs(Store(tmp_path / "restored.duckdb")).equals(before)


def test_check_store_notes_context_written_outside_the_importer(demo_store: Store, tmp_path):
    store = copy_store(demo_store, tmp_path / "s.duckdb")
    assert check_store(store.path).notes == []
    store.execute("UPDATE pairs SET sex = sex || ' ' WHERE ext_id IN ('demo-000000', 'demo-000001')")
    store.execute("UPDATE pairs SET indication = '' WHERE ext_id = 'demo-000002'")
    report = check_store(store.path)
    assert report.ok  # a note, not damage
    assert report.notes == ["3 pair(s) whose patient context is empty text or starts or ends with whitespace "
                            "(written outside RadConcord's importer): shown as stored"]


def test_the_readme_counts_the_default_demos_context(tmp_path):
    readme = (Path(__file__).resolve().parents[2] / "docs" / "getting-started.md").read_text(encoding="utf-8")
    stated = re.search(r"and the (\d+) of (\d+) pairs whose reference compares with a prior", readme)
    assert stated, "the docs' sentence on the demo's context (docs/getting-started.md)"
    store = Store(tmp_path / "demo.duckdb")
    build_demo(store)  # the README's defaults: 400 pairs, seed 7
    counts = store.query_one("SELECT count(history), count(*), count(age), count(sex), count(indication) "
                             "FROM pairs WHERE dataset = 'demo'")
    assert counts == (int(stated.group(1)), int(stated.group(2)), 400, 400, 400)
