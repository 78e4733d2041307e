"""Running a job: claim it, run its tasks one after another, beat a heartbeat, record the end.

The same code runs a job in the foreground (``python -m core judge``, ``resume``) and in a detached
worker the dashboard starts (``python -m core worker JOB``). While it runs, a heartbeat thread
writes the job's progress about once a second and reads whether a cancel was asked for (the store
flag: ``python -m core cancel``, the dashboard's Cancel); SIGTERM asks for a cancel too. A cancel
stops new calls at once; calls in flight are kept. A store write that fails stops the job with a
one-line message that says what was kept (``JobOutcome.message``).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from dataclasses import dataclass, field

from core.jobs import counts, table
from core.jobs.eta import RateWindow
from core.jobs.spec import JobSpec, Task
from core.judges.errors import causes_line
from core.judges.leases import RunBusy, working_for
from core.store.db import Store, StoreError


@dataclass
class JobOutcome:
    job_id: str
    state: str  # done | cancelled | failed
    summaries: list = field(default_factory=list)  # RunSummary per task that ran
    results: list[dict] = field(default_factory=list)
    message: str = ""
    busy: bool = False  # a task was refused because another job is sending its prompts


def _job_keys() -> dict[str, str]:
    from core import settings

    try:
        keys = json.loads(settings.env_value(settings.JOB_KEYS_VAR, notice=False) or "{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in keys.items() if v} if isinstance(keys, dict) else {}


def _endpoint(spec: JobSpec, task: Task, override: tuple[str | None, str | None] | None):
    """(api_base, api_key) for a model task: the caller's override, the spec's endpoint, or the configuration."""
    if override is not None:
        return override
    if spec.call.api_base:
        from core import settings

        key = settings.env_value(spec.call.api_key_env) if spec.call.api_key_env else None
        return spec.call.endpoint, key or None
    from core.models import configured_models

    configured = {m.name: m for m in configured_models()}
    m = configured.get(task.judge)
    return (m.endpoint if m else None), _job_keys().get(task.judge)  # endpoint: a list for several replicas


def _row(task: Task, summary=None, error: str | None = None, status: str | None = None) -> dict:
    row = task.columns()
    if summary is None:
        row.update(status=status or "error", error=error or "")
        return row
    from core.reads.runcost import cost_text

    d = summary.to_json()
    row.update(status=d["status"], requested=d["requested"], ok=d["ok"], cached=d["cached"] + d["skipped"],
               sent=d["sent"], failed=d["failed"], failed_total=d["failed_total"], unreadable=d["unparsed_total"],
               cost_usd=d["cost_usd"], run_cost=cost_text(d["cost_total"], d["cost_total"] is not None),
               seconds=d["seconds"], run_id=d["run_id"], replayed=d.get("replayed", 0),
               causes=causes_line(f["error"] for f in summary.failures), error=d.get("message") or "")
    if d.get("replicas"):  # several endpoints: each replica's share and latency (core.judges.replicas)
        row["replicas"] = "; ".join(f"{r['api_base']}: {r['ok']}/{r['calls']} calls answered, median "
                                    f"{r['latency_ms_median']} ms" for r in d["replicas"])
    return row


class _Beat(threading.Thread):
    """Writes progress every HEARTBEAT_SECONDS; sets ``cancel`` when the store says so."""

    def __init__(self, store: Store, job_id: str, progress: table.JobProgress, cancel: threading.Event,
                 after=None):
        super().__init__(name=f"heartbeat-{job_id}", daemon=True)
        # a beat waits for a held store at most one beat: it holds the process's write lock while it waits,
        # and the run's own writes (its answers) must not queue behind a heartbeat (core.judges.patience)
        store = Store(store.path, timeout=min(store.timeout, table.HEARTBEAT_SECONDS))
        self.store, self.job_id, self.progress, self.cancel = store, job_id, progress, cancel
        self.halt = threading.Event()
        self.after = after  # called with this beat's store after each beat (the job's run ids: core.jobs.counts)

    def stop(self) -> None:
        """Stop beating and wait for a beat in progress: a thread left inside DuckDB at exit aborts it."""
        self.halt.set()
        self.join(timeout=self.store.timeout + 5)

    def run(self) -> None:
        while not self.halt.wait(table.HEARTBEAT_SECONDS):
            try:
                if table.beat(self.store, self.job_id, self.progress):
                    self.cancel.set()
                if self.after is not None:
                    self.after(self.store)
            except Exception:  # a held or full store: the next beat tries again; the pid proves life
                pass


def run_job(store: Store, job_id: str, *, cancel: threading.Event | None = None,
            override: tuple[str | None, str | None] | None = None, on_progress=None) -> JobOutcome:
    """Run job ``job_id`` in this process (see the module docstring)."""
    from core.judges import run_judge
    from core.judges.shots import FEWSHOT_PROMPTS

    spec = table.claim(store, job_id)
    cancel = cancel or threading.Event()
    _on_sigterm(cancel)
    outcome = JobOutcome(job_id, "done")
    # counters from the store: what the job's runs hold already (a resume), never zeros (core.jobs.counts)
    runs = counts.noted_runs(table.get_job(store, job_id).get("results"), spec.tasks)
    p = table.JobProgress(total=(spec.n_pairs() or 0) * len(spec.tasks))  # the pairs chosen, when known
    rate = RateWindow()
    try:
        have = [counts.stored(store, spec, run_id) for run_id in runs]
        p.total = counts.n_pairs(store, spec) * len(spec.tasks)
    except StoreError:  # a store held for long: the runs report their counts as they go
        have = [counts.Counts() for _ in runs]
    _add_up(p, have)
    noted = list(runs)

    def note(beat_store: Store) -> None:
        if runs != noted:
            now = list(runs)
            counts.note_runs(beat_store, job_id, spec.tasks, now, outcome.results)
            noted[:] = now

    beat = _Beat(store, job_id, p, cancel, after=note)
    beat.start()
    n = spec.n_pairs()
    try:
        for i, task in enumerate(spec.tasks):
            if cancel.is_set():
                break
            others = counts.total(have[:i] + have[i + 1:])  # the other tasks' answers; this one's come from its run
            base_done, base_ok, base_failed, base_sent = others.done, others.ok, others.failed, p.sent
            base_cost = counts.add_cost(others.cost_usd, have[i].cost_usd)  # the run reports what it pays now
            p.task = task.label()

            def progress(done, total, stats, base_done=base_done, base_ok=base_ok, base_failed=base_failed,
                         base_sent=base_sent, base_cost=base_cost, i=i):
                nonlocal n
                if n is None:
                    n = int(total)
                p.total = n * len(spec.tasks)
                p.done = base_done + int(done)
                p.ok = base_ok + int(stats.get("ok", 0))
                p.failed = base_failed + int(stats.get("failed", 0))
                p.sent = base_sent + int(stats.get("sent", 0))
                cost = stats.get("cost_usd", 0.0)
                p.cost_usd = None if cost is None or base_cost is None else base_cost + float(cost)
                if stats.get("run_id"):
                    runs[i] = stats["run_id"]
                rate.add(p.done)
                p.eta = rate.eta(p.total)
                if on_progress is not None:
                    on_progress(done, total, stats)

            kwargs: dict = {"pair_ids": spec.pair_ids, "limit": spec.limit, "progress": progress, "cancel": cancel}
            if not task.offline:
                api_base, api_key = _endpoint(spec, task, override)
                kwargs.update(params=task.params(), api_base=api_base, api_key=api_key, **spec.call.run_options())
                if spec.crimson_map:
                    kwargs["crimson_map"] = spec.crimson_map
                if spec.shots is not None and (task.prompt_id in FEWSHOT_PROMPTS or spec.shots_every_prompt):
                    kwargs["shots"] = spec.shots
            try:
                with working_for(job_id):
                    summary = run_judge(store, dataset=spec.dataset, judge=task.judge,
                                        prompt_id=task.prompt_id or "green", **kwargs)
            except RunBusy as exc:
                outcome.busy = True
                outcome.results.append(_row(task, error=str(exc), status="busy") | {"run_id": runs[i]})
                continue
            except StoreError as exc:  # the store refused: nothing more can be kept, stop here
                outcome.results.append(_row(task, error=str(exc)))
                outcome.state, outcome.message = "failed", str(exc)
                break
            except Exception as exc:  # a refused endpoint, bad shots...: recorded, the other tasks go on
                from core.judges.endpoints import redact

                kind = "refused" if type(exc).__name__ == "EndpointRefused" else "error"
                outcome.results.append(_row(task, error=redact(f"{type(exc).__name__}: {exc}"), status=kind))
                if len(spec.tasks) == 1:
                    raise
                continue
            outcome.summaries.append(summary)
            outcome.results.append(_row(task, summary))
            runs[i] = summary.run_id
            try:  # the task's answers as stored: its counts and cost from the store, not this process's
                have[i] = counts.stored(store, spec, summary.run_id)
                _add_up(p, have)
            except StoreError:
                if summary.status == "done":  # a cancelled or stopped task counts what it answered, no more
                    p.done = base_done + (n if n is not None else summary.requested)
            if summary.status == "failed":
                outcome.state, outcome.message = "failed", summary.message
                break
        if outcome.state == "done" and cancel.is_set():
            outcome.state = "cancelled"
        p.task = ""
    except BaseException as exc:
        beat.stop()
        message = f"{type(exc).__name__}: {exc}" if not isinstance(exc, KeyboardInterrupt) else "interrupted"
        _finish_quietly(store, job_id, "failed" if not isinstance(exc, KeyboardInterrupt) else "interrupted",
                        p, outcome.results, message)
        raise
    beat.stop()
    if outcome.state == "done":  # the truth about its tasks: partial or failed when one did not run
        outcome.state, outcome.message = counts.job_state(job_id, spec.tasks, outcome.results)
    _finish_quietly(store, job_id, outcome.state, p, outcome.results, outcome.message)
    return outcome


def _add_up(p: table.JobProgress, have: list[counts.Counts]) -> None:
    every = counts.total(have)
    p.done, p.ok, p.failed, p.cost_usd = every.done, every.ok, every.failed, every.cost_usd


def _finish_quietly(store, job_id, state, p, results, message) -> None:
    """Record the end; a store that refuses leaves the job to be shown interrupted (its process is gone)."""
    from core.judges.patience import impatient

    try:
        table.finish(store if state != "failed" else impatient(store), job_id, state, p, results, message)
    except Exception:
        pass


def _on_sigterm(cancel: threading.Event) -> None:
    """SIGTERM asks for a cancel (the main thread only can install handlers; elsewhere the store flag does)."""
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum, frame):
        cancel.set()

    signal.signal(signal.SIGTERM, handler)


def wait_for(store: Store, job_id: str, timeout: float = 60.0, states=table.FINAL) -> dict:
    """Poll until the job reaches one of ``states`` (tests and scripts)."""
    deadline = time.monotonic() + timeout
    while True:
        job = table.get_job(store, job_id)
        if job["state"] in states or time.monotonic() > deadline:
            return job
        time.sleep(0.2)
