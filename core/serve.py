"""What the dashboard launcher (``serve.py`` beside app.py) decides before Streamlit starts, without
importing Streamlit: whether a model is configured (litellm is then loaded as the server starts), the
secrets and address the server will see, and whether it may listen there (:mod:`core.access`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from core import settings
from core.access import serve_problem

ROOT = Path(__file__).resolve().parents[1]


def models_configured(root: Path = ROOT, env: dict | None = None) -> bool:
    """True when RADCONCORD_MODELS names a model in the environment or the secrets file."""
    env = settings.environ() if env is None else env
    if str(settings.lookup(env, settings.MODELS_VAR, "")).strip():
        return True
    secrets = root / ".streamlit" / "secrets.toml"
    try:
        value = tomllib.loads(secrets.read_text(encoding="utf-8"))
        value = settings.lookup(value, settings.MODELS_VAR, "")
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
    env = settings.environ() if env is None else env
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


def configured_port(args: list[str]) -> int | None:
    """The port given with --server.port (the Makefile always gives one), or None."""
    for i, arg in enumerate(args):
        value = arg.split("=", 1)[1] if arg.startswith("--server.port=") else (
            args[i + 1] if arg == "--server.port" and i + 1 < len(args) else None)
        if value is not None:
            try:
                return int(value)
            except ValueError:
                return None
    return None


def port_problem(address: str, port: int | None) -> str | None:
    """Why the dashboard cannot listen on ``port`` (another process holds it), or None."""
    if port is None:
        return None
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address if address not in ("", "0.0.0.0") else "0.0.0.0", port))
        except OSError:
            return (f"port {port} is in use (another dashboard, or another program); start on another port with "
                    f"`make run PORT={port + 1}` (or `python serve.py --server.port {port + 1}`)")
    return None


def packaged_config(root: Path, cwd: Path) -> dict[str, str]:
    """The project's Streamlit settings (``root/.streamlit/config.toml``: loopback address, headless, no
    telemetry, no tracebacks for visitors) as ``STREAMLIT_*`` environment variables, for a dashboard started
    from a folder with no ``.streamlit/config.toml`` of its own (the installed ``radconcord serve`` run
    anywhere: Streamlit reads config.toml only from the folder it starts in and the home folder).
    Empty when that folder has its own file, or when root is that folder."""
    own = cwd / ".streamlit" / "config.toml"
    try:
        if own.is_file() or cwd.resolve() == root.resolve():
            return {}
        config = tomllib.loads((root / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    for section, values in config.items():
        for key, value in values.items() if isinstance(values, dict) else ():
            snake = "".join(f"_{c}" if c.isupper() else c for c in key).upper()
            out[f"STREAMLIT_{section.upper()}_{snake}"] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def launch_args(argv: list[str]) -> tuple[list[str], str | None]:
    """The launcher's arguments without ``--allow-open``, and why it must not start (None: it may)."""
    allow_open = "--allow-open" in argv
    args = [a for a in argv if a != "--allow-open"]
    address = configured_address(args)
    return args, (serve_problem(address, read_secrets(), allow_open)
                  or port_problem(address, configured_port(args)))
