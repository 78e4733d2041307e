"""The two VERT-paper presets on small files in the layouts public code reads (issue 45).

RadEval's expert set (``reader_study_final_with_annotationsv3.csv``): ``annotator, type, ground_truth,
images_path, prediction1..3, annotation1..3``, each annotation a reader's counts in seven categories under a
significant and an insignificant heading. RaTE-Eval's ``Task2_paragraph_rate/rate_test.csv``: ``gt_report,
similar_report, Score`` with scores 0-4.5 in 0.25 steps. The report text is synthetic.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from core.ingest.importers import ImportValidationError
from core.ingest.presets import import_preset
from core.reads.targets import dataset_targets
from core.store.db import Store
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("False report of a finding", "Missing a finding", "Misidentification of location",
         "Misassessment of severity", "Mentioning a comparison not in the reference",
         "Omitting a comparison", "Grammar/readability")


def cell(sig: list[int], insig: list[int]) -> str:
    lines = ["Clinically significant errors:"] + [f"{k}. {n}: {v}" for k, (n, v) in enumerate(zip(NAMES, sig, strict=True), 1)]
    lines += ["Clinically insignificant errors:"] + [f"{k}. {n}: {v}" for k, (n, v) in enumerate(zip(NAMES, insig, strict=True), 1)]
    return "\n".join(lines)


def write_radeval(path: Path, rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["annotator", "type", "ground_truth", "images_path", "prediction1", "prediction2", "prediction3",
                    "annotation1", "annotation2", "annotation3"])
        w.writerows(rows)
    return path


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "s.duckdb")


def test_radeval_expert_layout_imports_seven_categories_and_keeps_the_seventh_out_of_totals(store, tmp_path):
    rows = [
        ["reader_A", "findings", "Small left effusion. Mild cardiomegaly.", "p10/s1.jpg",
         "Small left effusion.", "Large right effusion.", "Small left effusion. Mild cardiomegaly.",
         cell([0, 1, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0, 1]),
         cell([1, 1, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0]),
         cell([0, 0, 0, 0, 0, 0, 3], [0, 0, 0, 0, 0, 0, 4])],
        ["reader_B", "impression", "No acute process.", "p11/s2.jpg",
         "No acute process.", "Pneumothorax.", "",  # an empty third candidate: no pair
         cell([0] * 7, [0] * 7), "Clinically significant errors:\n1. False finding: one", ""],
    ]
    report = import_preset(store, "radeval-counts", write_radeval(tmp_path / "r.csv", rows), dataset="radeval")
    pairs = store.query_df("SELECT ext_id, system, group_id FROM pairs WHERE dataset = 'radeval' ORDER BY ext_id")
    assert pairs["ext_id"].tolist() == ["0:1", "0:2", "0:3", "1:1", "1:2"]
    assert pairs["system"].tolist() == ["prediction1", "prediction2", "prediction3", "prediction1", "prediction2"]
    assert report.added == 5
    # the malformed cell (1:2) and the empty prediction (1:3) are named, never read as zero
    assert any("1:2 (file row 2): no whole count" in w for w in report.warnings)
    assert any("1:3" in w and "no pair" in w for w in report.warnings)
    ann = store.query_df(
        "SELECT p.ext_id, a.annotator, a.field, a.category, a.significant, a.value FROM annotations a "
        "JOIN pairs p USING (pair_id) ORDER BY 1, 3, 4, 5")
    assert set(ann["ext_id"]) == {"0:1", "0:2", "0:3", "1:1"}  # 1:2 holds no counts at all
    assert len(ann) == 4 * 14
    seventh = ann[ann["category"] == "g"]
    assert (seventh["field"] == "error_count_extra").all() and len(seventh) == 8
    assert seventh[seventh["ext_id"] == "0:3"]["value"].tolist() == [4.0, 3.0]  # insignificant, significant
    assert set(ann[ann["field"] == "error_count"]["category"]) == set("abcdef")
    assert ann[ann["ext_id"] == "0:1"]["annotator"].unique().tolist() == ["reader_A"]
    # the a-f totals leave grammar/readability out: 0:3 has 7 errors, all in the seventh category
    targets = dataset_targets(store, "radeval")
    ext = dict(store.query_df("SELECT pair_id, ext_id FROM pairs").values.tolist())
    value = {(ext[p], t): v for p, t, v in targets[["pair_id", "target", "value"]].itertuples(index=False)}
    assert value[("0:3", "total_errors")] == 0 and value[("0:3", "sig_errors")] == 0
    assert value[("0:1", "total_errors")] == 1 and value[("0:2", "total_errors")] == 4
    assert value[("0:2", "sig_errors")] == 3 and ("1:2", "total_errors") not in value
    assert not any(t.endswith("_g") for t in targets["target"])


def test_radeval_wide_layout_still_imports(store, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("id,reference,candidate,sig_a,sig_b,sig_c,sig_d,sig_e,sig_f,insig_a,insig_b,insig_c,insig_d,"
                    "insig_e,insig_f\nx1,Left effusion.,Right effusion.,1,0,0,0,0,0,0,0,0,0,0,2\n", encoding="utf-8")
    assert import_preset(store, "radeval-counts", path, dataset="wide").added == 1
    assert store.query_one("SELECT sum(value) FROM annotations") == 3.0


def test_rate_eval_paragraph_file_is_read_on_its_own_0_to_4_5_scale(store, tmp_path):
    path = tmp_path / "rate_test.csv"
    path.write_text("gt_report,similar_report,Score\n"
                    "Left effusion.,Left effusion.,4.5\n"
                    "Left effusion.,Small left effusion.,2.25\n"
                    "Left effusion.,Pneumothorax.,0\n", encoding="utf-8")
    report = import_preset(store, "rate-eval", path, dataset="rate")
    assert report.added == 3
    stored = store.query_df("SELECT p.candidate, a.value, a.scale_max FROM annotations a JOIN pairs p USING "
                            "(pair_id) ORDER BY a.value")
    assert stored["scale_max"].tolist() == [4.5, 4.5, 4.5]
    assert stored["candidate"].tolist() == ["Pneumothorax.", "Small left effusion.", "Left effusion."]
    targets = dataset_targets(store, "rate")
    assert sorted(targets[targets["target"] == "score"]["value"].tolist()) == [0.0, 0.5, 1.0]  # by 4.5, not 5
    path.write_text("gt_report,similar_report,Score\nLeft.,Right.,4.75\n", encoding="utf-8")
    with pytest.raises(ImportValidationError, match="score 4.75 outside 0-4.5"):
        import_preset(store, "rate-eval", path, dataset="rate2")


def test_preset_help_says_the_layouts_were_not_checked_against_the_real_files(tmp_path):
    out = run_cli("import-preset", "--help").stdout
    flat = " ".join(out.split())
    assert "Score 0-4.5" in flat and "annotation1..3" in flat and "seventh" in flat
    assert "Neither layout was checked against the real file" in flat
    from core.ingest.presets import PRESETS
    assert all("NOT checked against the real file" in PRESETS[p].description for p in ("rate-eval", "radeval-counts"))
