"""The summary's headline score: GREEN for a GREEN-format judge, CRIMSON's for a CRIMSON run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.analysis.summary import compare_systems, green_summary, headline_metric
from tests.analysis.test_summary import empty_counts, errors_frame


def _scores(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["pair_id", "judge", "system", "metric", "value"])


CRIMSON = [-0.5, 0.6667, 1.0, 0.25]
SCORES = _scores(
    [(f"p{i}", "c", "AB"[i % 2], "crimson", v) for i, v in enumerate(CRIMSON)]
    + [(f"p{i}", "g", "AB"[i % 2], "green", v) for i, v in enumerate([0.2, 0.4, 0.6])]
    # a judge with both (an imported RadEval run, say): GREEN first, as before
    + [("p0", "both", "A", "crimson", 0.9), ("p0", "both", "A", "green", 0.1)])


def test_headline_metric_picks_green_then_crimson():
    assert headline_metric(SCORES, "g") == "green"
    assert headline_metric(SCORES, "c") == "crimson"
    assert headline_metric(SCORES, "both") == "green"
    assert headline_metric(SCORES, "nobody") == "green"  # shown as missing
    assert headline_metric(SCORES.head(0), "c") == "green"


def test_a_crimson_summary_is_headed_by_crimson_mean_and_std():
    errors = errors_frame({"a": ["Left pneumothorax"], "b": ["Missed effusion"]}, judge="c")
    s = green_summary(errors, empty_counts(), SCORES, "c", score_metric="crimson")
    assert s.score_metric == "crimson" and s.green_n == 4
    assert s.green_mean == pytest.approx(np.mean(CRIMSON)) and s.green_std == pytest.approx(np.std(CRIMSON))
    assert s.to_json()["score_metric"] == "crimson"
    default = green_summary(errors, empty_counts(), SCORES, "c")  # the default stays GREEN: none for this judge
    assert default.score_metric == "green" and default.green_mean is None and default.green_n == 0
    with pytest.raises(ValueError, match="several crimson values"):
        green_summary(errors, empty_counts(), pd.concat([SCORES, SCORES]), "c", score_metric="crimson")


def test_compare_systems_carries_the_headline_metric():
    errors = errors_frame({"a": ["x"]}, judge="c", system="A")
    table = compare_systems(errors, empty_counts(), SCORES, "c", systems=("A", "B"), score_metric="crimson")
    rows = table.drop_duplicates("system").set_index("system")
    assert set(table["score_metric"]) == {"crimson"}
    assert rows.loc["A", "green_mean"] == pytest.approx(np.mean(CRIMSON[0::2]))
    assert rows.loc["B", "green_mean"] == pytest.approx(np.mean(CRIMSON[1::2]))
