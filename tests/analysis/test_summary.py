"""GREEN summary (GREEN Sec. 3.3, Fig. 4): counts, clustering, representatives."""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cosine

from core.analysis import embeddings as embeddings_mod
from core.analysis.summary import CATEGORY_COLUMNS, CLUSTER_COLUMNS, compare_systems, green_summary

EFFUSION = ["Small right pleural effusion", "Small right pleural effusion", "small right pleural effusion.",
            "Right pleural effusion, small", "Small pleural effusion on the right"]
PNEUMO = ["Left pneumothorax", "Pneumothorax on the left side", "small left pneumothorax"]
HEART = ["Cardiomegaly", "Enlarged cardiac silhouette"]


def errors_frame(texts_by_cat: dict[str, list[str]], judge="j", system="A", significant=True) -> pd.DataFrame:
    rows = [{"pair_id": f"{system}-{cat}{i}", "judge": judge, "system": system, "category": cat,
             "significant": significant, "text": t}
            for cat, texts in texts_by_cat.items() for i, t in enumerate(texts)]
    return pd.DataFrame(rows, columns=["pair_id", "judge", "system", "category", "significant", "text"])


def empty_counts() -> pd.DataFrame:
    return pd.DataFrame(columns=["pair_id", "judge", "system", "category", "significant", "count"])


def empty_scores() -> pd.DataFrame:
    return pd.DataFrame(columns=["pair_id", "judge", "system", "metric", "value"])


# Hand-made 2-d embeddings: three well separated directions, so k = 3 is right.
VECTORS = {**{t: (1.0, 0.05 * i) for i, t in enumerate(EFFUSION)},
           **{t: (0.05 * i, 1.0) for i, t in enumerate(PNEUMO)},
           **{t: (-1.0, -0.1 * i) for i, t in enumerate(HEART)}}


def toy_embedder(texts):
    return np.array([VECTORS[t] for t in texts])


# -- counts and the GREEN header ------------------------------------------------------


def test_counts_per_category_follow_the_explicit_policy():
    counts = pd.DataFrame([
        ("p1", "a", 0), ("p2", "a", 2), ("p3", "a", 1),  # p4 has no 'a' row
        ("p1", "b", None), ("p2", "b", 0), ("p3", "b", 0), ("p4", "b", 3),
    ], columns=["pair_id", "category", "count"]).assign(judge="j", system="A", significant=True)
    insignificant = counts.assign(significant=False, count=9)  # must not count
    both = pd.concat([counts, insignificant])
    s = green_summary(errors_frame({}), both, empty_scores(), "j").categories.set_index("category")
    assert s.loc["a", ["n_reports", "n_unknown"]].tolist() == [4, 0]
    assert s.loc["a", "mean_count"] == pytest.approx(0.75)  # (0 + 2 + 1 + 0) / 4
    assert s.loc["a", "share_no_error"] == pytest.approx(0.5)
    assert s.loc["b", ["n_reports", "n_unknown"]].tolist() == [3, 1]  # NaN count: unknown
    assert s.loc["b", "mean_count"] == pytest.approx(1.0)
    assert s.loc["c", "share_no_error"] == 1.0  # no rows at all for c: 0 errors

    strict = green_summary(errors_frame({}), counts, empty_scores(), "j", absent="unknown")
    a = strict.categories.set_index("category").loc["a"]
    assert (a["n_reports"], a["mean_count"], a["share_no_error"]) == (3, 1.0, pytest.approx(1 / 3))


def test_green_mean_and_std_match_numpy():
    values = [0.1, 0.5, 0.25, 0.8]
    scores = pd.DataFrame({"pair_id": ["p1", "p2", "p3", "p4"], "judge": "j", "system": "A",
                           "metric": "green", "value": values})
    other = scores.assign(metric="vert", value=1.0)
    s = green_summary(errors_frame({}), empty_counts(), pd.concat([scores, other]), "j")
    assert s.green_mean == pytest.approx(np.mean(values))
    assert s.green_std == pytest.approx(np.std(values))  # ddof=0 as GREEN's reference code
    assert s.green_n == 4 and s.n_reports == 4
    assert green_summary(errors_frame({}), empty_counts(), pd.concat([scores, other]), "j",
                         ddof=1).green_std == pytest.approx(np.std(values, ddof=1))
    none = green_summary(errors_frame({}), empty_counts(), other, "j")
    assert none.green_mean is None and none.green_std is None


# -- clustering and representatives -------------------------------------------------


def test_silhouette_picks_k_and_representatives_are_nearest_the_largest_centre():
    errs = errors_frame({"a": EFFUSION + PNEUMO + HEART})
    s = green_summary(errs, empty_counts(), empty_scores(), "j", embedder=toy_embedder)
    cat = s.categories.set_index("category").loc["a"]
    assert cat["k"] == 3 and cat["status"] == "clustered" and cat["largest_size"] == 5
    assert s.embedding == "custom:toy_embedder"
    clusters = s.clusters[s.clusters["category"] == "a"]
    assert sorted(clusters.groupby("cluster").size()) == [2, 3, 5]
    largest = clusters[clusters["is_largest"]].sort_values("rank")
    assert set(largest["text"]) == set(EFFUSION)

    # independent check: cosine distance to the mean of the unit vectors
    unit = np.array([VECTORS[t] for t in largest["text"]])
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    centre = unit.mean(axis=0)
    expected = [cosine(v, centre) for v in unit]
    np.testing.assert_allclose(largest["distance"], expected, atol=1e-9)
    assert largest["distance"].is_monotonic_increasing
    # the nearest texts that differ: the two exact copies and the lower-case one with a full stop count once
    distinct = largest.loc[~largest["text"].str.lower().str.strip(". ").duplicated(), "text"].head(3).tolist()
    assert cat["representatives"] == distinct and len(distinct) == 3
    assert len({t.lower().strip(". ") for t in cat["representatives"]}) == 3
    assert len(clusters) == 10 and list(s.clusters.columns) == list(CLUSTER_COLUMNS)


def test_default_tfidf_embedding_groups_paraphrases():
    errs = errors_frame({"a": EFFUSION + PNEUMO + HEART})
    s = green_summary(errs, empty_counts(), empty_scores(), "j", seed=0)
    assert s.embedding == "tfidf-svd"
    reps = s.categories.set_index("category").loc["a", "representatives"]
    assert len(reps) == 3 and all("effusion" in r.lower() for r in reps)


def test_zero_one_two_texts_are_listed_with_a_status():
    errs = errors_frame({"a": ["Left effusion"], "b": ["Missing nodule", "Missing effusion"]})
    s = green_summary(errs, empty_counts(), empty_scores(), "j")
    cats = s.categories.set_index("category")
    assert "too few texts" in cats.loc["a", "status"] and cats.loc["a", "representatives"] == ["Left effusion"]
    assert "too few texts" in cats.loc["b", "status"] and len(cats.loc["b", "representatives"]) == 2
    assert cats.loc["c", "status"] == "no explanations" and cats.loc["c", "representatives"] == []
    assert pd.isna(cats.loc["b", "k"])
    assert sorted(s.clusters["category"]) == ["a", "b", "b"]
    assert list(s.categories.columns) == list(CATEGORY_COLUMNS)


def test_identical_texts_and_k_capped_by_distinct_texts():
    errs = errors_frame({"a": ["Effusion"] * 4, "b": ["Effusion"] * 3 + ["Pneumothorax"] * 3})
    cats = green_summary(errs, empty_counts(), empty_scores(), "j").categories.set_index("category")
    assert "identical" in cats.loc["a", "status"] and cats.loc["a", "largest_size"] == 4
    assert cats.loc["a", "representatives"] == ["Effusion"]  # one sentence once, not three times
    assert cats.loc["b", "k"] == 2 and cats.loc["b", "status"] == "clustered"
    assert cats.loc["b", "n_distinct_texts"] == 2


def test_blank_insignificant_and_other_judges_are_left_out():
    errs = pd.concat([
        errors_frame({"a": EFFUSION}),
        errors_frame({"a": ["  ", "..."]}).assign(pair_id=["x1", "x2"]),
        errors_frame({"a": ["Ignored insignificant"]}, significant=False),
        errors_frame({"a": ["Other judge"]}, judge="k"),
    ])
    s = green_summary(errs, empty_counts(), empty_scores(), "j")
    a = s.categories.set_index("category").loc["a"]
    assert a["n_texts"] == 5 and a["n_blank"] == 2
    assert set(s.clusters["text"]) == set(EFFUSION)
    with pytest.raises(ValueError, match="unknown categories"):
        green_summary(errors_frame({"z": ["x"]}), empty_counts(), empty_scores(), "j")


def test_seeded_deterministic_and_independent_of_row_order():
    errs = errors_frame({"a": EFFUSION + PNEUMO + HEART, "d": PNEUMO + HEART})
    a = green_summary(errs, empty_counts(), empty_scores(), "j", seed=4)
    b = green_summary(errs.sample(frac=1, random_state=2), empty_counts(), empty_scores(), "j", seed=4)
    pd.testing.assert_frame_equal(a.clusters, b.clusters)
    pd.testing.assert_frame_equal(a.categories, b.categories)
    assert a.seed == 4 and json.loads(json.dumps(a.to_json()))["seed"] == 4


# -- embedders: never download ----------------------------------------------------------


def test_sentence_transformers_is_loaded_from_local_files_only(monkeypatch):
    calls = {}

    class FakeModel:
        def __init__(self, name, **kwargs):
            calls["name"], calls["kwargs"] = name, kwargs

        def encode(self, texts):
            return toy_embedder(texts)

    monkeypatch.setitem(sys.modules, "sentence_transformers", types.SimpleNamespace(SentenceTransformer=FakeModel))
    embeddings_mod._sentence_model.cache_clear()
    try:
        s = green_summary(errors_frame({"a": EFFUSION + PNEUMO + HEART}), empty_counts(), empty_scores(), "j",
                          embedder="some/model")
    finally:
        embeddings_mod._sentence_model.cache_clear()
    assert calls == {"name": "some/model", "kwargs": {"local_files_only": True}}
    assert s.embedding == "sentence-transformers:some/model" and s.notes == []


def test_unavailable_sentence_transformers_falls_back_with_a_note(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails
    embeddings_mod._sentence_model.cache_clear()
    s = green_summary(errors_frame({"a": EFFUSION}), empty_counts(), empty_scores(), "j", embedder="m")
    embeddings_mod._sentence_model.cache_clear()
    assert s.embedding == "tfidf-svd" and "not installed" in s.notes[0]


# -- comparing systems -------------------------------------------------------------------


def test_compare_systems_side_by_side():
    errs = pd.concat([errors_frame({"a": EFFUSION + PNEUMO}, system="A"),
                      errors_frame({"a": HEART * 2 + PNEUMO}, system="B")])
    counts = pd.DataFrame({"pair_id": ["A-a0", "A-a1", "B-a0"], "judge": "j", "system": ["A", "A", "B"],
                           "category": "a", "significant": True, "count": [1, 0, 2]})
    scores = pd.DataFrame({"pair_id": ["A-a0", "B-a0"], "judge": "j", "system": ["A", "B"],
                           "metric": "green", "value": [0.5, 0.25]})
    table = compare_systems(errs, counts, scores, "j", systems=("A", "B"))
    assert len(table) == 12 and table[["category", "system"]].head(2).values.tolist() == [["a", "A"], ["a", "B"]]
    rows = table[table["category"] == "a"].set_index("system")
    assert rows.loc["A", "mean_count"] == 0.5 and rows.loc["B", "mean_count"] == 2.0
    assert rows.loc["A", "green_mean"] == 0.5 and rows.loc["B", "green_mean"] == 0.25
    assert all("effusion" in t.lower() for t in rows.loc["A", "representatives"])
    assert not any("effusion" in t.lower() for t in rows.loc["B", "representatives"])
    with pytest.raises(ValueError):
        compare_systems(errs, counts, scores, "j", systems=("A", "A"))


def test_distinct_texts_ignore_case_spacing_and_punctuation():
    from core.analysis.summary import distinct_texts

    texts = ["Small effusion.", "small  effusion", "SMALL EFFUSION!", "Large effusion", "Pneumothorax", "x"]
    assert distinct_texts(texts, 3) == ["Small effusion.", "Large effusion", "Pneumothorax"]
    assert distinct_texts(texts[:3], 3) == ["Small effusion."]
    assert distinct_texts([], 3) == []
