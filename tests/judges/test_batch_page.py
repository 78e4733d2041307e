"""The Run page's "Batch (cheaper, slower)" (issue 34, item 1) through AppTest, with a loopback batch server.

The page starts a worker process, the job panel shows the provider's state of the batch while it runs,
and the finished run says what its batches did, its answers priced at the batch price.
"""

from __future__ import annotations

import time

import pytest

from core.jobs.spec import JobSpec
from core.jobs.table import list_jobs
from core.judges.batchfiles import BatchOptions
from tests.apptest_helpers import assert_ok, use_fake_model
from tests.conftest import marked_store
from tests.fake_openai_batch import FakeBatchServer

PRICED = "openai/gpt-4o-mini"
BATCH_IN, BATCH_OUT = 7.5e-08, 3e-07  # litellm's batch prices for it


def _captions(at) -> list[str]:
    return [c.value.replace("\\", "") for c in at.caption]  # as shown: without the Markdown escapes


@pytest.mark.faults
def test_a_batch_run_from_the_run_page_shows_the_batch_state_and_the_batch_price(tmp_path, app_test, monkeypatch):
    n = 24
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeBatchServer(line_seconds=0.25) as server:  # 6 s of work: the panel sees it in progress
        use_fake_model(monkeypatch, server.url, PRICED)
        at = app_test(store)
        at.switch_page("pages/run.py").run()
        at.multiselect(key="run_judges").set_value([PRICED]).run()
        assert_ok(at)
        assert at.radio(key="run_mode").value == "direct"
        at.radio(key="run_mode").set_value("batch").run()
        assert_ok(at)
        assert any("batch price" in c for c in _captions(at)) and not at.error
        assert at.query_params.get("mode") == "batch"  # a shared link keeps the choice
        at.button(key="run_start").click().run()
        assert_ok(at)

        seen_running = None
        deadline = time.monotonic() + 120
        while True:
            jobs = list_jobs(store, limit=1)
            state = jobs["state"].iloc[0] if len(jobs) else None
            if state == "running" and seen_running is None:
                at.run()
                assert_ok(at)
                shown = [c for c in _captions(at) if c.startswith("Batches: ")]
                if shown and "in progress" in shown[0]:
                    seen_running = shown[0]
            if state not in (None, "queued", "running"):
                break
            assert time.monotonic() < deadline, "the batch job did not finish"
            time.sleep(0.2)
        assert seen_running is not None and f"of {n}" in seen_running  # the panel showed the batch while it ran
        assert (server.uploads, server.batches_created, server.requests) == (1, 1, 0)
        at.run()
        assert_ok(at)
    job = list_jobs(store, limit=1).iloc[0]
    assert job["state"] == "done" and JobSpec.from_json(job["spec"]).call.batch == BatchOptions()  # the defaults
    assert any(s.value.startswith("Finished: ") and f"{n:,} answered" in s.value for s in at.success)
    done = [c for c in _captions(at) if c.startswith("Batches: ")]
    assert done == [f"Batches: 1 completed; lines {n} done, 0 failed, of {n} (priced at the batch price)."]
    answers = store.query_df("SELECT tokens_in, tokens_out, cost_usd FROM judge_outputs WHERE error IS NULL")
    expected = float((answers["tokens_in"] * BATCH_IN + answers["tokens_out"] * BATCH_OUT).sum())
    [results] = [d.value for d in at.dataframe if "cost_usd" in d.value.columns]
    assert results["cost_usd"].iloc[0] == pytest.approx(expected) and len(answers) == n
