"""Conservative scoring (LAIas Bench Sec. 2.3, 4.2, 4.4, App. C) on hand-made cases."""

from __future__ import annotations

from fractions import Fraction

from core.checks.rules import Result
from core.checks.scoring import (
    Adversarial,
    capped_tenths,
    case_verdict,
    combine,
    confidence,
    dimension_score,
    raw_tenths,
    score_case,
    weighted_overall,
)


def res(dim: str, severity: str, passed: bool, check_id: str = "X") -> Result:
    return Result(check_id, dim, severity, passed, "")


def test_raw_score_is_round_pass_over_total_times_five_half_up():
    assert raw_tenths(3, 3) == 50 and raw_tenths(0, 4) == 0
    assert raw_tenths(2, 3) == 33  # 3.333...
    assert raw_tenths(1, 4) == 13  # 1.25 -> 1.3 (half up on the exact fraction; float round() gives 1.2)
    assert raw_tenths(7, 8) == 44  # 4.375 -> 4.4


def test_critical_and_major_caps():
    # one critical failure among 10 checks: 4.5 capped at max(1, 3 - 0) = 3
    assert capped_tenths(9, 10, 1, 0) == 30
    assert capped_tenths(8, 10, 2, 0) == 20  # 3 - 1
    assert capped_tenths(7, 10, 3, 0) == 10  # max(1, 3 - 2) = 1
    assert capped_tenths(6, 10, 4, 0) == 10  # never below 1
    assert capped_tenths(17, 20, 0, 3) == 35  # 4.25 -> 4.3, three majors cap it at 3.5
    assert capped_tenths(18, 20, 0, 2) == 45  # two majors: no cap
    assert capped_tenths(0, 1, 0, 1) == 10  # the 1-5 scale's floor


def test_dimension_verdicts():
    assert dimension_score("QUAL", [res("QUAL", "major", True)] * 4).verdict == "PASS"
    partial = dimension_score("QUAL", [res("QUAL", "minor", True)] * 9 + [res("QUAL", "minor", False)])
    assert (partial.tenths, partial.verdict) == (45, "PARTIAL")
    crit = dimension_score("QUAL", [res("QUAL", "critical", True)] * 19 + [res("QUAL", "critical", False)])
    assert (crit.tenths, crit.verdict) == (30, "FAIL")
    low = dimension_score("QUAL", [res("QUAL", "minor", True)] * 3 + [res("QUAL", "minor", False)])
    assert (low.tenths, low.verdict) == (38, "FAIL")  # 3.75 -> 3.8 < 4.0
    none = dimension_score("GUIDE", [])
    assert (none.tenths, none.verdict) == (None, "UNSCORED")


def test_weighted_overall_renormalises_over_scored_dimensions():
    all_five = {"CRIT": 50, "QUAL": 40, "TERM": 30, "GUIDE": 20, "RAG": 10}
    assert weighted_overall(all_five) == Fraction(30 * 50 + 25 * 40 + 20 * 30 + 15 * 20 + 10 * 10, 1000)
    assert weighted_overall({**all_five, "GUIDE": None}) == Fraction(30 * 50 + 25 * 40 + 20 * 30 + 10 * 10, 850)
    assert weighted_overall(dict.fromkeys(all_five)) is None


def test_min_combination_per_dimension():
    det = {"CRIT": 50, "QUAL": 30, "TERM": None, "GUIDE": 40, "RAG": 45}
    adv = {"CRIT": 20, "QUAL": 50, "TERM": 40, "GUIDE": None, "RAG": 45}
    assert combine(det, adv) == {"CRIT": 20, "QUAL": 30, "TERM": 40, "GUIDE": 40, "RAG": 45}
    assert combine(det, None) == det  # no adversarial phase: the deterministic scores
    # neither a lenient judge nor lenient rules can raise a score
    lenient = dict.fromkeys(det, 50)
    assert all(combine(det, lenient)[d] == det[d] for d in det if det[d] is not None)


def test_case_verdicts_and_the_degraded_cap():
    assert case_verdict(Fraction(42, 10), critical=False, adversarial=True) == "PASS"
    assert case_verdict(Fraction(419, 100), critical=False, adversarial=True) == "PARTIAL"
    assert case_verdict(Fraction(5), critical=False, adversarial=False) == "PARTIAL"  # degraded: PARTIAL at best
    assert case_verdict(Fraction(3), critical=False, adversarial=False) == "PARTIAL"
    assert case_verdict(Fraction(299, 100), critical=False, adversarial=True) == "FAIL"
    assert case_verdict(Fraction(5), critical=True, adversarial=True) == "FAIL"  # any critical failure


def test_confidence_levels():
    assert confidence(True, Fraction(5), judge_found_issues=False) == "high"
    assert confidence(True, Fraction(5), judge_found_issues=True) == "medium"
    assert confidence(False, Fraction(45, 10), judge_found_issues=False) == "medium"
    assert confidence(False, Fraction(4), judge_found_issues=False) == "low"


def test_score_case_end_to_end():
    results = ([res("CRIT", "critical", True)] * 4 + [res("QUAL", "major", True)] * 2 + [res("TERM", "minor", True)] * 5
               + [res("RAG", "major", False, "R02"), res("RAG", "major", True)])
    degraded = score_case(results)
    assert degraded.degraded and degraded.confidence == "medium"  # no LLM phase, deterministic overall >= 4.2
    assert degraded.det["RAG"].tenths == 25 and degraded.det["GUIDE"].tenths is None
    # overall = (30*50 + 25*50 + 20*50 + 10*25) / (85*10)
    assert degraded.overall == Fraction(30 * 50 + 25 * 50 + 20 * 50 + 10 * 25, 850)
    assert degraded.verdict == "PARTIAL" and [r.check_id for r in degraded.failing] == ["R02"]
    judged = score_case(results, Adversarial({"CRIT": 50, "QUAL": 50, "TERM": 50, "GUIDE": 50, "RAG": 50}))
    assert not judged.degraded and judged.combined["GUIDE"] == 50 and judged.combined["RAG"] == 25
    assert judged.overall == Fraction(30 * 50 + 25 * 50 + 20 * 50 + 15 * 50 + 10 * 25, 1000)
    assert judged.verdict == "PASS" and judged.confidence == "high"
    harsh = score_case(results, Adversarial({"CRIT": 10, "QUAL": 50, "TERM": 50, "GUIDE": 50, "RAG": 50},
                                            critical_failures=1, hallucinated=1))
    assert harsh.combined["CRIT"] == 10 and harsh.verdict == "FAIL" and harsh.confidence == "medium"
