"""At 1440 px no button label on any page of the demo is cut (issue 43, point 5): a label whose text is
wider than its box (Streamlit then ends it with an ellipsis: the scatter's downloads read "S", "P",
"Ch...") fails the test, on every page of the demo with the three offline judges run."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.store.db import Store
from tests.app.test_browser import page, serve_dashboard  # noqa: F401  (fixture)
from tests.app.test_browser_pages import PAGES, UI_TIMEOUT_MS, _settle
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

# every visible button in the main area with its label, and the elements inside it whose text overflows
BUTTONS = """() => [...document.querySelectorAll('[data-testid="stMain"] button')]
  .filter(b => b.getClientRects().length && b.innerText.trim())
  .map(b => ({label: b.innerText.replace(/\\s+/g, ' ').trim(), width: b.clientWidth,
              cut: [b, ...b.querySelectorAll('*')].filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
                   .map(e => `${e.tagName} text ${e.scrollWidth} px in ${e.clientWidth} px`)}))"""


@pytest.fixture
def judged_server(demo_store: Store, tmp_path: Path):
    """The dashboard over a copy of the demo with the rules, lexical and length judges run (charts shown)."""
    from core.cli.main import main

    store = copy_store(demo_store, tmp_path / "labels.duckdb")
    for judge in ("rules", "lexical", "length"):
        assert main(["--store", str(store.path), "judge", "--dataset", "demo", "--judge", judge, "--json",
                     "--allow-failures"]) == 0
    with serve_dashboard(store.path, tmp_path) as url:
        yield url


def test_no_button_label_is_cut_at_1440_px_on_any_page(judged_server: str, page):  # noqa: F811
    cut, seen = {}, {}
    for path, title in PAGES.items():
        page.goto(f"{judged_server}/{path}?dataset=demo", wait_until="domcontentloaded")
        page.get_by_test_id("stMain").get_by_role("heading", name=title, exact=True).wait_for(timeout=UI_TIMEOUT_MS)
        _settle(page)
        page.evaluate("document.fonts.ready.then(() => true)")  # widths in the page's own font, not a fallback
        page.wait_for_timeout(1000)  # charts drawn, columns at their final width
        buttons = page.evaluate(BUTTONS)
        seen[path] = len(buttons)
        if bad := [b for b in buttons if b["cut"]]:
            cut[path] = bad
    assert cut == {}
    assert sum(seen.values()) >= 20 and seen["correlations"] >= 6, seen  # the check saw the charts' downloads
