"""Durable judge jobs in a real browser: `python serve.py` + headless Debian Chromium, a real DuckDB store
file, and (for model runs) tests/fake_openai.py's loopback server.

A run started on the Run page is a job of the store run by a worker process of its own, so a reload
of the page neither stops it nor loses it: the reloaded page finds the job in its "Jobs" section (the
progress read from the store) and can cancel it, or watch it finish.

- a model run cancelled from the reloaded page: the server stops receiving requests within 2 s, the
  job ends ``cancelled`` and every answer the server gave is kept in the store (none lost, none extra);
- a model run reloaded mid-run and left to finish: exactly one answer per pair, one request each;
- an offline run of three judges on a bigger store, reloaded mid-run: every judge completes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path

import pytest

from core.store.db import Store
from tests.app.test_browser import serve_dashboard
from tests.chromium import chromium_browser
from tests.cli_inprocess import run_cli
from tests.conftest import copy_store
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/fake-judge"
UI_TIMEOUT_MS = 60_000
LATENCY = 0.2  # seconds per answer: at concurrency 1, 120 pairs take > 24 s
QUIET_S = 1.5  # the status widget absent this long: the script run for this view is over
BIG_PAIRS = 3200  # offline judges take ~3 s per 1,000 pairs each here: a few seconds per judge
ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}


# -- helpers ------------------------------------------------------------------------------------


def _cli(store_path: Path, *args: str) -> str:
    """``python -m core --store PATH ARGS``, in this process (tests/cli_inprocess.py); its stdout (fails the test
    on a non-zero exit)."""
    done = run_cli("--store", str(store_path), *args, env={**os.environ, **ENV})
    assert done.returncode == 0, f"python -m core {' '.join(args)}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _jobs(store_path: Path) -> list[dict]:
    """The store's jobs as ``python -m core jobs --json`` lists them (state as it is now), newest first."""
    return json.loads(_cli(store_path, "jobs", "--json", "--all"))


def _job_now(store_path: Path) -> dict | None:
    """The newest job, read in this process (the same reads `jobs` makes; quicker to poll)."""
    from core.jobs.table import list_jobs

    jobs = list_jobs(Store(store_path), limit=1)
    return jobs.iloc[0].to_dict() if len(jobs) else None


def _wait_for(what: str, check, timeout: float, every: float = 0.1):
    """Poll ``check()`` until it returns something truthy; that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(every)


@contextlib.contextmanager
def _stopping_jobs(store_path: Path):
    """Cancel (store flag + SIGTERM to its own pid) any job of this store still active when the test ends,
    so a failing test leaves no worker process behind."""
    try:
        yield
    finally:
        from core.jobs.launch import signal_cancel
        from core.jobs.table import ACTIVE, list_jobs, request_cancel

        with contextlib.suppress(Exception):
            store = Store(store_path)
            for job in list_jobs(store, limit=None).to_dict("records"):
                if job["state"] in ACTIVE:
                    signal_cancel(request_cancel(store, job["job_id"]))


def _settle(page) -> None:
    """The page is drawn: the sidebar's page list is there and the status widget (a script run) has been
    absent for QUIET_S seconds."""
    page.get_by_test_id("stSidebarNav").wait_for(timeout=UI_TIMEOUT_MS)
    status = page.get_by_test_id("stStatusWidget")
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < QUIET_S:
        assert time.monotonic() < deadline, "the page never stopped running its script"
        if status.count() and status.first.is_visible():
            quiet_since = time.monotonic()
        page.wait_for_timeout(100)


def _no_exception(page) -> None:
    boxes = page.get_by_test_id("stException")
    assert boxes.count() == 0, boxes.first.inner_text()


def _open_run_page(page, base: str):
    from playwright.sync_api import expect

    page.goto(f"{base}/run?dataset=demo", wait_until="domcontentloaded")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Run judges", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    _settle(page)
    _no_exception(page)
    return main


def _judges(page, main, *wanted: str) -> None:
    """Pick exactly ``wanted`` in the "Judges" multiselect (the page starts with ``rules``)."""
    from playwright.sync_api import expect

    box = main.get_by_test_id("stMultiSelect").filter(has=page.get_by_role("combobox", name="Judges"))
    for judge in wanted:
        if box.get_by_role("button", name=f"Remove {judge}").count():
            continue
        box.get_by_role("combobox", name="Judges").click()
        page.get_by_role("option", name=judge, exact=True).click()
        page.keyboard.press("Escape")
        expect(box.get_by_role("button", name=f"Remove {judge}")).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
    if "rules" not in wanted:
        box.get_by_role("button", name="Remove rules").click()
        expect(box.get_by_role("button", name="Remove rules")).to_have_count(0, timeout=UI_TIMEOUT_MS)
        _settle(page)
    chosen = [t.get_attribute("aria-label") for t in box.locator("[data-tag]").all()]
    assert sorted(chosen) == sorted(wanted), chosen
    _no_exception(page)


def _concurrency(page, main, n: int) -> None:
    from playwright.sync_api import expect

    field = main.get_by_role("spinbutton", name="Concurrent calls")
    field.fill(str(n))
    field.press("Enter")
    _settle(page)
    expect(field).to_have_value(str(n))


def _start(page, main, store_path: Path) -> dict:
    """Click Start run; the job the page submitted (once its worker has claimed it)."""
    from playwright.sync_api import expect

    expect(main.get_by_text("Estimated cost")).to_be_visible(timeout=UI_TIMEOUT_MS)
    assert _job_now(store_path) is None
    main.get_by_role("button", name="Start run").click()
    return _wait_for("the job to start running", lambda: (j := _job_now(store_path)) and j["state"] == "running"
                     and j, timeout=60)


def _model_server(store_path: Path, tmp_path: Path, fake: FakeOpenAI):
    """The dashboard over ``store_path`` with the fake model configured (the worker inherits this env)."""
    return serve_dashboard(store_path, tmp_path, env={"RADCONCORD_MODELS": MODEL, "RADCONCORD_API_BASE": fake.url,
                                                      "RADCONCORD_LOCAL_ONLY": "false", "HOME": str(tmp_path)})


def _model_run_id(store: Store) -> str:
    runs = store.query_df("SELECT run_id FROM judge_runs WHERE model = ?", [MODEL])
    assert len(runs) == 1, runs
    return runs["run_id"].iloc[0]


def _reload_and_find_job(page, job: dict, total: int):
    """Reload the page; the job's line, progress text and buttons as the reloaded page shows them."""
    from playwright.sync_api import expect

    page.reload(wait_until="domcontentloaded")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Run judges", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(main.get_by_role("heading", name="Jobs", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    _settle(page)  # the job panel's polling (a fragment) does not keep the status widget up
    expect(main.get_by_text(job["job_id"])).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(page.get_by_test_id("stSidebar").get_by_text("1 judge job(s) running")).to_be_visible()
    progress = main.get_by_test_id("stProgress").filter(has_text=f" / {total:,} answers")
    expect(progress).to_be_visible(timeout=UI_TIMEOUT_MS)
    text = progress.inner_text()
    assert re.search(rf"\d[\d,]* / {total:,} answers · ok \d[\d,]* · failed 0 · sent \d[\d,]* · ", text), text
    _no_exception(page)
    return main, text


def _answers_shown(main, total: int) -> int:
    """The answers done as the page's progress bar says now."""
    text = main.get_by_test_id("stProgress").filter(has_text=f" / {total:,} answers").inner_text()
    return int(re.search(rf"([\d,]+) / {total:,} answers", text).group(1).replace(",", ""))


@contextlib.contextmanager
def _model_run_page(store: Store, tmp_path: Path):
    """A fake model, the dashboard on ``store`` (its jobs stopped at the end) and a browser on the Run page
    with that model chosen at concurrency 1: ``(fake, page, main)``."""
    with FakeOpenAI(latency=LATENCY) as fake, _model_server(store.path, tmp_path, fake) as base, \
            _stopping_jobs(store.path), chromium_browser() as browser:
        page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
        main = _open_run_page(page, base)
        _judges(page, main, MODEL)
        _concurrency(page, main, 1)
        yield fake, page, main


# -- the tests ------------------------------------------------------------------------------------


def test_model_run_cancelled_after_a_reload_stops_sending_and_keeps_every_answer(demo_store: Store,
                                                                               tmp_path: Path):
    from playwright.sync_api import expect

    store = copy_store(demo_store, tmp_path / "cancel.duckdb")
    n_pairs = store.query_one("SELECT count(*) FROM pairs WHERE dataset = 'demo'")
    assert n_pairs == 120
    with _model_run_page(store, tmp_path) as (fake, page, main):
        job = _start(page, main, store.path)
        assert job["origin"] == "dashboard" and json.loads(job["spec"])["call"]["concurrency"] == 1
        _wait_for("a few answers", lambda: fake.requests >= 3, timeout=60)

        main, text = _reload_and_find_job(page, job, n_pairs)
        cancel = main.locator(f".st-key-job_cancel_{job['job_id']}").get_by_role("button")
        expect(cancel).to_be_visible()
        assert fake.requests < n_pairs, "the run finished before Cancel could be clicked"
        cancel.click()
        at_click = fake.requests
        time.sleep(2)
        after_2s = fake.requests
        time.sleep(2)
        after_4s = fake.requests
        assert after_2s == after_4s, (at_click, after_2s, after_4s)
        assert after_4s < n_pairs

        final = _wait_for("the job to end", lambda: (j := _job_now(store.path))
                          and j["state"] not in ("queued", "running") and j, timeout=30)
        listed = _jobs(store.path)
        assert [(j["job_id"], j["state"]) for j in listed] == [(job["job_id"], "cancelled")]
        assert final["state"] == "cancelled"

        # The page saw the job end by itself (its panel polls the store) and shows what was kept.
        expect(main.get_by_text(re.compile(r"^Cancelled: "))).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(main.get_by_role("heading", name="Last run")).to_be_visible()
        _no_exception(page)

    run_id = _model_run_id(store)
    kept = store.query_one("SELECT count(*) FROM judge_outputs WHERE run_id = ? AND error IS NULL", [run_id])
    stored = store.query_one("SELECT count(*) FROM judge_outputs WHERE run_id = ?", [run_id])
    # The in-flight call at the cancel was answered and kept; nothing was sent without being kept.
    assert kept == stored == fake.requests == after_4s, (kept, stored, fake.requests)
    # a cancelled job counts what it answered, not its whole plan
    assert listed[0]["n_done"] == listed[0]["n_sent"] == listed[0]["n_ok"] == kept < listed[0]["n_total"], listed[0]
    assert listed[0]["n_failed"] == 0
    assert fake.max_in_flight == 1
    assert store.query_one("SELECT status FROM judge_runs WHERE run_id = ?", [run_id]) == "cancelled"
    print(f"\ncancel: progress after reload {text!r}; requests at click {at_click}, after 2 s {after_2s}, "
          f"after 4 s {after_4s}; kept {kept} of {n_pairs}")


def test_model_run_reloaded_mid_run_finishes_with_one_answer_per_pair(demo_store: Store, tmp_path: Path):
    from playwright.sync_api import expect

    store = copy_store(demo_store, tmp_path / "finish.duckdb")
    n_pairs = store.query_one("SELECT count(*) FROM pairs WHERE dataset = 'demo'")
    with _model_run_page(store, tmp_path) as (fake, page, main):
        started = time.monotonic()
        job = _start(page, main, store.path)
        _wait_for("a few answers", lambda: fake.requests >= 3, timeout=60)

        main, text = _reload_and_find_job(page, job, n_pairs)
        expect(main.locator(f".st-key-job_cancel_{job['job_id']}").get_by_role("button")).to_be_visible()
        at_reload = fake.requests
        assert at_reload < n_pairs, "the run finished before the reload"
        # The reloaded page keeps polling the store: its progress moves on without any click.
        first = _answers_shown(main, n_pairs)
        _wait_for("the reloaded page's progress to move", lambda: _answers_shown(main, n_pairs) > first + 5,
                  timeout=30, every=0.3)

        # Left alone, the reloaded page sees the job end and shows its results.
        expect(main.get_by_text(re.compile(r"^Finished: "))).to_be_visible(timeout=120_000)
        took = time.monotonic() - started
        expect(main.get_by_text(f"{n_pairs:,} answered", exact=False).first).to_be_visible()
        _no_exception(page)
        listed = _jobs(store.path)

    assert [(j["job_id"], j["state"]) for j in listed] == [(job["job_id"], "done")]
    assert listed[0]["n_done"] == listed[0]["n_ok"] == listed[0]["n_sent"] == n_pairs, listed[0]
    assert fake.requests == n_pairs
    assert fake.max_in_flight == 1
    run_id = _model_run_id(store)
    per_pair = store.query_df("SELECT pair_id, count(*) AS n, count(*) FILTER (WHERE error IS NULL) AS ok "
                              "FROM judge_outputs WHERE run_id = ? GROUP BY pair_id", [run_id])
    pairs = store.query_df("SELECT pair_id FROM pairs WHERE dataset = 'demo'")
    assert set(per_pair["pair_id"]) == set(pairs["pair_id"])
    assert (per_pair["n"] == 1).all() and (per_pair["ok"] == 1).all()
    assert store.query_one("SELECT status FROM judge_runs WHERE run_id = ?", [run_id]) == "done"
    print(f"\nfinish: progress after reload {text!r} (requests at reload {at_reload}); "
          f"{fake.requests} requests, {len(per_pair)} outputs; Start to 'Finished:' {took:.1f} s")


def test_offline_three_judge_run_reloaded_mid_run_completes_every_judge(tmp_path: Path):
    from playwright.sync_api import expect

    path = tmp_path / "big.duckdb"
    _cli(path, "demo", "--pairs", str(BIG_PAIRS))
    store = Store(path)
    n_pairs = store.query_one("SELECT count(*) FROM pairs WHERE dataset = 'demo'")
    assert n_pairs == BIG_PAIRS
    judges = ("rules", "lexical", "length")
    with serve_dashboard(path, tmp_path, env={"RADCONCORD_MODELS": "", "HOME": str(tmp_path)}) as base, \
            _stopping_jobs(path), chromium_browser() as browser:
        page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
        main = _open_run_page(page, base)
        _judges(page, main, *judges)
        started = time.monotonic()
        job = _start(page, main, path)
        _wait_for("the first answers", lambda: (j := _job_now(path)) and (j["n_done"] or 0) > 0, timeout=60)

        main, text = _reload_and_find_job(page, job, n_pairs * len(judges))
        seen_running = _job_now(path)["state"] == "running"
        expect(main.locator(f".st-key-job_cancel_{job['job_id']}").get_by_role("button")).to_be_visible()

        expect(main.get_by_text(re.compile(r"^Finished: "))).to_be_visible(timeout=120_000)
        took = time.monotonic() - started
        _no_exception(page)
        listed = _jobs(path)

    assert seen_running
    assert [(j["job_id"], j["state"]) for j in listed] == [(job["job_id"], "done")]
    assert listed[0]["n_done"] == listed[0]["n_ok"] == n_pairs * len(judges), listed[0]
    runs = store.query_df("SELECT judge_kind, status, n_ok, n_failed FROM judge_runs WHERE dataset = 'demo' "
                          "ORDER BY judge_kind")
    assert runs.values.tolist() == [[j, "done", n_pairs, 0] for j in sorted(judges)], runs
    for judge in judges:
        assert store.query_one("SELECT count(DISTINCT o.pair_id) FROM judge_outputs o JOIN judge_runs r "
                               "USING (run_id) WHERE r.judge_kind = ? AND r.dataset = 'demo'", [judge]) == n_pairs
    print(f"\noffline: progress after reload {text!r}; Start to 'Finished:' {took:.1f} s")
