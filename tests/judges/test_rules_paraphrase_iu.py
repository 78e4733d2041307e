"""Benign paraphrase of real IU reports, second probe: the abnormal reports with the most findings.

A seeded draw of real IU reports (read at run time as bench/iu_edits.py does: the IU text is not committed),
outside the machine-written set's references and outside the first probe in test_rules_paraphrase.py, each with
a candidate written for it in a report generator's style (verbose normal statements, reordering, synonyms,
sections merged) that states exactly the reference's findings, hedges and comparisons: every pair must be
judged with zero errors.  Beside it, made-up sentences for each rule the probe led to.
"""

from __future__ import annotations

from core.judges.rules import judge_pair, parse_report


def present(text: str) -> dict[str, object]:
    return {f.concept: f for f in parse_report(text) if f.kind == "finding" and f.present}


def change(text: str, concept: str) -> str | None:
    return present(text)[concept].change


def test_comparison_words_of_real_reports():
    # "there is again", "again visualized", "has developed", "developing", "continued" compare with a prior study
    assert change("There is again mild elevation of the right hemidiaphragm.", "hemidiaphragm_elevation") == \
        "unchanged"
    assert change("Again visualized is a compression fracture of T12.", "compression_fracture") == "unchanged"
    assert change("A patchy infiltrate has developed in the right lower lobe.", "consolidation") == "new"
    assert change("Developing left upper lobe consolidation.", "consolidation") == "new"
    assert change("There is continued interstitial prominence bilaterally.", "interstitial_opacity") == "unchanged"
    # "is again enlarged" stays a description, as the IU benchmark's generator reads it
    assert change("The heart is again enlarged.", "cardiomegaly") is None
    # an explicit comparison in the sentence wins over a weaker word
    assert change("A patchy infiltrate has developed in the right lower lobe, increased compared with the prior "
                  "study.", "consolidation") == "increased"


def test_increased_before_its_noun_describes():
    assert change("Cardiomegaly with increased interstitial opacities suggesting edema.", "any_edema") is None
    assert change("The lungs are hyperinflated with increased retrosternal airspace.", "hyperinflation") is None
    # after its finding, or with a word for the past, it still compares
    assert change("Left pleural effusion, increased.", "pleural_effusion") == "increased"
    assert change("The left pleural effusion has increased moderately.", "pleural_effusion") == "increased"
    assert change("Compared with the prior study, there is increased airspace disease in the right base.",
                  "consolidation") == "increased"
    res = judge_pair("Cardiomegaly with increased interstitial opacities suggesting mild edema.",
                     "The heart is enlarged. Increased interstitial opacities, suggestive of mild edema.")
    assert res.errors == []


def test_wordings_of_real_reports():
    assert set(present("There is aortic atherosclerotic vascular calcification.")) == {"aortic_atherosclerosis"}
    assert set(present("Heart size at the upper limits of normal.")) == {"cardiomegaly"}
    assert set(present("Heart size top normal.")) == {"cardiomegaly"}
    assert "diaphragm_flattening" in present("The lungs are hyperinflated and the diaphragms flattened.")
    assert "bronchovascular_crowding" in present("Low volumes with crowding of the central bronchovascular markings.")
    assert set(present("Multiple small calcified bilateral hilar nodules.")) == {"granuloma"}
    assert set(present("Right-sided chest XXXX catheter tip is at the lower SVC.")) == {"venous_catheter"}
    assert set(present("Left chest cardiac XXXX generator with 2 distal leads in the right atrium.")) == {
        "cardiac_device"}
    assert "interstitial_lung_disease" in present("The differential could include edema or interstitial disease.")
    assert set(present("Atherosclerotic and degenerative changes of the thoracic aorta.")) == {"aortic_atherosclerosis"}
    # what the new wordings must not take
    assert "degenerative_changes" in present("Degenerative changes of the thoracic spine.")
    assert present("The heart size is normal.") == {}
    assert "lung_nodule" in present("Noncalcified pulmonary nodules in the right upper lobe.")
    assert "venous_catheter" not in present("The nasogastric tube tip is in the stomach.")
    # a global comparison over "the appearance of the chest" is not the finding's; "progression of" compares
    assert change("Unchanged appearance of the chest with a small left pleural effusion.", "pleural_effusion") is None
    assert change("Masslike opacity suggesting progression of malignancy.", "malignancy") == "increased"
