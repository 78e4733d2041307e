"""Endpoints and keys: where report text may go, which key goes with it, and cutting keys out of text.

- ``local_only`` (``RADCONCORD_LOCAL_ONLY``) refuses any endpoint that is not loopback or private
  (:func:`check_endpoint`, before anything is sent);
- a provider's key from the environment goes only to that provider's own API host
  (:func:`environment_key_allowed`); any other endpoint gets the key the user names, or :data:`NO_KEY`;
- :func:`redact` removes credentials from messages; :func:`safe_api_base` drops ``user:password@``.

Leaf module: the gateway (core.judges.llm), the direct path and the planner (core.models) read it.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit, urlunsplit

from core import settings

_KEY_SHAPES = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|AKIA[0-9A-Z]{16}|Bearer\s+[A-Za-z0-9._\-]{8,})")


def redact(text: str | None, extra: list[str] | None = None) -> str | None:
    """Remove anything that looks like a credential from a message."""
    if text is None:
        return None
    secrets = settings.secret_values()
    secrets += [s for s in (extra or []) if s and len(s) >= 4]
    for s in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(s, "[redacted]")
    return _KEY_SHAPES.sub("[redacted]", text)


def safe_api_base(api_base: str | None) -> str | None:
    """The endpoint without any user:password part (safe to record)."""
    if not api_base:
        return None
    parts = urlsplit(api_base)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def is_private_endpoint(api_base: str | None) -> bool:
    """True when the endpoint resolves only to loopback or private addresses."""
    if not api_base:
        return False
    host = urlsplit(api_base).hostname
    if not host:
        return False
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    for addr in addresses:
        ip = ipaddress.ip_address(addr.split("%")[0])
        if not (ip.is_loopback or ip.is_private or ip.is_link_local):
            return False
    return bool(addresses)


class EndpointRefused(ValueError):
    """``local_only`` is on and the endpoint is not on this machine or a private network."""


def check_endpoint(model: str, api_base: str | None, local_only: bool) -> None:
    if not local_only:
        return
    if not api_base:
        raise EndpointRefused(
            f"local_only is on: model '{model}' has no api_base, so report text would go to a public "
            "provider; give --api-base of a local/private server or turn local_only off")
    if not is_private_endpoint(api_base):
        raise EndpointRefused(
            f"local_only is on: {safe_api_base(api_base)} is not a loopback or private address")


# A provider's own API hosts: a key from the environment goes to these only.
PROVIDER_HOSTS: dict[str, tuple[str, ...]] = {
    "openai": ("api.openai.com",), "anthropic": ("api.anthropic.com",),
    "gemini": ("generativelanguage.googleapis.com",), "mistral": ("api.mistral.ai",),
    "groq": ("api.groq.com",), "together_ai": ("api.together.xyz",), "openrouter": ("openrouter.ai",),
    "deepseek": ("api.deepseek.com",), "cohere": ("api.cohere.ai", "api.cohere.com"),
    "fireworks_ai": ("api.fireworks.ai",), "xai": ("api.x.ai",),
}
NO_KEY = "no-key-needed"  # what a custom endpoint receives when the user named no key for it


def environment_key_allowed(provider: str, api_base: str | None) -> bool:
    """May litellm take ``provider``'s key from the environment for a call to ``api_base``?

    Only for the provider's own endpoint (no ``api_base``, or one on its own API host). Any other
    endpoint is someone else's server: it gets a key only when the user names one for it
    (``--api-key-env NAME`` on the CLI, ``[endpoint_keys]`` in Streamlit secrets).
    """
    if not api_base:
        return True
    host = (urlsplit(api_base).hostname or "").lower()
    return host in PROVIDER_HOSTS.get(provider, ())
