"""``python -m core.serve [streamlit options]``: ``streamlit run app.py``, with litellm loading early.

litellm takes seconds to import. Streamlit runs app.py only when the first browser connects,
so an import started there would still be under way when the first pair is scored. This
launcher starts it in a background thread of the server process itself, before the server
comes up, when a model is configured (``RADJUDGE_MODELS`` in the environment or in
``.streamlit/secrets.toml``); without one nothing is loaded (no memory spent on it).
``make run`` uses it; ``streamlit run app.py`` still works, and app.py then starts the same
import on its first run.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from core.settings import apply_offline_defaults

ROOT = Path(__file__).resolve().parents[1]


def models_configured(root: Path = ROOT, env: dict | None = None) -> bool:
    """True when RADJUDGE_MODELS names a model in the environment or the secrets file."""
    env = os.environ if env is None else env
    if env.get("RADJUDGE_MODELS", "").strip():
        return True
    secrets = root / ".streamlit" / "secrets.toml"
    try:
        value = tomllib.loads(secrets.read_text(encoding="utf-8")).get("RADJUDGE_MODELS", "")
    except (OSError, ValueError):  # no secrets file, or one Streamlit itself will complain about
        return False
    return isinstance(value, str) and bool(value.strip())


def main(argv: list[str] | None = None) -> int:
    apply_offline_defaults()
    if models_configured():
        from core.judges.llm import preload_litellm

        preload_litellm()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", str(ROOT / "app.py"), *(sys.argv[1:] if argv is None else argv)]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
