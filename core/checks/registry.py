"""The check registry: id, dimension, severity, message, source, and the function that runs it.

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

from collections.abc import Callable
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
    run: Callable

    def __post_init__(self):
        if self.dimension not in DIMENSIONS:
            raise ValueError(f"check {self.id}: dimension must be one of {DIMENSIONS}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"check {self.id}: severity must be one of {SEVERITIES}")


CHECKS: dict[str, Check] = {}


def check(id: str, dimension: str, severity: str, message: str, source: str):
    """Decorator registering a check function under ``id``."""
    def register(fn):
        if id in CHECKS:
            raise ValueError(f"check id {id} registered twice")
        CHECKS[id] = Check(id, dimension, severity, message, source, fn)
        return fn
    return register


def all_checks() -> dict[str, Check]:
    from core.checks import rules  # noqa: F401  (registers the checks)

    return CHECKS


def registry_signature() -> str:
    """Ids, dimensions, severities and messages of every check: part of a checks run's hash."""
    return repr(sorted((c.id, c.dimension, c.severity, c.message, c.source) for c in all_checks().values()))
