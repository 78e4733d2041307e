"""The Run page's Max tokens field (issue 33): empty by default, meaning each prompt's own output budget, so a
CRIMSON job started there asks for 8,192 tokens and a GREEN job for 2,048; a number typed in applies to every
prompt. Checked where it matters: the job's spec, the run's params and what the loopback server received."""

from __future__ import annotations

import json

from core.jobs.spec import JobSpec
from core.store.db import Store
from tests.app.test_page_run import MODEL, _open, _sample, _wait_for_job
from tests.apptest_helpers import assert_ok, table, use_fake_model
from tests.fake_openai import FakeOpenAI


def _start(at, store: Store, prompt: str) -> dict:
    at.multiselect(key="run_prompts").set_value([prompt]).run()
    assert_ok(at)
    shown = table(at, "to send")  # the estimate names the budget before anything starts
    max_tokens = int(shown["max tokens"].iloc[0])
    at.button(key="run_start").click().run()
    assert_ok(at)
    job = _wait_for_job(at, store)
    assert job["state"] == "done", job.get("message")
    [task] = JobSpec.from_json(job["spec"]).tasks
    [result] = job["results"]
    run_params = json.loads(store.query_one("SELECT params FROM judge_runs WHERE run_id = ? AND prompt_id = ?",
                                            [result["run_id"], prompt]))
    return {"shown": max_tokens, "task": task.max_tokens, "params": task.params().max_tokens,
            "run": run_params["max_tokens"]}


def test_max_tokens_follows_the_chosen_prompt_unless_one_is_typed(app_test, demo_store_copy: Store, monkeypatch):
    store = demo_store_copy
    with FakeOpenAI() as server:
        use_fake_model(monkeypatch, server.url, MODEL)
        at = _open(app_test, store)
        _sample(at, 2, 3)
        at.multiselect(key="run_judges").set_value([MODEL]).run()
        assert_ok(at)
        assert at.number_input(key="run_max_tokens").value is None  # empty: the prompt's default

        crimson = _start(at, store, "crimson")
        assert crimson == {"shown": 8192, "task": None, "params": 8192, "run": 8192}
        assert {p["max_tokens"] for p in server.seen_params} == {8192}
        sent = len(server.seen_params)

        green = _start(at, store, "green")
        assert green == {"shown": 2048, "task": None, "params": 2048, "run": 2048}
        assert {p["max_tokens"] for p in server.seen_params[sent:]} == {2048}

        at.number_input(key="run_max_tokens").set_value(4096).run()  # a typed budget goes to every prompt
        assert_ok(at)
        typed = _start(at, store, "crimson")
        assert typed == {"shown": 4096, "task": 4096, "params": 4096, "run": 4096}
