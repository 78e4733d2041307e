"""The rules judge's verdict in GREEN's answer format, and its hooks for the offline runner.

:func:`render_green` writes a :class:`~core.judges.rules.findings.RulesResult`
as GREEN's answer (GREEN App. A.1), so the standard parser
(:func:`core.parse.result.parse_output`) computes its metrics exactly as for an
LLM judge; :func:`score_pair` and :func:`spec_for` are what
:mod:`core.judges.offline` calls.
"""

from __future__ import annotations

import re

from core.judges.rules.crimson_style import METRIC, rules_crimson
from core.judges.rules.findings import CATEGORIES, CATEGORY_LABELS, RULES_VERSION, RulesResult
from core.judges.rules.match import judge_pair
from core.judges.rules.screen import screen_pair
from core.judges.runs import OutputRecord, RunSpec

_UNSAFE = re.compile(r"[;\[\]\n\r]+")


def _safe(text: str) -> str:
    """Error / finding text that cannot be misread by the parser (';' separates items)."""
    text = _UNSAFE.sub(", ", text)
    text = re.sub(r"\(([a-f1-6])\)", r"\1", text)
    return " ".join(text.split()).rstrip(".")


def render_green(result: RulesResult) -> str:
    """The result in GREEN's answer format (GREEN App. A.1), readable by core.parse.result."""
    lines = ["[Explanation]:", _safe(result.explanation) + ".", ""]
    for title, significant in (("[Clinically Significant Errors]:", True),
                               ("[Clinically Insignificant Errors]:", False)):
        lines.append(title)
        for cat in CATEGORIES:
            texts = [_safe(e.explanation) for e in result.errors
                     if e.category == cat and e.significant == significant]
            line = f"({cat}) {CATEGORY_LABELS[cat]}: {len(texts)}."
            if texts:
                line += " " + "; ".join(texts) + "."
            lines.append(line)
        lines.append("")
    matched = [_safe(m.reference.describe()) for m in result.matches if m.counted]
    lines.append("[Matched Findings]:")
    lines.append(f"{len(matched)}." + (" " + "; ".join(matched) + "." if matched else ""))
    return "\n".join(lines)


def score_pair(reference: str, candidate: str, context: dict[str, str] | None = None) -> OutputRecord:
    """One offline-runner record: GREEN-format text (metrics are parsed from it) with the CRIMSON-style score
    beside it (``rules_crimson``), or the failure :func:`~core.judges.rules.screen.screen_pair` gives (another
    language, not a report): no score. ``context``: the pair's patient context (age, sex, indication, history)."""
    refused = screen_pair(reference, candidate)
    if refused:
        return OutputRecord(pair_id="", error=refused)
    result = judge_pair(reference, candidate, context=context)
    if result.failure:  # stored like any failed call: no metric values, counted in the run's failures
        return OutputRecord(pair_id="", error=result.failure)
    return OutputRecord(pair_id="", raw_text=render_green(result), metrics=None,
                        extra_metrics={METRIC: rules_crimson(result)})


def spec_for(dataset: str) -> RunSpec:
    return RunSpec("rules", "rules", dataset, params={"version": RULES_VERSION})
