"""The rules judge on reading rules that generalise beyond one set's wordings (issue 32, dev2).

Each test states one reading rule a radiologist applies, in made-up sentences (not the machine-written set's),
so that it proves the family of wordings, not one item.
"""

from __future__ import annotations

from core.judges.rules import judge_pair, parse_report


def counts(reference: str, candidate: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in judge_pair(reference, candidate).errors:
        out[e.category] = out.get(e.category, 0) + 1
    return out


def test_a_resolution_stated_after_a_plain_negative_is_still_a_comparison():
    reference = ("FINDINGS: No consolidation, effusion or pneumothorax. Interval resolution of the right effusion. "
                 "Normal heart size.")
    candidate = "FINDINGS: The right pleural effusion seen before has since resolved. No consolidation. Normal heart."
    assert counts(reference, candidate) == {}
    # the comparison is the reference's: a candidate without it omits it
    assert counts(reference, "FINDINGS: No consolidation, effusion or pneumothorax. Normal heart size.") == {"f": 1}
