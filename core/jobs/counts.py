"""A job's answers as the store holds them, and the state its tasks add up to.

A job's counters (``n_done``, ``n_ok``, ``n_failed``, ``cost_usd``) start from the store, not from
zero: a resume, even one killed in its first second, shows the answers its runs already hold
(counted over the job's own pairs) and their cost. The runs are found by id: each task's run id is
noted on the job (``results``, one row per task) as soon as the run reports it, so a process killed
mid-task leaves it behind for the resume.

A job's state is the truth about its tasks (:func:`job_state`): ``done`` when every task ran to its
end, ``partial`` when some did and others were refused (another job is sending the same prompts:
``busy``; an endpoint refused; an error) or never started, ``failed`` when none did or a store write
failed; the message names each task that did not run and why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.jobs.spec import JobSpec, Task
from core.store.db import Store


@dataclass
class Counts:
    """One task's answers in the store for the job's pairs (cost None: a price is unknown)."""

    ok: int = 0
    failed: int = 0
    cost_usd: float | None = 0.0

    @property
    def done(self) -> int:
        return self.ok + self.failed


def _pairs_clause(spec: JobSpec) -> tuple[str, list]:
    """SQL restricting ``pair_id`` to the job's pairs (as core.judges.runs.load_pairs chooses them)."""
    if spec.pair_ids is not None:
        return " AND pair_id IN (SELECT unnest(?::VARCHAR[]))", [list(spec.pair_ids)]
    if spec.limit is not None:
        return (" AND pair_id IN (SELECT pair_id FROM pairs WHERE dataset = ? ORDER BY ext_id LIMIT ?)",
                [spec.dataset, int(spec.limit)])
    return "", []


def n_pairs(store: Store, spec: JobSpec) -> int:
    """How many pairs the job covers."""
    if spec.pair_ids is not None:
        return len(spec.pair_ids)
    n = int(store.query_one("SELECT count(*) FROM pairs WHERE dataset = ?", [spec.dataset]) or 0)
    return min(n, int(spec.limit)) if spec.limit is not None else n


def stored(store: Store, spec: JobSpec, run_id: str | None) -> Counts:
    """What run ``run_id`` holds for the job's pairs: answers, recorded failures, their cost."""
    if not run_id:
        return Counts()
    where, params = _pairs_clause(spec)
    ok, failed, cost, unpriced = store.query_df(
        "SELECT count(*) FILTER (WHERE error IS NULL) AS ok, count(*) FILTER (WHERE error IS NOT NULL) AS failed, "
        "coalesce(sum(cost_usd) FILTER (WHERE error IS NULL), 0) AS cost, "
        "count(*) FILTER (WHERE error IS NULL AND cost_usd IS NULL) AS unpriced "
        f"FROM judge_outputs WHERE run_id = ?{where}", [run_id, *params]).iloc[0]
    return Counts(int(ok), int(failed), None if unpriced else float(cost))


def add_cost(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def noted_runs(results_json, tasks: list[Task]) -> list[str | None]:
    """The run id noted for each task on the job (its ``results``), None where none is."""
    try:
        rows = json.loads(results_json) if isinstance(results_json, str) and results_json else []
    except ValueError:
        rows = []
    runs: list[str | None] = [None] * len(tasks)
    for i, row in enumerate(rows[: len(tasks)]):
        run_id = row.get("run_id") if isinstance(row, dict) else None
        if isinstance(run_id, str) and run_id and row.get("judge") == tasks[i].judge:
            runs[i] = run_id
    return runs


def note_runs(store: Store, job_id: str, tasks: list[Task], runs: list[str | None], rows: list[dict]) -> None:
    """Record each task's run id on the job while it runs (``rows``: the results of the tasks finished)."""
    noted = [dict(rows[i]) if i < len(rows) else {**t.columns(), "status": "not finished"}
             for i, t in enumerate(tasks)]
    for row, run_id in zip(noted, runs, strict=True):
        if run_id and not row.get("run_id"):
            row["run_id"] = run_id
    with store.write("job_version") as conn:
        conn.execute("UPDATE jobs SET results = ? WHERE job_id = ?", [json.dumps(noted, default=str), job_id])


def total(have: list[Counts]) -> Counts:
    every = Counts()
    for c in have:
        every.ok, every.failed = every.ok + c.ok, every.failed + c.failed
        every.cost_usd = add_cost(every.cost_usd, c.cost_usd)
    return every


def job_state(job_id: str, tasks: list[Task], rows: list[dict]) -> tuple[str, str]:
    """(state, message) of a job whose run loop went through all its tasks (no cancel, no failed write);
    ``rows`` holds one result per task tried, in task order (status ``done``, ``busy``, ``refused``, ...)."""
    missing = [(t, rows[i] if i < len(rows) else {"status": "skipped", "error": "not started"})
               for i, t in enumerate(tasks) if i >= len(rows) or rows[i].get("status") != "done"]
    if not missing:
        return "done", ""
    ran = len(tasks) - len(missing)
    if len(tasks) == 1:  # the task's own line (a busy twin names the job that sends its prompts)
        return "failed", str(missing[0][1].get("error") or missing[0][1].get("status"))
    why = "; ".join(f"{t.label()}: {r.get('status')}" + (f" ({r['error']})" if r.get("error") else "")
                    for t, r in missing)
    text = (f"{ran} of {len(tasks)} tasks ran; not run: {why}; `python -m core resume {job_id}` (or Resume on the "
            "Run page) runs them, and answers already stored are not paid for again")
    return ("partial" if ran else "failed"), text
