"""The rules judge on reading rules that generalise beyond one set's wordings (issue 32, dev6, round 5).

Each test states one reading rule a radiologist applies, in made-up sentences (not the machine-written set's),
so that it proves the family of wordings, not one item.
"""

from __future__ import annotations

from core.judges.rules import judge_pair, parse_report


def counts(reference: str, candidate: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in judge_pair(reference, candidate).errors:
        out[e.category] = out.get(e.category, 0) + 1
    return out


def _present(text: str) -> list[str]:
    return [f.concept for f in parse_report(text) if f.kind == "finding" and f.present]


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
        assert _present(text) == ["aortic_atherosclerosis"], text
    assert counts("FINDINGS: Aortic XXXX calcifications. Lungs clear.",
                  "FINDINGS: Calcification of the aortic knob. Lungs clear.") == {}


def test_the_skeletons_age_related_wear_in_other_words_is_a_degenerative_change():
    for text in ("FINDINGS: Senescent changes of the skeleton.", "FINDINGS: Osseous senescent changes.",
                 "FINDINGS: Age-related changes of the thoracic spine.",
                 "FINDINGS: Moderate degenerative arthropathy of the left glenohumeral joint."):
        assert _present(text) == ["degenerative_changes"], text
    assert counts("FINDINGS: Skeletal senescent changes. Heart normal.",
                  "FINDINGS: Heart normal. Degenerative changes of the spine.") == {}


def test_a_trachea_said_to_be_deviated_is_a_shift_of_the_mediastinum():
    for text in ("FINDINGS: The trachea is slightly displaced to the left.",
                 "FINDINGS: Deviated trachea, toward the right.", "FINDINGS: Tracheal deviation to the right."):
        assert _present(text) == ["mediastinal_shift"], text
    assert _present("FINDINGS: The trachea is midline.") == []


def test_markings_increased_at_any_place_of_the_lung_are_interstitial_opacities():
    for text in ("FINDINGS: Increased peripheral lung markings at both bases.",
                 "FINDINGS: Prominent perihilar interstitial markings.",
                 "FINDINGS: Coarse parenchymal lung markings."):
        assert _present(text) == ["interstitial_opacity"], text
    assert _present("FINDINGS: Peripheral lung markings are normal.") == []


def test_a_retained_projectile_is_a_foreign_body():
    for text in ("FINDINGS: A bullet fragment overlies the right axilla.",
                 "FINDINGS: Multiple metallic pellets in the soft tissues of the neck.",
                 "FINDINGS: Retained shrapnel over the left scapula."):
        assert _present(text) == ["foreign_body"], text
    assert counts("FINDINGS: Lungs clear. Retained bullet in the soft tissues of the back.",
                  "FINDINGS: Lungs clear.") == {"b": 1}


def test_post_surgical_changes_named_with_another_procedure_after_a_slash():
    for text in ("FINDINGS: Postoperative/biopsy changes of the left breast.",
                 "FINDINGS: Post-surgical / radiation changes at the right apex.",
                 "FINDINGS: Post-biopsy changes in the right breast."):
        assert _present(text) == ["postsurgical_changes"], text


def test_lymph_nodes_named_after_calcified_granulomas_share_their_calcification():
    ref = "FINDINGS: Scattered calcified granulomas/lymph XXXX in both lungs and hila."
    assert counts(ref, "FINDINGS: Calcified granulomas and calcified hilar lymph nodes on both sides.") == {}
    assert counts(ref, "FINDINGS: Bilateral calcified granulomas.") == {}
