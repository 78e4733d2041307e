"""Every page in a real browser: a run started from the Run page, its results on
Correlations, a share link that reproduces a view, screenshots of each page.

Fails on any Streamlit exception box, any uncaught page error and any console
error. Screenshots go to ``test-artifacts/pages/`` (git-ignored); the documentation's come from
docs/make_screenshots.py.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from core.store.db import Store
from tests.app.test_browser import page, server  # noqa: F401  (fixtures)
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "pages"
UI_TIMEOUT_MS = 60_000
PAGES = {  # url path -> title shown on the page
    "data": "Data",
    "correlations": "Correlations",
    "run": "Run judges",
    "live": "Live scoring",
    "calibration": "Calibration",
    "errortypes": "Error types",
    "review": "Edit review",
    "checks": "Checks & leaderboards",
    "summaries": "Summaries",
    "ensembles": "Ensembles & simulator",
    "distill": "Distill",
    "share": "Share",
    "annotate": "Annotate",
}


@pytest.fixture
def demo_store(demo_store: Store, tmp_path: Path) -> Store:  # the server fixture serves this one
    """A private copy of the demo store: the Run page writes to it."""
    return copy_store(demo_store, tmp_path / "browser.duckdb")


def _benign(url: str) -> bool:
    """Streamlit start-up noise on the local server, not a problem of the app.

    Opening /<page> directly, Streamlit's frontend first probes
    /<page>/_stcore/... for a base path and falls back to the root (404s).
    """
    parts = urlsplit(url)
    return parts.hostname == "127.0.0.1" and "/_stcore/" in parts.path and not parts.path.startswith("/_stcore/")


def _cancelled_by_navigation(url: str, failure: str | None) -> bool:
    """A local script chunk, media file or the tab's icon the browser dropped because the test moved on.

    Chromium aborts (net::ERR_ABORTED) requests still in flight when the page navigates or
    rerenders; the server did not fail. Errors with a status still count (the response handler).
    """
    parts = urlsplit(url)
    return (failure or "").startswith("net::ERR_ABORTED") and parts.hostname == "127.0.0.1" \
        and (parts.path.startswith(("/static/", "/media/")) or parts.path == "/favicon.png")


# The first request of a fresh server to a page URL is answered by Streamlit's legacy
# pages/ mode, which logs this and runs app.py, whose router then shows the page asked
# for (see ui/shared.ensure_router and docs/ARCHITECTURE.md). Only this exact text.
LEGACY_MODE_NOTICE = "The page that you have requested does not seem to exist. Running the app's main page."


def _watch(page) -> list[str]:  # noqa: F811
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text} at {msg.location.get('url')}")
            if msg.type == "error" and not _benign(msg.location.get("url", "")) and msg.text != LEGACY_MODE_NOTICE
            else None)
    # Nothing may leave the machine: any request that is not to the local server fails the test.
    page.on("request", lambda req: problems.append(f"outbound request: {req.url}")
            if not req.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")) else None)
    page.on("requestfailed", lambda req: problems.append(f"request failed: {req.url} ({req.failure})")
            if not (_benign(req.url) or _cancelled_by_navigation(req.url, req.failure)) else None)
    page.on("response", lambda resp: problems.append(f"HTTP {resp.status}: {resp.url}")
            if resp.status >= 400 and not _benign(resp.url) else None)
    return problems


def _settle(page) -> None:  # noqa: F811
    """Wait until Streamlit has finished running the script for this view: the app says no script runs
    (``stApp``'s ``data-test-script-state``, what Streamlit's own browser tests wait on) and the page's text is
    the same in two reads 0.3 s apart. A poll with a deadline, not a fixed wait (a loaded machine starts and
    ends a script run later; issue 40 item 9)."""
    idle = page.locator("[data-testid='stApp'][data-test-script-state='notRunning']")
    body = page.locator("body")
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    last = None
    while True:
        idle.wait_for(timeout=UI_TIMEOUT_MS)
        page.get_by_test_id("stStatusWidget").wait_for(state="hidden", timeout=UI_TIMEOUT_MS)
        text = body.inner_text(timeout=UI_TIMEOUT_MS)
        if text == last:
            return
        assert time.monotonic() < deadline, "the page kept changing for a minute"
        last = text
        page.wait_for_timeout(300)


def _shot(page, name: str) -> None:  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1440, "height": 1800})
    page.wait_for_timeout(800)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": 1440, "height": 1000})


def test_every_page_a_run_and_a_share_link(server: str, page, demo_store: Store):  # noqa: F811
    from playwright.sync_api import expect

    problems = _watch(page)
    main = page.get_by_test_id("stMain")

    # 1. Start a rules-judge run from the Run page.
    page.goto(f"{server}/run?dataset=demo", wait_until="domcontentloaded")
    expect(main.get_by_role("heading", name="Run judges", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    _settle(page)
    # Every page is listed in the sidebar as it opens, in sections: nothing hides behind "View more".
    nav = page.get_by_test_id("stSidebarNav")
    for title in PAGES.values():
        expect(nav.get_by_text(title, exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    assert nav.get_by_text(re.compile(r"^View (\d+ )?(more|less)")).count() == 0, "pages hide behind 'View more'"
    for section in ("Explore results", "Data and judges", "Experts and sharing"):
        expect(page.get_by_test_id("stSidebar").get_by_text(section, exact=True)).to_be_visible()
    main.get_by_role("button", name="Start run").click()
    expect(main.get_by_role("button", name="Open Correlations")).to_be_visible(timeout=UI_TIMEOUT_MS)
    assert Store(demo_store.path).query_one("SELECT count(*) FROM judge_runs WHERE judge_kind = 'rules'") == 1
    _shot(page, "run")

    # 2. Its results show up on Correlations.
    main.get_by_role("button", name="Open Correlations").click()
    expect(main.get_by_role("heading", name="Correlations", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    _settle(page)
    expect(main.get_by_text("Significant errors (rules counts)").first).to_be_visible(timeout=UI_TIMEOUT_MS)

    # 3. A share link: change the target, copy the URL, open it fresh: same view.
    main.get_by_text("Significant errors (count per report)").click()
    page.wait_for_url("**target=sig_errors*", timeout=UI_TIMEOUT_MS)
    _settle(page)
    shared = page.url
    page.goto(shared, wait_until="domcontentloaded")
    expect(main.get_by_role("heading", name="Correlations", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    _settle(page)
    expect(main.get_by_role("radio", name="Significant errors (count per report)")).to_be_checked()
    _shot(page, "correlations")

    # 4. Every page opens from its own URL, renders its title and no exception.
    for path, title in PAGES.items():
        page.goto(f"{server}/{path}?dataset=demo", wait_until="domcontentloaded")
        expect(main.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        if path == "live":  # the rules judge answers a pasted pair at once
            main.get_by_role("textbox", name="Reference report").fill(
                "FINDINGS: Small left pleural effusion. No pneumothorax. Heart size is normal.")
            main.get_by_role("textbox", name="Candidate report").fill(
                "FINDINGS: Small right pleural effusion. Heart size is normal. <script>alert(1)</script>")
            main.get_by_role("textbox", name="Candidate report").press("Control+Enter")
            _settle(page)
            expect(main.get_by_text("Misidentification", exact=False).first).to_be_attached(timeout=UI_TIMEOUT_MS)
        assert page.get_by_test_id("stException").count() == 0, f"exception box on /{path}"
        _shot(page, path)

    assert problems == [], "\n".join(problems)
