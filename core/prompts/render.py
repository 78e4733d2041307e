"""Judge prompts -> chat messages, and the (prompt_id, hash) recorded with a run.

Prompt ids (``list_prompts()``):

- zero-shot, one template each: ``green`` (D.1), ``green_original`` (GREEN
  A.1), ``vert`` (D.2), ``formula`` (D.3), ``rubric`` (D.4), ``radfact`` and
  ``fineradscore`` (designed baselines);
- few-shot, the vert prompt plus a section (D.5-D.9): ``vert_random``,
  ``vert_rad_err``, ``vert_rate_err``, ``vert_rad_err_10``, ``vert_rate_err_10``;
- CRIMSON (rajpurkarlab/CRIMSON ``build_prompt``; a system and a user
  message): ``crimson`` (every guideline, the pair's patient context when it
  has any), ``crimson_nocontext`` (the same, never a context),
  ``crimson_noguide`` (no guidelines: what upstream sends its fine-tuned
  MedGemma; the context when there is one), ``crimson_noguide_nocontext``;
- injection and validation (used through ``core.prompts.injection``):
  ``inject_false_finding``, ``inject_omission``, ``plausibility``.

A prompt made of one template has that template's hash. A prompt made of
several has the first 16 hex characters of the SHA-256 of its templates'
``id:hash`` lines plus the formatting done in code (few-shot constants; CRIMSON's
context block and which parts a variant uses), so editing any part (or the
category names used to expand the count lines) changes it.
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
    Shot,
    render_fewshot_section,
)
from .loader import get_template
from .specs import PROMPTS, PromptSpec, prompt_ids, resolve

__all__ = [
    "CONTEXT_PROMPTS",
    "CRIMSON_CONTEXT_LABELS",
    "CRIMSON_PROMPTS",
    "RenderedPrompt",
    "check_context",
    "list_prompts",
    "prompt_hash",
    "prompt_for",
    "prompt_templates",
    "render_messages",
]

BASE_SEPARATOR = "\n\n"  # between the rendered vert prompt and the few-shot section

# CRIMSON prompt id -> (with the guidelines, reads the pair's context): build_prompt's include_guidelines and
# patient_context (None vs given), read from the table (core.prompts.specs). Without guidelines upstream drops
# the context guidelines, not the context.
CRIMSON_PROMPTS: dict[str, tuple[bool, bool]] = {
    s.id: (s.guidelines, s.reads_context) for s in PROMPTS.values() if s.family == "crimson"}
# How a context field is named in CRIMSON's "Patient Context:" block: upstream prints the dict's keys as given,
# and its README's example writes them capitalised ({"Age": "82", "Indication": "..."}).
CRIMSON_CONTEXT_LABELS = {"age": "Age", "sex": "Sex", "indication": "Indication", "history": "History"}
_CRIMSON_FORMAT = {"section_separator": "\n\n", "context_header": "Patient Context:\n",
                   "context_line": "    {label}: {value}\n", "labels": CRIMSON_CONTEXT_LABELS,
                   "context_guidelines_end": "\n"}

# Prompts that read a pair's patient context (core.taxonomy.CONTEXT_FIELDS); the others ignore it.
CONTEXT_PROMPTS: frozenset[str] = frozenset(s.id for s in PROMPTS.values() if s.reads_context)
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
    return prompt_ids("judge", "injection") if include_injection else prompt_ids("judge")


def prompt_templates(prompt_id: str) -> tuple[str, ...]:
    """The template ids a prompt is made of; ``ValueError`` listing valid ids."""
    spec = PROMPTS.get(prompt_id)
    if spec is None or spec.use not in ("judge", "injection"):
        raise ValueError(
            f"unknown prompt id {prompt_id!r}; valid ids: "
            f"{', '.join(list_prompts(include_injection=True))}"
        )
    return spec.templates


def prompt_hash(prompt_id: str) -> str:
    """Hash identifying the full text definition of a prompt (see module docstring)."""
    parts = prompt_templates(prompt_id)
    if len(parts) == 1:
        return get_template(parts[0]).hash
    payload = {"templates": [f"{t}:{get_template(t).hash}" for t in parts]}
    if PROMPTS[prompt_id].family == "fewshot":
        payload["format"] = _FEWSHOT_FORMAT
    if PROMPTS[prompt_id].family == "crimson":
        spec = PROMPTS[prompt_id]
        payload["format"] = _CRIMSON_FORMAT | {"guidelines": spec.guidelines, "context": spec.reads_context}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


def _effective_id(prompt_id: str, shots: list[Shot] | None) -> str:
    if prompt_id in PROMPTS and PROMPTS[prompt_id].use == "injection":
        raise ValueError(
            f"{prompt_id!r} is not a judge prompt: use core.prompts.injection "
            "(render_injection / render_plausibility)"
        )
    prompt_templates(prompt_id)  # unknown id -> ValueError with the list
    if PROMPTS[prompt_id].shots is not None:
        if not shots:
            raise ValueError(f"{prompt_id!r} is a few-shot prompt: pass its shots")
        return prompt_id
    if shots is None:
        return prompt_id
    if PROMPTS[prompt_id].with_shots:
        return PROMPTS[prompt_id].with_shots  # vert: D.5, the plain few-shot form
    raise ValueError(
        f"the paper adds shots to the VERT prompt only; {prompt_id!r} takes no shots "
        f"(few-shot ids: {', '.join(p for p in prompt_ids() if PROMPTS[p].shots)})"
    )


def _check_report(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be str, got {type(value).__name__}")
    return value


def render_crimson(spec: PromptSpec, reference: str, candidate: str, shots, context: dict[str, str]) -> list[dict]:
    """build_prompt's text for this variant, after upstream's system message.

    The context block is build_prompt's ``Patient Context:`` section (one ``    Label: value`` line per known
    field); with guidelines, the context guidelines follow the attribute guidelines when a context is given.
    """
    context = context if spec.reads_context else {}
    block = "".join(f"    {CRIMSON_CONTEXT_LABELS[k]}: {v}\n" for k, v in context.items())
    values = {"patient_context": "\n\nPatient Context:\n" + block if context else "",
              "reference": reference, "candidate": candidate}
    if spec.guidelines:
        extra = get_template("crimson_context_guidelines").body + "\n"
        values["context_guidelines"] = "\n\n" + extra if context else ""
    user = get_template("crimson" if spec.guidelines else "crimson_noguide").render(**values)
    return [{"role": "system", "content": get_template("crimson_system").body}, {"role": "user", "content": user}]


def render_fewshot(spec: PromptSpec, reference: str, candidate: str, shots: list[Shot] | None, context) -> list[dict]:
    """The vert prompt, then the few-shot section of the row's variant (VERT D.5-D.9): one user message."""
    base = get_template(spec.templates[0]).render(reference=reference, candidate=candidate)
    section = render_fewshot_section(spec.shots, list(shots or []))
    return [{"role": "user", "content": base + BASE_SEPARATOR + section}]


def render_single(spec: PromptSpec, reference: str, candidate: str, shots, context) -> list[dict]:
    """The row's one template as one user message (the candidate's numbered lines where it asks for them)."""
    template = get_template(spec.templates[0])
    values = {"reference": reference, "candidate": candidate}
    if "candidate_lines" in template.placeholders:
        values["candidate_lines"] = number_lines(candidate)
    return [{"role": "user", "content": template.render(**values)}]


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

    The paper judge prompts are a single user message (none has a system
    part); CRIMSON's are upstream's system message and its prompt. Reports are
    inserted verbatim, whatever braces they contain.
    ``shots`` with ``prompt_id="vert"`` means the D.5 form (``vert_random``).
    ``context`` (patient age, sex, indication, history) is read by the
    prompts of ``CONTEXT_PROMPTS`` only; the others ignore it. The row's ``render`` (core.prompts.specs)
    makes the messages.
    """
    context = check_context(context)
    reference = _check_report(reference, "reference")
    candidate = _check_report(candidate, "candidate")
    spec = PROMPTS[_effective_id(prompt_id, shots)]
    return resolve(spec.render)(spec, reference, candidate, shots, context)


def prompt_for(
    prompt_id: str,
    reference: str,
    candidate: str,
    shots: list[Shot] | None = None,
    context: dict[str, str] | None = None,
) -> RenderedPrompt:
    """``render_messages`` plus the ``(prompt_id, prompt_hash)`` to record on the run.

    The returned id is the effective one (``vert`` with shots -> ``vert_random``).
    Store the shot record returned by the few-shot builder alongside.
    """
    messages = render_messages(prompt_id, reference, candidate, shots, context)
    effective = _effective_id(prompt_id, shots)
    return RenderedPrompt(messages, effective, prompt_hash(effective))
