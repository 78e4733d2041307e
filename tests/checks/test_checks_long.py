"""The report checks keep the offline judges' length cap (issue 42, point 2, found again in review): a pair with a
report over ``core.judges.bounds.MAX_REPORT_CHARS`` is a recorded failure with its reason, never checked.

Before the cap, ``run_checks`` gave ``evaluate_pair`` any length (100 kB: 1.2 s of CPU; 1 MB: over 90 s) and stored
the long pair as checked ("ok"); this test failed on that code.
"""

from __future__ import annotations

import json
import time

import pandas as pd

from core.checks.store import run_checks
from core.ingest.importers import PairColumns, import_pairs
from core.judges.bounds import MAX_REPORT_CHARS

REF = ("FINDINGS: Small left pleural effusion. The lungs are otherwise clear. Normal heart size.\n\n"
       "IMPRESSION:\nSmall left pleural effusion.")


def _long_report() -> str:
    body = (REF + "\n") * (MAX_REPORT_CHARS // len(REF) + 2)
    return body[:MAX_REPORT_CHARS + 1]


def test_a_report_over_the_cap_is_a_recorded_failure_not_checked(tmp_store):
    long = _long_report()
    df = pd.DataFrame({"id": ["short", "long"], "ref": [REF, long], "cand": [REF, REF]})
    import_pairs(tmp_store, df, dataset="d", columns=PairColumns("id", "ref", "cand"), name="x.csv")
    t0 = time.process_time()
    summary = run_checks(tmp_store, "d", "en-US")
    cpu = time.process_time() - t0
    assert (summary.ok, summary.failed, summary.status) == (1, 1, "done")
    assert summary.failures[0]["ext_id"] == "long"
    assert summary.failures[0]["error"].startswith(
        f"too long to judge: the reference report has {MAX_REPORT_CHARS + 1:,} characters; the checks:en-US judge")
    rows = tmp_store.query_df("SELECT p.ext_id, o.error, o.raw_text FROM judge_outputs o JOIN pairs p USING (pair_id) "
                              "WHERE o.run_id = ? ORDER BY p.ext_id", [summary.run_id])
    assert rows["ext_id"].tolist() == ["long", "short"]
    assert rows["error"].iloc[0].startswith("too long to judge") and pd.isna(rows["error"].iloc[1])
    assert json.loads(rows["raw_text"].iloc[1])["verdict"]  # the short pair was checked
    n_metrics = tmp_store.query_one("SELECT count(*) FROM metric_values m JOIN pairs p USING (pair_id) "
                                    "WHERE m.run_id = ? AND p.ext_id = 'long'", [summary.run_id])
    assert n_metrics == 0
    run = tmp_store.query_df("SELECT status, n_ok, n_failed FROM judge_runs WHERE run_id = ?", [summary.run_id])
    assert run[["status", "n_ok", "n_failed"]].values.tolist() == [["done", 1, 1]]
    assert cpu < 5, f"{cpu:.1f} CPU seconds"
    again = run_checks(tmp_store, "d", "en-US")  # a re-run gives the same: still refused, the short pair skipped
    assert (again.skipped, again.failed) == (1, 1)
