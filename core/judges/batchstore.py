"""The ``job_batches`` rows of ``judge --batch`` (migration 010): what was uploaded, created, polled, collected.

A row is written right after its file is uploaded (state ``creating``) and given its batch id as soon
as the provider returns it, before any polling: a process that dies at any moment leaves either an
uploaded file with no batch (the next process looks for a batch made from that file, or makes one) or
a recorded batch (the next process polls it instead of sending its prompts again). Every write bumps
``job_version`` (bookkeeping, like the jobs table), never ``data_version``.
"""

from __future__ import annotations

import pandas as pd

from core.store.db import Store

TERMINAL = ("completed", "expired", "failed", "cancelled")


def _counts(batch) -> tuple[int, int]:
    counts = getattr(batch, "request_counts", None)
    return int(getattr(counts, "completed", 0) or 0), int(getattr(counts, "failed", 0) or 0)


def record_upload(store: Store, *, file_id: str, run_id: str, job_id: str, endpoint: str | None, round_no: int,
                  keys: list[str], n_bytes: int) -> None:
    with store.write("job_version") as conn:
        conn.execute("INSERT INTO job_batches (input_file_id, run_id, job_id, endpoint, round, state, n_requests, "
                     "n_bytes, keys) VALUES (?, ?, ?, ?, ?, 'creating', ?, ?, ?)",
                     [file_id, run_id, job_id, endpoint, round_no, len(keys), n_bytes, keys])


def record_state(store: Store, file_id: str, batch) -> None:
    """The provider's view of the batch: id, state, counts, result files."""
    done, failed = _counts(batch)
    with store.write("job_version") as conn:
        conn.execute("UPDATE job_batches SET batch_id = ?, state = ?, n_completed = ?, n_failed = ?, "
                     "output_file_id = ?, error_file_id = ?, updated_at = current_timestamp "
                     "WHERE input_file_id = ?",
                     [batch.id, batch.status, done, failed, getattr(batch, "output_file_id", None),
                      getattr(batch, "error_file_id", None), file_id])


def record_collected(store: Store, file_id: str, n_stored: int, message: str | None = None,
                     state: str | None = None) -> None:
    with store.write("job_version") as conn:
        conn.execute("UPDATE job_batches SET collected = TRUE, n_stored = ?, message = ?, "
                     "state = coalesce(?, state), updated_at = current_timestamp WHERE input_file_id = ?",
                     [n_stored, message, state, file_id])


def open_batches(store: Store, run_id: str) -> list[dict]:
    """The run's batches whose results are not stored yet, oldest first, each with its age in seconds."""
    df = store.query_df("SELECT *, epoch(CAST(now() AS TIMESTAMP) - created_at) AS age_seconds FROM job_batches "
                        "WHERE run_id = ? AND NOT collected ORDER BY created_at, input_file_id", [run_id])
    rows = df.to_dict("records")
    for row in rows:
        row["keys"] = list(row["keys"])
        row["batch_id"] = None if pd.isna(row["batch_id"]) else row["batch_id"]
    return rows


def age_seconds(store: Store, file_id: str) -> float:
    """Seconds since the batch's file was uploaded (the store's clock)."""
    return float(store.query_one("SELECT epoch(CAST(now() AS TIMESTAMP) - created_at) FROM job_batches "
                                 "WHERE input_file_id = ?", [file_id]) or 0.0)


def adopt(store: Store, file_ids: list[str], job_id: str) -> None:
    """Record that ``job_id`` polls these batches now (a resume, or the same command run again)."""
    if file_ids:
        with store.write("job_version") as conn:
            conn.execute("UPDATE job_batches SET job_id = ? WHERE input_file_id IN (SELECT unnest(?::VARCHAR[]))",
                         [job_id, file_ids])


def batches_of(store: Store, job_ids: list[str]) -> pd.DataFrame:
    """The batches of these jobs, oldest first (no ``keys``: one row per batch file)."""
    if not job_ids:
        return pd.DataFrame()
    return store.query_df("SELECT job_id, run_id, input_file_id, batch_id, round, state, n_requests, n_completed, "
                          "n_failed, n_stored, collected, message, created_at, updated_at FROM job_batches "
                          "WHERE job_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY created_at, input_file_id",
                          [list(job_ids)])


def batch_text(rows: pd.DataFrame) -> str:
    """One line for a job's batches: how many in each state, and lines done / failed / in all."""
    if rows is None or rows.empty:
        return ""
    states = rows["state"].value_counts()
    order = ["creating", "validating", "in_progress", "finalizing", "cancelling", *TERMINAL]
    parts = [f"{int(states[s])} {s.replace('_', ' ')}" for s in order if s in states] + \
            [f"{int(n)} {s.replace('_', ' ')}" for s, n in states.items() if s not in order]
    return (f"batches: {', '.join(parts)}; lines {int(rows['n_completed'].sum()):,} done, "
            f"{int(rows['n_failed'].sum()):,} failed, of {int(rows['n_requests'].sum()):,}")


def job_batch_texts(store: Store, job_ids: list[str]) -> dict[str, str]:
    """:func:`batch_text` per job id (only jobs that have batches)."""
    rows = batches_of(store, job_ids)
    if rows.empty:
        return {}
    return {job: batch_text(group) for job, group in rows.groupby("job_id")}
