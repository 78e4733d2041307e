"""Versioned prompt templates for LLM judges of radiology reports, and their builders.

Templates are text files in ``templates/`` (header of ``# key: value`` lines,
a blank line, then the body with ``{{name}}`` placeholders); each header
cites its source. Paper prompts are reproduced exactly; designed ones say so.

Main entry points:

- ``get_template(id)`` / ``list_templates()``: the files themselves.
- ``render_messages(prompt_id, reference, candidate, shots=None)`` and
  ``prompt_for(...)`` (adds the ``(prompt_id, prompt_hash)`` to record).
- few-shot builders (VERT D.5-D.9): ``sample_random_shots``,
  ``rad_err_shots``, ``rate_err_shots``, ``rad_err_10_shots``,
  ``rate_err_10_shots``; each returns ``(shots, record)``.
- error injection (VERT F.1-F.3): ``render_injection``,
  ``parse_injection_answer``, ``render_plausibility``,
  ``parse_plausibility_answer``.
- designed baselines: ``parse_radfact_answer``, ``parse_fineradscore_answer``.
"""

from .baselines import (
    SEVERITY_LEVELS,
    number_lines,
    parse_fineradscore_answer,
    parse_radfact_answer,
    split_lines,
)
from .fewshot import (
    ALLOWED_K,
    CATEGORIES,
    CATEGORY_NAMES,
    FEWSHOT_VARIANTS,
    Shot,
    pool_from_long,
    rad_err_10_shots,
    rad_err_score,
    rad_err_shots,
    rate_err_10_shots,
    rate_err_shots,
    render_fewshot_section,
    sample_random_shots,
)
from .injection import (
    INJECTION_K,
    INJECTION_KINDS,
    parse_injection_answer,
    parse_plausibility_answer,
    render_injection,
    render_plausibility,
)
from .loader import PromptTemplate, get_template, list_templates
from .render import (
    CONTEXT_PROMPTS,
    CRIMSON_CONTEXT_LABELS,
    CRIMSON_PROMPTS,
    RenderedPrompt,
    check_context,
    list_prompts,
    prompt_for,
    prompt_hash,
    prompt_templates,
    render_messages,
)
from .specs import PROMPTS, PromptSpec

__all__ = [
    "ALLOWED_K",
    "CATEGORIES",
    "CATEGORY_NAMES",
    "CONTEXT_PROMPTS",
    "CRIMSON_CONTEXT_LABELS",
    "CRIMSON_PROMPTS",
    "FEWSHOT_VARIANTS",
    "INJECTION_K",
    "INJECTION_KINDS",
    "PROMPTS",
    "PromptSpec",
    "PromptTemplate",
    "RenderedPrompt",
    "SEVERITY_LEVELS",
    "Shot",
    "check_context",
    "get_template",
    "list_prompts",
    "list_templates",
    "number_lines",
    "parse_fineradscore_answer",
    "parse_injection_answer",
    "parse_plausibility_answer",
    "parse_radfact_answer",
    "pool_from_long",
    "prompt_for",
    "prompt_hash",
    "prompt_templates",
    "rad_err_10_shots",
    "rad_err_score",
    "rad_err_shots",
    "rate_err_10_shots",
    "rate_err_shots",
    "render_fewshot_section",
    "render_injection",
    "render_messages",
    "render_plausibility",
    "sample_random_shots",
    "split_lines",
]
