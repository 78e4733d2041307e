"""Kendall's tau-b and Spearman's rho of tied data without sorting: scipy's numbers, bit for bit.

Judge metrics and expert targets are mostly discrete (error counts, 0-5 scores, GREEN
fractions): 50,000 pairs take a few dozen distinct values. scipy sorts all n values
several times per statistic (``kendalltau``: a quicksort and a mergesort; ``spearmanr``:
one stable argsort per variable). Here the values are coded by hashing (``pd.factorize``,
O(n)), and everything scipy derives from the sorted data comes from the k_x x k_y
contingency table instead:

* Kendall tau-b (scipy.stats.kendalltau, variant b, method auto, two-sided): the integer
  counts scipy computes (discordant pairs, joint ties, ties in x and y and their moments)
  are read off the table, then the float formula is scipy's, line for line, on the same
  Python integers. The exact-p branch (no ties, n <= 33 or at most one discordant pair)
  is left to scipy.
* Spearman rho (scipy.stats.spearmanr): scipy's mid-ranks are exact halves, so a rank
  per level (first ordinal rank + (count - 1) / 2) gives the same float64 rank arrays,
  laid out as ``np.apply_along_axis`` lays them out; ``np.corrcoef`` and the t-test
  then run exactly as in scipy.

Both return None when the table would be too large (continuous data): the caller uses
scipy then. :func:`pearson_r` is scipy's Pearson r without its per-call overhead (a
third of its time at n = 50,000). tests/test_tiedstats.py checks bit-identity against
scipy on tied, continuous and mixed inputs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

MAX_CELLS = 4_000_000  # k_x * k_y above this: not worth it (scipy's sort is as fast)


def dense_codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes 0..k-1 in value order (equal values share a code) and k, by hashing, not sorting n values."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=float) + 0.0)  # + 0.0: -0.0 is 0.0
    rank = np.empty(len(uniques), dtype=np.intp)
    rank[np.argsort(uniques, kind="stable")] = np.arange(len(uniques))
    return rank[codes], len(uniques)


def _table(xc: np.ndarray, kx: int, yc: np.ndarray, ky: int) -> np.ndarray:
    return np.bincount(xc * ky + yc, minlength=kx * ky).reshape(kx, ky).astype(np.int64)


def _tie_terms(cnt: np.ndarray) -> tuple[int, int, int]:
    """scipy's ``count_rank_tie`` on the per-level counts (in level order)."""
    cnt = cnt.astype("int64", copy=False)
    cnt = cnt[cnt > 1]
    return (int((cnt * (cnt - 1) // 2).sum()),
            int((cnt * (cnt - 1.) * (cnt - 2)).sum()),
            int((cnt * (cnt - 1.) * (2 * cnt + 5)).sum()))


def kendall_tau_b(xc: np.ndarray, kx: int, yc: np.ndarray, ky: int) -> tuple[float, float] | None:
    """(tau, p) as ``scipy.stats.kendalltau(x, y)`` gives them, or None (leave it to scipy)."""
    if kx * ky > MAX_CELLS:
        return None
    table = _table(xc, kx, yc, ky)
    size = int(xc.size)
    # discordant pairs: cells (a, b), (a', b') with a' > a and b' < b
    below = np.cumsum(table[::-1], axis=0)[::-1]  # rows >= a
    below = np.vstack([below[1:], np.zeros((1, ky), dtype=np.int64)])  # rows > a
    left = np.cumsum(below, axis=1)
    left = np.hstack([np.zeros((kx, 1), dtype=np.int64), left[:, :-1]])  # columns < b
    dis = int((table * left).sum())
    joint = table[table > 1]
    ntie = int((joint * (joint - 1) // 2).sum())
    xtie, x0, x1 = _tie_terms(table.sum(axis=1))
    ytie, y0, y1 = _tie_terms(table.sum(axis=0))
    tot = (size * (size - 1)) // 2
    if xtie == tot or ytie == tot:
        return None
    if xtie == 0 and ytie == 0 and (size <= 33 or min(dis, tot - dis) <= 1):
        return None  # scipy's exact p
    # from here on scipy.stats.kendalltau (scipy 1.17, _stats_py.py), same operations, same types
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    tau = np.minimum(1., max(-1., tau))
    m = size * (size - 1.)
    var = ((m * (2 * size + 5) - x1 - y1) / 18 +
           (2 * xtie * ytie) / m + x0 * y0 / (9 * m * (size - 2)))
    z = con_minus_dis / np.sqrt(var)
    pvalue = 2 * special.ndtr(-np.abs(z))
    return float(tau[()]), float(pvalue[()])


def _mid_ranks(codes: np.ndarray, k: int) -> np.ndarray:
    """scipy's 'average' rank of each level: first ordinal rank + (count - 1) / 2."""
    counts = np.bincount(codes, minlength=k)
    first = (np.cumsum(counts) - counts + 1).astype(np.float64)
    return first + (counts.astype(np.float64) - 1) / 2


def spearman_rho(xc: np.ndarray, kx: int, yc: np.ndarray, ky: int) -> tuple[float, float] | None:
    """(rho, p) as ``scipy.stats.spearmanr(x, y)`` gives them, or None (leave it to scipy)."""
    if kx * ky > MAX_CELLS or kx < 2 or ky < 2:
        return None
    lookup = np.concatenate([_mid_ranks(xc, kx), _mid_ranks(yc, ky)])
    stacked = np.column_stack((xc, yc + kx))
    a_ranked = np.apply_along_axis(lambda col: lookup[col], 0, stacked)  # scipy's layout
    rs = np.corrcoef(a_ranked, rowvar=0)
    dof = xc.size - 2
    with np.errstate(divide="ignore"):
        t = rs * np.sqrt((dof / ((rs + 1.0) * (1.0 - rs))).clip(0))
    prob = 2 * special.stdtr(dof, -np.abs(t))
    return float(rs[1, 0]), float(prob[1, 0])


def pearson_r(x: np.ndarray, y: np.ndarray) -> tuple[float, float] | None:
    """(r, p) as ``scipy.stats.pearsonr(x, y)`` gives them for 1-d float64 inputs with n > 2 that are
    not constant, without its per-call array-API overhead; else None (leave it to scipy).

    scipy.stats.pearsonr (scipy 1.17, _stats_py.py), the same operations in the same order: centre,
    scale by the largest deviation before the norm, ``vecdot`` of the normalised deviations, clip,
    and the two-sided p of the beta distribution on (-1, 1) with a = b = n/2 - 1.
    """
    if x.dtype != np.float64 or y.dtype != np.float64 or x.ndim != 1 or x.shape != y.shape or x.size <= 2:
        return None
    if np.all(x == x[0]) or np.all(y == y[0]):
        return None
    xmean = np.mean(x, axis=-1, keepdims=True)
    ymean = np.mean(y, axis=-1, keepdims=True)
    xm = x - xmean
    ym = y - ymean
    xmax = np.max(np.abs(xm), axis=-1, keepdims=True)
    ymax = np.max(np.abs(ym), axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        normxm = xmax * np.linalg.norm(xm / xmax, ord=2, axis=-1, keepdims=True)
        normym = ymax * np.linalg.norm(ym / ymax, ord=2, axis=-1, keepdims=True)
        r = np.vecdot(xm / normxm, ym / normym, axis=-1)
    r = np.clip(r, -1., 1.)
    ab = np.asarray(np.asarray(x.size, dtype=np.float64) / 2 - 1, dtype=np.float64)
    pvalue = 2 * special.betaincc(ab, ab, (np.abs(r) - -1) / 2)
    return float(r[()]), float(pvalue[()])
