"""Each deterministic check on hand-made pairs, in en-US and pt-BR: one passing and one failing case."""

from __future__ import annotations

import time

import pytest

from core.checks import evaluate_pair
from core.checks.locale import LocaleSpec, get_locale, locales, register_locale
from core.checks.registry import CHECKS, DIMENSIONS, SEVERITIES
from core.checks.text import measurements, spinal_levels

EN_REF = ("FINDINGS: Small left pleural effusion. A 16 mm nodule in the right upper lobe. No pneumothorax.\n\n"
          "IMPRESSION:\nSmall left pleural effusion. Right upper lobe pulmonary nodule.")
PT_REF = ("ANÁLISE: Derrame pleural à esquerda, pequeno. Nódulo pulmonar de 1,6 cm no lobo superior direito. "
          "Não há pneumotórax.\n\nCONCLUSÃO:\nDerrame pleural à esquerda. Nódulo pulmonar à direita.")


def failed(results, check_id: str) -> list:
    return [r for r in results if r.check_id == check_id and not r.passed]


def applied(results, check_id: str) -> list:
    return [r for r in results if r.check_id == check_id]


def en(cand: str, ref: str = EN_REF, **kw):
    return evaluate_pair(ref, cand, locale="en-US", **kw)


def pt(cand: str, ref: str = PT_REF, **kw):
    return evaluate_pair(ref, cand, locale="pt-BR", **kw)


def test_registry_entries_are_complete():
    checks = CHECKS
    assert {"C01", "C02", "C03", "C04", "C05", "C06", "C07", "C08", "Q05", "Q07", "Q08", "Q09", "Q10", "T01", "T02",
            "T03", "G01", "G02", "R02", "R03", "R04", "R05", "R06"} == set(checks)
    for c in checks.values():
        assert c.dimension in DIMENSIONS and c.severity in SEVERITIES and c.message and c.source
    # the paper's severities (LAIas App. B Table B1)
    assert checks["C01"].severity == "critical" and checks["C02"].severity == "major"
    assert checks["C06"].severity == "minor" and checks["R05"].severity == "critical"
    assert checks["R02"].severity == checks["R03"].severity == checks["R04"].severity == "major"
    assert set(locales()) >= {"en-US", "pt-BR"}


def test_every_check_of_the_table_has_its_function():
    from core.checks.rules import RUNS

    assert list(RUNS) == list(CHECKS) and all(callable(fn) for fn in RUNS.values())
    assert [RUNS[i].__name__ for i in CHECKS] == [c.run for c in CHECKS.values()]


def test_the_reference_against_itself_passes_everything():
    for results in (en(EN_REF, modality="CT"), pt(PT_REF, modality="TC")):
        assert results and all(r.passed for r in results), [r for r in results if not r.passed]
    # coverage is against the exam type's matrix, not the reference: a chest CT must mention the heart
    assert {r.detail for r in failed(en(EN_REF, modality="CT", anatomy="chest"), "G01")} == {
        "'heart' not mentioned", "'mediastinum' not mentioned"}


# -- laterality ---------------------------------------------------------------------------------

def test_laterality_swap_fails_in_both_locales():
    swapped = EN_REF.replace("left pleural", "right pleural").replace("right upper", "left upper")
    bad = failed(en(swapped), "R02")
    assert bad and "pleural effusion" in bad[0].detail
    assert not failed(en(EN_REF.replace("Small left", "Small  left")), "R02")
    pt_swapped = PT_REF.replace("à esquerda", "à direita")
    assert failed(pt(pt_swapped), "R02")
    assert applied(pt(PT_REF), "R02") and not failed(pt(PT_REF), "R02")


def test_laterality_dropped_side_fails():
    no_left = "FINDINGS: Small pleural effusion. A 16 mm nodule in the right upper lobe.\n\nIMPRESSION:\nEffusion."
    assert "'left'" in failed(en(no_left), "R02")[0].detail


# -- measurements and spinal levels ---------------------------------------------------------------

def test_measurements_are_normalised_and_compared():
    assert measurements("16 mm and 1.6 cm and 2 x 3 cm", False) == {(16.0, "mm"), (20.0, "mm"), (30.0, "mm")}
    assert measurements("1,6 cm", True) == {(16.0, "mm")} and measurements("1,6 cm", False) == set()
    ok = EN_REF.replace("16 mm", "1.6 cm")
    assert applied(en(ok), "R04") and not failed(en(ok), "R04")
    assert "16 mm" in failed(en(EN_REF.replace("16 mm", "18 mm")), "R04")[0].detail
    assert failed(pt(PT_REF.replace("1,6 cm", "2,6 cm")), "R04")
    assert not failed(pt(PT_REF.replace("1,6 cm", "16 mm")), "R04")


def test_spinal_levels():
    assert spinal_levels("disc bulge at L4-5 and L5/S1; T2 hyperintense; T12 vertebral body") == {
        "L4-L5", "L5-S1", "T12"}
    ref = "FINDINGS: Disc herniation at L4-L5. Foraminal narrowing at C5-6.\n\nIMPRESSION:\nL4-L5 herniation."
    assert not failed(en(ref.replace("L4-L5.", "L4/5.").replace("C5-6", "C5-C6"), ref), "R03")
    assert "'L4-L5'" in failed(en(ref.replace("L4-L5", "L3-L4"), ref), "R03")[0].detail
    pt_ref = "ANÁLISE: Protrusão discal em L4-L5.\n\nCONCLUSÃO:\nProtrusão discal L4-L5."
    assert failed(pt(pt_ref.replace("L4-L5", "L5-S1"), pt_ref), "R03")
    assert not applied(en(EN_REF), "R03")  # no levels in the reference: not applicable


# -- contrast, banned/vague phrasing, placeholders, markup -------------------------------------------

def test_contrast_language_in_a_non_contrast_exam_is_critical():
    ref = "FINDINGS: Hepatic steatosis.\n\nIMPRESSION:\nSteatosis."
    cand = "FINDINGS: Hepatic steatosis with arterial phase enhancement.\n\nIMPRESSION:\nSteatosis."
    r = failed(en(cand, ref, modality="CT", meta={"exam": "CT abdomen without contrast"}), "C01")
    assert r and r[0].severity == "critical"
    assert not applied(en(cand, ref, modality="CT", meta={"exam": "CT abdomen with contrast"}), "C01")
    assert not applied(en(cand, ref, modality="CT"), "C01")  # contrast status unknown: not applicable
    assert failed(en(cand, ref, modality="US"), "C01")  # ultrasound: no IV contrast unless said
    assert not failed(en("FINDINGS: Hepatic steatosis. Non-enhanced study.\n\nIMPRESSION:\nSteatosis.", ref,
                         modality="CT", meta='{"exam": "CT abdomen sem contraste"}'), "C01")
    pt_ref = "ANÁLISE: Esteatose hepática.\n\nCONCLUSÃO:\nEsteatose."
    pt_cand = "ANÁLISE: Esteatose hepática, sem realce anômalo.\n\nCONCLUSÃO:\nEsteatose."
    assert failed(pt(pt_cand, pt_ref, modality="TC", meta={"exam": "tc abdome sc"}), "C01")
    assert not failed(pt(pt_ref, pt_ref, modality="TC", meta={"exam": "tc abdome sc"}), "C01")


def test_umbrella_and_banned_phrases():
    vague = EN_REF.replace("Right upper lobe pulmonary nodule.", "Right upper lobe nodule, otherwise unremarkable.")
    assert failed(en(vague), "C02")
    assert failed(en(EN_REF + "\nAs an AI language model I cannot diagnose."), "C03")[0].severity == "critical"
    pt_vague = PT_REF.replace("Nódulo pulmonar à direita.", "Nódulo pulmonar à direita. Demais estruturas sem "
                                                            "alterações.")
    assert failed(pt(pt_vague), "C02")
    assert failed(pt(PT_REF + "\nComo modelo de linguagem, consulte seu médico."), "C03")


def test_placeholders_and_markup():
    assert failed(en(EN_REF.replace("16 mm", "[size] mm")), "Q07")
    assert failed(en(EN_REF.replace("Small", "___")), "Q07")
    assert failed(pt(PT_REF.replace("1,6 cm", "X,X cm")), "Q07")
    assert failed(en("**FINDINGS:** " + EN_REF), "C04")
    assert not failed(en(EN_REF.replace("\n", "<br>")), "C04")  # LAIas' allowed tags


# -- structure ---------------------------------------------------------------------------------

def test_sections_present_and_ordered():
    no_impression = EN_REF.split("\n\nIMPRESSION")[0]
    assert failed(en(no_impression), "Q05")
    headerless = "Small left pleural effusion. 16 mm right upper lobe nodule."
    assert failed(en(headerless), "Q08")[0].severity == "critical"
    swapped = "IMPRESSION:\nEffusion and nodule.\n\nFINDINGS: Small left pleural effusion. 16 mm right upper lobe nodule."
    assert failed(en(swapped), "R06")
    assert not applied(en(headerless, headerless), "Q08")  # no sections in the reference: no template to follow
    pt_swapped = "CONCLUSÃO:\nDerrame.\n\nANÁLISE: Derrame pleural à esquerda. Nódulo pulmonar de 1,6 cm à direita."
    assert failed(pt(pt_swapped), "R06")


def test_ultrasound_technique_section_only_forbidden_in_pt_br():
    ref = "ANÁLISE: Fígado com esteatose.\n\nCONCLUSÃO:\nEsteatose."
    cand = "TÉCNICA: Exame realizado com transdutor convexo.\n\nANÁLISE: Fígado com esteatose.\n\nCONCLUSÃO:\nEsteatose."
    assert failed(pt(cand, ref, modality="US"), "Q09")
    assert not applied(en("TECHNIQUE: convex probe.\n\n" + EN_REF, modality="US"), "Q09")


def test_conclusion_that_copies_the_analysis():
    dup = ("FINDINGS: Small left pleural effusion. A 16 mm nodule in the right upper lobe.\n\nIMPRESSION:\n"
           "Small left pleural effusion. A 16 mm nodule in the right upper lobe.")
    assert failed(en(dup), "Q10")
    assert not failed(en(EN_REF), "Q10")


# -- findings ------------------------------------------------------------------------------------

def test_findings_preserved_and_invented():
    dropped = "FINDINGS: No pneumothorax. Lungs clear.\n\nIMPRESSION:\nNo acute abnormality."
    r = en(dropped)
    assert failed(r, "C07")[0].severity == "critical" and failed(r, "R05")
    assert failed(r, "C06")  # abnormal study, normal conclusion lead
    invented = EN_REF + "\nThere is a large pneumothorax."
    assert "pneumothorax" in failed(en(invented), "C08")[0].detail
    assert not failed(en(EN_REF + "\nNo pericardial effusion."), "C08")  # a negated mention invents nothing
    pt_dropped = "ANÁLISE: Não há pneumotórax.\n\nCONCLUSÃO:\nExame dentro dos limites da normalidade."
    r = pt(pt_dropped)
    assert failed(r, "C07") and failed(r, "C06")
    assert failed(pt(PT_REF + "\nHá pneumotórax volumoso."), "C08")


def test_measurements_in_the_conclusion_only_forbidden_in_pt_br():
    cand = PT_REF.replace("Nódulo pulmonar à direita.", "Nódulo pulmonar de 1,6 cm à direita.")
    assert failed(pt(cand), "C05")
    assert not applied(en(EN_REF.replace("pulmonary nodule.", "16 mm pulmonary nodule.")), "C05")


# -- terminology and coverage ----------------------------------------------------------------------

def test_terminology_from_the_packs():
    assert "opacity" in failed(en(EN_REF + "\nPatchy infiltrate at the base."), "T01")[0].detail
    assert failed(en(EN_REF + "\nNoted is a small granuloma."), "T02")
    assert failed(en(EN_REF + "\nHyperechoic focus.", modality="CT"), "T03")[0].severity == "major"
    assert "cólico" in failed(pt(PT_REF + "\nEspessamento colônico."), "T01")[0].detail
    assert failed(pt(PT_REF + "\nObserva-se derrame."), "T02")
    assert failed(pt(PT_REF + "\nÁrea de densidade aumentada.", modality="TC"), "T03")
    assert failed(pt(PT_REF + "\nFígado com hipersinal.", modality="US"), "T03")
    # one check per pack entry: a clean report passes every one of them
    assert len(applied(pt(PT_REF), "T01")) == len(get_locale("pt-BR").forbidden_terms)


def test_expected_anatomy_coverage():
    ref = "FINDINGS: The liver, gallbladder, pancreas, spleen, kidneys and adrenals are normal. Normal aorta. " \
          "No lymphadenopathy.\n\nIMPRESSION:\nNormal."
    r = en("FINDINGS: The liver and spleen are normal.\n\nIMPRESSION:\nNormal.", ref, modality="CT", anatomy="abdomen")
    missing = failed(r, "G01")
    assert len(missing) == 6 and failed(r, "G02")[0].severity == "major"
    one_missing = ref.replace("Normal aorta. ", "")
    r = en(one_missing, ref, modality="CT", anatomy="abdomen")
    assert len(failed(r, "G01")) == 1 and not failed(r, "G02")  # more than one missing makes it major
    assert not applied(en(EN_REF, modality="CT", anatomy="knee"), "G01")  # no matrix entry: unscored
    pt_ref = "ANÁLISE: Fígado, vesícula biliar, pâncreas, baço, rins e adrenais normais. Aorta normal.\n\nCONCLUSÃO:\n."
    assert len(failed(pt("ANÁLISE: Fígado normal.\n\nCONCLUSÃO:\nNormal.", pt_ref, modality="TC",
                         anatomy="abdome"), "G01")) == 7


def test_a_new_locale_is_data_registered_by_code(monkeypatch):
    from core.checks import locale as locale_module

    monkeypatch.setattr(locale_module, "LOCALES", dict(locale_module.LOCALES))  # unregistered after the test
    base = get_locale("en-US")
    spec = LocaleSpec(**{**base.__dict__, "code": "en-GB", "name": "English (UK)",
                         "forbidden_terms": (*base.forbidden_terms, (r"hilum", "hilar region"))})
    register_locale(spec)
    assert "en-GB" in locales()
    assert failed(evaluate_pair(EN_REF, EN_REF + "\nProminent hilum.", locale="en-GB"), "T01")
    with pytest.raises(ValueError, match="locales: "):
        evaluate_pair(EN_REF, EN_REF, locale="xx-XX")


def test_checks_are_fast():
    pairs = [(EN_REF, EN_REF.replace("left", "right") + f" case {i}") for i in range(300)]
    t0 = time.perf_counter()
    for ref, cand in pairs:
        evaluate_pair(ref, cand, modality="CT", anatomy="chest")
    per_pair_ms = (time.perf_counter() - t0) * 1000 / len(pairs)
    assert per_pair_ms < 20, per_pair_ms  # measured ~2-5 ms on the 2-core machine; wide margin for load
