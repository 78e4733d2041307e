"""Error injection (VERT paper, section 4.2 and Appendix F): pure prompt pieces.

The loop that calls a model, validates and retries (up to 5 attempts) lives
elsewhere; this module renders the messages and parses the answers.

- ``render_injection(kind, report, k)``: system = F.1 or F.2 verbatim, user =
  the designed ``inject_user`` message with the report and k.
- ``parse_injection_answer(text)``: the JSON answer F.1/F.2 ask for ->
  ``(modified_report, changes)``, ``ValueError`` when unusable.
- ``render_plausibility(original, modified, ...)``: system = F.3 verbatim,
  user = the designed ``plausibility_user`` message.
- ``parse_plausibility_answer(text)`` -> ``(plausible, reason)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .jsonanswer import extract_json_object, norm_key
from .loader import get_template

__all__ = [
    "INJECTION_KINDS",
    "INJECTION_K",
    "format_modifications",
    "parse_injection_answer",
    "parse_plausibility_answer",
    "render_injection",
    "render_plausibility",
]

# kind -> (system template, error category it injects)
INJECTION_KINDS: dict[str, tuple[str, str]] = {
    "false_finding": ("inject_false_finding", "a"),
    "omission": ("inject_omission", "b"),
}
INJECTION_K = (1, 2, 3)  # section 4.2: "exactly k in {1, 2, 3}"
_UNSPECIFIED = "not specified (infer it from the report)"


def _check_kind(kind: str) -> str:
    if kind not in INJECTION_KINDS:
        raise ValueError(f"unknown injection kind {kind!r}; valid: {', '.join(INJECTION_KINDS)}")
    return INJECTION_KINDS[kind][0]


def _check_text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be str, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{name} is empty")
    return value


def render_injection(kind: str, report: str, k: int) -> list[dict[str, str]]:
    """Chat messages asking for exactly *k* injected errors of *kind* in *report*."""
    system_id = _check_kind(kind)
    if isinstance(k, bool) or k not in INJECTION_K:
        raise ValueError(f"k must be one of {INJECTION_K}, got {k!r}")
    _check_text(report, "report")
    return [
        {"role": "system", "content": get_template(system_id).render()},
        {"role": "user", "content": get_template("inject_user").render(k=str(k), report=report)},
    ]


def _sentence_index(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return int(f) if f.is_integer() else None


def parse_injection_answer(
    text: str,
    *,
    kind: str | None = None,
    expected_k: int | None = None,
    original: str | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """``(modified_report, changes)`` from an F.1/F.2 JSON answer.

    Keys are matched ignoring case and ``_`` vs space ("modified report" as
    printed in the paper, or "modified_report"). Each change comes back as
    ``{"sentence_index", "original", "modified", "explanation"}``.

    Raises ``ValueError`` when there is no JSON object, the modified report
    is missing or empty, "changes detail" is missing, empty or malformed, a
    change changes nothing, a false finding has an empty "modified" text or
    an omission an empty "original" (with *kind*), the number of changes is
    not *expected_k*, or the modified report equals *original*.
    """
    if kind is not None:
        _check_kind(kind)
    obj = extract_json_object(text)
    norm = {norm_key(key): value for key, value in obj.items()}
    report = norm.get("modified report")
    if not isinstance(report, str) or not report.strip():
        raise ValueError("answer lacks a non-empty 'modified report' string")
    raw_changes = norm.get("changes detail")
    if not isinstance(raw_changes, list) or not raw_changes:
        raise ValueError("answer lacks a non-empty 'changes detail' list")
    changes = []
    for i, raw in enumerate(raw_changes):
        if not isinstance(raw, dict):
            raise ValueError(f"changes detail[{i}] is not an object")
        ch = {norm_key(key): value for key, value in raw.items()}
        before, after = ch.get("original"), ch.get("modified")
        if not isinstance(before, str) or not isinstance(after, str):
            raise ValueError(f"changes detail[{i}] needs 'original' and 'modified' strings")
        if before.strip() == after.strip():
            raise ValueError(f"changes detail[{i}] does not change its sentence")
        if kind == "false_finding" and not after.strip():
            raise ValueError(f"changes detail[{i}]: a false finding needs a 'modified' text")
        if kind == "omission" and not before.strip():
            raise ValueError(f"changes detail[{i}]: an omission needs the 'original' sentence")
        changes.append({
            "sentence_index": _sentence_index(ch.get("sentence index")),
            "original": before,
            "modified": after,
            "explanation": str(ch.get("explanation") or ""),
        })
    if expected_k is not None and len(changes) != expected_k:
        raise ValueError(f"expected {expected_k} injected errors, the answer lists {len(changes)}")
    if original is not None and report.strip() == original.strip():
        raise ValueError("the modified report is identical to the original")
    return report, changes


def format_modifications(changes: Iterable[Mapping[str, Any]] | None) -> str:
    """Numbered list of changes for the plausibility user message."""
    if changes is None:
        return "Not listed; compare the original and modified reports."
    items = []
    for n, ch in enumerate(changes, start=1):
        before = str(ch.get("original") or "") or "(none: a new sentence was added)"
        after = str(ch.get("modified") or "") or "(sentence deleted)"
        lines = [f"{n}. Original sentence: {before}", f"   Modified sentence: {after}"]
        if ch.get("explanation"):
            lines.append(f"   Explanation: {ch['explanation']}")
        items.append("\n".join(lines))
    return "\n".join(items) if items else "None listed."


def render_plausibility(
    original: str,
    modified: str,
    *,
    changes: Iterable[Mapping[str, Any]] | None = None,
    modality: str | None = None,
    body_region: str | None = None,
) -> list[dict[str, str]]:
    """Messages for the F.3 validation of one injected report.

    *changes* is the list returned by ``parse_injection_answer``; modality
    and body region come from the pair's metadata when known.
    """
    _check_text(original, "original")
    _check_text(modified, "modified")
    user = get_template("plausibility_user").render(
        modality=(modality or "").strip() or _UNSPECIFIED,
        body_region=(body_region or "").strip() or _UNSPECIFIED,
        original=original,
        modified=modified,
        modifications=format_modifications(changes),
    )
    return [
        {"role": "system", "content": get_template("plausibility").render()},
        {"role": "user", "content": user},
    ]


def parse_plausibility_answer(text: str) -> tuple[bool, str]:
    """``(plausible, reason)`` from the F.3 JSON answer; ``ValueError`` if unusable.

    Accepts the curly quotes of the printed example (‘‘plausible’’) and
    "true"/"false"/"yes"/"no" strings for the flag.
    """
    obj = extract_json_object(text)
    norm = {norm_key(key): value for key, value in obj.items()}
    if "plausible" not in norm:
        raise ValueError("answer lacks 'plausible'")
    flag = norm["plausible"]
    if isinstance(flag, str) and norm_key(flag) in ("true", "yes", "false", "no"):
        flag = norm_key(flag) in ("true", "yes")
    if not isinstance(flag, bool):
        raise ValueError(f"'plausible' must be true or false, got {norm['plausible']!r}")
    reason = norm.get("reason", "")
    return flag, "" if reason is None else str(reason)
