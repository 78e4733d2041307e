"""Deleting a dataset, with undo: its rows move to trash tables, and back.

:func:`delete_dataset` moves every row that belongs to a dataset - the
dataset itself, its pairs and their annotations, its judge runs with their
outputs, parsed errors and metric values, its rating queues and its pairs'
clinician ratings and adjudications - into the ``trash_*`` tables
(migration 002) under one batch id, in one transaction: either all of it
moves, or nothing does. :func:`restore_dataset` moves a batch back, again in
one transaction, and refuses when a dataset of that name exists again (the
restored pairs would mix with the new ones). :func:`purge_trash` deletes
batches for good; nothing else ever does.

Rows are copied ``BY NAME``, so a restore gives back the very rows that were
deleted (timestamps, ids and text unchanged). The table names below are fixed
identifiers; every value goes through ``?`` parameters.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from core.store.db import Store

__all__ = ["TABLES", "TrashRecord", "delete_dataset", "list_trash", "purge_trash", "restore_dataset"]

#: Tables a dataset's rows live in, parents first (restore order; deletion runs in reverse).
TABLES: tuple[str, ...] = ("datasets", "pairs", "annotations", "judge_runs", "judge_outputs", "judge_errors",
                           "metric_values", "rating_queues", "rating_queue_pairs", "ratings", "adjudications",
                           "preferences")

_PAIRS_OF = "SELECT pair_id FROM pairs WHERE dataset = ?"
_RUNS_OF = "SELECT run_id FROM judge_runs WHERE dataset = ?"
# The rows of a dataset in each table; every ? is the dataset name. Outputs, errors and
# metric values belong to the dataset's runs (and, should a run ever have judged another
# dataset's pair, to that pair's dataset too: nothing is left pointing at a deleted pair).
_ROWS_OF: dict[str, str] = {
    "datasets": "name = ?",
    "pairs": "dataset = ?",
    "annotations": f"pair_id IN ({_PAIRS_OF})",
    "judge_runs": "dataset = ?",
    "judge_outputs": f"run_id IN ({_RUNS_OF}) OR pair_id IN ({_PAIRS_OF})",
    "judge_errors": f"run_id IN ({_RUNS_OF}) OR pair_id IN ({_PAIRS_OF})",
    "metric_values": f"run_id IN ({_RUNS_OF}) OR pair_id IN ({_PAIRS_OF})",
    # Clinician ratings (migration 003, core/reads/ratings.py): the dataset's queues and its pairs' ratings.
    "rating_queues": "dataset = ?",
    "rating_queue_pairs": f"queue_id IN (SELECT queue_id FROM rating_queues WHERE dataset = ?) OR pair_id IN ({_PAIRS_OF})",
    "ratings": f"pair_id IN ({_PAIRS_OF})",
    "adjudications": f"pair_id IN ({_PAIRS_OF})",
    # Pairwise expert preferences (migration 006): the dataset's comparisons.
    "preferences": "dataset = ?",
}


@dataclass(frozen=True)
class TrashRecord:
    """One deleted dataset in the trash: its batch id and the rows moved per table."""

    batch_id: str
    dataset: str
    deleted_at: datetime
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def to_json(self) -> dict:
        return {"batch_id": self.batch_id, "dataset": self.dataset,
                "deleted_at": pd.Timestamp(self.deleted_at).isoformat(), "counts": dict(self.counts),
                "total": self.total}


def _record(row) -> TrashRecord:
    batch_id, dataset, deleted_at, *counts = row
    return TrashRecord(batch_id=batch_id, dataset=dataset, deleted_at=deleted_at,
                       counts={t: int(n) for t, n in zip(TABLES, counts, strict=True)})


_BATCH_COLUMNS = "batch_id, dataset, deleted_at, " + ", ".join(f"n_{t}" for t in TABLES)


def _dataset_names(conn) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM datasets ORDER BY name").fetchall()]


def delete_dataset(store: Store, name: str) -> TrashRecord:
    """Move dataset ``name`` and everything that belongs to it into the trash.

    One transaction: the rows are copied into ``trash_*`` under a new batch
    id, deleted from the live tables, and the counts checked to match.
    Returns the batch (its id is what :func:`restore_dataset` takes).
    Raises ValueError when there is no such dataset.
    """
    batch_id = uuid.uuid4().hex[:12]
    with store.write() as conn:
        if conn.execute("SELECT count(*) FROM datasets WHERE name = ?", [name]).fetchone()[0] == 0:
            known = ", ".join(_dataset_names(conn)) or "none"
            raise ValueError(f"dataset '{name}' not found; datasets are: {known}")
        counts = {}
        # Copy first, while the subqueries over pairs and judge_runs still see the rows.
        for table in TABLES:
            where = _ROWS_OF[table]
            conn.execute(f"INSERT INTO trash_{table} BY NAME SELECT CAST(? AS VARCHAR) AS batch_id, * "
                         f"FROM {table} WHERE {where}", [batch_id] + [name] * where.count("?"))
            counts[table] = conn.execute(f"SELECT count(*) FROM trash_{table} WHERE batch_id = ?",
                                         [batch_id]).fetchone()[0]
        for table in reversed(TABLES):  # children first: their WHERE reads pairs and judge_runs
            where = _ROWS_OF[table]
            deleted = conn.execute(f"DELETE FROM {table} WHERE {where}", [name] * where.count("?")).fetchone()[0]
            if deleted != counts[table]:
                raise RuntimeError(f"deleting '{name}': {deleted} rows left {table}, {counts[table]} were "
                                   "copied to the trash; nothing was deleted")
        conn.execute(f"INSERT INTO trash_batches ({', '.join(f'n_{t}' for t in TABLES)}, batch_id, dataset) "
                     f"VALUES ({', '.join('?' * (len(TABLES) + 2))})",
                     [counts[t] for t in TABLES] + [batch_id, name])
        row = conn.execute(f"SELECT {_BATCH_COLUMNS} FROM trash_batches WHERE batch_id = ?", [batch_id]).fetchone()
    return _record(row)


def restore_dataset(store: Store, batch_id: str) -> TrashRecord:
    """Move a trash batch back into the live tables (one transaction) and drop it from the trash.

    Refused (ValueError) when the batch does not exist, or when a dataset
    with the same name - or any of the batch's pair or run ids - exists
    again: delete or rename that dataset first.
    """
    with store.write() as conn:
        row = conn.execute(f"SELECT {_BATCH_COLUMNS} FROM trash_batches WHERE batch_id = ?", [batch_id]).fetchone()
        if row is None:
            known = [r[0] for r in conn.execute("SELECT batch_id FROM trash_batches ORDER BY deleted_at DESC")
                     .fetchall()]
            raise ValueError(f"no trash batch '{batch_id}'; batches are: {', '.join(known) or 'none'}")
        record = _record(row)
        if conn.execute("SELECT count(*) FROM datasets WHERE name = ?", [record.dataset]).fetchone()[0]:
            raise ValueError(f"cannot restore '{record.dataset}': a dataset with that name exists again; "
                             "delete or rename it first")
        for table, key in (("pairs", "pair_id"), ("judge_runs", "run_id")):
            clash = conn.execute(f"SELECT count(*) FROM {table} WHERE {key} IN "
                                 f"(SELECT {key} FROM trash_{table} WHERE batch_id = ?)", [batch_id]).fetchone()[0]
            if clash:
                raise ValueError(f"cannot restore '{record.dataset}': {clash} of its {table} ids are in the "
                                 "store again")
        for table in TABLES:
            conn.execute(f"INSERT INTO {table} BY NAME SELECT * EXCLUDE (batch_id) FROM trash_{table} "
                         "WHERE batch_id = ?", [batch_id])
            moved = conn.execute(f"DELETE FROM trash_{table} WHERE batch_id = ?", [batch_id]).fetchone()[0]
            if moved != record.counts[table]:
                raise RuntimeError(f"trash batch '{batch_id}' holds {moved} {table} rows, its record says "
                                   f"{record.counts[table]}; nothing was restored")
        conn.execute("DELETE FROM trash_batches WHERE batch_id = ?", [batch_id])
    return record


def list_trash(store: Store) -> pd.DataFrame:
    """The trash, newest first: batch_id, dataset, deleted_at, kind, synthetic, then n_<table> per table."""
    counts = ", ".join(f"b.n_{t}" for t in TABLES)
    return store.query_df(
        f"SELECT b.batch_id, b.dataset, b.deleted_at, d.kind, d.synthetic, {counts} "
        "FROM trash_batches b LEFT JOIN trash_datasets d USING (batch_id) ORDER BY b.deleted_at DESC, b.batch_id")


def purge_trash(store: Store, batch_id: str | None = None) -> list[str]:
    """Delete one trash batch (or all of them, ``batch_id=None``) for good; returns the purged ids."""
    with store.write() as conn:
        if batch_id is None:
            ids = [r[0] for r in conn.execute("SELECT batch_id FROM trash_batches").fetchall()]
        elif conn.execute("SELECT count(*) FROM trash_batches WHERE batch_id = ?", [batch_id]).fetchone()[0]:
            ids = [batch_id]
        else:
            raise ValueError(f"no trash batch '{batch_id}'")
        for table in (*TABLES, "batches"):
            conn.execute(f"DELETE FROM trash_{table} WHERE batch_id IN (SELECT unnest(?::VARCHAR[]))", [ids])
    return ids
