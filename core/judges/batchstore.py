"""The ``job_batches`` rows of ``judge --batch`` (migration 010): what was uploaded, created, polled, collected.

A row is written right after its file is uploaded (state ``creating``) and given its batch id as soon
as the provider returns it, before any polling: a process that dies at any moment leaves either an
uploaded file with no batch (the next process looks for a batch made from that file, or makes one) or
a recorded batch (the next process polls it instead of sending its prompts again). Every write bumps
``job_version`` (bookkeeping, like the jobs table), never ``data_version``.
"""

from __future__ import annotations

import pandas as pd

from core.judges.leases import RunBusy
from core.store.db import Store

TERMINAL = ("completed", "expired", "failed", "cancelled")


class BatchesOpen(RunBusy):
    """Some of a run's prompts sit in provider batches that are still open (a ``--batch`` job whose process
    stopped before it collected them): sending them again would pay for them twice, so nothing was sent.
    A kind of :class:`~core.judges.leases.RunBusy`: the CLI exits 5, as for a held lease."""


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


# -- a run that would send again what an open batch holds ---------------------------------------------

_OPEN_KEYS = """
WITH open_lines AS (
    SELECT job_id, input_file_id, state, created_at, unnest(keys) AS cache_key
    FROM job_batches WHERE NOT collected AND run_id IS DISTINCT FROM ?
)
SELECT job_id, count(DISTINCT input_file_id) AS n_batches, count(DISTINCT cache_key) AS n_keys,
       string_agg(DISTINCT state, ', ' ORDER BY state) AS states, min(created_at) AS since
FROM open_lines o
WHERE cache_key IN (SELECT unnest(?::VARCHAR[]))
  AND NOT EXISTS (SELECT 1 FROM judge_outputs j WHERE j.cache_key = o.cache_key AND j.error IS NULL)
GROUP BY job_id ORDER BY since, job_id
"""


def refuse_if_open(store: Store, keys: list[str], own_run: str | None = None) -> None:
    """Raise :class:`BatchesOpen` when a batch not yet collected holds one of ``keys`` that has no answer in
    the store; otherwise return (one query when no batch is open, the usual case).

    Called by :func:`core.judges.execute.execute_plan` once the run holds its leases, before anything is copied or
    sent: a live ``--batch`` job holds leases on its keys (so a run that meets it stops at the lease); one whose
    process died does not, and only its ``job_batches`` rows say the provider has those prompts. ``own_run``: a
    batch run's own run id, whose open batches it polls itself (:class:`core.judges.batch.BatchRun`). Live
    scoring (``core.judges.live``) stores nothing and is not checked. ``python -m core cancel JOB`` drops a
    stopped job's open batches (:func:`drop_open`), after which runs send those prompts again.
    """
    if not keys or not store.query_one("SELECT count(*) FROM job_batches WHERE NOT collected"):
        return
    rows = store.query_df(_OPEN_KEYS, [own_run, list(keys)])
    if rows.empty:
        return
    first = rows.iloc[0]
    job, n = str(first["job_id"]), int(rows["n_keys"].sum())
    others = f", and {len(rows) - 1} other job(s)" if len(rows) > 1 else ""
    way_out = (f"collect them with `python -m core resume {job}`, or drop them with `python -m core cancel {job}`"
               if job.startswith("job-") else "collect them by running the same `judge --batch` command again")
    raise BatchesOpen(
        f"{n:,} of these {len(keys):,} prompts are in provider batches still open for job {job} "
        f"({int(first['n_batches'])} batch(es): {first['states']}{others}), sent with --batch and not collected; "
        f"nothing was sent (sending them again would pay twice): {way_out}, then run again")


def drop_open(store: Store, job_id: str) -> int:
    """Give up the batches ``job_id`` left open (``cancel`` of a job that is not running): they are marked
    collected with nothing stored, so runs send their prompts again and no resume polls them. Returns how
    many; the provider may still run them (and charge for them): cancel them there too."""
    with store.write("job_version") as conn:
        n = conn.execute("SELECT count(*) FROM job_batches WHERE job_id = ? AND NOT collected", [job_id]).fetchone()[0]
        if n:
            conn.execute("UPDATE job_batches SET collected = TRUE, message = 'dropped by cancel: not collected', "
                         "updated_at = current_timestamp WHERE job_id = ? AND NOT collected", [job_id])
    return int(n)

