"""The rules judge on reading rules that generalise beyond one set's wordings (issue 32, dev6, round 5).

Each test states one reading rule a radiologist applies, in made-up sentences (not the machine-written set's),
so that it proves the family of wordings, not one item.
"""

from __future__ import annotations

from core.judges.rules import parse_report
from tests.judges.rules_probe import counts, present_concepts


def test_resolution_of_a_finding_is_a_comparison_with_or_without_interval():
    for text in ("IMPRESSION: Resolution of the left basilar consolidation.",
                 "IMPRESSION: Interval resolution of the left basilar consolidation.",
                 "IMPRESSION: Complete resolution of left basilar consolidation since the last film."):
        found = [f for f in parse_report(text) if f.kind == "finding"]
        assert [(f.concept, f.present, f.change) for f in found] == [("consolidation", False, "resolved")], text
    # two wordings of one resolution agree: no invented or omitted comparison
    assert counts("FINDINGS: Lungs clear. IMPRESSION: Resolution of left lower lobe consolidation.",
                  "FINDINGS: Lungs clear. IMPRESSION: Interval resolution of the left lower lobe consolidation.") == {}


def test_a_calcification_of_the_aorta_behind_a_deidentified_word_is_aortic_atherosclerosis():
    for text in ("FINDINGS: Aortic XXXX calcification.", "FINDINGS: Mild aortic XXXX vascular calcifications.",
                 "FINDINGS: Calcified plaque along the aortic arch."):
        assert present_concepts(text) == ["aortic_atherosclerosis"], text
    assert counts("FINDINGS: Aortic XXXX calcifications. Lungs clear.",
                  "FINDINGS: Calcification of the aortic knob. Lungs clear.") == {}


def test_the_skeletons_age_related_wear_in_other_words_is_a_degenerative_change():
    for text in ("FINDINGS: Senescent changes of the skeleton.", "FINDINGS: Osseous senescent changes.",
                 "FINDINGS: Age-related changes of the thoracic spine.",
                 "FINDINGS: Moderate degenerative arthropathy of the left glenohumeral joint."):
        assert present_concepts(text) == ["degenerative_changes"], text
    assert counts("FINDINGS: Skeletal senescent changes. Heart normal.",
                  "FINDINGS: Heart normal. Degenerative changes of the spine.") == {}


def test_a_trachea_said_to_be_deviated_is_a_shift_of_the_mediastinum():
    for text in ("FINDINGS: The trachea is slightly displaced to the left.",
                 "FINDINGS: Deviated trachea, toward the right.", "FINDINGS: Tracheal deviation to the right."):
        assert present_concepts(text) == ["mediastinal_shift"], text
    assert present_concepts("FINDINGS: The trachea is midline.") == []


def test_markings_increased_at_any_place_of_the_lung_are_interstitial_opacities():
    for text in ("FINDINGS: Increased peripheral lung markings at both bases.",
                 "FINDINGS: Prominent perihilar interstitial markings.",
                 "FINDINGS: Coarse parenchymal lung markings."):
        assert present_concepts(text) == ["interstitial_opacity"], text
    assert present_concepts("FINDINGS: Peripheral lung markings are normal.") == []


def test_a_retained_projectile_is_a_foreign_body():
    for text in ("FINDINGS: A bullet fragment overlies the right axilla.",
                 "FINDINGS: Multiple metallic pellets in the soft tissues of the neck.",
                 "FINDINGS: Retained shrapnel over the left scapula."):
        assert present_concepts(text) == ["foreign_body"], text
    assert counts("FINDINGS: Lungs clear. Retained bullet in the soft tissues of the back.",
                  "FINDINGS: Lungs clear.") == {"b": 1}


def test_post_surgical_changes_named_with_another_procedure_after_a_slash():
    for text in ("FINDINGS: Postoperative/biopsy changes of the left breast.",
                 "FINDINGS: Post-surgical / radiation changes at the right apex.",
                 "FINDINGS: Post-biopsy changes in the right breast."):
        assert present_concepts(text) == ["postsurgical_changes"], text


def test_lymph_nodes_named_after_calcified_granulomas_share_their_calcification():
    ref = "FINDINGS: Scattered calcified granulomas/lymph XXXX in both lungs and hila."
    assert counts(ref, "FINDINGS: Calcified granulomas and calcified hilar lymph nodes on both sides.") == {}
    assert counts(ref, "FINDINGS: Bilateral calcified granulomas.") == {}


def test_an_organ_heading_is_the_subject_of_the_state_after_it():
    for text, concept in (("FINDINGS:\n- Heart: mildly enlarged.\n- Lungs: clear.", "cardiomegaly"),
                          ("FINDINGS:\n**Trachea:** shifted to the left.", "mediastinal_shift"),
                          ("FINDINGS:\n1. Lungs: hyperexpanded, no focal opacity.", "hyperinflation")):
        assert present_concepts(text) == [concept], text
    assert present_concepts("FINDINGS:\n- Heart: normal in size.\n- Trachea: midline.") == []
    assert counts("FINDINGS: The heart is mildly enlarged. Lungs clear.",
                  "FINDINGS:\n- Heart: mildly enlarged.\n- Lungs: clear.") == {}


def test_a_finding_seen_before_and_not_seen_now_has_resolved():
    for text in ("FINDINGS: The previously described left apical nodule is not well seen on the current film.",
                 "FINDINGS: Previously reported nodular density at the left apex, not visualized today."):
        found = [(f.concept, f.present, f.change) for f in parse_report(text) if f.kind == "finding"]
        assert len(found) == 1 and found[0][1:] == (False, "resolved"), text
    # two wordings of it agree, and neither is a nodule seen now
    assert counts("FINDINGS: The previously described left apical nodule is not well seen on the current film.",
                  "FINDINGS: Left apical nodule seen on the earlier study is no longer seen.") == {}
    # a finding not well seen that was not introduced as a previous one is still a (hedged) finding
    assert present_concepts("FINDINGS: Possible thoracic aortic aneurysm, not well seen on this radiograph.") != []


def test_what_an_examination_is_for_is_not_a_finding():
    for text in ("FINDINGS: Portable film for evaluation of pneumothorax. Lungs clear.",
                 "FINDINGS: Two views, for assessment of rib fractures. Heart normal."):
        assert present_concepts(text) == [], text
    assert counts("FINDINGS: Limited study, for evaluation of fractures. Lungs clear.",
                  "FINDINGS: Lungs clear. No fracture is seen.") == {}


def test_a_plaque_in_a_sentence_on_the_aorta_is_aortic_atherosclerosis():
    for text in ("FINDINGS: The descending aorta is ectatic with scattered calcified plaque.",
                 "FINDINGS: Atherosclerotic plaque, thoracic aorta."):
        assert "aortic_atherosclerosis" in present_concepts(text) and "plaque" not in present_concepts(text), text
    assert counts("FINDINGS: Aortic atherosclerosis. Lungs clear.",
                  "FINDINGS: Calcified plaque is present in the thoracic aorta. Lungs clear.") == {}


def test_a_device_whose_tip_is_not_visualized_is_there():
    for text in ("FINDINGS: Nasogastric tube extends into the abdomen, tip not visualized.",
                 "FINDINGS: Left chest port catheter; its tip is not well seen."):
        found = [f for f in parse_report(text) if f.kind == "finding"]
        assert found and all(f.present for f in found), text
    assert counts("FINDINGS: Lungs clear.", "FINDINGS: Lungs clear. Feeding tube below the diaphragm, tip not "
                  "visualized.") == {"a": 1}


def test_linear_atelectasis_is_atelectasis_a_linear_opacity_still_scarring():
    for text in ("FINDINGS: Linear atelectasis in the lingula.", "FINDINGS: Plate-like atelectasis at the right base.",
                 "FINDINGS: Discoid atelectasis, left lower zone."):
        assert present_concepts(text) == ["atelectasis"], text
    assert present_concepts("FINDINGS: Linear opacity in the left apex.") == ["scarring"]
    assert counts("FINDINGS: Minimal left basilar atelectasis.", "FINDINGS: Linear atelectasis at the left base.") == {}


def test_a_limit_after_a_contrast_word_has_its_own_subject():
    text = ("FINDINGS: A dense focus over the left upper quadrant, probably a splenic granuloma, though the abdomen "
            "is not well assessed on a chest radiograph.")
    found = [f for f in parse_report(text) if f.kind == "finding" and f.present]
    assert [f.concept for f in found] and all(f.certainty == "probable" for f in found), found
    # a limit with no subject of its own still covers the finding before it
    assert present_concepts("FINDINGS: Rib fractures cannot be assessed on this study.") == []
    assert present_concepts("FINDINGS: Pneumothorax, which cannot be evaluated on a supine film.") == []


def test_as_previously_noted_does_not_make_another_finding_resolved():
    """"as previously noted/reported" speaks of its own clause: a finding not seen in the next clause is absent,
    with no comparison (before, the rewrite read it as resolved since the prior study)."""
    for text in ("FINDINGS: The heart is enlarged as previously noted and a pneumothorax is not seen.",
                 "FINDINGS: Stable mediastinum, as previously reported, pneumothorax is not identified."):
        found = [(f.concept, f.present, f.change) for f in parse_report(text)
                 if f.kind == "finding" and f.concept == "pneumothorax"]
        assert found == [("pneumothorax", False, None)], (text, found)
    # the positive case is kept: the finding itself introduced as a previous one
    found = [(f.concept, f.present, f.change)
             for f in parse_report("FINDINGS: Previously noted pneumothorax is not seen.") if f.kind == "finding"]
    assert found == [("pneumothorax", False, "resolved")]
