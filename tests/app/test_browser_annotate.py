"""The Annotate page in a real browser: a rater rates pairs with the keyboard only (type, Enter).

Served app over a private copy of the demo store, /usr/bin/chromium headless; fails on
any Streamlit exception, console error or outbound request (tests/app/test_browser_pages.py).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from core.access import RESEARCHER
from core.reads import ratings
from core.store.db import Store
from tests.app.test_browser import page, server  # noqa: F401  (fixtures)
from tests.app.test_browser_pages import UI_TIMEOUT_MS, _settle, _shot, _watch
from tests.conftest import copy_store

pytestmark = pytest.mark.browser


@pytest.fixture
def demo_store(demo_store: Store, tmp_path: Path) -> Store:  # the server fixture serves this one
    """A private copy of the demo store with a 5-pair queue: the page writes ratings into it."""
    store = copy_store(demo_store, tmp_path / "annotate.duckdb")
    ratings.create_queue(store, "demo", "pilot", "sample", n=5, seed=2, role="researcher")
    return store


def test_a_rater_rates_with_the_keyboard(server: str, page, demo_store: Store):  # noqa: F811
    from playwright.sync_api import expect

    problems = _watch(page)
    main = page.get_by_test_id("stMain")
    queue_id = ratings.list_queues(demo_store, "demo")["queue_id"].iloc[0]
    pids = ratings.queue_pair_ids(demo_store, queue_id)
    page.goto(f"{server}/annotate?dataset=demo&rater={quote('Dr K')}", wait_until="domcontentloaded")
    expect(main.get_by_role("heading", name="Annotate", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    _settle(page)
    expect(main.get_by_text("0 of 5 pairs rated by Dr K")).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(main.get_by_text("Reference report", exact=True)).to_be_visible()

    # Pair 1: focus the score, type 4, Enter saves the form.
    score = main.get_by_role("spinbutton", name="Overall score")
    score.focus()
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    expect(main.get_by_text("1 of 5 pairs rated by Dr K")).to_be_visible(timeout=UI_TIMEOUT_MS)
    _settle(page)
    # Pair 2: a score, Tab to the first count (significant false findings), a count, Enter.
    score = main.get_by_role("spinbutton", name="Overall score")
    score.focus()
    page.keyboard.type("2")
    for _ in range(8):  # Tab on to the first count field (past the score's step buttons, if focusable)
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.getAttribute('aria-label')") == "sig_a":
            break
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "sig_a"
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    expect(main.get_by_text("2 of 5 pairs rated by Dr K")).to_be_visible(timeout=UI_TIMEOUT_MS)
    _settle(page)
    _shot(page, "annotate")

    store = Store(demo_store.path)
    got = ratings.latest_ratings(store, "demo", role=RESEARCHER).set_index("pair_id")
    assert got.loc[pids[0], "rater"] == "Dr K" and got.loc[pids[0], "score"] == 4.0
    assert pd_isna(got.loc[pids[0], "sig_a"])  # counts left blank: a score only
    assert got.loc[pids[1], "score"] == 2.0 and got.loc[pids[1], "sig_a"] == 3 and got.loc[pids[1], "insig_f"] == 0
    ann = store.query_df("SELECT field, value FROM annotations WHERE annotator = 'rater:Dr K' AND pair_id = ?",
                         [pids[0]])
    assert ann.values.tolist() == [["score", 4.0]]
    assert problems == [], "\n".join(problems)


def pd_isna(value) -> bool:
    import pandas as pd

    return bool(pd.isna(value))
