"""Durable runs (issue 29), measured where the money goes: the loopback server counts what it was sent.

A full disk and a store held past its patience stop the run at once with every received answer kept
(store + journal), and the resume sends only what was never answered; a SIGKILLed dashboard worker
is shown interrupted and resumes to one output per pair; `cancel` from another terminal stops the
calls; two identical runs are in tests/store/test_faults.py.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from core.jobs import table
from core.judges import journal
from core.store.db import Store
from core.store.integrity import check_store
from tests.cli_inprocess import run_cli
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.faults

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/fake-judge"


def _env(**extra) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), **extra)


def _judge(store: Store, url: str, concurrency: int = 16, **popen) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset", "d", "--judge", MODEL,
           "--api-base", url, "--concurrency", str(concurrency), "--max-retries", "0", "--json"]
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def _answered(store: Store) -> int:
    return store.query_one("SELECT count(*) FROM judge_outputs WHERE error IS NULL")


def _journaled(store: Store) -> int:
    return sum(len(journal.read_records(p)) for p in journal.journal_dir(store).glob("*.jsonl"))


def _one_per_pair(store: Store, n: int) -> None:
    counts = store.query_df("SELECT p.ext_id, count(o.pair_id) AS n FROM pairs p LEFT JOIN judge_outputs o "
                            "USING (pair_id) GROUP BY 1")
    assert len(counts) == n and (counts["n"] == 1).all()
    report = check_store(store.path)
    assert report.ok, report.problems


@pytest.fixture
def small_disk(tmp_path):
    """A 64 MB tmpfs (root only); skipped with the reason where mounting is not permitted."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(folder)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"mount -t tmpfs is not permitted here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path, leave_kib: int) -> Path:
    stat = os.statvfs(folder)
    free_kib = stat.f_bavail * stat.f_frsize // 1024
    filler = folder / "filler"
    subprocess.run(["fallocate", "-l", f"{max(0, free_kib - leave_kib)}k", str(filler)], check=True)
    return filler


def test_full_disk_mid_run_stops_sending_keeps_every_answer_and_the_resume_pays_only_for_the_rest(small_disk):
    n = 2000
    store = marked_store(small_disk / "s.duckdb", n)
    filler = _fill(small_disk, 6 * 1024)  # room for a few hundred answers, not for 2,000
    with FakeOpenAI(latency=0.02) as server:
        proc = _judge(store, server.url)
        out, err = proc.communicate(timeout=300)
        first = server.requests
        assert proc.returncode == 1 and "Traceback" not in err, err[-2000:]
        line = err.strip().splitlines()[-1]
        assert line.startswith("error: could not write the store") and "No space left" in line, line
        assert "kept in the journal" in line and "python -m core resume job-" in line
        assert 0 < first < n  # it stopped early
        assert json.loads(out)["status"] == "failed"
        kept_store, kept_journal = _answered(store), _journaled(store)
        # every answer the server gave is kept: in the store, or in the journal (the journal holds all of
        # them, the stored ones included, until a resume commits them)
        assert kept_journal == first, (first, kept_store, kept_journal)
        assert f"of {first} answers received {kept_store} are in the store" in line

        filler.unlink()  # space again
        proc = _judge(store, server.url)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
        resumed = json.loads(out)
        assert server.requests - first == n - first  # the resume paid only for pairs never answered
        # the journal gave back exactly the answers the store lacked
        assert resumed["replayed"] == first - kept_store and resumed["sent"] == n - first
    _one_per_pair(store, n)
    assert _journaled(store) == 0  # replayed and committed: the journal is gone


def test_a_store_held_past_its_patience_stops_sending_and_the_journal_is_replayed(tmp_path):
    n, patience = 300, 2
    store = marked_store(tmp_path / "s.duckdb", n)
    held, release = threading.Event(), threading.Event()
    with FakeOpenAI(latency=0.1) as server:
        proc = _judge(store, server.url, concurrency=2, env=_env(RADCONCORD_STORE_TIMEOUT=str(patience)))
        deadline = time.monotonic() + 60
        while server.requests < 20:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)

        def reader():  # a dashboard tab left on a long read, say; it may first meet a flush holding the file
            while not release.is_set():
                try:
                    con = duckdb.connect(str(store.path), read_only=True)
                    break
                except duckdb.IOException:
                    time.sleep(0.01)
            else:
                return
            held.set()
            release.wait(300)  # held until the run has ended: it must give up on its own
            con.close()

        t = threading.Thread(target=reader)
        t.start()
        try:
            assert held.wait(30)
            held_at = time.monotonic()
            out, err = proc.communicate(timeout=120)
        finally:
            release.set()
            t.join()
        first = server.requests
        time.sleep(1.0)
        assert server.requests == first  # nothing more was sent once it stopped
        assert proc.returncode == 1, err[-2000:]
        line = err.strip().splitlines()[-1]
        assert f"took no answer for {patience} s" in line and "stayed locked by another connection" in line, line
        assert "kept in the journal" in line, line
        # Stopped within one patience of the oldest answer it could not write, which arrived at most one call
        # (0.1 s) after the file was held (core.judges.patience); 3.5 s more for scheduling under load. A run
        # that went on sending after its write failed would be seen here and by first < n.
        last = max(server.request_times) - held_at
        assert first < n and last < patience + 0.1 + 3.5, (last, first)
        assert _journaled(store) == first  # every paid answer is kept
        kept_store = _answered(store)

        proc = _judge(store, server.url, concurrency=8)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
        assert server.requests == n  # the journaled answers were stored, not sent again
        assert json.loads(out)["replayed"] == first - kept_store
    _one_per_pair(store, n)


class _Holder:
    """A process that holds ``duckdb.connect(path, read_only=True)`` for ``seconds`` once told (a reader
    elsewhere): started ahead, so the hold begins the moment :meth:`hold` is called, not a start-up later."""

    CODE = ("import sys, time, duckdb\nprint('ready', flush=True)\nsys.stdin.readline()\nwhile True:\n"
            "    try:\n        c = duckdb.connect(sys.argv[1], read_only=True)\n        break\n"
            "    except duckdb.IOException:\n        time.sleep(0.01)\n"  # a flush may hold the file a moment
            "print('held', flush=True)\ntime.sleep(float(sys.argv[2]))\nc.close()\n")

    def __init__(self, path: Path, seconds: float):
        self.proc = subprocess.Popen([sys.executable, "-c", self.CODE, str(path), str(seconds)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def hold(self) -> float:
        """Hold the file now; the moment it was held."""
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "held"
        return time.monotonic()


def test_the_store_patience_is_one_wait_for_the_whole_run_not_one_per_writer(tmp_path):
    """Issue 42, item 6: the job's heartbeat met the held store first and waited its patience holding the
    process's write lock; the flusher then waited behind it, then spent a patience of its own, sending all the
    while (30 s patience: the last request 50.7 s into a 60 s hold). Now no request leaves once an answer has
    waited a patience to be written, however the waits are arranged."""
    n, patience, concurrency = 1000, 3, 4
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeOpenAI(latency=0.05) as server:
        proc = _judge(store, server.url, concurrency=concurrency, env=_env(RADCONCORD_STORE_TIMEOUT=str(patience)))
        deadline = time.monotonic() + 60
        while server.requests < 20:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        # no answer for a while (slow calls), so the flusher has nothing to write when the hold begins and the
        # heartbeat meets the held file first; the answers come again 1-2 s into the hold
        holder = _Holder(store.path, 4 * patience)
        server.latency = 2.5
        fast = server.requests  # the requests in before the switch are answered fast
        # the last fast answers are flushed (every 0.5 s): wait until the last of them is 0.8 s old, counted from
        # that answer (a loaded machine may send it late), never from the newest answer (the slow ones keep coming)
        deadline = time.monotonic() + 60
        while len(server.answer_times) < fast or time.monotonic() - server.answer_times[fast - 1] < 0.8:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        held_at = holder.hold()
        server.latency = 0.05
        try:
            out, err = proc.communicate(timeout=120)
        finally:
            holder.proc.wait(60)
        assert proc.returncode == 1, err[-2000:]
        first = server.requests
        answered_at = min(t for t in server.answer_times if t > held_at)  # the first answer the run could not write
        late = [t - answered_at for t in server.request_times if t > answered_at + patience + 0.5]
        # none beyond the calls in flight when the patience ran out (0.5 s: the client's receipt and scheduling)
        assert len(late) <= concurrency, (len(late), max(late))
        line = err.strip().splitlines()[-1]
        assert f"took no answer for {patience} s" in line and "kept in the journal" in line, line
        assert first < n
        assert _journaled(store) == first  # every paid answer is kept: the store's, and the journal's for the rest

        proc = _judge(store, server.url, concurrency=16)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
        assert server.requests == n  # the journaled answers were stored, not sent again
    _one_per_pair(store, n)


def test_cancel_from_another_terminal_stops_the_calls_and_keeps_the_answers(tmp_path):
    n = 200
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeOpenAI(latency=0.2) as server:
        proc = _judge(store, server.url, concurrency=2)
        deadline = time.monotonic() + 60
        while server.requests < 6:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        jobs = table.list_jobs(store)
        assert jobs["state"].tolist() == ["running"] and jobs["origin"].tolist() == ["cli"]
        job_id = jobs["job_id"].iloc[0]
        listed = run_cli("--store", str(store.path), "jobs", env=_env())
        assert job_id in listed.stdout and "running" in listed.stdout
        cancel = run_cli("--store", str(store.path), "cancel", job_id, env=_env())
        assert cancel.returncode == 0 and "cancel requested" in cancel.stdout, cancel.stderr
        cancelled_at = time.monotonic()
        out, err = proc.communicate(timeout=120)
        sent = server.requests
        # stopped: far from the 200 pairs, and nothing sent once a few seconds had passed (the worker checks the
        # store's cancel flag about every second; the slack is for a loaded machine), beyond the calls in flight
        late = [t - cancelled_at for t in server.request_times if t > cancelled_at + 5.0]
        assert sent < n and len(late) <= 2, (sent, late)
    assert proc.returncode == 3 and json.loads(out)["status"] == "cancelled"
    assert table.get_job(store, job_id)["state"] == "cancelled"
    assert _answered(store) == sent  # calls in flight at the cancel finished and were kept


def test_a_killed_dashboard_worker_is_shown_interrupted_and_resumes_to_one_output_per_pair(
        tmp_path, app_test, monkeypatch):
    from tests.apptest_helpers import assert_ok, use_fake_model

    n = 120
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeOpenAI(latency=0.15) as server:
        use_fake_model(monkeypatch, server.url, MODEL)
        at = app_test(store)
        at.switch_page("pages/run.py").run()
        at.multiselect(key="run_judges").set_value([MODEL]).run()
        at.number_input(key="run_concurrency").set_value(2).run()
        at.button(key="run_start").click().run()
        assert_ok(at)
        deadline = time.monotonic() + 60
        while _answered(store) < 10:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        job = table.list_jobs(store).iloc[0]
        assert job["state"] == "running" and job["origin"] == "dashboard"
        os.kill(int(job["pid"]), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while table.get_job(store, job["job_id"])["state"] != "interrupted":
            assert time.monotonic() < deadline, "a dead worker's job still shows as running"
            time.sleep(0.1)
        sent_before = server.requests

        fresh = app_test(store)  # a restarted dashboard: a new server process state, a new session
        fresh.switch_page("pages/run.py").run()
        assert_ok(fresh)
        assert any("Interrupted" in w.value for w in fresh.warning)
        assert any("job(s) interrupted" in c.value for c in fresh.sidebar.caption)
        [resume] = [b for b in fresh.button if b.key == f"job_resume_{job['job_id']}"]
        resume.click().run()
        final = None
        deadline = time.monotonic() + 120
        while final not in table.FINAL:
            assert time.monotonic() < deadline
            time.sleep(0.3)
            final = table.get_job(store, job["job_id"])["state"]
        assert final == "done"
        # the resume sent only pairs without an answer: at most the 2 calls in flight at the kill are paid twice
        assert n <= server.requests <= n + 2, (sent_before, server.requests)
    _one_per_pair(store, n)
    run = store.query_df("SELECT status, n_ok FROM judge_runs").iloc[0]
    assert (run["status"], run["n_ok"]) == ("done", n)
    assert int(table.get_job(store, job["job_id"])["attempts"]) == 2


def test_the_failure_line_counts_the_real_causes(tmp_path):
    """--max-retries 0 against a server answering 429 and 500: the line names both, with counts."""
    faults = ["429"] * 6 + ["500"] * 3 + ["drop"]  # one marker per pair: each fails its only attempt
    markers = {i: f"FAULTMARK{i:02d}X" for i in range(len(faults))}
    store = marked_store(tmp_path / "s.duckdb", 20, markers)
    plan = {markers[i]: [f] for i, f in enumerate(faults)}
    with FakeOpenAI(plan=plan, retry_after=0.01) as server:
        proc = _judge(store, server.url, concurrency=4)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 4, err[-2000:]
    line = err.strip().splitlines()[-1]
    assert "10 of 20 pairs failed" in line, line
    assert "6 × 429 rate limit" in line and "3 × 5xx server error" in line, line
    assert "1 × refused or dropped connection" in line, line
    assert "rate limit" in line.split("most often:")[1]  # the most frequent cause, in plain words
