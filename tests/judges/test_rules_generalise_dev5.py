"""The rules judge on reading rules that generalise beyond one set's wordings (issue 32, dev5, round 4).

Each test states one reading rule a radiologist applies, in made-up sentences (not the machine-written set's),
so that it proves the family of wordings, not one item.
"""

from __future__ import annotations

from core.judges.rules import parse_report
from tests.judges.rules_probe import counts, present_concepts


def test_a_heart_at_the_upper_limit_of_normal_is_a_normal_statement_unless_matched():
    normal = "FINDINGS: Normal heart size. Lungs clear. Mild spondylosis of the thoracic spine."
    for limit in ("FINDINGS: Heart size near the upper limits of normal. Lungs clear. Mild thoracic spondylosis.",
                  "FINDINGS: The heart is at the upper end of normal in size. Clear lungs. Mild thoracic spondylosis.",
                  "FINDINGS: Cardiac silhouette high-normal in size. Lungs clear. Mild spondylosis, thoracic spine.",
                  "FINDINGS: The cardiac silhouette is borderline in size but within normal limits. Clear lungs. "
                  "Mild thoracic spondylosis."):
        assert counts(normal, limit) == {}, limit  # not invented
        assert counts(limit, normal) == {}, limit  # not omitted
    # it still matches a borderline heart, and a real enlargement against it is still an error
    assert counts("FINDINGS: Borderline cardiomegaly. Lungs clear.",
                  "FINDINGS: Heart size at the upper limit of normal. Lungs clear.") == {}
    assert counts("FINDINGS: Heart size at the upper limit of normal. Lungs clear.",
                  "FINDINGS: Moderate cardiomegaly. Lungs clear.") == {"d": 1}
    # a borderline heart stated alone is a finding: omitting it is an error
    assert counts("FINDINGS: The heart is borderline enlarged. Lungs clear.", "FINDINGS: Lungs clear.") == {"b": 1}
    assert counts("FINDINGS: Lungs clear.", "FINDINGS: Mild cardiomegaly. Lungs clear.") == {"a": 1}


def test_findings_under_a_heading_of_another_body_part_belong_to_another_study():
    text = ("FINDINGS: Chest: Normal heart. No effusion. Old right rib fracture. "
            "Left hip: Severe joint space narrowing with a small joint effusion. Pelvis: Degenerative changes. "
            "IMPRESSION: Chest: No acute disease. Left ankle: Displaced fracture of the distal fibula.")
    assert present_concepts(text) == ["rib_fracture"]
    assert counts(text, "FINDINGS: Heart normal, no pleural effusion. Healed right rib fracture.") == {}
    # a chest heading after it goes back to the chest
    assert "pleural_effusion" in present_concepts("FINDINGS: Right knee: Osteoarthritis. Chest: Small left pleural effusion.")
    # a body part named in a sentence, not as a heading, is still read; the shoulders are on a chest film
    assert present_concepts("FINDINGS: Healed fracture of the left hip is partly seen. Lungs clear.") != []
    assert present_concepts("FINDINGS: Lungs clear. Right shoulder: Degenerative changes of the acromioclavicular joint.")


def _changes(text: str) -> dict[str, str | None]:
    return {f.concept: f.change for f in parse_report(text) if f.kind == "finding" and f.present}


def test_a_comparison_between_the_two_sides_is_no_comparison_with_a_prior_study():
    for text in ("FINDINGS: Streaky basal opacities in both lungs, more extensive on the right than on the left.",
                 "FINDINGS: Bilateral pleural effusions, larger on the left than the right.",
                 "FINDINGS: Bilateral lower zone consolidation, worse on the left."):
        assert set(_changes(text).values()) == {None}, text
    assert counts("FINDINGS: Bilateral pleural effusions, right greater than left.",
                  "FINDINGS: Pleural effusions on both sides, larger on the right than on the left.") == {}
    # a change over time is still one, with or without a side
    assert _changes("FINDINGS: Left pleural effusion, larger than on the prior film.")["pleural_effusion"] == "increased"
    assert _changes("FINDINGS: Left pleural effusion, increased on the left since the last study.")[
        "pleural_effusion"] == "increased"
    assert set(_changes("FINDINGS: Stable calcified granuloma in the left base.").values()) == {"unchanged"}


def test_what_a_normal_statement_says_does_not_pass_its_exception():
    text = "FINDINGS: The lungs are clear bilaterally apart from a little plate atelectasis in the left lower zone."
    assert [(f.concept, f.side) for f in parse_report(text) if f.kind == "finding" and f.present] == [
        ("atelectasis", "left")]
    assert counts("FINDINGS: Plate atelectasis at the left base. Otherwise clear lungs.",
                  "FINDINGS: Both lungs are clear except for plate atelectasis at the left base.") == {}


def test_vascular_calcification_placed_in_the_aorta_is_aortic_atherosclerosis():
    for text in ("FINDINGS: Vascular calcification aorta. Lungs clear.",
                 "FINDINGS: Calcifications are seen in the wall of the descending aorta.",
                 "FINDINGS: Mural calcification within the thoracic aorta.", "FINDINGS: Aortic wall calcifications."):
        assert present_concepts(text) == ["aortic_atherosclerosis"], text
    assert counts("FINDINGS: Vascular calcifications of the aorta. No effusion.",
                  "FINDINGS: Atherosclerotic calcification of the aortic knob. No effusion.") == {}
    # a vascular calcification elsewhere stays what it was
    assert present_concepts("FINDINGS: Vascular calcifications in the axilla.") == ["benign_calcifications"]


def test_a_rib_deformity_is_read_as_an_old_fracture():
    for text in ("FINDINGS: Left 5th and 6th rib deformities.", "FINDINGS: Deformity of the posterior right ninth rib.",
                 "FINDINGS: Old-appearing deformities of the left fourth and fifth ribs."):
        assert present_concepts(text) == ["rib_fracture"], text
    assert counts("FINDINGS: Deformities of the left sixth and seventh ribs. Lungs clear.",
                  "FINDINGS: Healed fractures of the left 6th and 7th ribs. Clear lungs.") == {}


def test_dish_and_its_signs_are_one_spinal_finding():
    for text in ("FINDINGS: Diffuse idiopathic skeletal hyperostosis of the thoracic spine.",
                 "FINDINGS: Flowing osteophytes along the anterior thoracic spine, compatible with DISH.",
                 "FINDINGS: Ossification of the anterior longitudinal ligament in keeping with DISH."):
        assert present_concepts(text) == ["degenerative_changes"], text
    assert counts("FINDINGS: DISH. Lungs clear.", "FINDINGS: Flowing anterior osteophytes of the thoracic spine. "
                  "Lungs clear.") == {}
    # bridging osteophytes of spondylosis are not DISH, and the word "dish" in lower case is no finding
    assert present_concepts("FINDINGS: Thoracic spondylosis with bridging osteophytes.") == ["degenerative_changes"]


def test_a_rib_deformity_said_to_be_congenital_or_surgical_is_no_fracture():
    for text in ("FINDINGS: Congenital rib deformity on the left.", "FINDINGS: Surgical deformity of the right fifth rib."):
        assert "rib_fracture" not in present_concepts(text), text


def test_the_signs_of_hyperinflation_are_findings_of_their_own():
    text = "FINDINGS: Overexpanded lungs, flattening of both hemidiaphragms and a widened retrosternal clear space."
    assert sorted(present_concepts(text)) == ["diaphragm_flattening", "hyperinflation", "increased_ap_diameter"]
    assert present_concepts("FINDINGS: The retrosternal air space is enlarged.") == ["increased_ap_diameter"]


def test_named_variants_and_contours_are_findings_not_an_enlarged_heart():
    assert present_concepts("FINDINGS: Right-sided aortic arch. Lungs clear.") == ["right_aortic_arch"]
    assert present_concepts("FINDINGS: Heart size normal, with a prominent left ventricular border.") == [
        "ventricular_prominence"]
    assert "cardiomegaly" not in present_concepts("FINDINGS: Normal heart size is prominent left ventricular contour.")
    assert present_concepts("FINDINGS: Large epicardial fat pads at both cardiophrenic angles.") == ["epicardial_fat"]
    assert counts("FINDINGS: The right ventricular contour is prominent. Lungs clear.",
                  "FINDINGS: Prominence of the right ventricle. Clear lungs.") == {}


def test_breast_implants_and_a_single_screw_are_material():
    for text in ("FINDINGS: Bilateral silicone breast implants.", "FINDINGS: Implants overlying both breasts.",
                 "FINDINGS: Saline prostheses are seen."):
        assert present_concepts(text) == ["breast_implants"], text
    assert present_concepts("FINDINGS: A screw in the left humeral head.") == ["orthopedic_fixation"]


def test_two_kinds_of_material_on_two_sides_are_two_operations():
    ref = "FINDINGS: A fixation screw in the left shoulder. IMPRESSION: Surgical clips at the right neck base."
    assert sorted(present_concepts(ref)) == ["orthopedic_fixation", "surgical_clips"]
    assert counts(ref, "FINDINGS: Clips in the right lower neck. Left shoulder screw.") == {}


def test_a_comparison_claimed_for_a_heart_at_the_upper_limit_of_normal_is_still_a_comparison():
    assert counts("FINDINGS: Normal heart. Lungs clear.",
                  "FINDINGS: Heart size at the upper limit of normal, unchanged. Lungs clear.") == {"e": 1}
