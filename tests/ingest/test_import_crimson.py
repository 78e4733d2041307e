"""import-outputs --format crimson: CRIMSON JSON answers produced elsewhere, scored as CRIMSON runs are, atomic,
every bad row named; also CRIMSON's own results JSON (evaluate_reports.py) with its scores checked."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from core.cli.main import main
from core.ingest.importers import PairColumns, import_annotations, import_pairs
from core.store.db import Store

PERFECT = {"reference_findings": [{"id": "R1", "finding": "left effusion", "clinical_significance": "urgent"}],
           "predicted_findings": [{"id": "P1", "finding": "left effusion", "clinical_significance": "urgent"}],
           "matched_findings": [{"ref_id": "R1", "pred_id": "P1"}],
           "errors": {"false_findings": [], "missing_findings": [], "attribute_errors": []}}
# N_G = 1.5 (R1 urgent, R2 actionable); R1 matched with a significant location error: 1 * 1 / 1.5 = 2/3;
# R2 missed; P2 (not actionable) false: E_false = 0.25; S = (2/3 - 0.25) / 1.5 = 0.2778
PARTIAL = {"reference_findings": [{"id": "R1", "finding": "left pneumothorax", "clinical_significance": "urgent"},
                                  {"id": "R2", "finding": "effusion", "clinical_significance": "actionable_not_urgent"}],
           "predicted_findings": [{"id": "P1", "finding": "right pneumothorax", "clinical_significance": "urgent"},
                                  {"id": "P2", "finding": "atelectasis",
                                   "clinical_significance": "not_actionable_not_urgent"}],
           "matched_findings": [{"ref_id": "R1", "pred_id": "P1"}],
           "errors": {"false_findings": ["P2"], "missing_findings": ["R2"],
                      "attribute_errors": [{"ref_id": "R1", "pred_id": "P1", "severity": "significant",
                                            "error_types": ["location"], "explanation": "wrong side"}]}}
ANSWERS = {"p0": json.dumps(PERFECT), "p1": json.dumps(PARTIAL), "p2": "```json\n" + json.dumps(PARTIAL) + "\n```",
           "p3": json.dumps(PARTIAL)[:120], "p4": ""}
EXPECTED = {"p0": 1.0, "p1": 0.2778, "p2": 0.2778}


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    df = pd.DataFrame({"id": [f"p{i}" for i in range(6)], "ref": [f"Reference {i}." for i in range(6)],
                       "cand": [f"Candidate {i}." for i in range(6)]})
    import_pairs(store, df, dataset="d", columns=PairColumns("id", "ref", "cand"), name="pairs.csv")
    return store


def _csv(path, rows, header=("id", "answer")):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def _cli(store, capsys, *args):
    code = main(["--store", str(store.path), "import-outputs", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _snapshot(store):
    return [store.query_df(f"SELECT * FROM {t} ORDER BY ALL").to_json(orient="records", date_format="iso")  # NaN == NaN
            for t in ("judge_runs", "judge_outputs", "metric_values", "judge_errors")]


def test_answers_are_scored_like_a_run_and_failures_kept_with_their_reason(store, tmp_path, capsys):
    path = _csv(tmp_path / "answers.csv", list(ANSWERS.items()))
    code, out, _ = _cli(store, capsys, str(path), "--format", "crimson", "--dataset", "d", "--judge", "medgemma",
                        "--id-col", "id", "--text-col", "answer", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["added"] == 5 and report["rows"] == 5
    assert any("row 4 (id p3)" in w and "cut off" in w for w in report["warnings"])
    assert any("row 5 (id p4)" in w and "empty answer" in w for w in report["warnings"])
    run = store.query_df("SELECT * FROM judge_runs").iloc[0]
    assert (run.judge_kind, run.n_requested, run.n_ok, run.n_failed) == ("imported", 5, 3, 2)
    assert json.loads(run.params)["mode"] == "crimson"
    out_rows = store.query_df("SELECT p.ext_id, o.raw_text, o.parse_status, o.parse_reason FROM judge_outputs o "
                              "JOIN pairs p USING (pair_id)").set_index("ext_id")
    assert out_rows.loc["p2", "raw_text"] == ANSWERS["p2"] and "code fence" in out_rows.loc["p2", "parse_reason"]
    assert out_rows.loc["p3", "parse_status"] == "failed" and "cut off" in out_rows.loc["p3", "parse_reason"]
    values = store.query_df("SELECT p.ext_id, m.metric, m.value FROM metric_values m JOIN pairs p USING (pair_id)")
    score = values[values["metric"] == "crimson"].set_index("ext_id")["value"].to_dict()
    assert score == EXPECTED  # the failed rows have no score at all, not 0
    p1 = values[values["ext_id"] == "p1"].set_index("metric")["value"]
    assert (p1["sig_b"], p1["insig_a"], p1["sig_c"], p1["crimson_e_false"], p1["crimson_e_miss"]) == (1, 1, 1, 0.25,
                                                                                                     0.5)
    errors = store.query_df("SELECT category, significant, text FROM judge_errors e JOIN pairs p USING (pair_id) "
                            "WHERE p.ext_id = 'p1' ORDER BY category")
    assert errors["category"].tolist() == ["a", "b", "c"] and "wrong side" in errors["text"].iloc[2]

    # the same file again adds nothing; the same judge name for GREEN text is refused
    code, out, _ = _cli(store, capsys, str(path), "--format", "crimson", "--dataset", "d", "--judge", "medgemma",
                        "--id-col", "id", "--text-col", "answer", "--json")
    assert code == 0 and json.loads(out)["skipped"] == 5
    before = _snapshot(store)
    code, _, err = _cli(store, capsys, str(path), "--dataset", "d", "--judge", "medgemma", "--id-col", "id",
                        "--text-col", "answer")
    assert code == 2 and "already holds imported CRIMSON answers" in err and _snapshot(store) == before


def test_crimsons_results_json_with_its_scores_checked(store, tmp_path, capsys):
    results = {"average": {"crimson_score": 0.5},
               "results": [{"id": "p0", "ground_truth": "Reference 0.", "predicted": "Candidate 0.",
                            "crimson_score": 1.0, "raw_evaluation": PERFECT},
                           {"id": "p1", "crimson_score": 0.9, "raw_evaluation": PARTIAL},
                           {"id": "p5", "crimson_score": None, "raw_evaluation": None}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    code, out, _ = _cli(store, capsys, str(path), "--format", "crimson", "--dataset", "d", "--judge", "crimson-gpt",
                        "--id-col", "id", "--text-col", "raw_evaluation", "--score-col", "crimson_score", "--json")
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert warnings == ["row 2 (id p1): the file's score 0.9 differs from the score recomputed from its evaluation, "
                        "0.2778", "row 3 (id p5): not scored: empty answer: expected CRIMSON's JSON evaluation"]
    stored = store.query_df("SELECT p.ext_id, o.raw_text FROM judge_outputs o JOIN pairs p USING (pair_id)")
    assert json.loads(stored.set_index("ext_id").loc["p0", "raw_text"]) == PERFECT  # the object, written back


def test_bad_files_are_refused_whole_every_bad_row_named(store, tmp_path, capsys):
    before = _snapshot(store)
    path = _csv(tmp_path / "bad.csv", [("p0", ANSWERS["p0"]), ("zz9", ANSWERS["p1"]), ("p0", ANSWERS["p1"]),
                                       ("", ANSWERS["p1"])])
    code, _, err = _cli(store, capsys, str(path), "--format", "crimson", "--dataset", "d", "--judge", "j",
                        "--id-col", "id", "--text-col", "answer")
    assert code == 2 and "zz9" in err and "p0" in err and "row 4" in err
    assert _snapshot(store) == before
    good = _csv(tmp_path / "good.csv", [("p0", ANSWERS["p0"])])
    for extra, words in ((["--crimson-map", "temporal=z"], "the category must be one of"),
                         (["--metric", "m"], "do(es) not apply to --format crimson"),
                         (["--text-col", "nope"], "column 'nope'")):
        args = [str(good), "--format", "crimson", "--dataset", "d", "--judge", "j", "--id-col", "id"]
        args += [] if "--text-col" in extra else ["--text-col", "answer"]
        code, _, err = _cli(store, capsys, *args, *extra)
        assert code == 2 and words in err, (extra, err)
    code, _, err = _cli(store, capsys, str(good), "--format", "crimson", "--dataset", "d", "--judge", "j",
                        "--id-col", "id")
    assert code == 2 and "--text-col" in err
    code, _, err = _cli(store, capsys, str(good), "--dataset", "d", "--judge", "j", "--id-col", "id", "--text-col",
                        "answer", "--crimson-map", "temporal=f")
    assert code == 2 and "--crimson-map goes with --format crimson" in err
    assert _snapshot(store) == before


def test_a_map_is_recorded_and_a_different_one_refused_under_the_same_judge(store, tmp_path, capsys):
    path = _csv(tmp_path / "a.csv", [("p1", ANSWERS["p1"])])
    args = [str(path), "--format", "crimson", "--dataset", "d", "--judge", "j", "--id-col", "id", "--text-col",
            "answer", "--json"]
    assert _cli(store, capsys, *args, "--crimson-map", "location=e")[0] == 0
    p1 = store.query_df("SELECT metric, value FROM metric_values").set_index("metric")["value"]
    assert p1["sig_e"] == 1 and p1["sig_c"] == 0  # the location error counted in (e)
    code, _, err = _cli(store, capsys, *args)
    assert code == 2 and "another --crimson-map" in err


def test_imported_crimson_scores_correlate_with_their_built_in_orientation(store, tmp_path, capsys):
    path = _csv(tmp_path / "answers.csv", list(ANSWERS.items()))
    assert _cli(store, capsys, str(path), "--format", "crimson", "--dataset", "d", "--judge", "medgemma",
                "--id-col", "id", "--text-col", "answer")[0] == 0
    ann = pd.DataFrame({"pid": ["p0", "p1", "p2"], "score": [5, 2, 3]})
    import_annotations(store, ann, dataset="d", id_col="pid", score_col="score")
    assert main(["--store", str(store.path), "correlate", "--dataset", "d", "--json", "--n-boot", "0",
                 "--min-n", "3"]) == 0
    table = json.loads(capsys.readouterr().out)
    table = table["rows"] if isinstance(table, dict) else table
    row = next(r for r in table if r["judge"] == "medgemma" and r["metric"] == "crimson")
    assert row["n"] == 3 and row["expected_sign"] == 1 and not row["orientation_assumed"]
    assert not any(r["metric"].startswith(("crimson_", "sig_")) for r in table)  # counts only with --all-metrics


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_results_json_and_answers_saved_with_a_byte_order_mark_import_as_utf8_does(tmp_path, capsys, encoding):
    """CRIMSON's results JSON and a CSV of answers, saved as UTF-16 or UTF-8 with a BOM, store what UTF-8 does."""
    results = {"average": {"crimson_score": 0.64},
               "results": [{"id": "p0", "crimson_score": 1.0, "raw_evaluation": PERFECT},
                           {"id": "p1", "crimson_score": 0.2778, "raw_evaluation": PARTIAL}]}
    text = json.dumps(results, indent=2)  # pretty-printed, as evaluate_reports.py writes it
    stored = {}
    for enc in ("utf-8", encoding):
        folder = tmp_path / enc
        folder.mkdir()
        enc_store = Store(folder / "s.duckdb")
        pairs = pd.DataFrame({"id": [f"p{i}" for i in range(6)], "ref": [f"Reference {i}." for i in range(6)],
                              "cand": [f"Candidate {i}." for i in range(6)]})
        import_pairs(enc_store, pairs, dataset="d", columns=PairColumns("id", "ref", "cand"), name="pairs.csv")
        (folder / "results.json").write_bytes(text.encode(enc))
        answers = _csv(folder / "answers.csv", list(ANSWERS.items()))
        answers.write_bytes(answers.read_text(encoding="utf-8").encode(enc))
        for path, judge, cols in ((folder / "results.json", "crimson-gpt", ("raw_evaluation", "crimson_score")),
                                  (answers, "medgemma", ("answer", None))):
            args = [str(path), "--format", "crimson", "--dataset", "d", "--judge", judge, "--id-col", "id",
                    "--text-col", cols[0], *(["--score-col", cols[1]] if cols[1] else []), "--json"]
            code, out, err = _cli(enc_store, capsys, *args)
            assert code == 0, (enc, judge, err)
            assert json.loads(out)["added"] == (2 if judge == "crimson-gpt" else 5)
        stored[enc] = [enc_store.query_df(sql) for sql in (
            "SELECT run_id, judge_name, params, n_ok, n_failed FROM judge_runs ORDER BY run_id",
            "SELECT run_id, pair_id, raw_text, parse_status, parse_reason FROM judge_outputs ORDER BY ALL",
            "SELECT * FROM metric_values ORDER BY ALL", "SELECT * FROM judge_errors ORDER BY ALL")]
    for utf8, other in zip(stored["utf-8"], stored[encoding], strict=True):
        pd.testing.assert_frame_equal(utf8, other)
