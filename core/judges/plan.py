"""``plan(store, request) -> RunPlan``: what a model run will send, before anything is sent.

A plan holds the run's identity (its :class:`~core.judges.runs.RunSpec`: judge, dataset, prompt, prompt hash,
params, hence its run id), its generation settings and one named :class:`WorkItem` per pair: the messages
sent for it and the cache key its answer is stored under. The runner (:func:`core.judges.llm.run_llm_judge`)
executes a plan; the cost planner (``core.models.plan_run``, ``count_cached``) reads the same plan's items, so
its cache keys and token estimate are the run's. Runners that render their own messages (LAIas in
``core.checks.adversarial``, RADAR's review in ``core.review.judge``) build theirs with :func:`plan_rows`.
Leaf module: nothing here sends, stores or imports litellm.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from core.judges.endpoints import safe_api_base
from core.judges.generate import GenerateConfig, cache_key
from core.judges.messages import default_params, pair_messages
from core.judges.runs import RunSpec, crimson_map_param, load_pairs
from core.judges.shots import FEWSHOT_PROMPTS, ShotSource, build_shots
from core.store.db import Store


class WorkItem(NamedTuple):
    """One pair of a run, rendered: what is sent for it and the cache key its answer is stored under."""

    pair_id: str
    ext_id: str
    messages: list[dict]
    key: str


@dataclass(frozen=True)
class RunRequest:
    """A model run as asked for: which pairs, which prompt, how to generate, where (recorded, not checked)."""

    dataset: str
    model: str
    prompt_id: str = "green"
    pair_ids: list[str] | None = None  # None: every pair of the dataset (up to ``limit``)
    limit: int | None = None
    config: GenerateConfig | None = None  # None: the prompt's defaults (core.judges.messages.default_params)
    shots: ShotSource | None = None
    crimson_map: str | None = None
    api_base: str | None = None  # the endpoint that identifies the run (the first of several replicas)


@dataclass(frozen=True)
class RunPlan:
    """What one run sends: its identity, its generation settings, a :class:`WorkItem` per pair."""

    spec: RunSpec
    config: GenerateConfig
    work: list[WorkItem] = field(default_factory=list)
    seconds: float = 0.0  # spent rendering and keying the work

    @property
    def prompt_id(self) -> str:
        return self.spec.prompt_id or ""

    @property
    def keys(self) -> list[str]:
        return [w.key for w in self.work]


def plan_rows(spec: RunSpec, config: GenerateConfig, rows: Iterable,
              render: Callable[[object], list[dict]], keyed: Callable[[list[dict]], list[dict]] | None = None,
              ) -> RunPlan:
    """A plan of ``rows`` (each with ``pair_id`` and ``ext_id``) rendered by ``render``; the cache key is made of
    ``keyed(messages)`` when given (e.g. image paths replaced by their contents' digests), else the messages."""
    started = time.monotonic()
    work = []
    for row in rows:
        messages = render(row)
        key = cache_key(spec.model or spec.judge_name, keyed(messages) if keyed else messages, config)
        work.append(WorkItem(row.pair_id, row.ext_id, messages, key))
    return RunPlan(spec, config, work, time.monotonic() - started)


def plan(store: Store, request: RunRequest) -> RunPlan:
    """The plan of a registry prompt's run (``core.prompts``): pairs loaded, shots drawn, every pair rendered
    with its patient context; ValueError for an unknown prompt, a few-shot prompt without shots, a bad map."""
    from core.prompts import prompt_hash

    config = default_params(request.prompt_id, request.config)  # 8,192 for CRIMSON's prompts
    prompt_id = request.prompt_id
    pairs = load_pairs(store, request.dataset, request.pair_ids, request.limit)
    shot_list, run_params = None, config.as_dict()
    if prompt_id in FEWSHOT_PROMPTS or request.shots is not None:
        if request.shots is None:
            raise ValueError(f"'{prompt_id}' is a few-shot prompt: choose the dataset (and split) to draw shots from")
        if prompt_id == "vert":
            prompt_id = "vert_random"  # D.5: the VERT prompt with random shots
        shot_list, record = build_shots(store, prompt_id, request.shots, pairs, request.dataset)
        run_params["shots"] = record
    p_hash = prompt_hash(prompt_id)  # unknown prompt ids fail here, before any work
    if crimson_map_param(prompt_id, request.crimson_map):
        run_params["crimson_map"] = crimson_map_param(prompt_id, request.crimson_map)
    if request.api_base:
        run_params["api_base"] = safe_api_base(request.api_base)
    spec = RunSpec("llm", request.model, request.dataset, model=request.model, prompt_id=prompt_id,
                   prompt_hash=p_hash, params=run_params)
    return plan_rows(spec, config, pairs.itertuples(index=False),
                     lambda row: pair_messages(prompt_id, row, shot_list))
