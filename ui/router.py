"""The dashboard's navigation, built from the page table (ui/page_table.py), and the check that a page
was opened by it.

app.py calls :func:`navigation` (the sections, each page shown only to a role that may open it) and runs
the chosen page inside :func:`routed`; every page's ``page_start`` asks :func:`routed_page` first.

Why a page can run without app.py, and what happens then. A folder named ``pages/`` beside app.py puts
Streamlit in its legacy multipage mode until ``st.navigation`` is first called in the process: on a fresh
server the first request to a page's URL (``/run``) runs ``pages/run.py`` alone, without app.py (no
sidebar, store or sign-in gate). Streamlit's public API has no switch for that mode other than calling
``st.navigation``, so :func:`reroute` does exactly that (every page of the table, hidden, under the same
URL paths, so the request keeps its page) and reruns: the rerun goes through app.py. A page file run
alone in any other way (``streamlit run pages/run.py``) meets the rerun once, is still not routed, and
draws nothing but one line.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from core.access import may_open
from ui import page_table
from ui.page_table import PageSpec

_RUN = threading.local()  # the page app.py is running in this script run (a run is one thread)
REROUTED_KEY = "router_rerouted"  # a page asked for a rerun through app.py; app.py clears it

NOT_ROUTED = "This page opens from the dashboard's navigation: run `streamlit run app.py` (or `make run`)."


def visible_pages(role: str | None) -> tuple[PageSpec, ...]:
    """The rows of the page table ``role`` may open, in table order."""
    return tuple(spec for spec in page_table.PAGES if may_open(role, spec.audience))


def navigation(role: str | None, extra: st.Page | None = None) -> tuple[st.Page, PageSpec | None]:
    """``st.navigation`` over the sections of the pages ``role`` may open; the chosen page and its row
    (None for ``extra``, a hidden page such as app.py's landing, added to the first section)."""
    st.session_state.pop(REROUTED_KEY, None)
    by_url: dict[str, PageSpec] = {}
    nav: dict[str, list[st.Page]] = {}
    for spec in visible_pages(role):
        by_url[spec.url_path] = spec
        nav.setdefault(spec.section, []).append(
            st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.url_path))
    nav = {section: nav[section] for section in page_table.SECTIONS if section in nav}
    if extra is not None:
        next(iter(nav.values())).append(extra)
    page = st.navigation(nav, expanded=True)
    return page, by_url.get(page.url_path)


@contextmanager
def routed(spec: PageSpec) -> Iterator[None]:
    """Mark this script run as app.py running ``spec`` (what :func:`routed_page` answers)."""
    _RUN.page = spec
    try:
        yield
    finally:
        _RUN.page = None


def routed_page() -> PageSpec | None:
    """The row of the page app.py is running in this script run, or None when a page file runs alone."""
    return getattr(_RUN, "page", None)


def reroute() -> None:
    """Send this request through app.py (see the module's docstring); stops the run. Once: a page that is
    still not routed after the rerun is not under app.py at all, and says so."""
    if st.session_state.pop(REROUTED_KEY, False):
        st.error(NOT_ROUTED)
        st.stop()
    st.session_state[REROUTED_KEY] = True
    st.navigation([st.Page(_noop, title=spec.title, url_path=spec.url_path) for spec in page_table.PAGES],
                  position="hidden")
    st.rerun()


def _noop() -> None:
    """The pages :func:`reroute` registers are never run: the rerun goes through app.py."""

