"""The adversarial phase (LAIas Bench Sec. 4.3): an LLM judge's per-dimension 1-5 scores.

The prompt is ``prompts/laias_judge.txt`` (prompt id ``laias_judge``): the
paper describes the judge's inputs and JSON answer but does not publish its
text, so the template is designed from that description and says so. Its
locale part comes from the pack (``LocaleSpec.judge_instructions``); the
exam descriptor is ``meta.exam`` or "<modality> <anatomy>"; the reference
report is given as the findings and the candidate as the generated report.

Calls go through the LLM runner's machinery (:mod:`core.judges.llm`): the same
cache key, concurrency, retries, batching and resumable runs. The answer is
parsed with tolerance for code fences and trailing commas (Sec. 4.3) into
metric values ``laias_adv_crit`` .. ``laias_adv_rag``, ``laias_adv_critical``,
``laias_adv_missing``, ``laias_adv_hallucinated`` and ``laias_adv_overall``
(the weighted overall of the judge's own scores, App. C weights). The run records the
locale in its params and the hash of the template plus the locale part.
"""

from __future__ import annotations

import json
import re
import threading
from functools import partial
from pathlib import Path

from core.checks.locale import get_locale
from core.checks.registry import DIMENSION_NAMES, DIMENSIONS
from core.checks.scoring import weighted_overall
from core.prompts.jsonanswer import extract_json_object, norm_key
from core.prompts.loader import body_hash, substitute

PROMPT_ID = "laias_judge"
TEMPLATE = Path(__file__).with_name("prompts") / "laias_judge.txt"
ADV_METRICS = {d: f"laias_adv_{d.lower()}" for d in DIMENSIONS}
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def laias_template() -> tuple[dict[str, str], str]:
    text = TEMPLATE.read_text(encoding="utf-8")
    head, _, body = text.partition("\n\n")
    header = {}
    for line in head.splitlines():
        key, _, value = line.lstrip("# ").partition(":")
        header[key.strip()] = value.strip()
    return header, body.rstrip("\n")


def prompt_hash(locale: str) -> str:
    """Hash of the template body and the locale's instructions: what the judge is asked, exactly."""
    _, body = laias_template()
    return body_hash(body + "\n" + get_locale(locale).judge_instructions)


def exam_text(modality: str | None, anatomy: str | None, meta: str | None) -> str:
    try:
        exam = json.loads(meta).get("exam") if meta else None
    except (ValueError, AttributeError):
        exam = None
    return exam if isinstance(exam, str) and exam.strip() else (" ".join(p for p in (modality, anatomy) if p)
                                                                 or "not given")


def render(reference: str, candidate: str, *, locale: str = "en-US", exam: str = "not given") -> list[dict]:
    """The chat messages of one judge call (one user message, reports inserted verbatim)."""
    _, body = laias_template()
    text = substitute(body, {"locale_instructions": get_locale(locale).judge_instructions, "exam": exam,
                             "findings": reference, "report": candidate}, template_id=PROMPT_ID)
    return [{"role": "user", "content": text}]


_DIM_KEYS = {**{norm_key(d): d for d in DIMENSIONS}, **{norm_key(n): d for d, n in DIMENSION_NAMES.items()},
             "hallucination": "CRIT", "structural quality": "QUAL", "terminology correctness": "TERM",
             "anatomical coverage": "GUIDE", "template fidelity": "RAG"}


def _count(value) -> int:
    if value is None:
        return 0
    if isinstance(value, list):
        return len([v for v in value if v not in (None, "", {})])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    return 1 if str(value).strip() else 0


def parse_answer(text: str) -> dict:
    """The judge's JSON -> {"scores": {dim: 1-5 or None}, "critical": n, "missing": n, "hallucinated": n}.

    ``ValueError`` when there is no JSON object or no usable score at all; a
    score outside 1-5 or not a number is left out (unknown), never clamped.
    """
    # Repair trailing commas first: on the raw text the first *valid* object could be the inner scores
    # object alone, losing the critical failures next to it.
    obj = extract_json_object(_TRAILING_COMMA.sub(r"\1", text) if isinstance(text, str) else text)
    fields = {norm_key(k): v for k, v in obj.items()}
    raw = fields.get("scores")
    if not isinstance(raw, dict):
        raw = {k: v for k, v in obj.items() if norm_key(k) in _DIM_KEYS}
    scores: dict[str, float | None] = dict.fromkeys(DIMENSIONS)
    for key, value in raw.items():
        dim = _DIM_KEYS.get(norm_key(key))
        if dim is None:
            continue
        try:
            v = float(value)
        except (TypeError, ValueError):
            continue
        if 1.0 <= v <= 5.0:
            scores[dim] = round(v, 1)
    if all(v is None for v in scores.values()):
        raise ValueError("the judge's answer has no 1-5 dimension score")
    return {"scores": scores, "critical": _count(fields.get("critical failures")),
            "missing": _count(fields.get("missing findings")),
            "hallucinated": _count(fields.get("hallucinated findings"))}


def parse_for_store(text: str):
    """(status, reason, metric values) for :mod:`core.judges.runs` (the prompt's parser in core.prompts.specs)."""
    try:
        parsed = parse_answer(text)
    except ValueError as exc:
        return "failed", str(exc)[:300], {}
    values = {ADV_METRICS[d]: v for d, v in parsed["scores"].items() if v is not None}
    overall = weighted_overall({d: None if v is None else int(round(v * 10)) for d, v in parsed["scores"].items()})
    if overall is not None:
        values["laias_adv_overall"] = float(overall)
    values.update(laias_adv_critical=parsed["critical"], laias_adv_missing=parsed["missing"],
                  laias_adv_hallucinated=parsed["hallucinated"])
    complete = all(v is not None for v in parsed["scores"].values())
    return ("ok" if complete else "partial"), "" if complete else "some dimension scores missing", values


def run_laias_judge(store, *, dataset: str, model: str, prompt_id: str = PROMPT_ID, locale: str = "en-US",
                    pair_ids: list[str] | None = None, limit: int | None = None, api_base: str | None = None,
                    api_key: str | None = None, concurrency: int = 8, timeout: float = 120.0,
                    max_retries: int = 4, backoff: float = 0.5, params=None, progress=None,
                    cancel: threading.Event | None = None, local_only: bool | None = None,
                    flush_interval: float = 0.5, shots=None):
    """The adversarial phase on a dataset's pairs with ``model``; returns the runner's RunSummary."""
    from core.judges.caller import Caller
    from core.judges.endpoints import check_endpoint, safe_api_base
    from core.judges.execute import execute_plan
    from core.judges.generate import GenerateConfig
    from core.judges.plan import plan_rows
    from core.judges.runs import RunSpec
    from core.settings import local_only as local_only_setting

    if prompt_id != PROMPT_ID:
        raise ValueError(f"unknown LAIas prompt '{prompt_id}'; use {PROMPT_ID}")
    if shots is not None:
        raise ValueError(f"{PROMPT_ID} takes no few-shot examples")
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    params = params or GenerateConfig()
    check_endpoint(model, api_base, local_only_setting() if local_only is None else local_only)
    sql = "SELECT pair_id, ext_id, reference, candidate, modality, anatomy, meta FROM pairs WHERE dataset = ?"
    args: list = [dataset]
    if pair_ids is not None:
        sql += " AND pair_id IN (SELECT unnest(?::VARCHAR[]))"
        args.append(list(pair_ids))
    sql += " ORDER BY ext_id" + (" LIMIT ?" if limit is not None else "")
    pairs = store.query_df(sql, args + ([int(limit)] if limit is not None else []))
    if pairs.empty and store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]) == 0:
        raise ValueError(f"dataset '{dataset}' not found")
    run_params = {**params.as_dict(), "locale": locale}
    if api_base:
        run_params["api_base"] = safe_api_base(api_base)
    spec = RunSpec("llm", model, dataset, model=model, prompt_id=PROMPT_ID, prompt_hash=prompt_hash(locale),
                   params=run_params)
    the_plan = plan_rows(spec, params, pairs.itertuples(index=False), lambda row: render(
        row.reference, row.candidate, locale=locale, exam=exam_text(row.modality, row.anatomy, row.meta)))
    caller = partial(Caller, model, params, api_base, api_key, timeout, max_retries, backoff)
    return execute_plan(store, the_plan, caller, concurrency=concurrency, progress=progress, cancel=cancel,
                        flush_interval=flush_interval)
