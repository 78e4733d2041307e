"""Sharing with clinicians, in a real browser: with RADCONCORD_PUBLIC_URL set, every page opens from its
own address with no exception and no "page not found", every page is listed in the navigation without
expanding it, the Share page's links start with the public URL, and no page shows "None", "NaN" or a raw
JSON object in its visible text or table cells on the demo. Screenshots: test-artifacts/plain/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.judges import run_judge
from core.store.db import Store
from tests.app.test_browser import page, server  # noqa: F401  (fixtures)
from tests.app.test_browser_pages import PAGES, _settle
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "plain"
PUBLIC = "https://radconcord.example.org/team"
UI_TIMEOUT_MS = 60_000
# What a clinician must not meet: Python's missing values, and JSON as stored.
RAW = re.compile(r"\bNone\b|\bNaN\b|\bnan\b|\{\s*\"|\[\s*\"|\"\s*:\s*")


@pytest.fixture
def demo_store(demo_store: Store, tmp_path: Path, monkeypatch) -> Store:  # the server fixture serves this
    """The demo with the three offline judges run, served with a public URL configured."""
    monkeypatch.setenv("RADCONCORD_PUBLIC_URL", PUBLIC)
    store = copy_store(demo_store, tmp_path / "plain.duckdb")
    for judge in ("rules", "lexical", "length"):
        run_judge(store, dataset="demo", judge=judge)
    return store


def _visible_problems(page) -> list[str]:  # noqa: F811
    main = page.get_by_test_id("stMain")
    lines = [line for line in main.inner_text().splitlines() if RAW.search(line)]
    cells = [c for c in page.locator("[role=gridcell]").all_inner_texts() if RAW.search(c)]
    return [f"text: {x[:160]}" for x in lines] + [f"cell: {x[:160]}" for x in sorted(set(cells))]


def test_every_page_speaks_plainly_and_shares_public_links(server: str, page, demo_store: Store):  # noqa: F811
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    main = page.get_by_test_id("stMain")
    found: dict[str, list[str]] = {}
    for path, title in PAGES.items():
        page.goto(f"{server}/{path}?dataset=demo", wait_until="domcontentloaded")
        expect(main.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        page.wait_for_timeout(1500)  # tables draw their cells after the script run
        _settle(page)
        assert page.get_by_test_id("stException").count() == 0, f"exception box on /{path}"
        assert page.get_by_text("Page not found").count() == 0, f"'page not found' on /{path}"
        nav = page.get_by_test_id("stSidebarNav")
        for other in PAGES.values():
            expect(nav.get_by_text(other, exact=True)).to_be_visible()
        expect(page.get_by_test_id("stSidebar").get_by_text("Glossary: what the terms mean")).to_be_visible()
        problems = _visible_problems(page)
        if problems:
            found[path] = problems
        page.screenshot(path=str(ARTIFACTS / f"{path}.png"), full_page=True)
        if path == "share":
            links = main.get_by_test_id("stCode").first.inner_text().split()
            assert links and all(link.startswith(f"{PUBLIC}/") for link in links), links
            assert f"{PUBLIC}/correlations?dataset=demo" in links
    # The root address forwards to the home page under its own address.
    page.goto(f"{server}/?dataset=demo", wait_until="domcontentloaded")
    expect(main.get_by_role("heading", name="Correlations", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
    page.wait_for_url("**/correlations?dataset=demo*", timeout=UI_TIMEOUT_MS)
    assert found == {}, found
    assert errors == [], errors
