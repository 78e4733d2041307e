"""Judging ``edit_review`` datasets: the offline rules baseline, or an LLM through the shared runner.

:func:`run_review_judge` is what ``core.judges.run_judge`` calls for a
dataset of kind ``edit_review``. LLM runs use the gateway of
:mod:`core.judges.llm` unchanged (semaphore, retries, timeouts, batched
commits, cache, cancel, key redaction); only the messages differ: the
``radar_review`` prompt plus, with ``slices=k`` (10, 20 or 50, RADAR sec.
5.1), k slices sampled uniformly from the edit's image series as base64
``image_url`` parts. ``k`` is recorded in the run's params (``slices`` and
``setting``), so each input setting is its own run.

Images are read only when a call is sent (at most ``concurrency`` edits'
slices in memory); the cache key hashes the slice *contents*, so an answer is
reused only for the same model, text, images and generation params.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from functools import partial
from pathlib import Path

from core.judges.caller import Caller
from core.judges.endpoints import check_endpoint, safe_api_base
from core.judges.execute import execute_plan
from core.judges.generate import GenerateConfig as GenParams
from core.judges.offline import run_offline_judge
from core.judges.plan import plan_rows
from core.judges.runs import OutputRecord, RunSpec
from core.judges.summary import RunSummary
from core.review import rules
from core.review.data import edits, require_review_dataset
from core.review.prompt import (
    PROMPT_ID,
    SLICE_CHOICES,
    data_url,
    render_review_messages,
    sample_slices,
    template,
)
from core.settings import local_only as local_only_setting
from core.store.db import Store

SAMPLING = "uniform: index round(i*(n-1)/(k-1)), i=0..k-1 (first and last slice included); all when n<=k"


def run_review_judge(store: Store, *, dataset: str, judge: str, prompt_id: str | None = None, **kwargs) -> RunSummary:
    """Run ``judge`` (``rules`` or a litellm model) on an ``edit_review`` dataset."""
    require_review_dataset(store, dataset)
    if judge == "rules":
        spec = RunSpec("rules", "rules", dataset, prompt_id="review_rules", prompt_hash=f"v{rules.VERSION}",
                       params={"setting": "rules (text only)", "version": rules.VERSION})
        offline = {k: kwargs[k] for k in ("pair_ids", "limit", "progress", "cancel") if k in kwargs}
        return run_offline_judge(store, spec, rules.score_pair, **offline)
    if judge in ("lexical", "length") or judge.startswith("distilled:"):
        raise ValueError(f"'{judge}' cannot judge edits; on an edit_review dataset use --judge rules or a model")
    if prompt_id not in (None, "green", PROMPT_ID):  # "green" is the CLI's default for report pairs
        raise ValueError(f"edit_review datasets use the '{PROMPT_ID}' prompt, not '{prompt_id}'")
    if kwargs.get("shots") is not None:
        raise ValueError("the edit-review prompt takes no few-shot examples")
    kwargs.pop("shots", None)
    return run_review_llm(store, dataset=dataset, model=judge, **kwargs)


def _file_digest(path: str) -> str:
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _with_images(messages: list[dict], convert) -> list[dict]:
    """A copy of ``messages`` with every image part's url passed through ``convert``."""
    out = copy.deepcopy(messages)
    for message in out:
        if isinstance(message.get("content"), list):
            for part in message["content"]:
                if part.get("type") == "image_url":
                    part["image_url"]["url"] = convert(part["image_url"]["url"])
    return out


class _ReviewCaller(Caller):
    """The gateway's caller, reading an edit's slices (paths) into data URLs just before the call."""

    async def call(self, messages):
        try:
            with_images = _with_images(messages, data_url)
        except (ValueError, OSError) as exc:  # a missing, unreadable or undecodable slice: this pair fails
            return OutputRecord(pair_id="", error=f"image: {exc}"[:500])
        return await super().call(with_images)


def run_review_llm(store: Store, *, dataset: str, model: str, slices: int | None = None,
                   pair_ids: list[str] | None = None, limit: int | None = None, api_base: str | None = None,
                   api_key: str | None = None, concurrency: int = 8, timeout: float = 120.0,
                   max_retries: int = 4, backoff: float = 0.5, params: GenParams | None = None,
                   progress=None, cancel: threading.Event | None = None, local_only: bool | None = None,
                   flush_interval: float = 0.5) -> RunSummary:
    """Ask ``model`` for the three labels of every edit; ``slices``: 0 (text only), 10, 20 or 50.

    Without ``slices``: 10 when the dataset has images, else text only.
    """
    params = params or GenParams()
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    check_endpoint(model, api_base, local_only_setting() if local_only is None else local_only)
    table = edits(store, dataset)
    if pair_ids is not None:
        table = table[table["pair_id"].isin(set(pair_ids))]
    if limit is not None:
        table = table.head(int(limit))
    images = {r.pair_id: list(r.meta.get("images") or []) for r in table.itertuples(index=False)}
    has_images = any(images.values())
    if slices is None:
        slices = SLICE_CHOICES[0] if has_images else 0
    if slices not in (0, *SLICE_CHOICES):
        raise ValueError(f"slices must be 0 (text only) or one of {', '.join(map(str, SLICE_CHOICES))}")
    if slices and not has_images:
        raise ValueError(f"dataset '{dataset}' has no image slices; use slices 0 (text only)")
    missing = sorted({p for paths in images.values() for p in paths if not Path(p).is_file()}) if slices else []
    if missing:
        raise ValueError(f"{len(missing)} image file(s) not found, e.g. {missing[0]}; nothing was sent")
    setting = f"{slices} slices" if slices else "text only"
    run_params = params.as_dict() | {"setting": setting, "slices": slices}
    if slices:
        run_params["sampling"] = SAMPLING
    if api_base:
        run_params["api_base"] = safe_api_base(api_base)
    spec = RunSpec("llm", model, dataset, model=model, prompt_id=PROMPT_ID, prompt_hash=template().hash,
                   params=run_params)
    digests: dict[str, str] = {}

    def render(row):
        chosen = sample_slices(images[row.pair_id], slices) if slices and images[row.pair_id] else []
        return render_review_messages(row.preliminary, row.edit, row.meta.get("indication"), chosen,
                                      to_url=str)  # paths now, data URLs at call time

    # the key hashes the slices' contents, not their paths; the plan's seconds: rendering and hashing the slices
    the_plan = plan_rows(spec, params, table.itertuples(index=False), render,
                         keyed=lambda m: _with_images(m, lambda p: digests.setdefault(p, _file_digest(p))))
    caller = partial(_ReviewCaller, model, params, api_base, api_key, timeout, max_retries, backoff)
    return execute_plan(store, the_plan, caller, concurrency=concurrency, progress=progress, cancel=cancel,
                        flush_interval=flush_interval)

