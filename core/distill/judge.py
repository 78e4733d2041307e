"""``--judge distilled:NAME``: a trained student scores a dataset like any other judge.

It writes outputs and metric values through the shared run bookkeeping
(core.judges.runs) under the metric names the rules judge uses, so every page
shows it: ``sig_a`` .. ``sig_f`` (predicted counts rounded to whole errors, for
the per-category pages) and ``ec_sig`` (the CREPE score: the sum of the
unrounded predicted counts, eq. 8). The raw output keeps the unrounded counts
as JSON.

A student is never evaluated on what it learnt from: pairs of its training
and validation splits, and any pair whose texts equal one of them (in any
dataset), are left out of the run and counted in ``skipped_trained``. The
run's params name the model, its teacher, its training dataset and split
sizes and its weights' hash (a retrained model gets a new run).

A pair with a report longer than ``core.judges.bounds.MAX_REPORT_CHARS`` is a
recorded failure with the reason, never tokenized (the cap of every offline
judge).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.distill.data import LABELS, load_card, model_dir, pair_text_hash
from core.judges.llm import RunSummary
from core.judges.offline import refused_too_long, run_batches
from core.judges.runs import OutputRecord, RunSpec, load_pairs, resume_run, write_outputs
from core.store.db import Store

BATCH = 256  # pairs per model call; outputs are committed every core.judges.offline.BATCH


@dataclass
class DistilledSummary(RunSummary):
    skipped_trained: int = 0  # pairs left out because the student learnt from them


def spec_for(dataset: str, card: dict) -> RunSpec:
    params = {"model": card["name"], "teacher": card["teacher"], "teacher_run_id": card["teacher_run_id"],
              "train_dataset": card["dataset"], "n_train": card["n_train"], "n_val": card["n_val"],
              "n_test": card["n_test"], "split_seed": card["split_seed"], "encoder": card["encoder"],
              "weights_sha256": card["weights_sha256"]}
    return RunSpec("distilled", f"distilled:{card['name']}", dataset, model=card["encoder"], params=params)


def excluded_pairs(card: dict, pairs) -> set[str]:
    """pair ids a student must not score: its training/validation pairs, by id or by text."""
    trained_ids = set(card["splits"]["train"]) | set(card["splits"]["val"])
    hashes = set(card["trained_text_hashes"])
    return {pid for pid, r, c in zip(pairs["pair_id"], pairs["reference"], pairs["candidate"], strict=True)
            if pid in trained_ids or pair_text_hash(r, c) in hashes}


def metrics_for(counts) -> dict[str, float]:
    out = {label: float(round(float(v))) for label, v in zip(LABELS, counts, strict=True)}
    out["ec_sig"] = float(sum(float(v) for v in counts))
    return out


def run_distilled_judge(store: Store, dataset: str, name: str, *, pair_ids: list[str] | None = None,
                        limit: int | None = None, progress: Callable[[int, int, dict], None] | None = None,
                        cancel: threading.Event | None = None) -> DistilledSummary:
    from core.distill.model import predict
    from core.distill.train import load_student

    started = time.monotonic()
    card = load_card(store, name)
    pairs = load_pairs(store, dataset, pair_ids, limit)
    excluded = excluded_pairs(card, pairs)
    pairs = pairs[~pairs["pair_id"].isin(excluded)]
    spec = spec_for(dataset, card)
    run_id, todo = resume_run(store, spec, pairs)
    todo = todo.reset_index(drop=True)
    summary = DistilledSummary(run_id=run_id, requested=len(pairs), skipped=len(pairs) - len(todo),
                               skipped_trained=len(excluded))
    summary.ok = summary.skipped
    refused = refused_too_long(spec.judge_name, todo, summary)
    if refused:
        write_outputs(store, run_id, refused, None)
        todo = todo[~todo["pair_id"].isin({r.pair_id for r in refused})].reset_index(drop=True)
    model, tokenizer = (load_student(card, model_dir(store, name)) if len(todo) else (None, None))

    def score(rows) -> list[OutputRecord]:
        t0 = time.perf_counter()
        pred = predict(model, tokenizer, [r.reference for r in rows], [r.candidate for r in rows])
        ms = (time.perf_counter() - t0) * 1000 / len(rows)
        records = []
        for row, counts in zip(rows, pred, strict=True):
            raw = json.dumps({"model": name, "counts": {k: round(float(v), 4) for k, v in zip(LABELS, counts,
                                                                                              strict=True)},
                              "score": round(float(counts.sum()), 4)})
            records.append(OutputRecord(pair_id=row.pair_id, raw_text=raw, latency_ms=ms, cost_usd=0.0,
                                        metrics=metrics_for(counts)))
        return records

    return run_batches(store, spec, run_id, todo, score, summary, len(pairs), started, chunk=BATCH,
                       progress=progress, cancel=cancel)
