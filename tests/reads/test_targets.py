"""Expert targets: per annotator first, then the mean; exact, so ties stay ties."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from core.ingest.importers import PairColumns, import_annotations, import_outputs, import_pairs
from core.reads.frames import correlation_frame
from core.reads.targets import (
    MAIN_TARGETS,
    TARGETS,
    annotator_target_values,
    annotator_values,
    expert_targets,
    load_annotations,
    main_targets_present,
    mixed_scale_targets,
    target_sql,
)
from core.store.db import Store


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


def _store_with_annotations(tmp_path, rows: list[dict]) -> Store:
    """A store whose annotations are written as given (no importer rounding or validation)."""
    store = Store(tmp_path / "t.duckdb")
    ids = sorted({r["pair_id"] for r in rows} | {"p-none"})
    pairs = pd.DataFrame({"pair_id": ids, "dataset": "d", "ext_id": ids, "reference": "r", "candidate": "c",
                          "content_hash": "h"})
    ann = pd.DataFrame(rows).astype({"value": float, "scale_max": float})
    ann["significant"] = ann["significant"].astype("boolean")
    with store.write() as conn:
        conn.execute("INSERT INTO datasets (name, kind) VALUES ('d', 'error_counts')")
        conn.register("p_df", pairs)
        conn.execute("INSERT INTO pairs (pair_id, dataset, ext_id, reference, candidate, content_hash) "
                     "SELECT pair_id, dataset, ext_id, reference, candidate, content_hash FROM p_df")
        conn.register("a_df", ann)
        conn.execute("INSERT INTO annotations (pair_id, annotator, field, category, significant, value, scale_max) "
                     "SELECT pair_id, annotator, field, category, significant, value, scale_max FROM a_df")
    return store


def _tricky_rows(seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(60):
        pid = f"p{p:03d}"
        for a in rng.choice(["A", "B", "C"], size=rng.integers(1, 4), replace=False):
            for c in rng.choice(list("abcdefz"), size=3):  # 'z' is not a category: ignored
                sig = [True, False, None][rng.integers(0, 3)]  # NULL significance counts as insignificant
                value = float(rng.choice([0, 1, 2, 3, 2.5, 0.5, 1.5]))  # halves round to even, as pandas
                rows.append(dict(pair_id=pid, annotator=str(a), field="error_count", category=str(c),
                                 significant=sig, value=value, scale_max=None))
            if rng.uniform() < 0.7:
                scale = float(rng.choice([5.0, 10.0, np.nan])) if p % 7 == 0 else 5.0  # some mixed scales
                rows.append(dict(pair_id=pid, annotator=str(a), field="score", category=None, significant=None,
                                 value=float(rng.choice([3.3, 3.4, 6.7, 0.1, 0.2, 1 / 3, 5.0])), scale_max=scale))
    return rows


@pytest.mark.parametrize("annotators", [None, ["A", "C"], []])
def test_sql_targets_are_bit_identical_to_expert_targets(tmp_path, annotators):
    store = _store_with_annotations(tmp_path, _tricky_rows(5))
    expected = expert_targets(load_annotations(store, "d"), annotators)
    mixed_seen = False
    with store.read() as conn:
        for target in TARGETS:
            sql, params = target_sql(target, "d", annotators)
            got = conn.execute(sql, params).df()
            mixed = list(got.loc[got["mixed"], "pair_id"])
            if mixed:
                mixed_seen = True
                got.loc[got["mixed"], "target"] = got.loc[got["mixed"], "pair_id"].map(
                    mixed_scale_targets(conn, "d", mixed, annotators))
            want = expected[expected["target"] == target].set_index("pair_id")["value"]
            assert sorted(got["pair_id"]) == sorted(want.index), target  # the same pairs, no more
            got = got.set_index("pair_id")["target"].reindex(want.index)
            assert (got.to_numpy() == want.to_numpy()).all(), target  # exact, not approx
    assert mixed_seen or annotators is not None  # the exact-fraction path was exercised


def test_annotator_target_values_match_annotator_values(tmp_path):
    store = _store_with_annotations(tmp_path, _tricky_rows(9))
    per = annotator_values(load_annotations(store, "d"))
    for target in MAIN_TARGETS:
        got = annotator_target_values(store, "d", target).sort_values(["pair_id", "annotator"], ignore_index=True)
        want = per[per["target"] == target].sort_values(["pair_id", "annotator"], ignore_index=True)
        assert got["pair_id"].tolist() == want["pair_id"].tolist()
        assert got["annotator"].tolist() == want["annotator"].tolist()
        assert (got["value"].to_numpy() == want["value"].to_numpy()).all()
    assert main_targets_present(store, "d") == list(MAIN_TARGETS)
    only_scores = _store_with_annotations(tmp_path / "s", [dict(pair_id="p1", annotator="A", field="score",
                                                                 category=None, significant=None, value=3.0,
                                                                 scale_max=5.0)])
    assert main_targets_present(only_scores, "d") == ["score"]


def test_correlation_frame_categorical_and_pair_order_hold_the_same_rows(tmp_path):
    store = _store_with_annotations(tmp_path, _tricky_rows(3))
    values = pd.DataFrame({"id": [f"p{p:03d}" for p in range(60)], "v": [str(p % 7) for p in range(60)]})
    import_outputs(store, values, dataset="d", judge="j", id_col="id", score_col="v", metric="bleu4", name="o.csv")
    plain = correlation_frame(store, "d", "sig_errors")
    assert plain["ext_id"].tolist() == sorted(plain["ext_id"])
    compact = correlation_frame(store, "d", "sig_errors", categorical=True, order="pair_id")
    assert isinstance(compact["judge"].dtype, pd.CategoricalDtype)
    assert compact["pair_id"].astype(str).tolist() == sorted(compact["pair_id"].astype(str))
    back = compact.astype({c: str for c in ("pair_id", "ext_id", "judge", "metric", "run_id")})
    back = back.sort_values("ext_id", ignore_index=True)
    for col in ("pair_id", "judge", "metric", "run_id", "value", "target", "identical"):
        assert back[col].tolist() == plain[col].tolist()
    with pytest.raises(ValueError, match="order must be"):
        correlation_frame(store, "d", order="judge")
