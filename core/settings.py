"""Every environment variable RadConcord reads, in one place.

| variable | meaning | default |
| --- | --- | --- |
| RADCONCORD_STORE | path of the DuckDB store | data/radconcord.duckdb (data/radjudge.duckdb when only that exists) |
| RADCONCORD_LOCAL_ONLY | "true": refuse model endpoints outside loopback/private networks | false |
| RADCONCORD_API_BASE | default api_base for an OpenAI-compatible server | unset |
| RADCONCORD_MODELS | comma-separated litellm model names offered in the dashboard (`name=URL` gives one its own endpoint) | unset |
| RADCONCORD_LITELLM_ONLY | "true": every model call goes through litellm, also those core.judges.direct would send itself | false |
| LITELLM_LOCAL_MODEL_COST_MAP | set to "True" here before litellm is imported, so it never downloads its price map | True |
| RADCONCORD_PUBLIC_URL | the address colleagues reach the dashboard at (share links) | unset |
| provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) | read by litellm from the environment; never stored or logged | unset |

Nothing else in core/ or pages/ reads ``os.environ``: they ask here. Settings that may also come from
Streamlit secrets (root-level values; the environment wins) are merged by :func:`merged`.

Every variable answers to two names (issue 45): ``RADCONCORD_X`` and the old ``RADJUDGE_X``, the new name
winning when both are set; reading an old name prints a one-line notice on stderr, once per process
(:func:`lookup`, used by :func:`env_value` and :func:`merged`). The same holds for the secrets section
(``[radconcord.roles]`` / ``[radjudge.roles]``: :func:`secret_section`) and the default store file
(``data/radconcord.duckdb``; an existing ``data/radjudge.duckdb`` is still found: core.store.db).
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Mapping

# >>> old names (issue 45): the rename sweep leaves this block as it is (the aliases' own spelling)
NEW_PREFIX, OLD_PREFIX = "RADCONCORD_", "RADJUDGE_"
NEW_SECTION, OLD_SECTION = "radconcord", "radjudge"  # the Streamlit secrets section ([radconcord.roles])
NEW_STORE_FILE, OLD_STORE_FILE = "data/radconcord.duckdb", "data/radjudge.duckdb"
# <<< old names
_NOTICED: set[str] = set()


def notice_old_name(old: str, new: str) -> None:
    """The one-line deprecation notice (stderr, once per process and name)."""
    if old not in _NOTICED:
        _NOTICED.add(old)
        print(f"note: {old} is an old name, still read; use {new} instead", file=sys.stderr, flush=True)


def both_names(name: str) -> tuple[str, str]:
    """(new, old) spelling of a variable given by either."""
    for prefix in (NEW_PREFIX, OLD_PREFIX):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            return NEW_PREFIX + rest, OLD_PREFIX + rest
    return name, name


def lookup(source: Mapping, name: str, default=None, *, notice: bool = True):
    """``source[name]`` under the variable's new name, else under its old one (with the notice), else default."""
    new, old = both_names(name)
    if new in source:
        return source[new]
    if old in source:
        if notice and old != new:
            notice_old_name(old, new)
        return source[old]
    return default


def secret_section(secrets: Mapping, name: str = NEW_SECTION):
    """A section of the Streamlit secrets (``[radconcord]``), or the same under the old name (with the notice)."""
    if NEW_SECTION in secrets:
        return secrets[NEW_SECTION]
    if OLD_SECTION in secrets:
        notice_old_name(f"[{OLD_SECTION}] in the secrets", f"[{NEW_SECTION}]")
        return secrets[OLD_SECTION]
    return None


STORE_VAR = "RADCONCORD_STORE"
MODELS_VAR = "RADCONCORD_MODELS"
API_BASE_VAR = "RADCONCORD_API_BASE"
LOCAL_ONLY_VAR = "RADCONCORD_LOCAL_ONLY"
PUBLIC_URL_VAR = "RADCONCORD_PUBLIC_URL"
LITELLM_ONLY_VAR = "RADCONCORD_LITELLM_ONLY"
_TRUE = {"1", "true", "yes", "on"}
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.I)


def apply_offline_defaults() -> None:
    """Make library start-up offline: no price-map download, no telemetry."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")


def set_defaults(values: Mapping[str, str]) -> None:
    """Set each variable that is not set already (the launcher's packaged Streamlit settings)."""
    for name, value in values.items():
        os.environ.setdefault(name, value)


def use_local_price_map() -> None:
    """litellm's bundled price map, whatever the environment says (the dashboard sets it before any import)."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


def apply_offline_hub() -> None:
    """Never let Hugging Face libraries reach a model hub, whatever a local model path holds."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def environ() -> Mapping[str, str]:
    """The process environment (the only place it is read)."""
    return os.environ


def env_value(name: str, *, notice: bool = True) -> str:
    """One environment variable under its new or old name (:func:`lookup`), stripped ('' when unset)."""
    return str(lookup(os.environ, name, "", notice=notice)).strip()


def merged(env: Mapping[str, str] | None = None, secrets: Mapping | None = None) -> dict[str, str]:
    """Secrets overlaid by the environment; only plain (root-level, scalar) values. A variable with two
    names (:func:`both_names`) is there under both, with the value :func:`lookup` reads (the new name
    wins within a source; the environment wins over the secrets)."""
    out: dict[str, str] = {}
    for source in (secrets or {}, environ() if env is None else env):
        for k in source:
            new, old = both_names(str(k))
            v = lookup(source, str(k))
            if isinstance(v, str | int | float | bool) and not isinstance(v, Mapping):
                out[new] = out[old] = str(v)
    return out


def is_true(value: object) -> bool:
    return str(value or "").strip().lower() in _TRUE


def local_only(env: Mapping[str, str] | None = None, secrets: Mapping | None = None) -> bool:
    """True when ``RADCONCORD_LOCAL_ONLY`` is set (environment, or secrets when given): report text may only
    go to loopback or private endpoints."""
    return is_true(merged(env, secrets).get(LOCAL_ONLY_VAR))


def store_path() -> str | None:
    """``RADCONCORD_STORE``, or None."""
    return env_value(STORE_VAR) or None


STORE_TIMEOUT_VAR = "RADCONCORD_STORE_TIMEOUT"
# JSON {model: key} in a dashboard job's worker environment (keys from Streamlit secrets; never stored)
JOB_KEYS_VAR = "RADCONCORD_JOB_KEYS"


def store_timeout() -> float:
    """``RADCONCORD_STORE_TIMEOUT``: seconds an operation waits for a store another connection holds
    (default 30; at least 0.1); a judge run whose write waits longer stops sending (core.judges.llm).

    Raises ValueError (one line) for a value that is not a finite number of seconds: ``inf`` would wait forever.
    """
    value = env_value(STORE_TIMEOUT_VAR)
    if not value:
        return 30.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds):
        raise ValueError(f"{STORE_TIMEOUT_VAR} must be a finite number of seconds (e.g. 30), not {value!r}")
    return max(0.1, seconds)


def api_base() -> str | None:
    """``RADCONCORD_API_BASE``: the default endpoint of an OpenAI-compatible server, or None."""
    return env_value(API_BASE_VAR) or None


def secret_values(min_length: int = 6) -> list[str]:
    """Values of environment variables whose names look like credentials (for redaction only)."""
    return [v for k, v in os.environ.items() if _SECRET_NAME.search(k) and v and len(v) >= min_length]
