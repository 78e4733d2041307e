"""Few-shot examples for a judge run, drawn from the store (VERT App. D.5-D.9).

Shots come from a chosen dataset (and split) with a recorded seed, and never
from the pairs being evaluated: the evaluated pairs' ids and their groups
(pairs sharing a reference) are excluded. The builders' record (variant, k,
seed, ids used) is stored in the run's params.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.store import Store

# prompt id -> few-shot variant (core.prompts.FEWSHOT_VARIANTS)
FEWSHOT_PROMPTS = {
    "vert_random": "random",
    "vert_rad_err": "rad_err",
    "vert_rad_err_10": "rad_err_10",
    "vert_rate_err": "rate_err",
    "vert_rate_err_10": "rate_err_10",
}


@dataclass(frozen=True)
class ShotSource:
    dataset: str
    split: str | None = None
    k: int = 3
    seed: int = 0


def shot_pool(store: Store, dataset: str):
    """The wide pool (pairs + mean expert score and counts) of one dataset."""
    from core.prompts import pool_from_long

    pairs = store.query_df("SELECT * FROM pairs WHERE dataset = ?", [dataset])
    if pairs.empty:
        raise ValueError(f"shot dataset '{dataset}' has no pairs")
    ann = store.query_df(
        "SELECT a.* FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ?", [dataset])
    return pool_from_long(pairs, ann)


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
    pool = shot_pool(store, source.dataset)
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
    return shots, record
