"""How a model is asked to answer (inspect_ai's ``GenerateConfig`` idea): the settings that change the answer.

A frozen :class:`GenerateConfig` is on every model task of a job (``core.jobs.spec.Task.params``) and on every
run; the same object makes the cache key (:func:`cache_key`), the run's params and what is sent
(:func:`request_options`: the litellm call, the direct HTTP call and a batch request line all take it there).

``stop`` (stop sequences, for local servers) is sent and keyed only when it is not empty, so every cache key
and run id made before it existed is unchanged. Leaf module: it imports nothing of the runner.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields

from core.store.db import stable_hash

REASONING_EFFORTS = ("none", "low", "medium", "high")
#: Output tokens per answer when none is given (core.judges.messages: the prompts' own budgets).
DEFAULT_MAX_TOKENS = 2048


@dataclass(frozen=True)
class GenerateConfig:
    """Generation settings: they change the answer, so they are in the cache key and the run's params."""

    temperature: float = 0.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    reasoning_effort: str | None = None
    stop: tuple[str, ...] = ()

    def __post_init__(self):
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(f"reasoning effort must be one of {', '.join(REASONING_EFFORTS)}")
        if isinstance(self.stop, str) or not all(isinstance(s, str) and s for s in self.stop):
            raise ValueError("stop must be a list of non-empty strings")
        object.__setattr__(self, "stop", tuple(self.stop))

    def as_dict(self) -> dict:
        """The settings as the cache key and the run's params record them: None and an empty ``stop`` left out
        (so keys made before ``stop`` existed are unchanged)."""
        # fields are scalars: no deep copy (dataclasses.asdict) needed; computed once per cache key
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value == ():
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


GenParams = GenerateConfig  # the name the code used before (core.judges.llm exports both)


def request_options(config: GenerateConfig) -> dict:
    """What a request carries of ``config``: temperature and max_tokens always, the others when set."""
    out = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    if config.reasoning_effort is not None:
        out["reasoning_effort"] = config.reasoning_effort
    if config.stop:
        out["stop"] = list(config.stop)
    return out


def cache_key(model: str, messages: list[dict], params: GenerateConfig) -> str:
    payload = json.dumps({"model": model, "messages": messages, "params": params.as_dict()},
                         sort_keys=True, ensure_ascii=False)
    return stable_hash("llm-cache", payload, length=32)
