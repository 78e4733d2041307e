"""Which pairs fit an ensemble and which evaluate it, and what the feature columns are.

Feature columns are named ``"judge:metric"`` (:func:`metric_of`, :func:`feature_sets_by_metric`); each has an
orientation (:func:`higher_is_better`). :func:`split_pairs` draws the train / test split every ensemble of
:func:`core.analysis.ensemble.ensemble_table` shares.

Split rule (:func:`split_pairs`)
--------------------------------
* If the frame has a split column with rows labelled ``"train"``: up to
  ``train_size`` (500, as in VERT) of those pairs are drawn with the seed and
  used for fitting; the test pairs are those labelled ``test_split``
  (``"test"``), or every non-train pair when no pair carries that label.  Train
  pairs not drawn are never used, for fitting or for testing.
* Otherwise a seeded random split: ``min(train_size, floor(0.5 * n))`` pairs
  for fitting (at least half the pairs are held out), the rest for testing.
* With a group column (one group = one reference / study), whole groups are
  drawn, so no group straddles the split; a test-split pair whose group also
  has a fitted pair (a dataset whose own split straddles groups) is dropped
  from the test set and listed in :attr:`Split.dropped_ids`.  A pair without
  a group is its own group.

The split reads only ``pair_id`` and the split and group columns: never a feature or the target.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.analysis.scores import METRICS

__all__ = ["Split", "feature_sets_by_metric", "higher_is_better", "metric_of", "split_pairs"]


# -- feature names and orientation --------------------------------------------


def metric_of(column: str) -> str:
    """Metric part of a ``"judge:metric"`` column name (the whole name if no colon)."""
    return str(column).rsplit(":", 1)[-1]


def feature_sets_by_metric(columns: Iterable[str], all_name: str | None = "All") -> dict[str, list[str]]:
    """One feature set per metric (that metric across judges), plus ``all_name``.

    VERT Table 5: each column pools one metric over the judges; "All" uses
    every feature.  To reproduce "All" for one prompt family (GREEN or VERT),
    pass only that family's columns.
    """
    columns = list(columns)
    sets: dict[str, list[str]] = {}
    for col in columns:
        sets.setdefault(metric_of(col), []).append(col)
    if all_name is not None:
        if all_name in sets:
            raise ValueError(f"a metric is named {all_name!r}; choose another all_name")
        sets[all_name] = columns
    return sets


def higher_is_better(column: str, orientation: bool | Mapping[str, bool] | None = None) -> bool:
    """Orientation of a feature column.

    Looked up in ``orientation`` (a bool for all columns, or a mapping keyed by
    column or by metric name), then in :data:`core.analysis.scores.METRICS`; per-category
    error counts (``sig_*``, ``insig_*``) are lower-is-better and ``matched``
    (matched findings) higher-is-better.
    """
    if isinstance(orientation, bool):
        return orientation
    metric = metric_of(column)
    if orientation is not None:
        for key in (column, metric):
            if key in orientation:
                return bool(orientation[key])
    if metric in METRICS:
        return METRICS[metric].higher_is_better
    if metric.startswith(("sig_", "insig_")):
        return False
    if metric == "matched":
        return True
    raise KeyError(f"orientation of {column!r} unknown: pass orientation={{{metric!r}: True/False}}; "
                   f"known metrics: {', '.join(METRICS)}, sig_*, insig_*, matched")


# -- split --------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """Which pairs fit an ensemble and which evaluate it.

    Attributes
    ----------
    train_ids, test_ids : tuple
        Pairs used for fitting / for every reported number (disjoint).
    unused_ids : tuple
        Pairs in neither: train-split pairs beyond ``train_size`` and pairs of
        other splits (e.g. ``"val"``) when a ``"test"`` split exists.
    dropped_ids : tuple
        Test-split pairs left out because their group has a fitted pair.
    rule : str
        The rule applied, in words.
    seed, train_size : int
    grouped : bool
        Whether whole groups were drawn.
    """

    train_ids: tuple
    test_ids: tuple
    unused_ids: tuple
    dropped_ids: tuple
    rule: str
    seed: int
    train_size: int
    grouped: bool

    def to_json(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def _group_keys(frame: pd.DataFrame, group_col: str | None) -> tuple[list, bool]:
    pids = frame["pair_id"].tolist()
    if group_col is None or group_col not in frame.columns or frame[group_col].isna().all():
        return [("pair", str(p)) for p in pids], False
    keys = [("pair", str(p)) if pd.isna(g) else ("group", str(g))
            for p, g in zip(pids, frame[group_col], strict=True)]
    return keys, True


def _draw(pids: list, keys: list, target: int, rng: np.random.Generator) -> set:
    """Whole groups, in seeded random order, while they fit into ``target`` pairs."""
    groups: dict[tuple, list] = {}
    for pid, key in sorted(zip(pids, keys, strict=True), key=lambda t: (t[1], str(t[0]))):
        groups.setdefault(key, []).append(pid)
    ordered = sorted(groups)
    chosen: set = set()
    for i in rng.permutation(len(ordered)):
        members = groups[ordered[i]]
        if len(chosen) + len(members) <= target:
            chosen.update(members)
        if len(chosen) == target:
            break
    return chosen


def _sorted_ids(ids: Iterable) -> tuple:
    return tuple(sorted(ids, key=str))


def split_pairs(
    frame: pd.DataFrame,
    train_size: int = 500,
    seed: int = 0,
    split_col: str | None = "split",
    group_col: str | None = "group_id",
    test_split: str = "test",
    max_train_fraction: float = 0.5,
) -> Split:
    """Train/test split of the pairs of ``frame`` (rule in the module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        ``pair_id`` (unique), optionally ``split_col`` and ``group_col``.
    train_size : int
        Most pairs used for fitting (VERT Sec. 4.1.2: 500).
    seed : int
        Seed of the draw (recorded in the result).
    split_col, group_col : str or None
        Column names; ``None`` or absent means "not available".
    test_split : str
        Label of the test split when the split column exists.
    max_train_fraction : float
        Random split only: at most this share of pairs is used for fitting.

    Returns
    -------
    Split
    """
    if frame["pair_id"].duplicated().any():
        raise ValueError("pair_id must be unique")
    if train_size < 1:
        raise ValueError(f"train_size must be >= 1, got {train_size}")
    rng = np.random.default_rng(seed)
    keys, grouped = _group_keys(frame, group_col)
    pids = frame["pair_id"].tolist()
    key_of = dict(zip(pids, keys, strict=True))
    labels = frame[split_col] if split_col and split_col in frame.columns else None
    unit = "whole groups" if grouped else "pairs"

    if labels is not None and (labels == "train").any():
        is_train = (labels == "train").to_numpy()
        has_test = (labels == test_split).any()
        is_test = (labels == test_split).to_numpy() if has_test else ~is_train
        pool = [p for p, t in zip(pids, is_train, strict=True) if t]
        train = _draw(pool, [key_of[p] for p in pool], min(train_size, len(pool)), rng)
        train_keys = {key_of[p] for p in train}
        candidates = [p for p, t in zip(pids, is_test, strict=True) if t]
        dropped = [p for p in candidates if key_of[p] in train_keys]
        test = [p for p in candidates if key_of[p] not in train_keys]
        rule = (f"{split_col}=='train': {len(train)} of {len(pool)} pairs drawn as {unit} (seed {seed}); "
                f"test: {split_col}=={test_split!r}" if has_test else
                f"{split_col}=='train': {len(train)} of {len(pool)} pairs drawn as {unit} (seed {seed}); "
                f"test: every pair not labelled 'train'")
        if dropped:
            rule += f"; {len(dropped)} test pairs dropped: their group has a fitted pair"
    else:
        target = min(train_size, math.floor(max_train_fraction * len(pids)))
        train = _draw(pids, keys, target, rng)
        test = [p for p in pids if p not in train]
        dropped = []
        rule = (f"seeded random split (seed {seed}): {len(train)} pairs drawn as {unit} for fitting "
                f"(at most min({train_size}, {max_train_fraction:g} * {len(pids)})), the rest for testing")
    used = set(train) | set(test) | set(dropped)
    return Split(
        train_ids=_sorted_ids(train), test_ids=_sorted_ids(test),
        unused_ids=_sorted_ids(p for p in pids if p not in used), dropped_ids=_sorted_ids(dropped),
        rule=rule, seed=seed, train_size=train_size, grouped=grouped,
    )
