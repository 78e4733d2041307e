"""One real-browser pass: `python serve.py` (streamlit run app.py) + headless Debian Chromium via Playwright.

Playwright's own browser download cannot work here, so the test drives the
Debian package at /usr/bin/chromium and is skipped (with that reason) only
when it is missing. The documentation's screenshots come from docs/make_screenshots.py.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from core.reads.queries import find_pairs, get_pair
from core.store.db import Store
from tests.chromium import chromium_browser
from tests.dashboard_server import ServerDidNotStart, running_dashboard

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
UI_TIMEOUT_MS = 30_000


@contextlib.contextmanager
def serve_dashboard(store_path: Path, tmp_path: Path, *extra_args: str, env: dict | None = None,
                    port: int | None = None):
    """``python serve.py`` on a loopback port (free by default) over ``store_path`` (as `make run`
    starts it: tests/dashboard_server.py); yields its base URL and always stops it."""
    try:
        with running_dashboard(store_path, tmp_path / "streamlit.log", *extra_args, env=env, port=port) as (url, _):
            yield url
    except ServerDidNotStart as exc:
        pytest.fail(str(exc))


@pytest.fixture
def server(demo_store: Store, tmp_path: Path):
    """A dashboard on a free loopback port over the demo store; always stopped afterwards."""
    with serve_dashboard(demo_store.path, tmp_path) as url:
        yield url


@pytest.fixture
def page():
    with chromium_browser() as browser:
        yield browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()


def test_data_page_in_a_real_browser(server: str, page, demo_store: Store):
    from playwright.sync_api import expect

    # The first request of a fresh server goes to the page's own URL: app.py
    # must still run (sidebar, dataset picker), see ui/shared.ensure_router.
    page.goto(f"{server}/data?dataset=demo", wait_until="domcontentloaded")
    main = page.get_by_test_id("stMain")
    sidebar = page.get_by_test_id("stSidebar")
    expect(page.get_by_text("showing 1-50 of 120 pairs")).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(sidebar.get_by_role("combobox", name="Dataset")).to_have_value("demo")
    expect(sidebar.get_by_text("synthetic").first).to_be_visible()  # the badge
    expect(main.get_by_role("heading", name="Data", exact=True)).to_be_visible()

    # Search for one pair's id: the count narrows and the search lands in the URL.
    frame, _ = find_pairs(demo_store, "demo", limit=1, offset=7)
    ext_id = frame["ext_id"].iloc[0]
    _, expected = find_pairs(demo_store, "demo", text=ext_id)
    search = main.get_by_role("textbox", name="Search reports")
    search.fill(ext_id)
    search.press("Enter")
    expect(page.get_by_text(f"of {expected:,} pairs")).to_be_visible(timeout=UI_TIMEOUT_MS)
    page.wait_for_url("**q=*", timeout=UI_TIMEOUT_MS)

    # A copied URL with a pair opens its detail: report text shown as text.
    pair = get_pair(demo_store, frame["pair_id"].iloc[0])
    page.goto(f"{server}/?dataset=demo&pair={pair['pair_id']}", wait_until="domcontentloaded")
    expect(main.get_by_role("heading", name=f"Pair {pair['ext_id']}")).to_be_visible(timeout=UI_TIMEOUT_MS)
    longest_line = max(pair["candidate"].splitlines(), key=len).strip()
    expect(main.get_by_text(longest_line, exact=False).first).to_be_visible()
    assert not page.get_by_test_id("stException").count()

