"""Serving a team: roles from the secrets' allow-list (and only from an e-mail the identity provider
verified), the pages each role reaches, the store path only researchers see, and the launcher's refusal
to listen on a public address without sign-in (core/access.py, ui/access.py, serve.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from core.access import (
    ACTIONS,
    RESEARCHER,
    VIEWER,
    NotAllowed,
    allowed,
    may_open,
    parse_email,
    require,
    role_for,
    role_for_user,
    roles_from_secrets,
    serve_problem,
    team_mode,
    verified_email,
)
from core.reads import ratings
from core.serve import configured_address, read_secrets
from core.store.db import Store
from tests.app.test_page_annotate import AUTH

ROOT = Path(__file__).resolve().parents[2]
ROLES = {"researchers": ["Lead@Hospital.org"], "viewers": ["@hospital.org", "dr.b@uni.edu"]}
TEAM = {"auth": AUTH, "radconcord": {"roles": ROLES}}


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
    roles = roles_from_secrets({"radconcord": {"roles": {"viewers": ["@hospital.org"]}}})
    assert roles.role_of("a@hospital.org") == VIEWER
    assert roles.role_of("a@hospital.org.evil.com") is None
    # "nothospital.org" ends with "hospital.org" but not with "@hospital.org"
    assert roles.role_of("a@nothospital.org") is None


def test_set_ups_without_a_team_give_everyone_the_researcher_role():
    assert role_for({}, None) == RESEARCHER  # one user on their own machine
    assert role_for({"auth": AUTH}, None) == RESEARCHER  # sign-in only names raters
    assert not team_mode({"auth": AUTH}) and not team_mode({"radconcord": {"roles": ROLES}})
    assert team_mode(TEAM)
    assert role_for(TEAM, None) is None and role_for(TEAM, "stranger@x.org") is None
    assert role_for(TEAM, "nurse@hospital.org") == VIEWER


# -- one decision of what a role may see and do; addresses parsed strictly (issue 42, items 1, 8) ------


def test_allowed_is_the_one_decision_of_what_each_role_may_do():
    viewer = {a for a in ACTIONS if allowed(VIEWER, a)}
    assert viewer == {"browse", "rate", "download_reports"}
    for action in ("read_blinded_ratings", "adjudicate", "manage_queues", "see_paths", "change_data", "run_judges"):
        assert allowed(RESEARCHER, action) and not allowed(VIEWER, action) and not allowed(None, action), action
    assert not any(allowed(None, a) or allowed("admin", a) for a in ACTIONS)  # no role, or an unknown one
    with pytest.raises(ValueError, match="unknown action 'adjudicat'"):
        allowed(RESEARCHER, "adjudicat")  # a typo is an error, never a yes
    require(RESEARCHER, "adjudicate")
    with pytest.raises(NotAllowed, match="^a viewer may not see the store's path: researchers only$"):
        require(VIEWER, "see_paths")


@pytest.mark.parametrize("text, parsed", [
    ("nurse@hospital.org", ("nurse", "hospital.org")),
    (" Dr.B+x@Uni.EDU ", ("dr.b+x", "uni.edu")),  # case-insensitive, surrounding spaces ignored
    ("a@sub.hospital.org", ("a", "sub.hospital.org")),
    ("mallory@evil.org@hospital.org", None),  # two @: no address at all
    ("@hospital.org", None), ("nurse@", None), ("nurse", None), ("", None), (None, None), (42, None),
    ("nurse@hospital", None),  # a domain needs a dot
    ("nurse@hospital..org", None), ("nurse@-hospital.org", None), ("nurse@hospital.org.", None),
    ("nu rse@hospital.org", None), ("nurse@hospital.org\n", ("nurse", "hospital.org")),
    ("nurse@hosp ital.org", None), ('"a@b"@hospital.org', None), ("nurse@hospital.org>", None),
])
def test_email_addresses_are_parsed_strictly(text, parsed):
    assert parse_email(text) == parsed


def test_an_address_with_two_ats_gets_no_role_even_when_verified():
    roles = roles_from_secrets(TEAM)
    for ident in ("mallory@evil.org@hospital.org", "mallory@hospital.org@evil.org", "nurse@hospital.org "
                  "@hospital.org", "x@evil.org@uni.edu"):
        assert roles.role_of(ident) is None, ident
    claims = {"email": "mallory@evil.org@hospital.org", "email_verified": True}
    assert verified_email(claims) is None and role_for_user(TEAM, claims) is None
    assert role_for_user(TEAM, {"email": "Nurse@HOSPITAL.org", "email_verified": True}) == VIEWER
    assert roles.role_of("dr.b@uni.edu.evil.org") is None and roles.role_of("xdr.b@uni.edu") is None


@pytest.mark.parametrize("entry", ["@evil.org@hospital.org", "hospital.org", "a@b@c.org", "@", "lead@"])
def test_an_allow_list_entry_that_is_not_an_address_or_domain_is_an_error(entry):
    with pytest.raises(ValueError, match="is not an e-mail address or '@domain'"):
        roles_from_secrets({"radconcord": {"roles": {"viewers": [entry]}}})


# -- the role comes from a verified e-mail only (issue 31, item 5) ---------------------------------

LEAD = "lead@hospital.org"  # a researcher on ROLES


@pytest.mark.parametrize("claims, role", [
    ({"email": LEAD, "email_verified": True, "name": "Lead"}, RESEARCHER),
    ({"email": LEAD, "email_verified": "true"}, RESEARCHER),  # a provider that sends the claim as a string
    ({"name": LEAD}, None),  # a display name equal to the researcher's address: never a role
    ({"name": LEAD, "email_verified": True}, None),
    ({"email": LEAD, "email_verified": False}, None),  # the provider says it did not verify the address
    ({"email": LEAD, "email_verified": "false"}, None),
    ({"email": LEAD, "email_verified": None}, None),
    ({"email": LEAD}, None),  # claim absent, provider not trusted explicitly
    ({"email": LEAD, "provider": "default", "iss": "https://login.example.org"}, None),
    ({"email": "", "name": LEAD, "email_verified": True}, None),
    (None, None),  # not signed in
])
def test_the_role_comes_only_from_an_email_the_provider_verified(claims, role):
    assert role_for_user(TEAM, claims) == role
    assert role_for_user({}, claims) == RESEARCHER  # one user on their own machine: no roles at all


@pytest.mark.parametrize("trusted, claims, role", [
    (["default"], {"email": LEAD, "provider": "default"}, RESEARCHER),  # a bare [auth] section
    (["Okta"], {"email": LEAD, "provider": "okta"}, RESEARCHER),  # [auth.okta]
    (["https://login.example.org/"], {"email": LEAD, "iss": "https://login.example.org"}, RESEARCHER),
    (["okta"], {"email": LEAD, "provider": "google"}, None),  # another provider is not trusted
    (["default"], {"email": LEAD}, None),  # nothing says which provider
    (["default"], {"email": LEAD, "provider": "default", "email_verified": False}, None),  # a false claim wins
    (["default"], {"name": LEAD, "provider": "default"}, None),  # still never the name
])
def test_a_provider_without_the_claim_is_trusted_only_when_named(trusted, claims, role):
    secrets = {"auth": AUTH, "radconcord": {"roles": dict(ROLES, trust_unverified_email=trusted)}}
    assert role_for_user(secrets, claims) == role


def test_verified_email_gives_the_address_not_the_name():
    assert verified_email({"email": " Lead@Hospital.org ", "email_verified": True}) == "Lead@Hospital.org"
    assert verified_email({"name": "x@y.org", "email_verified": True}) is None
    assert verified_email({"email": "not an address", "email_verified": True}) is None


@pytest.mark.parametrize("roles, words", [
    ({"researchers": ["a@b.org"], "trust_unverified_email": "default"}, "list of provider names or issuer URLs"),
    ({"researchers": "lead@hospital.org"}, "must be a list"),
    ({"admins": ["a@b.org"]}, "not admins"),
    ({"researchers": [], "viewers": []}, "lists nobody"),
])
def test_a_malformed_allow_list_is_an_error_that_names_it(roles, words):
    with pytest.raises(ValueError, match=words):
        roles_from_secrets({"radconcord": {"roles": roles}})


def test_viewers_do_not_reach_the_pages_that_run_judges():
    from ui.page_table import page

    for path in ("pages/run.py", "pages/live.py", "pages/distill.py", "pages/checks.py", "pages/review.py"):
        audience = page(path).audience
        assert may_open(RESEARCHER, audience) and not may_open(VIEWER, audience) and not may_open(None, audience)
    for path in ("pages/correlations.py", "pages/data.py", "pages/annotate.py", "pages/share.py"):
        assert may_open(VIEWER, page(path).audience) and not may_open(None, page(path).audience)


@pytest.mark.parametrize("address, secrets, allow_open, refused", [
    ("127.0.0.1", {}, False, False),
    ("localhost", {}, False, False),
    ("::1", {}, False, False),
    ("0.0.0.0", {}, False, True),
    ("", {}, False, True),  # Streamlit's default: every interface
    ("10.1.2.3", {"auth": AUTH}, False, True),  # sign-in without an allow-list admits any account
    ("0.0.0.0", TEAM, False, False),
    ("0.0.0.0", {"auth": {"client_id": "x"}, "radconcord": {"roles": ROLES}}, False, True),
    ("0.0.0.0", {}, True, False),  # said explicitly
    ("0.0.0.0", {"auth": AUTH, "radconcord": {"roles": {"admins": ["a"]}}}, False, True),
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
    env = dict(os.environ, HOME=str(tmp_path), RADCONCORD_STORE=str(tmp_path / "s.duckdb"))
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


class _User:
    """Stands in for ``st.user`` of a visitor signed in through the configured OIDC provider: the ID
    token's claims as given (a claim left out stays absent)."""

    is_logged_in = True

    def __init__(self, claims: dict):
        self.claims = claims

    def get(self, key, default=None):
        return self.claims.get(key, default)


def _team_app(app_test, store: Store, monkeypatch, email: str | dict | None, page: str | None = None,
              roles: dict | None = None):
    """app.py in a team deployment; ``email`` signs in a visitor whose provider verified that address
    (a dict: exactly those claims)."""
    import streamlit

    if email:
        claims = email if isinstance(email, dict) else {"email": email, "email_verified": True, "name": "Carol"}
        monkeypatch.setattr(streamlit, "user", _User(claims))
    at = app_test(store)
    at.secrets["auth"] = AUTH
    at.secrets["radconcord"] = {"roles": roles or ROLES}
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
    # the page file run alone (a route the navigation did not make) draws nothing but one line (ui/router.py)
    from streamlit.testing.v1 import AppTest

    from ui.router import NOT_ROUTED

    alone = AppTest.from_file(str(ROOT / page), default_timeout=60)
    alone.secrets["auth"] = AUTH
    alone.secrets["radconcord"] = {"roles": ROLES}
    alone.run()
    assert not alone.exception, [e.value for e in alone.exception]
    assert [e.value for e in alone.error] == [NOT_ROUTED]
    assert not alone.button and not alone.title
    assert demo_store_copy.query_one("SELECT count(*) FROM judge_runs") == runs


def test_a_viewer_browses_rates_and_downloads_but_does_not_import_delete_or_make_queues(
        app_test, demo_store_copy: Store, monkeypatch):
    store = demo_store_copy
    queue_id = ratings.create_queue(store, "demo", "round 1", "sample", n=3, seed=1, role="researcher")
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


@pytest.mark.parametrize("claims", [
    {"name": "lead@hospital.org"},  # no e-mail; a display name that reads like the researcher's address
    {"email": "lead@hospital.org", "email_verified": False, "name": "Lead"},
    {"email": "lead@hospital.org", "name": "Lead"},  # the claim absent and the provider not trusted
])
def test_an_identity_without_a_verified_email_is_refused_in_the_app(app_test, demo_store_copy: Store,
                                                                      monkeypatch, claims):
    at = _team_app(app_test, demo_store_copy, monkeypatch, claims, "pages/run.py")
    assert any("did not confirm an e-mail address" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.dataframe and [b.label for b in at.button] == ["Sign out"]
    assert str(demo_store_copy.path) not in _tree_text(at)


def test_a_provider_named_in_trust_unverified_email_admits_its_addresses(app_test, demo_store_copy: Store,
                                                                          monkeypatch):
    claims = {"email": "lead@hospital.org", "name": "Lead", "provider": "default"}
    at = _team_app(app_test, demo_store_copy, monkeypatch, claims, "pages/data.py",
                   roles=dict(ROLES, trust_unverified_email=["default"]))
    assert [t.label for t in at.tabs] == ["Browse pairs", "Import data"]  # the researcher's Data page


def _tree_text(at) -> str:
    """Every element the script sent, as protobuf text (captions, code blocks, markdown, labels ...)."""
    parts = []

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


@pytest.mark.parametrize("page", ["pages/data.py", "pages/correlations.py", "pages/annotate.py", "pages/share.py"])
def test_only_researchers_see_the_store_path(app_test, demo_store_copy: Store, monkeypatch, page):
    path = str(demo_store_copy.path)
    viewer = _team_app(app_test, demo_store_copy, monkeypatch, "nurse@hospital.org", page)
    assert viewer.sidebar.selectbox  # the sidebar was drawn (the dataset picker) ...
    assert path not in _tree_text(viewer) and demo_store_copy.path.name not in _tree_text(viewer)  # ... no path
    assert "Store" not in [c.value for c in viewer.sidebar.caption]
    researcher = _team_app(app_test, demo_store_copy, monkeypatch, "lead@hospital.org", page)
    assert path in [c.value for c in researcher.sidebar.code]
    assert path in _tree_text(researcher)  # the same search finds the path when it is shown


def test_a_viewer_gets_no_clinician_target_made_of_blinded_ratings(app_test, demo_store_copy: Store, monkeypatch):
    """Issue 42, item 1, beyond Annotate: with the clinicians as the expert target a page shows their
    ratings pair by pair (Correlations' pairs table and CSV), so a viewer is not offered raters whose
    ratings were given in a blinded queue; a researcher is."""
    from core.judges import run_judge

    store = demo_store_copy
    run_judge(store, dataset="demo", judge="rules")  # a judge to correlate with the target
    queue_id = ratings.create_queue(store, "demo", "blind", "sample", n=4, seed=3, blinded=True, role="researcher")
    for pid in ratings.queue_pair_ids(store, queue_id):
        ratings.save_rating(store, pid, "alice@hospital.org", score=1, queue_id=queue_id)

    def experts(email: str) -> list:
        at = _team_app(app_test, store, monkeypatch, email, "pages/correlations.py")
        return [r.options for r in at.radio if r.label == "Experts"]

    assert experts("lead@hospital.org") == [["experts (imported annotations)", "clinician ratings (this study)"]]
    assert experts("nurse@hospital.org") == []  # the imported annotations only: no widget, no clinician
