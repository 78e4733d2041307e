"""Several replicas of one model (issue 34, item 2): calls spread by litellm's Router, a dead replica rests.

Counted where it matters: each replica is a process of its own (tests/fake_replica.py) that logs every
request it received and every answer it wrote, so a SIGKILLed replica's unanswered requests are known.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.judges.llm import GenParams, run_llm_judge
from core.judges.replicas import endpoints
from core.models import configured_models
from tests.cli_inprocess import run_cli
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI
from tests.fake_replica import Replica, free_port, read_log

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/fake-judge"


def test_endpoints_are_read_from_a_list_or_from_urls_separated_by_spaces_or_commas():
    assert endpoints(None) == [] and endpoints("") == []
    assert endpoints("http://a/v1") == ["http://a/v1"]
    assert endpoints("http://a/v1, http://b/v1  http://c/v1") == ["http://a/v1", "http://b/v1", "http://c/v1"]
    assert endpoints(["http://a/v1", "http://b/v1 http://a/v1"]) == ["http://a/v1", "http://b/v1"]


def test_configured_replicas_come_from_the_environment_or_a_list_in_the_secrets():
    env = {"RADCONCORD_MODELS": f"{MODEL},anthropic/claude-3-5-haiku-20241022",
           "RADCONCORD_API_BASE": "http://127.0.0.1:8001/v1 http://127.0.0.1:8002/v1"}
    local, remote = configured_models(env=env)
    assert local.api_base == "http://127.0.0.1:8001/v1" and local.local
    assert local.endpoint == ["http://127.0.0.1:8001/v1", "http://127.0.0.1:8002/v1"]
    assert remote.replicas == () and remote.endpoint is None  # not an OpenAI-compatible entry
    secrets = {"RADCONCORD_API_BASE": ["http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1", "http://10.0.0.3:8000/v1"]}
    [m] = configured_models(env={"RADCONCORD_MODELS": MODEL}, secrets=secrets)
    assert m.endpoint == secrets["RADCONCORD_API_BASE"] and m.local
    [one] = configured_models(env={"RADCONCORD_MODELS": MODEL, "RADCONCORD_API_BASE": "http://127.0.0.1:8001/v1"})
    assert one.replicas == () and one.endpoint == "http://127.0.0.1:8001/v1"


def test_calls_spread_over_replicas_an_unknown_price_stays_unknown_and_the_run_is_the_first_urls(tmp_path):
    import litellm

    n = 60
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeOpenAI(latency=0.05) as a, FakeOpenAI(latency=0.05) as b:
        s = run_llm_judge(store, dataset="d", model=MODEL, api_base=[a.url, b.url], concurrency=6)
        assert (s.status, s.ok, s.failed) == ("done", n, 0)
        assert a.requests + b.requests == n and a.requests > 0 and b.requests > 0
        rows = {r["api_base"]: r for r in s.replicas}
        assert rows[a.url]["ok"] == a.requests and rows[b.url]["ok"] == b.requests
        assert all(r["latency_ms_median"] >= 50 and r["latency_ms_mean"] >= 50 for r in rows.values())
        # an unknown price is unknown, not 0: the Router's zero-price entries were taken out of litellm's table
        assert s.to_json()["cost_usd"] is None and s.cost_total is None
        with pytest.raises(Exception, match="isn.t mapped yet"):  # noqa: B017 (litellm raises a bare Exception)
            litellm.get_model_info(MODEL)
        # the run is the one a single endpoint (the first) would make: a rerun there sends nothing
        again = run_llm_judge(store, dataset="d", model=MODEL, api_base=a.url)
        assert again.run_id == s.run_id and again.sent == 0 and a.requests + b.requests == n


def test_replicas_that_do_not_answer_record_each_pair_as_a_failure_and_the_run_ends(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", 4)
    dead = [f"http://127.0.0.1:{free_port()}/v1", f"http://127.0.0.1:{free_port()}/v1"]
    started = time.monotonic()
    s = run_llm_judge(store, dataset="d", model=MODEL, api_base=dead, max_retries=1, backoff=0.05,
                      params=GenParams(max_tokens=64))
    assert (s.ok, s.failed, s.status) == (0, 4, "done") and time.monotonic() - started < 60
    assert all(r["ok"] == 0 for r in s.replicas) and sum(r["failed"] for r in s.replicas) >= 4


@pytest.mark.faults
def test_three_replicas_one_killed_mid_run_and_restarted(tmp_path):
    """Every pair answered once; the killed replica rests and comes back; the share per replica is reported.

    A request the killed replica received but never answered is sent again to another replica: it is
    counted twice among the requests the servers received (once unanswered), once among the answers,
    and as a failed call of the killed replica in the run's report.
    """
    n = 600
    store = marked_store(tmp_path / "s.duckdb", n)
    replicas = [Replica(free_port(), 0.2, tmp_path / f"r{i}.log").start() for i in range(3)]
    killed = replicas[1]
    try:
        cmd = [sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset", "d", "--judge", MODEL,
               "--concurrency", "9", "--json", *[x for r in replicas for x in ("--api-base", r.url)]]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, PYTHONPATH=str(ROOT)))
        deadline = time.monotonic() + 120
        while killed.received() < 30:
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read() if proc.poll() else ""
            time.sleep(0.05)
        killed.kill()
        down_at = time.monotonic()
        time.sleep(1.5)
        killed.log = tmp_path / "r1-restarted.log"  # the second process of the same replica, same port
        killed.start()
        out, err = proc.communicate(timeout=300)
        run_seconds = time.monotonic() - down_at
    finally:
        for r in replicas:
            r.kill()
    assert proc.returncode == 0, err[-2000:]
    summary = json.loads(out)
    assert (summary["ok"], summary["failed"], summary["status"]) == (n, 0, "done")

    logs = [read_log(tmp_path / name) for name in ("r0.log", "r1.log", "r1-restarted.log", "r2.log")]
    answered = sum((a for _, a in logs), start=type(logs[0][1])())
    received = sum((r for r, _ in logs), start=type(logs[0][0])())
    # every pair answered exactly once by the replicas, none twice
    assert len(answered) == n and set(answered.values()) == {1}
    # what the killed replica received and never answered: re-sent once elsewhere, nothing else sent twice
    lost = set(logs[1][0]) - set(logs[1][1])
    assert len(lost) <= 9  # at most the calls in flight when it died
    assert {d for d, c in received.items() if c > 1} == lost and all(received[d] == 2 for d in lost)
    assert sum(received.values()) == n + len(lost)

    rows = {r["api_base"]: r for r in summary["replicas"]}
    print(f"replicas: {summary['replicas']}; unanswered at the kill: {len(lost)}; run {summary['seconds']} s")
    assert len(rows) == 3
    first, restarted = logs[1][1], logs[2][1]
    for r, (_, ans) in ((replicas[0], logs[0]), (replicas[2], logs[3])):
        assert rows[r.url]["ok"] == sum(ans.values()) and rows[r.url]["failed"] == 0
    back = rows[killed.url]
    assert back["ok"] == sum(first.values()) + sum(restarted.values())
    assert back["failed"] >= len(lost) and back["out_of_rotation"] >= 1  # taken out of rotation...
    assert sum(restarted.values()) > 0, (run_seconds, back)  # ...and brought back once it answered again
    assert sum(r["ok"] for r in rows.values()) == n
    answers = store.query_df("SELECT count(*) AS n, count(DISTINCT pair_id) AS pairs FROM judge_outputs "
                             "WHERE error IS NULL").iloc[0]
    assert (answers["n"], answers["pairs"]) == (n, n)
    listed = run_cli("--store", str(store.path), "jobs", "--json")
    results = json.loads(json.loads(listed.stdout)[0]["results"])
    assert all(r.url in results[0]["replicas"] for r in replicas)  # the share per replica, in the job's results


def test_batch_and_replicas_are_refused_for_a_prompt_with_its_own_runner_from_any_caller(demo_store_copy):
    """The dashboard's jobs reach run_judge without the CLI's check: LAIas' own runner takes neither a batch
    nor a list of endpoints, so both are refused there in one line, before anything is stored or sent."""
    from core.judges.registry import run_judge

    runs = demo_store_copy.query_one("SELECT count(*) FROM judge_runs")
    for extra in ({"batch": {}}, {"api_base": ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]}):
        with pytest.raises(ValueError, match="several --api-base and --batch run the plain model judge; openai/x on "
                                             "this dataset/prompt runs core.checks.adversarial:run_laias_judge"):
            run_judge(demo_store_copy, dataset="demo", judge="openai/x", prompt_id="laias_judge", **extra)
    assert demo_store_copy.query_one("SELECT count(*) FROM judge_runs") == runs
