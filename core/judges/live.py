"""One pair judged on demand (the Live scoring page): nothing is written to the store.

- :func:`score_rules_live`: the rules judge, its GREEN-format text parsed by
  the standard parser, and the report phrases each error is about;
- :func:`score_live`: one model call through the same gateway as runs
  (``core.judges.llm``: retries, timeout, ``local_only``, key redaction);
- :func:`highlight_html`: a report as HTML with phrases marked, escaped first.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass, field

from core.judges.llm import Caller, GenParams, check_endpoint, check_model, run_on_gateway_loop
from core.parse import ParseResult, parse_output
from core.settings import local_only as local_only_setting

__all__ = ["LIVE_PROMPTS", "LiveCallFailed", "Marked", "RulesLive", "highlight_html", "score_live",
           "score_rules_live"]

# Prompts answered in GREEN's format (what parse_output reads), without shots.
LIVE_PROMPTS = ("green", "green_original", "vert", "formula", "rubric")


class LiveCallFailed(RuntimeError):
    """The model call failed; the message is already free of credentials."""


@dataclass(frozen=True)
class Marked:
    """A report phrase an error is about."""

    phrase: str
    category: str
    significant: bool

    @property
    def label(self) -> str:
        return f"({self.category}) {'significant' if self.significant else 'insignificant'}"


@dataclass
class RulesLive:
    raw_text: str
    parsed: ParseResult
    latency_ms: float
    reference_marks: list[Marked] = field(default_factory=list)
    candidate_marks: list[Marked] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)  # category, significant, text
    matched_findings: list[str] = field(default_factory=list)


def score_rules_live(reference: str, candidate: str) -> RulesLive:
    """The rules judge on one pair, parsed as a stored run would be."""
    from core.judges.rules import judge_pair, render_green

    t0 = time.perf_counter()
    result = judge_pair(reference, candidate)
    raw = render_green(result)
    parsed = parse_output(raw)
    latency = (time.perf_counter() - t0) * 1000
    ref_marks, cand_marks = [], []
    for e in result.errors:
        if e.reference is not None and e.reference.text:
            ref_marks.append(Marked(e.reference.text, e.category, e.significant))
        if e.candidate is not None and e.candidate.text:
            cand_marks.append(Marked(e.candidate.text, e.category, e.significant))
    errors = [{"category": e.category, "significant": e.significant, "text": e.explanation} for e in result.errors]
    matched = [m.reference.describe() for m in result.matches if m.counted]
    return RulesLive(raw, parsed, latency, ref_marks, cand_marks, errors, matched)


def score_live(reference: str, candidate: str, model: str, prompt_id: str = "green", api_base: str | None = None,
               api_key: str | None = None, params: GenParams | None = None, *, local_only: bool | None = None,
               timeout: float = 120.0, max_retries: int = 2) -> tuple[str, ParseResult, float, float | None]:
    """One call of ``model`` on one pair: ``(raw_text, parsed, latency_ms, cost_usd or None)``.

    Raises ``EndpointRefused`` (local_only), ``ModelNotUsable`` (no provider for the model name),
    ``ValueError`` (unknown prompt) before any request, and :class:`LiveCallFailed` when the call
    fails.
    """
    from core.prompts import render_messages

    if prompt_id not in LIVE_PROMPTS:
        raise ValueError(f"live scoring uses a zero-shot GREEN-format prompt: {', '.join(LIVE_PROMPTS)}")
    check_endpoint(model, api_base, local_only_setting() if local_only is None else local_only)
    check_model(model, api_base)
    messages = render_messages(prompt_id, reference, candidate)
    caller = Caller(model, params or GenParams(), api_base, api_key, timeout, max_retries, backoff=0.5)
    rec = run_on_gateway_loop(caller.call(messages))
    if rec.error is not None:
        raise LiveCallFailed(rec.error)  # Caller already redacted it
    raw = rec.raw_text or ""
    return raw, parse_output(raw), float(rec.latency_ms or 0.0), rec.cost_usd


# -- highlighting -------------------------------------------------------------------

# After html.escape, Markdown / Streamlit-directive characters become numeric
# entities too, so the result is inert whatever st.markdown does with it.
_MD_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "*_`[]$:~|\\{}"})


def _escape(text: str) -> str:
    return html.escape(text, quote=True).translate(_MD_ENTITIES)


def highlight_html(text: str, marks: list[Marked]) -> str:
    """``text`` as safe HTML with each mark's phrase wrapped in ``<mark>``.

    The whole text is escaped FIRST (HTML, then Markdown characters as
    entities); phrases are escaped the same way and searched in the escaped
    text (case-insensitive, any whitespace between words, never starting
    inside an entity), so the only tags in the result are the ``<mark>`` and
    ``<br>`` added here and the wrapping ``<div>``. Overlapping marks: the
    earlier one wins.
    """
    escaped = _escape(text or "")
    spans: list[tuple[int, int, str]] = []
    for mark in marks:
        words = _escape(mark.phrase).split()
        if not words:
            continue
        pattern = re.compile(r"(?<![&#\w])" + r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
        spans += [(m.start(), m.end(), mark.label) for m in pattern.finditer(escaped)]
    spans.sort(key=lambda s: (s[0], -s[1]))
    parts, pos = [], 0
    for start, end, label in spans:
        if start < pos:
            continue
        parts.append(escaped[pos:start])
        parts.append(f'<mark title="{html.escape(label)}">{escaped[start:end]}</mark>')
        pos = end
    parts.append(escaped[pos:])
    body = "".join(parts).replace("\r\n", "\n").replace("\n", "<br>")
    # One HTML block (no blank line inside), so Markdown never parses the body.
    return f'<div class="radjudge-report">{body}</div>'
