"""What a model judge sends for one pair: the prompt's messages, rendered with the pair's patient context,
and the prompt's output budget when the user sets none.

The run's plan (:func:`core.judges.plan.plan`: the runner and the cost planner ``core.models.plan_run``,
``count_cached``) renders through :func:`pair_messages`, so a plan's cache keys and token estimate are
those of the run. The budget is part of the cache key and the run id (``GenerateConfig.as_dict``): the CRIMSON
prompts default to 8,192 tokens, every other prompt keeps 2,048, so their cache keys and runs are unchanged.
"""

from __future__ import annotations

from core.judges.generate import DEFAULT_MAX_TOKENS, GenerateConfig
from core.reads.context import context_dict

__all__ = ["CRIMSON_MAX_TOKENS", "DEFAULT_MAX_TOKENS", "default_max_tokens", "default_params", "pair_messages"]

#: Output tokens per answer when none is given: DEFAULT_MAX_TOKENS (core.judges.generate) ... and for the
#: CRIMSON prompts, whose JSON answer lists every finding of both reports (upstream's generate_score.py
#: lets its local model's answers run to ``DEFAULT_MAX_NEW_TOKENS = 8192``).
CRIMSON_MAX_TOKENS = 8192


def default_max_tokens(prompt_id: str | None) -> int:
    """The output budget of ``prompt_id`` when the user sets none (its row's ``max_tokens``, core.prompts.specs:
    8,192 for a CRIMSON prompt, else 2,048); 2,048 for an id the table lacks."""
    from core.prompts.specs import prompt_spec

    spec = prompt_spec(prompt_id)
    return spec.max_tokens if spec is not None else DEFAULT_MAX_TOKENS


def default_params(prompt_id: str | None, params=None):
    """``params``, or the generation settings of a run of ``prompt_id`` the user set nothing for (its output
    budget, the rest ``GenParams``' defaults): the runner, Live scoring and the planner all take them here."""
    return params or GenerateConfig(max_tokens=default_max_tokens(prompt_id))


def pair_messages(prompt_id: str, row, shots=None) -> list[dict[str, str]]:
    """The messages a run of ``prompt_id`` sends for ``row`` (a ``load_pairs`` row: reference, candidate and
    the context fields); context-aware prompts (CRIMSON's) read its patient context, the others ignore it."""
    from core.prompts import render_messages

    return render_messages(prompt_id, row.reference, row.candidate, shots, context_dict(row))
