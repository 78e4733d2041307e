"""Judge output text -> error counts, texts and scores (:class:`ParseResult`, :func:`parse_output`).

The two readings live in :mod:`core.parse.text` (sections and lines) and :mod:`core.parse.jsonanswer`
(JSON answers), the single values they share (counts, labels, scores) in :mod:`core.parse.values`.

Reads the answer format of the GREEN prompt (GREEN Appendix A.1; VERT paper
Appendix D.1) and its VERT / Formula / Rubric extensions (VERT Appendix
D.2-D.4), which add an ``[Overall Accuracy Score]`` section::

    [Explanation]:
    <Explanation>

    [Clinically Significant Errors]:
    (a) <Error Type>: <count>. <Error 1>; <Error 2>; ...
    ...
    (f) <Error Type>: <count>. <Error 1>; ...

    [Clinically Insignificant Errors]:
    (a) ... (f) ...

    [Matched Findings]:
    <count>. <Finding 1>; <Finding 2>; ...

    [Overall Accuracy Score]:
    <score in [0.00, 1.00]>

Entry point: :func:`parse_output`.  It never raises; every outcome is a
:class:`ParseResult` with ``status`` ``"ok"``, ``"partial"`` or ``"failed"``
and a human-readable ``reason``.

Agreement with GREEN's reference implementation
-----------------------------------------------
On GREEN's own output format (sections separated by blank lines, one
``(x) <type>: <n>. ...`` line per listed category, ``None.`` for an empty
section, ``<n>. ...`` for matched findings) the counts and the GREEN score are
those of the reference parser (Stanford-AIMI/GREEN ``green_score/green.py``):
listed categories take the first ``: <n>`` after the label, unlisted
categories of a complete section are 0, a section starting with "No" is all
zeros, the matched count is the number opening the section, and GREEN is
``M / (M + S)`` or 0 when ``M == 0`` (GREEN Sec. 3.2, Eq. (1)).

Where the reference would read non-GREEN layouts in surprising ways this parser
deliberately differs: a section runs to the next section header rather than to
the first blank line; a *missing* or empty section, an unreadable count or a
cut-off category is reported as unknown (``None``) instead of 0; a count
without its trailing period is still read; an ``N.``-numbered list of matched
findings counts its items.  None of these arise in GREEN's own output.

Beyond GREEN's format
---------------------
Markdown bold/italics/headers/bullets/tables and code fences, numbered section
headers, ``(1)``-``(6)`` / ``1)`` / ``a)`` / ``a.`` category markers, category
labels without markers, only non-zero categories listed, "None"/"No
errors"/"N/A", counts in words ("two"), missing periods, CRLF, reasoning
before the answer (``<think>...</think>``, a lone ``</think>``, "Reasoning:
..." preambles; when drafts precede the answer the last answer block wins),
truncated output, and bare-number answers (a fine-tuned VERT model's "0.7",
VERT Sec. 4.1.4).

JSON answers (strict JSON, or with trailing commas / Python quoting)::

    {"explanation": "...",
     "clinically_significant_errors": {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0},
     "clinically_insignificant_errors": {"a": 0, ...},
     "matched_findings": 3,
     "overall_score": 0.7}

Keys are matched case- and punctuation-insensitively with aliases
("significant_errors", "matched", "score", ...); a category may be keyed
``a``/``(a)``/``1`` or by its label and valued by a number, a word,
``{"count": n, "errors": [...]}`` or a list of error strings; an error section
may instead be a list of ``{"category": ..., "text": ...}`` objects (see
:func:`core.parse.jsonanswer.parse_json_answer`).

Limitation: a number that ends the text (``[Overall Accuracy Score]: 0.7``) is taken as
written; a cut inside that very number cannot be told from a complete one.

Unknown values and status
-------------------------
* A count is never invented.  A category whose line was cut off or whose count
  cannot be read is ``None``.  Categories *not listed* are 0 only in a
  well-formed section (another section follows it and every listed line was
  read); in a section that was cut off or has an unreadable line they are
  ``None``.  A section that is missing altogether is ``None`` throughout.
* ``status == "ok"``: both error sections (all six categories each) and the
  matched count were read, and an overall score, if a score section exists, is
  valid.  ``"partial"``: something usable was read but something is unknown or
  invalid (the reason names it).  ``"failed"``: no count or score at all.
* Metrics come from :func:`core.analysis.scores.metrics_from_counts`: each metric is
  ``None`` when one of its inputs is unknown (e.g. ``formula`` needs the
  insignificant counts, ``green`` does not).
* The overall score (VERT D.2: "a continuous number in [0.00, 1.00] with two
  decimals") is accepted as a plain number in [0, 1] (or ``x/1``).  Anything
  else -- 7, 85%, 8/10, -0.1 -- is never rescaled: ``overall_score`` is
  ``None``, the status is at most ``"partial"`` and the reason quotes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.analysis import scores
from core.parse.jsonanswer import parse_json_answer
from core.parse.text import PROSE_SCORE, parse_text_answer, strip_reasoning, to_text
from core.parse.values import CATEGORIES, Draft, ErrorItem, parse_score_value, unknown_counts

__all__ = ["ErrorItem", "ParseResult", "parse_output"]


@dataclass
class ParseResult:
    """Structured content of one judge output.

    ``sig`` / ``insig`` map every category ``"a"``-``"f"`` to a count, or to
    ``None`` when it could not be read.  ``to_json()`` is the CLI/store shape.
    """

    sig: dict[str, int | None] = field(default_factory=unknown_counts)
    insig: dict[str, int | None] = field(default_factory=unknown_counts)
    matched: int | None = None
    overall_score: float | None = None
    status: str = "failed"
    reason: str = ""
    errors: list[ErrorItem] = field(default_factory=list)
    matched_findings: list[str] = field(default_factory=list)
    explanation: str = ""
    metrics: dict[str, float | int | None] = field(default_factory=dict)
    #: Which answer layout was read: "text", "json", "score_only" or "none".
    format: str = "none"

    def to_json(self) -> dict:
        """The documented JSON shape (DESIGN.md, ``parse --json``)."""
        metrics = {name: self.metrics.get(name) for name in scores.COUNT_METRICS}
        return {
            "sig": {c: self.sig.get(c) for c in CATEGORIES},
            "insig": {c: self.insig.get(c) for c in CATEGORIES},
            "matched": self.matched,
            "overall_score": self.overall_score,
            "status": self.status,
            "reason": self.reason,
            "metrics": metrics,
        }

# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------

_BARE_SCORE = re.compile(
    r"^\s*(?:(?:overall\s+)?(?:accuracy\s+)?score\s*[:=]?\s*)?"
    r"(?P<v>[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:\s*(?:%|/\s*\d+(?:\.\d+)?))?)\s*\.?\s*$",
    re.I,
)


def _known_values(d: Draft) -> int:
    values = [*d.sig.values(), *d.insig.values(), d.matched, d.overall]
    return sum(v is not None for v in values)


def _finish(d: Draft, notes: list[str], force_partial: bool) -> ParseResult:
    result = ParseResult(
        sig=d.sig,
        insig=d.insig,
        matched=d.matched,
        overall_score=d.overall,
        errors=d.errors,
        matched_findings=d.matched_findings,
        explanation=d.explanation,
        format=d.fmt,
    )
    if not d.found_any:
        result.status = "failed"
        result.format = "none" if d.fmt == "text" else d.fmt
    elif d.complete() and not force_partial:
        result.status = "ok"
    else:
        result.status = "partial"
    if result.status == "failed":
        detail = "; ".join(d.problems) if d.problems else ""
        head = "no error counts, matched findings or score found"
        result.reason = head + (f" ({detail})" if detail else "")
    elif result.status == "ok":
        result.reason = f"parsed {d.fmt} answer"
    else:
        result.reason = "; ".join(d.problems) or f"incomplete {d.fmt} answer"
    all_notes = notes + d.notes
    if all_notes:
        result.reason += " [" + "; ".join(all_notes) + "]"
    result.metrics = scores.metrics_from_counts(
        result.sig, result.insig, result.matched, result.overall_score
    )
    return result


def _parse(raw: object) -> ParseResult:
    text, notes = to_text(raw)
    if text is None:
        r = ParseResult(status="failed", reason=notes[0])
        r.metrics = scores.metrics_from_counts(r.sig, r.insig, None, None)
        return r
    answer, think_notes, unclosed = strip_reasoning(text)
    notes += think_notes
    if not answer.strip():
        d = Draft()
        d.problems.append("empty answer")
        return _finish(d, notes, unclosed)

    text_draft = parse_text_answer(answer)
    json_draft = parse_json_answer(answer) if "{" in answer else None
    drafts = [x for x in (text_draft, json_draft) if x is not None and x.found_any]
    if drafts:
        # prefer a complete reading, then the one with more known values, then text
        best = max(drafts, key=lambda x: (x.complete(), _known_values(x), x.fmt == "text"))
        return _finish(best, notes, unclosed)

    bare = _BARE_SCORE.match(answer) or PROSE_SCORE.search(answer)
    if bare:
        d = Draft(fmt="score_only")
        d.overall, problem = parse_score_value(bare.group("v"))
        d.found_any = d.overall is not None
        d.problems.append("score-only answer: no error counts or matched findings")
        if problem:
            d.problems.append(problem)
        return _finish(d, notes, True)
    if json_draft is not None:
        return _finish(json_draft, notes, unclosed)
    return _finish(text_draft, notes, unclosed)


def parse_output(text: object) -> ParseResult:
    """Parse one judge output into counts, texts, scores and metrics.

    Parameters
    ----------
    text : str
        Raw model output (GREEN / VERT / Formula / Rubric format, VERT paper
        App. D.1-D.4, or a JSON answer).  ``None``, bytes and other junk are
        accepted and reported as ``failed``.

    Returns
    -------
    ParseResult
        Never raises.  ``status`` is ``"ok"``, ``"partial"`` or ``"failed"``;
        ``reason`` explains anything unknown or invalid.  ``metrics`` holds
        ``green`` (GREEN Sec. 3.2 Eq. (1)), ``green_f1``, ``formula`` (VERT App.
        B.3/B.4), ``ec_sig``, ``ec_total`` and ``vert`` (D.2 overall score),
        each ``None`` when an input it needs is unknown.
    """
    try:
        return _parse(text)
    except Exception as exc:  # pragma: no cover - defensive: never raise
        r = ParseResult(status="failed", reason=f"internal parser error: {type(exc).__name__}")
        r.metrics = {name: None for name in scores.COUNT_METRICS}
        return r
