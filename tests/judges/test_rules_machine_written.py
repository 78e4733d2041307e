"""The rules judge on how radiologists and report generators write (issue 32).

Made-up sentences and pairs, one per failure class of the issue: descriptive findings, devices and
surgery, evidence chains and lists, hedges and limits, history, out-of-scope remarks and text that is
not a report; plus the hand-labelled sentences of ``bench/rules_assertions.py`` (present / absent /
possible / history / not assessed for each named finding).
"""

from __future__ import annotations

import pytest

from bench.bench_rules_context import judge_statuses
from core.judges.rules import RULES_VERSION, judge_pair, parse_report, score_pair, screen_pair


def present(text: str) -> set[str]:
    return {f.concept for f in parse_report(text) if f.kind == "finding" and f.present}


@pytest.mark.parametrize(("text", "concepts"), [
    ("Thickening of the interstitial markings with peribronchial cuffing.",
     {"interstitial_opacity", "bronchial_wall_thickening"}),
    ("Increased density projecting over both perihilar regions.", {"any_opacity"}),
    ("Obscuration of the left heart border.", {"border_obscuration"}),
    ("Subtle reticular changes at the bases.", {"interstitial_opacity"}),
    ("Post-surgical changes of a shoulder arthroplasty.", {"arthroplasty"}),
    ("Vertebroplasty cement at T11.", {"spinal_fusion"}),
    ("The thoracic aorta is tortuous.", {"aortic_tortuosity"}),
    ("Blunting of the left costophrenic angle.", {"pleural_effusion"}),
    ("Calcified right hilar lymph nodes.", {"calcified_nodes"}),
    ("External cardiac monitoring leads overlie the chest.", {"external_leads"}),
])
def test_descriptive_findings_devices_and_surgery_are_read(text, concepts):
    assert present(text) == concepts


@pytest.mark.parametrize("text", [
    "The interstitial markings are normal.", "The costophrenic angles are sharp.", "Mediastinal contours are normal.",
    "Heart size and pulmonary vascular engorgement appear within limits of normal.",
    "The lungs are clear of focal airspace disease, pneumothorax, or pleural effusion.",
    "Pleural effusion, pneumothorax, and consolidation are not seen.",
])
def test_normal_statements_state_no_finding(text):
    assert present(text) == set()


def test_an_evidence_chain_names_each_sign():
    """'volume loss, evidenced by elevation of the right hemidiaphragm and rightward mediastinal shift': three."""
    text = ("Elevation of the right hemidiaphragm with rightward mediastinal shift, in keeping with volume loss. "
            "Hyperexpansion, flattened diaphragms and an increased AP diameter, consistent with COPD.")
    assert present(text) == {"hemidiaphragm_elevation", "mediastinal_shift", "atelectasis", "hyperinflation",
                             "diaphragm_flattening", "increased_ap_diameter", "emphysema"}
    res = judge_pair("Volume loss in the right lung.", "Elevation of the right hemidiaphragm with rightward "
                     "mediastinal shift, in keeping with volume loss.")
    assert sorted(e.category for e in res.errors) == ["a", "a"]


def test_a_density_joined_to_its_reading_and_alternatives_are_one_finding():
    res = judge_pair("Bibasilar atelectasis versus scarring.", "Bibasilar opacities, atelectasis versus scarring.")
    assert res.errors == [], [e.explanation for e in res.errors]
    res = judge_pair("Linear opacities at the left base, likely atelectasis.", "Left basilar atelectasis.")
    assert res.errors == [], [e.explanation for e in res.errors]
    # a candidate naming one of the alternatives matches them
    assert judge_pair("Blunting of the right costophrenic angle, which may represent a small effusion or pleural "
                      "thickening.", "Right pleural thickening.").errors == []


def test_hedges_limits_history_and_out_of_scope_remarks():
    found = {f.concept: f for f in parse_report(
        "A small pneumothorax cannot be excluded. Known lung cancer. Limited evaluation for rib fractures. "
        "An abdominal aortic aneurysm is not well seen on this chest film.")}
    assert found["pneumothorax"].present and found["pneumothorax"].certainty == "possible"
    assert found["malignancy"].kind == "history"
    assert found["rib_fracture"].kind == "limit"
    assert found["aortic_aneurysm"].present and found["aortic_aneurysm"].certainty == "possible"
    # the out-of-scope remark is a false finding; history and limits are none
    res = judge_pair("No acute cardiopulmonary abnormality.", "Known lung cancer. Limited evaluation of the spine. "
                     "An abdominal aortic aneurysm is not well seen on this chest film.")
    assert [(e.category, "aneurysm" in e.explanation) for e in res.errors] == [("a", True)]
    # "consistent with the known COPD": the image shows it
    assert present("Hyperexpanded lungs consistent with the known COPD.") == {"hyperinflation", "emphysema"}


def test_comparisons_over_a_list_count_once():
    res = judge_pair("Atelectasis and small left pleural effusion.",
                     "Atelectasis and small left pleural effusion, new since the prior examination.")
    assert [e.category for e in res.errors] == ["e"]
    assert judge_pair("No significant change in right pneumothorax or right pleural fluid.",
                      "The right pneumothorax and right pleural effusion are unchanged.").errors == []
    res = judge_pair("The lungs are clear.", "The lungs are clear. No significant interval change.")
    assert [e.category for e in res.errors] == ["e"]


@pytest.mark.parametrize("candidate", [
    "This image does not appear to be a chest radiograph; pneumonia, pneumothorax, effusion or fractures cannot "
    "be assessed.",
    "The uploaded image is a lateral radiograph of the cervical spine, not a chest X-ray.",
    "The radiograph is severely rotated. The lungs and heart cannot be reliably assessed; please repeat the exam.",
    "FINDINGS: [insert findings here]\nIMPRESSION: ___",
    "The image shows a chest X-ray. The image shows a chest X-ray. The image shows a chest X-ray.",
])
def test_text_that_is_not_a_report_is_a_recorded_failure(candidate):
    reason = screen_pair("No acute cardiopulmonary abnormality.", candidate)
    assert reason and reason.startswith("not a report: the candidate is")
    rec = score_pair("No acute cardiopulmonary abnormality.", candidate)
    assert rec.error == reason and rec.raw_text is None and rec.metrics is None


def test_the_issue_non_report_names_no_positive_finding():
    text = ("This image does not appear to be a chest radiograph; pneumonia, pneumothorax, effusion or fractures "
            "cannot be assessed.")
    assert present(text) == set()
    assert {f.concept for f in parse_report(text) if f.kind == "limit"} == {
        "consolidation", "pneumothorax", "any_effusion", "any_fracture"}


@pytest.mark.parametrize("report", [
    "Findings: none.", "Right shoulder arthroplasty. No acute cardiopulmonary disease.",
    "I cannot exclude a small right pneumothorax.", "Limited study. No pneumothorax.",
])
def test_short_or_limited_reports_are_still_scored(report):
    assert screen_pair("No acute cardiopulmonary abnormality.", report) is None


def test_labelled_sentences_status():
    """Each finding of bench/rules_assertions.py read as labelled, but for the few documented misses."""
    rows = judge_statuses()
    wrong = [(words, want, got) for _, words, want, got in rows if want != got]
    assert len(rows) >= 100
    assert len(wrong) <= 4, wrong
    assert not any(got == "missed" for *_, got in rows)


def test_version():
    assert RULES_VERSION == "rules-18"


def categories(reference: str, candidate: str) -> list[str]:
    return sorted(e.category for e in judge_pair(reference, candidate).errors)


def test_one_comparison_phrase_is_one_error_when_the_impression_repeats_its_findings():
    # the findings section states both without a comparison, the impression adds one phrase over both
    reference = "FINDINGS: Cardiomegaly and pulmonary edema.\n\nIMPRESSION: Cardiomegaly and pulmonary edema."
    candidate = ("FINDINGS: Cardiomegaly and pulmonary edema.\n\nIMPRESSION: Cardiomegaly and pulmonary edema, "
                 "worse than on the previous film.")
    assert categories(reference, candidate) == ["e"]
    assert categories(candidate, reference) == ["f"]
