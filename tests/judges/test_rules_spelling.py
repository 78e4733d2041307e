"""British and Commonwealth report wording read as the judge's American wording (issue 32, dev5 round).

Made-up sentences (not the machine-written set's): each test proves a family of spellings or abbreviations, with
American controls that must come out unchanged.
"""

from __future__ import annotations

import time

from core.judges.rules import parse_report
from core.judges.rules.spelling import american, known_words, normalise
from tests.judges.rules_probe import counts


def _present(text: str) -> dict[str, str]:
    return {f.concept: f.certainty for f in parse_report(text) if f.kind == "finding" and f.present}


def _absent(text: str) -> list[str]:
    return [f.concept for f in parse_report(text) if f.kind == "finding" and not f.present]


def test_british_digraphs_of_words_the_judge_knows_read_as_american():
    assert american("oedema") == "edema"
    assert american("Oedematous") == "Edematous"
    assert american("HAEMORRHAGE") == "HEMORRHAGE"
    assert american("haemothorax") == "hemothorax"
    assert american("oesophageal") == "esophageal"
    assert american("oesophagitis") == "esophagitis"  # begins as a known word does ("esophagus")
    assert american("anaemia") == "anemia"
    assert american("paediatric") == "pediatric"
    assert american("foetal") == "fetal"
    assert american("orthopaedic") == "orthopedic"
    # the set is the judge's own words: every pattern word with an "e" has its British reading covered
    assert {"edema", "hemorrhage", "orthopedic"} <= known_words()


def test_our_tre_ise_and_grey_endings():
    assert american("tumours") == "tumors"
    assert american("calibre") == "caliber"
    assert american("centred") == "centered"
    assert american("fibres") == "fibers"
    assert american("visualised") == "visualized"
    assert american("characterised") == "characterized"
    assert american("localisation") == "localization"
    assert american("grey") == "gray"


def test_british_looking_words_that_are_not_british_spellings_stay():
    text = ("Does the toe hurt? Aerated lungs; four hours of poetry, shoes and canoes. The contour is smooth; "
            "the disease is revised, otherwise compromised. Treatment of the street, tour, your hour, size, raise.")
    assert normalise(text) == text


def test_american_report_is_unchanged():
    text = ("FINDINGS: The heart is normal in size. Pulmonary vasculature is of normal caliber. No focal "
            "consolidation, pleural effusion or pneumothorax. Mild edema is not seen. Degenerative changes of the "
            "thoracic spine. Granuloma in the left lower lung zone. Visualized osseous structures are intact.\n\n"
            "IMPRESSION: No acute cardiopulmonary disease. Is there a change? No.")
    assert normalise(text) == text


def test_british_report_reads_as_its_american_paraphrase():
    british = ("FINDINGS: Mild interstitial oedema with haziness at both bases. Small right haemothorax. "
               "Vessels of normal calibre. IMPRESSION: Interstitial oedema.")
    american_text = ("FINDINGS: Mild interstitial edema with haziness at both bases. Small right hemothorax. "
                     "Vessels of normal caliber. IMPRESSION: Interstitial edema.")
    assert _present(british) == _present(american_text)
    assert "pulmonary_edema" in _present(british)
    assert counts(american_text, british) == {}
    # a negated British finding is negated as the American one is
    assert _absent("FINDINGS: No consolidation, oedema or effusion.") == \
        _absent("FINDINGS: No consolidation, edema or effusion.")
    assert "any_edema" in _absent("FINDINGS: No consolidation, oedema or effusion.")


def test_a_question_mark_before_a_finding_is_a_hedge():
    text = "FINDINGS: Blunted left costophrenic angle, ? small effusion. IMPRESSION: ?Pneumonia right base."
    assert normalise(text).count("possible ") == 2
    found = _present(text)
    assert found.get("pneumonia", found.get("consolidation")) not in (None, "definite")
    # a question that ends a sentence is not a hedge of the next one
    assert "possible" not in normalise("Is the effusion larger? Pneumothorax absent.")


def test_costophrenic_angle_and_cardiothoracic_ratio_abbreviations():
    assert "costophrenic angles" in normalise("CP angles are sharp.")
    assert "pleural_effusion" in _present("FINDINGS: Blunting of the right CP angle.")
    # a ratio stated alone says what the heart is
    assert "cardiomegaly" in _present("FINDINGS: CTR 0.61. Lungs clear.")
    assert "cardiomegaly" in _present("FINDINGS: CTR > 0.5. Lungs clear.")
    assert "cardiomegaly" in _absent("FINDINGS: CTR < 0.5. Lungs clear.")
    # beside the heart's own statement it measures that finding: no second finding, no contradiction
    assert counts("FINDINGS: The heart is enlarged.", "FINDINGS: The heart is enlarged (CTR 0.58).") == {}
    assert counts("FINDINGS: Normal heart size.", "FINDINGS: Heart size within normal limits (CTR < 0.5).") == {}


def test_zone_lobe_and_basal_abbreviations():
    assert normalise("Nodule in the LUZ.") == "Nodule in the left upper lung."
    assert normalise("Opacity RLZ.") == "Opacity right base."
    assert normalise("RML collapse.") == "right middle lobe collapse."
    assert normalise("Patchy left basal opacity; bibasal atelectasis.") == \
        "Patchy left basilar opacity; bibasilar atelectasis."
    assert normalise("Calcified basal ganglia.") == "Calcified basal ganglia."
    assert counts("FINDINGS: Right basilar atelectasis.", "FINDINGS: Atelectasis in the right lower zone.") == {}


def test_tubes_and_drains_by_their_uk_names():
    assert "chest_tube" in _present("FINDINGS: Right intercostal drain in situ, no residual pneumothorax.")
    assert "chest_tube" in _present("FINDINGS: Left ICC with tip at the apex.")
    # "ICD" is a chest drain beside words of a drain, a defibrillator beside leads, a generator or a chest-wall pocket,
    # and a defibrillator too where only a pneumothorax, an effusion or the apex is said (American reports)
    assert "chest_tube" in _present("FINDINGS: Right ICD on underwater seal, small residual apical pneumothorax.")
    assert "cardiac_device" in _present("FINDINGS: Left chest wall ICD, lead tip in the right ventricle.")
    assert "cardiac_device" in _present("FINDINGS: ICD in situ.")
    assert "cardiac_device" in _present("FINDINGS: Left chest wall ICD in place without pneumothorax.")
    assert "chest_tube" not in _present("FINDINGS: Right ICD in place, small residual apical pneumothorax.")
    assert "venous_catheter" in _present("FINDINGS: Right CVC, tip at the cavoatrial junction.")


def test_normalisation_is_fast():
    text = ("FINDINGS: Mild interstitial oedema, ? early infection in the RLZ. CP angles clear. CTR 0.48. "
            "Heart normal. Visualised bones intact. No haemothorax.\n\nIMPRESSION: Oedema. ") * 3
    american("warm")  # the word list is built once
    start = time.perf_counter()
    for i in range(2000):
        normalise(text + str(i))
    per_report = (time.perf_counter() - start) / 2000
    assert per_report < 0.0005, per_report  # well under the judge's own per-pair time (about 1-3 ms)
