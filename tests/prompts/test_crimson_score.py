"""CRIMSON answers: robust reading, the score of generate_score.py (cb1f1261) by hand, the ReXVal categories.

Every expected number is worked out by hand in the comment above it from the rules in
core/parse/crimson.py's docstring (weights urgent 1, actionable 0.5, not actionable 0.25, benign 0;
significant attribute 0.5, negligible 0; unknown labels 0.25).
"""

from __future__ import annotations

import json

import pytest

from core.parse.crimson import (
    DEFAULT_MAP,
    CrimsonAnswerError,
    parse_category_map,
    parse_crimson,
    score_evaluation,
)
from core.parse.crimson_json import read_crimson_json


def F(fid: str, level: str | None, text: str = "") -> dict:
    out = {"id": fid, "finding": text or f"finding {fid}"}
    if level is not None:
        out["clinical_significance"] = level
    return out


def E(refs=(), preds=(), matched=(), false=(), missing=(), attrs=()) -> dict:
    return {"reference_findings": list(refs), "predicted_findings": list(preds),
            "matched_findings": [{"ref_id": r, "pred_id": p} for r, p in matched],
            "errors": {"false_findings": list(false), "missing_findings": list(missing),
                       "attribute_errors": list(attrs)}}


def A(ref: str, pred: str, severity: str | None, *types: str, explanation: str = "") -> dict:
    out = {"ref_id": ref, "pred_id": pred, "error_types": list(types), "explanation": explanation}
    if severity is not None:
        out["severity"] = severity
    return out


def test_perfect_report_scores_one():
    ev = E([F("R1", "urgent"), F("R2", "actionable_not_urgent")], [F("P1", "urgent"), F("P2", "actionable_not_urgent")],
           [("R1", "P1"), ("R2", "P2")])
    s = score_evaluation(ev)
    # N_G = 1 + 0.5 = 1.5, correct = 1.5, S = 1.5 / 1.5 = 1
    assert (s.n_g, s.correct, s.s, s.crimson) == (1.5, 1.5, 1.0, 1.0)


def test_partial_credit_from_attribute_errors_and_one_to_many_matches():
    ev = E([F("R1", "actionable_not_urgent"), F("R2", "urgent"), F("R3", "not_actionable_not_urgent")],
           [F("P1", "actionable_not_urgent"), F("P2", "actionable_not_urgent"), F("P3", "urgent")],
           [("R1", "P1"), ("R1", "P2"), ("R2", "P3")], missing=["R3"],
           attrs=[A("R1", "P1", "significant", "location"), A("R1", "P2", "significant", "severity", "temporal"),
                  A("R2", "P3", "negligible", "descriptor")])
    s = score_evaluation(ev)
    # N_G = 0.5 + 1 + 0.25 = 1.75; E_miss = 0.25; E_false = 0
    # R1 (counted once though matched twice): w = 0.5, errors 0.5 + 0.5 = 1 -> 0.5 * 0.5 / 1.5 = 1/6
    # R2: w = 1, a negligible error 0 -> 1 * 1 / 1 = 1; correct = 1/6 + 1 = 7/6; S = (7/6) / 1.75 = 2/3
    assert s.n_g == 1.75 and s.weighted == {"false_findings": 0, "missing_findings": 0.25, "attribute_errors": 1.0}
    assert s.correct == pytest.approx(7 / 6, abs=1e-15) and s.crimson == 0.6667
    assert s.counts["attribute_errors"] == 3 and s.counts["location_errors"] == 1
    assert s.counts["severity_errors"] == s.counts["temporal_errors"] == s.counts["descriptor_errors"] == 1


def test_no_finding_reference_branch():
    # no reference finding, nothing predicted: N_G = 0 matched + 0 missed = 0, no errors -> S = 1
    assert score_evaluation(E()).crimson == 1.0
    # no reference finding, one urgent false finding: N_G = 0 -> S = -(1 + 0 + 1) = -2 < 0;
    # x = E_false - correct = 1 > 0 -> -1 / (1 + 1) = -0.5
    s = score_evaluation(E(preds=[F("P1", "urgent")], false=["P1"]))
    assert (s.n_g, s.s, s.crimson) == (0, -2, -0.5)
    # reference findings that are all benign: N_G = 0 stays (the list is not empty); a false
    # not-actionable finding (0.25): S = -(0.25 + 0 + 1); x = 0.25 -> -0.25 / 1.25 = -0.2
    s = score_evaluation(E([F("R1", "benign_expected")], [F("P1", "not_actionable_not_urgent")], missing=["R1"],
                           false=["P1"]))
    assert (s.n_g, s.s, s.crimson) == (0.0, -1.25, -0.2)
    # benign reference missed, nothing false: E_miss = 0 -> S = 1
    assert score_evaluation(E([F("R1", "benign_expected")], missing=["R1"])).crimson == 1.0
    # no reference list but matched pairs (an inconsistent answer): N_G = 2 matched + 0 = 2; correct = 0
    # (the ids weigh 0); a false actionable finding: S = (0 - 0.5) / 2 < 0; x = 0.5 -> -0.5 / 1.5
    s = score_evaluation(E(preds=[F("P1", "actionable_not_urgent")], matched=[("R1", "P2"), ("R2", "P3")],
                           false=["P1"]))
    assert (s.n_g, s.crimson) == (2, -0.3333)


def test_negative_branch():
    # N_G = 0.5 (R1 actionable, missed); two urgent false findings: E_false = 2, correct = 0
    # S = (0 - 2) / 0.5 = -4 < 0; x = 2 -> -2 / 3 = -0.6667
    s = score_evaluation(E([F("R1", "actionable_not_urgent")], [F("P1", "urgent"), F("P2", "urgent")],
                           missing=["R1"], false=["P1", "P2"]))
    assert (s.s, s.errors_more_than_correct, s.crimson) == (-4.0, 2.0, -0.6667)
    # one matched urgent finding (correct 1), three urgent false ones: S = (1 - 3) / 1 = -2; x = 2 -> -2/3
    s = score_evaluation(E([F("R1", "urgent")], [F("P1", "urgent"), *(F(f"P{i}", "urgent") for i in (2, 3, 4))],
                           [("R1", "P1")], false=["P2", "P3", "P4"]))
    assert s.crimson == -0.6667 and s.correct == 1.0


def test_unknown_and_missing_labels_weigh_a_quarter_like_upstream():
    # R1 "Urgent" (unknown spelling) and R2 without a level weigh 0.25 each: N_G = 0.5; R1 matched with an
    # attribute error without severity (0.25): 0.25 * 0.25 / 0.5 = 0.125; R2 missed (0.25)
    # a false finding whose id is not among the predicted findings weighs 0 (it still counts as one)
    s = score_evaluation(E([F("R1", "Urgent"), F("R2", None)], [F("P1", "urgent")], [("R1", "P1")], missing=["R2"],
                           false=["P7"], attrs=[A("R1", "P1", None, "certainty")]))
    assert (s.n_g, s.correct, s.crimson, s.unknown_labels) == (0.5, 0.125, 0.25, 3)
    assert s.counts["false_findings"] == 1 and s.weighted["false_findings"] == 0


def test_benign_match_with_an_error_and_string_error_types():
    # R1 benign matched with a negligible error: w = 0, denominator 0 -> no credit; R2 actionable matched,
    # error_types given as a string: upstream tests "type in string", so "severity" counts
    s = score_evaluation(E([F("R1", "benign_expected"), F("R2", "actionable_not_urgent")],
                           [F("P1", "benign_expected"), F("P2", "actionable_not_urgent")], [("R1", "P1"), ("R2", "P2")],
                           attrs=[A("R1", "P1", "negligible", "location"),
                                  {"ref_id": "R2", "pred_id": "P2", "severity": "significant", "error_types": "severity"}]))
    # N_G = 0.5; correct = 0 + 0.5 * 0.5 / 1 = 0.25; S = 0.5
    assert (s.correct, s.crimson, s.counts["severity_errors"], s.counts["location_errors"]) == (0.25, 0.5, 1, 1)


@pytest.mark.parametrize("evaluation, reason", [
    ([], "must be an object"),
    ({"errors": []}, "'errors' must be an object"),
    (E([{"finding": "x", "clinical_significance": "urgent"}]), "reference_findings item 1 has no 'id'"),
    ({"matched_findings": ["R1"]}, "matched_findings item 1 must be an object"),
    (E(false=[{"id": "P1"}]), "false_findings item 1 must be a finding id"),
    ({"errors": {"missing_findings": "R1"}}, "missing_findings must be a list"),
    (E(attrs=[{"pred_id": "P1"}]), "attribute_errors item 1 has no 'ref_id'"),
    (E(attrs=[{"ref_id": "R1", "error_types": 3}]), "'error_types' must be a list"),
    (E([{"id": "R1", "clinical_significance": ["urgent"]}]), "must be a label"),
])
def test_malformed_evaluations_are_refused_with_their_reason(evaluation, reason):
    with pytest.raises(CrimsonAnswerError, match=reason):
        score_evaluation(evaluation)


GOOD = E([F("R1", "urgent", "left pneumothorax"), F("R2", "actionable_not_urgent", "right effusion")],
         [F("P1", "urgent", "right pneumothorax"), F("P2", "not_actionable_not_urgent", "atelectasis")],
         [("R1", "P1")], false=["P2"], missing=["R2"],
         attrs=[A("R1", "P1", "significant", "location", explanation="wrong side")])


def test_parse_crimson_metrics_categories_and_errors():
    r = parse_crimson(json.dumps(GOOD))
    # N_G = 1.5; correct = 1 * 1 / 1.5 = 2/3; E_false = 0.25; S = (2/3 - 0.25) / 1.5 = 0.27777...
    assert r.status == "ok" and r.reason == "" and r.format == "crimson"
    assert r.metrics["crimson"] == 0.2778
    assert {k: r.metrics[k] for k in ("crimson_false", "crimson_missing", "crimson_attribute", "crimson_location",
                                      "crimson_e_false", "crimson_e_miss", "crimson_e_attr")} == {
        "crimson_false": 1, "crimson_missing": 1, "crimson_attribute": 1, "crimson_location": 1,
        "crimson_e_false": 0.25, "crimson_e_miss": 0.5, "crimson_e_attr": 0.5}
    # false atelectasis (not actionable) -> insignificant (a); missed effusion (actionable) -> significant (b);
    # the significant location error -> significant (c)
    assert r.sig == {"a": 0, "b": 1, "c": 1, "d": 0, "e": 0, "f": 0}
    assert r.insig == {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0}
    assert r.matched == 1 and r.matched_findings == ["left pneumothorax = right pneumothorax"]
    assert [(e.category, e.significant) for e in r.errors] == [("a", False), ("b", True), ("c", True)]
    assert r.errors[2].text == "location error R1/P1: wrong side"
    assert "atelectasis" in r.errors[0].text and "P2" in r.errors[0].text


def test_the_category_map_is_overridable():
    mapping = parse_category_map("temporal=f, location=none, significant=urgent")
    ev = E([F("R1", "actionable_not_urgent")], [F("P1", "actionable_not_urgent")], [("R1", "P1")],
           attrs=[A("R1", "P1", "significant", "location", "temporal")], missing=[])
    r = parse_crimson(json.dumps(ev), mapping)
    assert r.sig == {"a": 0, "b": 0, "c": 0, "d": 0, "e": 0, "f": 1}
    r = parse_crimson(json.dumps(GOOD), mapping)
    assert r.sig["b"] == 0 and r.insig["b"] == 1  # actionable is no longer significant
    assert r.metrics == parse_crimson(json.dumps(GOOD)).metrics  # the score does not depend on the map
    assert parse_category_map("").spec() == DEFAULT_MAP.spec()
    assert "temporal=f" in mapping.spec() and "location=none" in mapping.spec()
    with pytest.raises(ValueError) as err:
        parse_category_map("tempora=f,location=g,significant=urgent+critical,oops")
    assert all(s in str(err.value) for s in ("tempora", "location=g", "critical", "'oops'"))


@pytest.mark.parametrize("wrap, repair", [
    (lambda j: f"```json\n{j}\n```", "prose or code fence"),
    (lambda j: f"Here is my evaluation:\n{j}\nLet me know if you need more.", "prose or code fence"),
    (lambda j: j.replace("]", ",]").replace("}", ",}", 1), "trailing commas"),
    (lambda j: j.replace('"wrong side"', '"wrong side, "left" said"'), "unescaped quotes"),
    (lambda j: j.replace('"ref_id": "R1", "pred_id": "P1", "error_types"', '"ref_id": "R1", "pred_old", "pred_id": '
                         '"P1", "error_types"'), "keys without a value"),
])
def test_repaired_answers_score_like_the_clean_one(wrap, repair):
    clean = parse_crimson(json.dumps(GOOD))
    assert wrap(json.dumps(GOOD)) != json.dumps(GOOD)
    r = parse_crimson(wrap(json.dumps(GOOD)))
    assert r.status == "ok" and repair in r.reason
    assert r.metrics == clean.metrics and r.sig == clean.sig and r.insig == clean.insig


def test_string_lists_keep_their_middle_items_when_an_orphan_key_is_removed():
    ev = E([F("R1", "urgent")], [F(f"P{i}", "urgent") for i in (1, 2, 3)], false=["P1", "P2", "P3"], missing=["R1"])
    text = json.dumps(ev).replace('"id": "R1"', '"id": "R1", "orphan"')
    obj, repairs = read_crimson_json(text)
    assert obj["errors"]["false_findings"] == ["P1", "P2", "P3"] and repairs == ["keys without a value"]


def test_duplicate_keys_keep_the_first_value_like_upstream():
    obj, _ = read_crimson_json('{"errors": {"false_findings": ["P1"], "false_findings": []}}')
    assert obj["errors"]["false_findings"] == ["P1"]


@pytest.mark.parametrize("text, reason", [
    ("", "empty answer"),
    ("The candidate report is fine.", "no JSON object"),
    (json.dumps(GOOD)[:-40], "cut off"),
    ('{"errors": {"false_findings": ["P1"]}, "x": tru}', "not valid JSON"),
    ("[1, 2]", "not an object"),
    ('{"reference_findings": [{"finding": "x"}]}', "has no 'id'"),
    (None, "empty answer"),
])
def test_failures_are_recorded_with_their_reason_never_as_zeros(text, reason):
    r = parse_crimson(text)
    assert r.status == "failed" and reason in r.reason
    assert r.metrics == {} and all(v is None for v in r.sig.values())
