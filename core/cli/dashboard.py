"""``python -m core serve`` / ``radconcord serve``: the dashboard, started by the launcher beside app.py.

The launcher (serve.py) and the dashboard (app.py, pages/) are not part of core: they sit above it. In a
checkout they are beside core/; installed (``pip install .``), they are the package ``radconcord_app``
(pyproject.toml maps it onto the checkout's root, so an editable install finds the checkout's files).
They are found as files and run, never imported as modules of core. core/__main__.py hands ``serve``
and everything after it here before the command line is parsed: the options are Streamlit's.
"""

from __future__ import annotations

import argparse
import importlib.util
import runpy
from pathlib import Path

import core

HELP = "the dashboard (options are Streamlit's, e.g. --server.port 8502; the installed `radconcord-app` is the same)"


def launcher() -> Path | None:
    """serve.py beside app.py and pages/: the checkout's own (core's sibling), else the installed
    ``radconcord_app`` package's; None when neither is there."""
    places = [Path(core.__file__).resolve().parents[1]]
    spec = importlib.util.find_spec("radconcord_app")
    if spec is not None and spec.submodule_search_locations:
        places += [Path(p) for p in spec.submodule_search_locations]
    for place in places:
        if all((place / name).is_file() for name in ("serve.py", "app.py", "ui/shared.py")):
            return place / "serve.py"
    return None


def launch(argv: list[str]) -> int:
    """Start the dashboard with Streamlit options ``argv``; 2 with a one-line error when it is not installed."""
    path = launcher()
    if path is None:
        print("error: the dashboard (app.py, pages/) is not installed beside core; reinstall with "
              "`pip install .` from a RadConcord checkout", flush=True)
        return 2
    return runpy.run_path(str(path), run_name="radconcord_serve")["main"](list(argv))


def cmd_serve(args) -> int:
    return launch(args.streamlit_args)


def add_commands(add) -> None:
    p = add("serve", cmd_serve, HELP)
    p.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="passed to Streamlit")
