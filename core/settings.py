"""Every environment variable RadJudge reads, in one place.

| variable | meaning | default |
| --- | --- | --- |
| RADJUDGE_STORE | path of the DuckDB store | data/radjudge.duckdb |
| RADJUDGE_LOCAL_ONLY | "true": refuse model endpoints outside loopback/private networks | false |
| RADJUDGE_API_BASE | default api_base for an OpenAI-compatible server | unset |
| RADJUDGE_MODELS | comma-separated litellm model names offered in the dashboard (`name=URL` gives one its own endpoint) | unset |
| LITELLM_LOCAL_MODEL_COST_MAP | set to "True" here before litellm is imported, so it never downloads its price map | True |
| provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) | read by litellm from the environment; never stored or logged | unset |
"""

from __future__ import annotations

import os


def apply_offline_defaults() -> None:
    """Make library start-up offline: no price-map download, no telemetry."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")


def local_only() -> bool:
    return os.environ.get("RADJUDGE_LOCAL_ONLY", "").strip().lower() in {"1", "true", "yes", "on"}
