"""Job commands of ``python -m core``: ``jobs``, ``cancel``, ``resume`` and the dashboard's ``worker``.

Registered by :func:`add_commands` from core.cli.main (``COMMAND_MODULES``).
"""

from __future__ import annotations

import json
import math
import sys

from core.cli.common import open_store, print_frame

SHOWN = ["job_id", "state", "label", "dataset", "progress", "ok", "failed", "cost", "started_by", "origin",
         "created_at", "pid"]


def _cost(value) -> str:
    return "unknown" if value is None or (isinstance(value, float) and math.isnan(value)) else f"${value:,.4f}"


def _text(value, default: str) -> str:
    return value if isinstance(value, str) and value else default


def progress_cell(job: dict) -> str:
    """``12/300, ETA about 40 s``; ``starting: loading the model client`` before a running job's first answer."""
    from core.jobs.eta import starting_text
    from core.jobs.table import ACTIVE, any_model, eta_seconds

    done, total = int(job["n_done"] or 0), int(job["n_total"] or 0)
    if done == 0 and job["state"] in ACTIVE:
        return starting_text(any_model(job))
    eta = eta_seconds(job)
    return f"{done:,}/{total:,}" + (f", ETA about {eta:,.0f} s" if eta is not None else "")


def cmd_jobs(args) -> int:
    from core.jobs.table import list_jobs
    from core.judges.batchstore import job_batch_texts

    store = open_store(args)
    df = list_jobs(store, dataset=args.dataset, limit=None if args.all else 20)
    batches = job_batch_texts(store, df["job_id"].tolist()) if len(df) else {}  # judge --batch: provider state
    if len(df):
        df["batches"] = df["job_id"].map(batches).fillna("")
    if args.json:
        keep = [c for c in df.columns if c not in ("spec", "unexpired", "fresh")]
        print(df[keep].to_json(orient="records", date_format="iso"))
        return 0
    notes = [f"note: job {j['job_id']} is {j['state']}: {_text(j.get('message'), 'no reason recorded')}"  # why: a task
             for j in df.to_dict("records") if j["state"] in ("partial", "failed")][:5]  # not run, a failed write
    if len(df):
        df = df.assign(progress=[progress_cell(job) for job in df.to_dict("records")],
                       ok=df["n_ok"], failed=df["n_failed"], cost=df["cost_usd"].map(_cost),
                       pid=df["pid"].astype("Int64"))
        df = df[SHOWN + (["batches"] if batches else [])]
    print_frame(df, "no jobs yet; `python -m core judge ...` or the dashboard's Run page starts one")
    interrupted = df[df["state"] == "interrupted"]["job_id"].tolist() if len(df) else []
    for job_id in interrupted[:5]:
        print(f"note: job {job_id} was interrupted (its process is gone); `python -m core resume {job_id}` "
              "finishes it without paying again for answers already received", file=sys.stderr)
    for line in notes:
        print(line, file=sys.stderr)
    return 0


def cmd_cancel(args) -> int:
    from core.jobs.launch import signal_cancel
    from core.jobs.table import request_cancel
    from core.judges.batchstore import drop_open

    store = open_store(args)
    job = request_cancel(store, args.job)
    signalled = job["state"] in ("queued", "running") and signal_cancel(job)
    dropped = 0 if job["state"] in ("queued", "running") else drop_open(store, args.job)  # a stopped job's batches
    if args.json:
        print(json.dumps({"job_id": args.job, "state": job["state"], "signalled": signalled,
                          "batches_dropped": dropped}))
    elif job["state"] in ("queued", "running"):
        print(f"cancel requested for job {args.job} ({job['state']}, pid {job['pid']}): no new call is sent; "
              "answers already received are kept, and a resume sends only what was never answered")
    else:
        print(f"job {args.job} is {job['state']}: nothing is running"
              + (f"; {dropped} open provider batch(es) dropped: their answers will not be collected, and a run "
                 "sends those prompts again (the provider may still run them: cancel them there too)"
                 if dropped else ""))
    return 0


def _print_outcome(outcome, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"job_id": outcome.job_id, "state": outcome.state, "message": outcome.message,
                          "results": outcome.results}, default=str))
        return
    print(f"job: {outcome.job_id}  state: {outcome.state}")
    for r in outcome.results:
        print(f"  {r.get('judge')} {r.get('prompt') or ''}: {r.get('status')}, ok {r.get('ok', 0)}, "
              f"failed {r.get('failed_total', 0)}" + (f" ({r['causes']})" if r.get("causes") else ""))


def _exit(outcome) -> int:
    if outcome.state in ("failed", "partial"):  # partial: some tasks ran, the message names the others
        print(f"error: {outcome.message}", file=sys.stderr)
        return 5 if outcome.busy else (4 if outcome.state == "partial" else 1)
    return 0 if outcome.state == "done" else 3


def cmd_resume(args) -> int:
    from core.jobs.table import requeue
    from core.jobs.worker import run_job

    store = open_store(args)
    requeue(store, args.job)
    outcome = run_job(store, args.job)
    _print_outcome(outcome, args.json)
    return _exit(outcome)


def cmd_worker(args) -> int:
    from core.jobs.worker import run_job

    outcome = run_job(open_store(args), args.job)
    _print_outcome(outcome, args.json)
    return _exit(outcome)


def add_commands(add) -> None:
    """Register the job subcommands with the CLI's ``add(name, func, help)``."""
    p = add("jobs", cmd_jobs, "list judge jobs (CLI and dashboard) with state, progress, answers and cost")
    p.add_argument("--dataset", help="only this dataset's jobs")
    p.add_argument("--all", action="store_true", help="every job (default: the 20 newest)")
    p = add("cancel", cmd_cancel, "cancel a running job: no new call is sent, answers received are kept; a stopped "
            "--batch job's open provider batches are dropped (not collected)")
    p.add_argument("job", help="the job id (see `jobs`)")
    p = add("resume", cmd_resume,
            "run an interrupted, partial (some tasks did not run), failed or cancelled job again here: journaled "
            "answers are stored without being sent, answered pairs are skipped")
    p.add_argument("job", help="the job id (see `jobs`)")
    p = add("worker", cmd_worker, "run a queued job (the dashboard starts this in the background)")
    p.add_argument("job", help="the job id")
