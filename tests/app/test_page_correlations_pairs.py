"""The Correlations page sends the browser at most PAIRS_SHOWN rows of one judge metric's pairs (issue 41:
send only what is shown), says so, and still counts every pair."""

from __future__ import annotations

import pytest

import ui.correlations_detail as detail
from core.store.db import Store
from tests.apptest_helpers import judged_copy, open_page

PAGE = "pages/correlations.py"


@pytest.fixture(scope="module")
def judged(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    return judged_copy(demo_store, tmp_path_factory, "pairs", "rules")


def _pairs_table(at):
    (found,) = [d.value for d in at.dataframe if "id" in d.value.columns and "group" in d.value.columns]
    return found


def test_a_long_pairs_table_is_cut_to_what_the_box_shows(app_test, judged: Store, monkeypatch):
    monkeypatch.setattr(detail, "PAIRS_SHOWN", 50)
    at = open_page(app_test, judged, PAGE, {"dataset": "demo", "n_boot": "0"})
    shown = _pairs_table(at)
    assert len(shown) == 50
    assert list(shown["id"]) == sorted(shown["id"])  # the first pairs by id
    total = int(next(m.value for m in at.markdown if m.value.startswith("**Pairs (")).split("(")[1].split(")")[0]
                .replace(",", ""))
    assert total > 50
    assert any(c.value == f"The first 50 pairs by id; **Pairs CSV** holds all {total:,}." for c in at.caption)


def test_a_short_pairs_table_is_shown_whole(app_test, judged: Store):
    at = open_page(app_test, judged, PAGE, {"dataset": "demo", "n_boot": "0"})
    shown = _pairs_table(at)
    assert len(shown) < detail.PAIRS_SHOWN
    assert not any("Pairs CSV** holds all" in c.value for c in at.caption)
