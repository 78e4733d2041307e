"""Expert targets: per annotator first, then the mean; exact, so ties stay ties."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest
from scipy.stats import kendalltau

from core.analysis import correlation_frame
from core.importers import PairColumns, import_annotations, import_outputs, import_pairs
from core.store import Store
from core.targets import annotator_values, expert_targets


def counts(pid, ann, per_cat: dict, insig: dict | None = None):
    rows = []
    for c in "abcdef":
        rows.append(dict(pair_id=pid, annotator=ann, field="error_count", category=c, significant=True,
                         value=float(per_cat.get(c, 0)), scale_max=None))
        rows.append(dict(pair_id=pid, annotator=ann, field="error_count", category=c, significant=False,
                         value=float((insig or {}).get(c, 0)), scale_max=None))
    return rows


def score(pid, ann, v, scale=5.0):
    return [dict(pair_id=pid, annotator=ann, field="score", category=None, significant=None, value=v,
                 scale_max=scale)]


def test_counts_sum_per_annotator_then_average():
    ann = pd.DataFrame(counts("p1", "A", {"a": 1, "b": 2}, {"c": 1}) + counts("p1", "B", {"a": 1}))
    t = expert_targets(ann).set_index("target")["value"]
    assert t["sig_errors"] == 2.0  # (3 + 1) / 2
    assert t["total_errors"] == 2.5  # (4 + 1) / 2
    assert t["sig_a"] == 1.0 and t["sig_b"] == 1.0 and t["total_c"] == 0.5
    assert set(expert_targets(ann)["n_annotators"]) == {2}


def test_scores_are_normalised_per_annotator_and_exact():
    ann = pd.DataFrame(score("p1", "A", 3.3) + score("p1", "B", 3.4) + score("p2", "A", 3.4)
                       + score("p2", "B", 3.3) + score("p3", "A", 6.7, scale=10) + score("p3", "B", 3.4))
    t = expert_targets(ann).set_index("pair_id")["value"]
    assert t["p1"] == t["p2"] == float(Fraction("6.7") / 10)
    # mixed scales for one pair: exact fractions, (0.67 + 0.68) / 2
    assert t["p3"] == float((Fraction(67, 100) + Fraction(68, 100)) / 2)


def test_float_noise_would_break_a_tie_but_exact_targets_keep_it():
    # Pair p1: two annotators score 0.1 and 0.2 (scale 1); pair p2: 0.2 and 0.1; pair p3: 0.15 and 0.15.
    # All three means are 0.15 exactly as rationals. Averaging floats naively can differ in the last bit.
    vals = {"p1": (0.1, 0.2), "p2": (0.2, 0.1), "p3": (0.15, 0.15), "p4": (0.7, 0.9)}
    rows = []
    for pid, (a, b) in vals.items():
        rows += score(pid, "A", a, scale=1.0) + score(pid, "B", b, scale=1.0)
    exact = expert_targets(pd.DataFrame(rows)).set_index("pair_id")["value"]
    assert exact["p1"] == exact["p2"] == exact["p3"]
    naive = {pid: (a + b) / 2 for pid, (a, b) in vals.items()}
    assert naive["p1"] != naive["p3"]  # 0.15000000000000002 vs 0.15: the naive way breaks the tie
    judge = {"p1": 1.0, "p2": 2.0, "p3": 3.0, "p4": 4.0}
    ids = list(vals)
    tau_exact = kendalltau([judge[p] for p in ids], [exact[p] for p in ids]).statistic
    tau_naive = kendalltau([judge[p] for p in ids], [naive[p] for p in ids]).statistic
    tau_true = kendalltau([1, 2, 3, 4], [Fraction(3, 20)] * 3 + [Fraction(4, 5)]).statistic
    assert tau_exact == pytest.approx(tau_true, abs=1e-12)
    assert abs(tau_naive - tau_true) > 0.05


def test_annotator_filter_and_values():
    ann = pd.DataFrame(counts("p1", "A", {"a": 2}) + counts("p1", "B", {"a": 0}) + score("p1", "A", 5.0))
    only_b = expert_targets(ann, annotators=["B"]).set_index("target")["value"]
    assert only_b["sig_errors"] == 0.0 and "score" not in only_b
    per = annotator_values(ann)
    assert per[(per["target"] == "sig_errors")].set_index("annotator")["value"].to_dict() == {"A": 2.0, "B": 0.0}
    assert per[per["target"] == "score"]["value"].tolist() == [1.0]


def test_correlation_frame_joins_values_targets_and_facets(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    pairs = pd.DataFrame({"id": ["1", "2", "3"], "r": ["same text", "a", "b"], "c": ["same  text", "x", "y"],
                          "m": ["CT", "XR", "CT"]})
    import_pairs(store, pairs, dataset="d", columns=PairColumns("id", "r", "c", modality="m"), name="p.csv")
    import_annotations(store, pd.DataFrame({"id": ["1", "2", "3"], "s": ["5", "3", "1"]}), dataset="d",
                       id_col="id", score_col="s", name="a.csv")
    import_outputs(store, pd.DataFrame({"id": ["1", "2", "3"], "v": ["0.9", "0.5", "0.1"]}), dataset="d",
                   judge="j", id_col="id", score_col="v", metric="bleu4", name="o.csv")
    frame = correlation_frame(store, "d")
    assert frame[["ext_id", "judge", "metric", "value", "target"]].values.tolist() == [
        ["1", "j", "bleu4", 0.9, 1.0], ["2", "j", "bleu4", 0.5, 0.6], ["3", "j", "bleu4", 0.1, 0.2]]
    assert frame.set_index("ext_id").loc["1", "identical"]  # whitespace differences only
    assert correlation_frame(store, "d", drop_identical=True)["ext_id"].tolist() == ["2", "3"]
    assert correlation_frame(store, "d", filters={"modality": ["CT"]})["ext_id"].tolist() == ["1", "3"]
    with pytest.raises(ValueError, match="target 'bogus' unknown"):
        correlation_frame(store, "d", target="bogus")
