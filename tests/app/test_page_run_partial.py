"""A ``partial`` job (some of its tasks did not run) is shown wherever job states are, with its Resume.

The sidebar's indicator counts partial jobs beside the running and interrupted ones, and the Run
page's job panel lists a dataset's older partial and failed jobs with Resume, not only the newest
finished one (shown with its results). The partial job here is a real one: a worker ran its offline
task and refused its model task (local_only with a public endpoint: nothing is sent).
"""

from __future__ import annotations

import time

from core.jobs import table
from core.jobs.spec import JobSpec, Task
from core.jobs.worker import run_job
from core.judges.callsettings import CallSettings
from core.store.db import Store
from tests.apptest_helpers import assert_ok, open_page
from tests.conftest import marked_store
from ui.shared import escape_md

MODEL = "openai/fake-judge"
N = 6


def _partial_job(store: Store) -> str:
    spec = JobSpec("d", [Task("rules"), Task(MODEL, "green")],
                   call=CallSettings(api_base="https://judge.example.invalid/v1", local_only=True))
    job = table.submit(store, spec, origin="dashboard", started_by="ann")
    run_job(store, job)
    row = table.get_job(store, job)
    assert row["state"] == "partial", (row["state"], row["message"])
    return job


def _done_job(store: Store) -> str:
    job = table.submit(store, JobSpec("d", [Task("length")]), origin="cli")
    run_job(store, job)
    assert table.get_job(store, job)["state"] == "done"
    return job


def test_the_sidebar_counts_partial_jobs(tmp_path, app_test):
    store = marked_store(tmp_path / "s.duckdb", N)
    _partial_job(store)
    at = app_test(store)
    at.run()
    assert_ok(at)
    shown = [c.value for c in at.sidebar.caption if "judge job(s)" in c.value]
    assert shown == [":material/warning: 1 judge job(s) partial (some tasks did not run) — resume on Run judges"], \
        shown


def test_an_older_partial_job_keeps_its_resume_on_the_run_page(tmp_path, app_test):
    store = marked_store(tmp_path / "s.duckdb", N)
    older = _partial_job(store)
    time.sleep(0.01)  # created_at orders the jobs
    newer = _done_job(store)
    assert table.list_jobs(store)["job_id"].tolist() == [newer, older]
    at = open_page(app_test, store, "pages/run.py")
    shown = [w.value for w in at.warning if w.value.startswith("Partly done: 1 of 2 tasks ran")]
    assert len(shown) == 1 and escape_md(f"python -m core resume {older}") in shown[0], [w.value for w in at.warning]
    resume = [b for b in at.button if b.key == f"job_resume_{older}"]
    assert len(resume) == 1
    assert not [b for b in at.button if b.key == f"job_resume_{newer}"]  # a done job has nothing to resume

    resume[0].click().run()  # requeued and started in a worker process of its own
    deadline = time.monotonic() + 90
    while (row := table.get_job(store, older))["attempts"] < 2 or row["state"] in table.ACTIVE:
        assert time.monotonic() < deadline, row
        time.sleep(0.2)
    assert row["state"] == "partial"  # the model task is refused again (local_only): resumed, not forgotten
