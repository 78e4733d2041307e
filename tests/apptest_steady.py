"""AppTest as a running server sees the app: Streamlit's legacy ``pages/``-folder mode off.

The one place the project sets Streamlit's private ``PagesManager.uses_pages_directory``, and why it
still must: AppTest itself resets that attribute to None before every ``run()`` (streamlit/testing/v1/
app_test.py), so each run would be a fresh server's first request, which Streamlit answers in its legacy
mode. The app handles that request with public API only (ui/router.py: the page file sends it through
app.py with one rerun), but a rerun drops a button's click, so a test that clicks, or a bench that times a
run, needs the steady state of a server that has served once. The product (app.py, serve.py, ui/, pages/)
never sets it.
"""

from __future__ import annotations

from streamlit.runtime.pages_manager import PagesManager


def steady_init(original):
    """``PagesManager.__init__`` that leaves the legacy mode off (what ``st.navigation`` does on a server)."""

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    init.steady = True
    return init


def keep_steady() -> None:
    """For a script or bench: patch once per process (a second call changes nothing)."""
    if not getattr(PagesManager.__init__, "steady", False):
        PagesManager.__init__ = steady_init(PagesManager.__init__)
