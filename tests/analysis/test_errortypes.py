"""Tests for core.analysis.errortypes: VERT App. C F1, GREEN Table 4 MAE and accuracy.

Expected values are worked out by hand from the formulas in the docstrings, or
recomputed independently with plain Python loops.
"""

from __future__ import annotations

import statistics

import numpy as np
import pandas as pd
import pytest

from core.analysis.errortypes import (
    accuracy_per_category,
    align_counts,
    category_table,
    f1_per_category,
    mae_per_category,
)

CATS = "abcdef"


def judge_frame(rows):
    return pd.DataFrame(rows, columns=["pair_id", "judge", "category", "significant", "count"])


def expert_frame(rows):
    return pd.DataFrame(rows, columns=["pair_id", "category", "significant", "count"])


def row(table, judge, category):
    hit = table[(table["judge"] == judge) & (table["category"] == category)]
    assert len(hit) == 1
    return hit.iloc[0]


# Two reports, one judge.  Significant counts (judge g / expert h):
#   p1: a 2/1, b 0/1          p2: a 1/1, b 3/1, c 1/0
# Per-report TP/FP/FN:
#   a: p1 (1,1,0) p2 (1,0,0) -> TP 2 FP 1 FN 0 -> P 2/3, R 1, F1 0.8
#   b: p1 (0,0,1) p2 (1,2,0) -> TP 1 FP 2 FN 1 -> P 1/3, R 1/2, F1 0.4
#   c: p2 (0,1,0)            -> TP 0 FP 1 FN 0 -> P 0, R 0 (0/0), F1 0 (0/0)
#   d-f: nothing             -> all 0 (zero denominators, App. C)
#   all: TP 3 FP 4 FN 1      -> P 3/7, R 3/4, F1 2*(9/28)/(33/28) = 6/11
JUDGE = judge_frame([
    ("p1", "J", "a", True, 2), ("p1", "J", "b", True, 0),
    ("p2", "J", "a", True, 1), ("p2", "J", "b", True, 3), ("p2", "J", "c", True, 1),
    ("p2", "J", "d", False, 2),  # insignificant: ignored by default
])
EXPERT = expert_frame([
    ("p1", "a", True, 1), ("p1", "b", True, 1),
    ("p2", "a", True, 1), ("p2", "b", True, 1), ("p2", "d", False, 1),
])


def test_f1_hand_worked():
    table = f1_per_category(JUDGE, EXPERT)
    assert list(table["category"]) == [*CATS, "all"]
    a, b, c = row(table, "J", "a"), row(table, "J", "b"), row(table, "J", "c")
    assert (a.tp, a.fp, a.fn) == (2, 1, 0)
    assert (a.precision, a.recall, a.f1) == pytest.approx((2 / 3, 1.0, 0.8))
    assert (b.tp, b.fp, b.fn) == (1, 2, 1)
    assert (b.precision, b.recall, b.f1) == pytest.approx((1 / 3, 0.5, 0.4))
    assert (c.tp, c.fp, c.fn, c.precision, c.recall, c.f1) == (0, 1, 0, 0, 0, 0)
    total = row(table, "J", "all")
    assert (total.tp, total.fp, total.fn) == (3, 4, 1)
    assert (total.precision, total.recall, total.f1) == pytest.approx((3 / 7, 3 / 4, 6 / 11))
    assert total.support == 4  # TP + FN = expert errors, cf. Table 7 "Injected errors"
    assert set(table["n_pairs"]) == {2}
    assert set(table["significance"]) == {"significant"}


def test_f1_zero_denominators_are_zero():
    # Neither side ever uses d-f: 0/0 everywhere, defined as 0 (App. C), not 1.
    table = f1_per_category(JUDGE, EXPERT)
    for cat in "def":
        r = row(table, "J", cat)
        assert (r.tp, r.fp, r.fn, r.precision, r.recall, r.f1) == (0, 0, 0, 0, 0, 0)


def test_f1_only_false_negatives():
    # The judge finds nothing: P = 0/0 -> 0, R = 0/2 = 0, F1 = 0.
    judge = judge_frame([("p1", "J", "a", True, 0)])
    expert = expert_frame([("p1", "a", True, 2)])
    r = row(f1_per_category(judge, expert), "J", "a")
    assert (r.tp, r.fp, r.fn, r.precision, r.recall, r.f1) == (0, 0, 2, 0, 0, 0)


def test_f1_perfect_judge():
    judge = judge_frame([("p1", "J", "a", True, 2), ("p2", "J", "b", True, 1)])
    expert = expert_frame([("p1", "a", True, 2), ("p2", "b", True, 1)])
    table = f1_per_category(judge, expert)
    assert row(table, "J", "a").f1 == 1.0
    assert row(table, "J", "b").f1 == 1.0
    assert row(table, "J", "all").f1 == 1.0
    assert row(table, "J", "c").f1 == 0.0


def test_f1_fractional_expert_mean():
    # Mean of two annotators, 1.5: TP = min(1, 1.5) = 1, FN = 0.5.
    judge = judge_frame([("p1", "J", "a", True, 1)])
    expert = expert_frame([("p1", "a", True, 1.5)])
    r = row(f1_per_category(judge, expert), "J", "a")
    assert (r.tp, r.fp, r.fn) == (1.0, 0.0, 0.5)
    assert r.recall == pytest.approx(1 / 1.5)
    assert r.f1 == pytest.approx(2 * 1 / (2 * 1 + 0 + 0.5))


def test_f1_significance_selector():
    # Insignificant only: judge d 2 / expert d 1 on p2 -> TP 1, FP 1.
    insig = f1_per_category(JUDGE, EXPERT, significant=False)
    r = row(insig, "J", "d")
    assert (r.tp, r.fp, r.fn) == (1, 1, 0)
    assert set(insig["significance"]) == {"insignificant"}
    # Both: counts added per category before comparing.
    judge = judge_frame([("p1", "J", "a", True, 1), ("p1", "J", "a", False, 1)])
    expert = expert_frame([("p1", "a", False, 2)])
    r = row(f1_per_category(judge, expert, significant=None), "J", "a")
    assert (r.tp, r.fp, r.fn) == (2, 0, 0)
    r = row(f1_per_category(judge, expert, significant=True), "J", "a")
    assert (r.tp, r.fp, r.fn) == (0, 1, 0)


def test_missing_data_policy():
    judge = judge_frame([
        ("p1", "J", "a", True, 1),
        ("p2", "J", "a", True, np.nan),  # unreadable answer: p2 unknown for J
        ("p4", "J", "a", True, 3),  # judged, never annotated
        ("p1", "K", "b", True, 1),
    ])
    expert = expert_frame([("p1", "a", True, 1), ("p2", "a", True, 1), ("p3", "b", True, 1)])
    table = f1_per_category(judge, expert)
    j, k = row(table, "J", "all"), row(table, "K", "all")
    assert (j.n_pairs, j.n_missing_judge, j.n_missing_expert) == (1, 2, 1)  # p2, p3 / p4
    assert (j.tp, j.fp, j.fn) == (1, 0, 0)  # only p1 is used
    assert (k.n_pairs, k.n_missing_judge, k.n_missing_expert) == (1, 2, 0)
    assert (k.tp, k.fp, k.fn) == (0, 1, 1)  # absent rows are 0: K says b=1, experts a=1


def test_nan_in_unselected_rows_does_not_exclude():
    judge = judge_frame([("p1", "J", "a", True, 1), ("p1", "J", "a", False, np.nan)])
    expert = expert_frame([("p1", "a", True, 1)])
    assert row(f1_per_category(judge, expert, significant=True), "J", "a").n_pairs == 1
    assert row(f1_per_category(judge, expert, significant=None), "J", "a").n_pairs == 0


def test_f1_against_loop_reference():
    rng = np.random.default_rng(11)
    judge_rows, expert_rows = [], []
    for p in range(40):
        for c in CATS:
            expert_rows.append((f"p{p}", c, True, float(rng.integers(0, 4))))
            for j in ("J1", "J2"):
                judge_rows.append((f"p{p}", j, c, True, int(rng.integers(0, 4))))
    judge, expert = judge_frame(judge_rows), expert_frame(expert_rows)
    table = f1_per_category(judge, expert)
    h = {(p, c): v for p, c, _, v in expert_rows}
    for j in ("J1", "J2"):
        totals = {"tp": 0.0, "fp": 0.0, "fn": 0.0}
        for c in CATS:
            tp = fp = fn = 0.0
            for p, jj, cc, _, g in judge_rows:
                if jj == j and cc == c:
                    tp += min(g, h[(p, c)])
                    fp += max(0, g - h[(p, c)])
                    fn += max(0, h[(p, c)] - g)
            r = row(table, j, c)
            assert (r.tp, r.fp, r.fn) == (tp, fp, fn)
            if tp > 0:  # F1 = 2TP / (2TP + FP + FN) when TP > 0
                assert r.f1 == pytest.approx(2 * tp / (2 * tp + fp + fn))
            for key, v in zip(("tp", "fp", "fn"), (tp, fp, fn), strict=True):
                totals[key] += v
        r = row(table, j, "all")
        assert (r.tp, r.fp, r.fn) == (totals["tp"], totals["fp"], totals["fn"])


def test_mae_hand_worked():
    # |g - h| per category: a: p1 1, p2 0; b: p1 1, p2 2; c: p2 1.
    table = mae_per_category(JUDGE, EXPERT)
    a, b, c = row(table, "J", "a"), row(table, "J", "b"), row(table, "J", "c")
    assert (a.mae, a.sd) == pytest.approx((0.5, statistics.stdev([1, 0])))
    assert (b.mae, b.sd) == pytest.approx((1.5, statistics.stdev([1, 2])))
    assert c.mae == pytest.approx(0.5)
    assert (a.mean_judge, a.mean_expert) == (1.5, 1.0)
    # sum over categories per report: p1 1+1 = 2, p2 0+2+1 = 3
    total = row(table, "J", "all")
    assert (total.mae, total.sd) == pytest.approx((2.5, statistics.stdev([2, 3])))
    assert (total.mean_judge, total.mean_expert) == (3.5, 2.0)
    # |sum g - sum h|: p1 |2 - 2| = 0, p2 |5 - 2| = 3
    other = row(mae_per_category(JUDGE, EXPERT, total="abs_of_sum"), "J", "all")
    assert (other.mae, other.sd) == pytest.approx((1.5, statistics.stdev([0, 3])))
    assert row(mae_per_category(JUDGE, EXPERT, total="abs_of_sum"), "J", "a").mae == a.mae


def test_mae_sd_undefined_for_one_report():
    judge = judge_frame([("p1", "J", "a", True, 2)])
    expert = expert_frame([("p1", "a", True, 1)])
    r = row(mae_per_category(judge, expert), "J", "a")
    assert r.mae == 1 and np.isnan(r.sd) and r.n_pairs == 1


def test_accuracy_exact_match_and_tolerance():
    judge = judge_frame([("p1", "J", "a", True, 1), ("p2", "J", "a", True, 2), ("p3", "J", "a", True, 0)])
    expert = expert_frame([("p1", "a", True, 1.5), ("p2", "a", True, 2), ("p3", "a", True, 0)])
    table = accuracy_per_category(judge, expert)
    a = row(table, "J", "a")
    assert (a.accuracy, a.n_correct, a.n_pairs) == (pytest.approx(2 / 3), 2, 3)  # 1 never equals 1.5
    assert row(table, "J", "b").accuracy == 1.0  # 0 = 0 on every report
    total = row(table, "J", "all")
    assert total.accuracy == pytest.approx((2 / 3 + 5) / 6) and total.n_correct == 17
    loose = row(accuracy_per_category(judge, expert, tolerance=0.5), "J", "a")
    assert loose.accuracy == 1.0 and loose.tolerance == 0.5


def test_align_and_category_table_shapes():
    wide = category_table(JUDGE, by=("judge",))
    assert list(wide.columns) == ["judge", "pair_id", *CATS]
    assert wide.loc[wide["pair_id"] == "p2", "d"].item() == 0.0  # insignificant not selected
    aligned = align_counts(JUDGE, EXPERT)
    assert len(aligned) == 2 * 6 and list(aligned.columns) == [
        "judge", "pair_id", "category", "judge_count", "expert_count"]


def test_empty_judge_counts_give_empty_tables():
    for fn in (f1_per_category, mae_per_category, accuracy_per_category):
        out = fn(JUDGE.iloc[:0], EXPERT)
        assert out.empty and "n_pairs" in out.columns


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (judge_frame([("p1", "J", "g", True, 1)]), "unknown categories"),
        (judge_frame([("p1", "J", "a", True, -1)]), "non-negative"),
        (judge_frame([("p1", "J", "a", True, "x")]), "non-numeric"),
        (judge_frame([("p1", "J", "a", None, 1)]), "significant"),
        (judge_frame([("p1", "J", "a", True, 1), ("p1", "J", "a", True, 2)]), "duplicate"),
        (judge_frame([("p1", "J", "a", True, 1)]).drop(columns="judge"), "missing columns"),
    ],
)
def test_validation(frame, message):
    with pytest.raises(ValueError, match=message):
        f1_per_category(frame, EXPERT)


@pytest.mark.parametrize(
    ("fn", "option", "message"),
    [
        (f1_per_category, {"significant": "yes"}, "significant"),
        (mae_per_category, {"total": "mean"}, "total"),
        (accuracy_per_category, {"tolerance": -1}, "tolerance"),
    ],
)
def test_bad_options(fn, option, message):
    with pytest.raises(ValueError, match=message):
        fn(JUDGE, EXPERT, **option)


# -- bootstrap CIs of F1 (resampling reference groups) ---------------------------------------------------


def _clustered_counts(n_groups: int = 30, per_group: int = 4, seed: int = 3):
    """Pairs in reference groups whose errors are shared within a group (so groups matter)."""
    rng = np.random.default_rng(seed)
    judge_rows, expert_rows, groups = [], [], []
    for g in range(n_groups):
        base = rng.integers(0, 4, size=len(CATS))  # the group's errors: every candidate shares them
        miss = rng.integers(0, 2, size=len(CATS))  # the judge misses the same ones in the whole group
        for k in range(per_group):
            pid = f"g{g}-{k}"
            groups.append((pid, f"ref{g}"))
            for c, h, m in zip(CATS, base, miss, strict=True):
                expert_rows.append((pid, c, True, float(h)))
                judge_rows.append((pid, "j", c, True, float(max(0, h - m + (k == 0)))))
    return (judge_frame(judge_rows), expert_frame(expert_rows),
            pd.DataFrame(groups, columns=["pair_id", "group_id"]))


def test_f1_bootstrap_contains_the_estimate_and_is_reproducible():
    from core.analysis.errortypes import f1_bootstrap

    jc, ec, groups = _clustered_counts()
    a = f1_bootstrap(jc, ec, groups=groups, n_boot=400, seed=11)
    b = f1_bootstrap(jc, ec, groups=groups, n_boot=400, seed=11)
    pd.testing.assert_frame_equal(a, b)
    point = f1_per_category(jc, ec)
    pd.testing.assert_frame_equal(a[point.columns], point)  # the estimates are f1_per_category's
    for m in ("precision", "recall", "f1"):
        assert (a[f"{m}_ci_low"] <= a[m] + 1e-12).all() and (a[m] <= a[f"{m}_ci_high"] + 1e-12).all()
    assert set(a["n_groups"]) == {30} and set(a["resampling"]) == {"groups"}
    assert set(a["seed"]) == {11} and set(a["n_boot"]) == {400}
    assert not a["f1_ci_low"].equals(f1_bootstrap(jc, ec, groups=groups, n_boot=400, seed=12)["f1_ci_low"])


def test_f1_bootstrap_equals_f1_per_category_on_materialized_group_resamples():
    """Independent check: every replicate equals f1_per_category on the resample written out pair by pair."""
    from core.analysis.bootstrap import bootstrap_indices, percentile_interval
    from core.analysis.errortypes import f1_bootstrap

    jc, ec, groups = _clustered_counts(n_groups=12, per_group=3)
    n_boot, seed = 60, 5
    got = f1_bootstrap(jc, ec, groups=groups, n_boot=n_boot, seed=seed).set_index("category")
    pairs = sorted(groups["pair_id"])
    label = groups.set_index("pair_id")["group_id"]
    reps = {c: [] for c in [*CATS, "all"]}
    for idx in bootstrap_indices(len(pairs), [label[p] for p in pairs], n_boot, seed):
        copies = [(pairs[i], f"{pairs[i]}#{j}") for j, i in enumerate(idx)]
        jr = pd.concat([jc[jc["pair_id"] == p].assign(pair_id=new) for p, new in copies])
        er = pd.concat([ec[ec["pair_id"] == p].assign(pair_id=new) for p, new in copies])
        table = f1_per_category(jr, er).set_index("category")
        for c in reps:
            t = table.loc[c]
            undefined = 2 * t["tp"] + t["fp"] + t["fn"] == 0
            reps[c].append(np.nan if undefined else t["f1"])
    for c, values in reps.items():
        lo, hi, valid = percentile_interval(np.array(values), 0.95)
        assert got.at[c, "f1_ci_low"] == pytest.approx(lo, abs=1e-12)
        assert got.at[c, "f1_ci_high"] == pytest.approx(hi, abs=1e-12)
        assert got.at[c, "n_boot_valid"] == valid


def test_f1_bootstrap_resamples_groups_not_pairs():
    from core.analysis.errortypes import f1_bootstrap

    jc, ec, groups = _clustered_counts()
    by_group = f1_bootstrap(jc, ec, groups=groups, n_boot=1000, seed=0).set_index("category")
    by_pair = f1_bootstrap(jc, ec, groups=None, n_boot=1000, seed=0).set_index("category")
    assert set(by_pair["resampling"]) == {"pairs"} and set(by_pair["n_groups"]) == {120}
    width_g = by_group["f1_ci_high"] - by_group["f1_ci_low"]
    width_p = by_pair["f1_ci_high"] - by_pair["f1_ci_low"]
    # errors shared within a reference: resampling pairs treats 4 copies as independent, too narrow
    assert (width_g > width_p).sum() >= 5, pd.DataFrame({"groups": width_g, "pairs": width_p})
    assert width_g["all"] > 1.25 * width_p["all"]  # 0.0446 vs 0.0321 with these seeds


def test_f1_bootstrap_without_resamples_gives_no_interval():
    from core.analysis.errortypes import f1_bootstrap

    jc, ec, groups = _clustered_counts(n_groups=5)
    table = f1_bootstrap(jc, ec, groups=groups, n_boot=0)
    assert table["f1_ci_low"].isna().all() and table["f1"].notna().all()
