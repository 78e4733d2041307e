"""Issue 31's probe, in a real browser against a real team server (items 5 and 6): session cookies
signed with the configured ``cookie_secret`` whose identity has no verified e-mail (a display name equal
to the researcher's address; ``email_verified: false``) get no role, and only a researcher's sidebar
shows the store's path. The server and cookies are tests/app/test_browser_roles.py's."""

from __future__ import annotations

import json

import pytest

from tests.app.test_browser_roles import SECRET, UI_TIMEOUT_MS, _settle, team_server  # noqa: F401 (fixture)
from tests.chromium import chromium_browser

pytestmark = pytest.mark.browser


def _cookie(base: str, claims: dict) -> dict:
    from streamlit.web.server.starlette.starlette_app_utils import create_signed_value

    payload = json.dumps({"origin": base, "is_logged_in": True, **claims})
    return {"name": "_streamlit_user", "value": create_signed_value(SECRET, "_streamlit_user", payload).decode(),
            "url": base}


def test_unverified_identities_get_no_role_and_only_researchers_see_the_store_path(team_server):  # noqa: F811
    base, store = team_server
    path = str(store.path)
    with chromium_browser() as browser:
        from playwright.sync_api import expect

        def visit(claims: dict, where: str):
            context = browser.new_context(viewport={"width": 1440, "height": 1000})
            context.add_cookies([_cookie(base, claims)])
            page = context.new_page()
            page.goto(f"{base}/{where}?dataset=demo", wait_until="domcontentloaded")
            return page

        for claims in ({"name": "lead@hospital.org"},
                       {"email": "lead@hospital.org", "email_verified": False, "name": "Lead"}):
            page = visit(claims, "run")
            main = page.get_by_test_id("stMain")
            expect(main.get_by_text("did not confirm an e-mail address")).to_be_visible(timeout=UI_TIMEOUT_MS)
            _settle(page)
            body = page.locator("body").inner_text()
            assert "Run judges" not in body and "demo" not in body and path not in body, claims
            assert page.get_by_test_id("stSidebarNav").count() == 0

        page = visit({"email": "nurse@hospital.org", "email_verified": True}, "data")  # a viewer
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar.get_by_text("Dataset", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        assert path not in page.content() and store.path.name not in page.content()

        page = visit({"email": "lead@hospital.org", "email_verified": True}, "data")  # the researcher
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar.get_by_text(path)).to_be_visible(timeout=UI_TIMEOUT_MS)
