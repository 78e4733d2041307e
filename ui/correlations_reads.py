"""The Correlations page's cached reads (no widgets inside).

The data are read once per (store version, dataset, target, experts), in one DuckDB query, into a
pairs x series matrix (``core.reads.pairmatrix``) held as a shared resource; a view is a mask over
its pairs, and every table is cached per (store version, dataset, target, experts, filters, toggle,
n_boot, seed). The page's state is one :class:`View` (the store, dataset, target, experts and which pairs
are in view); its methods call the loaders with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.analysis.ceiling import leave_one_out, mean_tau
from core.analysis.statistic import table
from core.analysis.stats import agreement_matrix, judge_metric_table, paired_difference
from core.reads.frames import apply_orientations, declared_orientations, judge_runs
from core.reads.pairmatrix import PairMatrix, pair_matrix, read_ratings
from core.reads.targets import main_targets_present
from core.store.db import Store
from core.taxonomy import MIN_N  # the one minimum n: the cells, the ceiling and the paired test
from ui.shared import cached

STAT_VALUE = table("abs_col")

load_runs = cached(judge_runs, max_entries=16)
load_targets = cached(main_targets_present, max_entries=16)


# The matrix and the view masks are cache_resource: shared, never copied (cache_data would pickle the
# matrix on every store and copy it on every hit). Nothing below mutates them.
@cached(max_entries=4, shared=True)
def load_matrix(store: Store, dataset: str, target: str, experts: tuple | None) -> PairMatrix:
    """The score metrics' values (as ``python -m core correlate``) and the target, pairs x series, unfiltered."""
    return pair_matrix(store, dataset, target, counts=False,
                       annotators=None if experts is None else list(experts))


@cached(max_entries=16, shared=True)
def load_mask(store: Store, dataset: str, target: str, experts: tuple | None,
              drop_identical: bool, filters: tuple) -> np.ndarray:
    """Pairs in view: the pairs ``correlation_frame(..., drop_identical=, filters=)`` would return."""
    return load_matrix(store, dataset, target, experts).mask(drop_identical, filters)


def _view(store: Store, dataset: str, target: str, experts: tuple | None,
          drop_identical: bool, filters: tuple) -> tuple[PairMatrix, np.ndarray]:
    """The matrix and the mask of the pairs in view (both cached resources)."""
    return (load_matrix(store, dataset, target, experts),
            load_mask(store, dataset, target, experts, drop_identical, filters))


@cached(max_entries=64, kept=True)  # kept in the store too (core.reads.results)
def load_table(store: Store, dataset: str, target: str, experts: tuple | None, drop_identical: bool,
               filters: tuple, n_boot: int, seed: int, ci: str = "bootstrap") -> pd.DataFrame:
    matrix, mask = _view(store, dataset, target, experts, drop_identical, filters)
    if not mask.any():
        return pd.DataFrame()
    # Point estimates and p do not depend on the clusters; only the intervals do. Without them, skip
    # labelling clusters.
    table = matrix.correlate(mask, n_boot=n_boot, seed=seed, min_n=MIN_N, target_name=target,
                             clustered=n_boot > 0 or ci == "asymptotic", ci=ci)
    return apply_orientations(table, declared_orientations(store, dataset), target)  # import-outputs' declaration


@cached(max_entries=64)
def load_shaped(store: Store, dataset: str, target: str, experts: tuple | None, drop_identical: bool,
                filters: tuple, stat: str):
    """The papers' table (text, best, second, dagger, wrong sign) of the point estimates."""
    return judge_metric_table(load_table(store, dataset, target, experts, drop_identical, filters, 0, 0),
                              STAT_VALUE[stat])


@cached(max_entries=64)
def load_view_counts(store: Store, dataset: str, target: str, experts: tuple | None, drop_identical: bool,
                     filters: tuple) -> dict:
    """Pairs in view, identical pairs removed by the toggle, reference groups."""
    matrix, view = _view(store, dataset, target, experts, drop_identical, filters)
    filtered = matrix.mask(False, filters)
    groups = matrix.pairs["group_id"].cat.codes.to_numpy()[view]
    return {"pairs": int(view.sum()), "groups": int(np.unique(groups[groups >= 0]).size),
            "identical": int((filtered & matrix.pairs["identical"].to_numpy(dtype=bool)).sum()),
            "identical_removed": drop_identical}


def _indices(matrix: PairMatrix, series) -> list[int]:
    found = (matrix.index_of(judge, metric) for judge, metric in series)
    return [i for i in found if i is not None]


@cached(max_entries=64)
def load_series(store: Store, dataset: str, target: str, experts: tuple | None, drop_identical: bool,
                filters: tuple, judge: str, metric: str) -> pd.DataFrame:
    matrix, mask = _view(store, dataset, target, experts, drop_identical, filters)
    rows = matrix.long(mask, _indices(matrix, [(judge, metric)]))
    codes = rows["ext_id"].cat.codes.to_numpy()  # categories sorted: ordering codes orders the ids
    rows = rows.take(np.argsort(np.where(codes < 0, np.iinfo(codes.dtype).max, codes), kind="stable"))
    cols = ["ext_id", "system", "modality", "anatomy", "split", "group_id", "value", "target"]
    out = rows[cols].reset_index(drop=True)
    for col in ("ext_id", "system", "modality", "anatomy", "split", "group_id"):
        out[col] = out[col].astype(object)
    return out


@cached(max_entries=64, kept=True)  # kept in the store too (core.reads.results)
def load_breakdown(store: Store, dataset: str, target: str, experts: tuple | None, drop_identical: bool,
                   filters: tuple, facet: str, series: tuple[tuple[str, str], ...]) -> pd.DataFrame:
    matrix, mask = _view(store, dataset, target, experts, drop_identical, filters)
    chosen = _indices(matrix, series)
    if not chosen:
        return pd.DataFrame()
    # point estimates and p per cell; the cells' bootstrap CIs are left to the CLI (--breakdown)
    cells = matrix.breakdown(mask, facet, series=chosen, min_n=MIN_N, target_name=target)
    return pd.DataFrame() if cells.empty else apply_orientations(cells, declared_orientations(store, dataset), target)


@cached(max_entries=64, kept=True)  # kept in the store too (core.reads.results)
def load_paired(store: Store, dataset: str, target: str, experts: tuple | None, drop_identical: bool,
                filters: tuple, a: tuple[str, str], b: tuple[str, str], stat: str, n_boot: int,
                seed: int) -> pd.DataFrame:
    matrix, mask = _view(store, dataset, target, experts, drop_identical, filters)
    rows = matrix.long(mask, _indices(matrix, [a, b]))
    return paired_difference(rows, a[0], b[0], a[1], b[1], n_boot=n_boot, seed=seed, stat=stat,
                             target_name=target, min_n=MIN_N)


@cached(max_entries=4, shared=True)
def load_ratings(store: Store, dataset: str, target: str,
                 experts: tuple | None) -> tuple[list[str], np.ndarray]:
    """Each annotator's value of the target on the matrix's pairs: (names, annotators x pairs)."""
    return read_ratings(store, load_matrix(store, dataset, target, experts), dataset, target,
                        None if experts is None else list(experts))


@cached(max_entries=64, compute=True)  # statistics: the store is not held meanwhile
def load_agreement(store: Store, dataset: str, target: str, experts: tuple | None, drop_identical: bool,
                   filters: tuple) -> dict | None:
    """Inter-annotator agreement on the pairs in view (the pairs the judges are scored on)."""
    names, ratings = load_ratings(store, dataset, target, experts)
    in_view = ratings[:, load_mask(store, dataset, target, experts, drop_identical, filters)]
    rated = ~np.isnan(in_view).all(axis=1)  # annotators with a value on a pair in view
    if rated.sum() < 2:
        return None
    kept = [n for n, r in zip(names, rated, strict=True) if r]
    # the ceiling on the one minimum n of the comparison, as each judge cell (core.taxonomy.MIN_N)
    result = agreement_matrix(in_view[rated], kept, method="interval" if target == "score" else "ratio", min_n=MIN_N)
    long = pd.DataFrame({"annotator": np.repeat(kept, in_view.shape[1]),
                         "pair_id": np.tile(np.arange(in_view.shape[1]), len(kept)),
                         "value": in_view[rated].ravel()})
    loo = leave_one_out(long, min_n=MIN_N)
    return {"alpha": result.alpha, "mean_tau": result.mean_tau, "method": result.method,
            "n_units": result.n_units, "n_annotators": result.n_annotators, "pairwise": result.pairwise,
            "loo_tau": mean_tau(loo), "loo": loo}


@dataclass(frozen=True)
class View:
    """The Correlations page's state: what every read of it is keyed on. ``experts``: the annotators of the
    target (None: all imported ones); ``filters``: ((facet, (values...)), ...) as ``correlation_frame``."""

    store: Store
    dataset: str
    target: str
    experts: tuple | None
    drop_identical: bool
    filters: tuple

    def _key(self) -> tuple:
        return self.store, self.dataset, self.target, self.experts, self.drop_identical, self.filters

    def matrix(self) -> PairMatrix:
        return load_matrix(self.store, self.dataset, self.target, self.experts)

    def mask(self) -> np.ndarray:
        return load_mask(*self._key())

    def ratings(self) -> tuple[list[str], np.ndarray]:
        return load_ratings(self.store, self.dataset, self.target, self.experts)

    def table(self, n_boot: int, seed: int, ci: str = "bootstrap") -> pd.DataFrame:
        return load_table(*self._key(), n_boot, seed, ci)

    def shaped(self, stat: str):
        return load_shaped(*self._key(), stat)

    def counts(self) -> dict:
        return load_view_counts(*self._key())

    def series(self, judge: str, metric: str) -> pd.DataFrame:
        return load_series(*self._key(), judge, metric)

    def breakdown(self, facet: str, series: tuple[tuple[str, str], ...]) -> pd.DataFrame:
        return load_breakdown(*self._key(), facet, series)

    def paired(self, a: tuple[str, str], b: tuple[str, str], stat: str, n_boot: int, seed: int) -> pd.DataFrame:
        return load_paired(*self._key(), a, b, stat, n_boot, seed)

    def agreement(self) -> dict | None:
        return load_agreement(*self._key())
