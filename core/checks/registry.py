"""The check registry: one table of every check's id, dimension, severity, message, source, and the name of
the function that runs it (in :mod:`core.checks.rules`, which binds the names; this module imports nothing of
the checks, so the store, the report and the pages read the table without loading the rules).

Dimensions and weights are LAIas Bench's (Sec. 4.1, App. C): CRIT hallucination
resistance 0.30, QUAL structural quality 0.25, TERM terminology 0.20, GUIDE
anatomical coverage 0.15, RAG fidelity to the reference ("template fidelity"
in the paper; here the reference report plays the part of the input findings)
0.10. Severities of the paper's checks are App. B Table B1's.

A check function takes a :class:`~core.checks.rules.Context` and returns a
list of outcomes ``(passed, detail)``: an empty list means "not applicable to
this pair"; checks generated from a pack's lists (TERM, GUIDE) return one
outcome per applicable list entry, each counted as one check in the score.
"""

from __future__ import annotations

from dataclasses import dataclass

DIMENSIONS = ("CRIT", "QUAL", "TERM", "GUIDE", "RAG")
DIMENSION_NAMES = {"CRIT": "hallucination resistance", "QUAL": "structure", "TERM": "terminology",
                   "GUIDE": "coverage", "RAG": "fidelity to the reference"}
# Integer weights (hundredths) so the weighted average is exact: LAIas Bench App. C Table C1.
WEIGHTS = {"CRIT": 30, "QUAL": 25, "TERM": 20, "GUIDE": 15, "RAG": 10}
SEVERITIES = ("critical", "major", "minor")


@dataclass(frozen=True)
class Check:
    id: str
    dimension: str
    severity: str
    message: str  # what a passing report does ("No contrast language in a non-contrast exam")
    source: str  # the paper's check it implements, or "RadConcord"
    run: str  # the name of the function in core.checks.rules that runs it (takes a Context)

    def __post_init__(self):
        if self.dimension not in DIMENSIONS:
            raise ValueError(f"check {self.id}: dimension must be one of {DIMENSIONS}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"check {self.id}: severity must be one of {SEVERITIES}")


#: Every check, in the order they run and are reported; ``run`` names its function in core.checks.rules.
CHECKS: dict[str, Check] = {c.id: c for c in (
    Check("C01", "CRIT", "critical", "No contrast language in a non-contrast exam", "LAIas C01", "contrast_language"),
    Check("C02", "CRIT", "major", "No umbrella phrase in the conclusion", "LAIas C02", "umbrella"),
    Check("C03", "CRIT", "critical", "No banned phrases", "LAIas C03", "banned"),
    Check("C04", "CRIT", "critical", "No markdown or foreign HTML/XML", "LAIas C04", "markup"),
    Check("C05", "CRIT", "major", "No measurements in the conclusion", "LAIas C05", "measurements_in_conclusion"),
    Check("C06", "CRIT", "minor", "An abnormal study's conclusion does not open as normal", "LAIas C06", "normal_lead"),
    Check("C07", "CRIT", "critical", "Positive findings of the reference preserved (>= 75%)", "LAIas C07", "findings_preserved"),
    Check("C08", "CRIT", "major", "No positive finding the reference does not report", "RadConcord", "no_invented_findings"),
    Check("Q05", "QUAL", "major", "Conclusion section present when the reference has one", "LAIas Q05 (adapted)", "conclusion_present"),
    Check("Q07", "QUAL", "critical", "No placeholder tokens", "LAIas Q07", "placeholders"),
    Check("Q08", "QUAL", "critical", "Analysis (findings) section present", "LAIas Q08", "analysis_present"),
    Check("Q09", "QUAL", "critical", "Ultrasound report has no technique section", "LAIas Q09", "us_technique"),
    Check("Q10", "QUAL", "major", "Conclusion does not duplicate the analysis", "LAIas Q10", "conclusion_duplicates"),
    Check("T01", "TERM", "minor", "No forbidden term (use the preferred wording)", "LAIas TERM (pack)", "forbidden_terms"),
    Check("T02", "TERM", "minor", "No forbidden sentence opener", "LAIas TERM (pack)", "forbidden_openers"),
    Check("T03", "TERM", "major", "Vocabulary fits the modality", "LAIas TERM (pack)", "modality_vocabulary"),
    Check("G01", "GUIDE", "minor", "Expected structure for the modality and region mentioned", "LAIas GUIDE (pack)", "structure_covered"),
    Check("G02", "GUIDE", "major", "At most one expected structure missing", "LAIas GUIDE (Sec. 4.1)", "coverage_gap"),
    Check("R02", "RAG", "major", "Laterality preserved", "LAIas R02", "laterality"),
    Check("R03", "RAG", "major", "Spinal levels preserved", "LAIas R03", "levels"),
    Check("R04", "RAG", "major", "Measurements preserved", "LAIas R04", "measures"),
    Check("R05", "RAG", "critical", "Findings of the reference mentioned (>= 80%)", "LAIas R05", "key_findings"),
    Check("R06", "RAG", "major", "Section order preserved", "LAIas R06", "section_order"),
)}


def registry_signature() -> str:
    """Ids, dimensions, severities and messages of every check: part of a checks run's hash."""
    return repr(sorted((c.id, c.dimension, c.severity, c.message, c.source) for c in CHECKS.values()))
