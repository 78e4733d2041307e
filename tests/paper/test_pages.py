"""The dashboard offers the paper outputs: the Correlations page's LaTeX table."""

from __future__ import annotations

from core.store.db import Store
from tests.apptest_helpers import assert_ok, open_page


def test_correlations_offers_the_table_as_latex(app_test, paper_demo):
    at = open_page(app_test, Store(paper_demo), "pages/correlations.py")
    assert_ok(at)
    buttons = {b.proto.label: b for b in at.get("download_button")}
    assert "Table LaTeX" in buttons, sorted(buttons)
    latex = buttons["Table LaTeX"].proto
    assert latex.deferred_file_id and latex.ignore_rerun  # made on click, without rerunning the page
