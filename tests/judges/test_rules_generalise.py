"""The rules judge on reading rules that generalise beyond one set's wordings (issue 32, dev2).

Each test states one reading rule a radiologist applies, in made-up sentences (not the machine-written set's),
so that it proves the family of wordings, not one item.
"""

from __future__ import annotations

from core.judges.rules import parse_report
from tests.judges.rules_probe import counts


def test_a_resolution_stated_after_a_plain_negative_is_still_a_comparison():
    reference = ("FINDINGS: No consolidation, effusion or pneumothorax. Interval resolution of the right effusion. "
                 "Normal heart size.")
    candidate = "FINDINGS: The right pleural effusion seen before has since resolved. No consolidation. Normal heart."
    assert counts(reference, candidate) == {}
    # the comparison is the reference's: a candidate without it omits it
    assert counts(reference, "FINDINGS: No consolidation, effusion or pneumothorax. Normal heart size.") == {"f": 1}


def _present(text: str) -> set[str]:
    return {f.concept for f in parse_report(text) if f.kind == "finding" and f.present}


def _absent(text: str) -> set[str]:
    return {f.concept for f in parse_report(text) if f.kind == "finding" and not f.present}


def test_a_negation_limited_to_other_places_leaves_the_stated_finding():
    for text in ("A patchy opacity at the left base, likely atelectasis. No infiltrate elsewhere.",
                 "Patchy left basilar atelectasis. No other focal opacity.",
                 "Patchy left basilar atelectasis. Otherwise no consolidation is seen."):
        assert "atelectasis" in _present(text), text
        assert not _absent(text) & {"any_opacity", "consolidation"}, text
    reference = "FINDINGS: Streaky atelectasis in the lingula. Heart normal."
    assert counts(reference, "FINDINGS: Lingular atelectasis. No focal opacity elsewhere. Heart normal.") == {}
    # a plain negation still negates
    assert "consolidation" in _absent("No consolidation.")


def test_clear_before_a_finding_is_the_dictation_of_clear_of_it():
    assert _absent("The lungs are expanded and clear airspace disease.") >= {"consolidation"}
    assert not _present("Lungs are clear focal airspace disease.")
    reference = "FINDINGS: Lungs are well aerated and clear airspace disease. No effusion."
    assert counts(reference, "FINDINGS: The lungs are free of consolidation. No pleural effusion.") == {}
    # "clear" elsewhere in the sentence does not negate a finding it does not precede
    assert "pleural_effusion" in _present("The left lung is clear. Small right pleural effusion.")


def test_advice_on_what_radiographs_can_miss_names_no_finding():
    for text in ("Subtle rib fractures can be radiographically occult.", "A hairline fracture may be occult here.",
                 "Radiographs may miss a small pneumothorax in a supine patient.",
                 "Early pneumonia may not be visible on a chest film.",
                 "Plain films are insensitive for small pulmonary nodules."):
        assert not _present(text), text
    reference = "FINDINGS: No rib fracture. Lungs are clear."
    candidate = ("FINDINGS: No rib fracture is seen. Clear lungs.\nIMPRESSION: Negative. Small rib fractures can be "
                 "occult on radiographs; a dedicated rib series could help if pain continues.")
    assert counts(reference, candidate) == {}


def test_a_comparison_word_inside_a_condition_is_not_a_comparison():
    reference = "FINDINGS: Heart and lungs are normal."
    for advice in ("Follow-up imaging is advised if symptoms persist.",
                   "Consider CT should the cough remain unchanged after treatment.",
                   "Repeat radiograph in case the pain continues."):
        assert counts(reference, f"FINDINGS: Normal heart and lungs. {advice}") == {}, advice
    # a comparison stated outright still is one
    effusion = "FINDINGS: Small left pleural effusion."
    assert counts(effusion, "FINDINGS: Small left pleural effusion, unchanged since the prior study.") == {"e": 1}
    assert counts(effusion, "FINDINGS: Small left pleural effusion. CT if it persists.") == {}


def test_a_comparison_carried_by_a_pronoun_is_the_previous_sentences():
    reference = "FINDINGS: Coarse reticular markings at both bases. These are unchanged. No effusion."
    stated = [f for f in parse_report(reference) if f.kind == "finding" and f.present]
    assert [(f.concept, f.change) for f in stated] == [("interstitial_opacity", "unchanged")]
    # the candidate that keeps the comparison agrees; one that drops it omits it
    assert counts(reference, "FINDINGS: Stable bibasilar reticular opacities. No pleural effusion.") == {}
    assert counts(reference, "FINDINGS: Bibasilar reticular opacities. No pleural effusion.") == {"f": 1}
    # a sentence with a subject of its own is not a pronoun's
    other = "FINDINGS: Coarse reticular markings at both bases. Heart size is unchanged. No effusion."
    assert [f.change for f in parse_report(other) if f.concept == "interstitial_opacity"] == [None]


def test_plaque_or_calcium_placed_in_the_aorta_is_aortic_atherosclerosis():
    for text in ("Dense calcified plaque is present within the transverse aortic arch.",
                 "Atheromatous plaque along the descending thoracic aorta.",
                 "Aortic knob plaque.", "Vascular calcification involving the aortic wall."):
        assert _present(text) == {"aortic_atherosclerosis"}, text
    assert counts("FINDINGS: Atherosclerosis of the aorta. Lungs clear.",
                  "FINDINGS: Calcified plaque in the aortic knob. Clear lungs.") == {}
    # a plaque elsewhere stays a plaque
    assert _present("Soft plaque at the right carotid bifurcation.") == {"plaque"}


def test_a_slash_between_two_readings_offers_alternatives_for_one_observation():
    stated = [f for f in parse_report("Streaky right basilar atelectasis/scarring.") if f.present]
    assert [(f.concept, f.alternatives, f.side) for f in stated] == [("atelectasis", ("scarring",), "right")]
    reference = "FINDINGS: Mild right basilar scarring/atelectasis. No effusion."
    assert counts(reference, "FINDINGS: Mild atelectasis versus scarring at the right base. No effusion.") == {}
    # the comparison stated for the pair is the observation's
    device = "FINDINGS: Left chest pacemaker/defibrillator, unchanged in position."
    assert [f.change for f in parse_report(device) if f.present] == ["unchanged"]
    # two findings joined by "and" stay two
    assert len([f for f in parse_report("Right basilar atelectasis and a left effusion.") if f.present]) == 2


def test_alternatives_offered_either_way_match_one_observation():
    slash = "FINDINGS: Patchy left lower lobe atelectasis/consolidation. Normal heart."
    listed = "FINDINGS: Patchy left lower lobe atelectasis or consolidation. Normal heart."
    assert counts(slash, listed) == {}
    assert counts(listed, slash) == {}
    # the other reading placed elsewhere is a finding of its own
    assert counts(slash, "FINDINGS: Patchy left lower lobe atelectasis. Right upper lobe consolidation. Normal heart.")


def test_the_low_end_of_a_severity_scale_is_one_grade():
    for low, mild in (("Minimal", "Mild"), ("Trace", "Small"), ("Tiny", "Small"), ("Subtle", "Slight")):
        assert counts(f"FINDINGS: {low} right pleural effusion.", f"FINDINGS: {mild} right pleural effusion.") == {}
    # two steps apart still is a severity error
    assert counts("FINDINGS: Minimal right pleural effusion.", "FINDINGS: Moderate right pleural effusion.") == {"d": 1}
    assert counts("FINDINGS: Trace right pleural effusion.", "FINDINGS: Large right pleural effusion.") == {"d": 1}
