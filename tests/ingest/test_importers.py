"""Importers against a real DuckDB file: good files, bad files, atomicity, idempotence."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from core.ingest.importers import (
    ImportValidationError,
    PairColumns,
    import_annotations,
    import_outputs,
    import_pairs,
    read_table,
)
from core.ingest.presets import import_preset
from core.store.db import Store

COLS = PairColumns(id="id", reference="ref", candidate="cand", system="sys", modality="mod")

GREEN_TEXT = """[Explanation]:
The candidate misses the effusion.

[Clinically Significant Errors]:
(a) False report of a finding in the candidate: 0.
(b) Missing a finding present in the reference: 1. Left pleural effusion
(c) Misidentification of a finding's anatomic location/position: 0.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.

[Clinically Insignificant Errors]:
(a) False report of a finding in the candidate: 0.
(b) Missing a finding present in the reference: 0.
(c) Misidentification of a finding's anatomic location/position: 0.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.

[Matched Findings]:
2. No pneumothorax; Heart size normal
"""


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "s.duckdb")


def write(path, df: pd.DataFrame):
    suffix = path.suffix
    if suffix == ".csv":
        df.to_csv(path, index=False)
    elif suffix == ".tsv":
        df.to_csv(path, index=False, sep="\t")
    elif suffix == ".jsonl":
        df.to_json(path, orient="records", lines=True)
    elif suffix == ".parquet":
        df.to_parquet(path, index=False)
    return path


def pairs_frame(n=5):
    return pd.DataFrame({
        "id": [f"p{i}" for i in range(n)],
        "ref": [f"Reference {i}. No effusion." for i in range(n)],
        "cand": [f"Candidate {i}. Small effusion." for i in range(n)],
        "sys": ["s1", "s2"] * (n // 2) + ["s1"] * (n % 2),
        "mod": "CT",
        "extra": "kept in meta",
    })


def count_pairs(store, dataset):
    return store.query_one("SELECT count(*) FROM pairs WHERE dataset = ?", [dataset])


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
def test_import_pairs_each_format_and_twice(store, tmp_path, suffix):
    path = write(tmp_path / f"pairs{suffix}", pairs_frame())
    first = import_pairs(store, path, dataset="d", columns=COLS)
    assert (first.added, first.skipped) == (5, 0)
    second = import_pairs(store, path, dataset="d", columns=COLS)
    assert (second.added, second.skipped) == (0, 5)
    assert count_pairs(store, "d") == 5
    row = store.query_df("SELECT * FROM pairs WHERE ext_id = 'p1'").iloc[0]
    assert row["reference"] == "Reference 1. No effusion."
    assert row["system"] == "s2" and row["modality"] == "CT"
    assert json.loads(row["meta"]) == {"extra": "kept in meta"}


def test_duplicate_ids_fail_name_rows_and_leave_nothing(store, tmp_path):
    df = pairs_frame(10)
    df.loc[8, "id"] = "p2"
    path = write(tmp_path / "dup.csv", df)
    with pytest.raises(ImportValidationError) as info:
        import_pairs(store, path, dataset="dup", columns=COLS)
    assert "duplicate id 'p2' on rows 3 and 9" in info.value.problems
    assert store.query_one("SELECT count(*) FROM datasets") == 0
    assert store.query_one("SELECT count(*) FROM pairs") == 0


def test_missing_column_lists_columns(store, tmp_path):
    path = write(tmp_path / "p.csv", pairs_frame())
    cols = PairColumns(id="id", reference="findings", candidate="cand")
    with pytest.raises(ImportValidationError) as info:
        import_pairs(store, path, dataset="d", columns=cols)
    assert info.value.problems == ["column 'findings' (reference) not found",
                                   "the file's columns are: id, ref, cand, sys, mod, extra"]


def test_several_missing_columns_list_the_columns_once(store, tmp_path):
    path = write(tmp_path / "p.csv", pairs_frame())
    cols = PairColumns(id="key", reference="findings", candidate="impression")
    with pytest.raises(ImportValidationError) as info:
        import_pairs(store, path, dataset="d", columns=cols)
    problems = info.value.problems
    assert problems[:3] == ["column 'key' (id) not found", "column 'findings' (reference) not found",
                            "column 'impression' (candidate) not found"]
    assert str(info.value).count("columns are") == 1 and problems[3].endswith("id, ref, cand, sys, mod, extra")


def test_empty_text_and_ids_are_reported_per_row(store, tmp_path):
    df = pairs_frame()
    df.loc[1, "ref"] = ""
    df.loc[3, "id"] = "  "
    path = write(tmp_path / "p.csv", df)
    with pytest.raises(ImportValidationError) as info:
        import_pairs(store, path, dataset="d", columns=COLS)
    assert "row 2: empty reference in column 'ref'" in info.value.problems
    assert "row 4: empty id in column 'id'" in info.value.problems
    assert store.query_one("SELECT count(*) FROM pairs") == 0


def test_changed_text_for_same_id_is_refused(store, tmp_path):
    import_pairs(store, write(tmp_path / "a.csv", pairs_frame()), dataset="d", columns=COLS)
    df = pairs_frame(6)
    df.loc[0, "cand"] = "changed"
    with pytest.raises(ImportValidationError, match="'p0' already in dataset 'd' with different report text"):
        import_pairs(store, write(tmp_path / "b.csv", df), dataset="d", columns=COLS)
    assert count_pairs(store, "d") == 5  # the new p5 was not added either: atomic


def test_bad_encoding_and_nul_bytes(store, tmp_path):
    (tmp_path / "latin.csv").write_bytes("id,ref,cand\n1,caf\xe9,x\n".encode("latin-1"))
    with pytest.raises(ImportValidationError, match="not UTF-8"):
        import_pairs(store, tmp_path / "latin.csv", dataset="d", columns=PairColumns("id", "ref", "cand"))
    (tmp_path / "nul.csv").write_bytes(b"id,ref,cand\n1,a\x00b,x\n")
    with pytest.raises(ImportValidationError, match="NUL byte"):
        read_table(tmp_path / "nul.csv")


def test_bom_utf8_and_utf16_are_read(tmp_path):
    (tmp_path / "bom.csv").write_bytes("id,ref\n1,é\n".encode("utf-8-sig"))
    assert list(read_table(tmp_path / "bom.csv").columns) == ["id", "ref"]
    (tmp_path / "u16.csv").write_bytes("id,ref\n1,é\n".encode("utf-16"))
    assert read_table(tmp_path / "u16.csv")["ref"].tolist() == ["é"]


def test_ids_keep_leading_zeros_and_report_text_is_verbatim(store, tmp_path):
    df = pd.DataFrame({"id": ["007"], "ref": ["  spaced <b>x</b> '; DROP TABLE pairs; --"], "cand": ["c"]})
    import_pairs(store, write(tmp_path / "z.csv", df), dataset="d'; --", columns=PairColumns("id", "ref", "cand"))
    row = store.query_df("SELECT dataset, ext_id, reference FROM pairs").iloc[0]
    assert row["ext_id"] == "007" and row["dataset"] == "d'; --"
    assert row["reference"] == "  spaced <b>x</b> '; DROP TABLE pairs; --"


def test_annotations_scores_validation_and_idempotence(store, tmp_path):
    import_pairs(store, write(tmp_path / "p.csv", pairs_frame()), dataset="d", columns=COLS)
    ann = pd.DataFrame({"pid": ["p0", "p1", "p2"], "score": ["4", "2.5", "0"], "rater": ["r1", "r1", "r2"]})
    path = write(tmp_path / "a.csv", ann)
    rep = import_annotations(store, path, dataset="d", id_col="pid", score_col="score", annotator_col="rater")
    assert rep.added == 3
    assert import_annotations(store, path, dataset="d", id_col="pid", score_col="score",
                              annotator_col="rater").added == 0
    stored = store.query_df("SELECT value, scale_max, field FROM annotations ORDER BY value")
    assert stored["value"].tolist() == [0.0, 2.5, 4.0]
    assert set(stored["scale_max"]) == {5.0} and set(stored["field"]) == {"score"}

    bad = pd.DataFrame({"pid": ["p3", "p4", "nope"], "score": ["7", "abc", "1"]})
    with pytest.raises(ImportValidationError) as info:
        import_annotations(store, write(tmp_path / "bad.csv", bad), dataset="d", id_col="pid", score_col="score")
    problems = info.value.problems
    assert "row 1: score 7 outside 0-5" in problems
    assert "row 2: score 'abc' is not a number" in problems
    assert "row 3: id 'nope' is not a pair of dataset 'd'" in problems
    assert store.query_one("SELECT count(*) FROM annotations") == 3


def test_annotations_counts_long_form(store, tmp_path):
    import_pairs(store, write(tmp_path / "p.csv", pairs_frame()), dataset="d", columns=COLS)
    ann = pd.DataFrame({
        "id": ["p0", "p0", "p1", "p1"],
        "cat": ["a", "2", "(c)", "F"],
        "sig": ["true", "0", "yes", "insignificant"],
        "n": ["1", "2", "0", "3"],
    })
    rep = import_annotations(store, write(tmp_path / "c.csv", ann), dataset="d", id_col="id",
                             category_col="cat", significant_col="sig", count_col="n")
    assert rep.added == 4
    rows = store.query_df("SELECT category, significant, value FROM annotations ORDER BY category")
    assert rows["category"].tolist() == ["a", "b", "c", "f"]
    assert rows["significant"].tolist() == [True, False, True, False]
    bad = pd.DataFrame({"id": ["p2", "p2"], "cat": ["g", "a"], "sig": ["maybe", "1"], "n": ["1.5", "-1"]})
    with pytest.raises(ImportValidationError) as info:
        import_annotations(store, write(tmp_path / "bad.csv", bad), dataset="d", id_col="id",
                           category_col="cat", significant_col="sig", count_col="n")
    text = " | ".join(info.value.problems)
    assert "row 1: category 'g' is not a-f or 1-6" in text
    assert "row 1: significant flag 'maybe'" in text
    assert "row 1: count '1.5' is not a whole number" in text
    assert "row 2: count '-1' is not a whole number" in text


def test_changed_annotation_value_is_refused(store, tmp_path):
    import_pairs(store, write(tmp_path / "p.csv", pairs_frame()), dataset="d", columns=COLS)
    write(tmp_path / "a.csv", pd.DataFrame({"id": ["p0"], "s": ["3"]}))
    import_annotations(store, tmp_path / "a.csv", dataset="d", id_col="id", score_col="s")
    write(tmp_path / "b.csv", pd.DataFrame({"id": ["p0", "p1"], "s": ["4", "1"]}))
    with pytest.raises(ImportValidationError, match="already stored as 3 of 0-5, file says 4 of 0-5"):
        import_annotations(store, tmp_path / "b.csv", dataset="d", id_col="id", score_col="s")
    assert store.query_one("SELECT count(*) FROM annotations") == 1


def test_annotations_need_existing_dataset(store, tmp_path):
    write(tmp_path / "a.csv", pd.DataFrame({"id": ["p0"], "s": ["3"]}))
    with pytest.raises(ImportValidationError, match="dataset 'nope' not found"):
        import_annotations(store, tmp_path / "a.csv", dataset="nope", id_col="id", score_col="s")


def test_import_outputs_text_and_score(store, tmp_path):
    import_pairs(store, write(tmp_path / "p.csv", pairs_frame()), dataset="d", columns=COLS)
    out = pd.DataFrame({"id": ["p0", "p1"], "text": [GREEN_TEXT, "garbage"]})
    rep = import_outputs(store, write(tmp_path / "o.jsonl", out), dataset="d", judge="gpt-x", id_col="id",
                         text_col="text")
    assert rep.added == 2 and rep.run_id
    run = store.query_df("SELECT * FROM judge_runs").iloc[0]
    assert run["judge_kind"] == "imported" and run["judge_name"] == "gpt-x"
    metrics = store.query_df(
        "SELECT m.metric, m.value FROM metric_values m JOIN pairs p USING (pair_id) WHERE p.ext_id = 'p0'")
    values = dict(zip(metrics["metric"], metrics["value"], strict=True))
    assert values["ec_sig"] == 1 and values["green"] == pytest.approx(2 / 3)
    errors = store.query_df("SELECT category, significant FROM judge_errors")
    assert errors.values.tolist() == [["b", True]]
    again = import_outputs(store, tmp_path / "o.jsonl", dataset="d", judge="gpt-x", id_col="id", text_col="text")
    assert (again.added, again.skipped) == (0, 2)
    assert store.query_one("SELECT count(*) FROM judge_outputs") == 2

    scores = pd.DataFrame({"id": ["p0", "p1", "p2"], "bleu": ["0.5", "0.25", "x"]})
    with pytest.raises(ImportValidationError, match="row 3: score 'x' is not a number"):
        import_outputs(store, write(tmp_path / "s.csv", scores), dataset="d", judge="bleu", id_col="id",
                       score_col="bleu", metric="bleu4")
    scores.loc[2, "bleu"] = "0.1"
    import_outputs(store, write(tmp_path / "s.csv", scores), dataset="d", judge="bleu", id_col="id",
                   score_col="bleu", metric="bleu4")
    assert store.query_one("SELECT count(*) FROM metric_values WHERE metric = 'bleu4'") == 3


def test_preset_rexval_pairs_and_errors(store, tmp_path):
    pairs = pd.DataFrame({
        "study_number": ["1", "2"], "gt_report": ["No acute process.", "Small left effusion."],
        "radgraph": ["c1", "c2"], "bertscore": ["c3", "c4"], "s_emb": ["c5", "c6"], "bleu": ["c7", "c8"],
    })
    rep = import_preset(store, "rexval-pairs", write(tmp_path / "rx.csv", pairs), dataset="rexval")
    assert rep.added == 8
    df = store.query_df("SELECT ext_id, group_id, system FROM pairs ORDER BY ext_id")
    assert df["ext_id"].tolist()[:2] == ["1:bertscore", "1:bleu"]
    assert set(df["system"]) == {"radgraph", "bertscore", "s_emb", "bleu"}
    errors = pd.DataFrame({
        "study_number": ["1", "1", "2"], "candidate_type": ["radgraph", "radgraph", "bleu"],
        "rater_index": ["0", "1", "0"], "error_category": ["1", "6", "3"],
        "clinically_significant": ["True", "False", "True"], "num_errors": ["2", "1", "0"],
    })
    rep = import_preset(store, "rexval-errors", write(tmp_path / "re.csv", errors), dataset="rexval")
    assert rep.added == 3
    ann = store.query_df("SELECT annotator, category, significant, value FROM annotations ORDER BY annotator, category")
    assert ann.values.tolist() == [["rater_0", "a", True, 2.0], ["rater_0", "c", True, 0.0],
                                   ["rater_1", "f", False, 1.0]]


def test_preset_rate_eval_and_radeval_counts(store, tmp_path):
    rate = pd.DataFrame({"gt_report": ["r1", "r2"], "pred_report": ["c1", "c2"], "score": ["4.5", "1"]})
    rep = import_preset(store, "rate-eval", write(tmp_path / "rate.csv", rate), dataset="rate")
    assert rep.added == 2
    assert store.query_df("SELECT value FROM annotations ORDER BY value")["value"].tolist() == [1.0, 4.5]
    bad = rate.assign(score=["6", "1"])
    with pytest.raises(ImportValidationError, match="row 1: score 6 outside 0-4.5"):
        import_preset(store, "rate-eval", write(tmp_path / "bad.csv", bad), dataset="rate2")
    assert store.query_one("SELECT count(*) FROM datasets WHERE name = 'rate2'") == 0

    wide = {"id": ["x1", "x1"], "reference": ["r", "r"], "candidate": ["c", "c"], "annotator": ["A", "B"]}
    for i, cat in enumerate("abcdef"):
        wide[f"sig_{cat}"] = [str(i), "0"]
        wide[f"insig_{cat}"] = ["1", "0"]
    rep = import_preset(store, "radeval-counts", write(tmp_path / "w.csv", pd.DataFrame(wide)), dataset="rad")
    assert rep.added == 1
    total = store.query_df(
        "SELECT annotator, sum(value) AS s FROM annotations a JOIN pairs p USING (pair_id) "
        "WHERE p.dataset = 'rad' GROUP BY annotator ORDER BY annotator")
    assert total["s"].tolist() == [15.0 + 6.0, 0.0]


def test_unknown_preset_and_format(store, tmp_path):
    with pytest.raises(ImportValidationError, match="unknown preset 'nope'"):
        import_preset(store, "nope", tmp_path / "x.csv", dataset="d")
    (tmp_path / "x.xlsx").write_bytes(b"data")
    with pytest.raises(ImportValidationError, match="cannot tell the format"):
        read_table(tmp_path / "x.xlsx")


def test_progress_callback_reaches_done(store, tmp_path):
    seen = []
    import_pairs(store, write(tmp_path / "p.csv", pairs_frame()), dataset="d", columns=COLS,
                 progress=lambda done, total, stage: seen.append((done, total, stage)))
    assert seen[0][0] == 0 and seen[-1] == (3, 3, "done")
