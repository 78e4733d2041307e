"""Issue 44: the rules judge's significant errors and its CRIMSON-style score (``rules_crimson``), in Live scoring,
``score`` and a stored run, with the pair's patient context.

Before issue 44 "Small left pleural effusion" against "Small right pleural effusion" was one insignificant
location error, so the headline GREEN was 1.0: a wrong-side finding scored as a perfect report.
"""

from __future__ import annotations

import pandas as pd
import pytest

from core.analysis.naming import display_name
from core.analysis.scores import METRICS, PER_CATEGORY_COUNTS
from core.ingest.importers import PairColumns, import_pairs
from core.judges.live import answer_json, score_rules_live
from core.judges.registry import run_judge
from core.judges.rules import judge_pair, rules_crimson, score_pair
from core.store.db import Store

# as a new user tries it: the effusion on the wrong side, the rest of the report right
LEFT = "Small left pleural effusion. No pneumothorax. Heart size is normal."
RIGHT = "Small right pleural effusion. No pneumothorax. Heart size is normal."
ATHERO = "Aortic atherosclerosis. No acute cardiopulmonary abnormality."
NORMAL = "No acute cardiopulmonary abnormality."
OLD = {"age": "82", "indication": "preoperative evaluation before hip replacement"}
YOUNG = {"age": "25", "indication": "chest pain"}


def test_the_wrong_side_effusion_is_a_significant_error_and_green_below_1_in_live_scoring():
    live = score_rules_live(LEFT, RIGHT)
    assert live.failure is None
    assert live.parsed.sig["c"] == 1 and sum(live.parsed.insig.values()) == 0
    assert live.parsed.metrics["ec_sig"] == 1
    assert 0 < live.parsed.metrics["green"] < 1  # the absent pneumothorax matched; before: GREEN 1.0
    assert [e["significant"] for e in live.errors] == [True]
    # CRIMSON's arithmetic: the effusion (actionable, 0.5) matched with one significant attribute error (0.5):
    # correct = 0.5 * 0.5 / (0.5 + 0.5) = 0.25, over 0.5 of reference weight
    assert live.parsed.metrics["rules_crimson"] == pytest.approx(0.5)


def test_the_same_side_is_a_perfect_report():
    live = score_rules_live(LEFT, LEFT)
    assert live.parsed.metrics["green"] == 1 and live.parsed.metrics["rules_crimson"] == 1


def test_patient_context_decides_an_age_dependent_finding():
    old, young, none = (judge_pair(ATHERO, NORMAL, context=c) for c in (OLD, YOUNG, None))
    assert [e.significant for e in old.errors] == [False]  # expected at 82 before surgery
    assert [e.significant for e in young.errors] == [True]  # premature atherosclerosis at 25 with chest pain
    assert [e.significant for e in none.errors] == [False]  # no context: as before
    assert rules_crimson(old) == 1.0  # a benign, expected finding weighs 0
    assert rules_crimson(young) == 0.0  # the only reference finding, actionable, missed
    assert score_rules_live(ATHERO, NORMAL, context=YOUNG).parsed.sig["b"] == 1
    assert score_rules_live(ATHERO, NORMAL, context=OLD).parsed.sig["b"] == 0


def test_score_json_carries_the_rules_crimson_score_with_context():
    from core.cli.score import judge_pair as score_one

    out = score_one("rules", ATHERO, NORMAL, context=YOUNG)
    assert out["metrics"]["rules_crimson"] == 0.0 and out["sig"]["b"] == 1
    out = score_one("rules", ATHERO, NORMAL, context=OLD)
    assert out["metrics"]["rules_crimson"] == 1.0 and out["sig"]["b"] == 0
    plain = answer_json("rules", parsed=score_rules_live(LEFT, RIGHT).parsed, raw="")
    assert "rules_crimson" in plain["metrics"]


def test_the_metric_is_named_as_the_rules_judges_never_as_the_crimson_models():
    assert display_name("rules", "rules_crimson") == METRICS["rules_crimson"].label
    assert "rules" in METRICS["rules_crimson"].label and METRICS["rules_crimson"].label != METRICS["crimson"].label
    assert not "rules_crimson".startswith("crimson")  # the analysis code reads crimson* as the CRIMSON judge's
    assert "rules_crimson" not in PER_CATEGORY_COUNTS  # a score in the tables, not a count behind one


def test_a_stored_rules_run_reads_each_pairs_context_and_stores_rules_crimson(tmp_path):
    store = Store(tmp_path / "store.duckdb")
    frame = pd.DataFrame({"id": ["old", "young", "plain", "side"], "reference": [ATHERO, ATHERO, ATHERO, LEFT],
                          "candidate": [NORMAL, NORMAL, NORMAL, RIGHT], "age": ["82", "25", None, None],
                          "indication": [OLD["indication"], YOUNG["indication"], None, None]})
    import_pairs(store, frame, dataset="d", columns=PairColumns(id="id", reference="reference", candidate="candidate",
                                                                 context={"age": "age", "indication": "indication"}))
    summary = run_judge(store, dataset="d", judge="rules")
    assert summary.ok == 4 and summary.failed == 0
    rows = store.query_df("SELECT p.ext_id, m.metric, m.value FROM metric_values m JOIN pairs p USING (pair_id) "
                          "WHERE m.metric IN ('rules_crimson', 'ec_sig', 'green')")
    got = {(r.ext_id, r.metric): r.value for r in rows.itertuples()}
    assert got[("old", "ec_sig")] == 0 and got[("old", "rules_crimson")] == 1.0
    assert got[("young", "ec_sig")] == 1 and got[("young", "rules_crimson")] == 0.0
    assert got[("plain", "ec_sig")] == 0  # no context: judged as before
    assert got[("side", "ec_sig")] == 1 and got[("side", "green")] < 1 and got[("side", "rules_crimson")] == 0.5
    # the stored run's score is the one score_pair gives for the same pair and context
    assert score_pair(ATHERO, NORMAL, context=YOUNG).extra_metrics == {"rules_crimson": 0.0}


def test_the_context_is_read_as_people_write_it_and_unreadable_fields_are_ignored():
    from core.judges.rules.significance import read_context

    assert [read_context({"age": a}).age for a in ("82", "82 years", "82M", "6 months")] == [82, 82, 82, 0.5]
    assert read_context({"age": "unknown", "sex": ""}).given is False  # nothing readable: judged without context
    assert read_context(None).given is False and read_context({}).given is False
    # an unreadable age leaves the finding's own level: the same as no context
    unreadable = judge_pair(ATHERO, NORMAL, context={"age": "not recorded"})
    assert [e.significant for e in unreadable.errors] == [False]
