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
