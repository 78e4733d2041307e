"""``python -m core.serve [streamlit options]``: ``streamlit run app.py``, with litellm loading early.

litellm takes seconds to import. Streamlit runs app.py only when the first browser connects,
so an import started there would still be under way when the first pair is scored. This
launcher starts it in a background thread of the server process itself, before the server
comes up, when a model is configured (``RADJUDGE_MODELS`` in the environment or in
``.streamlit/secrets.toml``); without one nothing is loaded (no memory spent on it).
``make run`` uses it; ``streamlit run app.py`` still works, and app.py then starts the same
import on its first run.

It also refuses to listen on a non-loopback address unless the secrets configure a team
deployment (sign-in plus an allow-list, :mod:`core.access`) or ``--allow-open`` says the network
is private: ``make serve`` is the team command, ``make run`` stays on 127.0.0.1.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from core.access import serve_problem
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


def read_secrets(root: Path = ROOT, home: Path | None = None) -> dict:
    """Streamlit's secrets as the server will see them: ~/.streamlit/secrets.toml, then the project's
    (which wins, key by key at the top level). A file that does not parse is a clear error."""
    merged: dict = {}
    for path in ((home or Path.home()) / ".streamlit" / "secrets.toml", root / ".streamlit" / "secrets.toml"):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        try:
            merged.update(tomllib.loads(text))
        except ValueError as exc:
            raise SystemExit(f"error: {path} is not valid TOML: {exc}") from None
    return merged


def configured_address(args: list[str], env: dict | None = None, root: Path = ROOT) -> str:
    """The address Streamlit will bind: --server.address, else STREAMLIT_SERVER_ADDRESS, else
    .streamlit/config.toml, else every interface ('')."""
    env = os.environ if env is None else env
    for i, arg in enumerate(args):
        if arg.startswith("--server.address="):
            return arg.split("=", 1)[1]
        if arg == "--server.address" and i + 1 < len(args):
            return args[i + 1]
    if "STREAMLIT_SERVER_ADDRESS" in env:
        return env["STREAMLIT_SERVER_ADDRESS"]
    try:
        config = tomllib.loads((root / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return str(config.get("server", {}).get("address", ""))


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    allow_open = "--allow-open" in args
    args = [a for a in args if a != "--allow-open"]
    address = configured_address(args)
    problem = serve_problem(address, read_secrets(), allow_open)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    apply_offline_defaults()
    if models_configured():
        from core.judges.llm import preload_litellm

        preload_litellm()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", str(ROOT / "app.py"), *args]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
