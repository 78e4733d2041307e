"""What the dashboard says, read in a real browser (issue 30, item 8): none of the untruths found there.

A fresh `serve.py` server on a demo store with the checks run: the first visit's sidebar lists page
titles only (no module names of the pages/ folder), and no page shows "1 annotators", a raw target
name in a title, a formula where words belong, the checks as a judge, an unexplained "Relaxed pass
rate", or an estimated cost cut off at 1440 px.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.checks.store import run_checks
from core.cli.main import main as cli
from core.store.db import Store
from tests.app.test_browser import serve_dashboard
from tests.app.test_browser_pages import PAGES, _settle
from tests.chromium import chromium_browser
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

UI_TIMEOUT_MS = 60_000
# (what must not be shown, why)
UNTRUE = (
    (re.compile(r"\b1 annotators\b"), "a count with the wrong noun"),
    (re.compile(r"\bsig_errors target\b"), "a raw target name in a title"),
    (re.compile(r"M / \(M \+ S\)"), "a formula where words belong (Live scoring)"),
    (re.compile(r"Relaxed pass rate"), "an unexplained LAIas term"),
    (re.compile(r"\blaias_(crit|qual|term|guide|rag)\b"), "the report checks shown as a judge"),
)


def test_no_page_says_what_issue_30_found(tmp_path: Path, demo_store: Store):
    from playwright.sync_api import expect

    store = copy_store(demo_store, tmp_path / "words.duckdb")
    run_checks(store, "demo", "en-US")  # "checks:en-US" must not appear as a judge anywhere
    # a dataset with one annotator and one run: the sidebar's counts must read "1 annotator", "1 run"
    rows = "id,ref,cand\n" + "".join(f"p{i},Small left effusion {i}.,Small right effusion {i}.\n" for i in range(12))
    (tmp_path / "one.csv").write_text(rows, encoding="utf-8")
    (tmp_path / "one-scores.csv").write_text("id,score\n" + "".join(f"p{i},{i % 6}\n" for i in range(12)),
                                             encoding="utf-8")
    for argv in (["import-pairs", str(tmp_path / "one.csv"), "--dataset", "one", "--id-col", "id",
                  "--reference-col", "ref", "--candidate-col", "cand"],
                 ["import-annotations", str(tmp_path / "one-scores.csv"), "--dataset", "one", "--id-col", "id",
                  "--score-col", "score"],
                 ["judge", "--dataset", "one", "--judge", "length"]):
        assert cli(["--store", str(store.path), *argv]) == 0
    with serve_dashboard(store.path, tmp_path) as url, chromium_browser() as browser:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        main = page.get_by_test_id("stMain")
        page.goto(f"{url}/correlations?dataset=demo", wait_until="domcontentloaded")
        nav = page.get_by_test_id("stSidebarNav")
        nav.wait_for(timeout=UI_TIMEOUT_MS)
        # the very first visit of a fresh server: the navigation holds page titles, never module names
        links = [t.strip() for t in nav.get_by_role("link").all_inner_texts()]
        assert links and set(links) <= set(PAGES.values()) | {"RadConcord"}, links
        found = []
        for path, title in PAGES.items():
            page.goto(f"{url}/{path}?dataset=demo", wait_until="domcontentloaded")
            expect(main.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
            _settle(page)
            if path == "live":
                main.get_by_role("textbox", name="Reference report").fill("Small left pleural effusion.")
                main.get_by_role("textbox", name="Candidate report").fill("Small right pleural effusion.")
                main.get_by_role("textbox", name="Candidate report").press("Control+Enter")
                _settle(page)
            if path == "run":  # the estimate's cost is shown whole at 1440 px
                value = main.get_by_test_id("stMetric").filter(has_text="Estimated cost") \
                    .get_by_test_id("stMetricValue")
                width = value.evaluate("e => [e.scrollWidth, e.clientWidth]")
                assert width[0] <= width[1], f"the estimated cost is cut off: {width}"
            text = page.get_by_test_id("stApp").inner_text()
            found += [f"/{path}: {why}: {m.group(0)!r}" for pattern, why in UNTRUE for m in pattern.finditer(text)]
        page.goto(f"{url}/data?dataset=one", wait_until="domcontentloaded")
        expect(main.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        sidebar = page.get_by_test_id("stSidebar").inner_text()
        assert "12 pairs · 1 annotator · 1 run" in sidebar, sidebar
        assert not found, "\n".join(found)
