"""The Run judges page (AppTest) against the real model: llama.cpp's server with SmolLM2-135M
(tests/local_model/conftest.py), configured as a user configures a local server."""

from __future__ import annotations

import json

from core.jobs.spec import JobSpec
from core.judges.localserver import LOCAL_CONCURRENCY, LOCAL_STOP, LOCAL_TIMEOUT
from core.store.db import Store
from tests.app.test_page_run import _metric, _open, _sample, _wait_for_job
from tests.apptest_helpers import assert_ok, table, use_fake_model

PAIRS = 4


def test_run_page_sends_each_pair_once_with_local_defaults_and_unknown_cost(app_test, demo_store_copy: Store,
                                                                           monkeypatch, local_model):
    store = demo_store_copy
    use_fake_model(monkeypatch, local_model.url, local_model.model)  # the real server's URL: nothing fake
    at = _open(app_test, store)
    models = table(at, "model", "endpoint")
    assert models[["model", "local", "status"]].values.tolist() == [[local_model.model, True, "ready"]]
    _sample(at, PAIRS, 4)
    at.multiselect(key="run_judges").set_value([local_model.model]).run()
    assert_ok(at)
    assert at.number_input(key="run_concurrency").value == LOCAL_CONCURRENCY  # a CPU server: 2 calls at once
    at.number_input(key="run_max_tokens").set_value(64).run()
    assert _metric(at, "Calls") == str(PAIRS) and _metric(at, "Estimated cost") == "unknown"

    before = local_model.proxy.requests
    at.button(key="run_start").click().run()
    assert_ok(at)
    job = _wait_for_job(at, store, timeout=300)
    assert job["state"] == "done", job
    assert local_model.proxy.requests - before == PAIRS == job["n_sent"]  # counted at the server
    assert {b["max_tokens"] for b in local_model.proxy.bodies[before:]} == {64}
    # a local server's stop sequences for the prompt's family, as `judge` sends them
    prompts = set(at.multiselect(key="run_prompts").value)
    assert prompts == {"green"} and all(b["stop"] == list(LOCAL_STOP["green"]) for b in local_model.proxy.bodies[before:])
    spec = JobSpec.from_json(store.query_one("SELECT spec FROM jobs"))
    assert (spec.call.concurrency, spec.call.timeout) == (LOCAL_CONCURRENCY, LOCAL_TIMEOUT)
    unread = store.query_one("SELECT count(*) FROM judge_outputs WHERE parse_status = 'failed'")
    shown = at.warning if unread else at.success  # unreadable answers: a warning, counted
    assert any(s.value.startswith(f"Finished: {PAIRS} answered ({unread} of them unreadable as the prompt's "
                                  "format), 0 failed") for s in shown)
    results = json.loads(store.query_one("SELECT results FROM jobs"))
    assert results[0]["cost_usd"] is None  # no price for a local model: unknown, not $0
