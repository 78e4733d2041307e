"""Pure helpers for the two designed baseline prompts, ``radfact`` and ``fineradscore``.

Both prompts are designed for this project (see their template headers); the
answer formats below are the ones those prompts ask for.
"""

from __future__ import annotations

import re
from typing import Any

from core.taxonomy import CATEGORIES

from .jsonanswer import extract_json_object, norm_key

__all__ = [
    "SEVERITY_LEVELS",
    "number_lines",
    "parse_fineradscore_answer",
    "parse_radfact_answer",
    "split_lines",
]

# FineRadScore's four severity levels (Huang et al., 2024), weights designed here.
SEVERITY_LEVELS: dict[str, int] = {
    "not actionable": 1,
    "actionable nonurgent": 2,
    "urgent": 3,
    "emergent": 4,
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def split_lines(report: str) -> list[str]:
    """Candidate report -> lines for line-by-line review.

    Splits on line breaks, then after ``.``, ``!`` or ``?`` followed by
    whitespace (so "1.5 cm" stays whole). Each line is a stripped substring
    of the report; empty pieces are dropped.
    """
    if not isinstance(report, str):
        raise ValueError(f"report must be str, got {type(report).__name__}")
    lines: list[str] = []
    for raw in report.splitlines():
        lines.extend(p.strip() for p in _SENTENCE_END.split(raw.strip()) if p.strip())
    return lines


def number_lines(report: str) -> str:
    """``[1] first line`` ... one per line; a placeholder sentence when there are none."""
    lines = split_lines(report)
    if not lines:
        return "(the candidate report has no lines)"
    return "\n".join(f"[{i}] {line}" for i, line in enumerate(lines, start=1))


def _as_bool(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        v = norm_key(value)
        if v in ("true", "yes", "entailed"):
            return True
        if v in ("false", "no", "not entailed"):
            return False
    raise ValueError(f"{what} must be true or false, got {value!r}")


def _phrases(obj: dict, key: str) -> list[dict]:
    norm = {norm_key(k): v for k, v in obj.items()}
    items = norm.get(norm_key(key))
    if not isinstance(items, list):
        raise ValueError(f"answer lacks the list {key!r}")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"{key}[{i}] is not an object")
        it = {norm_key(k): v for k, v in item.items()}
        phrase = it.get("phrase")
        if not isinstance(phrase, str):
            raise ValueError(f"{key}[{i}] lacks a 'phrase' string")
        evidence = it.get("evidence") or []
        if isinstance(evidence, str):
            evidence = [evidence]
        out.append({"phrase": phrase, "entailed": _as_bool(it.get("entailed"), f"{key}[{i}]"),
                    "evidence": [str(e) for e in evidence]})
    return out


def parse_radfact_answer(text: str) -> dict:
    """Phrases and RadFact-style logical precision, recall and F1 from a ``radfact`` answer.

    precision = entailed candidate phrases / candidate phrases;
    recall = entailed reference phrases / reference phrases;
    F1 = 2PR / (P + R), 0.0 when P + R = 0. A ratio over zero phrases is
    undefined (None); F1 is None when either ratio is. Raises ``ValueError``
    on a malformed answer.
    """
    obj = extract_json_object(text)
    cand = _phrases(obj, "candidate_phrases")
    ref = _phrases(obj, "reference_phrases")
    p = sum(x["entailed"] for x in cand) / len(cand) if cand else None
    r = sum(x["entailed"] for x in ref) / len(ref) if ref else None
    if p is None or r is None:
        f1 = None
    else:
        f1 = 0.0 if p + r == 0 else 2 * p * r / (p + r)
    return {"candidate_phrases": cand, "reference_phrases": ref,
            "logical_precision": p, "logical_recall": r, "logical_f1": f1}


def _severity(value: Any, what: str) -> tuple[str, int]:
    v = norm_key(value) if isinstance(value, str) else ""
    v = v.removesuffix(" error").replace("non urgent", "nonurgent")
    if v not in SEVERITY_LEVELS:
        raise ValueError(f"{what}: severity {value!r} is not one of {list(SEVERITY_LEVELS)}")
    return v, SEVERITY_LEVELS[v]


def _category(value: Any) -> str | None:
    if value is None or value == "":
        return None
    c = str(value).strip().strip("()").strip().lower()[:1]
    return c if c in CATEGORIES else None


def parse_fineradscore_answer(text: str, n_lines: int | None = None) -> dict:
    """Corrections and severity totals from a ``fineradscore`` answer.

    Returns ``lines`` (one dict per listed line), ``missing`` (insertions),
    ``n_corrections`` (corrected lines + insertions), ``severity_sum`` and
    ``max_severity`` (0 when nothing needs correcting), with weights
    ``SEVERITY_LEVELS``; lower is better. With ``n_lines`` the line numbers
    must lie in 1..n_lines. Raises ``ValueError`` on a malformed answer.
    """
    obj = extract_json_object(text)
    norm = {norm_key(k): v for k, v in obj.items()}
    raw_lines = norm.get("lines")
    raw_missing = norm.get("missing", [])
    if not isinstance(raw_lines, list):
        raise ValueError("answer lacks the list 'lines'")
    if not isinstance(raw_missing, list):
        raise ValueError("'missing' must be a list")
    lines, seen = [], set()
    for i, item in enumerate(raw_lines):
        if not isinstance(item, dict):
            raise ValueError(f"lines[{i}] is not an object")
        it = {norm_key(k): v for k, v in item.items()}
        try:
            number = int(it.get("line"))
        except (TypeError, ValueError):
            raise ValueError(f"lines[{i}] has no integer 'line'") from None
        if n_lines is not None and not 1 <= number <= n_lines:
            raise ValueError(f"lines[{i}]: line {number} is outside 1..{n_lines}")
        if number in seen:
            raise ValueError(f"line {number} is listed twice")
        seen.add(number)
        needs = _as_bool(it.get("needs correction"), f"lines[{i}].needs_correction")
        entry: dict[str, Any] = {"line": number, "needs_correction": needs}
        if needs:
            level, weight = _severity(it.get("severity"), f"lines[{i}]")
            entry.update(correction=str(it.get("correction") or ""), severity=level,
                         weight=weight, category=_category(it.get("category")),
                         comment=str(it.get("comment") or ""))
        lines.append(entry)
    missing = []
    for i, item in enumerate(raw_missing):
        if not isinstance(item, dict):
            raise ValueError(f"missing[{i}] is not an object")
        it = {norm_key(k): v for k, v in item.items()}
        level, weight = _severity(it.get("severity"), f"missing[{i}]")
        missing.append({"insertion": str(it.get("insertion") or ""), "severity": level,
                        "weight": weight, "category": _category(it.get("category")) or "b",
                        "comment": str(it.get("comment") or "")})
    weights = [x["weight"] for x in lines if x["needs_correction"]] + [x["weight"] for x in missing]
    return {"lines": lines, "missing": missing, "n_corrections": len(weights),
            "severity_sum": sum(weights), "max_severity": max(weights, default=0)}
