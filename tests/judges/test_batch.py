"""``judge --batch`` (issue 34, item 1) against a loopback server with the files and batches endpoints.

The server (tests/fake_openai_batch.py) counts what it receives: files uploaded, batches created, each
line (by custom_id = cache key) and direct calls, so "nothing sent twice" and "a direct re-run sends
nothing" are measured where the money would go.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.jobs import table
from core.judges import journal
from core.judges.batch import BatchOptions, batch_problem
from core.judges.batchfiles import read_result, request_line, split_files
from core.judges.llm import GenParams, run_llm_judge
from core.store.db import Store
from core.store.integrity import check_store
from tests.cli_inprocess import run_cli
from tests.conftest import marked_store
from tests.fake_openai_batch import FakeBatchServer

ROOT = Path(__file__).resolve().parents[2]
PRICED = "openai/gpt-4o-mini"  # in litellm's price table, with batch prices (half the direct ones)
BATCH_IN, BATCH_OUT = 7.5e-08, 3e-07  # its input_cost_per_token_batches / output_cost_per_token_batches
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _cli(store: Store, *args: str, **popen):
    return subprocess.Popen([sys.executable, "-m", "core", "--store", str(store.path), *args], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def _outputs_per_pair(store: Store) -> dict[str, int]:
    df = store.query_df("SELECT p.ext_id, count(o.pair_id) AS n FROM pairs p LEFT JOIN judge_outputs o USING (pair_id) "
                        "GROUP BY 1")
    return dict(zip(df["ext_id"], df["n"], strict=True))


# -- files ---------------------------------------------------------------------------------


def test_lines_are_cut_into_files_at_the_request_and_byte_limits():
    lines = [(f"k{i}", b"x" * (10 + i % 3) + b"\n") for i in range(25)]
    files, too_big = split_files(lines, max_requests=10, max_bytes=10_000)
    assert [len(f) for f in files] == [10, 10, 5] and too_big == []
    files, _ = split_files(lines, max_requests=1000, max_bytes=40)  # 11-13 bytes a line: 3 lines a file
    assert all(sum(len(x) for _, x in f) <= 40 for f in files) and sum(len(f) for f in files) == 25
    assert [k for f in files for k, _ in f] == [k for k, _ in lines]  # order kept, nothing lost
    files, too_big = split_files([("a", b"1\n"), ("big", b"x" * 50 + b"\n"), ("b", b"2\n")], 10, 20)
    assert too_big == ["big"] and [[k for k, _ in f] for f in files] == [["a", "b"]]
    with pytest.raises(ValueError):
        split_files(lines, max_requests=0)


def test_a_request_line_is_the_body_a_direct_call_sends_under_its_cache_key():
    line = json.loads(request_line("KEY", "gpt-4o-mini", [{"role": "user", "content": "é"}],
                                   GenParams(temperature=0.2, max_tokens=99, reasoning_effort="low")))
    assert line == {"custom_id": "KEY", "method": "POST", "url": "/v1/chat/completions",
                    "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "é"}],
                             "temperature": 0.2, "max_tokens": 99, "reasoning_effort": "low"}}


def test_result_lines_are_answers_or_failures_worth_sending_again_or_not():
    ok = read_result({"custom_id": "a", "response": {"status_code": 200, "body": {
        "choices": [{"message": {"content": "text"}}], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}}})
    assert (ok.key, ok.text, ok.tokens_in, ok.tokens_out, ok.error) == ("a", "text", 7, 3, None)
    server = read_result({"custom_id": "b", "response": {"status_code": 500, "body": {"error": {"message": "boom"}}}})
    assert server.retry and "HTTP 500" in server.error and "boom" in server.error
    bad = read_result({"custom_id": "c", "response": {"status_code": 400, "body": {"error": {"message": "too long"}}}})
    assert not bad.retry and "too long" in bad.error
    expired = read_result({"custom_id": "d", "response": None, "error": {"code": "batch_expired", "message": "late"}})
    assert expired.retry and "batch_expired" in expired.error
    refused = read_result({"custom_id": "e", "response": None, "error": {"code": "invalid_request", "message": "no"}})
    assert not refused.retry


def test_bad_options_and_providers_without_a_batch_api_are_refused_in_one_line():
    with pytest.raises(ValueError, match="retry must be one of batch, direct"):
        BatchOptions.from_dict({"retry": "later"})
    with pytest.raises(ValueError, match="max_rounds"):
        BatchOptions.from_dict({"max_rounds": 0})
    assert batch_problem("openai/gpt-4o-mini", None) is None
    assert batch_problem("openai/anything", "http://127.0.0.1:9/v1") is None
    problem = batch_problem("anthropic/claude-3-5-haiku-20241022", None)
    assert "served by anthropic" in problem and "\n" not in problem


def test_the_cli_refuses_batch_with_an_offline_judge_or_several_endpoints(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", 3)
    for args, words in ((["--judge", "rules", "--batch"], "offline judge"),
                        (["--judge", PRICED, "--batch", "--api-base", "http://127.0.0.1:9/v1", "--api-base",
                          "http://127.0.0.1:10/v1"], "one --api-base"),
                        (["--judge", "anthropic/claude-3-5-haiku-20241022", "--batch"], "served by anthropic")):
        proc = run_cli("--store", str(store.path), "judge", "--dataset", "d", *args)
        err = proc.stderr
        assert proc.returncode == 1 and err.count("\n") == 1 and words in err, err
    assert table.list_jobs(store).empty  # refused before any job exists


# -- runs ------------------------------------------------------------------------------------


def test_batch_answers_are_stored_as_direct_answers_at_half_the_price_and_a_direct_rerun_sends_nothing(tmp_path):
    n = 40
    batch_store = marked_store(tmp_path / "b.duckdb", n)
    direct_store = marked_store(tmp_path / "d.duckdb", n)
    with FakeBatchServer() as server:
        s = run_llm_judge(batch_store, dataset="d", model=PRICED, api_base=server.url,
                          batch={"poll_seconds": 0.1, "max_requests": 15})
        assert (s.status, s.ok, s.failed, s.sent) == ("done", n, 0, n)
        assert (server.uploads, server.batches_created, server.requests) == (3, 3, 0)  # 15 + 15 + 10 lines
        direct = run_llm_judge(direct_store, dataset="d", model=PRICED, api_base=server.url)
        assert direct.sent == n and server.requests == n
        again = run_llm_judge(batch_store, dataset="d", model=PRICED, api_base=server.url)
        assert (again.sent, again.skipped, server.requests) == (0, n, n)  # the direct re-run sent nothing
    cols = "p.ext_id, o.cache_key, o.raw_text, o.parse_status, o.tokens_in, o.tokens_out, o.cost_usd"
    sql = f"SELECT {cols} FROM judge_outputs o JOIN pairs p USING (pair_id) ORDER BY p.ext_id"
    b, d = batch_store.query_df(sql), direct_store.query_df(sql)
    same = ["ext_id", "cache_key", "raw_text", "parse_status", "tokens_in", "tokens_out"]
    assert b[same].equals(d[same])  # the same answer under the same key, parsed the same way
    expected = b["tokens_in"] * BATCH_IN + b["tokens_out"] * BATCH_OUT
    assert b["cost_usd"].tolist() == pytest.approx(expected.tolist(), rel=1e-12)
    assert b["cost_usd"].tolist() == pytest.approx((d["cost_usd"] / 2).tolist(), rel=1e-9)  # half the direct price
    assert s.cost_usd == pytest.approx(float(expected.sum())) and s.cost_total == pytest.approx(s.cost_usd)
    metrics = "SELECT p.ext_id, m.metric, m.value FROM metric_values m JOIN pairs p USING (pair_id) ORDER BY 1, 2"
    assert batch_store.query_df(metrics).equals(direct_store.query_df(metrics))
    assert not list(journal.journal_dir(batch_store).glob("*.jsonl"))  # committed: the journal is gone


def test_with_direct_retry_what_an_expired_batch_left_goes_as_direct_calls(tmp_path):
    n = 20
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeBatchServer(expire_after={0: 12}) as server:
        s = run_llm_judge(store, dataset="d", model=PRICED, api_base=server.url,
                          batch={"poll_seconds": 0.1, "retry": "direct"})
        assert (s.status, s.ok, s.failed) == ("done", n, 0)
        assert (server.uploads, server.batches_created, server.requests) == (1, 1, n - 12)
    costs = store.query_df("SELECT tokens_in, tokens_out, cost_usd FROM judge_outputs ORDER BY cost_usd")
    batch_priced = (costs["cost_usd"] - (costs["tokens_in"] * BATCH_IN + costs["tokens_out"] * BATCH_OUT)).abs() < 1e-15
    assert int(batch_priced.sum()) == 12  # the 8 direct answers are priced as direct calls
    assert set(_outputs_per_pair(store).values()) == {1}


def test_an_unknown_price_is_unknown_and_a_cancel_cancels_the_batches_and_keeps_what_they_answered(tmp_path):
    import threading

    n = 30
    store = marked_store(tmp_path / "s.duckdb", n)
    cancel = threading.Event()
    with FakeBatchServer(line_seconds=0.2) as server:  # 6 s for the batch: the cancel comes first

        def cancel_soon():
            deadline = time.monotonic() + 60
            while not any(b["request_counts"]["completed"] >= 3 for b in server.batches.values()):
                if time.monotonic() > deadline:
                    return
                time.sleep(0.05)
            cancel.set()

        threading.Thread(target=cancel_soon, daemon=True).start()
        s = run_llm_judge(store, dataset="d", model="openai/fake-judge", api_base=server.url, cancel=cancel,
                          batch={"poll_seconds": 0.1})
        assert server.cancels == 1 and s.status == "cancelled"
        assert 3 <= s.ok < n and s.failed == 0 and s.to_json()["cost_usd"] is None  # unknown, never 0
        rows = store.query_df("SELECT state, n_stored, collected FROM job_batches")
        assert rows.to_dict("records") == [{"state": "cancelled", "n_stored": s.ok, "collected": True}]
        stored = store.query_df("SELECT cost_usd FROM judge_outputs WHERE error IS NULL")
        assert len(stored) == s.ok and stored["cost_usd"].isna().all()
        # the rest is sent by the next run (here: directly): every pair ends with one answer
        rest = run_llm_judge(store, dataset="d", model="openai/fake-judge", api_base=server.url)
        assert rest.sent == n - s.ok == server.requests
    assert set(_outputs_per_pair(store).values()) == {1}


@pytest.mark.faults
@pytest.mark.parametrize("made", [True, False], ids=["batch-made-meanwhile", "batch-never-made"])
def test_a_process_killed_between_upload_and_batch_creation_is_resumed_without_a_second_upload(tmp_path, made):
    """The file is recorded before the batch is asked for: the resume finds the batch the provider made from it,
    or makes one from the recorded file; nothing is uploaded or created twice."""
    import threading

    n = 30
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeBatchServer() as server:
        hold = threading.Event()
        server.hold_create = hold
        proc = _cli(store, "judge", "--dataset", "d", "--judge", PRICED, "--api-base", server.url, "--batch",
                    "--batch-poll", "0.2")
        deadline = time.monotonic() + 120
        while server.holding < 1:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()[-2000:]
            time.sleep(0.05)
        row = store.query_df("SELECT state, batch_id, n_requests FROM job_batches").to_dict("records")
        assert row == [{"state": "creating", "batch_id": None, "n_requests": n}]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        server.refuse_held = not made
        hold.set()  # the held request goes on: the provider makes the batch after all (or refuses it)
        [job] = table.list_jobs(store)["job_id"].tolist()
        deadline = time.monotonic() + 30
        while made and server.batches_created < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        resume = run_cli("--store", str(store.path), "resume", job, "--json")
        err = resume.stderr
        assert resume.returncode == 0, err[-2000:]
        assert (server.uploads, server.batches_created, server.requests) == (1, 1, 0)
    assert set(_outputs_per_pair(store).values()) == {1}
    rows = store.query_df("SELECT state, collected, n_stored FROM job_batches").to_dict("records")
    assert rows == [{"state": "completed", "collected": True, "n_stored": n}]


@pytest.mark.faults
def test_2000_pairs_in_batches_survive_a_restart_an_expired_batch_and_failed_lines(tmp_path):
    n = 2000
    # pairs are sent in ext_id order (p000, p001, ..., p099, p100, p1000, ...): markers placed by that position
    order = [int(x[1:]) for x in sorted(f"p{i:03d}" for i in range(n))]
    retried = {order[k]: f"RETRYMARK{k}X" for k in (10, 20, 1200, 1990)}  # a 500, then fine
    refused = {order[k]: f"BADMARK{k}X" for k in (30, 1300, 1950, 750)}  # a 400, then fine if asked again
    store = marked_store(tmp_path / "s.duckdb", n, {**retried, **refused})
    plan = {**{m: ["500"] for m in retried.values()}, **{m: ["400", "ok"] for m in refused.values()}}
    # 500 lines a file: 4 batches; the second expires after 200 of its lines (positions 700-999 never reached,
    # the refused one at 750 among them: its 400 comes in the second round)
    with FakeBatchServer(line_seconds=0.006, plan=plan, expire_after={1: 200}) as server:
        proc = _cli(store, "judge", "--dataset", "d", "--judge", PRICED, "--api-base", server.url, "--batch",
                    "--batch-max-requests", "500", "--batch-poll", "0.3", "--json")
        deadline = time.monotonic() + 180
        while True:  # wait until the four batches are recorded and being polled, then kill the process
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()[-2000:]
            rows = store.query_df("SELECT batch_id, state FROM job_batches")
            if len(rows) == 4 and rows["batch_id"].notna().all() and rows["state"].isin(["in_progress"]).any():
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert (server.uploads, server.batches_created) == (4, 4)
        [job] = table.list_jobs(store).to_dict("records")
        listed = run_cli("--store", str(store.path), "jobs")
        out = listed.stdout
        assert job["state"] == "interrupted" and "interrupted" in out and "batches: " in out, out

        resume = run_cli("--store", str(store.path), "resume", job["job_id"], "--json")
        err = resume.stderr
        assert resume.returncode == 0, err[-2000:]
        # the recorded batches were polled, not sent again: one more file, of the lines to send again
        assert (server.uploads, server.batches_created, server.requests) == (5, 5, 0)
        again = {k for k, c in server.batch_lines.items() if c == 2}
        assert max(server.batch_lines.values()) == 2 and len(server.batch_lines) == n
        assert len(again) == 300 + len(retried)  # the expired batch's 300 unreached lines, and the four 500s
        # every pair: one output or one recorded failure
        assert set(_outputs_per_pair(store).values()) == {1}
        failures = store.query_df("SELECT p.ext_id, o.error FROM judge_outputs o JOIN pairs p USING (pair_id) "
                                  "WHERE o.error IS NOT NULL ORDER BY 1")
        assert failures["ext_id"].tolist() == sorted(f"p{i:03d}" for i in refused)
        assert failures["error"].str.contains("HTTP 400").all()
        rows = store.query_df("SELECT round, state, n_requests, n_stored, collected FROM job_batches ORDER BY "
                              "created_at, input_file_id")
        assert rows["collected"].all() and rows["round"].tolist() == [0, 0, 0, 0, 1]
        assert sorted(rows["state"]) == ["completed"] * 4 + ["expired"] and rows["n_stored"].sum() == n - 4
        # cost at the batch price, each answer and the run's total
        answers = store.query_df("SELECT tokens_in, tokens_out, cost_usd FROM judge_outputs WHERE error IS NULL")
        expected = answers["tokens_in"] * BATCH_IN + answers["tokens_out"] * BATCH_OUT
        assert answers["cost_usd"].tolist() == pytest.approx(expected.tolist(), rel=1e-12)
        run = store.query_df("SELECT status, n_ok, n_failed, cost_usd FROM judge_runs").iloc[0]
        assert (run["status"], run["n_ok"], run["n_failed"]) == ("done", n - 4, 4)
        assert run["cost_usd"] == pytest.approx(float(expected.sum()))
        listed = run_cli("--store", str(store.path), "jobs")
        out = listed.stdout
        assert "done" in out and "batches: 4 completed, 1 expired; lines" in out, out

        # a direct re-run sends only the recorded failures (as any re-run does), none of the batch answers
        direct = run_cli("--store", str(store.path), "judge", "--dataset", "d", "--judge", PRICED, "--api-base", server.url, "--json")
        out, err = direct.stdout, direct.stderr
        assert direct.returncode == 0 and server.requests == 4, err[-2000:]
        direct = run_cli("--store", str(store.path), "judge", "--dataset", "d", "--judge", PRICED, "--api-base", server.url, "--json")
        out, err = direct.stdout, direct.stderr
        assert direct.returncode == 0 and server.requests == 4 and json.loads(out)["sent"] == 0
    assert not list(journal.journal_dir(store).glob("*.jsonl"))
    report = check_store(store.path)
    assert report.ok, report.problems


def test_only_errors_a_call_would_retry_keep_a_batch_polled():
    """A provider error is worth polling again by the gateway's rule: a dropped connection or a retryable
    status; an error with no status that is no connection problem (a bug, a malformed answer) is not polled
    forever."""
    from core.judges.batch import transient

    class Status(Exception):
        def __init__(self, code):
            self.status_code = code

    assert transient(ConnectionError("reset")) and transient(TimeoutError()) and transient(Status(429))
    assert not transient(Status(404)) and not transient(AttributeError("'NoneType' has no attribute 'id'"))
