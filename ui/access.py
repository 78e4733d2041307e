"""The dashboard's side of :mod:`core.access`: who the visitor is and what they may open.

``gate()`` runs in app.py before the navigation: in a team deployment (sign-in plus
``[radconcord.roles]`` in the secrets) a visitor who is not signed in sees only a sign-in button,
and one signed in but on no allow-list sees only a refusal. Every page's start calls
``refuse_unless_open()`` with its row of the page table (the navigation already hides a
researcher page from viewers; a typed URL must not reach it either); pages with an action for some roles only ask ``may(action)``, i.e.
:func:`core.access.allowed` for the visitor's role (core's reads and writes ask it again themselves).
"""

from __future__ import annotations

import streamlit as st

from core.access import allowed, may_open, parse_email, role_for_user, roles_from_secrets, verified_email
from ui.page_table import PageSpec
from ui.shared import escape_md

VIEWER_CAN = "Viewers browse the results, rate pairs and download reports."


def secrets() -> dict:
    """Streamlit's secrets as a plain dict ({} when there is no secrets file)."""
    try:
        return st.secrets.to_dict()
    except (FileNotFoundError, OSError, ValueError, AttributeError):
        return {}


def signed_in_identity() -> str | None:
    """The OIDC identity (e-mail, else name) when the visitor signed in, else None: a label (the rater's
    name, who started a job), never a role; roles come from :func:`signed_in_claims`."""
    try:
        if st.user.is_logged_in:
            return str(st.user.get("email") or st.user.get("name") or "") or None
    except (AttributeError, KeyError, RuntimeError):
        pass
    return None


#: The ID token claims a role is decided on (core.access.verified_email).
ROLE_CLAIMS = ("email", "email_verified", "provider", "iss")


def signed_in_claims() -> dict | None:
    """The claims of :data:`ROLE_CLAIMS` the visitor's identity provider sent (absent ones left out, so
    a missing ``email_verified`` stays missing), or None when the visitor is not signed in."""
    try:
        if not st.user.is_logged_in:
            return None
        absent = object()
        return {k: v for k in ROLE_CLAIMS if (v := st.user.get(k, absent)) is not absent}
    except (AttributeError, KeyError, RuntimeError):
        return None


def current_role() -> str | None:
    """researcher / viewer, or None (team deployment: not signed in, or on no list)."""
    try:
        return role_for_user(secrets(), signed_in_claims())
    except ValueError:  # a malformed allow-list admits nobody; gate() says why
        return None


def may(action: str) -> bool:
    """Whether the visitor may take ``action`` (one of core.access.ACTIONS)."""
    return allowed(current_role(), action)


def gate() -> str:
    """The visitor's role; stops the script with a sign-in screen or a refusal when there is none."""
    try:
        role = role_for_user(secrets(), signed_in_claims())  # researcher outside a team deployment
    except ValueError as exc:
        st.error(f"The team's allow-list in the secrets is wrong: {escape_md(exc)}. Nobody is admitted until it is fixed.")
        st.stop()
    if role is not None:
        return role
    # A navigation of one hidden entry: no page list in the sidebar (a new server would otherwise list the
    # files of pages/ before any st.navigation call), and every address lands on this screen.
    st.navigation([st.Page(_closed, title="RadConcord", url_path="signin", default=True)], position="hidden")
    identity = signed_in_identity()
    st.title("RadConcord")
    if identity is None:
        st.info("This dashboard is shared with a team: sign in with your organisation's account to see it.")
        if st.button("Sign in", key="gate_login", type="primary"):
            st.login()
    else:
        claims = signed_in_claims() or {}
        if claims.get("email") and parse_email(claims["email"]) is None:
            st.error(f"Signed in as {escape_md(identity)}, which is not one e-mail address (exactly one @ and a "
                     "domain), so it has no role here. Ask the person who runs this dashboard.")
        elif verified_email(claims, roles_from_secrets(secrets()).trust_unverified_email) is None:
            st.error(f"Signed in as {escape_md(identity)}, but your identity provider did not confirm an e-mail "
                     "address for this account, and a role is given only to a confirmed address. Ask the person who "
                     "runs this dashboard.")
        else:
            st.error(f"{escape_md(identity)} is not on this dashboard's list of researchers or viewers. Ask the person "
                     "who runs it to add you.")
        if st.button("Sign out", key="gate_logout"):
            st.logout()
    st.stop()


def _closed() -> None:
    """The only page of a visitor without a role (never run: gate() stops first)."""


def refuse_unless_open(spec: PageSpec) -> None:
    """Stop the page of row ``spec`` (ui/page_table.py) for a visitor who may not open it (a viewer who
    typed its URL): the navigation already leaves it out; this is the page's own check."""
    if not may_open(current_role(), spec.audience):
        st.error(f"This page is for the researchers who run this dashboard. {VIEWER_CAN}")
        st.stop()
