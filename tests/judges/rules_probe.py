"""What the rules-judge probes read from a pair or a report: shared by the test files that state its reading rules."""

from __future__ import annotations

from collections import Counter

from core.judges.rules import judge_pair, parse_report


def counts(reference: str, candidate: str) -> dict[str, int]:
    """The judge's errors on a pair, by category (categories with none left out)."""
    return dict(Counter(e.category for e in judge_pair(reference, candidate).errors))


def present_concepts(text: str) -> list[str]:
    """The concepts of the findings a report states as present (hedged ones included), in reading order."""
    return [f.concept for f in parse_report(text) if f.kind == "finding" and f.present]
