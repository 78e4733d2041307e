"""What a student learns from: the teacher's per-category counts, a group split, and model cards on disk.

No torch here. Labels are the six clinically significant counts ``sig_a`` ..
``sig_f`` (CREPE's six categories, seeds/crepe.txt Sec. 3.2): from the experts
(``expert``: the exact mean over annotators, core.reads.targets) or from any judge
run's parsed counts (its ``sig_x`` metric values, core.reads.frames.judge_counts).
A pair enters only when all six are known (a truncated judge answer is left
out and counted, never read as 0).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from core.reads.frames import expert_counts, judge_counts, judge_runs, pair_facets
from core.reads.targets import CATEGORIES
from core.store.db import Store, stable_hash

LABELS = tuple(f"sig_{c}" for c in CATEGORIES)
EXPERT = "expert"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
SPLITS = ("train", "val", "test")
# What ``distill`` does without flags (docs/DISTILL.md "Measured here" says why these).
# generated None: "auto" (core.distill.generate.resolve_generated: AUTO_GENERATED for an offline teacher, else 0).
DEFAULTS = {"encoder": "tiny", "epochs": 20, "patience": 3, "generated": None}


def check_name(name: str) -> str:
    if not NAME_RE.match(name or ""):
        raise ValueError(f"model name {name!r} is not valid: use letters, digits, '.', '_' or '-' (max 64)")
    return name


def resolve_teacher(store: Store, dataset: str, teacher: str) -> dict:
    """``expert``, or a run of ``dataset`` by its judge label (as on every page) or its run id."""
    if teacher == EXPERT:
        return {"kind": EXPERT, "label": EXPERT, "run_id": None, "judge_kind": None}
    runs = judge_runs(store, dataset)
    hit = runs[(runs["run_id"] == teacher) | (runs["judge"] == teacher)]
    if hit.empty:
        known = ", ".join([EXPERT, *runs["judge"].tolist()])
        raise ValueError(f"teacher '{teacher}' is not a run of dataset '{dataset}'; teachers: {known}")
    row = hit.iloc[0]
    if str(row["judge_kind"]) == "distilled":
        raise ValueError(f"teacher '{teacher}' is itself a distilled scorer; distil from its teacher instead")
    return {"kind": "run", "label": str(row["judge"]), "run_id": str(row["run_id"]),
            "judge_kind": str(row["judge_kind"])}


def teacher_labels(store: Store, dataset: str, teacher: dict) -> pd.DataFrame:
    """pair_id + ``sig_a`` .. ``sig_f`` (float) for the pairs whose six counts are all known."""
    if teacher["kind"] == EXPERT:
        counts = expert_counts(store, dataset)
    else:
        counts = judge_counts(store, dataset, [teacher["run_id"]])
    counts = counts[counts["significant"].astype(bool) & counts["category"].isin(CATEGORIES)]
    if counts.empty:
        return pd.DataFrame(columns=["pair_id", *LABELS])
    wide = counts.pivot_table(index="pair_id", columns="category", values="count", aggfunc="first")
    wide = wide.reindex(columns=list(CATEGORIES)).dropna()
    wide.columns = list(LABELS)
    return wide.astype(float).reset_index()


def pair_text_hash(reference: str, candidate: str) -> str:
    """Identifies a pair by its texts, across datasets (training pairs are never scored again)."""
    return stable_hash("distill-pair", reference or "", candidate or "", length=24)


def dataset_pairs(store: Store, dataset: str, columns: str) -> pd.DataFrame:
    """``columns`` (SQL) of the dataset's pairs by ext_id; ValueError when the dataset is unknown or empty."""
    pairs = store.query_df(f"SELECT {columns} FROM pairs WHERE dataset = ? ORDER BY ext_id", [dataset])
    if pairs.empty:
        if store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]) == 0:
            raise ValueError(f"dataset '{dataset}' not found")
        raise ValueError(f"dataset '{dataset}' has no pairs")
    return pairs


def labelled_pairs(store: Store, dataset: str, teacher: dict) -> tuple[pd.DataFrame, int]:
    """Pairs with texts, group, identical flag and labels; and how many pairs had no complete labels."""
    pairs = dataset_pairs(store, dataset, "pair_id, ext_id, reference, candidate")
    facets = pair_facets(store, dataset)[["pair_id", "group_id", "identical"]]
    labels = teacher_labels(store, dataset, teacher)
    frame = pairs.merge(facets, on="pair_id").merge(labels, on="pair_id")
    frame["group"] = frame["group_id"].fillna(frame["pair_id"]).astype(str)
    return frame.reset_index(drop=True), len(pairs) - len(frame)


def group_split(groups: pd.Series, seed: int, val_frac: float = 0.1, test_frac: float = 0.1) -> np.ndarray:
    """train/val/test per row, whole groups together (a study never straddles splits), seeded.

    Groups are shuffled with ``numpy.random.default_rng(seed)``; test groups are
    taken until they hold ``test_frac`` of the rows, then validation groups
    until ``val_frac``; the rest train. Each split gets at least one group.
    """
    uniq = np.array(sorted(set(groups)))
    if len(uniq) < 3:
        raise ValueError(f"need at least 3 groups of pairs to split into train/val/test, got {len(uniq)}")
    order = np.random.default_rng(seed).permutation(uniq)
    sizes = groups.value_counts()
    n = len(groups)
    split_of: dict[str, str] = {}
    taken = {"test": 0, "val": 0}
    for g in order:
        if taken["test"] == 0 or taken["test"] < test_frac * n:
            split = "test"
        elif taken["val"] == 0 or taken["val"] < val_frac * n:
            split = "val"
        else:
            split = "train"
        split_of[g] = split
        if split in taken:
            taken[split] += int(sizes[g])
    if "train" not in split_of.values():
        raise ValueError("too few groups left for training; lower val/test fractions or add pairs")
    return groups.map(split_of).to_numpy()


def sample_groups(frame: pd.DataFrame, max_pairs: int | None, seed: int) -> pd.DataFrame:
    """At most ``max_pairs`` pairs, as whole groups drawn with the seed (None: all)."""
    if max_pairs is None or max_pairs >= len(frame):
        return frame
    order = np.random.default_rng(seed + 1).permutation(np.array(sorted(set(frame["group"]))))
    sizes = frame["group"].value_counts()
    keep, total = [], 0
    for g in order:
        if total >= max_pairs:
            break
        keep.append(g)
        total += int(sizes[g])
    return frame[frame["group"].isin(keep)].reset_index(drop=True)


# -- model cards on disk ------------------------------------------------------------------------------

def models_dir(store: Store) -> Path:
    """Trained students live next to the store: ``<store dir>/models/NAME/``."""
    return Path(store.path).resolve().parent / "models"


def model_dir(store: Store, name: str) -> Path:
    return models_dir(store) / check_name(name)


def load_card(store: Store, name: str) -> dict:
    path = model_dir(store, name) / "card.json"
    if not path.exists():
        known = ", ".join(list_models(store)) or "none yet"
        raise ValueError(f"no distilled scorer named '{name}' next to this store ({models_dir(store)}); "
                         f"trained: {known}. Train one with `python -m core distill`")
    return json.loads(path.read_text(encoding="utf-8"))


def list_models(store: Store) -> list[str]:
    root = models_dir(store)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "card.json").exists())


def teacher_choices(store: Store, dataset: str) -> list[str]:
    """Teachers that can label this dataset: ``expert`` when it has error counts, and every
    non-distilled run that stored per-category counts (e.g. rules, LLM runs with GREEN-format answers)."""
    out = [EXPERT] if not expert_counts(store, dataset).empty else []
    runs = judge_runs(store, dataset)
    runs = runs[runs["judge_kind"] != "distilled"]
    if not runs.empty:
        with_counts = set(store.query_df(
            "SELECT DISTINCT run_id FROM metric_values WHERE metric = 'sig_a' "
            "AND run_id IN (SELECT unnest(?::VARCHAR[]))", [list(runs["run_id"])])["run_id"])
        out += runs[runs["run_id"].isin(with_counts)]["judge"].tolist()
    return out
