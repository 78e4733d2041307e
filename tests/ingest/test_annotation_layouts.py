"""Annotation layouts real studies export (issue 30, item 6), each through the CLI and the import wizard.

Every file is written in its layout (CSV, the columns an annotation tool exports), imported, and the
analyses' inputs (expert targets, preference accuracy) are compared with a hand computation written out
in the test. A file with any bad row writes nothing and names every bad row.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from core.access import RESEARCHER
from core.cli.main import main as cli
from core.ingest.importers import ImportValidationError, PairColumns, import_outputs, import_pairs, read_table
from core.reads.preferences import dataset_preference_accuracy, load_preferences
from core.reads.queries import pair_annotations
from core.reads.targets import dataset_targets
from core.store.db import Store, pair_id_for
from tests.csv_files import write_csv as _csv
from ui.import_wizard import ImportRequest, missing_inputs, run_import

IDS = ["c1-x", "c1-y", "c1-z", "c2-x", "c2-y", "c2-z"]


def _store(path: Path) -> Store:
    """Two cases (c1, c2) with three candidates each, and a judge score we control."""
    store = Store(path)
    pairs = pd.DataFrame({"id": IDS, "ref": ["Case one."] * 3 + ["Case two."] * 3,
                          "cand": ["x1", "y1", "z1", "x2", "y2", "z2"], "group": ["c1"] * 3 + ["c2"] * 3})
    import_pairs(store, pairs, dataset="d", columns=PairColumns("id", "ref", "cand", group="group"))
    import_outputs(store, pd.DataFrame({"id": IDS, "s": [0.9, 0.5, 0.5, 0.2, 0.8, 0.4]}), dataset="d",
                   judge="mine", id_col="id", score_col="s", metric="green")
    return store


@pytest.fixture
def store(tmp_path) -> Store:
    return _store(tmp_path / "cli.duckdb")


@pytest.fixture
def wizard_store(tmp_path) -> Store:
    return _store(tmp_path / "wizard.duckdb")


def _run(store: Store, capsys, *args: str) -> tuple[int, str, str]:
    code = cli(["--store", str(store.path), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _wizard(store: Store, path: Path, what: str, mapping: dict, options: dict | None = None):
    request = ImportRequest(what=what, dataset="d", mapping=mapping, options=options or {}, filename=path.name)
    assert missing_inputs(request) == []
    return run_import(store, request, read_table(path))


def _targets(store: Store) -> dict[tuple[str, str], float]:
    t = dataset_targets(store, "d")
    ext = {pair_id_for("d", i): i for i in IDS}
    return {(ext[p], target): v for p, target, v in zip(t["pair_id"], t["target"], t["value"], strict=True)}


def _count(store: Store, table: str) -> int:
    return store.query_one(f"SELECT count(*) FROM {table}")


# -- pairwise preferences from several raters in one file -----------------------------------------------

PREF_HEADER = ["comparison", "a", "b", "rater", "preferred", "confidence"]
PREF_ROWS = [  # the judge (green, higher is better) scores x1 .9, y1 .5, z1 .5, x2 .2, y2 .8, z2 .4
    ["q1", "c1-x", "c1-y", "r1", "a", 9],     # judge picks x: correct
    ["q1", "c1-x", "c1-y", "r2", "b", 4],     # wrong
    ["q2", "c1-y", "c1-z", "r1", "c1-z", 3],  # judge ties y and z: half
    ["q2", "c1-y", "c1-z", "r2", "tie", 5],   # no preference: left out
    ["q3", "c2-x", "c2-y", "r1", "b", 8],     # judge picks y: correct
    ["q3", "c2-x", "c2-y", "r2", "b", 7],     # correct
]
# Hand: 5 comparisons with a preference; correct 1 + 0 + 0.5 + 1 + 1 = 3.5 -> 3.5 / 5 = 0.7, one tie.


def test_preferences_of_several_raters_through_the_cli(store, tmp_path, capsys):
    path = _csv(tmp_path / "prefs.csv", PREF_HEADER, PREF_ROWS)
    base = ["import-preferences", str(path), "--dataset", "d", "--a-col", "a", "--b-col", "b", "--preferred-col",
            "preferred", "--confidence-col", "confidence", "--id-col", "comparison"]
    code, _, err = _run(store, capsys, *base)  # one fixed annotator: the second rater repeats the first
    assert code == 2 and "row 2: comparison 'q1' repeats row 1" in err and _count(store, "preferences") == 0
    code, out, err = _run(store, capsys, *base, "--annotator-col", "rater", "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == 6
    code, out, _ = _run(store, capsys, *base, "--annotator-col", "rater", "--json")
    assert code == 0 and json.loads(out)["added"] == 0 and _count(store, "preferences") == 6
    prefs = load_preferences(store, "d").sort_values("comparison_id")
    assert prefs["comparison_id"].tolist() == ["q1:r1", "q1:r2", "q2:r1", "q2:r2", "q3:r1", "q3:r2"]
    assert prefs["annotator"].tolist() == ["r1", "r2"] * 3
    table, used = dataset_preference_accuracy(store, "d")
    overall = table[(table["scope"] == "overall") & (table["metric"] == "green")].iloc[0]
    assert used["n_comparisons"] == 6
    assert (overall["n"], overall["n_ties"], overall["accuracy"]) == (5, 1, 3.5 / 5)


def test_preferences_of_several_raters_through_the_wizard(store, wizard_store, tmp_path, capsys):
    path = _csv(tmp_path / "prefs.csv", PREF_HEADER, PREF_ROWS)
    mapping = {"a": "a", "b": "b", "preferred": "preferred", "confidence": "confidence", "comparison": "comparison",
               "annotator": "rater"}
    assert _wizard(wizard_store, path, "preferences", mapping).added == 6
    assert _wizard(wizard_store, path, "preferences", mapping).added == 0
    cli_args = ["import-preferences", str(path), "--dataset", "d", "--a-col", "a", "--b-col", "b", "--preferred-col",
                "preferred", "--confidence-col", "confidence", "--id-col", "comparison", "--annotator-col", "rater"]
    assert _run(store, capsys, *cli_args)[0] == 0
    cols = ["comparison_id", "pair_id_a", "pair_id_b", "preferred", "confidence", "annotator"]
    assert load_preferences(wizard_store, "d")[cols].sort_values("comparison_id").reset_index(drop=True).equals(
        load_preferences(store, "d")[cols].sort_values("comparison_id").reset_index(drop=True))
    # without comparison ids: a hash of the two candidates and the rater, so raters never collide
    no_ids = _csv(tmp_path / "no_ids.csv", PREF_HEADER[1:], [r[1:] for r in PREF_ROWS])
    fresh = _store(tmp_path / "fresh.duckdb")
    mapping.pop("comparison")
    assert _wizard(fresh, no_ids, "preferences", mapping).added == 6


def test_bad_preference_rows_are_all_named_and_nothing_is_written(store, tmp_path, capsys):
    rows = [["c1-x", "c1-y", "r1", "a"], ["c1-y", "c1-x", "r1", "b"],  # r1 compares the same two again
            ["c1-x", "c2-y", "r2", "a"], ["c1-x", "c1-z", "", "a"], ["c1-x", "c1-z", "r2", "maybe"]]
    path = _csv(tmp_path / "bad.csv", ["a", "b", "rater", "preferred"], rows)
    code, _, err = _run(store, capsys, "import-preferences", str(path), "--dataset", "d", "--a-col", "a", "--b-col",
                        "b", "--preferred-col", "preferred", "--annotator-col", "rater")
    assert code == 2
    for text in ("row 2: annotator 'r1' compares 'c1-y' and 'c1-x' again (row 1)",
                 "row 3: 'c1-x' and 'c2-y' are candidates of different cases", "row 4: empty annotator",
                 "row 5: preferred 'maybe'"):
        assert text in err
    assert _count(store, "preferences") == 0


# -- error lists: one row per error ---------------------------------------------------------------------

ERROR_HEADER = ["report_id", "rater", "error_category", "significance"]
ERROR_ROWS = [  # CRIMSON-style levels; an empty category: the rater annotated the pair, no errors
    ["c1-x", "r1", "a", "urgent"],
    ["c1-x", "r1", "b", "expected"],
    ["c1-x", "r1", "1", "Actionable"],
    ["c1-y", "r1", "", ""],
    ["c1-x", "r2", "c", "not actionable"],
    ["c1-y", "r2", "d", "urgent"],
    ["c2-x", "r2", "", ""],
]
# Hand, default rule (urgent, actionable significant):
#   r1: c1-x sig 2 (a urgent, a actionable) total 3; c1-y 0 / 0.  r2: c1-x 0 / 1; c1-y 1 / 1; c2-x 0 / 0.
#   targets (mean over the raters who annotated the pair): c1-x sig 2/2 total 4/2; c1-y sig 1/2 total 1/2;
#   c2-x 0 and 0 (one rater; annotated with no errors is 0, not missing); nothing for c1-z, c2-y, c2-z.
ERROR_TARGETS = {("c1-x", "sig_errors"): 1.0, ("c1-x", "total_errors"): 2.0, ("c1-y", "sig_errors"): 0.5,
                 ("c1-y", "total_errors"): 0.5, ("c2-x", "sig_errors"): 0.0, ("c2-x", "total_errors"): 0.0}


def test_error_list_through_the_cli_counts_rows(store, tmp_path, capsys):
    path = _csv(tmp_path / "errors.csv", ERROR_HEADER, ERROR_ROWS)
    args = ["import-annotations", str(path), "--dataset", "d", "--id-col", "report_id", "--annotator-col", "rater",
            "--category-col", "error_category", "--significant-col", "significance", "--error-list", "--json"]
    code, out, err = _run(store, capsys, *args)
    assert code == 0, err
    assert json.loads(out)["added"] == 5 * 12  # five (pair, rater) annotated, twelve cells each
    assert json.loads(_run(store, capsys, *args)[1])["added"] == 0
    targets = _targets(store)
    assert {k: v for k, v in targets.items() if k[1] in ("sig_errors", "total_errors")} == ERROR_TARGETS
    assert targets[("c1-x", "sig_a")] == 1.0 and targets[("c1-x", "insig_b")] == 0.5  # (2 + 0) / 2, (1 + 0) / 2
    zero = pair_annotations(store, pair_id_for("d", "c2-x"), role=RESEARCHER)
    assert len(zero) == 12 and zero["value"].eq(0).all()


def test_error_list_through_the_wizard_with_an_overridden_rule(store, wizard_store, tmp_path, capsys):
    path = _csv(tmp_path / "errors.csv", ERROR_HEADER, ERROR_ROWS)
    mapping = {"id": "report_id", "annotator": "rater", "category": "error_category", "significant": "significance"}
    default = {"mode": "errors", "significant_levels": "urgent, actionable",
               "insignificant_levels": "not actionable, expected"}
    assert _wizard(wizard_store, path, "annotations", mapping, default).added == 60
    assert {k: v for k, v in _targets(wizard_store).items() if k[1] in ("sig_errors", "total_errors")} \
        == ERROR_TARGETS
    # --significant-levels urgent: actionable errors are no longer significant (r1's c1-x: sig 1, not 2)
    code, _, err = _run(store, capsys, "import-annotations", str(path), "--dataset", "d", "--id-col", "report_id",
                        "--annotator-col", "rater", "--category-col", "error_category", "--significant-col",
                        "significance", "--error-list", "--significant-levels", "urgent")
    assert code == 0, err
    targets = _targets(store)
    assert targets[("c1-x", "sig_errors")] == 0.5 and targets[("c1-x", "total_errors")] == 2.0


def test_bad_error_list_rows_are_all_named_and_nothing_is_written(store, tmp_path, capsys):
    rows = [["c1-x", "r1", "a", "urgent"], ["c1-x", "r1", "", "urgent"], ["c1-x", "r1", "g", "expected"],
            ["c1-y", "r1", "b", "urgnet"], ["c1-z", "", "a", "urgent"], ["nope", "r1", "a", "urgent"],
            ["c1-y", "r2", "c", ""]]
    path = _csv(tmp_path / "bad.csv", ERROR_HEADER, rows)
    code, _, err = _run(store, capsys, "import-annotations", str(path), "--dataset", "d", "--id-col", "report_id",
                        "--annotator-col", "rater", "--category-col", "error_category", "--significant-col",
                        "significance", "--error-list")
    assert code == 2
    for text in ("row 2: significance 'urgent' but no category", "row 3: category 'g' is not a-f or 1-6",
                 "row 4: significance 'urgnet' is not one of the levels", "row 5: empty annotator",
                 "row 6: id 'nope' is not a pair", "row 7: an error with no significance"):
        assert text in err, text
    assert _count(store, "annotations") == 0


def test_significance_levels_in_counts_through_the_wizard(wizard_store, tmp_path):
    rows = [["c1-x", "r1", 1, "urgent", 2], ["c1-x", "r1", 2, "expected", 1], ["c1-y", "r1", 3, "actionable", 1],
            ["c1-y", "r1", 3, "not_actionable", 4], ["c1-z", "r1", 1, "Non-Actionable", 0]]
    path = _csv(tmp_path / "counts.csv", ["id", "rater", "category", "level", "n"], rows)
    mapping = {"id": "id", "annotator": "rater", "category": "category", "significant": "level", "count": "n"}
    assert _wizard(wizard_store, path, "annotations", mapping, {"mode": "counts"}).added == 5
    targets = _targets(wizard_store)
    assert [targets[(i, "sig_errors")] for i in ("c1-x", "c1-y", "c1-z")] == [2.0, 1.0, 0.0]
    assert [targets[(i, "total_errors")] for i in ("c1-x", "c1-y", "c1-z")] == [3.0, 5.0, 0.0]
    bad = _csv(tmp_path / "bad.csv", ["id", "rater", "category", "level", "n"], [["c2-x", "r1", 1, "critical", 1]])
    with pytest.raises(ImportValidationError, match="row 1: significant flag 'critical' is not one of the levels"):
        _wizard(wizard_store, bad, "annotations", mapping, {"mode": "counts"})


# -- rating scales that do not start at 0 -----------------------------------------------------------------

LIKERT_ROWS = [["c1-x", "r1", 4], ["c1-x", "r2", 5], ["c1-y", "r1", 1], ["c1-y", "r2", 2],
               ["c1-z", "r1", 3], ["c1-z", "r2", 3]]
# Hand: normalised (score - 1) / 4, mean over the two raters:
LIKERT_TARGETS = {"c1-x": (Fraction(3, 4) + 1) / 2, "c1-y": (0 + Fraction(1, 4)) / 2, "c1-z": Fraction(1, 2)}


def test_likert_one_to_five_through_the_cli(store, tmp_path, capsys):
    path = _csv(tmp_path / "likert.csv", ["id", "rater", "likert"], LIKERT_ROWS)
    args = ["import-annotations", str(path), "--dataset", "d", "--id-col", "id", "--annotator-col", "rater",
            "--score-col", "likert", "--scale-min", "1", "--scale-max", "5", "--json"]
    code, out, err = _run(store, capsys, *args)
    assert code == 0, err
    assert json.loads(out)["added"] == 6 and json.loads(_run(store, capsys, *args)[1])["added"] == 0
    targets = _targets(store)
    assert {i: targets[(i, "score")] for i in LIKERT_TARGETS} == {i: float(v) for i, v in LIKERT_TARGETS.items()}
    shown = pair_annotations(store, pair_id_for("d", "c1-x"), role=RESEARCHER).set_index("annotator")  # the rater's own scale
    assert shown.loc["r1", ["value", "scale_max"]].tolist() == [4.0, 5.0]
    # the same file said to be 0-5 is another rating: refused, on both scales
    code, _, err = _run(store, capsys, *args[:-5], "--scale-max", "5")
    assert code == 2 and "already stored as 4 of 1-5, file says 4 of 0-5" in err


def test_likert_through_the_wizard_and_out_of_scale_rows(store, wizard_store, tmp_path, capsys):
    path = _csv(tmp_path / "likert.csv", ["id", "rater", "likert"], LIKERT_ROWS)
    mapping = {"id": "id", "annotator": "rater", "score": "likert"}
    report = _wizard(wizard_store, path, "annotations", mapping, {"mode": "score", "scale_min": 1, "scale_max": 5})
    assert report.added == 6
    targets = _targets(wizard_store)
    assert {i: targets[(i, "score")] for i in LIKERT_TARGETS} == {i: float(v) for i, v in LIKERT_TARGETS.items()}
    bad = _csv(tmp_path / "bad.csv", ["id", "rater", "likert"], [["c2-x", "r1", 0], ["c2-y", "r1", 6],
                                                                  ["c2-z", "r1", 2]])
    code, _, err = _run(store, capsys, "import-annotations", str(bad), "--dataset", "d", "--id-col", "id",
                        "--annotator-col", "rater", "--score-col", "likert", "--scale-min", "1")
    assert code == 2 and "row 1: score 0 outside 1-5" in err and "row 2: score 6 outside 1-5" in err
    code, _, err = _run(store, capsys, "import-annotations", str(bad), "--dataset", "d", "--id-col", "id",
                        "--score-col", "likert", "--scale-min", "5", "--scale-max", "5")
    assert code == 2 and "scale maximum (5) must be above the scale minimum (5)" in err
    assert _count(store, "annotations") == 0
