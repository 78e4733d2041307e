"""A direct run never sends again what a stopped ``--batch`` job left open at the provider (issue 34).

A ``judge --batch`` process is killed while it polls (its batch keeps running at the loopback provider,
tests/fake_openai_batch.py). A plain direct run of the same pairs then sends nothing and stops with one line
naming the job and the way out (exit 5, as for a held lease). ``resume JOB`` collects the batch, after which a
direct run sends nothing and stores nothing new; or ``cancel JOB`` drops the batch, after which a direct run
sends the prompts again (the user chose to).
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from core.jobs import table
from core.judges.batchstore import BatchesOpen, refuse_if_open
from core.judges.leases import RunBusy
from core.store.db import Store
from tests.conftest import marked_store
from tests.fake_openai_batch import FakeBatchServer
from tests.judges.test_batch import PRICED, _cli, _outputs_per_pair

N = 30


def _killed_mid_poll(store: Store, server: FakeBatchServer) -> str:
    """Start ``judge --batch``, kill it once its batch is recorded and has answered a few lines; its job id."""
    proc = _cli(store, "judge", "--dataset", "d", "--judge", PRICED, "--api-base", server.url, "--batch",
                "--batch-poll", "0.2")
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()[-2000:]
        rows = store.query_df("SELECT batch_id, state FROM job_batches")
        if (len(rows) == 1 and rows["batch_id"].notna().all() and rows["state"].iloc[0] == "in_progress"
                and any(b["request_counts"]["completed"] >= 2 for b in server.batches.values())):
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    [job] = table.list_jobs(store).to_dict("records")
    assert job["state"] == "interrupted"
    return job["job_id"]


def _direct(store: Store, server: FakeBatchServer):
    proc = _cli(store, "judge", "--dataset", "d", "--judge", PRICED, "--api-base", server.url, "--json")
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def _outputs(store: Store):
    return store.query_df("SELECT run_id, pair_id, cache_key, raw_text, cost_usd, error FROM judge_outputs "
                          "ORDER BY pair_id, run_id")


@pytest.mark.faults
def test_a_direct_run_stops_at_a_dead_batch_jobs_open_batch_and_sends_nothing_after_its_resume(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", N)
    with FakeBatchServer(line_seconds=0.15) as server:
        job = _killed_mid_poll(store, server)
        code, out, err = _direct(store, server)
        assert code == 5 and out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1, err  # one line: the job, and the way out
        assert f"job {job}" in lines[0] and f"python -m core resume {job}" in lines[0], lines[0]
        assert f"python -m core cancel {job}" in lines[0] and "nothing was sent" in lines[0]
        assert f"{N:,} of these {N:,} prompts" in lines[0]
        assert server.requests == 0 and server.uploads == 1  # not one direct call, no second batch
        assert _outputs(store).empty  # nothing stored either
        assert not store.query_one("SELECT bool_or(collected) FROM job_batches")

        resume = _cli(store, "resume", job, "--json")
        out, err = resume.communicate(timeout=300)
        assert resume.returncode == 0, err[-2000:]
        assert (server.uploads, server.batches_created, server.requests) == (1, 1, 0)
        assert set(_outputs_per_pair(store).values()) == {1}
        before = _outputs(store)

        code, out, err = _direct(store, server)
        assert code == 0, err[-2000:]
        assert json.loads(out)["sent"] == 0 and server.requests == 0  # a direct run now sends nothing
        assert _outputs(store).equals(before)  # and stores nothing new


@pytest.mark.faults
def test_cancel_drops_the_open_batches_and_a_direct_run_then_sends_them(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", N)
    with FakeBatchServer(line_seconds=0.15) as server:
        job = _killed_mid_poll(store, server)
        cancel = _cli(store, "cancel", job)
        out, err = cancel.communicate(timeout=120)
        assert cancel.returncode == 0, err
        assert "1 open provider batch(es) dropped" in out, out
        rows = store.query_df("SELECT collected, n_stored, message FROM job_batches").to_dict("records")
        assert rows == [{"collected": True, "n_stored": 0, "message": "dropped by cancel: not collected"}]
        code, out, err = _direct(store, server)
        assert code == 0, err[-2000:]
        assert json.loads(out)["sent"] == N == server.requests  # sent again, as the user chose
    assert set(_outputs_per_pair(store).values()) == {1}


def test_keys_already_answered_or_in_the_runs_own_batches_are_not_held(tmp_path):
    """The check itself: only keys with no answer, in batches not collected, of another run when a batch run asks."""
    store = marked_store(tmp_path / "s.duckdb", 2)
    refuse_if_open(store, ["k1", "k2"])  # no batch at all: nothing to say
    with store.write("job_version") as conn:
        conn.execute("INSERT INTO job_batches (input_file_id, run_id, job_id, round, state, n_requests, n_bytes, "
                     "keys) VALUES ('file-1', 'run-a', 'job-1', 0, 'in_progress', 2, 10, ['k1', 'k2'])")
    with pytest.raises(BatchesOpen, match=r"2 of these 3 prompts .* job job-1 \(1 batch\(es\): in_progress\)"):
        refuse_if_open(store, ["k1", "k2", "k3"])
    assert issubclass(BatchesOpen, RunBusy)  # exit 5, as a held lease
    refuse_if_open(store, ["k3"])  # not in the batch
    refuse_if_open(store, ["k1", "k2"], own_run="run-a")  # the batch run's own batch: it polls it itself
    pair = store.query_one("SELECT pair_id FROM pairs LIMIT 1")
    with store.write("data_version") as conn:  # k1 answered (by whatever run): only k2 is held
        conn.execute("INSERT INTO judge_runs (run_id, judge_kind, judge_name, dataset, status) "
                     "VALUES ('run-x', 'llm', 'm', 'd', 'done')")
        conn.execute("INSERT INTO judge_outputs (run_id, pair_id, cache_key, raw_text) VALUES ('run-x', ?, 'k1', 'a')",
                     [pair])
    with pytest.raises(BatchesOpen, match=r"^1 of these 2 prompts"):
        refuse_if_open(store, ["k1", "k2"])
    refuse_if_open(store, ["k1"])
    with pytest.raises(BatchesOpen, match="running the same `judge --batch` command again"):
        with store.write("job_version") as conn:
            conn.execute("UPDATE job_batches SET job_id = 'pid-42'")
        refuse_if_open(store, ["k2"])
