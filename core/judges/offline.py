"""Running the per-pair judges that need no network (rules, lexical, length): same store path as LLM runs.

They are deterministic, so a pair already answered in the run is skipped and
the rest are computed and committed in batches (a cancel or crash keeps every
committed batch). A pair with a report longer than
``core.judges.bounds.MAX_REPORT_CHARS`` is a recorded failure with the reason,
never given to the judge (whatever the judge: one cap for all of them); an
error inside a judge is that pair's recorded failure too, as the rules judge
records its own (``internal error TYPE``).
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from contextlib import suppress

from core.judges.bounds import too_long
from core.judges.llm import RunSummary
from core.judges.patience import impatient
from core.judges.runs import OutputRecord, RunSpec, finish_run, load_pairs, resume_run, write_outputs
from core.reads.context import context_dict
from core.store.db import Store, StoreError

BATCH = 1000


def reads_context(score_pair: Callable[..., OutputRecord]) -> bool:
    """Does this judge read a pair's patient context (a ``context`` parameter: the rules judge's significance)?"""
    try:
        return "context" in inspect.signature(score_pair).parameters
    except (TypeError, ValueError):
        return False


def _judged(judge: str, score_pair: Callable[..., OutputRecord], reference: str,
            candidate: str, context: dict[str, str] | None = None) -> OutputRecord:
    """The judge's record for one pair (``context`` given only to a judge that reads it); a report over the
    cap, or an error inside the judge (a MemoryError included), is a recorded failure of that pair, never a
    crash of the run."""
    refused = too_long(judge, reference, candidate)
    if refused:
        return OutputRecord(pair_id="", error=refused)
    try:
        if context:
            return score_pair(reference, candidate, context=context)
        return score_pair(reference, candidate)
    except Exception as exc:  # one pair the judge cannot handle must not end the run (nor leave its job running)
        return OutputRecord(pair_id="", error=f"{judge} judge: internal error {type(exc).__name__}")


def refused_too_long(judge: str, todo, summary: RunSummary) -> list[OutputRecord]:
    """The failures to record for ``todo``'s pairs with a report over the cap (counted in ``summary``), for a
    run that scores its pairs in its own loop (``distilled:NAME``, ``checks:LOCALE``)."""
    out = []
    for row in todo.itertuples(index=False):
        why = too_long(judge, row.reference, row.candidate)
        if why:
            out.append(OutputRecord(pair_id=row.pair_id, cost_usd=0.0, error=why))
            summary.failed += 1
            summary.failures.append({"ext_id": row.ext_id, "error": why})
    return out


def run_offline_judge(store: Store, spec: RunSpec, score_pair: Callable[[str, str], OutputRecord], *,
                      pair_ids: list[str] | None = None, limit: int | None = None,
                      progress: Callable[[int, int, dict], None] | None = None,
                      cancel: threading.Event | None = None) -> RunSummary:
    """Apply ``score_pair(reference, candidate)`` to each pair and store the results."""
    started = time.monotonic()
    pairs = load_pairs(store, spec.dataset, pair_ids, limit)
    run_id, todo = resume_run(store, spec, pairs)
    summary = RunSummary(run_id=run_id, requested=len(pairs), skipped=len(pairs) - len(todo))
    summary.ok = summary.skipped
    with_context = reads_context(score_pair)

    def score(rows) -> list[OutputRecord]:
        out = []
        for row in rows:
            t0 = time.perf_counter()
            context = context_dict(row) if with_context else None
            rec = _judged(spec.judge_name, score_pair, row.reference, row.candidate, context)
            rec.pair_id = row.pair_id
            rec.latency_ms = (time.perf_counter() - t0) * 1000
            rec.cost_usd = 0.0
            out.append(rec)
        return out

    return run_batches(store, spec, run_id, todo, score, summary, len(pairs), started, progress=progress,
                       cancel=cancel)


def run_batches(store: Store, spec: RunSpec, run_id: str, todo, score: Callable[[list], list[OutputRecord]],
                summary: RunSummary, n_pairs: int, started: float, *, chunk: int = 1,
                progress: Callable[[int, int, dict], None] | None = None,
                cancel: threading.Event | None = None) -> RunSummary:
    """The offline-run loop (rules, lexical, length, distilled, checks): ``score(rows)`` gives the records of a
    chunk of ``todo``'s rows; cancel is checked before each chunk, outputs are committed every :data:`BATCH`
    records (a cancel or crash keeps every committed batch, a re-run resumes after it), progress follows each
    commit, and the run is finished ("done", "cancelled"; "failed" when the store refuses a batch)."""
    try:
        status = _score_all(store, spec, run_id, todo, score, summary, n_pairs, chunk, progress, cancel)
    except StoreError:  # the store refused a batch: the run is closed as failed (counts from the store), not
        with suppress(Exception):  # left `running`; a re-run finishes it
            finish_run(impatient(store), run_id, "failed")
        raise
    final = finish_run(store, run_id, status)
    summary.failed_total, summary.unparsed_total = final["failed_total"], final["unparsed_total"]
    return summary.close(status, started)


def _score_all(store, spec, run_id, todo, score, summary, n_pairs, chunk, progress, cancel) -> str:
    def report() -> None:
        if progress:
            progress(summary.ok + summary.failed, n_pairs, {"ok": summary.ok, "failed": summary.failed,
                                                             "run_id": run_id})

    status = "done"
    report()  # at once: the job notes the run (core.jobs.counts) and shows what it holds already
    rows = list(todo.itertuples(index=False))
    batch: list[OutputRecord] = []
    for start in range(0, len(rows), chunk):
        if cancel is not None and cancel.is_set():
            status = "cancelled"
            break
        part = rows[start:start + chunk]
        ext = {row.pair_id: row.ext_id for row in part}
        for rec in score(part):
            batch.append(rec)
            if rec.error is None:
                summary.ok += 1
            else:  # a pair this judge cannot read (another language, not a report, too long): recorded
                summary.failed += 1
                summary.failures.append({"ext_id": ext[rec.pair_id], "error": rec.error})
        if len(batch) >= BATCH:
            write_outputs(store, run_id, batch, spec.prompt_id)
            batch = []
            report()
    write_outputs(store, run_id, batch, spec.prompt_id)
    report()
    return status
