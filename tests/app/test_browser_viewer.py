"""Issue 42, items 1, 8a and 8b, in a real browser against a real team server with signed identities
(tests/app/test_browser_roles.py's server and cookies):

1. a verified viewer on ``/annotate?view=agreement`` sees no clinician's rating of a blinded queue,
   on the page or in a CSV download, and cannot save an adjudication (a researcher can, and sees them);
8a. the Share page's HTML report downloaded by a viewer holds no store path (a researcher's does);
8b. ``mallory@evil.org@hospital.org``, verified, is no viewer of ``@hospital.org``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.access import RESEARCHER
from core.reads import ratings
from core.store.db import Store
from tests.app.test_browser_roles import UI_TIMEOUT_MS, _settle, _signed_in_cookie, team_server  # noqa: F401
from tests.chromium import chromium_browser
from tests.conftest import copy_store
from tests.reads.test_ratings_access import ALICE, BOB, CAROL, DAVE, rate_blind_and_open

pytestmark = pytest.mark.browser



@pytest.fixture
def demo_store(demo_store: Store, tmp_path: Path) -> Store:  # team_server serves a copy of this one
    """The demo store with a blinded queue rated 1 by alice and 4 by bob, and an unblinded one rated 0
    by carol and 3 by dave: every pair of each a disagreement."""
    store = copy_store(demo_store, tmp_path / "rated.duckdb")
    rate_blind_and_open(store, 3)
    return store


def _visit(browser, base: str, email: str, where: str):
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    context.add_cookies([_signed_in_cookie(base, email)])
    page = context.new_page()
    page.goto(f"{base}/{where}", wait_until="domcontentloaded")
    return page


def _downloads(page, name: str) -> list[str]:
    """The text of every download button called ``name`` on the page, clicked one after the other."""
    texts = []
    buttons = page.get_by_test_id("stMain").get_by_role("button", name=name)
    for i in range(buttons.count()):
        with page.expect_download(timeout=UI_TIMEOUT_MS) as info:
            buttons.nth(i).click()
        texts.append(Path(info.value.path()).read_text(encoding="utf-8"))
    return texts


def test_a_viewer_sees_no_blinded_rating_and_cannot_adjudicate(team_server):  # noqa: F811
    base, store = team_server
    blind = ratings.list_queues(store, "demo").set_index("name").loc["blind round", "queue_id"]
    with chromium_browser() as browser:
        from playwright.sync_api import expect

        # The researcher: the blinded ratings, their CSV and the adjudication form (what the viewer must not get).
        page = _visit(browser, base, "lead@hospital.org", "annotate?dataset=demo&view=agreement")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_text("Disagreements (6", exact=False)).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        expect(main.get_by_role("button", name="Save adjudication")).to_be_visible()
        assert any(f"{ALICE}=1; {BOB}=4" in csv for csv in _downloads(page, "Download CSV"))

        # A viewer, all ratings of the dataset: the unblinded queue's, none of the blinded one's.
        page = _visit(browser, base, "nurse@hospital.org", "annotate?dataset=demo&view=agreement")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_text("Disagreements (3", exact=False)).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        assert ALICE not in main.inner_text() and BOB not in main.inner_text()  # the tables draw on a canvas:
        assert main.get_by_role("button", name="Save adjudication").count() == 0
        csvs = _downloads(page, "Download CSV")  # their CSVs hold what they show
        assert any(f"{CAROL}=0; {DAVE}=3" in csv for csv in csvs)  # the downloads were read ...
        assert not any(ALICE in csv or BOB in csv for csv in csvs)  # ... and hold no blinded rating
        assert ALICE not in page.content() and BOB not in page.content()

        # A viewer on the blinded queue itself: a sentence, no table, no download.
        page = _visit(browser, base, "nurse@hospital.org", f"annotate?dataset=demo&view=agreement&queue={blind}")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_text("This queue is blinded")).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        assert ALICE not in page.content() and BOB not in page.content()
        assert main.get_by_role("button", name="Download CSV").count() == 0
    assert store.query_one("SELECT count(*) FROM adjudications") == 0
    assert len(ratings.latest_ratings(store, "demo", role=RESEARCHER)) == 12  # nothing changed


def test_a_viewer_downloads_a_report_without_the_store_path(team_server):  # noqa: F811
    base, store = team_server
    path = str(store.path)
    with chromium_browser() as browser:
        from playwright.sync_api import expect

        reports, bundle_buttons, shown = {}, {}, {}
        for who in ("lead@hospital.org", "nurse@hospital.org"):
            page = _visit(browser, base, who, "share?dataset=demo&n_boot=0")  # n_boot=0: a quick report
            main = page.get_by_test_id("stMain")
            expect(main.get_by_role("button", name="Download HTML report")).to_be_visible(timeout=UI_TIMEOUT_MS)
            _settle(page)
            [reports[who]] = _downloads(page, "Download HTML report")
            shown[who] = page.content()
            bundle_buttons[who] = main.get_by_role("button", name="Download bundle (.zip)").count()
    assert f"--store {path}" in reports["lead@hospital.org"]  # the researcher's report: the path, findable
    viewer = reports["nurse@hospital.org"]
    assert path not in viewer and store.path.name not in viewer and "--store" not in viewer
    assert "python -m core ratings-report" in viewer or "python -m core report" in viewer  # the command stays
    assert path not in shown["nurse@hospital.org"] and store.path.name not in shown["nurse@hospital.org"]
    # the bundle holds every clinician's rating, blinded ones too: the researcher's alone
    assert bundle_buttons == {"lead@hospital.org": 1, "nurse@hospital.org": 0}


def test_an_address_with_two_ats_is_not_admitted_as_a_viewer(team_server):  # noqa: F811
    base, store = team_server
    with chromium_browser() as browser:
        from playwright.sync_api import expect

        page = _visit(browser, base, "mallory@evil.org@hospital.org", "annotate?dataset=demo&view=agreement")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_role("button").first).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        body = page.locator("body").inner_text()
        assert "Annotate" not in body and "demo" not in body and ALICE not in body and CAROL not in body
        assert page.get_by_test_id("stSidebarNav").count() == 0
        assert [b.inner_text() for b in main.get_by_role("button").all()] == ["Sign out"]
        expect(main.get_by_text("which is not one e-mail address")).to_be_visible()
