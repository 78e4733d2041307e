"""The comparable ceiling: each expert against the mean of the others (leave-one-out)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from core.analysis.ceiling import leave_one_out, mean_tau
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _ratings(n_pairs: int = 60, n_raters: int = 5, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 5, n_pairs)
    rows = [(f"p{p}", f"r{a}", float(max(0, truth[p] + rng.integers(-1, 2))))
            for p in range(n_pairs) for a in range(n_raters) if not (a == 4 and p % 3 == 0)]  # r4 skips some
    return pd.DataFrame(rows, columns=["pair_id", "annotator", "value"])


def test_each_rater_against_the_mean_of_the_others_matches_scipy():
    df = _ratings()
    loo = leave_one_out(df).set_index("annotator")
    wide = df.pivot(index="pair_id", columns="annotator", values="value")
    for name in wide.columns:
        others = wide.drop(columns=name)
        keep = wide[name].notna() & others.notna().any(axis=1)
        expected = kendalltau(wide.loc[keep, name], others[keep].mean(axis=1))
        assert loo.at[name, "n"] == keep.sum()
        assert loo.at[name, "tau"] == pytest.approx(expected.statistic, abs=1e-12)
    assert loo.at["r4", "n"] == 40
    assert mean_tau(loo) == pytest.approx(loo["tau"].mean())


def test_equal_means_tie_exactly_whatever_the_float_noise():
    # Others' means 0.1 + 0.2 (=0.3) and 0.3 + 0.0: equal rationals must be one tied value.
    df = pd.DataFrame([("a", "x", 0.1), ("a", "y", 0.2), ("a", "z", 1.0),
                       ("b", "x", 0.3), ("b", "y", 0.0), ("b", "z", 1.0),
                       ("c", "x", 0.9), ("c", "y", 0.9), ("c", "z", 0.0)], columns=["pair_id", "annotator", "value"])
    z = leave_one_out(df, min_n=2).set_index("annotator").loc["z"]
    exact = kendalltau([1.0, 1.0, 0.0], [0.15, 0.15, 0.9])  # the others' means as exact rationals
    assert z["tau"] == pytest.approx(exact.statistic, abs=1e-12) and z["n"] == 3


def test_two_raters_leave_one_out_is_their_pairwise_tau_and_one_rater_gives_nothing():
    df = _ratings(n_raters=2)
    loo = leave_one_out(df)
    wide = df.pivot(index="pair_id", columns="annotator", values="value")
    assert loo["tau"].tolist() == pytest.approx([kendalltau(wide["r0"], wide["r1"]).statistic] * 2, abs=1e-12)
    assert leave_one_out(df[df["annotator"] == "r0"]).empty and math.isnan(mean_tau(leave_one_out(df.iloc[:0])))


def test_agreement_prints_the_leave_one_out_ceiling_and_the_alpha_level(demo_store):
    done = run_cli("--store", str(demo_store.path), "agreement", "--dataset",
                           "demo", "--target", "sig_errors", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["alpha_level"] == "ratio" and len(out["leave_one_out"]) == 2
    assert out["loo_tau"] == pytest.approx(out["mean_tau"], abs=1e-12)  # two experts: the same figure
    text = run_cli("--store", str(demo_store.path), "agreement", "--dataset",
                           "demo").stdout
    assert "Krippendorff's alpha (score, interval level)" in text and "leave-one-out" in text


@pytest.mark.parametrize(("stat", "scipy_name", "column"), [("rho", "spearmanr", "rho"), ("r", "pearsonr", "r")])
def test_the_ceiling_in_rho_and_r_matches_scipy(stat, scipy_name, column):
    import scipy.stats

    from core.analysis.agreement import inter_annotator
    from core.analysis.ceiling import mean_stat

    df = _ratings()
    loo = leave_one_out(df).set_index("annotator")
    wide = df.pivot(index="pair_id", columns="annotator", values="value")
    fn = getattr(scipy.stats, scipy_name)
    for name in wide.columns:
        others = wide.drop(columns=name)
        keep = wide[name].notna() & others.notna().any(axis=1)
        expected = fn(wide.loc[keep, name], others[keep].mean(axis=1))
        assert loo.at[name, column] == pytest.approx(expected.statistic, abs=1e-12)
        assert loo.at[name, f"{column}_p"] == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-300)
    assert mean_stat(loo, stat) == pytest.approx(loo[column].mean())
    # tau is unchanged by the added columns, and the pairwise ceiling has all three as well
    assert mean_stat(loo, "kendall") == mean_tau(loo)
    agreement = inter_annotator(df)
    pw = agreement.pairwise.set_index(["annotator_a", "annotator_b"])
    for (a, b), got in pw.iterrows():
        both = wide[[a, b]].dropna()
        assert got[column] == pytest.approx(fn(both[a], both[b]).statistic, abs=1e-12)
    assert agreement.mean(stat) == pytest.approx(pw[column].mean())
    assert agreement.mean("tau") == agreement.mean_tau


def test_unknown_statistic_is_refused():
    from core.analysis.ceiling import mean_stat

    with pytest.raises(ValueError, match="unknown statistic"):
        mean_stat(leave_one_out(_ratings()), "kappa")
