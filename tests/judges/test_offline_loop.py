"""The one offline-run loop (core.judges.offline.run_batches) and records that carry their own error rows."""
import threading
import time

from core.judges.llm import RunSummary
from core.judges.offline import run_batches
from core.judges.runs import OutputRecord, RunSpec, load_pairs, resume_run


def test_precomputed_error_rows_are_stored_and_a_cancel_keeps_what_was_written(demo_store_copy):
    store = demo_store_copy
    spec = RunSpec("checks", "loop-test", "demo", prompt_id="loop_test", prompt_hash="h1")
    pairs = load_pairs(store, "demo")
    run_id, todo = resume_run(store, spec, pairs)
    cancel, seen = threading.Event(), []

    def score(rows):
        if len(seen) == 30:
            cancel.set()
        seen.extend(r.pair_id for r in rows)
        return [OutputRecord(pair_id=r.pair_id, raw_text="{}", metrics={"m": 1.0},
                             errors=[(True, "C01", "critical: x")]) for r in rows]

    summary = RunSummary(run_id=run_id, requested=len(pairs))
    out = run_batches(store, spec, run_id, todo, score, summary, len(pairs), time.monotonic(), cancel=cancel)
    assert out.status == "cancelled" and out.ok == 31
    assert store.query_one("SELECT count(*) FROM judge_errors WHERE run_id = ? AND category = 'C01'", [run_id]) == 31
    assert store.query_one("SELECT count(*) FROM metric_values WHERE run_id = ?", [run_id]) == 31
    assert store.query_one("SELECT status FROM judge_runs WHERE run_id = ?", [run_id]) == "cancelled"
    run_id2, todo2 = resume_run(store, spec, pairs)  # a re-run resumes after the stored pairs
    assert run_id2 == run_id and len(todo2) == len(pairs) - 31
