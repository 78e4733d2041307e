"""A job's progress does not mislead (issue 43, point 9): before its first answer it says it is starting
(a model job: loading the model client), never "0 / 0 answers"; its ETA comes from the rate of answers over
a recent window once enough exist, never from one answer over the start-up time ("ETA 5,989 s" at 1 of
300 when 84 s were left). Measured against a loopback server of known latency."""

from __future__ import annotations

import threading
import time

from core.cli.jobs import progress_cell
from core.cli.judge import progress_line
from core.jobs import table
from core.jobs.eta import STARTING_MODEL, RateWindow
from core.jobs.spec import JobSpec, Task
from core.jobs.worker import run_job
from core.judges.callsettings import CallSettings
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI
from ui.jobs import progress_text


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_no_eta_from_one_answer_after_a_slow_start_and_the_recent_rate_after():
    clock = Clock()
    rate = RateWindow(clock)
    clock.now = 15.0  # the model client took 15 s to load: the first report comes then
    rate.add(0)
    clock.now = 15.5
    rate.add(1)
    assert rate.eta(300) is None  # one answer says nothing (the "ETA 5,989 s")
    for i in range(2, 40):  # then 3.5 answers a second: 300 take about 85 s
        clock.now = 15.5 + (i - 1) / 3.5
        rate.add(i)
    assert abs(rate.eta(300) - (300 - 39) / 3.5) < 3
    for i in range(40, 400):  # the rate doubles: once the window holds only the new rate, so does the estimate
        clock.now += 1 / 7
        rate.add(i)
    assert abs(rate.eta(600) - 201 / 7) < 0.5
    assert "ETA" not in progress_line(1, 300, {"ok": 1}, None) and "ETA about 14 s" in progress_line(199, 300, {}, 14.2)


def test_a_model_job_says_it_is_starting_then_gives_an_eta_close_to_the_truth(tmp_path):
    n, latency, concurrency = 80, 0.3, 2  # about 6.7 answers a second: 12 s
    store = marked_store(tmp_path / "s.duckdb", n)
    with FakeOpenAI(latency=latency) as server:
        spec = JobSpec(dataset="d", tasks=[Task("openai/fake-judge", "green", 0.0)],
                       call=CallSettings(concurrency=concurrency, api_base=server.url, max_retries=0))
        job_id = table.submit(store, spec, origin="dashboard")
        seen: list[tuple[float, dict]] = []
        worker = threading.Thread(target=run_job, args=(store, job_id), daemon=True)
        worker.start()
        while worker.is_alive():
            job = table.get_job(store, job_id)
            seen.append((time.monotonic(), job))
            time.sleep(0.1)
        end = time.monotonic()
        worker.join()
    assert table.get_job(store, job_id)["state"] == "done"
    running = [(t, job) for t, job in seen if job["state"] == "running"]
    before = [progress_text(job) for _, job in running if not job["n_done"]]
    assert before and all(text.startswith(STARTING_MODEL) for text in before), before[:3]
    assert all(progress_cell(job) == STARTING_MODEL for _, job in running if not job["n_done"])
    texts = [progress_text(job) for _, job in running]
    assert not any("0 / 0" in text for text in texts)
    estimates = [(job["eta_seconds"], end - t, job["n_done"]) for t, job in running
                 if table.eta_seconds(job) is not None]
    assert len(estimates) >= 5, texts
    assert min(done for _, _, done in estimates) >= min(5, 0.05 * n)  # never from fewer answers than that
    for eta, truth, done in estimates:  # within a heartbeat plus half of what was truly left (a shared machine)
        assert abs(eta - truth) <= 2.0 + truth / 2, (eta, truth, done)
    assert any("ETA about" in progress_text(job) for _, job in running)
    assert all(", ETA about" in progress_cell(job) for _, job in running if table.eta_seconds(job) is not None)
