"""One pair judged on demand (the Live scoring page): nothing is written to the store.

- :func:`score_rules_live`: the rules judge, its GREEN-format text parsed by
  the standard parser, and the report phrases each error is about; or, for a
  pair it cannot read (another language, a report longer than
  ``core.judges.bounds.MAX_REPORT_CHARS``) or a candidate that is not a
  report, the failure a run would record (``failure``), and no score;
- :func:`score_baseline_live`: the lexical and length baselines (their
  language check and length cap too);
- :func:`score_live`: one model call through the same gateway as runs
  (``core.judges.llm``: retries, timeout, ``local_only``, key redaction), with the
  patient context for context-aware prompts (CRIMSON); :func:`metric_order` names
  the scores to show for a prompt;
- :func:`highlight_html`: a report as HTML with phrases marked, escaped first;
- :func:`answer_json`: one judge's answer as the ``score`` command prints it.

The Live scoring page and ``python -m core score`` both call these, so they agree.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass, field

from core.judges.bounds import too_long
from core.judges.llm import Caller, GenParams, check_endpoint, check_model, run_on_gateway_loop
from core.judges.messages import default_params
from core.judges.runs import answer_reader
from core.parse import ParseResult, parse_output
from core.prompts.specs import PROMPTS
from core.settings import local_only as local_only_setting

__all__ = ["BASELINES", "CRIMSON_ORDER", "LIVE_PROMPTS", "METRIC_ORDER", "MEANINGS", "BaselineLive", "LiveCallFailed",
           "Marked", "RULES_ORDER", "RulesLive", "answer_json", "highlight_html", "metric_order", "score_baseline_live", "score_live",
           "score_rules_live"]

# Zero-shot prompts: GREEN's format (what parse_output reads), and CRIMSON's JSON (read into the same shape:
# scores, counts per category a-f, error texts, matched findings; core.parse.crimson).
LIVE_PROMPTS = tuple(s.id for s in PROMPTS.values() if s.live)  # the rows of core.prompts.specs marked live
#: The offline baselines besides the rules judge (metrics computed, not parsed from text).
BASELINES = ("lexical", "length")
#: The scores of a GREEN-format answer, in the order shown.
METRIC_ORDER = ("green", "green_f1", "formula", "ec_sig", "ec_total", "vert")
#: The rules judge's scores: GREEN's, and its CRIMSON-style score over its own findings (never the CRIMSON model's).
RULES_ORDER = (*METRIC_ORDER, "rules_crimson")
#: The scores of a CRIMSON answer, in the order shown.
CRIMSON_ORDER = ("crimson", "crimson_e_false", "crimson_e_miss", "crimson_e_attr", "crimson_false", "crimson_missing",
                 "crimson_attribute")
#: What each score means, in words (the formulas are core.analysis.scores.METRICS' descriptions).
MEANINGS = {
    "green": "share of findings right: matched findings against matched plus significant errors (higher is better)",
    "green_f1": "like GREEN, with the matched findings counted twice (higher is better)",
    "formula": "like GREEN, with significant errors counted twice and insignificant ones half (higher is better)",
    "ec_sig": "number of clinically significant errors (lower is better)",
    "ec_total": "number of errors, significant or not (lower is better)",
    "vert": "overall accuracy the model judge gives, 0 to 1 (higher is better)",
    "crimson": "weighted correct findings minus weighted false ones, over the weighted reference findings; 1 perfect, "
               "0 no better than a normal template, below 0 more weighted errors than correct findings (higher is "
               "better)",
    "rules_crimson": "CRIMSON's formula over the rules judge's own findings and significance levels (urgent 1, "
                     "actionable 0.5, not actionable 0.25, benign 0; no model): 1 perfect, below 0 more weighted "
                     "errors than correct findings (higher is better)",
    "crimson_e_false": "false findings weighed by significance: urgent 1, actionable 0.5, not actionable 0.25, "
                       "benign 0 (lower is better)",
    "crimson_e_miss": "missing findings weighed the same way (lower is better)",
    "crimson_e_attr": "attribute errors weighed 0.5 when significant, 0 when negligible (lower is better)",
    "crimson_false": "number of false findings (lower is better)",
    "crimson_missing": "number of missing findings (lower is better)",
    "crimson_attribute": "number of attribute errors: location, severity, descriptor, ... (lower is better)",
}


def metric_order(prompt_id: str | None, judge: str | None = None) -> tuple[str, ...]:
    """The scores shown for an answer to ``prompt_id`` (CRIMSON's, or GREEN's format for any other; the rules
    judge's own order for ``judge="rules"``)."""
    if judge == "rules":
        return RULES_ORDER
    spec = PROMPTS.get(prompt_id or "")
    return CRIMSON_ORDER if spec is not None and spec.family == "crimson" else METRIC_ORDER


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
    parsed: ParseResult | None  # None with a failure
    latency_ms: float
    reference_marks: list[Marked] = field(default_factory=list)
    candidate_marks: list[Marked] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)  # category, significant, text
    matched_findings: list[str] = field(default_factory=list)
    failure: str | None = None  # what a run records instead of a score (another language, not a report)


@dataclass
class BaselineLive:
    judge: str
    metrics: dict[str, float] | None  # None with a failure
    latency_ms: float
    failure: str | None = None


def score_rules_live(reference: str, candidate: str, context: dict[str, str] | None = None) -> RulesLive:
    """The rules judge on one pair, parsed as a stored run would be (a refused pair: ``failure``, no score).

    ``context`` (patient age, sex, indication, history) sets how much each finding matters (an aortic
    calcification in an 82-year-old is expected, in a 25-year-old with chest pain it is actionable:
    core.judges.rules.significance). The parsed metrics carry ``rules_crimson`` beside GREEN's.
    """
    from core.judges.rules import judge_pair, render_green, rules_crimson, screen_pair

    t0 = time.perf_counter()
    refused = too_long("rules", reference, candidate) or screen_pair(reference, candidate)
    if refused:
        return RulesLive("", None, (time.perf_counter() - t0) * 1000, failure=refused)
    result = judge_pair(reference, candidate, context=context)
    if result.failure:
        return RulesLive("", None, (time.perf_counter() - t0) * 1000, failure=result.failure)
    raw = render_green(result)
    parsed = parse_output(raw)
    parsed.metrics["rules_crimson"] = rules_crimson(result)
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


def score_baseline_live(judge: str, reference: str, candidate: str,
                        context: dict[str, str] | None = None) -> BaselineLive:
    """The lexical or length baseline on one pair, as the offline runner stores it (its language check too).

    ``context`` is accepted and ignored: these baselines compare the two texts only.
    """
    if judge not in BASELINES:
        raise ValueError(f"{judge!r} is not a baseline; baselines: {', '.join(BASELINES)}")
    from core.judges.registry import offline_module

    t0 = time.perf_counter()
    refused = too_long(judge, reference, candidate)
    if refused:
        return BaselineLive(judge, None, (time.perf_counter() - t0) * 1000, refused)
    rec = offline_module(judge).score_pair(reference, candidate)
    return BaselineLive(judge, rec.metrics, (time.perf_counter() - t0) * 1000, rec.error)


def answer_json(judge: str, *, parsed: ParseResult | None = None, raw: str | None = None,
                metrics: dict | None = None, latency_ms: float = 0.0, cost_usd: float | None = 0.0,
                errors: list[dict] | None = None, matched: list[str] | None = None, failure: str | None = None,
                prompt: str | None = None) -> dict:
    """One judge's answer on one pair as a JSON-ready dict (what ``score --json`` prints).

    ``scored`` is False with a ``failure`` (no metric is given then). For a GREEN-format answer the
    metrics are the parsed scores, with the error counts per category (``sig``/``insig``), the error
    texts and the matched findings; for a baseline, its metrics.
    """
    out: dict = {"judge": judge, "prompt": prompt, "scored": failure is None, "failure": failure,
                 "latency_ms": round(float(latency_ms), 3), "cost_usd": cost_usd}
    if failure is not None:
        return out | {"metrics": {}}
    if parsed is None:
        return out | {"metrics": {k: float(v) for k, v in (metrics or {}).items()}}
    if errors is None:
        errors = [{"category": e.category, "significant": e.significant, "text": e.text} for e in parsed.errors]
    return out | {
        "metrics": {m: parsed.metrics.get(m) for m in metric_order(prompt, judge)},
        "sig": dict(parsed.sig), "insig": dict(parsed.insig), "matched": parsed.matched,
        "errors": errors, "matched_findings": parsed.matched_findings if matched is None else matched,
        "parse_status": parsed.status, "raw_text": raw,
    }


def score_live(reference: str, candidate: str, model: str, prompt_id: str = "green", api_base: str | None = None,
               api_key: str | None = None, params: GenParams | None = None, *, local_only: bool | None = None,
               timeout: float = 120.0, max_retries: int = 2,
               context: dict[str, str] | None = None) -> tuple[str, ParseResult, float, float | None]:
    """One call of ``model`` on one pair: ``(raw_text, parsed, latency_ms, cost_usd or None)``.

    ``context`` (keys from ``core.taxonomy.CONTEXT_FIELDS``: age, sex, indication, history) goes into
    context-aware prompts (``core.prompts.CONTEXT_PROMPTS``); the other prompts do not read it. Without
    ``params``: temperature 0 and the prompt's default output budget (8,192 tokens for CRIMSON's).

    Raises ``EndpointRefused`` (local_only), ``ModelNotUsable`` (no provider for the model name),
    ``ValueError`` (unknown prompt) before any request, and :class:`LiveCallFailed` when the call
    fails.
    """
    from core.prompts import render_messages

    if prompt_id not in LIVE_PROMPTS:
        raise ValueError(f"live scoring uses a zero-shot GREEN-format or CRIMSON prompt: {', '.join(LIVE_PROMPTS)}")
    check_endpoint(model, api_base, local_only_setting() if local_only is None else local_only)
    check_model(model, api_base)
    messages = render_messages(prompt_id, reference, candidate, context=context)
    params = default_params(prompt_id, params)
    caller = Caller(model, params, api_base, api_key, timeout, max_retries, backoff=0.5)
    rec = run_on_gateway_loop(caller.call(messages))
    if rec.error is not None:
        raise LiveCallFailed(rec.error)  # Caller already redacted it
    raw = rec.raw_text or ""
    reader = answer_reader(prompt_id)  # CRIMSON's JSON, under the default category map
    return raw, reader(raw, {}) if reader else parse_output(raw), float(rec.latency_ms or 0.0), rec.cost_usd


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
    return f'<div class="radconcord-report">{body}</div>'
