"""A dashboard run opens the store once or twice (app.py's run-long Store.session), and lets it go when the run ends.

Before, every uncached read of a run opened and closed the file on its own (12 openings on a first
Correlations run, 8 on Error types, 4 on Data; each tens of ms, under load about a tenth of a second).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import streamlit as st

from core.store import handles
from core.store.db import Store
from tests.apptest_helpers import judged_copy, open_page


@pytest.fixture
def judged(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    return judged_copy(demo_store, tmp_path_factory, "once", "rules", "lexical")


def _writable_from_another_process(store: Store) -> bool:
    probe = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(store.path)!r}).close()"],
                           capture_output=True, text=True, timeout=60)
    return probe.returncode == 0


@pytest.mark.parametrize(("page", "most", "before"), [("pages/data.py", 2, 4), ("pages/errortypes.py", 3, 8),
                                                     ("pages/ensembles.py", 3, 6)])
def test_a_first_page_run_opens_the_store_at_most_twice_and_lets_it_go(app_test, judged: Store, monkeypatch,
                                                                       page, most, before):
    """The sidebar's reads share one read-only opening and the page's reads another (the file is let go while
    the page's modules load); a computation (``cached(compute=True)``: Error types' tables, the ensembles)
    reads through its own, so the file is not held while it computes. ``before``: the openings on the code
    before this change."""
    st.cache_data.clear()  # a first run: nothing cached in the process
    st.cache_resource.clear()
    opened = []
    real = handles.connect
    monkeypatch.setattr(handles, "connect", lambda path, **kw: opened.append(kw) or real(path, **kw))
    at = open_page(app_test, judged, page, {"dataset": "demo"})
    assert len(at.title) and at.title[0].value  # the page drew itself
    assert opened and all(kw == {"read_only": True} for kw in opened)
    assert len(opened) <= most < before
    assert _writable_from_another_process(judged)  # and the run let the file go at its end


def test_a_run_that_stops_early_lets_the_store_go(app_test, judged: Store):
    """A page that stops (st.stop: Live scoring before any report is pasted) still closes the run's opening."""
    at = open_page(app_test, judged, "pages/live.py", {"dataset": "demo"})
    assert any("Paste a reference" in info.value for info in at.info)  # the run ended in st.stop
    assert _writable_from_another_process(judged)
