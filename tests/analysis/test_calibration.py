"""Tests for core.analysis.calibration: VERT Fig. 2 / Fig. 3 count calibration, reliability bins, bootstrap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.analysis.calibration import (
    bootstrap_mean_ci,
    count_calibration,
    injected_calibration,
    reliability,
)
from core.analysis.stats import bootstrap_indices


def judge_frame(rows):
    return pd.DataFrame(rows, columns=["pair_id", "judge", "category", "significant", "count"])


def expert_frame(rows):
    return pd.DataFrame(rows, columns=["pair_id", "category", "significant", "count"])


def cell(table, **where):
    mask = np.ones(len(table), dtype=bool)
    for key, value in where.items():
        mask &= (table[key] == value).to_numpy()
    hit = table[mask]
    assert len(hit) == 1, hit
    return hit.iloc[0]


# Expert significant totals: p1 1, p2 1, p3 2 (1 + 1 over two categories), p4 0, p5 1.5 (mean).
EXPERT = expert_frame([
    ("p1", "a", True, 1), ("p2", "b", True, 1), ("p3", "a", True, 1), ("p3", "c", True, 1),
    ("p4", "a", False, 3), ("p5", "a", True, 1.5),
])
# Judge J totals: p1 2, p2 1 (+ 4 insignificant), p3 4, p4 1, p5 3.  p6 is not annotated.
JUDGE = judge_frame([
    ("p1", "J", "a", True, 2), ("p2", "J", "b", True, 1), ("p2", "J", "b", False, 4),
    ("p3", "J", "a", True, 3), ("p3", "J", "d", True, 1), ("p4", "J", "a", True, 1),
    ("p5", "J", "a", True, 3), ("p6", "J", "a", True, 1),
])


def test_count_calibration_hand_worked():
    table = count_calibration(JUDGE, EXPERT, bins=range(1, 4), n_boot=200, seed=5)
    assert list(table["x"]) == [1, 2, 3]
    one = cell(table, x=1)
    assert (one.n, one.y, one.expert_mean, one.identity) == (2, 1.5, 1.0, 1.0)  # p1, p2
    two = cell(table, x=2)  # p3 (total 2) and p5 (1.5 rounds half up to 2)
    assert (two.n, two.y, two.expert_mean) == (2, 3.5, 1.75)
    assert two.bias == pytest.approx(3.5 - 1.75)
    three = cell(table, x=3)
    assert three.n == 0 and np.isnan(three.y) and np.isnan(three.ci_low)
    # p4 has 0 significant expert errors: outside 1-3; p6 is not annotated.
    assert set(table["n_outside"]) == {1} and set(table["n_missing_expert"]) == {1}
    assert set(table["n_missing_judge"]) == {0}
    assert set(table["seed"]) == {5} and set(table["n_boot"]) == {200}
    assert set(table["significance"]) == {"significant"}


def test_count_calibration_all_bins_and_both_significances():
    table = count_calibration(JUDGE, EXPERT, significant=None, bins=None, n_boot=0)
    # Totals with insignificant counts: p2 judge 5; p4 expert 3, judge 1.
    assert list(table["x"]) == [1, 2, 3]
    assert cell(table, x=1).y == pytest.approx((2 + 5) / 2)
    assert cell(table, x=3).y == 1.0
    assert table["ci_low"].isna().all()  # n_boot = 0 disables the interval


def test_count_calibration_missing_judge():
    judge = JUDGE[JUDGE["pair_id"] != "p1"].copy()
    judge.loc[judge["pair_id"] == "p2", "count"] = np.nan
    table = count_calibration(judge, EXPERT, n_boot=0)
    assert set(table["n_missing_judge"]) == {2}
    assert cell(table, x=1).n == 0


def test_bootstrap_is_seeded_per_cell():
    rng = np.random.default_rng(0)
    expert = expert_frame([(f"p{i}", "a", True, 1 + i % 3) for i in range(90)])
    rows = [(f"p{i}", j, "a", True, int(rng.integers(0, 6))) for i in range(90) for j in ("J", "K")]
    judge = judge_frame(rows)
    first = count_calibration(judge, expert, bins=[1, 2, 3], n_boot=300, seed=1)
    again = count_calibration(judge, expert, bins=[1, 2, 3], n_boot=300, seed=1)
    pd.testing.assert_frame_equal(first, again)
    other = count_calibration(judge, expert, bins=[1, 2, 3], n_boot=300, seed=2)
    assert not np.allclose(first["ci_low"], other["ci_low"])
    # J's intervals do not depend on K being present.
    alone = count_calibration(judge[judge["judge"] == "J"], expert, bins=[1, 2, 3], n_boot=300, seed=1)
    pd.testing.assert_frame_equal(alone, first[first["judge"] == "J"].reset_index(drop=True))
    assert ((first["ci_low"] <= first["y"]) & (first["y"] <= first["ci_high"])).all()


def test_bootstrap_mean_ci_matches_normal_theory():
    x = np.random.default_rng(3).normal(10.0, 2.0, size=400)
    low, high = bootstrap_mean_ci(x, None, 2000, 4)
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert low < x.mean() < high
    assert (high - low) == pytest.approx(2 * 1.959964 * se, rel=0.15)


def test_bootstrap_mean_ci_edge_cases():
    assert np.isnan(bootstrap_mean_ci(np.array([3.0]), None, 100, 0)).all()
    assert np.isnan(bootstrap_mean_ci(np.array([3.0, 4.0]), ["g", "g"], 100, 0)).all()  # one cluster
    assert np.isnan(bootstrap_mean_ci(np.array([3.0, 4.0]), None, 0, 0)).all()
    assert bootstrap_mean_ci(np.array([2.0, 2.0, 2.0]), None, 100, 0) == (2.0, 2.0)
    # Singleton clusters are the ordinary bootstrap, draw for draw.
    x = np.arange(10.0)
    plain = bootstrap_mean_ci(x, None, 500, 9)
    clustered = bootstrap_mean_ci(x, np.arange(10), 500, 9)
    assert plain == pytest.approx(clustered)


def test_bootstrap_mean_ci_equals_materialized_resamples():
    # Independent computation: means of the resamples materialized as row indices.
    x = np.random.default_rng(5).poisson(2.0, size=30).astype(float)
    clusters = np.repeat(np.arange(10), 3)
    for groups in (None, clusters):
        means = [x[idx].mean() for idx in bootstrap_indices(len(x), groups, n_boot=400, seed=8)]
        expected = tuple(np.quantile(means, [0.025, 0.975]))
        assert bootstrap_mean_ci(x, groups, 400, 8) == pytest.approx(expected, abs=1e-12)


def test_cluster_bootstrap_widens_for_duplicated_reports():
    # 12 groups, each pair repeated 5 times: resampling pairs overstates the information.
    values = np.repeat(np.random.default_rng(1).normal(size=12), 5)
    clusters = np.repeat(np.arange(12), 5)
    naive = bootstrap_mean_ci(values, None, 2000, 2)
    grouped = bootstrap_mean_ci(values, clusters, 2000, 2)
    assert (grouped[1] - grouped[0]) > 1.8 * (naive[1] - naive[0])


def test_count_calibration_groups():
    expert = expert_frame([(f"p{i}", "a", True, 1) for i in range(20)])
    judge = judge_frame([(f"p{i}", "J", "a", True, i // 5) for i in range(20)])
    groups = {f"p{i}": f"g{i // 5}" for i in range(20)}
    plain = cell(count_calibration(judge, expert, bins=[1], n_boot=500), x=1)
    grouped = cell(count_calibration(judge, expert, bins=[1], n_boot=500, groups=groups), x=1)
    frame = pd.DataFrame({"pair_id": list(groups), "group_id": list(groups.values())})
    same = cell(count_calibration(judge, expert, bins=[1], n_boot=500, groups=frame), x=1)
    assert plain.y == grouped.y == 1.5
    assert (grouped.ci_high - grouped.ci_low) > (plain.ci_high - plain.ci_low)
    assert (same.ci_low, same.ci_high) == (grouped.ci_low, grouped.ci_high)


INJECTED = pd.DataFrame({
    "pair_id": ["q1", "q2", "q3", "q4", "q5"],
    "category": ["a", "a", "b", "b", "b"],
    "k": [1, 2, 2, 2, 3],
})
JUDGE_INJ = judge_frame([
    ("q1", "J", "a", True, 1), ("q2", "J", "a", True, 2), ("q2", "J", "b", True, 1),
    ("q3", "J", "b", True, 1), ("q3", "J", "a", True, 2), ("q4", "J", "b", True, 2),
    ("q5", "J", "b", True, np.nan),
])


def test_injected_calibration_hand_worked():
    table = injected_calibration(JUDGE_INJ, INJECTED, n_boot=100, seed=3)
    assert len(table) == 4
    a1, a2 = cell(table, category="a", x=1), cell(table, category="a", x=2)
    assert (a1.y, a1.n, a2.y, a2.n) == (1.0, 1, 2.0, 1)  # q2's b error is not counted
    b2 = cell(table, category="b", x=2)
    assert (b2.y, b2.n, b2.identity, b2.bias) == (1.5, 2, 2.0, -0.5)
    b3 = cell(table, category="b", x=3)
    assert b3.n == 0 and np.isnan(b3.y)
    assert set(table.loc[table["category"] == "b", "n_missing_judge"]) == {1}  # q5 unreadable
    assert set(table["seed"]) == {3}
    total = injected_calibration(JUDGE_INJ, INJECTED, n_boot=0, detected="total")
    assert cell(total, category="b", x=2).y == 2.5  # q3: 1 + 2, q4: 2
    assert cell(total, category="a", x=2).y == 3.0


def test_injected_validation():
    with pytest.raises(ValueError, match="k must be"):
        injected_calibration(JUDGE_INJ, INJECTED.assign(k=1.5))
    with pytest.raises(ValueError, match="duplicate"):
        injected_calibration(JUDGE_INJ, pd.concat([INJECTED, INJECTED.iloc[:1]]))
    with pytest.raises(ValueError, match="detected"):
        injected_calibration(JUDGE_INJ, INJECTED, detected="all")


def test_reliability_hand_worked():
    targets = pd.DataFrame({"pair_id": ["r1", "r2", "r3", "r4", "r5"], "target": [0.0, 0.2, 0.39, 1.0, 0.5]})
    scores = pd.DataFrame({
        "pair_id": ["r1", "r2", "r3", "r4", "r5", "r6"],
        "judge": "J", "metric": "vert",
        "value": [0.1, 0.3, 0.5, 0.9, np.nan, 0.4],
    })
    table = reliability(scores, targets, n_bins=5, n_boot=0)
    assert list(table["bin"]) == [0, 1, 2, 3, 4]
    assert cell(table, bin=0).y == 0.1 and cell(table, bin=0).n == 1
    b1 = cell(table, bin=1)  # 0.2 opens bin 1; 0.39 is in it too
    assert (b1.n, b1.y, b1.x, b1.bin_low, b1.bin_high) == (2, pytest.approx(0.4), 0.3, 0.2, 0.4)
    assert cell(table, bin=4).y == 0.9  # target 1.0 falls in the last bin
    assert cell(table, bin=2).n == 0  # r5's score is unknown
    assert set(table["n_missing_judge"]) == {1} and set(table["n_missing_expert"]) == {1}


def test_reliability_validation():
    scores = pd.DataFrame({"pair_id": ["r1"], "judge": "J", "metric": "vert", "value": [0.5]})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        reliability(scores, pd.DataFrame({"pair_id": ["r1"], "target": [4.0]}))
    with pytest.raises(ValueError, match="duplicate"):
        reliability(pd.concat([scores, scores]), pd.DataFrame({"pair_id": ["r1"], "target": [0.4]}))
    with pytest.raises(ValueError, match="n_bins"):
        reliability(scores, pd.DataFrame({"pair_id": ["r1"], "target": [0.4]}), n_bins=0)
    with pytest.raises(ValueError, match="seed"):
        count_calibration(JUDGE, EXPERT, seed=-1)
