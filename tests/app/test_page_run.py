"""The Run judges page through AppTest: every run is a job of the store, run by a worker process."""

from __future__ import annotations

import json
import time

from core.reads import frames as analysis
from core.store.db import Store
from tests.apptest_helpers import assert_ok, open_page, table, use_fake_model
from tests.cli_inprocess import run_cli
from tests.fake_openai import FakeOpenAI

MODEL = "openai/fake-judge"


def _open(app_test, store):
    return open_page(app_test, store, "pages/run.py")


def _metric(at, label: str) -> str:
    found = [m.value for m in at.metric if m.label == label]
    assert len(found) == 1, [m.label for m in at.metric]
    return found[0]


def _sample(at, n: int, seed: int):
    at.radio(key="run_pick").set_value("sample").run()
    at.number_input(key="run_n").set_value(n)
    at.number_input(key="run_seed").set_value(seed).run()
    assert_ok(at)


def _expected_sample(store: Store, n: int, seed: int) -> set[str]:
    """The seeded sample computed independently of the page."""
    index = analysis.pair_facets(store, "demo").sort_values(["ext_id", "pair_id"], ignore_index=True)
    return set(index.sample(n=n, random_state=seed)["pair_id"])


def _wait_for_job(at, store: Store, timeout: float = 90.0) -> dict:
    """Wait for the newest job's worker to finish (as the panel's polling does), then render the page."""
    from core.jobs.table import list_jobs

    deadline = time.monotonic() + timeout
    while True:
        jobs = list_jobs(store, limit=1)
        if len(jobs) and jobs["state"].iloc[0] not in ("queued", "running"):
            break
        assert time.monotonic() < deadline, "the job did not finish in time"
        time.sleep(0.3)
    at.run()
    assert_ok(at)
    job = jobs.iloc[0].to_dict()
    job["results"] = json.loads(job["results"] or "[]")
    return job


def test_rules_run_lands_in_store_and_second_estimate_is_all_cached(app_test, demo_store_copy: Store,
                                                                      no_models):
    store = demo_store_copy
    at = _open(app_test, store)
    assert at.multiselect(key="run_judges").value == ["rules"]
    _sample(at, 12, 5)
    assert any("seed 5" in c.value for c in at.caption)
    assert _metric(at, "Calls") == "12"
    assert _metric(at, "Cache hits") == "0"

    at.button(key="run_start").click().run()
    assert_ok(at)
    job = _wait_for_job(at, store)
    assert job["state"] == "done" and job["origin"] == "dashboard"
    runs = store.query_df("SELECT run_id, judge_kind, status, n_ok, n_failed FROM judge_runs")
    assert runs[["judge_kind", "status", "n_ok", "n_failed"]].values.tolist() == [["rules", "done", 12, 0]]
    stored = set(store.query_df("SELECT pair_id FROM judge_outputs WHERE run_id = ?",
                                [runs["run_id"].iloc[0]])["pair_id"])
    assert stored == _expected_sample(store, 12, 5)
    assert any(s.value.startswith("Finished: 12 answered (0 of them unreadable as the prompt's format), 0 failed")
               for s in at.success)
    assert [b for b in at.button if b.key == "run_to_correlations"]  # the way on to the results
    results = table(at, "run_id", "status")
    assert results[["judge", "ok", "failed_total"]].values.tolist() == [["rules", 12, 0]]

    # Same selection again: every call is a cache hit, nothing left to send.
    assert _metric(at, "Cache hits") == "12"
    assert _metric(at, "To send") == "0"
    estimate = table(at, "to send")
    assert estimate["cached"].tolist() == estimate["calls"].tolist() == [12]

    # the run's results show up on the Correlations page of the same session
    at.switch_page("pages/correlations.py").run()
    assert_ok(at)
    shown = at.table[0].value
    assert "rules" in shown.index.astype(str).tolist() + shown.iloc[:, 0].astype(str).tolist()
    assert any("12 pairs" in m.value for m in at.markdown) or any("12 pairs" in c.value for c in at.caption)


def test_without_models_offline_judges_work_and_the_page_says_how_to_configure(app_test, demo_store: Store,
                                                                              no_models):
    at = _open(app_test, demo_store)
    message = " ".join(i.value for i in at.info)
    assert "RADCONCORD_MODELS" in message and ".streamlit/secrets.toml.example" in message
    assert at.multiselect(key="run_judges").options == ["rules", "lexical", "length"]
    at.multiselect(key="run_judges").set_value(["rules", "lexical"]).run()
    assert_ok(at)
    assert _metric(at, "Calls") == "240"  # 120 pairs x 2 judges
    assert _metric(at, "Estimated cost") == "$0.0000"
    assert at.query_params["judge"] == ["rules", "lexical"]


def test_local_only_is_shown_and_enforced(app_test, demo_store_copy: Store, monkeypatch):
    monkeypatch.setenv("RADCONCORD_MODELS", "openai/gpt-4o-mini")
    monkeypatch.delenv("RADCONCORD_API_BASE", raising=False)
    monkeypatch.setenv("RADCONCORD_LOCAL_ONLY", "true")
    at = _open(app_test, demo_store_copy)
    assert any("local only" in m.value and "badge" in m.value for m in at.markdown)
    _sample(at, 3, 0)
    at.multiselect(key="run_judges").set_value(["openai/gpt-4o-mini"]).run()
    assert_ok(at)
    assert any("local_only is on" in e.value for e in at.error)
    at.button(key="run_start").click().run()
    job = _wait_for_job(at, demo_store_copy)
    assert job["results"][0]["status"] == "refused"
    assert any("EndpointRefused" in e.value for e in at.error)
    assert demo_store_copy.query_one("SELECT count(*) FROM judge_runs") == 0  # refused before any work


def test_model_run_in_background_then_retry_failed_and_all_cached(app_test, demo_store_copy: Store,
                                                                   monkeypatch):
    store = demo_store_copy
    ids = _expected_sample(store, 5, 1)
    pairs = store.query_df("SELECT pair_id, candidate FROM pairs WHERE pair_id IN (SELECT unnest(?::VARCHAR[])) "
                           "ORDER BY ext_id", [sorted(ids)])
    # A marker unique to one sampled pair: its first request fails (HTTP 400, not retried), later ones succeed.
    others = " ".join(store.query_df("SELECT candidate FROM pairs WHERE pair_id != ?",
                                     [pairs["pair_id"].iloc[0]])["candidate"])
    text = pairs["candidate"].iloc[0]
    marker = next(text[i:i + 40] for i in range(0, len(text) - 40) if text[i:i + 40] not in others)
    with FakeOpenAI(plan={marker: ["400"]}) as server:
        use_fake_model(monkeypatch, server.url, MODEL)
        at = _open(app_test, store)
        models = table(at, "model", "endpoint")
        assert models[["model", "local", "key", "status"]].values.tolist() == [[MODEL, True, "not needed", "ready"]]
        _sample(at, 5, 1)
        at.multiselect(key="run_judges").set_value([MODEL]).run()
        assert_ok(at)
        assert _metric(at, "Calls") == "5" and _metric(at, "Cache hits") == "0"
        assert _metric(at, "Estimated cost") == "unknown"  # not in litellm's price table

        at.button(key="run_start").click().run()
        assert_ok(at)
        job = _wait_for_job(at, store)
        assert (job["n_ok"], job["n_failed"], job["n_sent"]) == (4, 1, 5)
        failures = table(at, "id", "error")
        assert len(failures) == 1 and "400" in failures["error"].iloc[0]
        run = store.query_df("SELECT judge_kind, model, n_ok, n_failed FROM judge_runs")
        assert run.values.tolist() == [["llm", MODEL, 4, 1]]
        assert _metric(at, "Cache hits") == "4"

        sent_before = server.requests
        at.button(key="run_retry").click().run()
        assert_ok(at)
        job = _wait_for_job(at, store)
        assert server.requests == sent_before + 1  # only the failure is sent again
        assert store.query_df("SELECT n_ok, n_failed FROM judge_runs").values.tolist() == [[5, 0]]
        assert any(s.value.startswith("Finished: 5 answered (0 of them unreadable as the prompt's format), 0 failed")
                   for s in at.success)
        assert _metric(at, "Cache hits") == "5"
        assert set(store.query_df("SELECT pair_id FROM judge_outputs")["pair_id"]) == ids


def test_secret_key_marks_the_model_usable_and_is_never_shown(app_test, demo_store: Store, monkeypatch):
    secret = "sk-" + "ant-page-secret-0123456789"  # fake; no key-shaped literal tracked
    monkeypatch.setenv("RADCONCORD_MODELS", "anthropic/claude-3-5-haiku-20241022,gemini/gemini-1.5-flash")
    for var in ("RADCONCORD_API_BASE", "RADCONCORD_LOCAL_ONLY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
                "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    at = app_test(demo_store)
    at.secrets["ANTHROPIC_API_KEY"] = secret
    at.switch_page("pages/run.py")
    at.run()
    assert_ok(at)
    models = table(at, "model", "endpoint").set_index("model")
    assert models.loc["anthropic/claude-3-5-haiku-20241022", "key"] == "present"
    assert models.loc["gemini/gemini-1.5-flash", "status"] == "no key"
    shown = [str(e.value) for kind in ("markdown", "caption", "info", "error", "warning", "text", "code")
             for e in at.get(kind)] + [d.value.to_csv() for d in at.dataframe]
    assert shown and not any(secret in s for s in shown)


def test_cancel_stops_a_background_run_and_keeps_its_answers(app_test, demo_store_copy: Store, monkeypatch):
    store = demo_store_copy
    with FakeOpenAI(latency=0.4) as server:
        use_fake_model(monkeypatch, server.url, MODEL)
        at = _open(app_test, store)
        _sample(at, 30, 2)
        at.multiselect(key="run_judges").set_value([MODEL]).run()
        at.number_input(key="run_concurrency").set_value(1).run()
        at.button(key="run_start").click().run()
        assert_ok(at)
        # the polled progress bar: starting (the worker loads the model client) until the first answer, then counts
        assert any(p.proto.text.startswith("starting: loading the model client · 30 answers to come")
                   or " / 30 answers" in p.proto.text for p in at.get("progress"))
        deadline = time.monotonic() + 30
        while server.requests < 2:  # the worker process is sending
            assert time.monotonic() < deadline
            time.sleep(0.1)
        at.run()
        [cancel] = [b for b in at.button if b.key.startswith("job_cancel_")]
        cancel.click().run()
        job = _wait_for_job(at, store)
    assert job["state"] == "cancelled" and job["results"][0]["status"] == "cancelled"
    assert any(w.value.startswith("Cancelled:") for w in at.warning)
    kept = store.query_one("SELECT count(*) FROM judge_outputs WHERE error IS NULL")
    assert kept < 30 and server.requests < 30  # stopped early
    assert store.query_one("SELECT status FROM judge_runs") == "cancelled"
    assert kept == store.query_one("SELECT n_ok FROM judge_runs")


def test_few_shot_pools_are_explained_and_d9_takes_its_run_on_the_page(app_test, demo_store_copy: Store,
                                                                        monkeypatch):
    from core.judges.llm import run_llm_judge

    store = demo_store_copy
    with FakeOpenAI() as server:
        use_fake_model(monkeypatch, server.url, MODEL)
        at = _open(app_test, store)
        _sample(at, 3, 0)
        at.multiselect(key="run_judges").set_value([MODEL]).run()
        at.multiselect(key="run_prompts").set_value(["vert_rate_err", "vert_rate_err_10"]).run()
        assert_ok(at)
        captions = " ".join(c.value for c in at.caption).replace("\\", "")  # as rendered
        assert "python -m core inject" in captions and "--kind omission" in captions  # how to make D.7's pool
        assert any("no such run yet" in i.value for i in at.info)  # D.9: what is missing, and how to make it
        errors = [e.value.replace("\\", "") for e in at.error]
        assert any("vert_rate_err_10" in e and "needs the run" in e for e in errors), errors

        pairs = store.query_df("SELECT pair_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id LIMIT 14")
        vert = run_llm_judge(store, dataset="demo", model=MODEL, prompt_id="vert", api_base=server.url,
                             pair_ids=list(pairs["pair_id"]))
        at = _open(app_test, store)
        _sample(at, 3, 0)
        at.multiselect(key="run_judges").set_value([MODEL]).run()
        at.multiselect(key="run_prompts").set_value(["vert_rate_err_10"]).run()
        assert_ok(at)
        assert at.selectbox(key="run_shot_run").value == vert.run_id
        assert not [e for e in at.error if "rate" in e.value]  # the plan has its shots now
        assert _metric(at, "Calls") == "3"


def test_tick_rows_shows_the_report_text_to_pick_by(app_test, demo_store: Store, no_models):
    at = _open(app_test, demo_store)
    at.radio(key="run_pick").set_value("rows").run()
    assert_ok(at)
    rows = table(at, "id", "candidate", "reference")
    texts = demo_store.query_df("SELECT ext_id AS id, candidate FROM pairs WHERE dataset = 'demo'").set_index("id")
    first = rows.iloc[0]
    assert first["candidate"] == texts.loc[first["id"], "candidate"][:160] and len(first["candidate"]) > 20


def test_retry_of_a_cli_job_sends_to_its_endpoint_for_its_pairs_only(app_test, demo_store_copy: Store,
                                                                      monkeypatch):
    """'Retry failed' on a job started by `judge --limit 5 --api-base URL` keeps the limit and the endpoint.

    The page's retry used to rebuild the spec field by field and dropped ``limit`` and ``api_base``: it sent
    every pair of the dataset to the configured endpoint instead."""
    import os

    from core.jobs.spec import JobSpec
    from core.jobs.table import list_jobs

    store = demo_store_copy
    # "" is in every request: the first request the CLI's server sees fails (HTTP 400, not retried), the rest answer.
    with FakeOpenAI() as configured, FakeOpenAI(plan={"": ["400"]}) as cli_server:
        use_fake_model(monkeypatch, configured.url, MODEL)
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        done = run_cli("--store", str(store.path), "judge", "--dataset", "demo",
                               "--judge", MODEL, "--api-base", cli_server.url, "--limit", "5", env=env)
        assert "failed: 1" in done.stdout, done.stdout + done.stderr
        cli_job = list_jobs(store, limit=1).iloc[0]
        assert cli_job["origin"] == "cli"
        answered = set(store.query_df("SELECT pair_id FROM judge_outputs")["pair_id"])
        assert len(answered) == 5 and cli_server.requests == 5

        at = _open(app_test, store)
        at.button(key="run_retry").click().run()
        assert_ok(at)
        job = _wait_for_job(at, store)
        assert job["job_id"] != cli_job["job_id"] and job["origin"] == "dashboard"
        spec = JobSpec.from_json(job["spec"])
        assert (spec.limit, spec.call.endpoint) == (5, cli_server.url)
        assert cli_server.requests == 6  # the one failure, sent again to the CLI's endpoint
        assert configured.requests == 0  # never to the page's configured endpoint
        assert set(store.query_df("SELECT pair_id FROM judge_outputs")["pair_id"]) == answered
        assert store.query_df("SELECT n_ok, n_failed FROM judge_runs").values.tolist() == [[5, 0]]


def test_retry_spec_keeps_every_call_setting_and_only_tightens_local_only():
    from dataclasses import fields

    from core.jobs.spec import JobSpec, Task
    from core.judges.callsettings import CallSettings
    from core.judges.shots import ShotSource

    spec = JobSpec("demo", [Task(MODEL, "green"), Task("rules")], limit=50, selection="first 50",
                   shots=ShotSource(dataset="demo", k=2), shots_every_prompt=True, crimson_map="m.json", shard="1/2",
                   call=CallSettings(concurrency=3, timeout=9.0, max_retries=1, local_only=None, api_key_env="MY_KEY",
                                     api_base=["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"]))
    again = spec.retry([Task(MODEL, "green")])
    for f in fields(JobSpec):
        if f.name != "tasks":
            assert getattr(again, f.name) == getattr(spec, f.name), f.name
    assert again.tasks == [Task(MODEL, "green")]
    assert spec.retry([], local_only=True).call.local_only is True
    assert JobSpec.from_json(again.to_json()) == again
