"""Tests for core.analysis.preference: GREEN Sec. 4.3.2 / Fig. 6 preference accuracy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from core.analysis.preference import preference_accuracy, wilson_interval

PREFS = pd.DataFrame({
    "comparison_id": ["c1", "c2", "c3", "c4", "c5", "c6"],
    "pair_id_a": ["p1", "p3", "p5", "p7", "p9", "p11"],
    "pair_id_b": ["p2", "p4", "p6", "p8", "p10", "p12"],
    "preferred": ["a", "b", "a", "tie", "B", "a"],
    "confidence": [9, 9, 3, 5, np.nan, 3],
})
# GREEN score (higher is better) and significant error count (lower is better) per pair.
GREEN = [0.9, 0.1, 0.5, 0.5, 0.2, 0.8, 0.0, 0.0, 0.3, 0.6, 0.7]  # p12 has no score
EC_SIG = [1, 3, 2, 2, 0, 1, 0, 0, 5, 1, 0, 2]
SCORES = pd.concat([
    pd.DataFrame({"pair_id": [f"p{i}" for i in range(1, 12)], "judge": "J", "metric": "green", "value": GREEN}),
    pd.DataFrame({"pair_id": [f"p{i}" for i in range(1, 13)], "judge": "J", "metric": "ec_sig", "value": EC_SIG}),
], ignore_index=True)


def pick(table, metric, scope, confidence=None):
    mask = (table["metric"] == metric) & (table["scope"] == scope)
    mask &= table["confidence"].isna() if confidence is None else table["confidence"] == confidence
    hit = table[mask]
    assert len(hit) == 1
    return hit.iloc[0]


def test_hand_worked_green_and_error_count():
    # green: c1 a>b correct; c2 tie; c3 b>a wrong (expert a); c5 b>a correct; c6 p12 missing.
    # ec_sig (lower better): c1 1<3 -> a correct; c2 tie; c3 0<1 -> a correct; c5 1<5 -> b correct;
    #   c6 0<2 -> a correct.  c4 has no expert preference.
    table = preference_accuracy(PREFS, SCORES)
    g = pick(table, "green", "overall")
    assert (g.n_correct, g.n_wrong, g.n_ties, g.n, g.n_missing, g.n_no_preference) == (2, 1, 1, 4, 1, 1)
    assert g.accuracy == pytest.approx(2.5 / 4) and g.higher_is_better
    e = pick(table, "ec_sig", "overall")
    assert (e.n_correct, e.n_wrong, e.n_ties, e.n, e.n_missing) == (4, 0, 1, 5, 0)
    assert e.accuracy == pytest.approx(4.5 / 5) and not e.higher_is_better


def test_tie_policies():
    half = pick(preference_accuracy(PREFS, SCORES, ties="half"), "green", "overall")
    excl = pick(preference_accuracy(PREFS, SCORES, ties="exclude"), "green", "overall")
    wrong = pick(preference_accuracy(PREFS, SCORES, ties="wrong"), "green", "overall")
    assert (half.accuracy, half.n) == (pytest.approx(0.625), 4)
    assert (excl.accuracy, excl.n, excl.n_ties) == (pytest.approx(2 / 3), 3, 1)
    assert (wrong.accuracy, wrong.n) == (pytest.approx(0.5), 4)
    assert (half.ties, excl.ties, wrong.ties) == ("half", "exclude", "wrong")


def test_confidence_levels_and_cumulative():
    table = preference_accuracy(PREFS, SCORES)
    levels = table[(table["metric"] == "ec_sig") & (table["scope"] == "level")]
    assert list(levels["confidence"]) == [3.0, 9.0]  # c4 (5) has no preference; c5 no confidence
    assert list(levels["n"]) == [2, 2]
    assert pick(table, "ec_sig", "level", 9.0).accuracy == pytest.approx(0.75)  # c1 correct, c2 tie
    at_least = pick(table, "ec_sig", "at_least", 3.0)
    assert at_least.n == 4 and at_least.accuracy == pytest.approx(3.5 / 4)
    g3 = pick(table, "green", "level", 3.0)  # c3 wrong, c6 missing
    assert (g3.n, g3.accuracy) == (1, 0.0)


def test_orientation_override_and_unknown_metric():
    flipped = preference_accuracy(PREFS, SCORES, orientation={"green": -1})
    g = pick(flipped, "green", "overall")
    assert (g.n_correct, g.n_wrong) == (1, 2) and not g.higher_is_better
    scores = SCORES.assign(metric=SCORES["metric"].replace({"green": "my_score"}))
    with pytest.raises(ValueError, match="no orientation"):
        preference_accuracy(PREFS, scores)
    ok = preference_accuracy(PREFS, scores, orientation={"my_score": True})
    assert pick(ok, "my_score", "overall").n_correct == 2


def test_swapping_candidates_changes_nothing():
    swapped = PREFS.assign(
        pair_id_a=PREFS["pair_id_b"], pair_id_b=PREFS["pair_id_a"],
        preferred=PREFS["preferred"].str.lower().map({"a": "b", "b": "a", "tie": "tie"}),
    )
    cols = ["accuracy", "n", "n_correct", "n_ties", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(preference_accuracy(PREFS, SCORES)[cols],
                                  preference_accuracy(swapped, SCORES)[cols])


@pytest.mark.parametrize(("k", "n"), [(0, 5), (3, 10), (7, 7), (23, 56), (50, 100)])
def test_wilson_matches_scipy(k, n):
    expected = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(k, n) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_wilson_empty():
    assert np.isnan(wilson_interval(0, 0)).all()


@pytest.mark.parametrize(
    ("prefs", "message"),
    [
        (PREFS.assign(preferred=["a", "b", "c", "a", "b", "a"]), "preferred"),
        (PREFS.assign(confidence=[9, 9, 11, 5, 1, 3]), "1-10"),
        (PREFS.assign(comparison_id=["c1"] * 6), "duplicate"),
        (PREFS.drop(columns="confidence"), "missing columns"),
    ],
)
def test_validation(prefs, message):
    with pytest.raises(ValueError, match=message):
        preference_accuracy(prefs, SCORES)


def test_bad_tie_policy():
    with pytest.raises(ValueError, match="ties"):
        preference_accuracy(PREFS, SCORES, ties="coin")
