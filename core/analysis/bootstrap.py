"""The bootstrap of correlations: resampling counts, every resample's tau-b / rho / r at once, percentile CIs.

The vectorized bootstrap
------------------------
A resample with replacement is a vector of multiplicities ``c`` (how often
each pair, or each cluster's pairs, was drawn). With the sign matrices
``Sx[i, j] = sign(x_i - x_j)`` and ``Sy`` computed once, Kendall's tau-b of
the materialized resample is

    tau_b = c' (Sx o Sy) c / sqrt((N^2 - sum_k Lx_k^2) (N^2 - sum_k Ly_k^2))

where ``N = sum(c)`` and ``Lx_k`` is the total multiplicity of the k-th
distinct x value (two copies of one pair are tied in both x and y, so they
add nothing to the numerator and count as ties in the denominator, exactly as
in the materialized sample). All resamples are done at once, as one matrix
of multiplicities (pairs x resamples): pairs with identical ``(x, y)`` are
merged into cells first (a sparse sum; this shrinks everything on tied data),
cells are sorted by x, and the numerator is ``2 sum_j c_j (U' c)_j`` with the
strictly upper triangle ``U[i, j] = [x_i < x_j] sign(y_j - y_i)``, computed by
BLAS in blocks of 256 cells. Counts and signs are small integers, so the
products are exact in float32 while ``N < 2**24``; the result equals scipy
on the materialized resample to rounding (tested to 1e-12).

Spearman's rho uses the mid-ranks of each resample, ``rank_k = (Lx_1 + ... +
Lx_k) - (Lx_k - 1) / 2`` for the k-th x level, in a weighted Pearson
correlation (exact: all sums are integers or quarters). Pearson's r comes
from weighted moments about the full-sample means. A resample with a single
x or y value gives NaN, as scipy does. Cost per statistic: ``O(B m^2 / 2)``
BLAS flops for tau (``m`` distinct (x, y) cells, ``B`` resamples), ``O(B m)``
for rho and r.

With many cells (continuous scores: a cell per pair) the triangular product
loses to a merge-sort count of the discordant weight, ``O(B m log m)``
(``core.analysis.tiedstats.inversion_weights``): ``C - D = (N^2 - sum Lx^2 - sum Ly^2
+ sum c^2) / 2 - 2 D`` in integers. :func:`kendall_kernel` picks the cheaper
kernel; both give the same numbers.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.analysis.correlation import METHODS, STAT_COLUMNS, check_stats, correlation
from core.analysis.tiedstats import inversion_weights, merge_plan

if TYPE_CHECKING:
    from scipy import sparse

_BLOCK = 256            # cells per block of the triangular product
_CHUNK_ELEMS = 4_000_000  # resamples x cells held in memory at once
_MERGE_ELEMS = 131_072  # cells x resamples per step of the merge kernel (its arrays stay in cache)
#: Cost model of the two exact Kendall kernels per resample, in ns (bench/bench_kernels.py measures them):
#: the cell kernel ``CELLS_NS * m^2 / 2`` (BLAS), the merge kernel ``MERGE_NS * m * ceil(log2 m)``.
CELLS_NS, MERGE_NS = 0.3, 15.0
#: Below this many multiply-adds per call the bootstrap's BLAS products run on one thread: waking
#: OpenBLAS's second thread costs more than such a product (bench/bench_kernels.py, docs/PERFORMANCE.md).
_ONE_THREAD_FLOPS = 2e8


# --------------------------------------------------------------------------- resampling

def complete_pairs(x, y, groups=None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """``x`` and ``y`` as floats, with ``groups`` as labels, keeping only the pairs where both are finite;
    last, how many pairs were left out."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    g = None if groups is None else np.asarray(groups, dtype=object)[ok]
    return x[ok], y[ok], g, int((~ok).sum())


def cluster_codes_of(n: int, groups) -> tuple[np.ndarray, int]:
    """Cluster index per unit (clusters in sorted label order) and the number of clusters."""
    if groups is None:
        return np.arange(n), n
    labels = pd.Series(np.asarray(groups, dtype=object))
    if len(labels) != n:
        raise ValueError(f"groups has {len(labels)} labels for {n} pairs")
    if labels.isna().any():
        raise ValueError("groups contain missing labels; give such pairs a label of their own")
    codes, uniques = pd.factorize(labels.astype(str), sort=True)
    return codes.astype(np.intp), len(uniques)


def _draws(n_clusters: int, n_boot: int, seed: int) -> np.ndarray:
    """Cluster indices drawn with replacement: ``(n_boot, n_clusters)``."""
    return np.random.default_rng(seed).integers(0, n_clusters, size=(n_boot, n_clusters))


def counts_by_pair(n: int, groups, n_boot: int, seed: int,
                   codes: tuple[np.ndarray, int] | None = None) -> np.ndarray:
    """Multiplicities laid out pairs x resamples, the layout the statistics use.

    ``codes`` (:func:`cluster_codes_of` of ``groups``) when the caller has them. float32: the counts are small
    integers (exact below 2**24) and this matrix is the bootstrap's largest (50,000 pairs x 1,000
    resamples: 200 MB instead of 400); the statistics widen each chunk to float64.
    """
    codes, k = codes if codes is not None else cluster_codes_of(n, groups)
    draws = _draws(k, n_boot, seed)
    # index = cluster * n_boot + resample, so the bincount is already clusters x resamples (in place: the
    # draws are the size of the result)
    draws *= n_boot
    draws += np.arange(n_boot)[:, None]
    per_cluster = np.bincount(draws.ravel(), minlength=k * n_boot)
    del draws
    per_cluster = per_cluster.reshape(k, n_boot).astype(np.float32)
    return per_cluster if groups is None else per_cluster[codes]


def resample_counts(n: int, groups=None, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Multiplicity of every pair in every bootstrap resample.

    Parameters
    ----------
    n : int
        Number of pairs.
    groups : array-like, optional
        Cluster label per pair. When given, clusters are drawn with
        replacement (as many as there are clusters) and a drawn cluster brings
        all its pairs, so all pairs of a cluster share one multiplicity.
    n_boot, seed : int
        Number of resamples; seed of ``numpy.random.default_rng``.

    Returns
    -------
    ndarray of int64, shape (n_boot, n)
        Same draws as :func:`bootstrap_indices`.
    """
    return np.ascontiguousarray(counts_by_pair(n, groups, n_boot, seed).T).astype(np.int64)


def bootstrap_indices(n: int, groups=None, n_boot: int = 1000, seed: int = 0) -> list[np.ndarray]:
    """The resamples of :func:`resample_counts` materialized as row indices (for naive checks)."""
    codes, k = cluster_codes_of(n, groups)
    members = [np.flatnonzero(codes == g) for g in range(k)]
    return [np.concatenate([members[g] for g in row]) for row in _draws(k, n_boot, seed)]


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(num.shape, np.nan)
    ok = den > 0
    out[ok] = np.clip(num[ok] / np.sqrt(den[ok]), -1.0, 1.0)
    return out


def _indicator(codes: np.ndarray, k: int) -> sparse.csr_matrix:
    """Sparse k x len(codes) matrix summing the rows of each code: ``(G @ a)[j] = a[codes == j].sum(0)``."""
    from scipy import sparse  # here, not at import

    return sparse.csr_matrix((np.ones(len(codes)), (codes, np.arange(len(codes)))), shape=(k, len(codes)))


def _kendall_cells(c: np.ndarray, cx: np.ndarray, cy: np.ndarray, lx: np.ndarray, ly: np.ndarray,
                   n: np.ndarray) -> np.ndarray:
    """tau-b of every column of cell counts ``c`` (cells x resamples), cells sorted by x level."""
    m = c.shape[0]
    # counts and signs are integers: float32 products are exact while every partial sum is < 2**24
    dtype = np.float32 if n.max(initial=0) < 2**24 else np.float64
    cf = c.astype(dtype)
    num = np.zeros(c.shape[1])
    for j0 in range(0, m, _BLOCK):
        j1 = min(m, j0 + _BLOCK)
        # pairs (i, j), i < j1, with x_i < x_j (upper triangle) contribute sign(y_j - y_i)
        u = ((cx[None, :j1] < cx[j0:j1, None]) * np.sign(cy[j0:j1, None] - cy[None, :j1])).astype(dtype)
        num += np.einsum("ij,ij->j", (u @ cf[:j1]).astype(np.float64), c[j0:j1])
    n2 = n * n
    return _safe_ratio(2.0 * num, (n2 - (lx * lx).sum(0)) * (n2 - (ly * ly).sum(0)))


@functools.cache
def _blas_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _one_blas_thread():
    """A context in which BLAS runs on one thread (cheap to enter with a cached controller)."""
    return _blas_controller().limit(limits=1, user_api="blas")


def kendall_kernel(m: int) -> str:
    """The cheaper exact tau-b kernel for ``m`` distinct (x, y) cells: ``"cells"`` or ``"merge"``.

    Both give the same numbers (integer counts, one division). The cell kernel costs ``m^2 / 2``
    multiply-adds per resample in BLAS, the merge kernel ``m log2 m`` elementwise steps per resample:
    discrete scores (tens of cells) take the first, continuous ones (a cell per pair) the second.
    """
    levels = max(1, math.ceil(math.log2(max(m, 2))))
    return "merge" if MERGE_NS * m * levels < CELLS_NS * m * m / 2 else "cells"


def _kendall_merge(c: np.ndarray, plan, lx: np.ndarray, ly: np.ndarray, n: np.ndarray) -> np.ndarray:
    """tau-b of every column of cell counts ``c`` (cells x resamples) by the merge-sort count (any ties).

    ``C - D = (N^2 - sum Lx^2 - sum Ly^2 + sum c^2) / 2 - 2 * (discordant weight)``: scipy's ``tot - xtie
    - ytie + ntie - 2 dis`` in multiplicities, all integers (exact in float64).
    """
    step = max(1, _MERGE_ELEMS // max(1, c.shape[0]))
    inv = np.concatenate([inversion_weights(plan, np.ascontiguousarray(c[:, b:b + step]))
                          for b in range(0, c.shape[1], step)])
    n2 = n * n
    sx, sy = (lx * lx).sum(0), (ly * ly).sum(0)
    num = (n2 - sx - sy + (c * c).sum(0)) / 2 - 2 * inv
    return _safe_ratio(2.0 * num, (n2 - sx) * (n2 - sy))


def boot_stats(x: np.ndarray, y: np.ndarray, counts: np.ndarray, stats: Sequence[str],
               kernel: str | None = None) -> dict[str, np.ndarray]:
    """Each statistic on each resample; ``counts`` holds multiplicities as pairs x resamples.

    ``kernel`` forces tau-b's kernel (``"cells"`` or ``"merge"``); by default :func:`kendall_kernel` picks.
    """
    xv, xi = np.unique(x, return_inverse=True)
    yv, yi = np.unique(y, return_inverse=True)
    cell_key, unit_cell = np.unique(xi.astype(np.int64) * len(yv) + yi, return_inverse=True)
    cx = (cell_key // len(yv)).astype(np.intp)  # cells sorted by (x level, y level)
    cy = (cell_key % len(yv)).astype(np.intp)
    m = len(cell_key)
    to_cells = _indicator(unit_cell, m)
    x_is_cell = m == len(xv)  # every x level is one cell (continuous x): level sums are the cells
    to_x, to_y = _indicator(cx, len(xv)), _indicator(cy, len(yv))
    # Pearson from weighted moments about the full-sample means (keeps cancellation at rounding level)
    x0, y0 = xv[cx] - x.mean(), yv[cy] - y.mean()
    moments = np.stack([np.ones_like(x0), x0, y0, x0 * x0, y0 * y0, x0 * y0])
    out = {s: np.empty(counts.shape[1]) for s in stats}
    kernel = kernel or kendall_kernel(m)
    plan = merge_plan(cy, weighted=True) if "kendall" in stats and kernel == "merge" else None
    step = max(1, _CHUNK_ELEMS // max(m, len(x)))
    # small products: BLAS on one thread (waking OpenBLAS's threads costs more than the product here)
    small = m * m * counts.shape[1] / 2 < _ONE_THREAD_FLOPS
    with _one_blas_thread() if small else contextlib.nullcontext():
        for b0 in range(0, counts.shape[1], step):
            cols = slice(b0, b0 + step)
            c = to_cells @ np.ascontiguousarray(counts[:, cols], dtype=np.float64)  # cells x resamples
            n = c.sum(0)
            lx, ly = c if x_is_cell else to_x @ c, to_y @ c  # multiplicity of every x level / y level
            if "kendall" in stats:
                out["kendall"][cols] = (_kendall_cells(c, cx, cy, lx, ly, n) if plan is None
                                        else _kendall_merge(c, plan, lx, ly, n))
            if "spearman" in stats:
                # mid-rank of every level in this resample; all sums below are exact (integers / quarters)
                rank_x = np.cumsum(lx, 0) - (lx - 1) / 2
                rank_y = np.cumsum(ly, 0) - (ly - 1) / 2
                n_mean2 = n * ((n + 1) / 2) ** 2
                sxy = (c * (rank_x if x_is_cell else rank_x[cx]) * rank_y[cy]).sum(0) - n_mean2
                sxx = (lx * rank_x * rank_x).sum(0) - n_mean2
                syy = (ly * rank_y * rank_y).sum(0) - n_mean2
                out["spearman"][cols] = _safe_ratio(sxy, sxx * syy)
            if "pearson" in stats:
                s1, sx, sy, sxx, syy, sxy = moments @ c
                with np.errstate(invalid="ignore", divide="ignore"):
                    mx, my = sx / s1, sy / s1
                r = _safe_ratio(sxy - s1 * mx * my, (sxx - s1 * mx * mx) * (syy - s1 * my * my))
                # a resample with one x (or y) value has no correlation; rounding must not invent one
                r[((lx > 0).sum(0) < 2) | ((ly > 0).sum(0) < 2)] = np.nan
                out["pearson"][cols] = r
    return out

def bootstrap_distribution(x, y, groups=None, n_boot: int = 1000, seed: int = 0,
                           stats: str | Sequence[str] = METHODS) -> dict[str, np.ndarray]:
    """Bootstrap replicates of tau-b / rho / r, all resamples at once.

    ``x`` and ``y`` must be finite (drop missing values first). Resample ``b``
    is row ``b`` of :func:`resample_counts` (equivalently
    ``bootstrap_indices(...)[b]``); the replicate equals scipy on
    ``x[idx], y[idx]``. A resample where x or y is constant gives NaN.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("x and y must be finite; drop missing values first")
    return boot_stats(x, y, counts_by_pair(len(x), groups, n_boot, seed), check_stats(stats))


def percentile_interval(reps: np.ndarray, level: float) -> tuple[float, float, int]:
    ok = reps[np.isfinite(reps)]
    if len(ok) == 0:
        return math.nan, math.nan, 0
    # rounded so that level=0.95 asks for exactly the 0.025 and 0.975 quantiles
    lo, hi = np.quantile(ok, [round((1 - level) / 2, 12), round((1 + level) / 2, 12)])
    return float(lo), float(hi), len(ok)


def bootstrap_ci(x, y, groups=None, n_boot: int = 1000, seed: int = 0, stat: str = "kendall",
                 level: float = 0.95) -> dict:
    """Percentile bootstrap confidence interval of a correlation.

    Parameters
    ----------
    x, y : array-like of float
        Paired observations; NaN/inf pairs are dropped (``n_missing``).
    groups : array-like, optional
        Cluster label per pair: resample clusters, not pairs.
    n_boot, seed : int
        Number of resamples and seed of ``numpy.random.default_rng``.
    stat : {"kendall", "spearman", "pearson"}
    level : float
        Coverage, e.g. 0.95.

    Returns
    -------
    dict
        ``stat, estimate, ci_low, ci_high, level, n, n_missing, n_clusters,
        n_boot, n_boot_valid, seed, resampling``.

    Notes
    -----
    Percentile interval (Efron & Tibshirani 1993, *An Introduction to the
    Bootstrap*, Sec. 13.3): the ``(1-level)/2`` and ``(1+level)/2`` quantiles
    (linear interpolation) of the replicates. Replicates that are undefined
    (constant x or y in the resample) are left out; ``n_boot_valid`` counts
    the others.
    """
    (stat,) = check_stats(stat)
    x, y, g, n_missing = complete_pairs(x, y, groups)
    point = correlation(x, y, min_n=2)
    codes, k = cluster_codes_of(len(x), g)
    reps = bootstrap_distribution(x, y, g, n_boot, seed, (stat,))[stat]
    lo, hi, valid = percentile_interval(reps, level)
    return {"stat": stat, "estimate": point[STAT_COLUMNS[stat][0]], "ci_low": lo, "ci_high": hi,
            "level": level, "n": len(x), "n_missing": n_missing, "n_clusters": k, "n_boot": n_boot,
            "n_boot_valid": valid, "seed": seed, "resampling": "pairs" if groups is None else "groups",
            "ci_method": "bootstrap" if groups is None else "bootstrap-cluster"}
