"""Ensembles (VERT Table 5): held-out evaluation, splits, numbers vs scipy/sklearn."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.linear_model import LinearRegression

from core.analysis.ensemble import (
    average_ensemble,
    ensemble_table,
    feature_sets_by_metric,
    higher_is_better,
    kendall_ci,
    regression_ensemble,
    split_pairs,
)

N_BOOT = 50  # keep the suite quick; the CI itself is tested separately


def make_features(n: int = 300, seed: int = 0, group_size: int = 3, split: bool = False) -> pd.DataFrame:
    """Three judges x (green, ec_sig) driven by a latent quality; target = expert score."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=n)
    frame = pd.DataFrame({
        "pair_id": [f"p{i:04d}" for i in range(n)],
        "group_id": [f"g{i // group_size}" for i in range(n)],
    })
    if split:
        frame["split"] = np.where(np.arange(n) < 2 * n // 3, "train", "test")
    for judge in ("j1", "j2", "j3"):
        frame[f"{judge}:green"] = 0.5 + 0.2 * quality + rng.normal(scale=0.3, size=n)
        frame[f"{judge}:ec_sig"] = np.maximum(0, np.round(2 - quality + rng.normal(size=n)))
    frame["target"] = 2.5 + quality + rng.normal(scale=0.5, size=n)
    return frame


def groups_of(frame: pd.DataFrame, ids) -> set:
    return set(frame.set_index("pair_id").loc[list(ids), "group_id"])


# -- no pair used for fitting is used for the reported tau ------------------------


def test_recorded_train_and_test_ids_are_disjoint_for_every_row():
    frame = make_features()
    res = ensemble_table(frame, "target", n_boot=N_BOOT)
    assert not set(res.split.train_ids) & set(res.split.test_ids)
    for row in res.table.itertuples():
        train = res.ids(row.ensemble, row.feature_set, "train")
        test = res.ids(row.ensemble, row.feature_set, "test")
        assert len(test) == row.n_test and len(train) == row.n_train
        assert not set(train) & set(test)
        assert set(train) <= set(res.split.train_ids) and set(test) <= set(res.split.test_ids)
        assert not groups_of(frame, train) & groups_of(frame, test)  # no reference straddles


def test_perfect_fit_on_train_does_not_leak_into_reported_tau():
    # Train labels are an exact linear function of the features (in-sample tau = 1);
    # test labels are pure noise, so an honest held-out tau is near 0.
    frame = make_features(n=600, seed=1)
    split = split_pairs(frame, seed=0)
    rng = np.random.default_rng(99)
    is_train = frame["pair_id"].isin(split.train_ids)
    cols = ["j1:green", "j2:green", "j3:green"]
    frame.loc[is_train, "target"] = frame.loc[is_train, cols] @ np.array([1.0, 2.0, 3.0])
    frame.loc[~is_train, "target"] = rng.normal(size=int((~is_train).sum()))

    res = regression_ensemble(frame, "target", {"green": cols}, seed=0, n_boot=200)
    row = res.table.iloc[0]
    train = res.predictions[res.predictions["role"] == "train"]
    assert stats.kendalltau(train["score"], train["target"]).statistic == pytest.approx(1.0)
    assert abs(row["tau"]) < 0.15
    assert row["ci_low"] < 0 < row["ci_high"]
    assert row["n_train"] == len(split.train_ids) and row["n_test"] == len(split.test_ids)


def test_changing_labels_outside_the_fitted_pairs_leaves_the_fit_unchanged():
    frame = make_features(n=400, split=True)  # 266 train-split pairs, train_size=150 -> some unused
    base = regression_ensemble(frame, "target", train_size=150, seed=3, n_boot=N_BOOT)
    fitted = set(base.split.train_ids)
    assert base.split.unused_ids  # train-split pairs not drawn

    poisoned = frame.copy()
    outside = ~poisoned["pair_id"].isin(fitted)
    poisoned.loc[outside, "target"] = np.random.default_rng(5).normal(size=int(outside.sum())) * 100
    again = regression_ensemble(poisoned, "target", train_size=150, seed=3, n_boot=N_BOOT)
    pd.testing.assert_frame_equal(base.coefficients, again.coefficients)
    assert again.split == base.split
    train_scores = base.predictions[base.predictions["role"] == "train"].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        train_scores, again.predictions[again.predictions["role"] == "train"].reset_index(drop=True))
    # the poisoned test labels are what the reported tau now sees
    assert again.table["tau"].abs().max() < 0.2 < base.table["tau"].min()

    # Unused train-split pairs change nothing at all, not even the reported numbers.
    unused = poisoned["pair_id"].isin(base.split.unused_ids)
    only_unused = frame.copy()
    only_unused.loc[unused, "target"] = -1000.0
    same = regression_ensemble(only_unused, "target", train_size=150, seed=3, n_boot=N_BOOT)
    pd.testing.assert_frame_equal(base.table, same.table)


def test_reported_tau_equals_scipy_on_an_independent_refit():
    frame = make_features(n=300, seed=4)
    res = ensemble_table(frame, "target", n_boot=N_BOOT)
    indexed = frame.set_index("pair_id")
    for row in res.table[res.table["ensemble"] == "linear_regression"].itertuples():
        train = res.ids("linear_regression", row.feature_set, "train")
        test = res.ids("linear_regression", row.feature_set, "test")
        model = LinearRegression().fit(indexed.loc[train, row.columns], indexed.loc[train, "target"])
        expected = stats.kendalltau(model.predict(indexed.loc[test, row.columns]), indexed.loc[test, "target"])
        assert row.tau == pytest.approx(expected.statistic, abs=1e-12)
        assert row.p == pytest.approx(expected.pvalue, rel=1e-9)
    for row in res.table[res.table["ensemble"] == "average"].itertuples():
        test = res.predictions[(res.predictions["ensemble"] == "average")
                               & (res.predictions["feature_set"] == row.feature_set)
                               & (res.predictions["role"] == "test")]
        assert row.tau == pytest.approx(stats.kendalltau(test["score"], test["target"]).statistic)


def test_best_single_is_chosen_on_training_pairs_only():
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"pair_id": [f"p{i}" for i in range(n)],
                          "split": ["train"] * 150 + ["test"] * 150,
                          "target": rng.normal(size=n)})
    noise = rng.normal(size=n)
    # j1 tracks the target on train only; j2 on test only.
    frame["j1:vert"] = np.where(frame["split"] == "train", frame["target"], noise)
    frame["j2:vert"] = np.where(frame["split"] == "test", frame["target"], noise)
    res = ensemble_table(frame, "target", {"vert": ["j1:vert", "j2:vert"]}, ensembles=("best_single",),
                         n_boot=N_BOOT)
    row = res.table.iloc[0]
    assert row["columns"] == ["j1:vert"]
    assert abs(row["tau"]) < 0.2


# -- splits -------------------------------------------------------------------------


def test_split_column_caps_training_at_train_size_and_keeps_the_rest_unused():
    n = 1000
    frame = pd.DataFrame({"pair_id": [f"p{i}" for i in range(n)],
                          "split": ["train"] * 800 + ["val"] * 50 + ["test"] * 150})
    split = split_pairs(frame, train_size=500, seed=0, group_col=None)
    assert len(split.train_ids) == 500
    assert len(split.test_ids) == 150 and set(split.test_ids) == {f"p{i}" for i in range(850, 1000)}
    assert len(split.unused_ids) == 350  # 300 undrawn train + 50 val
    assert not split.grouped


def test_split_column_without_test_label_tests_on_every_non_train_pair():
    frame = pd.DataFrame({"pair_id": list("abcdef"), "split": ["train"] * 3 + ["dev", None, "holdout"]})
    split = split_pairs(frame, seed=0)
    assert set(split.train_ids) == {"a", "b", "c"} and set(split.test_ids) == {"d", "e", "f"}


def test_test_pairs_sharing_a_group_with_fitted_pairs_are_dropped():
    frame = pd.DataFrame({"pair_id": ["a", "b", "c", "d", "e"],
                          "group_id": ["g1", "g1", "g2", "g3", "g3"],
                          "split": ["train", "test", "train", "test", "test"]})
    split = split_pairs(frame, seed=0)
    assert set(split.train_ids) == {"a", "c"}
    assert split.dropped_ids == ("b",) and set(split.test_ids) == {"d", "e"}
    assert "dropped" in split.rule


def test_random_split_is_group_aware_seeded_and_holds_out_half():
    frame = make_features(n=120, group_size=4)
    frame = frame.drop(columns=[c for c in frame.columns if c.startswith("split")])
    a = split_pairs(frame, train_size=500, seed=7)
    assert a.grouped and len(a.train_ids) == 60 and len(a.test_ids) == 60
    assert not groups_of(frame, a.train_ids) & groups_of(frame, a.test_ids)
    assert split_pairs(frame.sample(frac=1, random_state=1), train_size=500, seed=7) == a  # row order
    assert split_pairs(frame, train_size=500, seed=8).train_ids != a.train_ids


@settings(max_examples=30, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=2, max_size=40), seed=st.integers(0, 10_000),
       train_size=st.integers(1, 80))
def test_random_split_property(sizes, seed, train_size):
    groups = [f"g{g}" if size > 1 else None for g, size in enumerate(sizes) for _ in range(size)]
    frame = pd.DataFrame({"pair_id": [f"p{i}" for i in range(len(groups))], "group_id": groups})
    split = split_pairs(frame, train_size=train_size, seed=seed)
    train, test = set(split.train_ids), set(split.test_ids)
    assert not train & test and train | test == set(frame["pair_id"])
    assert len(train) <= min(train_size, len(frame) // 2)
    by_pair = dict(zip(frame["pair_id"], frame["group_id"], strict=True))
    assert not ({by_pair[p] for p in train if pd.notna(by_pair[p])}
                & {by_pair[p] for p in test if pd.notna(by_pair[p])})


def test_same_seed_same_everything_other_seed_other_split():
    frame = make_features(n=200)
    a = ensemble_table(frame, "target", seed=11, n_boot=N_BOOT)
    b = ensemble_table(frame, "target", seed=11, n_boot=N_BOOT)
    pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(a.predictions, b.predictions)
    c = ensemble_table(frame, "target", seed=12, n_boot=N_BOOT)
    assert c.split.train_ids != a.split.train_ids
    assert (a.table["seed"] == 11).all()


# -- average ensemble ---------------------------------------------------------------


def test_average_zscores_with_training_statistics_only():
    frame = pd.DataFrame({"pair_id": ["t1", "t2", "t3", "x"],
                          "j1:green": [0.2, 0.4, 0.6, 0.9],
                          "j2:green": [0.1, 0.1, 0.4, 0.0]})
    out = average_ensemble(frame, ["j1:green", "j2:green"], train_ids=["t1", "t2", "t3"])
    # hand-worked: j1 train mean .4, pop. std sqrt(.08/3); j2 mean .2, std sqrt(.06/3)
    s1, s2 = np.sqrt(0.08 / 3), np.sqrt(0.06 / 3)
    expected_x = ((0.9 - 0.4) / s1 + (0.0 - 0.2) / s2) / 2
    assert out.iloc[3] == pytest.approx(expected_x)
    assert out.iloc[:3].mean() == pytest.approx(0.0)
    # a wild held-out value changes neither the statistics nor the train outputs
    moved = frame.assign(**{"j1:green": [0.2, 0.4, 0.6, 100.0]})
    again = average_ensemble(moved, ["j1:green", "j2:green"], train_ids=["t1", "t2", "t3"])
    np.testing.assert_allclose(again.iloc[:3], out.iloc[:3])


def test_average_orients_error_counts_and_plain_mean_matches_paper():
    frame = pd.DataFrame({"pair_id": list("abc"), "j1:ec_sig": [0, 2, 4], "j2:ec_sig": [1, 1, 3]})
    none = average_ensemble(frame, ["j1:ec_sig", "j2:ec_sig"], normalization="none")
    np.testing.assert_allclose(none, [-0.5, -1.5, -3.5])  # negated plain mean: higher = better
    assert higher_is_better("j1:ec_sig") is False and higher_is_better("x:sig_a") is False
    assert higher_is_better("x:matched") is True and higher_is_better("x:vert") is True
    with pytest.raises(KeyError, match="orientation"):
        higher_is_better("x:mystery")
    assert higher_is_better("x:mystery", {"mystery": False}) is False


def test_average_rank_minmax_and_constant_columns():
    frame = pd.DataFrame({"pair_id": list("abcd"), "j1:vert": [1.0, 2.0, 3.0, 2.5],
                          "j2:vert": [5.0, 5.0, 5.0, 1.0]})
    rank = average_ensemble(frame, ["j1:vert", "j2:vert"], train_ids="abc", normalization="rank")
    assert rank.attrs["dropped_columns"] == ["j2:vert"]  # constant on train: no scale
    np.testing.assert_allclose(rank, [1 / 6, 3 / 6, 5 / 6, 4 / 6])
    minmax = average_ensemble(frame, ["j1:vert"], train_ids="abc", normalization="minmax")
    np.testing.assert_allclose(minmax, [0.0, 0.5, 1.0, 0.75])
    with_gap = frame.assign(**{"j2:vert": [5.0, np.nan, 5.0, 1.0]})
    assert np.isnan(average_ensemble(with_gap, ["j1:vert", "j2:vert"], train_ids="abc").iloc[1])


# -- table details --------------------------------------------------------------------


def test_table_shape_feature_sets_and_error_count_target():
    frame = make_features(n=240, seed=2)
    frame["errors"] = -frame["target"]  # an error-count-like target: lower is better
    res = ensemble_table(frame, "errors", target_higher_is_better=False, n_boot=N_BOOT)
    assert list(res.table.columns[:9]) == ["ensemble", "feature_set", "columns", "n_train", "n_test",
                                           "tau", "p", "ci_low", "ci_high"]
    assert set(res.table["feature_set"]) == {"green", "ec_sig", "All"}
    assert "average" not in set(res.table.loc[res.table["feature_set"] == "All", "ensemble"])
    assert (res.table["tau"] > 0.3).all()  # oriented: positive = agrees with the experts
    assert (res.table["ci_low"] <= res.table["tau"]).all() and (res.table["tau"] <= res.table["ci_high"]).all()
    json.dumps(res.to_json())


def test_missing_targets_and_features_are_left_out_explicitly():
    frame = make_features(n=200, seed=5)
    frame.loc[:9, "target"] = np.nan
    frame.loc[10:29, "j1:green"] = np.nan
    res = regression_ensemble(frame, "target", n_boot=N_BOOT)
    assert any("10 pairs without a target" in note for note in res.notes)
    assert not set(res.id_table["pair_id"]) & {f"p{i:04d}" for i in range(10)}
    green, ec = (res.table.set_index("feature_set").loc[name] for name in ("green", "ec_sig"))
    assert green["n_train"] + green["n_test"] == 170 and ec["n_train"] + ec["n_test"] == 190


def test_ridge_and_target_series_by_pair_id():
    frame = make_features(n=150)
    target = frame.set_index("pair_id")["target"].iloc[::-1]
    res = regression_ensemble(frame.drop(columns="target"), target, alpha=1.0, n_boot=N_BOOT)
    assert set(res.table["ensemble"]) == {"ridge"} and (res.table["alpha"] == 1.0).all()
    assert set(res.coefficients["term"]) >= {"intercept", "j1:green"}


def test_unknown_orientation_skips_only_that_average_row():
    frame = make_features(n=120).rename(columns={"j1:green": "j1:foo", "j2:green": "j2:foo", "j3:green": "j3:foo"})
    res = ensemble_table(frame, "target", n_boot=N_BOOT)
    row = res.table.set_index(["ensemble", "feature_set"]).loc[("average", "foo")]
    assert "orientation" in row["status"] and np.isnan(row["tau"])
    assert res.table.set_index(["ensemble", "feature_set"]).loc[("linear_regression", "foo"), "status"] == "ok"


def test_feature_sets_by_metric():
    sets = feature_sets_by_metric(["a:green", "b:green", "a:sig_a"])
    assert sets == {"green": ["a:green", "b:green"], "sig_a": ["a:sig_a"],
                    "All": ["a:green", "b:green", "a:sig_a"]}


def test_kendall_ci_matches_scipy_and_is_seeded():
    rng = np.random.default_rng(0)
    x = rng.normal(size=80)
    y = np.round(x + rng.normal(size=80))
    out = kendall_ci(x, y, seed=1, n_boot=300)
    ref = stats.kendalltau(x, y)
    assert out["tau"] == pytest.approx(ref.statistic) and out["p"] == pytest.approx(ref.pvalue)
    assert out["ci_low"] < out["tau"] < out["ci_high"] and out["n"] == 80
    assert kendall_ci(x, y, seed=1, n_boot=300) == out
    grouped = kendall_ci(x, y, seed=1, n_boot=300, groups=np.arange(80) // 4)
    assert grouped["tau"] == out["tau"] and grouped["ci_low"] != out["ci_low"]


def test_core_modules_do_not_import_streamlit():
    code = "import sys, core.analysis.ensemble, core.analysis.summary; assert 'streamlit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
