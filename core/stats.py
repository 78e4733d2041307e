"""Correlation statistics between judges and expert targets.

Pure functions in the style of pingouin: a long DataFrame plus column names in,
a tidy DataFrame (estimate, n, p, CI, seed) out. No I/O, no Streamlit.

Conventions
-----------
* Kendall's tau-b is the headline statistic, reported as an absolute value
  with a dagger when p >= 0.01 and the best / second-best value per metric in
  bold / underline (VERT study, ``seeds/vert-llm-judges-radiology.txt``,
  Tables 1-3). Spearman's rho and Pearson's r come with it; every estimate has
  a 95% CI: the percentile bootstrap (CREPE, ``seeds/crepe.txt``, Table 5) or,
  for large n or on request, the asymptotic interval (influence values,
  cluster-robust; see "Asymptotic intervals" below and docs/STATISTICS.md).
  Every row records its ``ci_method``.
* Orientation is explicit. A metric's direction comes from
  :data:`core.scores.METRICS` (unknown metric: assumed higher-is-better, and
  the row says so); the target ``score`` is higher-is-better, error counts
  (``sig_errors``, ``total_errors``, ``sig_a`` .. ``total_f``) are
  lower-is-better. The expected sign of the correlation is +1 when both
  directions agree, else -1; ``sign_ok`` flags a correlation the wrong way.
* Missing data: a row whose value or target is NaN or infinite is dropped and
  counted in ``n_missing``; nothing is dropped silently.
* Randomness: every bootstrap takes ``seed`` (``numpy.random.default_rng``)
  and records ``seed`` and ``n_boot`` next to its result. In :func:`correlate`
  the resamples of a group depend only on the seed and the sorted pair ids
  (or cluster ids), so two judges scored on the same pairs see the same
  resamples.
* Clustering: when pairs share a ``group_id`` (several candidates for one
  reference), the bootstrap resamples whole groups (cluster bootstrap; Davison
  & Hinkley 1997, Sec. 3.8; Field & Welsh 2007, JRSS-B 69(3)).

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
(``core.tiedstats.inversion_weights``): ``C - D = (N^2 - sum Lx^2 - sum Ly^2
+ sum c^2) / 2 - 2 D`` in integers. :func:`kendall_kernel` picks the cheaper
kernel; both give the same numbers.

Asymptotic intervals
--------------------
:func:`influence_values` gives each pair's influence on tau-b, rho and r in
O(n log n); their cluster sums give a cluster-robust variance (CR1), and the
interval is Fisher's z with a t quantile on G - 1 degrees of freedom
(:func:`asymptotic_ci`). ``ci="auto"`` takes them above
:data:`AUTO_BOOTSTRAP_MAX_N` pairs (:func:`ci_method_for`).
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse, special

from core.scores import METRICS
from core.tiedstats import (
    cells,
    dense_codes,
    inversion_weights,
    kendall_counts,
    kendall_tau_b,
    merge_plan,
    pearson_r,
    spearman_rho,
)

__all__ = [
    "AUTO_BOOTSTRAP_MAX_N",
    "CI_CHOICES",
    "METHODS",
    "METRIC_ORDER",
    "ROW_COLUMNS",
    "TABLE_LEGEND",
    "Agreement",
    "JudgeMetricTable",
    "agreement_matrix",
    "asymptotic_ci",
    "bootstrap_ci",
    "bootstrap_distribution",
    "bootstrap_indices",
    "breakdown",
    "ci_method_for",
    "correlate",
    "correlation",
    "drop_identical",
    "expected_sign",
    "influence_values",
    "inter_annotator",
    "kendall_kernel",
    "judge_metric_table",
    "mark_best",
    "paired_difference",
    "resample_counts",
    "series_row",
    "target_higher_is_better",
]

#: Correlation statistics, in output order.
METHODS: tuple[str, ...] = ("kendall", "spearman", "pearson")

#: Column order of judge x metric tables (VERT Tables 2-3, then baselines).
METRIC_ORDER: tuple[str, ...] = ("green", "ec_sig", "ec_total", "green_f1", "formula", "vert", "rubric",
                                 "radfact", "fineradscore", "bleu4", "bleu2", "rouge_l", "words_diff",
                                 "words_candidate", "words_reference")

TABLE_LEGEND = ("|tau| (Kendall tau-b). † p >= 0.01 (not significant at 0.01); ⚠ correlation has the wrong "
                "sign for the metric's orientation; bold = best, underline = second best per metric.")

#: The columns of a :func:`correlate` row after its group keys (the order of the returned frame).
ROW_COLUMNS: tuple[str, ...] = (
    "target", "n", "n_missing", "n_clusters", "tau", "p", "ci_low", "ci_high", "rho", "rho_p", "rho_ci_low",
    "rho_ci_high", "r", "r_p", "r_ci_low", "r_ci_high", "abs_tau", "abs_rho", "abs_r", "tau_oriented",
    "expected_sign", "orientation_assumed", "sign_ok", "dagger", "too_few", "reason", "seed", "n_boot",
    "n_boot_valid", "level", "resampling", "ci_method")
#: ``ci`` of :func:`correlate` and co.: ``auto`` (by size, :func:`ci_method_for`), or one method forced.
CI_CHOICES: tuple[str, ...] = ("auto", "bootstrap", "asymptotic")
#: ``ci="auto"``: the seeded bootstrap up to this many complete pairs per row, the asymptotic interval above
#: (its cost is O(n log n) per row; the bootstrap's grows with n x resamples). Both cover 93-97% of the
#: time at n = 200 and n = 5,000 in bench/bench_coverage.py.
AUTO_BOOTSTRAP_MAX_N = 5_000
#: Statistic -> (estimate column, p column, CI prefix) in the correlate table.
_COLS = {"kendall": ("tau", "p", "ci"), "spearman": ("rho", "rho_p", "rho_ci"), "pearson": ("r", "r_p", "r_ci")}
_P_OF_VALUE = {"tau": "p", "abs_tau": "p", "tau_oriented": "p", "rho": "rho_p", "abs_rho": "rho_p",
               "r": "r_p", "abs_r": "r_p"}
_STAT_OF_VALUE = {"tau": "tau", "abs_tau": "tau", "rho": "rho", "abs_rho": "rho", "r": "r", "abs_r": "r"}
_ERROR_TARGET = re.compile(r"^(sig|total|insig)_[a-z]+$|_errors$")
_BLOCK = 256            # cells per block of the triangular product
_CHUNK_ELEMS = 4_000_000  # resamples x cells held in memory at once
_MERGE_ELEMS = 131_072  # cells x resamples per step of the merge kernel (its arrays stay in cache)
#: Cost of the two exact Kendall kernels per resample, in ns (measured here, bench/bench_kernels.py):
#: the cell kernel ``_CELLS_NS * m^2 / 2`` (BLAS), the merge kernel ``_MERGE_NS * m * ceil(log2 m)``.
_CELLS_NS, _MERGE_NS = 0.3, 15.0
#: Below this many multiply-adds per call the bootstrap's BLAS products run on one thread: waking
#: OpenBLAS's second thread took ~15 ms on the shared 2-core machine, 30x a 72 x 72 x 1000 product.
_ONE_THREAD_FLOPS = 2e8


# --------------------------------------------------------------------------- orientation

def target_higher_is_better(name: str) -> bool | None:
    """Direction of an expert target: True for ``score``, False for error counts, None if unknown.

    Error counts are ``sig_errors``, ``total_errors`` and per category
    ``sig_a`` .. ``total_f`` (``core/targets.py``): fewer errors is better.
    """
    if name == "score":
        return True
    if _ERROR_TARGET.search(name):
        return False
    return None


def expected_sign(metric: str, target_name: str = "score") -> tuple[int, bool]:
    """Expected sign of corr(metric, target) and whether an orientation was assumed.

    +1 when the metric and the target point the same way (both higher-is-better
    or both lower-is-better), else -1. An unknown metric or target is assumed
    higher-is-better; the second value is then True.
    """
    spec = METRICS.get(metric)
    target_up = target_higher_is_better(target_name)
    metric_up = True if spec is None else spec.higher_is_better
    assumed = spec is None or target_up is None
    return (1 if metric_up == (True if target_up is None else target_up) else -1), assumed


# --------------------------------------------------------------------------- point estimates

def _scipy_stats():
    """scipy.stats, imported on first use: 1.2 s of a process's start here, and most data never need it
    (tied data take core.tiedstats, Pearson's r its own code)."""
    from scipy import stats

    return stats


def _as_pairs(x, y) -> tuple[np.ndarray, np.ndarray, int]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d of equal length, got {x.shape} and {y.shape}")
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok], y[ok], int((~ok).sum())


def correlation(x, y, *, min_n: int = 3, y_codes: tuple[np.ndarray, int] | None = None) -> dict:
    """Kendall tau-b, Spearman rho and Pearson r with their p-values.

    Parameters
    ----------
    x, y : array-like of float
        Paired observations. Pairs where either is NaN/inf are dropped and
        counted (``n_missing``).
    min_n : int
        Below this many complete pairs every statistic is NaN (``reason``).
    y_codes : tuple, optional
        ``core.tiedstats.dense_codes(y)``, when the caller already has them (series over the same
        pairs share their targets); used only when no pair is dropped.

    Returns
    -------
    dict
        ``n, n_missing, tau, p, rho, rho_p, r, r_p, reason`` (``reason`` is
        None, ``"n < min_n"`` or ``"constant x"`` / ``"constant y"``).

    Notes
    -----
    Computed by scipy: ``kendalltau(variant="b")`` (Kendall 1945, tau-b
    ``= (C - D) / sqrt((n0 - n1)(n0 - n2))`` with ``n0 = n(n-1)/2`` and
    ``n1``, ``n2`` the pairs tied in x, y; exact p without ties for small n,
    else the normal approximation with the tie-corrected variance),
    ``spearmanr`` (Pearson r of mid-ranks) and ``pearsonr``. A constant input
    has no defined correlation: NaN, without scipy's warning. Tied data take
    :mod:`core.tiedstats` for tau and rho (from the contingency table instead
    of sorting) and r (without scipy's per-call overhead): the same numbers,
    bit for bit.
    """
    x, y, n_missing = _as_pairs(x, y)
    n = len(x)
    out = {"n": n, "n_missing": n_missing, "tau": math.nan, "p": math.nan, "rho": math.nan,
           "rho_p": math.nan, "r": math.nan, "r_p": math.nan, "reason": None}
    if n < max(min_n, 2):
        out["reason"] = f"n < {max(min_n, 2)}"
        return out
    if np.all(x == x[0]) or np.all(y == y[0]):
        out["reason"] = "constant x" if np.all(x == x[0]) else "constant y"
        return out
    xc, kx = dense_codes(x)
    yc, ky = y_codes if y_codes is not None and n_missing == 0 and len(y_codes[0]) == n else dense_codes(y)
    tau = kendall_tau_b(xc, kx, yc, ky)  # tied data: scipy's numbers from the contingency table
    if tau is None:
        kt = _scipy_stats().kendalltau(x, y, variant="b")
        tau = float(kt.statistic), float(kt.pvalue)
    rho = spearman_rho(xc, kx, yc, ky)
    if rho is None:
        sr = _scipy_stats().spearmanr(x, y)
        rho = float(sr.statistic), float(sr.pvalue)
    r = pearson_r(x, y)
    if r is None:
        pr = _scipy_stats().pearsonr(x, y)
        r = float(pr.statistic), float(pr.pvalue)
    out.update(tau=tau[0], p=tau[1], rho=rho[0], rho_p=rho[1], r=r[0], r_p=r[1])
    return out


# --------------------------------------------------------------------------- resampling

def _cluster_codes(n: int, groups) -> tuple[np.ndarray, int]:
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


def _counts_by_pair(n: int, groups, n_boot: int, seed: int,
                    codes: tuple[np.ndarray, int] | None = None) -> np.ndarray:
    """Multiplicities laid out pairs x resamples, the layout the statistics use.

    ``codes`` (:func:`_cluster_codes` of ``groups``) when the caller has them. float32: the counts are small
    integers (exact below 2**24) and this matrix is the bootstrap's largest (50,000 pairs x 1,000
    resamples: 200 MB instead of 400); the statistics widen each chunk to float64.
    """
    codes, k = codes if codes is not None else _cluster_codes(n, groups)
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
    return np.ascontiguousarray(_counts_by_pair(n, groups, n_boot, seed).T).astype(np.int64)


def bootstrap_indices(n: int, groups=None, n_boot: int = 1000, seed: int = 0) -> list[np.ndarray]:
    """The resamples of :func:`resample_counts` materialized as row indices (for naive checks)."""
    codes, k = _cluster_codes(n, groups)
    members = [np.flatnonzero(codes == g) for g in range(k)]
    return [np.concatenate([members[g] for g in row]) for row in _draws(k, n_boot, seed)]


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(num.shape, np.nan)
    ok = den > 0
    out[ok] = np.clip(num[ok] / np.sqrt(den[ok]), -1.0, 1.0)
    return out


def _indicator(codes: np.ndarray, k: int) -> sparse.csr_matrix:
    """Sparse k x len(codes) matrix summing the rows of each code: ``(G @ a)[j] = a[codes == j].sum(0)``."""
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
    """A context in which BLAS runs on one thread (8 microseconds to enter with a cached controller)."""
    return _blas_controller().limit(limits=1, user_api="blas")


def kendall_kernel(m: int) -> str:
    """The cheaper exact tau-b kernel for ``m`` distinct (x, y) cells: ``"cells"`` or ``"merge"``.

    Both give the same numbers (integer counts, one division). The cell kernel costs ``m^2 / 2``
    multiply-adds per resample in BLAS, the merge kernel ``m log2 m`` elementwise steps per resample:
    discrete scores (tens of cells) take the first, continuous ones (a cell per pair) the second.
    """
    levels = max(1, math.ceil(math.log2(max(m, 2))))
    return "merge" if _MERGE_NS * m * levels < _CELLS_NS * m * m / 2 else "cells"


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


def _boot_stats(x: np.ndarray, y: np.ndarray, counts: np.ndarray, stats: Sequence[str],
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


# --------------------------------------------------------------------------- asymptotic intervals

def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b`` without BLAS: a BLAS dot product of two vectors costs milliseconds here (OpenBLAS waking its
    threads on a shared machine), einsum's own loop microseconds."""
    return float(np.einsum("i,i->", a, b))


def _mid_cdf(codes: np.ndarray, k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per level: its unit count and the mid-distribution ``F(t-) + P(t) / 2`` of the sample."""
    counts = np.bincount(codes, minlength=k).astype(np.float64)
    return counts, (np.cumsum(counts) - counts / 2) / n


def _above_half(level_sums: np.ndarray, n: int) -> np.ndarray:
    """Per level: ``(sum over higher levels + half this level's sum) / n``, i.e. ``E[kappa(T - t) g]``."""
    tail = np.cumsum(level_sums[::-1])[::-1]  # this level and above
    return (tail - level_sums / 2) / n


def influence_values(x, y, stats: str | Sequence[str] = METHODS, *,
                     codes: tuple[tuple[np.ndarray, int], tuple[np.ndarray, int]] | None = None,
                     ) -> dict[str, np.ndarray]:
    """Empirical influence values of tau-b, rho and r: ``estimate - truth ~ sum_i phi_i``; O(n log n).

    Parameters
    ----------
    x, y : array-like of float
        Complete pairs (no NaN).
    stats : subset of ("kendall", "spearman", "pearson")
    codes : optional
        ``(dense_codes(x), dense_codes(y))`` when the caller has them.

    Returns
    -------
    dict
        Statistic -> ``phi`` (one value per pair; they sum to zero). A variance estimate is
        ``G / (G - 1) * sum_g (sum_{i in g} phi_i)^2`` over independent clusters g (pairs: G = n).

    Notes
    -----
    Each statistic is a smooth function of V-statistics, and ``phi_i`` is its derivative in the direction
    of pair i, divided by n (Hampel 1974; Hoeffding 1948 for the projection of U-statistics):

    * **Kendall tau-b** ``= sum_i s_i / sqrt(sum_i bx_i sum_i by_i)`` with ``s_i = sum_j sign(x_i - x_j)
      sign(y_i - y_j)`` (concordant minus discordant partners of i), ``bx_i = #{j: x_j != x_i}`` and
      ``by_i`` likewise, so ``phi_i = (2/n) [(s_i - mean s) / sqrt(mean bx mean by) - (tau/2) ((bx_i -
      mean bx) / mean bx + (by_i - mean by) / mean by)]``. ``s_i`` comes from the merge-sort count of
      discordant partners (``core.tiedstats.discordant_weights``): ties in x, y or both are exact.
    * **Spearman rho** is the correlation of the mid-distribution values ``u_i = F(x_i-) + P(x_i) / 2``
      and ``v_i`` (mid-ranks, rescaled: ties are part of the definition). With ``kappa(d) = 1, 1/2, 0``
      for ``d > 0, = 0, < 0`` and means over all pairs, ``IF_uv(i) = u_i v_i + E[kappa(x - x_i) v] +
      E[u kappa(y - y_i)] - 3 E[uv]``, ``IF_uu(i) = u_i^2 + 2 E[u kappa(x - x_i)] - 3 E[u^2]`` (``E u = 1/2``
      whatever the data), and ``IF_rho = IF_uv / (s_u s_v) - (rho / 2) (IF_uu / s_u^2 + IF_vv / s_v^2)``.
    * **Pearson r**: ``IF_r(i) = zx_i zy_i - (r / 2) (zx_i^2 + zy_i^2)`` of the standardised values.
    """
    stats = _check_stats(stats)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    (xc, kx), (yc, ky) = codes if codes is not None else (dense_codes(x), dense_codes(y))
    out: dict[str, np.ndarray] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        if "kendall" in stats:
            c = cells(xc, kx, yc, ky)
            d = kendall_counts(c)["d"]
            lx, ly, w = c.lx[c.cx].astype(float), c.ly[c.cy].astype(float), c.w.astype(float)
            s_i = (n - lx - ly + w) - 2 * d  # per cell: concordant minus discordant partners
            bx, by = n - lx, n - ly
            sm, bxm, bym = _dot(w, s_i) / n, _dot(w, bx) / n, _dot(w, by) / n
            tau = sm / math.sqrt(bxm * bym) if bxm > 0 and bym > 0 else math.nan
            phi = (2 / n) * ((s_i - sm) / math.sqrt(bxm * bym) - tau / 2 * ((bx - bxm) / bxm + (by - bym) / bym))
            out["kendall"] = phi[c.unit]
        if "spearman" in stats:
            cnt_x, fx = _mid_cdf(xc, kx, n)
            cnt_y, gy = _mid_cdf(yc, ky, n)
            u, v = fx[xc], gy[yc]
            m_uv, m_uu, m_vv = _dot(u, v) / n, _dot(cnt_x, fx * fx) / n, _dot(cnt_y, gy * gy) / n
            su2, sv2 = m_uu - 0.25, m_vv - 0.25
            rho = (m_uv - 0.25) / math.sqrt(su2 * sv2) if su2 > 0 and sv2 > 0 else math.nan
            k1 = _above_half(np.bincount(xc, weights=v, minlength=kx), n)  # E[kappa(x - x_i) v]
            k2 = _above_half(np.bincount(yc, weights=u, minlength=ky), n)  # E[u kappa(y - y_i)]
            k3 = _above_half(cnt_x * fx, n)  # E[u kappa(x - x_i)]
            k4 = _above_half(cnt_y * gy, n)
            if_uv = u * v + k1[xc] + k2[yc] - 3 * m_uv
            if_uu = u * u + 2 * k3[xc] - 3 * m_uu
            if_vv = v * v + 2 * k4[yc] - 3 * m_vv
            out["spearman"] = (if_uv / math.sqrt(su2 * sv2) - rho / 2 * (if_uu / su2 + if_vv / sv2)) / n
        if "pearson" in stats:
            zx, zy = x - x.mean(), y - y.mean()
            sx, sy = math.sqrt(_dot(zx, zx) / n), math.sqrt(_dot(zy, zy) / n)
            zx, zy = zx / sx, zy / sy
            r = _dot(zx, zy) / n
            out["pearson"] = (zx * zy - r / 2 * (zx * zx + zy * zy)) / n
    return out


def _interval(phi: np.ndarray, clusters: tuple[np.ndarray, int] | None, estimate: float,
              level: float) -> tuple[float, float, float]:
    """(low, high, se): Fisher's z interval ``tanh(atanh(est) +- q se / (1 - est^2))`` with the
    cluster-robust standard error of the influence values and ``q`` the t quantile with G - 1 degrees of
    freedom (G clusters, or pairs), as usual for cluster-robust intervals with few clusters."""
    if clusters is None:
        sums, g = phi, len(phi)
    else:
        codes, g = clusters
        sums = np.bincount(codes, weights=phi, minlength=g)
    if g < 2 or not np.isfinite(estimate) or not np.all(np.isfinite(sums)):
        return math.nan, math.nan, math.nan
    se = math.sqrt(g / (g - 1) * _dot(sums, sums))
    if abs(estimate) >= 1:  # a perfect (or degenerate) sample: the transform has no spread to give
        return float(estimate), float(estimate), se
    half = float(special.stdtrit(g - 1, 0.5 + level / 2)) * se / (1 - estimate * estimate)
    z = math.atanh(estimate)
    return math.tanh(z - half), math.tanh(z + half), se


def asymptotic_ci(x, y, groups=None, stat: str = "kendall", level: float = 0.95) -> dict:
    """Asymptotic confidence interval of a correlation, cluster-robust when ``groups`` are given.

    Parameters and result as :func:`bootstrap_ci` (``ci_method`` ``asymptotic`` or ``asymptotic-cluster``,
    and ``se``, the standard error of the estimate); see :func:`influence_values` for the variance and
    :data:`CI_METHODS` for when :func:`correlate` takes it.
    """
    (stat,) = _check_stats(stat)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    g = None if groups is None else np.asarray(groups, dtype=object)[ok]
    x, y = x[ok], y[ok]
    point = correlation(x, y, min_n=2)
    est = point[_COLS[stat][0]]
    clusters = None if g is None else _cluster_codes(len(x), g)
    lo = hi = se = math.nan
    if point["reason"] is None:
        lo, hi, se = _interval(influence_values(x, y, (stat,))[stat], clusters, est, level)
    return {"stat": stat, "estimate": est, "ci_low": lo, "ci_high": hi, "se": se, "level": level,
            "n": len(x), "n_missing": int((~ok).sum()), "n_clusters": len(x) if clusters is None else clusters[1],
            "ci_method": "asymptotic" if groups is None else "asymptotic-cluster"}


def _check_stats(stats: Iterable[str]) -> tuple[str, ...]:
    stats = (stats,) if isinstance(stats, str) else tuple(stats)
    bad = [s for s in stats if s not in METHODS]
    if bad or not stats:
        raise ValueError(f"unknown statistic {bad}; valid: {', '.join(METHODS)}")
    return stats


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
    return _boot_stats(x, y, _counts_by_pair(len(x), groups, n_boot, seed), _check_stats(stats))


def _percentile(reps: np.ndarray, level: float) -> tuple[float, float, int]:
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
    (stat,) = _check_stats(stat)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    g = None if groups is None else np.asarray(groups, dtype=object)[ok]
    x, y = x[ok], y[ok]
    point = correlation(x, y, min_n=2)
    codes, k = _cluster_codes(len(x), g)
    reps = bootstrap_distribution(x, y, g, n_boot, seed, (stat,))[stat]
    lo, hi, valid = _percentile(reps, level)
    return {"stat": stat, "estimate": point[_COLS[stat][0]], "ci_low": lo, "ci_high": hi, "level": level,
            "n": len(x), "n_missing": int((~ok).sum()), "n_clusters": k, "n_boot": n_boot,
            "n_boot_valid": valid, "seed": seed, "resampling": "pairs" if groups is None else "groups",
            "ci_method": "bootstrap" if groups is None else "bootstrap-cluster"}


# --------------------------------------------------------------------------- tables

def _clusters_of(frame: pd.DataFrame, cluster_col: str | None, pair_col: str) -> np.ndarray | None:
    """Cluster label per row, or None to resample pairs. A pair without a group is its own cluster."""
    if cluster_col is None or cluster_col not in frame.columns:
        return None
    labels = frame[cluster_col].astype(object)
    alone = labels.isna()
    if alone.all():
        return None
    return np.where(alone, "\x00pair:" + frame[pair_col].astype(str), labels.astype(str)).astype(object)


def _complete(frame: pd.DataFrame, value_col: str, target_col: str) -> tuple[pd.DataFrame, int]:
    ok = np.isfinite(frame[value_col].to_numpy(float)) & np.isfinite(frame[target_col].to_numpy(float))
    return frame[ok], int((~ok).sum())


def _require(data: pd.DataFrame, cols: Iterable[str]) -> None:
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise KeyError(f"missing column(s) {missing}; have {list(data.columns)}")


def ci_method_for(ci: str, n: int, clustered: bool, n_boot: int = 1000) -> str:
    """The interval :func:`series_row` computes for ``n`` complete pairs: ``bootstrap``,
    ``bootstrap-cluster``, ``asymptotic``, ``asymptotic-cluster`` or ``none``.

    ``ci="auto"`` takes the bootstrap up to :data:`AUTO_BOOTSTRAP_MAX_N` pairs and the asymptotic interval
    above; ``"bootstrap"`` and ``"asymptotic"`` force one. A bootstrap with ``n_boot=0`` is no interval
    (``none``); the asymptotic interval needs no resamples.
    """
    if ci not in CI_CHOICES:
        raise ValueError(f"unknown ci {ci!r}; valid: {', '.join(CI_CHOICES)}")
    if ci == "asymptotic" or (ci == "auto" and n > AUTO_BOOTSTRAP_MAX_N and n_boot > 0):
        return "asymptotic-cluster" if clustered else "asymptotic"
    if n_boot <= 0:
        return "none"
    return "bootstrap-cluster" if clustered else "bootstrap"


def series_row(row: dict, x: np.ndarray, y: np.ndarray, clusters: np.ndarray | None, n_missing: int, *,
               methods: Sequence[str] = METHODS, n_boot: int = 1000, seed: int = 0, min_n: int = 10,
               target_name: str = "score", level: float = 0.95, counts_cache: dict | None = None,
               cache_key=None, y_codes: tuple[np.ndarray, int] | None = None, ci: str = "bootstrap",
               cluster_codes: tuple[np.ndarray, int] | None = None) -> dict:
    """One row of :func:`correlate` from one series: ``x`` (judge values) and ``y`` (targets) complete and
    in pair order, ``clusters`` the cluster label per pair (or None), ``row`` the group's key columns.

    ``counts_cache`` and ``cache_key`` (identical for series over the same pairs and clusters) let series
    share their resampling counts and cluster codes, ``y_codes`` their targets' codes (:func:`correlation`).
    ``cluster_codes`` (``_cluster_codes(len(x), clusters)``: codes in sorted label order, and their number)
    may stand in for the labels. ``ci`` chooses the interval (:func:`ci_method_for`). Callers that hold
    their data in another shape (``core.pairmatrix``) get the same rows as :func:`correlate` through here.
    """
    point = correlation(x, y, min_n=min_n, y_codes=y_codes)
    row = dict(row)
    cache = {} if counts_cache is None or cache_key is None else counts_cache
    if cluster_codes is None and clusters is not None:
        if ("cluster codes", cache_key) not in cache:
            cache[("cluster codes", cache_key)] = _cluster_codes(len(x), clusters)
        cluster_codes = cache[("cluster codes", cache_key)]
    clustered = cluster_codes is not None
    row.update(target=target_name, n=point["n"], n_missing=n_missing,
               n_clusters=cluster_codes[1] if clustered else point["n"])
    method = ci_method_for(ci, point["n"], clustered, n_boot)
    computed = point["reason"] is None and method != "none"
    reps: dict[str, np.ndarray] = {}
    bounds: dict[str, tuple[float, float]] = {}
    if computed and method.startswith("bootstrap"):
        if cache_key not in cache:
            cache[cache_key] = _counts_by_pair(len(x), True if clustered else None, n_boot, seed,
                                               cluster_codes if clustered else (None, len(x)))
        reps = _boot_stats(x, y, cache[cache_key], methods)
    elif computed:
        codes = cluster_codes if clustered else None
        y_c = y_codes if y_codes is not None and len(y_codes[0]) == len(y) else dense_codes(y)
        phi = influence_values(x, y, methods, codes=(dense_codes(x), y_c))
        for stat in methods:
            lo, hi, _ = _interval(phi[stat], codes, point[_COLS[stat][0]], level)
            bounds[stat] = (lo, hi)
    valid = []
    for stat in METHODS:
        est, pcol, ci_col = _COLS[stat]
        row[est] = point[est] if stat in methods else math.nan
        row[pcol] = point[pcol] if stat in methods else math.nan
        lo, hi, nv = _percentile(reps[stat], level) if stat in reps else (*bounds.get(stat, (math.nan, math.nan)), 0)
        row[f"{ci_col}_low"], row[f"{ci_col}_high"] = lo, hi
        if stat in reps:
            valid.append(nv)
    sign, assumed = expected_sign(str(row["metric"]) if "metric" in row else "", target_name)
    tau = row["tau"]
    row.update(abs_tau=abs(tau), abs_rho=abs(row["rho"]), abs_r=abs(row["r"]), tau_oriented=sign * tau,
               expected_sign=sign, orientation_assumed=assumed, sign_ok=bool(sign * tau > 0),
               dagger=not (row["p"] < 0.01), too_few=point["n"] < min_n, reason=point["reason"], seed=seed,
               n_boot=n_boot if method.startswith("bootstrap") else 0, n_boot_valid=min(valid) if valid else 0,
               level=level, resampling="groups" if clustered else "pairs",
               ci_method=method if computed else "none")
    return row


def correlate(data: pd.DataFrame, *, by: Sequence[str] = ("judge", "metric"), methods: Sequence[str] = METHODS,
              n_boot: int = 1000, seed: int = 0, cluster_col: str | None = "group_id", min_n: int = 10,
              target_name: str = "score", level: float = 0.95, value_col: str = "value",
              target_col: str = "target", pair_col: str = "pair_id", ci: str = "bootstrap") -> pd.DataFrame:
    """Correlation of every judge metric with the expert target, with confidence intervals.

    Parameters
    ----------
    data : DataFrame
        Long: one row per (pair, judge, metric) with ``value`` and ``target``.
    by : sequence of str
        One output row per group of these columns.
    methods : subset of ("kendall", "spearman", "pearson")
        Statistics to compute; the columns of the others are NaN.
    n_boot, seed, level
        Bootstrap size, seed (recorded) and CI coverage; ``n_boot=0`` skips CIs.
    cluster_col : str or None
        Resample clusters of this column (e.g. ``group_id``: candidates of one
        reference) when it exists and is not all missing; None resamples pairs.
    min_n : int
        Groups with fewer complete pairs get NaN statistics and ``too_few``.
    target_name : str
        Which target ``target`` holds (``score``, ``sig_errors``, ...): sets
        the expected sign.
    ci : {"bootstrap", "asymptotic", "auto"}
        The intervals: the seeded (cluster) bootstrap, the asymptotic
        (cluster-robust) interval, or by size per row (:func:`ci_method_for`:
        bootstrap up to :data:`AUTO_BOOTSTRAP_MAX_N` complete pairs). The
        default stays the bootstrap for callers that describe their intervals
        as such; ``python -m core correlate`` uses ``auto``.

    Returns
    -------
    DataFrame
        ``by`` columns, then ``target, n, n_missing, n_clusters, tau, p,
        ci_low, ci_high, rho, rho_p, rho_ci_low, rho_ci_high, r, r_p,
        r_ci_low, r_ci_high, abs_tau, abs_rho, abs_r, tau_oriented,
        expected_sign, orientation_assumed, sign_ok, dagger, too_few, reason,
        seed, n_boot, n_boot_valid, level, resampling, ci_method``
        (``n_boot`` is 0 on rows whose interval is asymptotic; ``ci_method``
        is ``none`` where no interval was computed).

    Notes
    -----
    ``abs_tau = |tau|`` as in the VERT tables; ``tau_oriented = expected_sign
    * tau`` is positive when the judge agrees with the experts in the right
    direction. ``sign_ok`` is ``tau_oriented > 0`` (False when tau is 0 or
    NaN). ``dagger`` is ``not p < 0.01`` (VERT Tables 2-3). The p-values are
    scipy's and treat pairs as independent; with clustered pairs the
    cluster-bootstrap CI is the honest uncertainty. A group with a pair id
    twice is an error.
    """
    methods = _check_stats(methods)
    _require(data, [*by, value_col, target_col, pair_col])
    # pair ids and cluster labels become integer codes once, in sorted order (a sort of the codes within a
    # group is then the sort by pair id, and a group's cluster codes re-densified keep the label order)
    pcodes, pair_ids = pd.factorize(data[pair_col], sort=True)
    work = {"_v": data[value_col].to_numpy(float), "_t": data[target_col].to_numpy(float), "_p": pcodes}
    if cluster_col is not None and cluster_col in data.columns:
        work["_c"], work["_a"] = _cluster_label_codes(data[cluster_col], pcodes, pair_ids)
    # the groups as row numbers (numbered in iteration order), without copying a frame per group
    grouped = pd.DataFrame({f"_by{i}": data[k] for i, k in enumerate(by)}).groupby(
        [f"_by{i}" for i in range(len(by))], sort=True, dropna=False)
    number = grouped.ngroup().to_numpy()
    keys = list(grouped.size().index)
    rows_of = np.argsort(number, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(number, minlength=len(keys)))])
    rows = []
    counts_cache: dict = {}
    for g, key in enumerate(keys):
        key = key if isinstance(key, tuple) else (key,)
        idx = rows_of[bounds[g]:bounds[g + 1]]
        v, t = work["_v"][idx], work["_t"][idx]
        ok = np.isfinite(v) & np.isfinite(t)
        p = work["_p"][idx][ok]
        order = np.argsort(p, kind="stable")
        p = p[order]
        twice = p[1:] == p[:-1]
        if twice.any():
            dupes = [pair_ids[c] for c in dict.fromkeys(p[1:][twice].tolist())][:3]
            raise ValueError(f"group {dict(zip(by, key, strict=True))} has pair ids more than once: {dupes}")
        codes = None
        if "_c" in work and not work["_a"][idx][ok].all():  # some pair has a group: clusters
            labels = work["_c"][idx][ok][order]
            uniq, inverse = np.unique(labels, return_inverse=True)
            codes = (inverse.astype(np.intp), len(uniq))
        ckey = (p.tobytes(), None if codes is None else labels.tobytes())
        rows.append(series_row(dict(zip(by, key, strict=True)), v[ok][order], t[ok][order], None,
                               int((~ok).sum()), methods=methods, n_boot=n_boot, seed=seed, min_n=min_n,
                               target_name=target_name, level=level, counts_cache=counts_cache, cache_key=ckey,
                               ci=ci, cluster_codes=codes))
    return pd.DataFrame(rows, columns=[*by, *ROW_COLUMNS])


def _cluster_label_codes(labels: pd.Series, pcodes: np.ndarray, pair_ids) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the code of its cluster label in sorted label order, and whether it has no group.

    As :func:`_clusters_of`: a pair without a group is its own cluster (``"\x00pair:" + pair id``); labels
    are compared as text.
    """
    gcodes, guniq = pd.factorize(labels)
    alone = gcodes < 0
    names = [str(u) for u in guniq] + ["\x00pair:" + str(pair_ids[c]) for c in np.unique(pcodes[alone])]
    sorted_codes, _ = pd.factorize(pd.Index(names, dtype=object), sort=True)
    out = np.empty(len(labels), dtype=np.intp)
    out[~alone] = sorted_codes[:len(guniq)][gcodes[~alone]]
    if alone.any():
        lone = np.unique(pcodes[alone])
        out[alone] = sorted_codes[len(guniq):][np.searchsorted(lone, pcodes[alone])]
    return out, alone


def breakdown(data: pd.DataFrame, by_facet: str = "modality", *, by: Sequence[str] = ("judge", "metric"),
              missing_label: str = "(missing)", **kwargs) -> pd.DataFrame:
    """:func:`correlate` once per value of a facet (modality, anatomy, system, split).

    Rows whose facet is missing form their own level ``missing_label``, so the
    cells add up to the whole. Every cell carries its own ``n`` (and
    ``too_few`` below ``min_n``). Keyword arguments go to :func:`correlate`.
    """
    _require(data, [by_facet])
    facet = data[by_facet].astype(object).where(data[by_facet].notna(), missing_label)
    return correlate(data.assign(**{by_facet: facet}), by=(by_facet, *by), **kwargs)


def mark_best(table: pd.DataFrame, column: str = "abs_tau", within: str | Sequence[str] | None = "metric",
              decimals: int | None = None) -> pd.DataFrame:
    """Flag the best and second-best value of ``column`` within each group.

    Parameters
    ----------
    table : DataFrame
        Long table, e.g. from :func:`correlate`.
    column : str
        Values to rank, higher is better.
    within : str, sequence of str or None
        Groups compared separately (``"metric"``: per column of the judge x
        metric table as in VERT Table 3); None compares the whole table
        (VERT Table 1: "best value across all results").
    decimals : int, optional
        Compare values rounded to this many decimals (as displayed), so two
        values printed alike are marked alike.

    Returns
    -------
    DataFrame
        A copy with boolean ``best`` and ``second``. Ties are all marked; the
        second best is the next distinct value below the best (dense ranking).
        NaN is never marked, nor a group with fewer than two values (nothing
        to compare: a table with one judge per metric marks nothing).
    """
    out = table.copy()
    vals = out[column].astype(float)
    if decimals is not None:
        vals = vals.round(decimals)
    if within is None:
        rank = vals.rank(method="dense", ascending=False)
        compared = pd.Series(vals.notna().sum() >= 2, index=vals.index)
    else:
        keys = [within] if isinstance(within, str) else list(within)
        grouped = vals.groupby([out[k] for k in keys], dropna=False)
        rank = grouped.rank(method="dense", ascending=False)
        compared = grouped.transform("count") >= 2
    out["best"] = ((rank == 1) & compared).to_numpy()
    out["second"] = ((rank == 2) & compared).to_numpy()
    return out


def _metric_columns(metrics: Iterable[str]) -> list[str]:
    present = list(dict.fromkeys(metrics))
    return [m for m in METRIC_ORDER if m in present] + sorted(m for m in present if m not in METRIC_ORDER)


@dataclass(frozen=True)
class JudgeMetricTable:
    """A judge x metric table in the shape of VERT Tables 2-3.

    ``values`` holds the numbers, ``text`` the cells as printed ("0.712†",
    "–" for no value, "(n=7)" when too few pairs), and the boolean frames
    mark bold (``best``), underline (``second``), ``dagger`` and
    ``wrong_sign``; ``n`` is the number of pairs per cell.
    """

    values: pd.DataFrame
    text: pd.DataFrame
    best: pd.DataFrame
    second: pd.DataFrame
    dagger: pd.DataFrame
    wrong_sign: pd.DataFrame
    n: pd.DataFrame
    legend: str = TABLE_LEGEND

    def to_markdown(self) -> str:
        """Markdown with **bold** best and <u>underlined</u> second best."""
        cols = list(self.text.columns)
        lines = ["| " + " | ".join([str(self.text.index.name or ""), *map(str, cols)]) + " |",
                 "|" + " --- |" * (len(cols) + 1)]
        for idx in self.text.index:
            cells = []
            for col in cols:
                cell = self.text.at[idx, col]
                if self.best.at[idx, col]:
                    cell = f"**{cell}**"
                elif self.second.at[idx, col]:
                    cell = f"<u>{cell}</u>"
                cells.append(cell)
            lines.append("| " + " | ".join([str(idx), *cells]) + " |")
        return "\n".join(lines)


def judge_metric_table(corr_table: pd.DataFrame, value: str = "abs_tau", *, rows: str = "judge",
                       columns: str = "metric", decimals: int = 3,
                       within: str | None = "column") -> JudgeMetricTable:
    """Pivot a :func:`correlate` table to judges x metrics, formatted like the papers.

    Columns follow :data:`METRIC_ORDER`, then other metrics alphabetically;
    rows keep their order of appearance. ``within="column"`` marks best /
    second best per metric (VERT Tables 2-3), None over the whole table
    (VERT Table 1). The dagger uses the p-value of the statistic shown
    (``p`` for tau, ``rho_p`` for rho, ``r_p`` for r; none for other
    columns); ``⚠`` marks a correlation whose sign contradicts the
    orientation (``expected_sign x statistic < 0``).
    """
    _require(corr_table, [rows, columns, value])
    if corr_table.duplicated([rows, columns]).any():
        raise ValueError(f"several rows per ({rows}, {columns}); filter the table first (e.g. one facet value)")
    marked = mark_best(corr_table, value, None if within is None else columns, decimals)
    # a boolean per cell, computed on the long table before pivoting
    stat_col = _STAT_OF_VALUE.get(value)
    p = marked[_P_OF_VALUE[value]] if _P_OF_VALUE.get(value) in marked else pd.Series(math.nan, marked.index)
    marked["_dagger"] = ~(p.astype(float) < 0.01) if value in _P_OF_VALUE else False
    if stat_col in marked and "expected_sign" in marked:
        marked["_wrong"] = (marked[stat_col] * marked["expected_sign"]).astype(float) < 0
    elif "tau_oriented" in marked:
        marked["_wrong"] = marked["tau_oriented"].astype(float) < 0
    else:
        marked["_wrong"] = False
    if "n" not in marked:
        marked["n"] = math.nan
    order_rows = list(dict.fromkeys(corr_table[rows]))
    order_cols = _metric_columns(corr_table[columns])

    def wide(col: str) -> pd.DataFrame:
        frame = marked.pivot(index=rows, columns=columns, values=col).reindex(index=order_rows, columns=order_cols)
        frame.index.name, frame.columns.name = rows, None
        return frame

    def flags(col: str) -> pd.DataFrame:
        return wide(col).astype(object).fillna(False).astype(bool) & values.notna()

    values = wide(value).astype(float)
    n = wide("n")
    dagger, wrong = flags("_dagger"), flags("_wrong")
    text = pd.DataFrame("–", index=values.index, columns=values.columns)
    for r in values.index:
        for c in values.columns:
            v = values.at[r, c]
            if not math.isnan(v):
                text.at[r, c] = f"{v:.{decimals}f}" + ("†" if dagger.at[r, c] else "") + (
                    " ⚠" if wrong.at[r, c] else "")
            elif not pd.isna(n.at[r, c]):
                text.at[r, c] = f"(n={int(n.at[r, c])})"
    return JudgeMetricTable(values=values, text=text, best=flags("best"), second=flags("second"),
                            dagger=dagger, wrong_sign=wrong, n=n)


# --------------------------------------------------------------------------- paired comparison

def paired_difference(data: pd.DataFrame, judge_a: str, judge_b: str, metric_a: str, metric_b: str | None = None,
                      n_boot: int = 1000, seed: int = 0, cluster_col: str | None = "group_id", *,
                      stat: str = "kendall", target_name: str = "score", level: float = 0.95, min_n: int = 10,
                      value_col: str = "value", target_col: str = "target",
                      pair_col: str = "pair_id") -> pd.DataFrame:
    """Is judge A's correlation with the experts higher than judge B's? Paired bootstrap.

    Parameters
    ----------
    data : DataFrame
        The long frame of :func:`correlate`.
    judge_a, judge_b, metric_a, metric_b
        The two (judge, metric) series compared; ``metric_b`` defaults to
        ``metric_a``. Only pairs both scored (finite value and target) count.
    stat : {"kendall", "spearman", "pearson"}
    n_boot, seed, cluster_col, level, min_n
        As in :func:`correlate`.

    Returns
    -------
    DataFrame
        One row: ``judge_a, metric_a, judge_b, metric_b, target, stat, n,
        n_clusters, estimate_a, estimate_b, diff, ci_low, ci_high, p_boot,
        level, seed, n_boot, n_boot_valid, resampling, compared``.

    Notes
    -----
    Estimates are **sign-corrected**: ``s * stat`` with ``s`` the expected
    sign of each (metric, target), so a judge that correlates the wrong way
    scores below zero and loses. ``|tau|`` would rank such a judge by the
    strength of a wrong-way relationship and its replicates fold at zero. When
    both correlations have the expected sign, the two coincide.

    Every resample uses the same pairs (or clusters) for both judges, so the
    difference ``d* = est_a* - est_b*`` keeps their dependence (paired
    bootstrap; Koehn 2004, EMNLP; Efron & Tibshirani 1993, Ch. 16). CI:
    percentile of ``d*``. Two-sided p: ``min(1, 2 min(P0, P1))`` with
    ``P0 = (1 + #{d* <= 0}) / (B + 1)`` and ``P1 = (1 + #{d* >= 0}) / (B + 1)``,
    the smallest level at which the percentile interval excludes 0 (with the
    usual +1 so that p is never 0). Identical judges give ``d* = 0`` and p = 1.
    """
    (stat,) = _check_stats(stat)
    metric_b = metric_a if metric_b is None else metric_b
    _require(data, ["judge", "metric", value_col, target_col, pair_col])

    def series(judge: str, metric: str) -> pd.DataFrame:
        part, _ = _complete(data[(data["judge"] == judge) & (data["metric"] == metric)], value_col, target_col)
        if part[pair_col].duplicated().any():
            raise ValueError(f"({judge}, {metric}) has pair ids more than once")
        return part

    a = series(judge_a, metric_a)
    b = series(judge_b, metric_b)
    extra = [cluster_col] if cluster_col is not None and cluster_col in data.columns else []
    both = a[[pair_col, value_col, target_col, *extra]].merge(
        b[[pair_col, value_col, target_col]], on=pair_col, suffixes=("_a", "_b")).sort_values(pair_col)
    if not np.array_equal(both[f"{target_col}_a"].to_numpy(float), both[f"{target_col}_b"].to_numpy(float)):
        raise ValueError("the two judges' rows carry different targets for the same pair")
    xa, xb = both[f"{value_col}_a"].to_numpy(float), both[f"{value_col}_b"].to_numpy(float)
    y = both[f"{target_col}_a"].to_numpy(float)
    clusters = _clusters_of(both, cluster_col, pair_col)
    sa, _ = expected_sign(metric_a, target_name)
    sb, _ = expected_sign(metric_b, target_name)
    est = _COLS[stat][0]
    pa, pb = correlation(xa, y, min_n=min_n), correlation(xb, y, min_n=min_n)
    row = {"judge_a": judge_a, "metric_a": metric_a, "judge_b": judge_b, "metric_b": metric_b,
           "target": target_name, "stat": stat, "n": len(y),
           "n_clusters": len(y) if clusters is None else len(set(clusters)),
           "estimate_a": sa * pa[est], "estimate_b": sb * pb[est], "diff": sa * pa[est] - sb * pb[est],
           "ci_low": math.nan, "ci_high": math.nan, "p_boot": math.nan, "level": level, "seed": seed,
           "n_boot": n_boot, "n_boot_valid": 0, "resampling": "pairs" if clusters is None else "groups",
           "compared": "sign-corrected (expected sign x statistic)"}
    if pa["reason"] is None and pb["reason"] is None and n_boot > 0:
        counts = _counts_by_pair(len(y), clusters, n_boot, seed)
        d = sa * _boot_stats(xa, y, counts, (stat,))[stat] - sb * _boot_stats(xb, y, counts, (stat,))[stat]
        d = d[np.isfinite(d)]
        lo, hi, valid = _percentile(d, level)
        if valid:
            p = 2 * min((1 + (d <= 0).sum()) / (valid + 1), (1 + (d >= 0).sum()) / (valid + 1))
            row.update(ci_low=lo, ci_high=hi, p_boot=float(min(1.0, p)), n_boot_valid=valid)
    return pd.DataFrame([row])


# --------------------------------------------------------------------------- data helpers

def _normalize_text(text) -> str | None:
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return None
    return re.sub(r"\s+", " ", str(text)).strip()


def drop_identical(pairs_df: pd.DataFrame, reference_col: str = "reference",
                   candidate_col: str = "candidate") -> tuple[pd.DataFrame, int]:
    """Remove pairs whose candidate repeats the reference (CREPE's ReXVal* filter, Sec. 4 / Table 2).

    Texts are compared after collapsing runs of whitespace and stripping the
    ends; case and punctuation count. A missing text is never "identical".

    Returns
    -------
    (DataFrame, int)
        The kept rows (original index) and how many were removed.
    """
    _require(pairs_df, [reference_col, candidate_col])
    ref = pairs_df[reference_col].map(_normalize_text)
    cand = pairs_df[candidate_col].map(_normalize_text)
    same = (ref == cand) & ref.notna() & cand.notna()
    return pairs_df[~same.to_numpy()], int(same.sum())


@dataclass(frozen=True)
class Agreement:
    """Inter-annotator agreement: the ceiling a judge can be expected to reach.

    ``pairwise`` has one row per pair of annotators (``annotator_a,
    annotator_b, n, tau, p, rho, rho_p``); ``alpha`` is Krippendorff's alpha
    over all annotators at level ``method``; ``n_units`` counts pairs rated by
    at least two annotators.
    """

    pairwise: pd.DataFrame
    alpha: float
    method: str
    n_units: int
    n_annotators: int

    @property
    def mean_tau(self) -> float:
        """Mean pairwise Kendall tau-b (NaN pairs left out)."""
        return float(self.pairwise["tau"].mean()) if len(self.pairwise) else math.nan


def inter_annotator(annotations: pd.DataFrame, method: str = "interval", *, min_n: int = 3,
                    pair_col: str = "pair_id", annotator_col: str = "annotator",
                    value_col: str = "value") -> Agreement:
    """Pairwise Kendall tau between annotators and Krippendorff's alpha.

    Parameters
    ----------
    annotations : DataFrame
        Long: ``pair_id, annotator, value`` (one value per pair and annotator,
        e.g. :func:`core.targets.annotator_values` for one target). Missing
        values are ignored.
    method : {"interval", "ratio", "ordinal", "nominal"}
        Krippendorff's level of measurement: ``interval`` for scores,
        ``ratio`` (or ``interval``) for error counts.
    min_n : int
        Annotator pairs sharing fewer pairs get NaN tau.

    Notes
    -----
    ``alpha = 1 - D_o / D_e`` (observed over expected disagreement from the
    coincidence matrix; Krippendorff 2011, "Computing Krippendorff's
    Alpha-Reliability"), computed with the ``krippendorff`` package. Units
    with a single rating do not count. Fewer than two annotators, or no
    variation at all: NaN.
    """
    _require(annotations, [pair_col, annotator_col, value_col])
    _check_level(method)
    ann = annotations[[pair_col, annotator_col, value_col]].dropna(subset=[value_col])
    if ann.duplicated([pair_col, annotator_col]).any():
        raise ValueError("an annotator rated a pair more than once; aggregate first")
    wide = ann.pivot(index=pair_col, columns=annotator_col, values=value_col).astype(float)
    names = sorted(wide.columns, key=str)
    return agreement_matrix(wide[names].to_numpy().T, names, method, min_n=min_n)


def _check_level(method: str) -> None:
    if method not in ("interval", "ratio", "ordinal", "nominal"):
        raise ValueError(f"unknown method {method!r}; valid: interval, ratio, ordinal, nominal")


def agreement_matrix(matrix: np.ndarray, names: Sequence[str], method: str = "interval", *,
                     min_n: int = 3) -> Agreement:
    """:func:`inter_annotator` of ratings already laid out annotators x units (NaN: not rated).

    Rows follow ``names``; units in pair order give the same numbers, bit for bit, as the long form
    (units nobody rated change nothing).
    """
    import krippendorff

    _check_level(method)
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != len(names):
        raise ValueError(f"matrix must be annotators x units with {len(names)} rows, got shape {matrix.shape}")
    rows = []
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            res = correlation(matrix[i], matrix[j], min_n=min_n)
            rows.append({"annotator_a": a, "annotator_b": names[j], "n": res["n"], "tau": res["tau"], "p": res["p"],
                         "rho": res["rho"], "rho_p": res["rho_p"]})
    rated = (~np.isnan(matrix)).sum(0) >= 2
    alpha = math.nan
    values = matrix[:, rated]
    if len(names) >= 2 and rated.any() and np.unique(values[~np.isnan(values)]).size > 1:
        alpha = float(krippendorff.alpha(reliability_data=values, level_of_measurement=method))
    pairwise = pd.DataFrame(rows, columns=["annotator_a", "annotator_b", "n", "tau", "p", "rho", "rho_p"])
    return Agreement(pairwise=pairwise, alpha=alpha, method=method, n_units=int(rated.sum()),
                     n_annotators=len(names))
