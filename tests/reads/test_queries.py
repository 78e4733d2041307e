"""core.reads.queries against real DuckDB files: listing, facets, filters, paging, pair detail."""

from __future__ import annotations

import math
import sys

import pandas as pd
import pytest

from core.access import RESEARCHER
from core.ingest.importers import PairColumns, import_annotations, import_pairs
from core.reads.queries import (
    CATEGORY_NAMES,
    annotation_summary,
    counts_by_category,
    escape_like,
    facet_values,
    find_pairs,
    get_pair,
    list_datasets,
    pair_annotations,
)
from core.store.db import Store, latest_schema_version, pair_id_for
from tests.old_schema import older_copy

PAIRS = pd.DataFrame(
    {
        "id": ["p1", "p2", "p3", "p4", "p5", "p6"],
        "ref": [
            "Small left pleural Effusion.",
            "Heart size is 50% larger than before.",
            "Nodule in the left_lower lobe.",
            "No acute findings.",
            "Mild cardiomegaly.",
            "Stable 5 mm nodule. <script>alert(1)</script>",
        ],
        "cand": [
            "No effusion.",
            "Heart size normal.",
            "Nodule in the right lower lobe.",
            "No acute findings.",
            "Severe cardiomegaly.",
            "New nodule.",
        ],
        "mod": ["CT", "XR", "CT", "MR", None, "CT"],
        "anat": ["chest", "chest", "chest", "head", "chest", "chest"],
        "sys": ["s1", "s2", "s1", "s2", "s1", "s2"],
        "split": ["train", "train", "test", "test", "train", "test"],
        "site": ["A", "B", "A", "B", "A", "B"],  # not mapped: kept in meta
    }
)
COLS = PairColumns(id="id", reference="ref", candidate="cand", modality="mod", anatomy="anat",
                   system="sys", split="split")


def _counts(annotator: str, pid: str, counts: dict[tuple[str, bool], int]) -> list[dict]:
    rows = []
    for cat in CATEGORY_NAMES:
        for sig in (True, False):
            rows.append({"id": pid, "annotator": annotator, "category": cat, "significant": sig,
                         "count": counts.get((cat, sig), 0)})
    return rows


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Built once per module: every test here only reads."""
    tmp_store = Store(tmp_path_factory.mktemp("queries") / "store.duckdb")
    import_pairs(tmp_store, PAIRS, dataset="chest", columns=COLS, kind="error_counts", name="chest.csv")
    import_pairs(tmp_store, PAIRS.head(2), dataset="another", columns=COLS, name="another.csv")
    counts = pd.DataFrame(
        _counts("expert_1", "p1", {("a", True): 1, ("b", True): 2, ("b", False): 1})
        + _counts("expert_2", "p1", {("b", True): 1, ("f", False): 3})
        + _counts("expert_1", "p3", {("c", True): 1})
    )
    import_annotations(tmp_store, counts, dataset="chest", id_col="id", category_col="category",
                       significant_col="significant", count_col="count", annotator_col="annotator",
                       name="counts.csv")
    scores = pd.DataFrame({"id": ["p1", "p1", "p2"], "annotator": ["expert_1", "rater_x", "rater_x"],
                           "score": ["4", "2.5", "5"]})
    import_annotations(tmp_store, scores, dataset="chest", id_col="id", score_col="score", scale_max=5,
                       annotator_col="annotator", name="scores.csv")
    return tmp_store


def _pid(ext_id: str, dataset: str = "chest") -> str:
    return pair_id_for(dataset, ext_id)


# -- list_datasets --------------------------------------------------------------


def test_list_datasets_counts_and_order(store: Store):
    df = list_datasets(store)
    assert list(df.columns) == ["name", "kind", "source", "synthetic", "version", "pairs", "modalities",
                                "annotators", "annotations", "runs", "created_at"]
    assert df["name"].tolist() == ["another", "chest"]  # sorted by name
    chest = df.set_index("name").loc["chest"]
    assert chest["kind"] == "error_counts"
    assert chest["pairs"] == 6
    assert chest["modalities"] == 3  # CT, XR, MR; a missing modality is not a value
    assert chest["annotators"] == 3  # expert_1, expert_2, rater_x
    assert chest["annotations"] == 3 * 12 + 3
    assert chest["runs"] == 0
    assert not chest["synthetic"]
    another = df.set_index("name").loc["another"]
    assert (another["annotators"], another["annotations"]) == (0, 0)  # zeros, not missing


def test_list_datasets_empty_store(tmp_store: Store):
    df = list_datasets(tmp_store)
    assert df.empty
    assert "synthetic" in df.columns and "pairs" in df.columns


def test_list_datasets_marks_the_demo_synthetic(demo_store: Store):
    demo = list_datasets(demo_store).set_index("name").loc["demo"]
    assert bool(demo["synthetic"]) is True
    assert demo["pairs"] == 120
    assert demo["annotators"] == 2


# -- facets and filters ------------------------------------------------------------


def test_facet_values_are_distinct_sorted_and_per_dataset(store: Store):
    assert facet_values(store, "chest") == {
        "modality": ["CT", "MR", "XR"],
        "anatomy": ["chest", "head"],
        "system": ["s1", "s2"],
        "split": ["test", "train"],
    }
    assert facet_values(store, "another")["modality"] == ["CT", "XR"]
    assert facet_values(store, "nope") == {"modality": [], "anatomy": [], "system": [], "split": []}


def test_find_pairs_without_filters_returns_import_order(store: Store):
    df, total = find_pairs(store, "chest")
    assert total == 6
    assert df["ext_id"].tolist() == ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert {"pair_id", "reference", "candidate", "group_id", "annotators"} <= set(df.columns)
    assert df.set_index("ext_id")["annotators"].to_dict() == {"p1": 3, "p2": 1, "p3": 1, "p4": 0, "p5": 0,
                                                              "p6": 0}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"modality": "CT"}, ["p1", "p3", "p6"]),
        ({"modality": ["CT", "MR"]}, ["p1", "p3", "p4", "p6"]),
        ({"modality": []}, ["p1", "p2", "p3", "p4", "p5", "p6"]),  # empty selection = no filter
        ({"modality": None}, ["p1", "p2", "p3", "p4", "p5", "p6"]),
        ({"modality": ["CT"], "split": ["test"]}, ["p3", "p6"]),
        ({"anatomy": ["head"]}, ["p4"]),
        ({"system": ["s1"], "anatomy": ["chest"]}, ["p1", "p3", "p5"]),
        ({"modality": ["PET"]}, []),
    ],
)
def test_find_pairs_facet_filters(store: Store, filters, expected):
    df, total = find_pairs(store, "chest", **filters)
    assert df["ext_id"].tolist() == expected
    assert total == len(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("effusion", ["p1"]),  # case-insensitive, reference or candidate
        ("EFFUSION", ["p1"]),
        ("right lower", ["p3"]),  # candidate only
        ("50%", ["p2"]),  # % is literal, not "anything"
        ("left_lower", ["p3"]),  # _ is literal, not "any one character"
        ("left lower", []),
        ("p4", ["p4"]),  # the external id
        ("  nodule ", ["p3", "p6"]),  # surrounding blanks ignored
        ("<script>", ["p6"]),
        ("", ["p1", "p2", "p3", "p4", "p5", "p6"]),
        ("'; DROP TABLE pairs; --", []),
    ],
)
def test_find_pairs_text_search(store: Store, text, expected):
    df, total = find_pairs(store, "chest", text=text)
    assert df["ext_id"].tolist() == expected
    assert total == len(expected)
    assert find_pairs(store, "chest")[1] == 6  # nothing was harmed


def test_find_pairs_pages_with_a_total_over_all_pages(store: Store):
    first, total = find_pairs(store, "chest", limit=4, offset=0)
    second, total2 = find_pairs(store, "chest", limit=4, offset=4)
    past, total3 = find_pairs(store, "chest", limit=4, offset=40)
    assert total == total2 == total3 == 6
    assert first["ext_id"].tolist() == ["p1", "p2", "p3", "p4"]
    assert second["ext_id"].tolist() == ["p5", "p6"]
    assert past.empty and "ext_id" in past.columns


def test_find_pairs_stays_in_its_dataset(store: Store):
    df, total = find_pairs(store, "another", text="heart")
    assert total == 1
    assert df["pair_id"].tolist() == [_pid("p2", "another")]


def test_find_pairs_rejects_negative_paging(store: Store):
    with pytest.raises(ValueError, match="offset"):
        find_pairs(store, "chest", offset=-1)


def test_escape_like():
    assert escape_like("50%_a\\b") == "50\\%\\_a\\\\b"


# -- one pair ---------------------------------------------------------------------------


def test_get_pair_returns_fields_meta_and_dataset_flags(store: Store):
    pair = get_pair(store, _pid("p6"))
    assert pair["ext_id"] == "p6"
    assert pair["dataset"] == "chest"
    assert pair["reference"] == PAIRS.loc[5, "ref"]  # kept exactly, HTML and all
    assert pair["candidate"] == "New nodule."
    assert (pair["modality"], pair["anatomy"], pair["system"], pair["split"]) == ("CT", "chest", "s2", "test")
    assert pair["meta"] == {"site": "B"}
    assert pair["kind"] == "error_counts"
    assert pair["synthetic"] is False


def test_get_pair_unknown_is_none(store: Store):
    assert get_pair(store, "no-such-pair") is None


def test_pair_annotations_long_form(store: Store):
    df = pair_annotations(store, _pid("p1"), role=RESEARCHER)
    assert list(df.columns) == ["annotator", "field", "category", "significant", "value", "scale_max",
                                "source", "created_at"]
    assert len(df) == 12 + 12 + 1 + 1
    assert sorted(df["annotator"].unique()) == ["expert_1", "expert_2", "rater_x"]
    scores = df[df["field"] == "score"].set_index("annotator")
    assert scores.loc["rater_x", "value"] == 2.5
    assert scores.loc["rater_x", "scale_max"] == 5
    assert pair_annotations(store, _pid("p4"), role=RESEARCHER).empty


def test_annotation_summary_per_annotator(store: Store):
    summary = annotation_summary(store, _pid("p1"), role=RESEARCHER).set_index("annotator")
    assert summary.index.tolist() == ["expert_1", "expert_2", "rater_x"]
    e1, e2, rx = summary.loc["expert_1"], summary.loc["expert_2"], summary.loc["rater_x"]
    assert (e1["score"], e1["scale_max"]) == (4.0, 5.0)
    assert (e1["sig_a"], e1["sig_b"], e1["insig_b"], e1["sig_c"]) == (1, 2, 1, 0)
    assert (e1["sig_total"], e1["insig_total"]) == (3, 1)
    assert math.isnan(e2["score"])  # expert_2 gave counts only
    assert (e2["sig_b"], e2["insig_f"], e2["sig_total"], e2["insig_total"]) == (1, 3, 1, 3)
    assert rx["score"] == 2.5
    assert math.isnan(rx["sig_a"]) and math.isnan(rx["sig_total"])  # no counts is not "0 errors"


def test_annotation_summary_without_annotations_is_empty_with_columns(store: Store):
    summary = annotation_summary(store, _pid("p4"), role=RESEARCHER)
    assert summary.empty
    assert {"annotator", "score", "sig_a", "insig_f", "sig_total"} <= set(summary.columns)


def test_counts_by_category_table(store: Store):
    table = counts_by_category(annotation_summary(store, _pid("p1"), role=RESEARCHER))
    assert table["category"].tolist() == ["a", "b", "c", "d", "e", "f", "total"]
    assert table["error type"].iloc[1] == "Missing a finding"
    # Score-only annotators get no count columns.
    assert list(table.columns) == ["category", "error type", "expert_1 sig", "expert_1 insig",
                                   "expert_2 sig", "expert_2 insig"]
    assert table["expert_1 sig"].tolist() == [1, 2, 0, 0, 0, 0, 3]
    assert table["expert_2 insig"].iloc[-1] == 3


def test_whitespace_list_is_pythons():
    from core.store.texts import WHITESPACE

    assert set(WHITESPACE) == {c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace()}


def test_identical_flag_in_sql_matches_python_whitespace_rules(tmp_store: Store):
    """The SQL identical flag (ReXVal* filter) is re.sub(r"\\s+", " ", text).strip() equality, Unicode included."""
    from core.reads.frames import IDENTICAL_SQL
    from core.store.texts import same_text

    texts = [("a b", "a  b"), ("a\u00a0b", "a b"), ("a\u2003\u3000b", "a\tb"), ("\u2028a b\u0085", "a b"),
             ("a\x1fb", "a b"), ("a\u200bb", "a b"),  # U+200B (zero width space) is not whitespace
             ("a b", "a b."), ("", " \n "), ("x", "x "), ("ab", "a b"), ("a\vb", "a b"), ("e\u0301", "\u00e9")]
    pairs = pd.DataFrame({"id": [str(i) for i in range(len(texts))], "ref": [r for r, _ in texts],
                          "cand": [c for _, c in texts]})
    empty_ok = [i for i, (r, c) in enumerate(texts) if r.strip() and c.strip()]  # the importer refuses blank text
    import_pairs(tmp_store, pairs.iloc[empty_ok], dataset="ws", columns=PairColumns("id", "ref", "cand"),
                 name="ws.csv")
    want = {str(i): same_text(*texts[i]) for i in empty_ok}
    assert sum(want.values()) >= 5 and not all(want.values())  # both outcomes are exercised

    def flags(expr: str) -> dict:
        got = tmp_store.query_df(f"SELECT p.ext_id, {expr} AS identical FROM pairs p WHERE dataset = 'ws'")
        return dict(zip(got["ext_id"], got["identical"], strict=True))

    assert flags("p.identical") == want  # stored by the importer
    assert flags(IDENTICAL_SQL) == want
    tmp_store.execute("UPDATE pairs SET identical = NULL")  # a row written without the flag
    assert flags(IDENTICAL_SQL) == want  # computed from the texts
    # an older store (schema 3) gets the flag from migration 004, the same values
    migrated = Store(older_copy(tmp_store.path, tmp_store.path.with_name("v3.duckdb"), 3))
    assert migrated.schema_version() == latest_schema_version()
    got = migrated.query_df("SELECT ext_id, identical FROM pairs WHERE dataset = 'ws'")
    assert dict(zip(got["ext_id"], got["identical"], strict=True)) == want
