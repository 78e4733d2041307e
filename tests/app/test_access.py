"""Serving a team: roles from the secrets' allow-list, the pages each role reaches, and the launcher's
refusal to listen on a public address without sign-in (core/access.py, pages/_access.py, serve.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from core.access import RESEARCHER, VIEWER, may_open, role_for, roles_from_secrets, serve_problem, team_mode
from core.reads import ratings
from core.serve import configured_address, read_secrets
from core.store.db import Store
from tests.app.test_page_annotate import AUTH, _SignedIn

ROOT = Path(__file__).resolve().parents[2]
ROLES = {"researchers": ["Lead@Hospital.org"], "viewers": ["@hospital.org", "dr.b@uni.edu"]}
TEAM = {"auth": AUTH, "radjudge": {"roles": ROLES}}


# -- the rules ---------------------------------------------------------------------------------


def test_roles_come_from_the_allow_list():
    roles = roles_from_secrets(TEAM)
    assert roles.role_of("lead@hospital.org") == RESEARCHER  # case-insensitive, researchers first
    assert roles.role_of("nurse@hospital.org") == VIEWER  # '@hospital.org' admits the domain
    assert roles.role_of("DR.B@uni.edu") == VIEWER
    assert roles.role_of("someone@uni.edu") is None
    assert roles.role_of("x@evil-hospital.org.com") is None
    assert roles.role_of(None) is None and roles.role_of("") is None


def test_domain_entries_match_the_whole_domain_only():
    roles = roles_from_secrets({"radjudge": {"roles": {"viewers": ["@hospital.org"]}}})
    assert roles.role_of("a@hospital.org") == VIEWER
    assert roles.role_of("a@hospital.org.evil.com") is None
    # "nothospital.org" ends with "hospital.org" but not with "@hospital.org"
    assert roles.role_of("a@nothospital.org") is None


def test_set_ups_without_a_team_give_everyone_the_researcher_role():
    assert role_for({}, None) == RESEARCHER  # one user on their own machine
    assert role_for({"auth": AUTH}, None) == RESEARCHER  # sign-in only names raters
    assert not team_mode({"auth": AUTH}) and not team_mode({"radjudge": {"roles": ROLES}})
    assert team_mode(TEAM)
    assert role_for(TEAM, None) is None and role_for(TEAM, "stranger@x.org") is None
    assert role_for(TEAM, "nurse@hospital.org") == VIEWER


@pytest.mark.parametrize("roles, words", [
    ({"researchers": "lead@hospital.org"}, "must be a list"),
    ({"admins": ["a@b.org"]}, "not admins"),
    ({"researchers": [], "viewers": []}, "lists nobody"),
])
def test_a_malformed_allow_list_is_an_error_that_names_it(roles, words):
    with pytest.raises(ValueError, match=words):
        roles_from_secrets({"radjudge": {"roles": roles}})


def test_viewers_do_not_reach_the_pages_that_run_judges():
    for page in ("pages/run.py", "pages/live.py", "pages/distill.py", "pages/checks.py", "pages/review.py"):
        assert may_open(RESEARCHER, page) and not may_open(VIEWER, page) and not may_open(None, page)
    for page in ("pages/correlations.py", "pages/data.py", "pages/annotate.py", "pages/share.py"):
        assert may_open(VIEWER, page) and not may_open(None, page)


@pytest.mark.parametrize("address, secrets, allow_open, refused", [
    ("127.0.0.1", {}, False, False),
    ("localhost", {}, False, False),
    ("::1", {}, False, False),
    ("0.0.0.0", {}, False, True),
    ("", {}, False, True),  # Streamlit's default: every interface
    ("10.1.2.3", {"auth": AUTH}, False, True),  # sign-in without an allow-list admits any account
    ("0.0.0.0", TEAM, False, False),
    ("0.0.0.0", {"auth": {"client_id": "x"}, "radjudge": {"roles": ROLES}}, False, True),
    ("0.0.0.0", {}, True, False),  # said explicitly
    ("0.0.0.0", {"auth": AUTH, "radjudge": {"roles": {"admins": ["a"]}}}, False, True),
])
def test_serving_beyond_loopback_needs_sign_in_and_an_allow_list(address, secrets, allow_open, refused):
    problem = serve_problem(address, secrets, allow_open)
    assert (problem is not None) is refused, problem


def test_the_launcher_reads_the_address_the_way_streamlit_will(tmp_path):
    assert configured_address(["--server.address", "0.0.0.0"], {}) == "0.0.0.0"
    assert configured_address(["--server.address=10.0.0.1"], {}) == "10.0.0.1"
    assert configured_address([], {"STREAMLIT_SERVER_ADDRESS": "0.0.0.0"}) == "0.0.0.0"
    assert configured_address([], {}) == "127.0.0.1"  # the project's .streamlit/config.toml
    assert configured_address([], {}, root=tmp_path) == ""  # no config: every interface


def test_secrets_merge_home_then_project(tmp_path):
    home, root = tmp_path / "home", tmp_path / "root"
    (home / ".streamlit").mkdir(parents=True)
    (root / ".streamlit").mkdir(parents=True)
    (home / ".streamlit" / "secrets.toml").write_text('A = "home"\nB = "home"\n')
    (root / ".streamlit" / "secrets.toml").write_text('B = "project"\n')
    assert read_secrets(root, home) == {"A": "home", "B": "project"}
    (root / ".streamlit" / "secrets.toml").write_text("B = \n")
    with pytest.raises(SystemExit, match="not valid TOML"):
        read_secrets(root, home)


def _project_secrets_configure_a_team() -> bool:
    path = ROOT / ".streamlit" / "secrets.toml"
    return path.exists() and team_mode(tomllib.loads(path.read_text()))


def test_make_serve_refuses_an_open_public_address_and_listens_nowhere(tmp_path):
    if _project_secrets_configure_a_team():
        pytest.skip("this checkout's own .streamlit/secrets.toml configures a team; the refusal cannot show")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, HOME=str(tmp_path), RADJUDGE_STORE=str(tmp_path / "s.duckdb"))
    proc = subprocess.run([sys.executable, str(ROOT / "serve.py"), "--server.address", "0.0.0.0",
                           "--server.port", str(port)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert "refusing to serve on 0.0.0.0" in proc.stderr and "sign-in ([auth])" in proc.stderr
    assert "Traceback" not in proc.stderr
    with socket.socket() as s:  # nothing was started on the port
        assert s.connect_ex(("127.0.0.1", port)) != 0
    assert not (tmp_path / "s.duckdb").exists()


def test_the_dockerfile_installs_the_pinned_requirements_and_serves_through_the_guard():
    text = (ROOT / "Dockerfile").read_text()
    assert "-c constraints.txt -r requirements.txt" in text
    assert 'CMD ["python", "serve.py"' in text and "COPY app.py serve.py" in text and "streamlit run" not in text.split("CMD", 1)[1]
    assert "secrets.toml" not in "".join(line for line in text.splitlines() if line.startswith("COPY"))
    assert ".streamlit/secrets.toml" in (ROOT / ".dockerignore").read_text().splitlines()
    make = (ROOT / "Makefile").read_text()
    assert "serve: setup" in make and "$(PY) serve.py --server.address $(ADDRESS)" in make


# -- the pages ---------------------------------------------------------------------------------


def _team_app(app_test, store: Store, monkeypatch, email: str | None, page: str | None = None):
    import streamlit

    if email:
        monkeypatch.setattr(streamlit, "user", _SignedIn(email))
    at = app_test(store)
    at.secrets["auth"] = AUTH
    at.secrets["radjudge"] = {"roles": ROLES}
    if page:
        at.switch_page(page)
    at.run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    return at


def _all_text(at) -> str:
    kinds = ("title", "header", "subheader", "markdown", "caption", "info", "error", "warning", "text")
    return "\n".join(str(e.value) for kind in kinds for e in getattr(at, kind))


def test_a_visitor_not_signed_in_sees_only_the_sign_in(app_test, demo_store_copy: Store, monkeypatch):
    at = _team_app(app_test, demo_store_copy, monkeypatch, None, "pages/correlations.py")
    assert [b.label for b in at.button] == ["Sign in"]
    text = _all_text(at)
    assert "sign in with your organisation's account" in text
    assert "Kendall" not in text and not at.dataframe and not at.sidebar.selectbox


def test_a_signed_in_stranger_is_refused(app_test, demo_store_copy: Store, monkeypatch):
    at = _team_app(app_test, demo_store_copy, monkeypatch, "stranger@elsewhere.org", "pages/data.py")
    assert any("stranger@elsewhere\\.org is not on this dashboard's list" in e.value for e in at.error)
    assert not at.dataframe and [b.label for b in at.button] == ["Sign out"]


TITLES = {"pages/run.py": "Run judges", "pages/live.py": "Live scoring", "pages/distill.py": "Distill",
          "pages/checks.py": "Checks & leaderboards", "pages/review.py": "Edit review"}


@pytest.mark.parametrize("page", sorted(TITLES))
def test_a_viewer_cannot_reach_a_page_that_runs_judges(app_test, demo_store_copy: Store, monkeypatch, page):
    runs = demo_store_copy.query_one("SELECT count(*) FROM judge_runs")
    at = _team_app(app_test, demo_store_copy, monkeypatch, "nurse@hospital.org", page)
    assert [t.value for t in at.title] == ["Data"]  # not in the viewer's navigation: the router's default
    # the page file itself refuses too (a route the navigation did not make)
    from streamlit.testing.v1 import AppTest

    alone = AppTest.from_file(str(ROOT / page), default_timeout=60)
    alone.secrets["auth"] = AUTH
    alone.secrets["radjudge"] = {"roles": ROLES}
    alone.run()
    assert not alone.exception, [e.value for e in alone.exception]
    assert [e.value for e in alone.error] == [
        "This page is for the researchers who run this dashboard. Viewers browse the results, rate pairs and "
        "download reports."]
    assert not alone.button
    assert demo_store_copy.query_one("SELECT count(*) FROM judge_runs") == runs


def test_a_viewer_browses_rates_and_downloads_but_does_not_import_delete_or_make_queues(
        app_test, demo_store_copy: Store, monkeypatch):
    store = demo_store_copy
    queue_id = ratings.create_queue(store, "demo", "round 1", "sample", n=3, seed=1)
    at = _team_app(app_test, store, monkeypatch, "nurse@hospital.org", "pages/data.py")
    assert [t.label for t in at.tabs] == ["Browse pairs"]  # no 'Import data'
    assert not [b for b in at.button if "Delete" in b.label]
    at.switch_page("pages/annotate.py")
    at.run(timeout=60)
    assert not at.exception
    assert not [b for b in at.button if b.label == "Create queue"]
    assert queue_id
    assert "Rating as **nurse@hospital\\.org** (signed in)." in _all_text(at)  # rating stays open to viewers
    at.switch_page("pages/share.py")
    at.run(timeout=60)
    assert not at.exception
    assert at.get("download_button")  # the report can be downloaded


def test_a_researcher_keeps_every_page_and_action(app_test, demo_store_copy: Store, monkeypatch):
    at = _team_app(app_test, demo_store_copy, monkeypatch, "lead@hospital.org", "pages/data.py")
    assert [t.label for t in at.tabs] == ["Browse pairs", "Import data"]
    at.switch_page("pages/run.py")
    at.run(timeout=60)
    assert not at.exception and "This page is for the researchers" not in _all_text(at)
