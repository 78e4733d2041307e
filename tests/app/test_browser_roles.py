"""A team deployment in a real browser: `python serve.py` with sign-in and an allow-list in a secrets
file, visited without signing in, as a viewer and as a researcher.

No OIDC provider can run here, so the signed-in visitors carry the session cookie Streamlit itself
sets after a successful sign-in: its user payload signed with the configured ``cookie_secret``
(Streamlit's own ``create_signed_value``), exactly what the server checks on every connection.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.store.db import Store
from tests.app.test_browser import serve_dashboard
from tests.app.test_browser_pages import _settle
from tests.chromium import chromium_browser
from tests.conftest import copy_store
from tests.dashboard_server import free_port

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
UI_TIMEOUT_MS = 60_000
SECRET = "c" * 40


@pytest.fixture
def team_server(demo_store: Store, tmp_path: Path):
    """The dashboard with a team's secrets file: (base URL, the store it serves)."""
    secrets = tmp_path / "secrets.toml"
    store = copy_store(demo_store, tmp_path / "team.duckdb")
    # The redirect URI names the server's own origin, which the signed cookie must match: port chosen first.
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    secrets.write_text(
        "[auth]\n"
        f'redirect_uri = "{base}/oauth2callback"\n'
        f'cookie_secret = "{SECRET}"\n'
        'client_id = "radconcord"\nclient_secret = "not-used-here"\n'
        'server_metadata_url = "http://127.0.0.1:9/.well-known/openid-configuration"\n'
        "[radconcord.roles]\n"
        'researchers = ["lead@hospital.org"]\n'
        'viewers = ["@hospital.org"]\n', encoding="utf-8")
    with serve_dashboard(store.path, tmp_path, "--secrets.files", str(secrets), env={"HOME": str(tmp_path)},
                         port=port) as url:
        assert url == base
        yield base, store


def _signed_in_cookie(base: str, email: str) -> dict:
    from streamlit.web.server.starlette.starlette_app_utils import create_signed_value

    # email_verified: the claim a real provider's token carries; a role needs it (core.access.verified_email)
    payload = json.dumps({"origin": base, "is_logged_in": True, "email": email, "email_verified": True,
                          "name": email.split("@")[0]})
    value = create_signed_value(SECRET, "_streamlit_user", payload).decode()
    return {"name": "_streamlit_user", "value": value, "url": base}


def test_sign_in_and_roles_in_a_real_browser(team_server):
    base, store = team_server
    runs = store.query_one("SELECT count(*) FROM judge_runs")
    with chromium_browser() as browser:
        from playwright.sync_api import expect

        def visitor(email: str | None):
            context = browser.new_context(viewport={"width": 1440, "height": 1000})
            if email:
                context.add_cookies([_signed_in_cookie(base, email)])
            return context.new_page()

        # Not signed in: a sign-in button and nothing else, on any address.
        page = visitor(None)
        page.goto(f"{base}/correlations?dataset=demo", wait_until="domcontentloaded")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_role("button", name="Sign in")).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        assert main.get_by_role("heading", name="Correlations").count() == 0
        assert page.get_by_test_id("stSidebarNav").count() == 0
        assert "demo" not in page.locator("body").inner_text()  # not even the dataset's name

        # A viewer: browses, but import, delete and the pages that run judges are not there.
        page = visitor("nurse@hospital.org")
        page.goto(f"{base}/data?dataset=demo", wait_until="domcontentloaded")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        expect(main.get_by_role("tab", name="Browse pairs")).to_be_visible()
        assert main.get_by_role("tab", name="Import data").count() == 0
        assert main.get_by_text("Delete dataset").count() == 0
        nav = page.get_by_test_id("stSidebarNav")
        expect(nav.get_by_text("Correlations", exact=True)).to_be_visible()
        for title in ("Run judges", "Live scoring", "Distill", "Checks & leaderboards", "Edit review"):
            assert nav.get_by_text(title, exact=True).count() == 0, title
        page.goto(f"{base}/run?dataset=demo", wait_until="domcontentloaded")
        _settle(page)
        assert main.get_by_role("heading", name="Run judges").count() == 0
        assert main.get_by_role("button", name="Start run").count() == 0

        # A researcher: every page and action.
        page = visitor("lead@hospital.org")
        page.goto(f"{base}/data?dataset=demo", wait_until="domcontentloaded")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_role("tab", name="Import data")).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(main.get_by_text("Delete dataset").first).to_be_visible()
        page.goto(f"{base}/run?dataset=demo", wait_until="domcontentloaded")
        expect(main.get_by_role("heading", name="Run judges", exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(main.get_by_role("button", name="Start run")).to_be_visible(timeout=UI_TIMEOUT_MS)
    assert store.query_one("SELECT count(*) FROM judge_runs") == runs  # nobody ran anything
