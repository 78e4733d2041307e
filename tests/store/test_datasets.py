"""Deleting a dataset into the trash and restoring it (core/store/datasets.py, migration 002, CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from core.access import RESEARCHER
from core.ingest.comparisons import derive_preferences
from core.ingest.demo import build_demo
from core.judges import run_judge
from core.reads import ratings
from core.reads.queries import list_datasets
from core.store.datasets import TABLES, delete_dataset, list_trash, purge_trash, restore_dataset
from core.store.db import Store
from tests.cli_inprocess import run_cli
from tests.conftest import copy_store

ROOT = Path(__file__).resolve().parents[2]

# Independent of core/store/datasets.py: how a test finds a dataset's rows in each table, by a
# column of its own or through the table its rows belong to (parent, join key).
OWN_COLUMN = {"datasets": "name", "pairs": "dataset", "judge_runs": "dataset", "rating_queues": "dataset",
              "preferences": "dataset"}
THROUGH = {
    "annotations": ("pairs", "pair_id"),
    "judge_outputs": ("judge_runs", "run_id"),
    "judge_errors": ("judge_runs", "run_id"),
    "metric_values": ("judge_runs", "run_id"),
    "rating_queue_pairs": ("rating_queues", "queue_id"),
    "ratings": ("pairs", "pair_id"),
    "adjudications": ("pairs", "pair_id"),
}


def rows_sql(table: str) -> str:
    """The query for one dataset's rows of ``table`` (one parameter: the dataset)."""
    if table in OWN_COLUMN:
        return f"SELECT * FROM {table} WHERE {OWN_COLUMN[table]} = ?"
    parent, key = THROUGH[table]
    return f"SELECT x.* FROM {table} x JOIN {parent} p USING ({key}) WHERE p.dataset = ?"


def snapshot(store: Store, dataset: str) -> dict[str, pd.DataFrame]:
    """Every row of ``dataset`` per table, sorted, so two snapshots compare cell by cell."""
    out = {}
    for table in [*OWN_COLUMN, *THROUGH]:
        frame = store.query_df(rows_sql(table), [dataset])
        out[table] = frame.sort_values(list(frame.columns), ignore_index=True, na_position="first")
    return out


def checksum(frames: dict[str, pd.DataFrame]) -> dict[str, tuple[int, int]]:
    return {t: (len(f), int(pd.util.hash_pandas_object(f, index=False).sum())) for t, f in frames.items()}


@pytest.fixture(scope="module")
def judged_store(demo_store: Store, tmp_path_factory) -> Store:
    """The demo with a rules run (outputs, errors, metric values) plus a second, small dataset."""
    store = copy_store(demo_store, tmp_path_factory.mktemp("trash") / "judged.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    build_demo(store, n_pairs=12, seed=5, dataset="other")
    run_judge(store, dataset="other", judge="rules")
    for dataset in ("demo", "other"):  # clinician ratings (core/reads/ratings.py) travel with their dataset too
        queue = ratings.create_queue(store, dataset, "q", "sample", n=3, seed=1, role="researcher")
        first = ratings.queue_pair_ids(store, queue)[0]
        ratings.save_rating(store, first, "dr a", score=4, counts={"sig_a": 1}, queue_id=queue)
        ratings.adjudicate(store, first, "score", 4, "dr c", role=RESEARCHER)
        derive_preferences(store, dataset)  # pairwise preferences (migration 006) too
    return store


@pytest.fixture
def store(judged_store: Store, tmp_path) -> Store:
    return copy_store(judged_store, tmp_path / "s.duckdb")


def test_trash_tables_mirror_the_live_tables(tmp_store: Store):
    def columns(table):
        return tmp_store.query_df(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? "
            "ORDER BY ordinal_position", [table]).values.tolist()

    for table in TABLES:
        assert columns(f"trash_{table}") == [["batch_id", "VARCHAR"], *columns(table)], table
    assert list_trash(tmp_store).empty


def test_delete_moves_every_row_to_the_trash_in_one_transaction(store: Store):
    before = snapshot(store, "demo")
    other = checksum(snapshot(store, "other"))
    assert all(len(before[t]) > 0 for t in TABLES)  # the fixture fills every table
    version = store.data_version()

    record = delete_dataset(store, "demo")

    assert store.data_version() == version + 1  # one write transaction
    assert record.dataset == "demo" and record.counts == {t: len(before[t]) for t in TABLES}
    assert all(len(f) == 0 for f in snapshot(store, "demo").values())
    for table in TABLES:
        in_trash = store.query_one(f"SELECT count(*) FROM trash_{table} WHERE batch_id = ?", [record.batch_id])
        assert in_trash == len(before[table]), table
    assert checksum(snapshot(store, "other")) == other  # the other dataset is untouched
    assert list_datasets(store)["name"].tolist() == ["other"]
    trash = list_trash(store)
    assert trash["batch_id"].tolist() == [record.batch_id]
    assert trash.iloc[0]["n_pairs"] == 120 and bool(trash.iloc[0]["synthetic"]) is True


def test_a_failing_delete_moves_nothing(store: Store):
    before = checksum(snapshot(store, "demo"))
    # Break the last table's trash: the copy of metric_values fails after the other tables were copied.
    store.execute("ALTER TABLE trash_metric_values DROP COLUMN value")
    with pytest.raises(Exception, match="value"):
        delete_dataset(store, "demo")
    assert checksum(snapshot(store, "demo")) == before
    for table in TABLES:
        assert store.query_one(f"SELECT count(*) FROM trash_{table}") == 0, table
    assert list_trash(store).empty


def test_restore_brings_back_identical_rows(store: Store):
    before = snapshot(store, "demo")
    listed = list_datasets(store)
    record = delete_dataset(store, "demo")

    restored = restore_dataset(store, record.batch_id)

    assert restored.counts == record.counts
    after = snapshot(store, "demo")
    assert checksum(after) == checksum(before)
    for table in TABLES:
        pd.testing.assert_frame_equal(after[table], before[table], check_dtype=False)
    pd.testing.assert_frame_equal(list_datasets(store), listed)
    assert list_trash(store).empty
    for table in TABLES:
        assert store.query_one(f"SELECT count(*) FROM trash_{table}") == 0, table


def test_restore_is_refused_when_the_name_exists_again(store: Store):
    record = delete_dataset(store, "demo")
    build_demo(store, n_pairs=5, seed=1, dataset="demo")  # a new dataset under the old name
    new = checksum(snapshot(store, "demo"))
    with pytest.raises(ValueError, match="exists again"):
        restore_dataset(store, record.batch_id)
    assert checksum(snapshot(store, "demo")) == new
    assert list_trash(store)["batch_id"].tolist() == [record.batch_id]  # still undoable later

    delete_dataset(store, "demo")
    restore_dataset(store, record.batch_id)  # now the name is free again
    assert list_datasets(store).set_index("name").loc["demo", "pairs"] == 120


def test_unknown_names_and_batches(store: Store):
    with pytest.raises(ValueError, match="dataset 'nope' not found; datasets are: demo, other"):
        delete_dataset(store, "nope")
    with pytest.raises(ValueError, match="no trash batch 'nope'"):
        restore_dataset(store, "nope")
    with pytest.raises(ValueError, match="no trash batch 'nope'"):
        purge_trash(store, "nope")


def test_purge_one_batch_then_all(store: Store):
    first = delete_dataset(store, "demo")
    second = delete_dataset(store, "other")
    assert purge_trash(store, first.batch_id) == [first.batch_id]
    assert list_trash(store)["batch_id"].tolist() == [second.batch_id]
    assert store.query_one("SELECT count(*) FROM trash_pairs WHERE batch_id = ?", [first.batch_id]) == 0
    with pytest.raises(ValueError):
        restore_dataset(store, first.batch_id)
    assert purge_trash(store) == [second.batch_id]
    for table in (*TABLES, "batches"):
        assert store.query_one(f"SELECT count(*) FROM trash_{table}") == 0, table
    assert list_datasets(store).empty


def cli(store: Store, *args, stdin: str | None = ""):
    return run_cli("--store", str(store.path), *args, input=stdin)


def test_cli_round_trip(store: Store):
    before = checksum(snapshot(store, "demo"))

    refused = cli(store, "delete-dataset", "demo")  # no --yes and no terminal to type the name on
    assert refused.returncode == 2 and "without --yes" in refused.stderr
    assert "demo" in list_datasets(store)["name"].tolist()

    done = cli(store, "delete-dataset", "demo", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["dataset"] == "demo" and record["counts"]["pairs"] == 120

    listed = cli(store, "trash", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [r["batch_id"] for r in json.loads(listed.stdout)] == [record["batch_id"]]

    again = cli(store, "restore-dataset", "no-such-batch")
    assert again.returncode == 1 and again.stderr.startswith("error: no trash batch")

    restored = cli(store, "restore-dataset", record["batch_id"], "--json")
    assert restored.returncode == 0, restored.stderr
    assert json.loads(restored.stdout)["counts"] == record["counts"]
    assert checksum(snapshot(store, "demo")) == before
    assert json.loads(cli(store, "trash", "--json").stdout) == []

    gone = cli(store, "delete-dataset", "other", "--yes")
    assert gone.returncode == 0 and "undo with: python -m core --store" in gone.stdout
    refused = cli(store, "trash", "--purge", "all")  # no terminal, no --yes: permanent deletion refused
    assert refused.returncode == 2 and "without --yes" in refused.stderr
    assert len(list_trash(store)) == 1
    purged = cli(store, "trash", "--purge", "all", "--yes", "--json")
    assert purged.returncode == 0 and len(json.loads(purged.stdout)["purged"]) == 1
    assert list_trash(store).empty and list_datasets(store)["name"].tolist() == ["demo"]
