"""The litellm runner against a real loopback HTTP server that injects faults."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from core.ingest.importers import PairColumns, import_pairs
from core.judges.llm import EndpointRefused, GenParams, cache_key, check_endpoint, redact, run_llm_judge
from core.store.db import Store
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/fake-judge"


def make_store(tmp_path, n=20, markers=None, dataset="d", name="s.duckdb"):
    return marked_store(tmp_path / name, n, markers, dataset)


def outputs(store):
    return store.query_df("SELECT o.*, p.ext_id FROM judge_outputs o JOIN pairs p USING (pair_id) ORDER BY ext_id")


def test_faults_are_retried_or_recorded_and_reruns_cost_nothing(tmp_path):
    markers = {1: "M429", 2: "M500", 3: "MDROP", 4: "MSLOW", 5: "MTRUNC", 6: "M400", 7: "MDOWN"}
    plan = {"M429": ["429"], "M500": ["500", "500"], "MDROP": ["drop"], "MSLOW": ["slow"],
            "MTRUNC": ["truncate"], "M400": ["400"], "MDOWN": ["500"] * 4}
    store = make_store(tmp_path, 20, markers)
    # timeout 2.5 s against a 6 s "slow" answer: wide margins so a loaded CI machine cannot flip a result
    with FakeOpenAI(plan=plan, slow_seconds=6.0, retry_after=1.0) as server:
        first = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=8,
                              timeout=2.5, max_retries=3, backoff=0.05)
        out = outputs(store)
        assert len(out) == 20 and out["pair_id"].is_unique
        failed = out[out["error"].notna()]
        assert set(failed["ext_id"]) == {"p006", "p007"}  # non-retryable 400; 500 beyond the retry budget
        assert "400" in failed.set_index("ext_id").loc["p006", "error"]
        assert first.failed == 2 and first.ok == 18 and first.sent == 20
        # the truncated answer is stored, flagged partial, never given invented counts
        trunc = out.set_index("ext_id").loc["p005"]
        assert trunc["error"] is None or pd.isna(trunc["error"])
        assert trunc["parse_status"] in ("partial", "failed")
        # Retry-After was honoured: the 429'd request came back no sooner than 1 s later
        t429 = server.attempt_times["M429"]
        assert len(t429) == 2 and t429[1] - t429[0] >= 0.95
        # backoff retried the 500s and the dropped connection
        assert len(server.attempt_times["M500"]) == 3 and len(server.attempt_times["MDROP"]) == 2
        metrics = store.query_df("SELECT DISTINCT metric FROM metric_values")["metric"]
        assert {"green", "green_f1", "formula", "ec_sig", "ec_total"} <= set(metrics)

        sent_before = server.requests
        second = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, timeout=2.5,
                               max_retries=3, backoff=0.05)
        assert second.sent == 2 and second.skipped == 18  # only the two failures are tried again
        assert server.requests - sent_before == 2
        assert second.failed == 0 and second.failed_total == 0  # p007's budget of 500s is spent now
        assert outputs(store)["error"].isna().all() and len(outputs(store)) == 20

        sent_before = server.requests
        third = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url)
        assert server.requests == sent_before and third.sent == 0 and third.ok == 20

        run = store.query_df("SELECT * FROM judge_runs").iloc[0]
        assert run["n_ok"] == 20 and run["n_failed"] == 0 and run["status"] == "done"
        assert run["prompt_id"] == "green" and len(run["prompt_hash"]) == 16


def test_cache_is_shared_across_runs_and_datasets(tmp_path):
    store = make_store(tmp_path, 10)
    df = store.query_df("SELECT ext_id AS id, reference AS ref, candidate AS cand FROM pairs")
    import_pairs(store, df, dataset="copy", columns=PairColumns("id", "ref", "cand"), name="copy.csv")
    with FakeOpenAI() as server:
        run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url)
        assert server.requests == 10
        copy = run_llm_judge(store, dataset="copy", model=MODEL, api_base=server.url)
        assert server.requests == 10 and copy.cached == 10 and copy.sent == 0
        hot = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, limit=3,
                            params=GenParams(temperature=0.7))
        assert hot.sent == 3 and server.requests == 13  # other params: other cache keys


def _parsed(store, dataset):
    """Per ext_id: (status, sorted metric values, sorted error texts) of the dataset's one run."""
    rows = {}
    for ext, status, raw in store.query_df(
            "SELECT p.ext_id, o.parse_status, o.raw_text FROM judge_outputs o JOIN pairs p USING (pair_id) "
            "WHERE p.dataset = ?", [dataset]).itertuples(index=False):
        rows[ext] = [status, raw]
    for ext, metric, value in store.query_df(
            "SELECT p.ext_id, m.metric, m.value FROM metric_values m JOIN pairs p USING (pair_id) "
            "WHERE p.dataset = ? ORDER BY 1, 2", [dataset]).itertuples(index=False):
        rows[ext].append((metric, value))
    for ext, cat, sig, text in store.query_df(
            "SELECT p.ext_id, e.category, e.significant, e.text FROM judge_errors e JOIN pairs p USING (pair_id) "
            "WHERE p.dataset = ? ORDER BY 1, 2, 3, 4", [dataset]).itertuples(index=False):
        rows[ext].append((cat, sig, text))
    return rows


def test_cache_hits_copy_what_was_parsed_and_equal_a_fresh_parse(tmp_path, monkeypatch):
    import core.judges.runs as runs
    from core.judges.runs import parsed_metrics
    from core.parse import parse_output

    store = make_store(tmp_path, 12)  # the server's GREEN answers carry errors and matched findings
    df = store.query_df("SELECT ext_id AS id, reference AS ref, candidate AS cand FROM pairs")
    for name in ("copy", "again"):
        import_pairs(store, df, dataset=name, columns=PairColumns("id", "ref", "cand"), name=f"{name}.csv")
    with FakeOpenAI() as server:
        run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url)
        with monkeypatch.context() as m:  # copied, not parsed: the parser is never called
            m.setattr(runs, "parsed_rows", lambda *a: pytest.fail("a cache hit was parsed again"))
            copied = run_llm_judge(store, dataset="copy", model=MODEL, api_base=server.url)
        # an answer stored under another prompt id is parsed again, as this prompt's
        store.execute("UPDATE judge_runs SET prompt_id = 'other' WHERE dataset IN ('d', 'copy')")
        parsed = run_llm_judge(store, dataset="again", model=MODEL, api_base=server.url)
        assert server.requests == 12
    assert (copied.cached, copied.sent, parsed.cached, parsed.sent) == (12, 0, 12, 0)
    original, via_copy, via_parse = _parsed(store, "d"), _parsed(store, "copy"), _parsed(store, "again")
    assert via_copy == original == via_parse
    assert any(len(v) > 2 + 1 for v in original.values())  # there were metrics and errors to copy
    for status, raw, *rest in original.values():  # and they are what parsing the answer gives
        result = parse_output(raw)
        assert status == result.status
        assert [r for r in rest if len(r) == 2] == sorted(parsed_metrics(result, "green").items())
    zero = store.query_df("SELECT latency_ms, cost_usd, tokens_in FROM judge_outputs o JOIN pairs p USING (pair_id) "
                          "WHERE p.dataset = 'copy'")
    assert (zero["latency_ms"] == 0).all() and (zero["cost_usd"] == 0).all() and zero["tokens_in"].isna().all()


def test_cache_key_covers_model_messages_and_params_only():
    msgs = [{"role": "user", "content": "x"}]
    base = cache_key("m", msgs, GenParams())
    assert base == cache_key("m", [{"role": "user", "content": "x"}], GenParams())
    assert base != cache_key("m2", msgs, GenParams())
    assert base != cache_key("m", [{"role": "user", "content": "y"}], GenParams())
    assert base != cache_key("m", msgs, GenParams(max_tokens=10))
    assert base != cache_key("m", msgs, GenParams(reasoning_effort="high"))
    with pytest.raises(ValueError, match="reasoning effort"):
        GenParams(reasoning_effort="extreme")


def test_sigkill_mid_run_then_resume_without_duplicates(tmp_path):
    store = make_store(tmp_path, 40)
    with FakeOpenAI(latency=0.3) as server:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        cmd = [sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset", "d",
               "--judge", MODEL, "--api-base", server.url, "--concurrency", "2", "--json",
               "--stop", ""]  # no stop sequences: the same run as run_llm_judge's below (a loopback server is local)
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        stored = 0
        while time.monotonic() < deadline:
            time.sleep(0.3)
            stored = Store(store.path).query_one("SELECT count(*) FROM judge_outputs")
            if stored >= 6:
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert 6 <= stored < 40, "the run must be killed mid-way"
        kept = store.query_one("SELECT count(*) FROM judge_outputs")
        sent_before = server.requests
        resumed = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=8)
        # answers the killed process received but had not committed come back from its journal, unsent
        kept += resumed.replayed
        assert resumed.skipped == kept and resumed.sent == 40 - kept
        assert server.requests - sent_before == 40 - kept
        out = outputs(store)
        assert len(out) == 40 and out["pair_id"].is_unique and out["error"].isna().all()
        assert store.query_one("SELECT count(*) FROM (SELECT DISTINCT run_id, pair_id, metric FROM metric_values)") \
            == store.query_one("SELECT count(*) FROM metric_values")


def test_local_only_refuses_public_endpoints():
    with pytest.raises(EndpointRefused, match="no api_base"):
        check_endpoint("gpt-4o", None, local_only=True)
    with pytest.raises(EndpointRefused, match="not a loopback or private"):
        check_endpoint("openai/x", "http://8.8.8.8:8000/v1", local_only=True)
    check_endpoint("openai/x", "http://127.0.0.1:8000/v1", local_only=True)
    check_endpoint("openai/x", "http://10.1.2.3:8000/v1", local_only=True)
    check_endpoint("gpt-4o", None, local_only=False)


def test_local_only_run_is_refused_before_any_request(tmp_path):
    store = make_store(tmp_path, 3)
    with pytest.raises(EndpointRefused):
        run_llm_judge(store, dataset="d", model="gpt-4o", local_only=True)
    assert store.query_one("SELECT count(*) FROM judge_runs") == 0


def test_api_key_never_reaches_store_or_errors(tmp_path):
    key = "sk-" + "radconcord-test-KEY-0123456789abcdef"  # fake; built so no key-shaped literal is tracked
    store = make_store(tmp_path, 4, {0: "MLEAK"})
    with FakeOpenAI(plan={"MLEAK": ["echo401"]}) as server:
        summary = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, api_key=key,
                                max_retries=0)
        assert server.seen_headers and any(key in str(h) for h in server.seen_headers)
    assert summary.failed == 1
    error = outputs(store)["error"].dropna().iloc[0]
    assert "401" in error and key not in error and "[redacted]" in error
    assert key not in json.dumps(summary.to_json())
    assert key.encode() not in store.path.read_bytes()
    wal = store.path.with_suffix(store.path.suffix + ".wal")
    assert not wal.exists() or key.encode() not in wal.read_bytes()


def test_redact_removes_env_secrets(monkeypatch):
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "abcdef123456")
    assert redact("bad key abcdef123456 and sk-ABCDEFGHIJKLMNOP") == "bad key [redacted] and [redacted]"


def test_cost_is_summed_when_known_and_unknown_otherwise(tmp_path):
    store = make_store(tmp_path, 4)
    with FakeOpenAI() as server:
        unknown = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url)
        known = run_llm_judge(store, dataset="d", model="openai/gpt-4o-mini", api_base=server.url)
    assert unknown.to_json()["cost_usd"] is None
    assert known.to_json()["cost_usd"] > 0
    runs = store.query_df("SELECT model, cost_usd FROM judge_runs ORDER BY model")
    costs = dict(zip(runs["model"], runs["cost_usd"], strict=True))
    assert pd.isna(costs[MODEL])
    per_call = store.query_df("SELECT sum(o.cost_usd) AS s FROM judge_outputs o JOIN judge_runs r USING (run_id) "
                              "WHERE r.model = 'openai/gpt-4o-mini'")["s"].iloc[0]
    assert costs["openai/gpt-4o-mini"] == pytest.approx(per_call) and per_call == pytest.approx(known.cost_usd)


def test_cancel_keeps_answers_and_a_rerun_finishes(tmp_path):
    import threading

    store = make_store(tmp_path, 30)
    cancel = threading.Event()
    seen = []

    def progress(done, total, stats):
        seen.append(done)
        if done >= 5:
            cancel.set()

    with FakeOpenAI(latency=0.2) as server:
        first = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=2,
                              progress=progress, cancel=cancel)
        kept = store.query_one("SELECT count(*) FROM judge_outputs")
        assert first.status == "cancelled" and 5 <= kept < 30 and kept == first.ok
        assert store.query_one("SELECT status FROM judge_runs") == "cancelled"
        before = server.requests
        second = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=8)
        assert second.status == "done" and second.skipped == kept and server.requests - before == 30 - kept
    assert store.query_one("SELECT count(*) FROM judge_outputs") == 30
