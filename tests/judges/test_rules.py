"""Tests for the rule-based judge (core.judges.rules).

Hand-written report pairs, one per error category and per kind of paraphrase
the rules must see through (negation forms, synonyms, units, impression
repeats), written in free text rather than in the demo generator's templates;
the GREEN-format output read back by the standard parser; robustness on odd
input; and one corpus-level check against the demo corpus's expert counts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau

from core.judges import rules
from core.judges.rules import RULES_VERSION, judge_pair, render_green, score_pair, spec_for
from core.parse import parse_output

CATS = "abcdef"


def errors_of(res, cat=None):
    return [e for e in res.errors if cat is None or e.category == cat]


def only(res, cat):
    """The single error of the pair, which must be of category ``cat``."""
    assert len(res.errors) == 1, [(e.category, e.explanation) for e in res.errors]
    err = res.errors[0]
    assert err.category == cat, err.explanation
    return err


# --------------------------------------------------------------------------- #
# one error category at a time                                                 #
# --------------------------------------------------------------------------- #


def test_laterality_swap_is_significant_c_naming_both_sides():
    res = judge_pair("FINDINGS: Moderate left pleural effusion. No pneumothorax.",
                     "FINDINGS: Moderate right pleural effusion. No pneumothorax.")
    err = only(res, "c")
    assert err.significant
    assert "right" in err.explanation and "left" in err.explanation
    assert "pleural effusion" in err.explanation
    assert err.explanation.index("right") < err.explanation.index("left")  # candidate's side first


def test_site_change_is_c():
    res = judge_pair("An 8 mm nodule in the right upper lobe.", "An 8 mm nodule in the left lower lobe.")
    err = only(res, "c")
    assert err.significant  # an 8 mm nodule matters (Fleischner: >= 6 mm)
    assert "left lower lobe" in err.explanation and "right upper lobe" in err.explanation


def test_laterality_swap_of_a_minor_finding_is_insignificant():
    err = only(judge_pair("Mild left basilar atelectasis.", "Mild right basilar atelectasis."), "c")
    assert not err.significant


def test_omission_is_b():
    res = judge_pair("Small right pneumothorax. Mild cardiomegaly.", "Mild cardiomegaly.")
    err = only(res, "b")
    assert err.significant and "pneumothorax" in err.explanation
    assert res.matched == 1


def test_omission_of_a_minor_finding_is_insignificant_b():
    err = only(judge_pair("Mild bibasilar atelectasis. No pneumothorax.", "No pneumothorax."), "b")
    assert not err.significant


def test_candidate_denying_a_reference_finding_is_b():
    err = only(judge_pair("Small left pneumothorax.", "No pneumothorax is identified."), "b")
    assert err.significant and "no pneumothorax" in err.explanation


def test_invented_finding_is_a():
    res = judge_pair("No pleural effusion. No pneumothorax.", "No pleural effusion. Large right pneumothorax.")
    err = only(res, "a")
    assert err.significant
    assert "pneumothorax" in err.explanation and "absent" in err.explanation  # the reference denied it
    assert res.matched == 1  # no pleural effusion, in both


def test_invented_incidental_finding_is_insignificant_a():
    err = only(judge_pair("The lungs are clear.", "The lungs are clear. Small hiatal hernia."), "a")
    assert not err.significant


def test_severity_change_is_d():
    err = only(judge_pair("Small left pleural effusion.", "Large left pleural effusion."), "d")
    assert err.significant  # crosses the moderate threshold and spans two steps
    assert "large" in err.explanation and "small" in err.explanation


def test_one_step_severity_change_below_threshold_is_insignificant():
    err = only(judge_pair("Mild degenerative disc disease at L4-L5.", "Moderate degenerative disc disease at L4-L5."),
               "d")
    assert not err.significant


def test_size_change_is_d_and_units_are_converted():
    err = only(judge_pair("A 9 mm nodule in the right upper lobe.", "A 1.8 cm nodule in the right upper lobe."), "d")
    assert err.significant and "18 mm" in err.explanation and "9 mm" in err.explanation
    # the same size in other units is not an error
    assert judge_pair("A 0.9 cm nodule in the right upper lobe.", "9 mm right upper lobe nodule.").errors == []
    # a small change of a small nodule is a minor error
    assert not only(judge_pair("4 mm nodule in the lingula.", "5 mm nodule in the lingula."), "d").significant


def test_invented_comparison_is_e():
    err = only(judge_pair("Moderate left pleural effusion.",
                          "Moderate left pleural effusion, increased since the prior study."), "e")
    assert err.significant and "increased" in err.explanation
    # an invented "stable" is a minor error
    assert not only(judge_pair("Moderate left pleural effusion.", "Stable moderate left pleural effusion."),
                    "e").significant


def test_dropped_comparison_is_f():
    err = only(judge_pair("Moderate left pleural effusion, increased compared with the prior exam of 3/4/2021.",
                          "Moderate left pleural effusion."), "f")
    assert err.significant and "increased" in err.explanation


def test_comparison_paraphrases_match():
    assert judge_pair("Right lower lobe consolidation, new since the prior study.",
                      "New right lower lobe pneumonia.").errors == []
    assert judge_pair("Mild cardiomegaly, stable compared with the prior radiograph.",
                      "Mild cardiomegaly, not significantly changed since the previous examination.").errors == []
    assert judge_pair("Small left effusion, larger than on the previous study dated 2020-01-02.",
                      "Small left pleural effusion, which has increased in the interval.").errors == []


# --------------------------------------------------------------------------- #
# paraphrases that are not errors                                              #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("negated", [
    "Pneumothorax is not seen.", "There is no pneumothorax.", "No evidence of pneumothorax.",
    "Negative for pneumothorax.", "Pneumothorax is not identified.", "The lungs are clear without pneumothorax.",
    "No pleural effusion or pneumothorax.", "Pleural effusion or pneumothorax is not seen.",
])
def test_negation_forms_match_without_error(negated):
    res = judge_pair("No pneumothorax.", negated)
    assert res.errors == []
    assert res.matched >= 1
    assert any(m.kind == "negative" and m.reference.concept == "pneumothorax" for m in res.matches)


def test_negation_does_not_leak_past_but_or_into_other_sentences():
    res = judge_pair("No pleural effusion, but there is a small right pneumothorax.",
                     "Small right pneumothorax. No pleural effusion.")
    assert res.errors == []
    res = judge_pair("No pneumothorax. Small left pleural effusion.", "No pneumothorax.")
    assert only(res, "b")


@pytest.mark.parametrize(("ref", "cand"), [
    ("Small amount of fluid in the left pleural space.", "Small left pleural effusion."),
    ("Airspace opacity in the right lower lobe.", "Right lower lobe consolidation."),
    ("Mild cardiomegaly.", "The heart is mildly enlarged."),
    ("Mild enlargement of the cardiac silhouette.", "Mild cardiomegaly."),
    ("Moderate left hydronephrosis.", "Moderate pelviectasis on the left."),
    ("The heart size is normal.", "Normal heart size."),
    ("Cholelithiasis.", "Gallstones are present."),
    # chest X-ray wordings from real reports (rules-4)
    ("Bibasilar atelectasis.", "Bibasilar volume loss."),
    ("Right upper lobe airspace opacity.", "Right upper lobe airspace opacification."),
    ("Lungs are hyperinflated.", "The lungs are hyperexpanded."),
    ("Vague nodular density in the right mid lung.", "Nodule in the right mid lung."),
])
def test_synonyms_match_without_error(ref, cand):
    res = judge_pair(ref, cand)
    assert res.errors == [], [e.explanation for e in res.errors]
    assert res.matched == 1


def test_chest_and_brain_words_stay_apart():
    """Bare "volume loss" is the lung's (atelectasis); cerebral volume loss is qualified. Low lung volumes are
    not hyperinflation (they are its opposite)."""
    concepts = {f.concept for f in rules.parse_report("FINDINGS: Left basilar volume loss. Low lung volumes.")}
    assert concepts == {"atelectasis", "low_lung_volumes"}
    concepts = {f.concept for f in rules.parse_report("FINDINGS: Mild generalized volume loss. Hyperinflated lungs.")}
    assert concepts == {"volume_loss", "hyperinflation"}
    assert errors_of(judge_pair("Low lung volumes.", "Hyperinflated lungs."), "b")  # a real disagreement


@pytest.mark.parametrize(("ref", "cand", "where"), [
    ("Right IJ central venous catheter with tip in the SVC.",
     "Right IJ central venous catheter with tip in the right atrium.", "right atrium"),
    ("Endotracheal tube 5 cm above the carina.", "Endotracheal tube in the right mainstem bronchus.",
     "right mainstem bronchus"),
])
def test_a_line_or_tube_ending_elsewhere_is_a_significant_location_error(ref, cand, where):
    res = judge_pair(ref, cand)
    assert [(e.category, e.significant) for e in res.errors] == [("c", True)], res.errors
    assert f"with its tip at the {where}" in res.errors[0].explanation
    # the tip's "right atrium" gives a left-sided line no side of its own; the same tip in other words matches
    same = judge_pair("Left PICC with tip in the SVC.", "Left PICC line, tip in the superior vena cava.")
    assert same.errors == [] and same.matched == 1


def test_identical_reports_have_no_errors_and_everything_matched():
    report = ("EXAMINATION: Chest radiograph.\nCOMPARISON: 01/02/2020.\n\nFINDINGS:\n"
              "Moderate right pleural effusion, increased since the prior study. No pneumothorax. "
              "The heart size is normal. A 7 mm nodule in the left upper lobe. Degenerative changes of the spine.\n\n"
              "IMPRESSION:\n1. Moderate right pleural effusion, increased.\n2. 7 mm left upper lobe nodule.")
    res = judge_pair(report, report)
    assert res.errors == []
    assert len(res.reference_findings) == 5  # impression repeats merged into the findings
    assert res.matched == len(res.reference_findings) == len(res.candidate_findings)
    parsed = parse_output(render_green(res))
    assert parsed.status == "ok" and parsed.metrics["green"] == 1.0 and parsed.metrics["ec_total"] == 0


def test_impression_repeat_is_not_a_second_finding():
    ref = "FINDINGS: Large left pneumothorax.\n\nIMPRESSION: Large left pneumothorax."
    assert len(judge_pair(ref, "").errors) == 1
    # the impression may omit attributes the findings gave
    assert judge_pair(ref, "IMPRESSION: Large pneumothorax on the left.").errors == []


def test_list_negation_gives_one_absent_finding_each():
    found = rules.parse_report("No pleural effusion, pneumothorax, or focal consolidation.")
    assert sorted(f.concept for f in found) == ["consolidation", "pleural_effusion", "pneumothorax"]
    assert not any(f.present for f in found)


def test_skipped_sections_and_hedges():
    found = rules.parse_report("INDICATION: Rule out pneumothorax.\nFINDINGS: Possible right lower lobe pneumonia.")
    assert [f.concept for f in found] == ["consolidation"]
    assert found[0].certainty == "possible" and found[0].present
    assert found[0].site_map == {"lung lobe": ("right lower lobe",)}


def test_extra_normal_statement_in_candidate_is_not_an_error():
    res = judge_pair("Small left pleural effusion.", "Small left pleural effusion. No pneumothorax. "
                     "The heart size is normal. No acute osseous abnormality.")
    assert res.errors == []


@pytest.mark.parametrize(("ref", "cand", "expected"), [
    # free-text reports in the style of real ones, not of the demo generator
    ("FINDINGS: Heart size is mildly enlarged. Small bilateral pleural effusions with adjacent atelectasis. "
     "No pneumothorax.\nIMPRESSION: Mild cardiomegaly with small bilateral effusions.",
     "Mild cardiomegaly. Small pleural effusions bilaterally. Bibasilar atelectasis. No pneumothorax.", []),
    ("Single frontal view of the chest. Left PICC terminates in the distal SVC. Lungs are well expanded and clear. "
     "No effusion or pneumothorax. Cardiomediastinal silhouette is normal.",
     "AP portable chest. Left-sided PICC line in the SVC. The lungs are clear. No pleural effusion. "
     "No pneumothorax. Normal cardiomediastinal silhouette.", []),
    ("There is a 1.2 cm acute right parietal intraparenchymal hemorrhage with surrounding vasogenic edema. "
     "No midline shift. Ventricles are normal in size.",
     "Acute hemorrhage in the left parietal lobe measuring 12 mm with mild surrounding edema. "
     "There is 3 mm of leftward midline shift.", [("a", True), ("c", True)]),
    ("Interval increase in size of the left lower lobe mass, now measuring 4.5 cm, previously 3.2 cm.",
     "Left lower lobe mass measuring 4.5 cm.", [("f", True)]),
    ("CT abdomen: Acute appendicitis without perforation or abscess. No free air.",
     "Acute appendicitis with perforation. No free air.", [("a", True)]),
    ("Severe L4-L5 spinal canal stenosis. Mild canal stenosis at L3-4.",
     "Mild spinal canal stenosis at L4-5. Severe canal stenosis at L3-L4.", [("d", True), ("d", True)]),
])
def test_real_style_reports(ref, cand, expected):
    res = judge_pair(ref, cand)
    assert sorted((e.category, e.significant) for e in res.errors) == sorted(expected), \
        [e.explanation for e in res.errors]


# --------------------------------------------------------------------------- #
# output format, API, determinism, robustness                                  #
# --------------------------------------------------------------------------- #

PAIRS = [
    ("Moderate left pleural effusion. No pneumothorax.", "Moderate right pleural effusion; no pneumothorax."),
    ("Small right pneumothorax. Mild cardiomegaly, unchanged.", "Mild cardiomegaly. Large hiatal hernia."),
    ("", "Small left effusion."),
    ("No acute abnormality.", "No acute abnormality."),
    ("A 2.1 x 1.4 cm spiculated mass in the right upper lobe (series 3, image 45) [new]; see note.",
     "A 3 cm spiculated mass in the left upper lobe; (c) not seen: 4."),
]


@pytest.mark.parametrize(("ref", "cand"), PAIRS)
def test_output_parses_ok_with_the_same_counts(ref, cand):
    res = judge_pair(ref, cand)
    parsed = parse_output(render_green(res))
    assert parsed.status == "ok", parsed.reason
    assert parsed.sig == res.sig and parsed.insig == res.insig
    assert parsed.matched == res.matched
    assert parsed.metrics["ec_sig"] == res.ec_sig
    assert len(parsed.errors) == len(res.errors)


# -- one observation stated twice (issue 32, rules-11) ---------------------------------------------------------


def _positives(report: str) -> list:
    return [f for f in rules.parse_report(report) if f.kind == "finding" and f.present]


def _categories(reference: str, candidate: str) -> list[str]:
    return sorted(e.category for e in judge_pair(reference, candidate).errors)


def test_an_observation_restated_with_the_readings_offered_for_it_is_one_finding():
    restated = ("FINDINGS: Hazy airspace opacity in the right upper lung zone. Heart size normal.\n\n"
                "IMPRESSION: Right upper lung opacity, which could reflect atelectasis or early pneumonia.")
    assert len(_positives(restated)) == 1
    assert _categories(restated, "FINDINGS: Heart size normal.\n\nIMPRESSION: No acute disease.") == ["b"]
    # "airspace disease" is a density awaiting its reading too
    patchy = ("FINDINGS: Mild patchy airspace disease in the left lower lobe.\n\nIMPRESSION: Patchy left lower lobe "
              "airspace disease, possibly due to atelectasis or infiltrate.")
    assert len(_positives(patchy)) == 1
    # at the other side, or with no place to tie them, they stay two observations
    assert len(_positives("FINDINGS: Right base airspace disease.\n\nIMPRESSION: Left basilar opacity, which "
                          "may represent atelectasis or pneumonia.")) == 2
    assert len(_positives("FINDINGS: Right base opacity, likely scarring.\n\nIMPRESSION: Atelectasis.")) == 2


def test_a_restatement_at_the_other_side_is_a_location_error_and_keeps_its_comparison():
    reference = ("FINDINGS: Slightly increased airspace opacity at the right lung base, which may be atelectasis or "
                 "infiltrate.\n\nIMPRESSION: Airspace disease at the right lung base.")
    candidate = reference.replace("Airspace disease at the right", "Airspace disease at the left")
    assert _categories(reference, candidate) == ["c"]
    reference = ("FINDINGS: Since the previous film, the streaky airspace disease at the left base has increased."
                 "\n\nIMPRESSION: Increased left basilar airspace disease, atelectasis versus pneumonia.")
    candidate = reference.replace("airspace disease at the left base", "airspace disease at the right base")
    assert _categories(reference, candidate) == ["c"]


def test_score_pair_and_spec():
    rec = score_pair(*PAIRS[0])
    assert rec.metrics is None and rec.error is None
    assert rec.raw_text == render_green(judge_pair(*PAIRS[0]))
    spec = spec_for("demo")
    assert (spec.judge_kind, spec.judge_name, spec.dataset) == ("rules", "rules", "demo")
    assert spec.params == {"version": RULES_VERSION}


def test_deterministic():
    first = [render_green(judge_pair(r, c)) for r, c in PAIRS]
    rules.parse_report.cache_clear()
    assert [render_green(judge_pair(r, c)) for r, c in PAIRS] == first
    assert judge_pair(*PAIRS[1]).to_dict() == judge_pair(*PAIRS[1]).to_dict()


def test_deterministic_across_processes():
    """Same text under different hash seeds (no set or dict ordering leaks into the output)."""
    code = ("import json, sys; from tests.judges.test_rules import PAIRS; from core.judges.rules import judge_pair, "
            "render_green; print(json.dumps([render_green(judge_pair(r, c)) for r, c in PAIRS]))")
    outs = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                             cwd=str(Path(__file__).resolve().parents[2]))
        assert run.returncode == 0, run.stderr
        outs.add(run.stdout)
    assert len(outs) == 1


ODD = [
    "", " ", "\n\t \r\n", "." * 10, "x" * 50_000,
    "Small left pleural effusion, " * 2_000,  # ~58 KB of one run-on sentence
    ("FINDINGS: No pneumothorax. Moderate right pleural effusion. 5 mm nodule in the right upper lobe. " * 520),
    "<html><body><h1>FINDINGS</h1><p>Moderate <b>Left</b> pleural effusion.</p>"
    "<script>var x = '<p>pneumothorax</p>';</script></body></html>",
    "Ünïcödé ßtraße — 肺结节 5 mm. İSTANBUL ﬁndings: pneumothorax 😀 \u200b\ufeff",
    "\x00\x01\x02 pneumothorax \x7f", "FINDINGS:\n\nIMPRESSION:", "[Explanation]: (a) 3. [Matched Findings]: 2.",
    "L4-L5 " * 8_000, "No. " * 10_000, "1. 2. 3. 4.", "%s {} \\ \\b (?P<x>) ; ;",
]


@pytest.mark.parametrize("odd", ODD, ids=lambda s: repr(s[:20]))
def test_never_raises_on_odd_input(odd):
    for ref, cand in ((odd, odd), (odd, "Small left pleural effusion."), ("No pneumothorax.", odd)):
        res = judge_pair(ref, cand)
        parsed = parse_output(render_green(res))
        assert parsed.status == "ok", parsed.reason
        assert parsed.sig == res.sig and parsed.matched == res.matched
    assert judge_pair(odd, odd).errors == []  # a report never disagrees with itself


def test_non_string_input_does_not_raise():
    for junk in (None, b"Small left pleural effusion.", 42):
        assert parse_output(render_green(judge_pair(junk, "No pneumothorax."))).status == "ok"


# --------------------------------------------------------------------------- #
# corpus level                                                                  #
# --------------------------------------------------------------------------- #


def test_corpus_tau_with_expert_significant_count_beats_lexical():
    """Kendall tau-b of the judge's ec_sig with expert_1's significant count, on 200 demo pairs.

    Measured on generate_demo(200, seed=11) when this test was written: rules
    tau = 1.00 (the demo's clinical vocabulary is covered), BLEU-4 0.28 and
    ROUGE-L 0.33 (both oriented so that agreement is positive: -score vs
    count).  The thresholds leave a wide margin -- 0.80 absolute and 0.30
    above the better lexical baseline -- so that wording changes in the
    generator or small rule regressions do not flip the test, while a judge
    that lost a core piece fails it (measured ablations: no negation 0.72,
    no cross-report matching 0.36, every error called significant 0.64).
    """
    from core.ingest.synth import generate_demo
    from core.judges.lexical import lexical_scores

    corpus = generate_demo(200, seed=11)
    ann = corpus.annotations
    ids = list(corpus.pairs["ext_id"])
    sig_rows = ann[(ann["annotator"] == "expert_1") & (ann["field"] == "error_count")
                   & (ann["significant"] == True)]  # noqa: E712 - object column
    expert_sig = sig_rows.groupby("ext_id")["value"].sum().reindex(ids).to_numpy()
    ref, cand = corpus.pairs["reference"].tolist(), corpus.pairs["candidate"].tolist()

    ec_sig = np.array([parse_output(render_green(judge_pair(r, c))).metrics["ec_sig"] for r, c in zip(ref, cand,
                                                                                                   strict=True)])
    lex = [lexical_scores(r, c) for r, c in zip(ref, cand, strict=True)]
    tau_rules = kendalltau(ec_sig, expert_sig).statistic
    tau_bleu = kendalltau(-np.array([x["bleu4"] for x in lex]), expert_sig).statistic
    tau_rouge = kendalltau(-np.array([x["rouge_l"] for x in lex]), expert_sig).statistic
    assert tau_rules >= 0.80, (tau_rules, tau_bleu, tau_rouge)
    assert tau_rules >= max(tau_bleu, tau_rouge) + 0.30, (tau_rules, tau_bleu, tau_rouge)
