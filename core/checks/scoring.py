"""Conservative scoring (LAIas Bench Sec. 2.3, 4.2, 4.4, App. C), in exact integer arithmetic.

Scores are held in tenths (an int: 4.7 is 47) so every threshold is compared
without float noise.

- Dimension score (Sec. 4.2): ``round(pass / total * 5, 1)``, rounded half up
  on the exact fraction, then capped: any critical failure caps it at
  ``max(1, 3 - (critFails - 1))``; three or more major failures cap it at
  3.5. Never below 1.0 (the scale is 1-5; the paper's formula alone can reach
  0). No applicable check: UNSCORED, left out of the overall.
- Dimension verdict: PASS when every check passes, FAIL on any critical
  failure or a score below 4.0, else PARTIAL.
- Overall (App. C): the weighted average over scored dimensions, weights
  renormalised (CRIT 0.30, QUAL 0.25, TERM 0.20, GUIDE 0.15, RAG 0.10).
- Dual phase (Sec. 4.4): per dimension ``min(deterministic, adversarial)``
  (when only one phase scored a dimension, that score).
- Case verdict (Sec. 2.3): FAIL on any critical failure in either phase;
  PASS when overall >= 4.2 *with* the adversarial phase; PARTIAL when
  overall >= 3.0; else FAIL. Without the adversarial phase the result is
  *degraded* and can be PARTIAL at best (Sec. 4.4).
- Confidence (Sec. 4.4): high = both phases and the judge reported no
  missing or hallucinated finding; medium = the judge reported some, or no
  adversarial phase but a deterministic overall >= 4.2; low = no adversarial phase.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from core.checks.registry import DIMENSIONS, WEIGHTS

PASS_T, PARTIAL_T, DIM_OK_T = 42, 30, 40  # thresholds in tenths: 4.2, 3.0, 4.0
VERDICT_CODE = {"FAIL": 0, "PARTIAL": 1, "PASS": 2}
VERDICTS = ("PASS", "PARTIAL", "FAIL")


@dataclass(frozen=True)
class DimensionScore:
    dimension: str
    tenths: int | None  # None: UNSCORED
    n_checks: int
    n_passed: int
    critical_fails: int
    major_fails: int
    verdict: str  # PASS | PARTIAL | FAIL | UNSCORED

    @property
    def score(self) -> float | None:
        return None if self.tenths is None else self.tenths / 10


def raw_tenths(passed: int, total: int) -> int:
    """round(passed / total * 5, 1) in tenths, half up on the exact fraction."""
    return (100 * passed + total) // (2 * total)


def capped_tenths(passed: int, total: int, critical_fails: int, major_fails: int) -> int:
    t = raw_tenths(passed, total)
    if critical_fails:
        t = min(t, max(10, 10 * (3 - (critical_fails - 1))))
    if major_fails >= 3:
        t = min(t, 35)
    return max(t, 10)


def dimension_score(dimension: str, results) -> DimensionScore:
    """Score one dimension from its check results (anything with ``passed`` and ``severity``)."""
    results = list(results)
    if not results:
        return DimensionScore(dimension, None, 0, 0, 0, 0, "UNSCORED")
    passed = sum(r.passed for r in results)
    crit = sum(1 for r in results if not r.passed and r.severity == "critical")
    major = sum(1 for r in results if not r.passed and r.severity == "major")
    t = capped_tenths(passed, len(results), crit, major)
    verdict = "PASS" if passed == len(results) else ("FAIL" if crit or t < DIM_OK_T else "PARTIAL")
    return DimensionScore(dimension, t, len(results), passed, crit, major, verdict)


def deterministic_scores(results) -> dict[str, DimensionScore]:
    results = list(results)
    return {d: dimension_score(d, [r for r in results if r.dimension == d]) for d in DIMENSIONS}


def weighted_overall(tenths: dict[str, int | None]) -> Fraction | None:
    """Weighted average over the scored dimensions (weights renormalised); exact."""
    scored = {d: t for d, t in tenths.items() if t is not None}
    if not scored:
        return None
    num = sum(WEIGHTS[d] * t for d, t in scored.items())
    return Fraction(num, 10 * sum(WEIGHTS[d] for d in scored))


def combine(det: dict[str, int | None], adv: dict[str, int | None] | None) -> dict[str, int | None]:
    """Per dimension min(deterministic, adversarial) (Sec. 4.4); a phase that did not score it is skipped."""
    out = {}
    for d in DIMENSIONS:
        values = [v for v in (det.get(d), (adv or {}).get(d)) if v is not None]
        out[d] = min(values) if values else None
    return out


def case_verdict(overall: Fraction | None, critical: bool, adversarial: bool) -> str:
    if critical or overall is None:
        return "FAIL"
    if overall >= Fraction(PASS_T, 10) and adversarial:
        return "PASS"
    if overall >= Fraction(PARTIAL_T, 10):
        return "PARTIAL"
    return "FAIL"


def confidence(adversarial: bool, det_overall: Fraction | None, judge_found_issues: bool) -> str:
    if adversarial:
        return "medium" if judge_found_issues else "high"
    if det_overall is not None and det_overall >= Fraction(PASS_T, 10):
        return "medium"
    return "low"


@dataclass
class Adversarial:
    """What the LLM judge said about one pair (parsed from its JSON answer)."""

    tenths: dict[str, int | None]
    critical_failures: int = 0
    missing: int = 0
    hallucinated: int = 0


@dataclass
class CaseScore:
    det: dict[str, DimensionScore]
    combined: dict[str, int | None]
    overall: Fraction | None
    det_overall: Fraction | None
    verdict: str
    degraded: bool
    confidence: str
    critical: bool
    failing: list = field(default_factory=list)


def score_case(results, adversarial: Adversarial | None = None) -> CaseScore:
    """Deterministic results (+ the judge's answer, if any) -> the case's scores and verdict."""
    results = list(results)
    det = deterministic_scores(results)
    det_tenths = {d: s.tenths for d, s in det.items()}
    combined = combine(det_tenths, adversarial.tenths if adversarial else None)
    overall = weighted_overall(combined)
    det_overall = weighted_overall(det_tenths)
    critical = any(s.critical_fails for s in det.values()) or bool(adversarial and adversarial.critical_failures)
    issues = bool(adversarial and (adversarial.missing or adversarial.hallucinated))
    return CaseScore(det=det, combined=combined, overall=overall, det_overall=det_overall,
                     verdict=case_verdict(overall, critical, adversarial is not None), degraded=adversarial is None,
                     confidence=confidence(adversarial is not None, det_overall, issues), critical=critical,
                     failing=[r for r in results if not r.passed])
