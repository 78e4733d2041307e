"""Which code runs a judge: one registration line per judge, its code imported only when it runs.

A run goes to the first registration that fits, looked at in this order:

* ``dataset_kind``: the dataset's kind has its own judging (an ``edit_review``
  dataset: RADAR's prompt for a model, the review rules for ``rules``);
* ``name``: an offline judge by name (no key, no network);
* ``prefix``: an offline judge family, the rest of the name its argument
  (``distilled:NAME``);
* ``prompt``: a model with a prompt that has its own runner (LAIas Bench's
  adversarial phase);
* ``model``: anything else is a litellm model name.

Each registration names its code as ``"module:function"``, imported on first
use, so this module imports no judge and no other package: ``core.checks``,
``core.distill`` and ``core.review`` import ``core.judges``, never the reverse.

How each kind of registration is called:

* ``name``: ``function`` is the module's ``score_pair(reference, candidate)``
  and the same module's ``spec_for(dataset)`` names the run; they go to
  :func:`core.judges.offline.run_offline_judge`.  Adding an offline judge is
  one module with these two functions and one ``name`` line below.
* ``prefix``: ``function(store, dataset, argument, **offline_kwargs)``.
* ``dataset_kind``: ``function(store, dataset=, judge=, prompt_id=, **kwargs)``.
* ``prompt``: ``function(store, dataset=, model=judge, **kwargs)``.
* ``model``: ``function(store, dataset=, model=judge, prompt_id=, **kwargs)``.

With ``check_model`` the model is checked (:func:`core.judges.llm.check_model`)
before anything is stored or sent; the ``model`` runner checks it itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module


@dataclass(frozen=True)
class Registration:
    on: str  # "dataset_kind" | "name" | "prefix" | "prompt" | "model"
    key: str  # the dataset kind, judge name, name prefix (ends in ":") or prompt id; "" for "model"
    target: str  # "module:function", imported on first use
    offline: bool = False  # runs with no key and no network
    check_model: bool = False  # a model judge is checked before the run starts


REGISTRY: tuple[Registration, ...] = (
    Registration("dataset_kind", "edit_review", "core.review.judge:run_review_judge", check_model=True),
    Registration("name", "rules", "core.judges.rules:score_pair", offline=True),
    Registration("name", "lexical", "core.judges.lexical:score_pair", offline=True),
    Registration("name", "length", "core.judges.length:score_pair", offline=True),
    Registration("prefix", "distilled:", "core.distill.judge:run_distilled_judge", offline=True),
    Registration("prompt", "laias_judge", "core.checks.adversarial:run_laias_judge", check_model=True),
    Registration("model", "", "core.judges.llm:run_llm_judge"),
)

#: Offline judges by name (no key, no network); ``distilled:NAME`` is offline too.
OFFLINE_JUDGES: tuple[str, ...] = tuple(r.key for r in REGISTRY if r.on == "name" and r.offline)
#: Offline judge name -> the module with its ``spec_for(dataset)`` and ``score_pair``.
OFFLINE_MODULES: dict[str, str] = {r.key: r.target.split(":")[0] for r in REGISTRY
                                   if r.on == "name" and r.offline}

_OFFLINE_KWARGS = ("pair_ids", "limit", "progress", "cancel")


def _entries(on: str) -> list[Registration]:
    return [r for r in REGISTRY if r.on == on]


@cache
def resolve(target: str):
    """The function a ``"module:function"`` target names (imported on first use)."""
    module, _, function = target.partition(":")
    return getattr(import_module(module), function)


def by_name(judge: str) -> Registration | None:
    """The offline registration (``name`` or ``prefix``) of ``judge``; None for a model."""
    for r in REGISTRY:
        if (r.on == "name" and judge == r.key) or (r.on == "prefix" and judge.startswith(r.key)):
            return r
    return None


def valid_names() -> str:
    """The judge names that are not models, as the error messages list them."""
    return ", ".join([*OFFLINE_JUDGES, *(f"{r.key}NAME" for r in _entries("prefix"))])


def offline_module(judge: str):
    """The module of offline judge ``judge`` (its ``spec_for`` and ``score_pair``)."""
    if judge not in OFFLINE_MODULES:
        raise KeyError(f"{judge!r} is not an offline judge; offline judges: {', '.join(OFFLINE_JUDGES)}")
    return import_module(OFFLINE_MODULES[judge])


def _dataset_kind(store, dataset: str) -> str | None:
    return store.query_one("SELECT kind FROM datasets WHERE name = ?", [dataset])


def _offline_kwargs(kwargs: dict) -> dict:
    return {k: kwargs[k] for k in _OFFLINE_KWARGS if k in kwargs}


def entry_for(store, dataset: str, judge: str, prompt_id: str) -> Registration:
    """The registration a run of ``judge`` (a name or a model) with ``prompt_id`` on ``dataset`` goes to."""
    kinds = _entries("dataset_kind")
    kind = _dataset_kind(store, dataset) if kinds else None
    entry = next((r for r in kinds if r.key == kind), None) or by_name(judge)
    return entry or next((r for r in _entries("prompt") if r.key == prompt_id), None) or _entries("model")[0]


def scale_problem(entry: Registration, judge: str, *, batch: bool, replicas: bool) -> str | None:
    """Why ``--batch`` or several endpoints cannot run on ``entry`` (a dataset kind's or a prompt's own runner,
    e.g. RADAR review or LAIas: they are for the plain model runner only), or None."""
    if (batch or replicas) and entry.on in ("dataset_kind", "prompt"):
        return (f"several --api-base and --batch run the plain model judge; {judge} on this dataset/prompt runs "
                f"{entry.target}: give one --api-base and no --batch")
    return None


def run_judge(store, *, dataset: str, judge: str, prompt_id: str = "green", **kwargs):
    """Run ``judge`` on ``dataset``; returns a RunSummary (see core.judges.llm). Called inside a read
    session (a dashboard run: Store.session), the run steps out of it: a model run writes from worker threads,
    which the session's read-only connection on this thread would hold off."""
    model = by_name(judge) is None
    if model and (not judge or judge.strip() != judge):  # refused before the store is touched
        raise ValueError(f"judge name {judge!r} is not valid; use {valid_names()} or a model")
    with store.outside_session():
        return _run_judge(store, model, dataset=dataset, judge=judge, prompt_id=prompt_id, **kwargs)


def _run_judge(store, model: bool, *, dataset: str, judge: str, prompt_id: str, **kwargs):
    entry = entry_for(store, dataset, judge, prompt_id)
    problem = scale_problem(entry, judge, batch=kwargs.get("batch") is not None,
                            replicas=isinstance(kwargs.get("api_base"), list))
    if problem:  # a job submitted from the dashboard reaches here without the CLI's check
        raise ValueError(problem)
    if model and entry.check_model:
        from core.judges.llm import check_model

        check_model(judge, kwargs.get("api_base"))  # before anything is stored or sent (run_llm_judge: its own)
    function = resolve(entry.target)
    if entry.on == "dataset_kind":
        return function(store, dataset=dataset, judge=judge, prompt_id=prompt_id, **kwargs)
    if entry.on == "name":
        from core.judges.offline import run_offline_judge

        return run_offline_judge(store, offline_module(judge).spec_for(dataset), function, **_offline_kwargs(kwargs))
    if entry.on == "prefix":
        return function(store, dataset, judge[len(entry.key):], **_offline_kwargs(kwargs))
    if entry.on == "prompt":
        return function(store, dataset=dataset, model=judge, **kwargs)
    return function(store, dataset=dataset, model=judge, prompt_id=prompt_id, **kwargs)
