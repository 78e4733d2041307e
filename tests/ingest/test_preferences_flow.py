"""GREEN's preference accuracy with a way in: importer, derivation, CLI, page and report (issue: seed papers)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from core.ingest.comparisons import derive_preferences, import_preferences
from core.ingest.importers import ImportValidationError, PairColumns, import_pairs
from core.judges import run_judge
from core.reads.preferences import load_preferences
from core.store.db import Store
from tests.cli_inprocess import run_cli
from tests.conftest import copy_store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small(tmp_path) -> Store:
    """Two cases with three candidates each, and an imported judge score we control."""
    store = Store(tmp_path / "s.duckdb")
    pairs = pd.DataFrame({"id": ["c1-x", "c1-y", "c1-z", "c2-x", "c2-y", "c2-z"],
                          "ref": ["Case one."] * 3 + ["Case two."] * 3,
                          "cand": ["x1", "y1", "z1", "x2", "y2", "z2"], "group": ["c1"] * 3 + ["c2"] * 3})
    import_pairs(store, pairs, dataset="d", columns=PairColumns("id", "ref", "cand", group="group"))
    scores = pd.DataFrame({"id": pairs["id"], "s": [0.9, 0.5, 0.5, 0.2, 0.8, 0.4]})
    from core.ingest.importers import import_outputs

    import_outputs(store, scores, dataset="d", judge="mine", id_col="id", score_col="s", metric="green")
    return store


def _file(tmp_path, rows: list[dict]) -> Path:
    path = tmp_path / "prefs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_accuracy_by_hand_through_the_cli(small, tmp_path):
    rows = [  # judge (green, higher is better): picks x over y, ties y-z, picks y over x in case two
        {"a": "c1-x", "b": "c1-y", "pref": "a", "conf": 9},   # correct
        {"a": "c1-y", "b": "c1-z", "pref": "c1-z", "conf": 3},  # judge tie: half
        {"a": "c2-x", "b": "c2-y", "pref": "a", "conf": 9},   # wrong
        {"a": "c2-y", "b": "c2-z", "pref": "b", "conf": 3},   # wrong
        {"a": "c2-x", "b": "c2-z", "pref": "tie", "conf": 5},  # no preference: left out
    ]
    path = _file(tmp_path, rows)
    base = ["--store", str(small.path)]
    done = run_cli(*base, *["import-preferences", str(path), "--dataset", "d", "--a-col", "a", "--b-col", "b",
                                  "--preferred-col", "pref", "--confidence-col", "conf", "--json"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["added"] == 5
    again = run_cli(*base, *["import-preferences", str(path), "--dataset", "d", "--a-col", "a", "--b-col", "b",
                                   "--preferred-col", "pref", "--confidence-col", "conf", "--json"])
    assert json.loads(again.stdout)["added"] == 0  # idempotent
    out = run_cli(*base, *["preference", "--dataset", "d", "--json"])
    assert out.returncode == 0, out.stderr
    rows_out = pd.DataFrame(json.loads(out.stdout)["rows"])
    overall = rows_out[rows_out["scope"] == "overall"].iloc[0]
    assert overall["n"] == 4 and overall["accuracy"] == pytest.approx(1.5 / 4) and overall["n_ties"] == 1
    assert overall["n_no_preference"] == 1
    level9 = rows_out[(rows_out["scope"] == "level") & (rows_out["confidence"] == 9)].iloc[0]
    assert level9["n"] == 2 and level9["accuracy"] == pytest.approx(0.5)
    text = run_cli(*base, *["preference", "--dataset", "d"]).stdout
    assert "conf 9 (n=2)" in text and "accuracy by expert confidence" in text


def test_bad_files_are_refused_whole_with_their_rows(small, tmp_path):
    path = _file(tmp_path, [{"a": "c1-x", "b": "c1-x", "pref": "a", "conf": 5},
                            {"a": "c1-x", "b": "c2-y", "pref": "a", "conf": 5},
                            {"a": "c1-x", "b": "nope", "pref": "maybe", "conf": 11}])
    with pytest.raises(ImportValidationError) as err:
        import_preferences(small, path, dataset="d", a_col="a", b_col="b", preferred_col="pref",
                           confidence_col="conf")
    text = "\n".join(err.value.problems)
    for needle in ("row 1: a candidate is compared with itself", "row 2: 'c1-x' and 'c2-y' are candidates of "
                   "different cases", "row 3: preferred 'maybe'", "row 3: confidence 11 outside 1-10",
                   "id 'nope' is not a pair of dataset 'd'"):
        assert needle in text
    assert load_preferences(small, "d").empty


def test_derived_from_the_demo_annotations_on_page_and_report(demo_store, tmp_path, app_test):
    store = copy_store(demo_store, tmp_path / "demo.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    report = derive_preferences(store, "demo")
    prefs = load_preferences(store, "demo")
    assert report.added == len(prefs) > 20 and set(prefs["preferred"]) == {"a", "b"}
    assert prefs["confidence"].between(1, 10).all()
    from core.reads.preferences import dataset_preference_accuracy

    table, used = dataset_preference_accuracy(store, "demo")
    overall = table[table["scope"] == "overall"].set_index(["judge", "metric"])
    assert overall.loc[("rules", "ec_sig"), "accuracy"] > 0.8  # the rules judge counts like the demo's experts
    at = app_test(store)
    at.switch_page("pages/correlations.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = next(d.value for d in at.dataframe if "n_ties" in d.value.columns)
    row = shown[shown["series"] == "Significant errors (rules counts)"].iloc[0]
    assert row["accuracy"] == pytest.approx(overall.loc[("rules", "ec_sig"), "accuracy"])
    chart = [c for c in at.get("plotly_chart") if "Accuracy by expert confidence" in c.proto.spec]
    assert chart and "expert confidence (1-10)" in chart[0].proto.spec
    from core.report import build_report

    html = build_report(store, "demo", n_boot=0)
    assert '<section id="preference">' in html and f"{used['n_comparisons']:,} comparisons" in html
    assert f"{overall.loc[('rules', 'ec_sig'), 'accuracy']:.3f}" in html
