"""The shipped reverse proxy (deploy/nginx-radconcord.conf) in front of a real team server.

Debian's nginx with TLS from a certificate made here: Streamlit's /_stcore/metrics is refused
through it (while the server itself would answer), the health check and every page work through it
in a real Chromium, websocket included, for a signed-in researcher.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from core.store.db import Store
from tests.app.test_browser import serve_dashboard
from tests.app.test_browser_pages import PAGES, _settle
from tests.app.test_browser_roles import SECRET
from tests.chromium import chromium_browser
from tests.conftest import copy_store
from tests.dashboard_server import free_port

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
UI_TIMEOUT_MS = 60_000
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _get(url: str) -> tuple[int, str]:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # our own self-signed certificate
    try:
        with urllib.request.urlopen(url, context=context, timeout=10) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


@pytest.fixture
def proxied_team(demo_store: Store, tmp_path: Path):
    """(proxy URL, direct URL): nginx with TLS on one port, the team dashboard behind it."""
    if not Path(NGINX).exists() or shutil.which("openssl") is None:
        pytest.skip("nginx or openssl is missing (install Debian's nginx-light: `make browser`)")
    cert, key = tmp_path / "proxy.crt", tmp_path / "proxy.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    proxy_port, app_port = free_port(), free_port()
    proxy = f"https://127.0.0.1:{proxy_port}"
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(  # the sign-in's redirect names the address users reach: the proxy's
        "[auth]\n"
        f'redirect_uri = "{proxy}/oauth2callback"\n'
        f'cookie_secret = "{SECRET}"\n'
        'client_id = "radconcord"\nclient_secret = "not-used-here"\n'
        'server_metadata_url = "http://127.0.0.1:9/.well-known/openid-configuration"\n'
        "[radconcord.roles]\n"
        'researchers = ["lead@hospital.org"]\n', encoding="utf-8")
    rendered = subprocess.run([sys.executable, str(ROOT / "deploy" / "render_nginx.py"), "--listen",
                               f"127.0.0.1:{proxy_port}", "--cert", str(cert), "--key", str(key), "--upstream",
                               f"127.0.0.1:{app_port}"], check=True, capture_output=True, text=True).stdout
    prefix = tmp_path / "nginx"
    (prefix / "logs").mkdir(parents=True)
    conf = prefix / "nginx.conf"
    conf.write_text(
        "daemon off;\nworker_processes 1;\npid logs/nginx.pid;\nerror_log logs/error.log;\n"
        "events { worker_connections 256; }\n"
        "http {\n  access_log off;\n  client_body_temp_path logs/body;\n  proxy_temp_path logs/proxy;\n"
        "  fastcgi_temp_path logs/fcgi;\n  uwsgi_temp_path logs/uwsgi;\n  scgi_temp_path logs/scgi;\n"
        f"{rendered}\n}}\n", encoding="utf-8")
    store = copy_store(demo_store, tmp_path / "team.duckdb")
    with serve_dashboard(store.path, tmp_path, "--secrets.files", str(secrets), env={"HOME": str(tmp_path)},
                         port=app_port) as direct:
        nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(conf)], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if _get(f"{proxy}/_stcore/health")[0] == 200:
                        break
                except OSError:
                    pass
                assert nginx.poll() is None, nginx.stdout.read().decode()
                assert time.monotonic() < deadline, "nginx did not come up"
                time.sleep(0.2)
            yield proxy, direct
        finally:
            nginx.terminate()
            nginx.wait(timeout=10)


def test_the_proxy_refuses_metrics_and_serves_every_page(proxied_team):
    from playwright.sync_api import expect

    from tests.app.test_browser_roles import _signed_in_cookie

    proxy, direct = proxied_team
    assert _get(f"{direct}/_stcore/metrics")[0] == 200  # what the proxy keeps from anonymous visitors
    status, body = _get(f"{proxy}/_stcore/metrics")
    assert status == 403 and "radconcord" not in body.lower() and "/work" not in body
    assert _get(f"{proxy}/_stcore/health") == (200, "ok")
    assert _get(f"{proxy}/_stcore/agent")[0] == 403  # no other core endpoint either
    with chromium_browser() as browser:
        context = browser.new_context(viewport={"width": 1440, "height": 1000}, ignore_https_errors=True)
        context.add_cookies([_signed_in_cookie(proxy, "lead@hospital.org")])
        page = context.new_page()
        main = page.get_by_test_id("stMain")
        for path, title in PAGES.items():
            page.goto(f"{proxy}/{path}?dataset=demo", wait_until="domcontentloaded")
            expect(main.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
            _settle(page)
            assert page.get_by_test_id("stException").count() == 0, f"exception box on /{path}"
