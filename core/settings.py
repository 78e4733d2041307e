"""Every environment variable RadJudge reads, in one place.

| variable | meaning | default |
| --- | --- | --- |
| RADJUDGE_STORE | path of the DuckDB store | data/radjudge.duckdb |
| RADJUDGE_LOCAL_ONLY | "true": refuse model endpoints outside loopback/private networks | false |
| RADJUDGE_API_BASE | default api_base for an OpenAI-compatible server | unset |
| RADJUDGE_MODELS | comma-separated litellm model names offered in the dashboard (`name=URL` gives one its own endpoint) | unset |
| RADJUDGE_LITELLM_ONLY | "true": every model call goes through litellm, also those core.judges.direct would send itself | false |
| LITELLM_LOCAL_MODEL_COST_MAP | set to "True" here before litellm is imported, so it never downloads its price map | True |
| RADJUDGE_PUBLIC_URL | the address colleagues reach the dashboard at (share links) | unset |
| provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) | read by litellm from the environment; never stored or logged | unset |

Nothing else in core/ or pages/ reads ``os.environ``: they ask here. Settings that may also come from
Streamlit secrets (root-level values; the environment wins) are merged by :func:`merged`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping

STORE_VAR = "RADJUDGE_STORE"
MODELS_VAR = "RADJUDGE_MODELS"
API_BASE_VAR = "RADJUDGE_API_BASE"
LOCAL_ONLY_VAR = "RADJUDGE_LOCAL_ONLY"
PUBLIC_URL_VAR = "RADJUDGE_PUBLIC_URL"
LITELLM_ONLY_VAR = "RADJUDGE_LITELLM_ONLY"
_TRUE = {"1", "true", "yes", "on"}
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.I)


def apply_offline_defaults() -> None:
    """Make library start-up offline: no price-map download, no telemetry."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")


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


def env_value(name: str) -> str:
    """One environment variable, stripped ('' when unset)."""
    return os.environ.get(name, "").strip()


def merged(env: Mapping[str, str] | None = None, secrets: Mapping | None = None) -> dict[str, str]:
    """Secrets overlaid by the environment; only plain (root-level, scalar) values."""
    out: dict[str, str] = {}
    for source in (secrets or {}, environ() if env is None else env):
        for k, v in source.items():
            if isinstance(v, str | int | float | bool) and not isinstance(v, Mapping):
                out[str(k)] = str(v)
    return out


def is_true(value: object) -> bool:
    return str(value or "").strip().lower() in _TRUE


def local_only(env: Mapping[str, str] | None = None, secrets: Mapping | None = None) -> bool:
    """True when ``RADJUDGE_LOCAL_ONLY`` is set (environment, or secrets when given): report text may only
    go to loopback or private endpoints."""
    return is_true(merged(env, secrets).get(LOCAL_ONLY_VAR))


def store_path() -> str | None:
    """``RADJUDGE_STORE``, or None."""
    return env_value(STORE_VAR) or None


STORE_TIMEOUT_VAR = "RADJUDGE_STORE_TIMEOUT"
# JSON {model: key} in a dashboard job's worker environment (keys from Streamlit secrets; never stored)
JOB_KEYS_VAR = "RADJUDGE_JOB_KEYS"


def store_timeout() -> float:
    """``RADJUDGE_STORE_TIMEOUT``: seconds an operation waits for a store another connection holds
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
    """``RADJUDGE_API_BASE``: the default endpoint of an OpenAI-compatible server, or None."""
    return env_value(API_BASE_VAR) or None


def secret_values(min_length: int = 6) -> list[str]:
    """Values of environment variables whose names look like credentials (for redaction only)."""
    return [v for k, v in os.environ.items() if _SECRET_NAME.search(k) and v and len(v) >= min_length]
