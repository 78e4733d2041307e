"""Few-shot examples for a judge run, drawn from the store (VERT App. D.5-D.9).

Shots come from a chosen dataset (and split) with a recorded seed, and never
from the pairs being evaluated: the evaluated pairs' ids and their groups
(pairs sharing a reference) are excluded. The builders' record (variant, k,
seed, ids used) is stored in the run's params.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd

from core.prompts.specs import PROMPTS
from core.store.db import Store

# prompt id -> few-shot variant, and what each variant draws its shots from and how to make that pool with
# RadConcord's own commands (CLI --help, the Run page and the errors below say it): views of the prompt table
FEWSHOT_PROMPTS = {s.id: s.shots for s in PROMPTS.values() if s.shots is not None}
POOL_NEEDS = {s.id: s.shot_pool for s in PROMPTS.values() if s.shots is not None}
# GREEN-format zero-shot prompts, whose stored answers can serve as D.9's assessments
_ASSESSMENT_PROMPTS = [s.id for s in PROMPTS.values() if s.family == "green"]


@dataclass(frozen=True)
class ShotSource:
    dataset: str
    split: str | None = None
    k: int = 3
    seed: int = 0
    run: str | None = None  # D.9: the judge run whose answers are the shots' assessments


def shot_pool(store: Store, dataset: str):
    """The wide pool (pairs + mean expert score and counts) of one dataset.

    Pairs made by ``inject`` also carry ``kind``, ``n_injected`` and ``explanation`` (the
    injected changes), which the D.7 builder reads.
    """
    from core.prompts import pool_from_long

    pairs = store.query_df("SELECT * FROM pairs WHERE dataset = ?", [dataset])
    if pairs.empty:
        raise ValueError(f"shot dataset '{dataset}' has no pairs")
    ann = store.query_df(
        "SELECT a.* FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ?", [dataset])
    return _with_injections(pool_from_long(pairs, ann), pairs)


def _with_injections(pool, pairs):
    """``kind``, ``n_injected`` and ``explanation`` for pairs written by core.ingest.inject (NaN elsewhere)."""
    found = {}
    for pid, system, meta in zip(pairs["pair_id"], pairs["system"], pairs["meta"], strict=True):
        try:
            record = json.loads(json.loads(meta or "{}").get("injection") or "null")
        except (TypeError, ValueError):
            continue
        if not isinstance(record, dict) or not str(system or "").startswith("injected-"):
            continue
        changes = record.get("changes") or []
        found[pid] = {"kind": str(system).removeprefix("injected-"), "n_injected": int(record.get("k") or 0),
                      "explanation": " ".join(str(c.get("explanation") or "").strip() for c in changes
                                              if isinstance(c, dict)).strip() or None}
    if not found:
        return pool
    extra = pd.DataFrame.from_dict(found, orient="index")
    return pool.merge(extra, left_on="pair_id", right_index=True, how="left")


def assessment_pool(store: Store, dataset: str, run_id: str):
    """D.9's pool: the dataset's pairs with the run's own assessment of each (parsed from its answers):
    ``explanation``, ``matched_findings``, ``sig_*``/``insig_*`` and the judge's overall score in
    ``score``. Pairs whose answer lacks any of these are left out."""
    from core.parse import parse_output
    from core.prompts import CATEGORIES

    run = store.query_df("SELECT dataset, model, prompt_id FROM judge_runs WHERE run_id = ?", [run_id])
    if run.empty:
        raise ValueError(f"run '{run_id}' not found; {POOL_NEEDS['vert_rate_err_10']}")
    if run["dataset"].iloc[0] != dataset:
        raise ValueError(f"run '{run_id}' judged dataset '{run['dataset'].iloc[0]}', not the shots dataset "
                         f"'{dataset}'")
    rows = store.query_df(
        "SELECT p.pair_id, p.ext_id, p.reference, p.candidate, p.group_id, p.split, o.raw_text FROM pairs p "
        "JOIN judge_outputs o ON o.pair_id = p.pair_id AND o.run_id = ? AND o.error IS NULL "
        "WHERE p.dataset = ?", [run_id, dataset])
    out = []
    for row in rows.itertuples(index=False):
        parsed = parse_output(row.raw_text or "")
        counts = {**{f"sig_{c}": parsed.sig.get(c) for c in CATEGORIES},
                  **{f"insig_{c}": parsed.insig.get(c) for c in CATEGORIES}}
        score = parsed.overall_score
        if (parsed.status == "failed" or not parsed.explanation.strip() or score is None or not 0 <= score <= 1
                or any(v is None for v in counts.values())):
            continue
        findings = "; ".join(parsed.matched_findings) or ("" if parsed.matched is None else str(parsed.matched))
        out.append({"pair_id": row.pair_id, "ext_id": row.ext_id, "reference": row.reference,
                    "candidate": row.candidate, "group_id": row.group_id, "split": row.split,
                    "explanation": parsed.explanation.strip(), "matched_findings": findings, "score": float(score),
                    **{k: float(v) for k, v in counts.items()}})
    if not out:
        raise ValueError(f"run '{run_id}' ({run['model'].iloc[0]}, prompt {run['prompt_id'].iloc[0]}) has no answer "
                         "with an explanation, error counts and an overall score in [0, 1]; D.9 needs VERT "
                         "answers: run the judge with --prompt vert on the shots dataset")
    return pd.DataFrame(out)


def runs_with_assessments(store: Store, dataset: str) -> pd.DataFrame:
    """LLM runs on ``dataset`` that can supply D.9 shots (answers in GREEN/VERT format), newest first."""
    return store.query_df(
        "SELECT run_id, model, prompt_id, n_ok, started_at FROM judge_runs WHERE dataset = ? AND judge_kind = 'llm' "
        "AND prompt_id IN (SELECT unnest(?::VARCHAR[])) AND n_ok > 0 "
        "ORDER BY (prompt_id = 'vert') DESC, started_at DESC, run_id", [dataset, _ASSESSMENT_PROMPTS])


def build_shots(store: Store, prompt_id: str, source: ShotSource, evaluated,
                evaluated_dataset: str) -> tuple[list, dict]:
    """Shots for ``prompt_id`` from ``source``, excluding the ``evaluated`` pairs (a DataFrame).

    When the shots come from the evaluated dataset itself, pairs sharing a
    reference (group) with an evaluated pair are excluded too.
    """
    from core.prompts import (
        rad_err_10_shots,
        rad_err_shots,
        rate_err_10_shots,
        rate_err_shots,
        sample_random_shots,
    )

    variant = FEWSHOT_PROMPTS.get(prompt_id)
    if variant is None:
        raise ValueError(f"'{prompt_id}' takes no shots; few-shot prompts are: {', '.join(FEWSHOT_PROMPTS)}")
    if variant == "rate_err_10":
        if not source.run:
            runs = runs_with_assessments(store, source.dataset)
            have = (f"; runs on '{source.dataset}' that can serve: " + ", ".join(
                f"{r.run_id} ({r.model} · {r.prompt_id})" for r in runs.head(5).itertuples()) if len(runs) else
                f"; '{source.dataset}' has no such run yet")
            raise ValueError(f"{prompt_id} needs the run whose answers become the shots: "
                             f"{POOL_NEEDS[prompt_id]}{have}")
        pool = assessment_pool(store, source.dataset, source.run)
    else:
        pool = shot_pool(store, source.dataset)
        if variant == "rate_err" and "kind" not in pool.columns:
            raise ValueError(f"'{source.dataset}' holds no injected pairs; {prompt_id} needs "
                             f"{POOL_NEEDS[prompt_id]}")
    exclude = set(evaluated["pair_id"]) | set(evaluated["ext_id"])
    groups = set() if source.dataset != evaluated_dataset else set(store.query_df(
        "SELECT DISTINCT group_id FROM pairs WHERE pair_id IN (SELECT unnest(?::VARCHAR[])) "
        "AND group_id IS NOT NULL", [list(evaluated["pair_id"])])["group_id"])
    # ext_ids are only unique within a dataset: exclude by pair_id in the pool
    pool = pool[~pool["pair_id"].isin(exclude)]
    common = dict(split=source.split, exclude_groups=groups or None)
    if variant == "random":
        shots, record = sample_random_shots(pool, source.k, source.seed, None, **common)
    elif variant == "rad_err":
        shots, record = rad_err_shots(pool, source.seed, None, **common)
    elif variant == "rad_err_10":
        shots, record = rad_err_10_shots(pool, None, seed=source.seed, **common)
    elif variant == "rate_err":
        shots, record = rate_err_shots(pool, source.seed, None, **common)
    else:
        shots, record = rate_err_10_shots(pool, source.seed, None, **common)
    record = dict(record) | {"shot_dataset": source.dataset, "shot_split": source.split}
    if source.run:
        record["shot_run"] = source.run  # D.9: whose assessments the shots show
    return shots, record
