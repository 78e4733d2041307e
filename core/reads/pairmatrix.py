"""One dataset's judge values and expert target as a pairs x series matrix (the Correlations page at scale).

:func:`core.reads.frames.correlation_frame` is long: one row per (pair, judge, metric), with the pair's ids and
facets repeated on every row; at 50,000 pairs x 40 series that is 2,000,000 rows, and every filter or
table regroups them. The page filters *pairs*, never single values, so here the same data is held per pair:

* ``pairs``: one row per pair that has the target and at least one judge value, sorted by pair_id (the
  order the statistics want): pair_id, ext_id, group_id, the facets (categoricals), identical, target;
* ``series``: one row per (judge, metric) with values, sorted by judge then metric: judge, metric, run_id;
* ``values`` (pairs x series, float64, NaN where none) and ``present`` (a stored value exists, even NaN).

A view is a boolean mask over the pairs. :meth:`PairMatrix.correlate` and :meth:`PairMatrix.breakdown` give
the rows :func:`core.analysis.stats.correlate` and :func:`core.analysis.stats.breakdown` give on the long frame of the same
pairs, through the same :func:`core.analysis.stats.series_row` (tests/reads/test_pairmatrix.py checks them equal, and the
long form :meth:`PairMatrix.long` equal to ``correlation_frame``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.analysis.stats import ROW_COLUMNS, series_row
from core.analysis.tiedstats import dense_codes
from core.reads.frames import FACETS, PAIR_TEXT, nan_floats, read_frame_parts, refuse_duplicates
from core.reads.targets import annotator_target_sql
from core.store.db import Store

__all__ = ["PairMatrix", "pair_matrix", "read_ratings"]


@dataclass(frozen=True, eq=False)
class PairMatrix:
    """See the module docstring: ``pairs``, ``series``, ``values`` and ``present`` as built by :func:`pair_matrix`."""

    pairs: pd.DataFrame
    series: pd.DataFrame
    values: np.ndarray
    present: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "_grouped", self.pairs["group_id"].notna().to_numpy(dtype=bool))
        object.__setattr__(self, "_target", self.pairs["target"].to_numpy(dtype=float))

    @functools.cached_property
    def _clusters(self) -> np.ndarray:
        """Cluster label per pair, as core.analysis.stats._clusters_of gives it (only the bootstrap needs them)."""
        group = self.pairs["group_id"]
        alone = ("\x00pair:" + self.pairs["pair_id"].astype(str)).to_numpy(dtype=object)  # no group: its own
        return np.where(group.isna().to_numpy(), alone, group.astype(object).to_numpy(dtype=object)).astype(object)

    # -- views ------------------------------------------------------------------------------------

    def mask(self, drop_identical: bool = False, filters: Iterable[tuple[str, Sequence[str]]] = ()) -> np.ndarray:
        """Pairs in view: the identical toggle and ``(facet, allowed values)`` filters (empty: no filter)."""
        keep = np.ones(len(self.pairs), dtype=bool)
        if drop_identical:
            keep &= ~self.pairs["identical"].to_numpy(dtype=bool)
        for facet, allowed in filters:
            if facet not in FACETS:
                raise ValueError(f"cannot filter on '{facet}'; facets are: {', '.join(FACETS)}")
            if allowed:
                column = self.pairs[facet]
                lookup = np.append(column.cat.categories.isin([str(v) for v in allowed]), False)  # code -1: no
                keep &= lookup[column.cat.codes.to_numpy()]
        return keep

    def index_of(self, judge: str, metric: str) -> int | None:
        hit = np.flatnonzero((self.series["judge"] == judge).to_numpy() & (self.series["metric"] == metric).to_numpy())
        return int(hit[0]) if len(hit) else None

    def _rows(self, mask: np.ndarray, s: int) -> np.ndarray:
        return mask & self.present[:, s]

    def long(self, mask: np.ndarray | None = None, series: Sequence[int] | None = None) -> pd.DataFrame:
        """The long frame (``correlation_frame(..., categorical=True, order="pair_id")`` columns) of some
        series on the pairs in ``mask``: rows by series, then pair_id."""
        mask = np.ones(len(self.pairs), dtype=bool) if mask is None else mask
        chosen = range(len(self.series)) if series is None else series
        parts = [(s, np.flatnonzero(self._rows(mask, s))) for s in chosen]
        pidx = np.concatenate([idx for _, idx in parts]) if parts else np.array([], dtype=np.intp)
        sidx = np.concatenate([np.full(len(idx), s) for s, idx in parts]) if parts else np.array([], dtype=np.intp)
        out = {col: self.pairs[col].take(pidx).reset_index(drop=True) for col in PAIR_TEXT}
        out["identical"] = self.pairs["identical"].to_numpy(dtype=bool)[pidx]
        for col in ("run_id", "judge", "metric"):
            out[col] = self.series[col].take(sidx).reset_index(drop=True)
        out["value"] = self.values[pidx, sidx]
        out["target"] = self._target[pidx]
        return pd.DataFrame(out)

    # -- statistics -------------------------------------------------------------------------------

    def _series_rows(self, key: dict, rows: np.ndarray, s: int, *, clustered: bool, cache: dict,
                     **kwargs) -> dict:
        x_all = self.values[rows, s]
        y_all = self._target[rows]
        ok = np.isfinite(x_all) & np.isfinite(y_all)
        clusters = None
        if clustered:
            complete = np.flatnonzero(rows)[ok]
            if self._grouped[complete].any():  # all pairs without a group: resample pairs
                clusters = self._clusters[complete]
        ckey = (np.packbits(rows).tobytes(), np.packbits(ok).tobytes(), clusters is not None)
        y = y_all[ok]
        codes_key = ("y codes", *ckey[:2])  # series over the same complete pairs share their targets' codes
        if codes_key not in cache:
            cache[codes_key] = dense_codes(y)
        return series_row(key, x_all[ok], y, clusters, int((~ok).sum()), counts_cache=cache,
                          cache_key=ckey, y_codes=cache[codes_key], **kwargs)

    def correlate(self, mask: np.ndarray, *, n_boot: int = 1000, seed: int = 0, min_n: int = 10,
                  target_name: str = "score", clustered: bool = True, level: float = 0.95,
                  series: Sequence[int] | None = None, ci: str = "bootstrap") -> pd.DataFrame:
        """``core.analysis.stats.correlate`` of the long frame of these pairs (``cluster_col="group_id"`` when
        ``clustered``, else None; ``ci`` as there): one row per series with a value on a pair in view."""
        cache: dict = {}
        out = []
        for s in (range(len(self.series)) if series is None else sorted(series)):
            rows = self._rows(mask, s)
            if not rows.any():
                continue
            key = {"judge": self.series["judge"].iat[s], "metric": self.series["metric"].iat[s]}
            out.append(self._series_rows(key, rows, s, clustered=clustered, cache=cache, n_boot=n_boot, seed=seed,
                                         min_n=min_n, target_name=target_name, level=level, ci=ci))
        return pd.DataFrame(out, columns=["judge", "metric", *ROW_COLUMNS])

    def breakdown(self, mask: np.ndarray, facet: str, *, series: Sequence[int] | None = None, min_n: int = 10,
                  target_name: str = "score", missing_label: str = "(missing)", n_boot: int = 0, seed: int = 0,
                  clustered: bool = False, ci: str = "bootstrap") -> pd.DataFrame:
        """``core.analysis.stats.breakdown`` (cells by facet level, then judge, metric) of these pairs and series."""
        if facet not in FACETS:
            raise ValueError(f"cannot break down by '{facet}'; facets are: {', '.join(FACETS)}")
        column = self.pairs[facet]
        codes = column.cat.codes.to_numpy()
        # as core.analysis.stats.breakdown: a missing facet is a level of its own, named missing_label
        names = np.append(column.cat.categories.astype(object).to_numpy(dtype=object), missing_label)
        level = names[np.where(codes >= 0, codes, len(names) - 1)]
        cache: dict = {}
        out = []
        chosen = range(len(self.series)) if series is None else sorted(series)
        for name in sorted(set(level[mask])):
            in_level = mask & (level == name)
            for s in chosen:
                rows = self._rows(in_level, s)
                if not rows.any():
                    continue
                key = {facet: name, "judge": self.series["judge"].iat[s], "metric": self.series["metric"].iat[s]}
                out.append(self._series_rows(key, rows, s, clustered=clustered, cache=cache, n_boot=n_boot,
                                             seed=seed, min_n=min_n, target_name=target_name, ci=ci))
        return pd.DataFrame(out, columns=[facet, "judge", "metric", *ROW_COLUMNS])


def pair_matrix(store: Store, dataset: str, target: str = "score", *, metrics: list[str] | None = None,
                annotators: list[str] | None = None, counts: bool = True, checks: bool | None = None) -> PairMatrix:
    """Read one dataset's values and ``target`` (of ``annotators``, all by default) into a :class:`PairMatrix`.

    Report checks are left out as in ``correlation_frame`` (``checks``: :func:`core.reads.frames.checks_wanted`).

    The same reads as ``correlation_frame(..., order="pair_id")``: pairs with the target, values of the
    ``metrics`` (all by default); no sorting of values, a scatter into the matrix instead.
    """
    with store.read() as conn:
        runs, pairs, values, labels, metric_list = read_frame_parts(
            conn, dataset, target, metrics=metrics, annotators=annotators, order="pair_id", counts=counts,
            checks=checks)
    pidx, skey = values["pidx"], values["skey"]
    m = max(1, len(metric_list))
    # series = the (judge, metric) keys that occur, in key order (judge, then metric): counted, not sorted
    occurs = np.bincount(skey, minlength=len(labels) * m) > 0
    keys = np.flatnonzero(occurs)
    sidx = (np.cumsum(occurs) - 1)[skey]
    used = np.zeros(len(pairs), dtype=bool)
    used[pidx] = True
    remap = np.cumsum(used) - 1  # keep pairs with at least one value (as the long frame does)
    n_pairs = int(used.sum())
    # filled series by series and viewed pairs x series: each series (column) contiguous, as the statistics
    # read one series at a time
    flat = sidx * n_pairs + remap[pidx]
    matrix = np.full(len(keys) * n_pairs, np.nan)
    present = np.zeros(len(keys) * n_pairs, dtype=bool)
    matrix[flat] = values["value"]
    present[flat] = True
    refuse_duplicates(len(flat), int(np.count_nonzero(present)))
    matrix, present = matrix.reshape(len(keys), n_pairs).T, present.reshape(len(keys), n_pairs).T
    kept = pairs.loc[used].reset_index(drop=True)
    frame = {}
    ids = kept["pair_id"].to_numpy(dtype=object)  # unique and sorted: each id is its own code
    frame["pair_id"] = pd.Categorical.from_codes(np.arange(len(ids), dtype=np.int32), categories=pd.Index(ids, dtype=object))
    for col in PAIR_TEXT[1:]:
        codes, uniques = pd.factorize(kept[col], sort=True)
        frame[col] = pd.Categorical.from_codes(codes.astype(np.int32), categories=pd.Index(uniques, dtype=object))
    frame["identical"] = kept["identical"].to_numpy(dtype=bool)
    frame["target"] = kept["target"].to_numpy(dtype=float)
    by_label = runs.set_index("judge")["run_id"]
    judges = [labels[int(k) // m] for k in keys]
    series = pd.DataFrame({
        "judge": pd.Categorical(judges, categories=pd.Index(labels, dtype=object)),
        "metric": pd.Categorical([metric_list[int(k) % m] for k in keys],
                                 categories=pd.Index(metric_list, dtype=object)),
        "run_id": pd.Categorical([by_label[j] for j in judges]),
    })
    return PairMatrix(pairs=pd.DataFrame(frame), series=series, values=matrix, present=present)


def read_ratings(store: Store, matrix: PairMatrix, dataset: str, target: str,
                 annotators: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
    """Each annotator's value of ``target`` (``core.reads.targets.annotator_target_sql``) on the matrix's pairs,
    laid out annotators x pairs (NaN: not rated), for ``core.analysis.stats.agreement_matrix``.

    Annotators sorted by name (only ``annotators`` when given, and only those with a value on some pair
    of the matrix); the pairs are matched in DuckDB, so only numbers and the annotator names come back.
    An annotator with two values for one pair is an error, as in ``core.analysis.stats.inter_annotator``.
    """
    sql, params = annotator_target_sql(target, dataset, ordered=False)
    who = "" if annotators is None else " WHERE t.annotator IN (SELECT unnest(?::VARCHAR[]))"
    n = len(matrix.pairs)
    with store.read() as conn:
        conn.register("pm_rows", pd.DataFrame({"pair_id": matrix.pairs["pair_id"].to_numpy(dtype=object),
                                               "row": np.arange(n, dtype=np.int64)}))
        found = conn.sql(f"SELECT r.row, t.annotator, t.value FROM ({sql}) t JOIN pm_rows r USING (pair_id){who}",
                         params=params + ([] if annotators is None else [[str(a) for a in annotators]])).fetchnumpy()
        conn.unregister("pm_rows")
    value = nan_floats(found["value"])
    keep = ~np.isnan(value)
    codes, names = pd.factorize(np.asarray(found["annotator"], dtype=object)[keep], sort=True)
    flat = codes.astype(np.int64) * n + np.asarray(found["row"], dtype=np.int64)[keep]
    if len(flat) and np.bincount(flat).max() > 1:
        raise ValueError("an annotator rated a pair more than once; aggregate first")
    out = np.full(len(names) * n, np.nan)
    out[flat] = value[keep]
    return [str(a) for a in names], out.reshape(len(names), n)
