"""A job's state and counters tell the truth about its tasks (issue 42, item 7).

A dashboard job (a model and three offline judges) whose model task was refused as busy, because a CLI
run was sending the same prompts, ended ``done 9000/12000``; after a resume killed early, ``jobs``
showed 0/0 and $0 though 150 answers were stored. Now such a job ends ``partial`` with the reason, in
``jobs``, the Run page and the job's message, and a resume's counters start from the store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from core.jobs import table
from core.jobs.spec import JobSpec, Task
from core.judges.callsettings import CallSettings
from core.judges.localserver import stop_defaults
from core.store.db import Store
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/fake-judge"
PRICED = "openai/gpt-4o-mini"  # in litellm's price table: the answers have a cost


def _cli(store: Store, *args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "core", "--store", str(store.path), *args], cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


def _run(store: Store, *args: str) -> subprocess.CompletedProcess:
    proc = _cli(store, *args)
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _wait(condition, timeout: float = 60.0, what: str = "") -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            assert not what, f"timed out waiting for {what}"
            return False
        time.sleep(0.05)
    return True


def _refused_busy(store: Store, server: FakeOpenAI, offline: list[str]) -> tuple[str, str, object, int]:
    """A dashboard job (the model, then the ``offline`` judges) run while a slow CLI run sends the model's
    prompts, the CLI run then cancelled: (job, the CLI's job, the worker's completed process, requests sent
    by the time the worker ended)."""
    cli = _cli(store, "judge", "--dataset", "d", "--judge", MODEL, "--api-base", server.url, "--concurrency",
               "1")  # a CLI run sending the model's prompts, slowly: it holds their leases
    _wait(lambda: server.requests >= 1, what="the CLI run to send")
    cli_job = table.list_jobs(store)["job_id"].iloc[0]
    stop = stop_defaults(server.url, "green", None)  # as the Run page builds the task for a local server
    spec = JobSpec("d", [Task(MODEL, "green", stop=stop), *[Task(j) for j in offline]],
                   call=CallSettings(api_base=server.url))
    job = table.submit(store, spec, origin="dashboard", started_by="ann")
    worker = _run(store, "worker", job)  # what the dashboard starts for the job
    sent = server.requests
    table.request_cancel(store, cli_job)
    cli.communicate(timeout=60)
    return job, cli_job, worker, sent


def test_a_job_whose_model_task_is_refused_busy_ends_partial_with_the_reason(tmp_path, app_test):
    n = 60
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeOpenAI(latency=2.0) as server:
        job, cli_job, worker, sent = _refused_busy(store, server, ["rules", "lexical", "length"])
    assert sent < n  # the CLI run was still sending while the job ran
    row = table.get_job(store, job)
    assert row["state"] == "partial", (row["state"], row["message"])
    message = row["message"]
    assert message.startswith("3 of 4 tasks ran; not run: openai/fake-judge · green: busy"), message
    assert f"being sent now by job {cli_job}" in message and f"python -m core resume {job}" in message
    assert (row["n_done"], row["n_total"]) == (3 * n, 4 * n)  # the three offline judges, no more
    assert worker.returncode == 5 and f"error: {message}" in worker.stderr  # busy: exit 5, as `judge`
    statuses = [r["status"] for r in json.loads(row["results"])]
    assert statuses == ["busy", "done", "done", "done"]

    listed = _run(store, "jobs")
    assert f"note: job {job} is partial: 3 of 4 tasks ran" in listed.stderr, listed.stderr
    assert job in listed.stdout and "partial" in listed.stdout

    at = app_test(store)
    at.switch_page("pages/run.py").run()
    shown = [w.value for w in at.warning if "Partly done" in w.value]
    assert shown and "3 of 4 tasks ran" in shown[0] and "busy" in shown[0], [w.value for w in at.warning]
    assert any(b.key == f"job_resume_{job}" for b in at.button)


def test_resume_of_a_partial_job_runs_the_task_that_did_not_run(tmp_path):
    n = 20
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeOpenAI(latency=1.0) as server:
        job, _, _, _ = _refused_busy(store, server, ["rules"])
        assert table.get_job(store, job)["state"] == "partial"
        before = server.requests
        resumed = _run(store, "resume", job)
        sent = server.requests - before
    assert resumed.returncode == 0, resumed.stderr
    row = table.get_job(store, job)
    assert (row["state"], row["n_done"], row["n_total"]) == ("done", 2 * n, 2 * n), (row["state"], row["message"])
    assert [r["status"] for r in json.loads(row["results"])] == ["done", "done"]
    model_run = store.query_one("SELECT run_id FROM judge_runs WHERE judge_kind <> 'rules' AND run_id IN "
                                "(SELECT unnest(?))", [[r["run_id"] for r in json.loads(row["results"])]])
    answered = store.query_one("SELECT count(DISTINCT pair_id) FROM judge_outputs WHERE run_id = ? AND error IS NULL",
                               [model_run])
    assert answered == n  # every pair has the model's answer now
    assert 0 < sent <= n  # the pairs the cancelled CLI run had not answered, each sent once at most


def test_a_resume_killed_early_shows_the_answers_and_cost_its_runs_hold(tmp_path):
    n = 200
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeOpenAI(latency=0.1) as server:
        first = _cli(store, "judge", "--dataset", "d", "--judge", PRICED, "--api-base", server.url,
                     "--concurrency", "2")
        _wait(lambda: store.query_one("SELECT count(*) FROM judge_outputs") >= 40, what="40 stored answers")
        job = table.list_jobs(store)["job_id"].iloc[0]
        run_id = store.query_one("SELECT run_id FROM judge_runs")
        # while it runs, the job notes its run (a process killed now leaves it for the resume); asserted below
        noted = _wait(lambda: run_id in str(table.get_job(store, job)["results"]), 10)
        table.request_cancel(store, job)
        first.communicate(timeout=60)
        assert first.returncode == 3
        ok, cost = store.query_df("SELECT count(*) AS ok, sum(cost_usd) AS cost FROM judge_outputs "
                                  "WHERE error IS NULL").iloc[0]
        ok, cost = int(ok), float(cost)
        assert 40 <= ok < n and cost > 0

        resume = _cli(store, "resume", job)

        def first_beat() -> bool:
            row = table.get_job(store, job)
            return row["pid"] == resume.pid and row["heartbeat_at"] > row["started_at"]

        _wait(first_beat, what="the resume's first heartbeat")
        resume.kill()  # early: before its run has reported anything
        resume.wait(30)
    row = table.get_job(store, job)
    assert row["state"] == "interrupted"
    assert store.query_one("SELECT count(*) FROM judge_outputs WHERE error IS NULL") == ok  # nothing new stored
    assert (row["n_done"], row["n_ok"], row["n_total"]) == (ok, ok, n)
    assert row["cost_usd"] == pytest.approx(cost)
    listed = _run(store, "jobs", "--json")
    shown = pd.DataFrame(json.loads(listed.stdout)).set_index("job_id").loc[job]
    assert (shown["n_ok"], shown["n_total"]) == (ok, n) and shown["cost_usd"] == pytest.approx(cost)
    text = _run(store, "jobs").stdout
    assert f"{ok:,}/{n:,}" in text and f"${cost:,.4f}" in text, text
    assert noted
