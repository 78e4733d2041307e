"""Executing a plan: the part every LLM-backed run shares once its work is planned (:mod:`core.judges.plan`).

:func:`execute_plan` opens the run (its id from the plan's spec), then stores answers an earlier process
journaled (no call); skips pairs already answered in this run; leases the rest's cache keys
(:mod:`.leases`: :class:`~core.judges.leases.RunBusy` if another live run sends them now); copies answers
whose key any run holds (no call); and hands what is left to a :class:`~core.judges.sending.Sender` (the
call sender unless one is given, e.g. a batch), with the caller ``make_caller()`` builds (only then: litellm
is imported only when something is sent) and one :class:`~core.judges.recorder.Recorder`. It closes the run
and fills the summary; after a failed store write the status is ``failed`` and ``summary.message`` says what
was kept. Sending happens on one long-lived event loop per process (:func:`run_on_gateway_loop`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from core.judges import batchstore, leases
from core.judges import journal as journal_mod
from core.judges.calls import CallSender
from core.judges.patience import impatient, kept_message
from core.judges.plan import RunPlan
from core.judges.recorder import Recorder
from core.judges.runs import (
    OutputRecord,
    answered_pair_ids,
    copy_cached_outputs,
    ensure_run,
    finish_run,
    write_outputs,
)
from core.judges.sending import SendContext, Sender
from core.judges.summary import Progress, RunSummary, stats
from core.store.db import Store


def open_run(store: Store, plan: RunPlan) -> RunSummary:
    """The plan's run, created or found (a re-run resumes it), and a summary counting from its rendering."""
    run_id = ensure_run(store, plan.spec, len(plan.work))
    return RunSummary(run_id=run_id, requested=len(plan.work), seconds=plan.seconds)


def execute_plan(store: Store, plan: RunPlan, make_caller: Callable[[], object], *, concurrency: int,
                 summary: RunSummary | None = None, progress: Progress | None = None,
                 cancel: threading.Event | None = None, flush_interval: float = 0.5,
                 sender: Sender | None = None) -> RunSummary:
    """Run ``plan`` (see the module docstring); ``summary``: the one :func:`open_run` returned, if opened."""
    summary = summary or open_run(store, plan)
    started = time.monotonic()
    run_id, prompt_id, work = summary.run_id, plan.prompt_id, plan.work
    summary.replayed = journal_mod.replay(store, run_id, prompt_id)
    # what the run held when we looked; every write re-checks inside its transaction (core.judges.runs)
    done_here = answered_pair_ids(store, run_id)
    todo = [w for w in work if w.pair_id not in done_here]
    summary.skipped = len(work) - len(todo)
    keys = list(dict.fromkeys(w.key for w in todo))
    leases.claim(store, keys, leases.current_job())  # before the cache is read: see leases.claim
    try:  # a stopped --batch job's open batches
        batchstore.refuse_if_open(store, keys, run_id if sender is not None else None)
        to_send = _answer_from_cache(store, run_id, prompt_id, todo, summary)
        if progress:
            progress(summary.ok, len(work), stats(summary))
        status, final = "done", None
        if to_send:
            journal = journal_mod.Journal(store, run_id)
            recorder = Recorder(store, run_id, prompt_id, journal, summary, len(work), progress,
                                {w.pair_id: w.ext_id for w in to_send})
            ctx = SendContext(make_caller(), concurrency, recorder, cancel, flush_interval)
            status, final = run_on_gateway_loop((sender or CallSender()).send(to_send, ctx))
            journal.close(committed=final is not None)
            if status == "failed":  # a write failed: the answers wait in the journal for the resume
                summary.message = kept_message(summary, journal)
        else:
            final = finish_run(store, run_id, status)
        summary.status = status
        summary.seconds = round(summary.seconds + time.monotonic() - started, 3)
        if final is not None:
            summary.failed_total = final["failed_total"]
            summary.unparsed_total = final["unparsed_total"]
            summary.cost_total = final["cost_total"]
        return summary
    finally:
        try:  # after a failed write, a short try: the leases die with this process anyway
            leases.release(store if summary.status != "failed" else impatient(store), keys)
        except Exception:
            pass


def _answer_from_cache(store: Store, run_id: str, prompt_id: str, todo: list, summary: RunSummary) -> list:
    """Answer what any run has answered already (no call); the work left to send."""
    hits: dict[str, str] = {}
    if todo:
        cached = store.query_df(
            "SELECT cache_key, any_value(raw_text) AS raw_text FROM judge_outputs "
            "WHERE error IS NULL AND cache_key IN (SELECT unnest(?::VARCHAR[])) GROUP BY cache_key",
            [[w.key for w in todo]])
        hits = dict(zip(cached["cache_key"], cached["raw_text"], strict=True))
    if hits:  # answered by the same prompt elsewhere: copied with what was parsed from them
        copied = copy_cached_outputs(store, run_id, prompt_id, [(w.pair_id, w.key) for w in todo if w.key in hits])
        summary.cached += len(copied)
        todo = [w for w in todo if w.pair_id not in copied]  # the other hits are parsed again as this prompt's
    from_cache = [OutputRecord(pair_id=w.pair_id, cache_key=w.key, raw_text=hits[w.key], latency_ms=0.0, cost_usd=0.0)
                  for w in todo if w.key in hits]
    write_outputs(store, run_id, from_cache, prompt_id)
    summary.cached += len(from_cache)
    summary.ok += summary.skipped + summary.cached
    return [w for w in todo if w.key not in hits]


_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_GUARD = threading.Lock()


def run_on_gateway_loop(coro):
    """Run ``coro`` on one long-lived event loop per process.

    litellm keeps its HTTP client sessions per event loop; a fresh loop per run
    (``asyncio.run``) would pay the client set-up every time.
    """
    global _LOOP
    with _LOOP_GUARD:
        if _LOOP is None or _LOOP.is_closed():
            _LOOP = asyncio.new_event_loop()
            threading.Thread(target=_LOOP.run_forever, name="llm-gateway", daemon=True).start()
    return asyncio.run_coroutine_threadsafe(coro, _LOOP).result()
