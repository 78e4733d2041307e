"""``python serve.py [streamlit options]``: ``streamlit run app.py``, with litellm loading early.

litellm takes seconds to import. Streamlit runs app.py only when the first browser connects,
so an import started there would still be under way when the first pair is scored. This
launcher starts it in a background thread of the server process itself, before the server
comes up, when a model is configured (``RADCONCORD_MODELS`` in the environment or in
``.streamlit/secrets.toml``); without one nothing is loaded (no memory spent on it).
``make run`` uses it; ``streamlit run app.py`` still works, and app.py then starts the same
import on its first run. Installed (``pip install .``), this file is ``radconcord_app/serve.py``: the
``radconcord-app`` command calls :func:`main`, ``radconcord serve`` runs it (core/cli/dashboard.py), and the
project's .streamlit/config.toml, installed beside it, applies when the folder it starts in has none.

It also refuses to listen on a non-loopback address unless the secrets configure a team
deployment (sign-in plus an allow-list, :mod:`core.access`) or ``--allow-open`` says the network
is private: ``make serve`` is the team command, ``make run`` stays on 127.0.0.1. It lives beside
app.py, not in core/, because it starts the UI; the decisions are in :mod:`core.serve`.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # `python serve.py` from any folder finds core/

from core.serve import launch_args, models_configured, packaged_config  # noqa: E402
from core.settings import apply_offline_defaults, set_defaults  # noqa: E402

#: What the analysis pages import on their first visit (scipy: about 1.4 s here, scikit-learn for Summaries and
#: Ensembles: several seconds on a loaded machine), imported before the server starts, so the first visitor of
#: a page does not wait for it (issue 41). Not in a background thread: an import racing the server's own
#: imports of pandas was handed a partially initialised module ("partially initialized module 'pandas' has no
#: attribute 'Series'") and the server did not start.
PRELOAD = ("core.analysis.stats", "core.analysis.summary", "core.analysis.ensemble", "plotly.graph_objects")


def preload_analysis() -> None:
    """Import :data:`PRELOAD` now (a missing optional package is left to the page that needs it to report)."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def main(argv: list[str] | None = None) -> int:
    set_defaults(packaged_config(ROOT, Path.cwd()))  # the environment and the command line still win
    args, problem = launch_args(list(sys.argv[1:] if argv is None else argv))
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    apply_offline_defaults()
    if models_configured():
        from core.judges.llm import preload_litellm

        preload_litellm()
    preload_analysis()
    # app.py routes with st.navigation. Without the one private setting below, Streamlit 1.67 starts in its legacy
    # pages/-folder mode until a session calls st.navigation, and the first visitor's sidebar lists every module
    # under pages/ (tests/app/test_browser_words.py). No public setting turns that mode off (docs/ARCHITECTURE.md);
    # a page file run by it still goes through app.py (ui/router.py) for `streamlit run app.py`.
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli

    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", str(ROOT / "app.py"), *args]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
