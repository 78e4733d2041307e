"""The ``jobs`` table: submit, claim, beat, finish, cancel, and read jobs with their true state.

Every write here is one short transaction that bumps the store's ``job_version`` (not
``data_version``: progress must not empty the dashboard's data caches). A job's recorded state
says what its process last wrote; :func:`list_jobs` adds what is true now: a job ``running`` or
``queued`` whose process is gone (SIGKILL, a server restart, a reboot) is shown ``interrupted``,
never running forever, and can be resumed.
"""

from __future__ import annotations

import json
import secrets as _random
from dataclasses import dataclass

import pandas as pd

from core.jobs.spec import JobSpec
from core.judges.leases import holder_alive, this_process
from core.store.db import Store

ACTIVE = ("queued", "running")
FINAL = ("done", "partial", "cancelled", "failed", "interrupted")  # partial: a task did not run (core.jobs.counts)
HEARTBEAT_SECONDS = 1.0
STALE_SECONDS = 90  # a job on another host without a heartbeat this long is interrupted
QUEUED_GRACE_SECONDS = 30  # a queued job whose worker never recorded itself is interrupted after this


class JobError(ValueError):
    """A job that does not exist or cannot do what was asked (message says which)."""


def new_job_id() -> str:
    return "job-" + pd.Timestamp.now(tz="UTC").strftime("%Y%m%d-%H%M%S") + "-" + _random.token_hex(3)


def submit(store: Store, spec: JobSpec, *, origin: str, started_by: str | None = None) -> str:
    """Record a queued job; its id."""
    job_id = new_job_id()
    total = (spec.n_pairs() or 0) * len(spec.tasks)
    with store.write("job_version") as conn:
        conn.execute("INSERT INTO jobs (job_id, label, dataset, spec, started_by, origin, state, n_total) "
                     "VALUES (?, ?, ?, ?, ?, ?, 'queued', ?)",
                     [job_id, spec.label(), spec.dataset, spec.to_json(), started_by, origin, total])
    return job_id


def set_process(store: Store, job_id: str, pid: int, host: str, start: int | None) -> None:
    """Record the process started for a queued job (by the launcher, before it records itself)."""
    with store.write("job_version") as conn:
        conn.execute("UPDATE jobs SET pid = ?, host = ?, proc_start = ? WHERE job_id = ? AND state = 'queued'",
                     [pid, host, start, job_id])


def claim(store: Store, job_id: str) -> JobSpec:
    """Mark the job running in this process; :class:`JobError` if it runs elsewhere or is unknown."""
    me = this_process()
    with store.write("job_version") as conn:
        row = conn.execute(f"SELECT spec, state, pid, host, proc_start, {_UNEXPIRED} FROM jobs WHERE job_id = ?",
                           [job_id]).fetchone()
        if row is None:
            raise JobError(f"no job {job_id}; `python -m core jobs` lists them")
        spec, state, pid, host, start, unexpired = row
        mine = pid == me.pid and host == me.host
        if state == "running" and not mine and holder_alive(pid, host, start, unexpired):
            raise JobError(f"job {job_id} is already running (pid {pid} on {host}); "
                           f"`python -m core cancel {job_id}` stops it")
        conn.execute("UPDATE jobs SET state = 'running', pid = ?, host = ?, proc_start = ?, "
                     "started_at = current_timestamp, heartbeat_at = current_timestamp, finished_at = NULL, "
                     "attempts = attempts + 1, message = NULL, task = NULL, eta_seconds = NULL, "
                     "cancel_requested = CASE WHEN state = 'queued' THEN cancel_requested ELSE FALSE END "
                     "WHERE job_id = ?", [me.pid, me.host, me.start, job_id])
    return JobSpec.from_json(spec)


@dataclass
class JobProgress:
    """A job's counters as its worker sees them (all tasks together)."""

    done: int = 0
    total: int = 0
    ok: int = 0
    failed: int = 0
    sent: int = 0
    cost_usd: float | None = 0.0
    task: str = ""
    eta: float | None = None  # seconds left (core.jobs.eta), None while too early to say


def beat(store: Store, job_id: str, p: JobProgress) -> bool:
    """Write progress and the heartbeat; True when a cancel was asked for."""
    with store.write("job_version") as conn:
        conn.execute("UPDATE jobs SET heartbeat_at = current_timestamp, n_done = ?, n_total = ?, n_ok = ?, "
                     "n_failed = ?, n_sent = ?, cost_usd = ?, task = ?, eta_seconds = ? WHERE job_id = ?",
                     [p.done, p.total, p.ok, p.failed, p.sent, p.cost_usd, p.task, p.eta, job_id])
        return bool(conn.execute("SELECT cancel_requested FROM jobs WHERE job_id = ?", [job_id]).fetchone()[0])


def finish(store: Store, job_id: str, state: str, p: JobProgress, results: list[dict], message: str = "") -> None:
    with store.write("job_version") as conn:
        conn.execute("UPDATE jobs SET state = ?, finished_at = current_timestamp, heartbeat_at = current_timestamp, "
                     "n_done = ?, n_total = ?, n_ok = ?, n_failed = ?, n_sent = ?, cost_usd = ?, task = NULL, "
                     "eta_seconds = NULL, results = ?, message = ? WHERE job_id = ?",
                     [state, p.done, p.total, p.ok, p.failed, p.sent, p.cost_usd,
                      json.dumps(results, default=str), message or None, job_id])


def request_cancel(store: Store, job_id: str) -> dict:
    """Ask the job to stop (it stops sending at its next check); a job with no live process is closed now.

    Returns the job's row as :func:`get_job` shows it after the request.
    """
    job = get_job(store, job_id)
    with store.write("job_version") as conn:
        if job["state"] in ("queued", "running"):
            conn.execute("UPDATE jobs SET cancel_requested = TRUE WHERE job_id = ?", [job_id])
        elif job["state"] == "interrupted":
            conn.execute("UPDATE jobs SET state = 'cancelled', finished_at = current_timestamp, "
                         "message = 'cancelled while interrupted; resume runs it again' WHERE job_id = ?", [job_id])
    return get_job(store, job_id)


def requeue(store: Store, job_id: str) -> JobSpec:
    """Put a finished or interrupted job back in the queue (Resume); its spec."""
    job = get_job(store, job_id)
    if job["state"] in ACTIVE:
        raise JobError(f"job {job_id} is {job['state']}: nothing to resume")
    with store.write("job_version") as conn:
        conn.execute("UPDATE jobs SET state = 'queued', pid = NULL, host = NULL, proc_start = NULL, "
                     "cancel_requested = FALSE, created_at = current_timestamp WHERE job_id = ?", [job_id])
    return JobSpec.from_json(job["spec"])


_UNEXPIRED = (f"coalesce(heartbeat_at, created_at) > CAST(now() AS TIMESTAMP) - INTERVAL {STALE_SECONDS} SECOND "
              "AS unexpired")
_COLUMNS = ("job_id, label, dataset, spec, started_by, origin, state, created_at, started_at, finished_at, "
            "heartbeat_at, pid, host, proc_start, attempts, n_done, n_total, n_ok, n_failed, n_sent, cost_usd, eta_seconds, "
            f"task, message, results, cancel_requested, {_UNEXPIRED}, "
            f"created_at > CAST(now() AS TIMESTAMP) - INTERVAL {QUEUED_GRACE_SECONDS} SECOND AS fresh, "
            "epoch(CAST(now() AS TIMESTAMP) - started_at) AS elapsed")


def _true_state(row) -> str:
    if row.state == "running" and not holder_alive(row.pid, row.host, row.proc_start, row.unexpired):
        return "interrupted"
    if row.state == "queued" and not row.fresh and not holder_alive(row.pid, row.host, row.proc_start,
                                                                    row.unexpired):
        return "interrupted"
    return row.state


def list_jobs(store: Store, *, dataset: str | None = None, limit: int | None = 50) -> pd.DataFrame:
    """Jobs, newest first, with ``state`` as it is now (see the module docstring)."""
    sql = f"SELECT {_COLUMNS} FROM jobs"
    params: list = []
    if dataset is not None:
        sql += " WHERE dataset = ?"
        params.append(dataset)
    sql += " ORDER BY created_at DESC, job_id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(int(limit))
    df = store.query_df(sql, params)
    if len(df):
        df["recorded_state"] = df["state"]
        df["state"] = [_true_state(r) for r in df.itertuples()]
    return df


def get_job(store: Store, job_id: str) -> dict:
    df = store.query_df(f"SELECT {_COLUMNS} FROM jobs WHERE job_id = ?", [job_id])
    if df.empty:
        raise JobError(f"no job {job_id}; `python -m core jobs` lists them")
    df["recorded_state"] = df["state"]
    df["state"] = [_true_state(r) for r in df.itertuples()]
    return df.iloc[0].to_dict()


def active_count(store: Store) -> tuple[int, int, int]:
    """(jobs running or queued now, jobs interrupted, jobs partial: some tasks did not run) over the whole
    store: the sidebar's indicator (the last two wait for a Resume)."""
    df = store.query_df(f"SELECT state, pid, host, proc_start, {_UNEXPIRED}, "
                        f"created_at > CAST(now() AS TIMESTAMP) - INTERVAL {QUEUED_GRACE_SECONDS} SECOND AS fresh "
                        "FROM jobs WHERE state IN ('queued', 'running', 'partial')")
    states = [_true_state(r) for r in df.itertuples()]
    return (sum(s in ACTIVE for s in states), sum(s == "interrupted" for s in states),
            sum(s == "partial" for s in states))


def eta_seconds(job: dict) -> float | None:
    """The worker's estimate of the seconds left (core.jobs.eta: a recent rate, once enough answers exist);
    None for a job that is not running or too young to say."""
    eta = job.get("eta_seconds")
    if job.get("state") != "running" or eta is None or pd.isna(eta):
        return None
    return max(0.0, float(eta))


def any_model(job: dict) -> bool:
    """Whether the job runs a model (its first answer waits for the model client to load)."""
    try:
        return not JobSpec.from_json(job["spec"]).offline
    except (ValueError, KeyError, TypeError):
        return False
