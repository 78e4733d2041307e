"""The rules judge on reading rules that generalise beyond one set's wordings (issue 32, dev3 and dev4, round 3).

Each test states one reading rule a radiologist applies, in made-up sentences (not the machine-written set's),
so that it proves the family of wordings, not one item.
"""

from __future__ import annotations

from core.judges.rules import parse_report
from tests.judges.rules_probe import counts, present_concepts


def _changes(text: str) -> dict[str, str | None]:
    return {f.concept: f.change for f in parse_report(text) if f.kind == "finding" and f.present}


def test_a_gap_whose_phrase_places_a_tip_in_a_central_vein_is_a_venous_line():
    for text in ("FINDINGS: A right arm XXXX with its tip at the cavoatrial junction. Lungs clear.",
                 "FINDINGS: There is a right chest XXXX, with the distal tip over the lower SVC.",
                 "FINDINGS: Left subclavian line in good position. Clear lungs.",
                 "FINDINGS: A dialysis port is present, tip in the right atrium."):
        assert "venous_catheter" in present_concepts(text), text
    # the candidate naming the line is not a false finding
    assert counts("FINDINGS: Right chest XXXX with tip projecting in the upper SVC. Heart normal.",
                  "FINDINGS: Right-sided central venous catheter, tip in the upper superior vena cava. Normal heart.") == {}
    # a tip placed elsewhere, or no tip, is no central line
    assert "venous_catheter" not in present_concepts("FINDINGS: Nasogastric tube with tip in the stomach.")
    assert "venous_catheter" not in present_concepts("FINDINGS: Fine pleural line at the right apex.")


def test_a_gap_after_a_calcified_nodal_station_is_nodes():
    assert "calcified_nodes" in present_concepts("FINDINGS: Calcified mediastinal XXXX and a small granuloma.")
    assert counts("FINDINGS: Calcified right hilar XXXX. Clear lungs.",
                  "FINDINGS: Calcified lymph nodes in the right hilum. Lungs are clear.") == {}


def test_interval_placement_of_a_device_is_new():
    assert _changes("FINDINGS: Interval placement of a left PICC line with tip in the SVC.")["venous_catheter"] == "new"


def test_a_comparison_on_the_mediastinum_carries_to_the_finding_it_is_described_with():
    assert _changes("FINDINGS: Unchanged mediastinal silhouette with mild aortic unfolding.")[
        "aortic_tortuosity"] == "unchanged"
    assert counts("FINDINGS: Stable cardiomediastinal contours with an ectatic aorta. No effusion.",
                  "FINDINGS: Ectatic thoracic aorta, unchanged. No effusion.") == {}
    # not past a comma, and not a comparison of the whole chest
    assert _changes("FINDINGS: Stable mediastinal silhouette with normal heart size, calcified hilar nodes.")[
        "calcified_nodes"] is None
    assert _changes("FINDINGS: Stable appearance of the chest with a small hiatal hernia.")["hiatal_hernia"] is None


def test_a_known_condition_read_as_what_a_density_is_is_seen():
    text = "FINDINGS: Left retrocardiac opacity which corresponds to the patient's known hiatus hernia."
    assert present_concepts(text) == ["hiatal_hernia"]
    text = "FINDINGS: Coarse interstitial markings, in keeping with the patient's history of known pulmonary fibrosis."
    assert present_concepts(text) == ["interstitial_lung_disease"]
    # a history sentence on its own is still history
    assert present_concepts("FINDINGS: History of known hiatal hernia. Lungs clear.") == []


def test_a_disease_named_for_a_screening_programme_is_no_finding():
    assert present_concepts("IMPRESSION: Normal chest. The patient may qualify for annual lung cancer screening.") == []
    assert present_concepts("IMPRESSION: Right upper lobe lung cancer. Screening chest radiograph.") == ["malignancy"]


def test_synonym_families_of_descriptive_findings():
    for text in ("FINDINGS: Mild dextrocurvature of the lumbar spine.", "FINDINGS: Slight leftward curvature of the spine.",
                 "FINDINGS: Curvature of the thoracic spine, convex to the right."):
        assert present_concepts(text) == ["scoliosis"], text
    for text in ("FINDINGS: Healed left rib deformities.", "FINDINGS: Old deformity of the left seventh rib."):
        assert present_concepts(text) == ["rib_fracture"], text
    assert "rib_fracture" not in present_concepts("FINDINGS: A congenital rib deformity on the right.")
    assert "cardiomegaly" in present_concepts("FINDINGS: Further increase in the size of the cardiac silhouette since the "
                                      "prior study.")
    assert present_concepts("FINDINGS: The aorta is moderately ectatic and calcified.") == ["aortic_tortuosity",
                                                                                    "aortic_atherosclerosis"]
    assert present_concepts("FINDINGS: Chronic-appearing interstitial marking.") == ["interstitial_opacity"]


def test_chronic_lung_disease_stands_for_copd_or_fibrosis():
    assert counts("FINDINGS: Lungs hyperexpanded. IMPRESSION: Chronic lung disease.",
                  "FINDINGS: Hyperexpanded lungs. IMPRESSION: Chronic obstructive pulmonary disease.") == {}
