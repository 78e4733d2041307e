"""Judge prompts -> chat messages, and the (prompt_id, hash) recorded with a run.

Prompt ids (``list_prompts()``):

- zero-shot, one template each: ``green`` (D.1), ``green_original`` (GREEN
  A.1), ``vert`` (D.2), ``formula`` (D.3), ``rubric`` (D.4), ``radfact`` and
  ``fineradscore`` (designed baselines);
- few-shot, the vert prompt plus a section (D.5-D.9): ``vert_random``,
  ``vert_rad_err``, ``vert_rate_err``, ``vert_rad_err_10``, ``vert_rate_err_10``;
- injection and validation (used through ``core.prompts.injection``):
  ``inject_false_finding``, ``inject_omission``, ``plausibility``.

A prompt made of one template has that template's hash. A prompt made of
several has the first 16 hex characters of the SHA-256 of its templates'
``id:hash`` lines plus the few-shot formatting constants, so editing any part
(or the category names used to expand the count lines) changes it.
"""

from __future__ import annotations

import hashlib
import json
from typing import NamedTuple

from core.taxonomy import CONTEXT_FIELDS

from .baselines import number_lines
from .fewshot import (
    CATEGORY_NAMES,
    EXAMPLE_SEPARATOR,
    FEWSHOT_VARIANTS,
    Shot,
    render_fewshot_section,
)
from .loader import get_template

__all__ = [
    "CONTEXT_PROMPTS",
    "INJECTION_PROMPTS",
    "JUDGE_PROMPTS",
    "RenderedPrompt",
    "check_context",
    "list_prompts",
    "prompt_hash",
    "prompt_for",
    "prompt_templates",
    "render_messages",
]

ZERO_SHOT = ("green", "green_original", "vert", "formula", "rubric", "radfact", "fineradscore")
BASE_SEPARATOR = "\n\n"  # between the rendered vert prompt and the few-shot section
_FEWSHOT_BY_PROMPT = {v.prompt_id: v for v in FEWSHOT_VARIANTS.values()}

# Prompts that read a pair's patient context (core.taxonomy.CONTEXT_FIELDS); the others ignore it.
CONTEXT_PROMPTS: frozenset[str] = frozenset()

# prompt id -> the template ids it is made of
JUDGE_PROMPTS: dict[str, tuple[str, ...]] = {
    **{pid: (pid,) for pid in ZERO_SHOT},
    **{v.prompt_id: ("vert", v.section_template, v.example_template)
       for v in FEWSHOT_VARIANTS.values()},
}
INJECTION_PROMPTS: dict[str, tuple[str, ...]] = {
    "inject_false_finding": ("inject_false_finding", "inject_user"),
    "inject_omission": ("inject_omission", "inject_user"),
    "plausibility": ("plausibility", "plausibility_user"),
}
# Formatting done in code rather than in a template; part of the few-shot hash.
_FEWSHOT_FORMAT = {
    "category_names": CATEGORY_NAMES,
    "example_separator": EXAMPLE_SEPARATOR,
    "base_separator": BASE_SEPARATOR,
    "score": "{:.2f}",
    "count": "integer, or up to 2 decimals",
}


class RenderedPrompt(NamedTuple):
    """What a judge call needs (``messages``) and what its run records."""

    messages: list[dict[str, str]]
    prompt_id: str
    prompt_hash: str


def list_prompts(include_injection: bool = False) -> list[str]:
    """Judge prompt ids (and the injection/validation ids if asked)."""
    ids = list(JUDGE_PROMPTS)
    if include_injection:
        ids += list(INJECTION_PROMPTS)
    return ids


def prompt_templates(prompt_id: str) -> tuple[str, ...]:
    """The template ids a prompt is made of; ``ValueError`` listing valid ids."""
    parts = JUDGE_PROMPTS.get(prompt_id) or INJECTION_PROMPTS.get(prompt_id)
    if parts is None:
        raise ValueError(
            f"unknown prompt id {prompt_id!r}; valid ids: "
            f"{', '.join(list_prompts(include_injection=True))}"
        )
    return parts


def prompt_hash(prompt_id: str) -> str:
    """Hash identifying the full text definition of a prompt (see module docstring)."""
    parts = prompt_templates(prompt_id)
    if len(parts) == 1:
        return get_template(parts[0]).hash
    payload = {"templates": [f"{t}:{get_template(t).hash}" for t in parts]}
    if prompt_id in _FEWSHOT_BY_PROMPT:
        payload["format"] = _FEWSHOT_FORMAT
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


def _effective_id(prompt_id: str, shots: list[Shot] | None) -> str:
    if prompt_id in INJECTION_PROMPTS and prompt_id not in JUDGE_PROMPTS:
        raise ValueError(
            f"{prompt_id!r} is not a judge prompt: use core.prompts.injection "
            "(render_injection / render_plausibility)"
        )
    prompt_templates(prompt_id)  # unknown id -> ValueError with the list
    if prompt_id in _FEWSHOT_BY_PROMPT:
        if not shots:
            raise ValueError(f"{prompt_id!r} is a few-shot prompt: pass its shots")
        return prompt_id
    if shots is None:
        return prompt_id
    if prompt_id == "vert":
        return FEWSHOT_VARIANTS["random"].prompt_id  # D.5, the plain few-shot form
    raise ValueError(
        f"the paper adds shots to the VERT prompt only; {prompt_id!r} takes no shots "
        f"(few-shot ids: {', '.join(_FEWSHOT_BY_PROMPT)})"
    )


def _check_report(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be str, got {type(value).__name__}")
    return value


def _render(prompt_id: str, reference: str, candidate: str, shots: list[Shot] | None) -> str:
    if prompt_id in _FEWSHOT_BY_PROMPT:
        base = get_template("vert").render(reference=reference, candidate=candidate)
        section = render_fewshot_section(_FEWSHOT_BY_PROMPT[prompt_id].name, list(shots or []))
        return base + BASE_SEPARATOR + section
    template = get_template(prompt_id)
    values = {"reference": reference, "candidate": candidate}
    if "candidate_lines" in template.placeholders:
        values["candidate_lines"] = number_lines(candidate)
    return template.render(**values)


def check_context(context: dict[str, str] | None) -> dict[str, str]:
    """The non-empty fields of a patient context, in ``CONTEXT_FIELDS`` order; ValueError for an unknown key."""
    if not context:
        return {}
    unknown = sorted(set(context) - set(CONTEXT_FIELDS))
    if unknown:
        raise ValueError(f"unknown context fields {unknown}; valid: {', '.join(CONTEXT_FIELDS)}")
    out = {}
    for name in CONTEXT_FIELDS:
        value = context.get(name)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"context field {name!r} must be str, got {type(value).__name__}")
        if value is not None and value.strip():
            out[name] = value.strip()
    return out


def render_messages(
    prompt_id: str,
    reference: str,
    candidate: str,
    shots: list[Shot] | None = None,
    context: dict[str, str] | None = None,
) -> list[dict[str, str]]:
    """litellm/OpenAI chat messages for judging *candidate* against *reference*.

    All paper judge prompts are a single user message (none has a system
    part). Reports are inserted verbatim, whatever braces they contain.
    ``shots`` with ``prompt_id="vert"`` means the D.5 form (``vert_random``).
    ``context`` (patient age, sex, indication, history) is read by the
    prompts of ``CONTEXT_PROMPTS`` only; the others ignore it.
    """
    check_context(context)
    reference = _check_report(reference, "reference")
    candidate = _check_report(candidate, "candidate")
    effective = _effective_id(prompt_id, shots)
    return [{"role": "user", "content": _render(effective, reference, candidate, shots)}]


def prompt_for(
    prompt_id: str,
    reference: str,
    candidate: str,
    shots: list[Shot] | None = None,
) -> RenderedPrompt:
    """``render_messages`` plus the ``(prompt_id, prompt_hash)`` to record on the run.

    The returned id is the effective one (``vert`` with shots -> ``vert_random``).
    Store the shot record returned by the few-shot builder alongside.
    """
    messages = render_messages(prompt_id, reference, candidate, shots)
    effective = _effective_id(prompt_id, shots)
    return RenderedPrompt(messages, effective, prompt_hash(effective))
