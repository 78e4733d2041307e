"""Who may do what when the dashboard is served to a team, and when it may be served at all.

Three set-ups, read from Streamlit's secrets (``.streamlit/secrets.toml``):

* **No ``[auth]`` section**: one user on their own machine. Everything is allowed; ``make run``
  binds loopback only.
* **``[auth]`` (Streamlit's OIDC sign-in) without roles**: sign-in only names the rater on the
  Annotate page; every page is open. Still for loopback.
* **``[auth]`` plus ``[radconcord.roles]``**: a team deployment. Nobody sees anything before signing
  in; a signed-in identity gets the first role whose allow-list holds it:

  .. code-block:: toml

     [radconcord.roles]
     researchers = ["lead@hospital.org"]        # everything: import, run judges, delete
     viewers = ["@hospital.org", "dr.b@uni.edu"] # browse, rate, download reports

  An entry starting with ``@`` admits a whole e-mail domain. Identities not listed are refused.
  Addresses are parsed strictly (:func:`parse_email`): exactly one ``@``, the domain matched whole
  and case-insensitively, so ``mallory@evil.org@hospital.org`` is no address at all.

What a role may see and do is decided in one place, :func:`allowed` (named actions such as
``read_blinded_ratings``, ``adjudicate``, ``see_paths``), called where data is read and written
(``core.reads.ratings``, the report and the bundle), not only where a page is drawn; a write a role
may not make raises :class:`NotAllowed` (:func:`require`).

  The role comes only from an e-mail address the identity provider vouches for (:func:`verified_email`):
  the ID token's ``email_verified`` claim must be true, never a display name. A provider that omits
  the claim (it vouches for every address it issues, e.g. a company's own directory) is trusted only
  when named explicitly, by its ``[auth.NAME]`` section (``default`` for a bare ``[auth]``) or its
  issuer URL (the token's ``iss``):

  .. code-block:: toml

     [radconcord.roles]
     trust_unverified_email = ["default"]        # or ["https://login.hospital.org"]

``serve_problem`` is the guard of ``make serve``: a non-loopback address needs the third set-up,
unless the operator says explicitly that the dashboard may be open.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass

from core import settings

RESEARCHER = "researcher"
VIEWER = "viewer"
AUTH_KEYS = ("redirect_uri", "cookie_secret")

# -- what each role may see and do ------------------------------------------------------------------

BROWSE = "browse"  # open the pages that only read: results, pairs, agreement on unblinded queues
RATE = "rate"  # save one's own ratings on the Annotate page
DOWNLOAD_REPORTS = "download_reports"  # the HTML report and the pages' CSV downloads
READ_BLINDED_RATINGS = "read_blinded_ratings"  # other raters' ratings given in a blinded queue; adjudications
ADJUDICATE = "adjudicate"  # record the adjudicated value of a disagreement (it changes the expert target)
MANAGE_QUEUES = "manage_queues"  # create rating queues, blind or unblind them
SEE_PATHS = "see_paths"  # the store's path or file name, in a page or a download
CHANGE_DATA = "change_data"  # import and delete datasets
RUN_JUDGES = "run_judges"  # the pages that run judges, spend on endpoints or write judge results
#: What a role may do, each action with what it is for (the words of :class:`NotAllowed`).
ACTIONS = {BROWSE: "browse the results", RATE: "rate pairs", DOWNLOAD_REPORTS: "download reports",
           READ_BLINDED_RATINGS: "read other raters' blinded ratings or the adjudications",
           ADJUDICATE: "adjudicate between raters", MANAGE_QUEUES: "create, blind or unblind rating queues",
           SEE_PATHS: "see the store's path", CHANGE_DATA: "import or delete data", RUN_JUDGES: "run judges"}
PERMISSIONS = {RESEARCHER: frozenset(ACTIONS), VIEWER: frozenset({BROWSE, RATE, DOWNLOAD_REPORTS})}


class NotAllowed(PermissionError):
    """A role asked for an action it may not take (:func:`require`); the message is one line."""


def allowed(role: str | None, action: str) -> bool:
    """Whether ``role`` (researcher, viewer, or None: no role) may take ``action`` (one of :data:`ACTIONS`).

    The one place these rules live. Outside a team deployment every visitor is a researcher
    (:func:`role_for_user`). An unknown action is a programming error (ValueError), never a yes.
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown action '{action}'; actions are: {', '.join(ACTIONS)}")
    return action in PERMISSIONS.get(role, frozenset())  # type: ignore[arg-type]


def require(role: str | None, action: str) -> None:
    """Raise :class:`NotAllowed` unless ``role`` may take ``action``: the check of core's writes."""
    if not allowed(role, action):
        who = f"a {role}" if role else "a visitor without a role"
        raise NotAllowed(f"{who} may not {ACTIONS[action]}: researchers only")


# -- e-mail addresses ------------------------------------------------------------------------------

_LOCAL_RE = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$")
_LABEL_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


def parse_email(text: object) -> tuple[str, str] | None:
    """``(local, domain)`` of an e-mail address, lower-cased, or None when ``text`` is not exactly one.

    Strict: exactly one ``@``; a local part of the usual unquoted characters; a domain of two or more
    dot-separated labels (letters, digits, inner hyphens). Surrounding spaces are ignored, inner ones
    are not an address. ``mallory@evil.org@hospital.org`` is None, not an address at hospital.org.
    """
    if not isinstance(text, str):
        return None
    local, at, domain = text.strip().partition("@")
    if not at or "@" in domain or not _LOCAL_RE.match(local):
        return None
    domain = domain.lower()
    labels = domain.split(".")
    if len(domain) > 253 or len(labels) < 2 or not all(_LABEL_RE.match(label) for label in labels):
        return None
    return local.lower(), domain


_ABSENT = object()


def verified_email(user: Mapping | None, trusted: tuple[str, ...] = ()) -> str | None:
    """The e-mail of a signed-in ``user`` (the ID token's claims, as ``st.user`` holds them) when the
    identity provider vouches for it, else None.

    ``email_verified`` must be true when present (a JSON ``true``, or the string "true" some providers
    send); when absent, the provider (``provider``, the ``[auth.NAME]`` section; ``default`` for a bare
    ``[auth]``) or its issuer (``iss``) must be in ``trusted``. The display name never counts.
    """
    if not user:
        return None
    email = user.get("email")
    if parse_email(email) is None:  # not exactly one address: no role, whatever the provider says
        return None
    claim = user.get("email_verified", _ABSENT)
    if claim is _ABSENT:
        vouched = {str(user.get(k) or "").strip().lower().rstrip("/") for k in ("provider", "iss")} - {""}
        if not vouched & {t.rstrip("/") for t in trusted}:
            return None
    elif not (claim is True or (isinstance(claim, str) and claim.strip().lower() == "true")):
        return None
    return email.strip()


@dataclass(frozen=True)
class Roles:
    researchers: tuple[str, ...]
    viewers: tuple[str, ...]
    # providers or issuers whose ID tokens carry no email_verified claim, trusted by the operator's say-so
    trust_unverified_email: tuple[str, ...] = ()

    def role_of(self, identity: str | None) -> str | None:
        """The role of a signed-in ``identity`` (an e-mail), or None when it is on no list or is not
        exactly one address (:func:`parse_email`): an address entry matches the whole address, an
        ``@domain`` entry the whole domain, both case-insensitively."""
        parsed = parse_email(identity)
        if parsed is None:
            return None
        local, domain = parsed
        for role, entries in ((RESEARCHER, self.researchers), (VIEWER, self.viewers)):
            for entry in entries:
                if entry == f"@{domain}" or entry == f"{local}@{domain}":
                    return role
        return None


def _entries(value, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    what = ("provider names or issuer URLs" if where == "trust_unverified_email"
            else "e-mail addresses or '@domain' entries")
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"[radconcord.roles] {where} must be a list of {what}")
    entries = tuple(v.strip().lower() for v in value if v.strip())
    if where != "trust_unverified_email":
        for entry in entries:  # an entry that no address can match exactly is a typo, not a rule
            if parse_email(("x" + entry) if entry.startswith("@") else entry) is None:
                raise ValueError(f"[radconcord.roles] {where}: '{entry}' is not an e-mail address or '@domain'")
    return entries


def sign_in_configured(secrets: Mapping) -> bool:
    """Whether Streamlit's OIDC sign-in is set up (an ``[auth]`` section)."""
    return "auth" in secrets


def roles_from_secrets(secrets: Mapping) -> Roles | None:
    """The team's allow-lists, or None when ``[radconcord.roles]`` is absent (no team deployment).

    Raises ValueError on a malformed section (a string instead of a list, a role nobody has).
    """
    section = settings.secret_section(secrets) or {}
    roles = section.get("roles") if isinstance(section, Mapping) else None
    if roles is None:
        return None
    unknown = sorted(set(roles) - {"researchers", "viewers", "trust_unverified_email"})
    if unknown:
        raise ValueError(f"[radconcord.roles] knows 'researchers', 'viewers' and 'trust_unverified_email', "
                         f"not {', '.join(unknown)}")
    parsed = Roles(_entries(roles.get("researchers"), "researchers"), _entries(roles.get("viewers"), "viewers"),
                   _entries(roles.get("trust_unverified_email"), "trust_unverified_email"))
    if not parsed.researchers and not parsed.viewers:
        raise ValueError("[radconcord.roles] lists nobody: add researchers = [...] and/or viewers = [...]")
    return parsed


def team_mode(secrets: Mapping) -> bool:
    """Sign-in and roles both configured: the whole dashboard is behind sign-in."""
    return sign_in_configured(secrets) and roles_from_secrets(secrets) is not None


def role_for(secrets: Mapping, identity: str | None) -> str | None:
    """The role of a visitor whose verified e-mail is ``identity``: researcher outside a team deployment;
    otherwise from the lists (None: not signed in, or signed in but on no list)."""
    if not team_mode(secrets):
        return RESEARCHER
    return roles_from_secrets(secrets).role_of(identity)


def role_for_user(secrets: Mapping, user: Mapping | None) -> str | None:
    """The role of a visitor whose ID token claims are ``user`` (None: not signed in): in a team
    deployment, from the e-mail the provider vouches for (:func:`verified_email`) and nothing else."""
    if not team_mode(secrets):
        return RESEARCHER
    roles = roles_from_secrets(secrets)
    return roles.role_of(verified_email(user, roles.trust_unverified_email))


def may_open(role: str | None, audience: str) -> bool:
    """Whether ``role`` may open a page for ``audience``: :data:`RESEARCHER` (the pages that run judges,
    spend on endpoints or write judge results) or :data:`VIEWER` (every role that may browse). Each
    page's audience is its row of the dashboard's page table (ui/page_table.py)."""
    if audience not in (RESEARCHER, VIEWER):
        raise ValueError(f"unknown audience '{audience}'; pages are for '{RESEARCHER}' or '{VIEWER}'")
    return allowed(role, RUN_JUDGES if audience == RESEARCHER else BROWSE)


def is_loopback(address: str) -> bool:
    """127.0.0.0/8, ::1 or localhost; an empty address (every interface) is not."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:  # a host name: whatever it resolves to, it is not a loopback literal
        return False


def serve_problem(address: str, secrets: Mapping, allow_open: bool = False) -> str | None:
    """Why the dashboard must not listen on ``address``, or None when it may."""
    if is_loopback(address) or allow_open:
        return None
    try:
        team = team_mode(secrets)
    except ValueError as exc:
        return f"cannot serve on {address}: {exc}"
    if team:
        missing = [k for k in AUTH_KEYS if not secrets["auth"].get(k)]
        if missing:
            return f"cannot serve on {address}: [auth] lacks {', '.join(missing)} (see docs/serving.md)"
        return None
    what = "sign-in ([auth])" if not sign_in_configured(secrets) else "an allow-list ([radconcord.roles])"
    return (f"refusing to serve on {address}: {what} is not configured in .streamlit/secrets.toml, so anyone "
            f"who can reach this address would see every report. Configure it (docs/serving.md), "
            f"serve on 127.0.0.1, or pass --allow-open if this network is private to you.")


def researcher_contacts(secrets: Mapping) -> tuple[str, ...]:
    """Whom a clinician asks for a rating queue: the researchers' addresses in ``[radconcord.roles]`` (a whole
    ``@domain`` entry names nobody, so it is left out); () without a team deployment or with a malformed
    section (the gate says why)."""
    try:
        roles = roles_from_secrets(secrets)
    except ValueError:
        return ()
    return tuple(r for r in roles.researchers if not r.startswith("@")) if roles else ()
