"""Judges by name: ``rules``, ``lexical``, ``length``, ``distilled:NAME``, or any litellm model.

A registry rather than an if-chain: each entry says how to run the judge;
unknown special names get the list of valid ones.
"""

from __future__ import annotations

from importlib import import_module

#: Offline judges (no key, no network): name -> module with ``spec_for(dataset)`` and ``score_pair``.
OFFLINE_MODULES = {"rules": "core.judges.rules", "lexical": "core.judges.lexical", "length": "core.judges.length"}
OFFLINE_JUDGES = tuple(OFFLINE_MODULES)


def offline_module(judge: str):
    return import_module(OFFLINE_MODULES[judge])


def run_judge(store, *, dataset: str, judge: str, prompt_id: str = "green", **kwargs):
    """Run ``judge`` on ``dataset``; returns a RunSummary (see core.judges.llm)."""
    from core.review.data import REVIEW_KIND, dataset_kind

    model = judge not in OFFLINE_JUDGES and not judge.startswith("distilled:")
    if model and (not judge or judge.strip() != judge):
        raise ValueError(f"judge name {judge!r} is not valid; use {', '.join(OFFLINE_JUDGES)}, distilled:NAME "
                         "or a model")
    review = dataset_kind(store, dataset) == REVIEW_KIND
    if model and (prompt_id == "laias_judge" or review):
        from core.judges.llm import check_model

        check_model(judge, kwargs.get("api_base"))  # before anything is stored or sent (run_llm_judge: its own)
    if review:  # edit review (RADAR): its own prompt and baseline
        from core.review.judge import run_review_judge

        return run_review_judge(store, dataset=dataset, judge=judge, prompt_id=prompt_id, **kwargs)
    if judge in OFFLINE_MODULES:
        from core.judges.offline import run_offline_judge

        module = offline_module(judge)
        return run_offline_judge(store, module.spec_for(dataset), module.score_pair, **_offline_kwargs(kwargs))
    if judge.startswith("distilled:"):
        from core.distill.judge import run_distilled_judge

        return run_distilled_judge(store, dataset, judge.split(":", 1)[1], **_offline_kwargs(kwargs))
    if prompt_id == "laias_judge":  # LAIas Bench adversarial phase: its own messages (core/checks/adversarial.py)
        from core.checks.adversarial import run_laias_judge

        return run_laias_judge(store, dataset=dataset, model=judge, **kwargs)
    from core.judges.llm import run_llm_judge

    return run_llm_judge(store, dataset=dataset, model=judge, prompt_id=prompt_id, **kwargs)


def _offline_kwargs(kwargs: dict) -> dict:
    return {k: kwargs[k] for k in ("pair_ids", "limit", "progress", "cancel") if k in kwargs}
