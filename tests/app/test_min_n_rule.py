"""One minimum n for every number of one comparison (issue 43, point 6): with 5 clinician ratings each judge
cell says "(n=5)", and the ceiling is not quoted either (it was: computed from 5 pairs beside "(n=5)" cells).
The constant is core.taxonomy.MIN_N, used by the cells, the ceiling and the paired test."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from core.analysis.agreement import inter_annotator
from core.analysis.ceiling import leave_one_out
from core.judges import run_judge
from core.reads.ratings import save_rating
from core.report import build_report
from core.store.db import Store
from core.taxonomy import MIN_N
from tests.apptest_helpers import open_page
from tests.conftest import copy_store

RATED = 5


@pytest.fixture(scope="module")
def rated(demo_store: Store, tmp_path_factory) -> Store:
    """The demo with the rules judge and two clinicians who rated the same 5 pairs."""
    store = copy_store(demo_store, tmp_path_factory.mktemp("min-n") / "s.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    pairs = store.query_df(f"SELECT pair_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id LIMIT {RATED}")
    for i, pid in enumerate(pairs["pair_id"]):
        save_rating(store, pid, "alice", score=float(i % 6))
        save_rating(store, pid, "bob", score=float((i + 1) % 6))
    return store


def test_the_ceiling_takes_the_one_minimum_from_its_caller():
    assert RATED < MIN_N
    values = pd.DataFrame({"pair_id": [f"p{i}" for i in range(RATED)] * 2, "annotator": ["a"] * RATED + ["b"] * RATED,
                           "value": [0, 1, 2, 3, 4, 1, 1, 3, 3, 5]})
    loo = leave_one_out(values, min_n=MIN_N)
    assert loo["n"].tolist() == [RATED, RATED] and loo["tau"].isna().all()
    agreement = inter_annotator(values, min_n=MIN_N)
    assert math.isnan(agreement.pairwise["tau"].iloc[0]) and math.isnan(agreement.alpha)
    assert not math.isnan(inter_annotator(values).alpha)  # the pure function's own default is lower


def test_five_ratings_give_no_ceiling_beside_cells_that_say_n5(app_test, rated: Store):
    at = open_page(app_test, rated, "pages/correlations.py", {"experts": "clinicians", "n_boot": "0"})
    assert not at.exception, [e.value for e in at.exception]
    shown = at.table[0].value
    assert (shown.loc["rules"] == f"(n={RATED})").all()
    assert not [i for i in at.info if i.value.startswith("**Ceiling:**")]
    caption = " ".join(c.value for c in at.caption)
    assert f"Ceiling: not available — the experts share {RATED} rated pairs in view; at least {MIN_N}" in caption

    html = build_report(rated, "demo", n_boot=0, annotators=["rater:alice", "rater:bob"], experts="clinicians")
    assert "Krippendorff" not in html.split("<section id=\"correlations\">")[0]
    assert f"fewer than {MIN_N} rated pairs" in html
