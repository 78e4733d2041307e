"""core.analysis.stats against independent numbers: scipy, naive loops, hand-worked examples, published values."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from core.analysis import stats
from core.analysis.stats import (
    bootstrap_ci,
    bootstrap_distribution,
    bootstrap_indices,
    breakdown,
    correlate,
    correlation,
    drop_identical,
    expected_sign,
    inter_annotator,
    judge_metric_table,
    mark_best,
    paired_difference,
    resample_counts,
)
from core.taxonomy import MISSING

TOL = 1e-12


def _scipy_all(x, y) -> dict:
    return {"tau": sps.kendalltau(x, y, variant="b"), "rho": sps.spearmanr(x, y), "r": sps.pearsonr(x, y)}


def _frame(n: int = 120, seed: int = 0, per_group: int = 4) -> pd.DataFrame:
    """Long frame: two judges, tied integer-ish values, score target in k/15."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(0, 1, n)
    target = np.clip(np.rint(q[:, None] * 5 + rng.normal(0, 0.7, (n, 3))), 0, 5).sum(1) / 15
    base = dict(pair_id=[f"p{i:04d}" for i in range(n)], group_id=[f"g{i // per_group:03d}" for i in range(n)],
                target=target)
    good = np.round(q + rng.normal(0, 0.15, n), 1)
    weak = np.round(q + rng.normal(0, 1.5, n), 1)
    errors = rng.poisson(3 * (1 - q)).astype(float)
    parts = [pd.DataFrame(base | {"judge": "good", "metric": "vert", "value": good}),
             pd.DataFrame(base | {"judge": "weak", "metric": "vert", "value": weak}),
             pd.DataFrame(base | {"judge": "good", "metric": "ec_sig", "value": errors})]
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- point estimates

@pytest.mark.parametrize("kind", ["continuous", "heavy_ties", "small_exact_p"])
def test_correlation_equals_scipy(kind):
    rng = np.random.default_rng(1)
    if kind == "continuous":
        x = rng.normal(size=300)
        y = x + rng.normal(size=300)
    elif kind == "heavy_ties":
        x = rng.integers(0, 3, 400).astype(float)
        y = (x + rng.integers(0, 2, 400)).astype(float)
    else:  # no ties and n <= 33: scipy uses the exact null distribution of tau
        x = rng.permutation(20).astype(float)
        y = x + rng.normal(0, 4, 20)
    res = correlation(x, y)
    ref = _scipy_all(x, y)
    assert res["n"] == len(x) and res["reason"] is None
    for est, p in (("tau", "p"), ("rho", "rho_p"), ("r", "r_p")):
        key = est
        assert abs(res[est] - ref[key].statistic) <= TOL
        assert abs(res[p] - ref[key].pvalue) <= TOL


def test_correlation_constant_and_small_inputs_are_nan_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        const = correlation([1, 2, 3, 4], [2, 2, 2, 2])
        small = correlation([1, 2], [1, 2], min_n=3)
        missing = correlation([1, 2, np.nan, 4, 5], [1, 3, 2, np.inf, 5])
    assert math.isnan(const["tau"]) and const["reason"] == "constant y"
    assert math.isnan(small["tau"]) and math.isnan(small["r"]) and small["reason"] == "n < 3"
    assert missing["n"] == 3 and missing["n_missing"] == 2


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=3, max_size=40))
def test_weighted_algorithm_on_the_full_sample_equals_scipy(pairs):
    """All multiplicities 1 = the sample itself: tau-b, rho, r of the vectorized code equal scipy."""
    x = np.array([p[0] for p in pairs], dtype=float) / 4  # non-integer values, heavy ties
    y = np.array([p[1] for p in pairs], dtype=float) / 3
    got = stats.boot_stats(x, y, np.ones((len(x), 1)), stats.METHODS)
    if np.all(x == x[0]) or np.all(y == y[0]):
        assert all(math.isnan(v[0]) for v in got.values())
        return
    ref = _scipy_all(x, y)
    assert abs(got["kendall"][0] - ref["tau"].statistic) <= TOL
    assert abs(got["spearman"][0] - ref["rho"].statistic) <= TOL
    assert abs(got["pearson"][0] - ref["r"].statistic) <= TOL


# --------------------------------------------------------------------------- bootstrap

@pytest.mark.parametrize("clustered", [False, True])
def test_vectorized_bootstrap_equals_naive_loop(clustered):
    rng = np.random.default_rng(7)
    n = 90
    x = rng.integers(0, 6, n) / 5  # heavy ties in both
    y = np.clip(x + rng.integers(-1, 2, n) / 5, 0, 1)
    y[::9] = rng.normal(size=10)  # a few distinct values too
    groups = np.repeat([f"r{i}" for i in range(30)], 3) if clustered else None
    reps = bootstrap_distribution(x, y, groups, n_boot=150, seed=11)
    for b, idx in enumerate(bootstrap_indices(n, groups, n_boot=150, seed=11)):
        xs, ys = x[idx], y[idx]
        assert abs(reps["kendall"][b] - sps.kendalltau(xs, ys).statistic) <= TOL
        assert abs(reps["spearman"][b] - sps.spearmanr(xs, ys).statistic) <= TOL
        assert abs(reps["pearson"][b] - sps.pearsonr(xs, ys).statistic) <= TOL


def test_counts_and_indices_describe_the_same_resamples():
    groups = np.array(["b", "a", "a", "c", "b", "b"])
    counts = resample_counts(6, groups, n_boot=40, seed=3)
    for row, idx in zip(counts, bootstrap_indices(6, groups, n_boot=40, seed=3), strict=True):
        assert row.tolist() == np.bincount(idx, minlength=6).tolist()


def test_cluster_bootstrap_never_splits_a_group():
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 6, 40)
    groups = np.repeat([f"ref{i:02d}" for i in range(40)], sizes)
    rng.shuffle(groups)  # members of a group need not be adjacent
    counts = resample_counts(len(groups), groups, n_boot=300, seed=5)
    for g in np.unique(groups):
        block = counts[:, groups == g]
        assert (block == block[:, :1]).all()  # every member drawn as often as the others
    for idx in bootstrap_indices(len(groups), groups, n_boot=50, seed=5):
        drawn = pd.Series(groups[idx]).value_counts()
        size = pd.Series(groups).value_counts()
        assert ((drawn / size[drawn.index]) % 1 == 0).all()  # whole groups only
        assert len(set(groups[idx])) <= 40
    # as many clusters are drawn as there are clusters
    assert (counts.sum(1) != len(groups)).any()  # sizes differ, so resample sizes vary
    per_cluster = np.array([[counts[b, np.flatnonzero(groups == g)[0]] for g in np.unique(groups)]
                            for b in range(300)])
    assert (per_cluster.sum(1) == 40).all()


def test_bootstrap_is_seeded_and_recorded():
    rng = np.random.default_rng(2)
    x = rng.normal(size=80)
    y = x + rng.normal(size=80)
    a = bootstrap_ci(x, y, n_boot=300, seed=4)
    b = bootstrap_ci(x, y, n_boot=300, seed=4)
    c = bootstrap_ci(x, y, n_boot=300, seed=5)
    assert a == b and a["seed"] == 4 and a["n_boot"] == 300
    assert (a["ci_low"], a["ci_high"]) != (c["ci_low"], c["ci_high"])
    assert a["ci_low"] < a["estimate"] < a["ci_high"]
    reps = bootstrap_distribution(x, y, n_boot=300, seed=4, stats="kendall")["kendall"]
    assert (a["ci_low"], a["ci_high"]) == tuple(np.quantile(reps, [0.025, 0.975]))


def test_correlate_is_deterministic_and_independent_of_row_order():
    data = _frame()
    one = correlate(data, n_boot=200, seed=9)
    two = correlate(data.sample(frac=1.0, random_state=1), n_boot=200, seed=9)
    pd.testing.assert_frame_equal(one, two)
    assert (one["seed"] == 9).all() and (one["n_boot"] == 200).all()
    other = correlate(data, n_boot=200, seed=10)
    assert not np.allclose(one["ci_low"], other["ci_low"])


def test_correlate_matches_scipy_and_bootstrap_ci():
    data = _frame()
    table = correlate(data, n_boot=200, seed=1, cluster_col="group_id")
    assert set(table["resampling"]) == {"groups"} and (table["n_clusters"] == 30).all()
    for row in table.itertuples():
        part = data[(data["judge"] == row.judge) & (data["metric"] == row.metric)].sort_values("pair_id")
        ref = sps.kendalltau(part["value"], part["target"])
        assert abs(row.tau - ref.statistic) <= TOL and abs(row.p - ref.pvalue) <= TOL
        assert abs(row.rho - sps.spearmanr(part["value"], part["target"]).statistic) <= TOL
        ci = bootstrap_ci(part["value"], part["target"], part["group_id"], n_boot=200, seed=1)
        assert (row.ci_low, row.ci_high) == (ci["ci_low"], ci["ci_high"])
        assert row.rho_ci_low <= row.rho <= row.rho_ci_high or row.too_few
    pairs = correlate(data, n_boot=50, cluster_col=None)
    assert set(pairs["resampling"]) == {"pairs"} and (pairs["n_clusters"] == pairs["n"]).all()


def test_missing_values_are_dropped_and_counted():
    data = _frame()
    data.loc[[0, 1, 2], "value"] = np.nan
    data.loc[5, "target"] = np.nan
    table = correlate(data, n_boot=0).set_index(["judge", "metric"])
    assert table.loc[("good", "vert"), "n_missing"] == 4
    assert table.loc[("good", "vert"), "n"] == 116
    assert table.loc[("weak", "vert"), "n_missing"] == 0
    assert math.isnan(table.loc[("good", "vert"), "ci_low"])  # n_boot=0: no CI


def test_min_n_guard():
    data = _frame(n=8)
    table = correlate(data, n_boot=100, min_n=10)
    assert table["too_few"].all()
    assert table[["tau", "p", "ci_low", "rho", "r", "r_ci_high"]].isna().all().all()
    assert (table["reason"] == "n < 10").all() and (table["n"] == 8).all()


def test_duplicate_pairs_in_a_group_are_an_error():
    data = _frame(n=20)
    with pytest.raises(ValueError, match="more than once"):
        correlate(pd.concat([data, data.head(1)]), n_boot=0)


# --------------------------------------------------------------------------- orientation, dagger, marks

def test_wrong_sign_is_flagged_for_an_inverted_metric():
    data = _frame()
    inverted = data[(data["judge"] == "good") & (data["metric"] == "vert")].assign(judge="inverted")
    inverted["value"] = 1 - inverted["value"]
    table = correlate(pd.concat([data, inverted]), n_boot=0).set_index(["judge", "metric"])
    assert table.loc[("good", "vert"), "sign_ok"] and table.loc[("good", "vert"), "expected_sign"] == 1
    assert not table.loc[("inverted", "vert"), "sign_ok"]
    assert table.loc[("inverted", "vert"), "tau"] < 0 < table.loc[("inverted", "vert"), "abs_tau"]
    # an error count correlates negatively with a quality score, and that is the right way
    assert table.loc[("good", "ec_sig"), "expected_sign"] == -1 and table.loc[("good", "ec_sig"), "sign_ok"]
    # against an error-count target the signs flip
    vs_errors = correlate(data, n_boot=0, target_name="sig_errors").set_index(["judge", "metric"])
    assert vs_errors.loc[("good", "ec_sig"), "expected_sign"] == 1
    assert not vs_errors.loc[("good", "ec_sig"), "sign_ok"]  # same data, now read against an error target


def test_orientation_of_unknown_names_is_assumed_and_said():
    assert expected_sign("vert", "score") == (1, False)
    assert expected_sign("ec_total", "total_errors") == (1, False)
    assert expected_sign("fineradscore", "score") == (-1, False)
    assert expected_sign("my_metric", "score") == (1, True)
    data = _frame(n=30).assign(metric=lambda d: "my_" + d["metric"])
    table = correlate(data, n_boot=0)
    assert table["orientation_assumed"].all()


def test_target_orientation_agrees_with_targets_module():
    targets = pytest.importorskip("core.reads.targets")
    for name, up in targets.HIGHER_IS_BETTER.items():
        assert stats.target_higher_is_better(name) is up, name


def test_dagger_marks_p_at_or_above_001():
    data = _frame()
    table = correlate(data, n_boot=0).set_index("judge")
    assert table.loc["weak", "p"] >= 0.01 and table.loc["weak", "dagger"]
    good = table[table["metric"] == "vert"].loc["good"]
    assert good["p"] < 0.01 and not good["dagger"]
    handmade = pd.DataFrame({"judge": ["a", "b", "c"], "metric": "vert", "abs_tau": [0.5, 0.4, 0.3],
                             "tau_oriented": [0.5, 0.4, -0.3], "p": [0.0099, 0.01, 0.2], "n": 50})
    table = judge_metric_table(handmade)
    assert table.dagger["vert"].tolist() == [False, True, True]
    assert table.text["vert"].tolist() == ["0.500", "0.400†", "0.300† ⚠"]


def test_mark_best_with_ties():
    table = pd.DataFrame({"judge": list("abcdefg"), "metric": ["m"] * 5 + ["k"] * 2,
                          "abs_tau": [0.5, 0.5, 0.4, 0.3, np.nan, 0.2, 0.1]})
    marked = mark_best(table)
    assert marked["best"].tolist() == [True, True, False, False, False, True, False]
    assert marked["second"].tolist() == [False, False, True, False, False, False, True]
    # across the whole table (VERT Table 1)
    overall = mark_best(table, within=None)
    assert overall["best"].sum() == 2 and overall.loc[overall["second"], "judge"].tolist() == ["c"]
    # values printed alike are marked alike
    close = pd.DataFrame({"judge": ["a", "b", "c"], "metric": "m", "abs_tau": [0.71249, 0.7121, 0.6]})
    assert mark_best(close, decimals=3)["best"].tolist() == [True, True, False]
    assert mark_best(close)["best"].tolist() == [True, False, False]
    # one value per metric (or one real value beside NaN): nothing is compared, nothing is marked
    alone = pd.DataFrame({"judge": ["a", "a", "b"], "metric": ["m", "k", "k"], "abs_tau": [0.5, 0.4, np.nan]})
    assert not mark_best(alone)["best"].any() and not mark_best(alone)["second"].any()
    assert not mark_best(alone.iloc[:1], within=None)["best"].any()


def test_judge_metric_table_shape_order_and_markdown():
    rows = []
    for judge, taus in (("j1", [0.7, 0.2, 0.5]), ("j2", [0.6, 0.3, 0.5])):
        for metric, tau in zip(["rouge_l", "green", "zzz"], taus, strict=True):
            rows.append({"judge": judge, "metric": metric, "abs_tau": tau, "tau_oriented": tau, "p": 0.001,
                         "n": 100})
    rows.append({"judge": "j3", "metric": "green", "abs_tau": np.nan, "tau_oriented": np.nan, "p": np.nan,
                 "n": 5})
    table = judge_metric_table(pd.DataFrame(rows))
    assert list(table.values.columns) == ["green", "rouge_l", "zzz"]
    assert list(table.values.index) == ["j1", "j2", "j3"]
    assert table.best.loc["j1", "rouge_l"] and table.second.loc["j2", "rouge_l"]
    assert table.best.loc["j1", "zzz"] and table.best.loc["j2", "zzz"]  # tie: both bold
    assert table.text.loc["j3", "green"] == "(n=5)" and table.text.loc["j3", "rouge_l"] == MISSING
    md = table.to_markdown()
    assert "**0.700**" in md and "<u>0.600</u>" in md and md.startswith("| judge |")
    with pytest.raises(ValueError, match="several rows"):
        judge_metric_table(pd.concat([pd.DataFrame(rows)] * 2))


def test_breakdown_per_facet_with_n_per_cell():
    data = _frame()
    data["modality"] = np.where(data["pair_id"].str[-1].astype(int) % 2 == 0, "CT", "XR")
    data.loc[data["pair_id"] == "p0001", "modality"] = None
    table = breakdown(data, "modality", n_boot=50)
    assert set(table["modality"]) == {"CT", "XR", "(missing)"}
    cells = table.groupby(["judge", "metric"])["n"].sum()
    assert (cells == 120).all()  # the cells add up to the whole
    assert table.loc[table["modality"] == "(missing)", "too_few"].all()


# --------------------------------------------------------------------------- paired comparison

def test_paired_difference_identical_judges_cover_zero():
    data = _frame()
    same = data[data["judge"] == "good"].assign(judge="copy")
    res = paired_difference(pd.concat([data, same]), "good", "copy", "vert", n_boot=300, seed=2).iloc[0]
    assert res["diff"] == 0 and res["ci_low"] <= 0 <= res["ci_high"] and res["p_boot"] == 1.0
    assert res["n"] == 120 and res["resampling"] == "groups" and res["seed"] == 2


def test_paired_difference_clearly_better_judge_excludes_zero():
    data = _frame(n=200)
    res = paired_difference(data, "good", "weak", "vert", n_boot=500, seed=0).iloc[0]
    assert res["diff"] > 0 and res["ci_low"] > 0 and res["p_boot"] < 0.01
    assert res["p_boot"] == pytest.approx(2 / (res["n_boot_valid"] + 1))
    # the resamples are paired: the difference is taken resample by resample
    part = data.sort_values("pair_id")
    good, weak = (part[(part["judge"] == j) & (part["metric"] == "vert")] for j in ("good", "weak"))
    ra = bootstrap_distribution(good["value"], good["target"], good["group_id"], 500, 0, "kendall")["kendall"]
    rb = bootstrap_distribution(weak["value"], weak["target"], weak["group_id"], 500, 0, "kendall")["kendall"]
    assert (res["ci_low"], res["ci_high"]) == tuple(np.quantile(ra - rb, [0.025, 0.975]))


def test_paired_difference_is_sign_corrected_across_metrics():
    data = _frame()
    # ec_sig against a quality score: expected sign -1, so its oriented tau is -tau (positive)
    res = paired_difference(data, "good", "good", "ec_sig", "vert", n_boot=100).iloc[0]
    tau_ec = sps.kendalltau(*[data[(data["metric"] == "ec_sig")].sort_values("pair_id")[c] for c in
                              ("value", "target")]).statistic
    assert tau_ec < 0 and res["estimate_a"] == pytest.approx(-tau_ec, abs=TOL)


def test_paired_difference_uses_only_pairs_both_scored():
    data = _frame()
    data = data[~((data["judge"] == "weak") & data["pair_id"].isin(["p0000", "p0001"]))]
    res = paired_difference(data, "good", "weak", "vert", n_boot=50).iloc[0]
    assert res["n"] == 118


# --------------------------------------------------------------------------- helpers

def test_drop_identical():
    pairs = pd.DataFrame({"pair_id": [1, 2, 3, 4, 5],
                          "reference": ["No effusion.", "Small  effusion.\n", "A", None, "Clear lungs."],
                          "candidate": ["No effusion.", " Small effusion.", "a", None, "Clear lungs. "]})
    kept, removed = drop_identical(pairs)
    assert removed == 3 and kept["pair_id"].tolist() == [3, 4]


KRIPPENDORFF_2011 = np.array([  # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Sec. E
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
])


def _long(matrix: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame([{"pair_id": f"u{u}", "annotator": f"coder{c}", "value": matrix[c, u]}
                         for c in range(matrix.shape[0]) for u in range(matrix.shape[1])])


def _interval_alpha_by_hand(matrix: np.ndarray) -> float:
    """1 - D_o / D_e over pairable values (units with >= 2 ratings), squared differences."""
    units = [col[~np.isnan(col)] for col in matrix.T]
    units = [u for u in units if len(u) >= 2]
    values = np.concatenate(units)
    n = len(values)
    d_o = sum(((u[:, None] - u[None, :]) ** 2).sum() / (len(u) - 1) for u in units) / n
    d_e = ((values[:, None] - values[None, :]) ** 2).sum() / (n * (n - 1))
    return 1 - d_o / d_e


def test_inter_annotator_against_published_and_hand_values():
    long = _long(KRIPPENDORFF_2011)
    published = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    for method, value in published.items():
        assert round(inter_annotator(long, method).alpha, 3) == value
    agreement = inter_annotator(long, "interval")
    assert agreement.alpha == pytest.approx(_interval_alpha_by_hand(KRIPPENDORFF_2011), abs=TOL)
    assert agreement.n_annotators == 4 and agreement.n_units == 11  # unit 12 has one rating
    pw = agreement.pairwise.set_index(["annotator_a", "annotator_b"])
    assert len(pw) == 6
    a, c = KRIPPENDORFF_2011[0], KRIPPENDORFF_2011[2]
    both = ~np.isnan(a) & ~np.isnan(c)
    assert pw.loc[("coder0", "coder2"), "n"] == both.sum() == 8
    assert pw.loc[("coder0", "coder2"), "tau"] == pytest.approx(sps.kendalltau(a[both], c[both]).statistic,
                                                                abs=TOL)
    assert agreement.mean_tau == pytest.approx(pw["tau"].mean())


def test_inter_annotator_degenerate_inputs():
    one = pd.DataFrame({"pair_id": ["a", "b"], "annotator": ["x", "x"], "value": [1.0, 2.0]})
    assert math.isnan(inter_annotator(one).alpha) and inter_annotator(one).pairwise.empty
    flat = pd.DataFrame({"pair_id": ["a", "a", "b", "b"], "annotator": ["x", "y"] * 2, "value": 1.0})
    assert math.isnan(inter_annotator(flat).alpha)
    with pytest.raises(ValueError, match="more than once"):
        inter_annotator(pd.concat([flat, flat]))


# --------------------------------------------------------------------------- exact aggregation matters

def test_float_means_per_category_would_change_tau_on_tied_targets():
    """Equal rationals must be equal floats, or Kendall tau sees a difference that is not there.

    Three annotators; per-category count sums (2, 3, 0) and (0, 5, 0) both total 5, so both
    targets are 5/3. Summing per-category float means (2/3 + 3/3 + 0/3) gives 1.6666666666666665,
    while (0/3 + 5/3 + 0/3) gives 1.6666666666666667: the tie is broken at random by rounding.
    Exact aggregation (integers summed, divided once; core/reads/targets.py) keeps the tie.
    """
    k = 3
    category_sums = {"P1": (0, 0, 0), "P2": (2, 3, 0), "P3": (0, 5, 0), "P4": (3, 3, 3)}
    judge = np.array([0.0, 2.0, 1.0, 4.0])  # e.g. a judge's error count per pair

    def naive(sums):
        total = 0.0
        for s in sums:
            total += s / k  # float mean per category, then summed
        return total

    naive_y = np.array([naive(s) for s in category_sums.values()])
    exact = [Fraction(sum(s), k) for s in category_sums.values()]
    exact_y = np.array([float(f) for f in exact])  # converted once
    assert naive_y[1] != naive_y[2] and exact_y[1] == exact_y[2]

    tau_naive = correlation(judge, naive_y)["tau"]
    tau_exact = correlation(judge, exact_y)["tau"]
    # by hand: 5 concordant, 0 discordant, one pair tied in y (P2, P3): 5 / sqrt(6 * 5)
    assert tau_exact == pytest.approx(5 / math.sqrt(30), abs=TOL)
    # scipy on exact ranks of the Fractions (ordering and ties are all tau depends on)
    levels = sorted(set(exact))
    exact_ranks = [levels.index(f) for f in exact]
    assert abs(tau_exact - sps.kendalltau(judge, exact_ranks).statistic) <= TOL
    assert tau_naive == pytest.approx(4 / 6, abs=TOL) and abs(tau_naive - tau_exact) > 0.2


def test_degenerate_resamples_are_nan_like_scipy():
    """A resample that draws only one x value has no correlation; scipy says NaN, so must we."""
    x = np.array([0.1] * 30 + [0.7] * 2)
    y = np.arange(32) / 7
    reps = bootstrap_distribution(x, y, n_boot=200, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input
        for b, idx in enumerate(bootstrap_indices(32, None, n_boot=200, seed=1)):
            for stat, ref in zip(stats.METHODS, _scipy_all(x[idx], y[idx]).values(), strict=True):
                if math.isnan(ref.statistic):
                    assert math.isnan(reps[stat][b])
                else:
                    assert abs(reps[stat][b] - ref.statistic) <= TOL
    ci = bootstrap_ci(x, y, n_boot=200, seed=1)
    assert ci["n_boot_valid"] == int(np.isfinite(reps["kendall"]).sum()) < 200
