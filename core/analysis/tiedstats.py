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
third of its time at n = 50,000). tests/analysis/test_tiedstats.py checks bit-identity against
scipy on tied, continuous and mixed inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

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
    from scipy import special  # here, not at import: scipy.special costs ~0.25 s to import

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
    from scipy import special

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
    from scipy import special

    pvalue = 2 * special.betaincc(ab, ab, (np.abs(r) - -1) / 2)
    return float(r[()]), float(pvalue[()])


# --------------------------------------------------------------------------- any ties: merge-sort counts

# Kendall's tau-b by counting discordant pairs with a merge sort (Knight 1966, JASA 61(314); what scipy does
# for the total), here on weighted cells so that one pass serves many weight vectors (bootstrap resamples)
# and gives every cell its own count (the influence values of core.analysis.stats' asymptotic intervals).
#
# Cells are the distinct (x, y) values, sorted by (x, y); cell p has y code v_p and weight w_p (how many
# units it holds, or its multiplicity in a resample). A pair of cells q < p is discordant exactly when
# v_q > v_p (an inversion): cells of one x level are in increasing y, so they never are. Bottom-up merge
# sort by position: at level k the cells are arranged in blocks of 2^(k+1) positions, each sorted by v with
# the left half (positions with bit k clear) first among equal v. Every pair of cells meets at exactly one
# level, in the same block, one in each half; there a right cell p sees the left cells of larger v after
# it, and a left cell q the right cells of smaller v before it. Each level's arrangement is the previous
# one re-sorted (stable) by the new key, so numpy's timsort only merges adjacent sorted runs.


@dataclass(frozen=True)
class MergePlan:
    """The merge levels of cells sorted by (x, y) with y codes ``v``: see :func:`merge_plan`.

    Per level: ``order`` (the cell in each slot), ``left`` (the slot holds a left-half cell), ``starts`` and
    ``ends`` (each block's first and last slot); and for the weighted sums, ``left_cells`` (the left-half
    cells, block by block in increasing v), ``right_cells`` (likewise), ``after`` (for each right cell, how
    many left-half cells of all blocks precede the first left cell of its block with a larger v) and
    ``left_end`` / ``right_starts`` (per block with a right half: its left cells' end in ``left_cells``,
    its first right cell in ``right_cells``).
    """

    m: int
    levels: tuple
    weighted: tuple


def merge_plan(v: np.ndarray, weighted: bool = False) -> MergePlan:
    """Arrangements of the bottom-up merge sort of ``v`` (y codes of cells sorted by (x, y)); O(m log m).

    ``weighted=True`` adds what :func:`inversion_weights` needs (:func:`discordant_weights` does not).
    """
    v = np.asarray(v, dtype=np.int64)
    m = len(v)
    k_levels = int(v.max(initial=0)) + 1
    order = np.arange(m, dtype=np.int64)
    levels, sums = [], []
    k = 0
    while (1 << k) < m:
        key = ((order >> (k + 1)) * k_levels + v[order]) * 2 + ((order >> k) & 1)
        order = order[np.argsort(key, kind="stable")]
        width = 1 << (k + 1)
        starts = np.arange(0, m, width)
        left = ((order >> k) & 1) == 0
        levels.append((order, left, starts, np.minimum(starts + width, m) - 1))
        if weighted:
            # left cells before each right slot (ties: left first, so these have v <= its v)
            n_left_before = np.cumsum(left) - left
            block_of_right = order[~left] >> (k + 1)
            has_right = np.unique(block_of_right)  # every block but perhaps a last one with a left half only
            sums.append((order[left].astype(np.intp), order[~left].astype(np.intp),
                         n_left_before[~left].astype(np.intp),
                         np.searchsorted(order[left] >> (k + 1), has_right, side="right").astype(np.intp),
                         np.searchsorted(block_of_right, has_right, side="left").astype(np.intp)))
        k += 1
    return MergePlan(m=m, levels=tuple(levels), weighted=tuple(sums))


def discordant_weights(plan: MergePlan, w: np.ndarray) -> np.ndarray:
    """Per cell p: the total weight of the cells discordant with it, ``sum_q w_q [(x_q - x_p)(y_q - y_p) < 0]``.

    Exact in float64 while the weights sum to less than 2**53.
    """
    w = np.asarray(w, dtype=np.float64)
    d = np.zeros(plan.m)
    for order, left, starts, ends in plan.levels:
        wn = w[order]
        lw = np.where(left, wn, 0.0)
        rw = wn - lw
        cl = np.cumsum(lw)
        cr = np.cumsum(rw)
        block = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, plan.m)))
        before_block = (cr - rw)[starts][block]  # right weight in earlier blocks
        # left cell: right cells of smaller v before it; right cell: left cells of larger v after it
        d[order] += np.where(left, cr - before_block, cl[ends][block] - cl)
    return d


def inversion_weights(plan: MergePlan, w: np.ndarray) -> np.ndarray:
    """``sum_{q<p} w_q w_p [v_q > v_p]`` (the discordant weight) of every column of ``w`` (cells x columns).

    Per level: the left-half weights in merged order are summed cumulatively, and each right cell takes the
    left weight of its block after its place (``sum_blocks (right total)(left total up to the block's
    end) - sum_right w_i (left total before its place)``). O(m log m) elementwise work per column (no
    BLAS); exact in float64 while the column sums are below 2**26.
    """
    w = np.asarray(w, dtype=np.float64)
    out = np.zeros(w.shape[1:])
    zero = np.zeros((1, *w.shape[1:]))
    for left_cells, right_cells, after, left_end, right_starts in plan.weighted:
        cl = np.concatenate([zero, np.cumsum(w[left_cells], axis=0)])  # cl[j]: left weight of slots < j
        rw = w[right_cells]
        out += np.einsum("b...,b...->...", np.add.reduceat(rw, right_starts, axis=0), cl[left_end])
        out -= np.einsum("i...,i...->...", rw, cl[after])
    return out


@dataclass(frozen=True)
class Cells:
    """Units grouped by their distinct (x, y) value, sorted by (x, y).

    ``unit`` maps each unit to its cell; ``cx``, ``cy`` are the cells' x and y codes (levels in value
    order), ``w`` their unit counts, ``lx``, ``ly`` the unit counts of every x and y level.
    """

    unit: np.ndarray
    cx: np.ndarray
    cy: np.ndarray
    w: np.ndarray
    lx: np.ndarray
    ly: np.ndarray


def cells(xc: np.ndarray, kx: int, yc: np.ndarray, ky: int) -> Cells:
    """:class:`Cells` of dense codes (``dense_codes``); O(n log n), O(n) when the kx x ky table is small."""
    key = xc.astype(np.int64) * ky + yc
    if kx * ky <= max(4 * len(key), 1024):  # a table of that size costs less than sorting
        counts = np.bincount(key, minlength=kx * ky)
        present = np.flatnonzero(counts)
        index = np.full(kx * ky, -1, dtype=np.intp)
        index[present] = np.arange(len(present))
        cell_key, unit, w = present, index[key], counts[present]
    else:
        cell_key, unit, w = np.unique(key, return_inverse=True, return_counts=True)
    cx, cy = cell_key // ky, cell_key % ky
    return Cells(unit=unit.astype(np.intp), cx=cx.astype(np.intp), cy=cy.astype(np.intp),
                 w=w.astype(np.int64), lx=np.bincount(cx, weights=w, minlength=kx).astype(np.int64),
                 ly=np.bincount(cy, weights=w, minlength=ky).astype(np.int64))


def discordant_table(c: Cells) -> np.ndarray:
    """:func:`discordant_weights` from the dense kx x ky table: ``sum_{a'<a, b'>b} + sum_{a'>a, b'<b}``."""
    kx, ky = len(c.lx), len(c.ly)
    table = np.zeros((kx, ky))
    table[c.cx, c.cy] = c.w
    below = np.cumsum(table, axis=0) - table  # rows a' < a
    upper_left = np.cumsum(below[:, ::-1], axis=1)[:, ::-1] - below  # and columns b' > b
    above = np.cumsum(table[::-1], axis=0)[::-1] - table  # rows a' > a
    lower_right = np.cumsum(above, axis=1) - above  # and columns b' < b
    return (upper_left + lower_right)[c.cx, c.cy]


def kendall_counts(c: Cells, plan: MergePlan | None = None) -> dict:
    """scipy.stats.kendalltau's integer counts, from any data, in O(n log n).

    ``dis`` (discordant pairs), ``ntie`` (pairs tied in both), ``xtie``/``ytie`` and the tie moments
    ``x0, x1, y0, y1`` (as scipy's ``count_rank_tie``), ``tot = n(n-1)/2`` and ``size``; plus ``d``, each
    cell's discordant unit count (for the influence values). Python integers: nothing is divided yet.
    The per-cell counts come from the kx x ky table when it is small (a judge's continuous score against
    a 0-5 expert score: a few levels of y), else from the merge sort.
    """
    m = len(c.w)
    if plan is None and len(c.lx) * len(c.ly) <= max(2 * m * max(1, int(m).bit_length()), 4096):
        d = discordant_table(c)
    else:
        d = discordant_weights(merge_plan(c.cy) if plan is None else plan, c.w)
    dis2 = int(np.einsum("i,i->", c.w.astype(np.float64), d))  # (not BLAS: slow for one vector)  # every discordant pair counted from both ends
    size = int(c.w.sum())
    joint = c.w[c.w > 1]
    xtie, x0, x1 = _tie_terms(c.lx)
    ytie, y0, y1 = _tie_terms(c.ly)
    return {"dis": dis2 // 2, "ntie": int((joint * (joint - 1) // 2).sum()), "xtie": xtie, "x0": x0, "x1": x1,
            "ytie": ytie, "y0": y0, "y1": y1, "tot": size * (size - 1) // 2, "size": size, "d": d}


def tau_b_from_counts(k: dict) -> tuple[float, float] | None:
    """(tau, p) exactly as scipy.stats.kendalltau computes them from its counts, or None where scipy takes
    another branch (a constant input; its exact p for untied small samples)."""
    size, tot, dis = k["size"], k["tot"], k["dis"]
    xtie, ytie = k["xtie"], k["ytie"]
    if size < 2 or xtie == tot or ytie == tot:
        return None
    if xtie == 0 and ytie == 0 and (size <= 33 or min(dis, tot - dis) <= 1):
        return None
    con_minus_dis = tot - xtie - ytie + k["ntie"] - 2 * dis
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    tau = np.minimum(1., max(-1., tau))
    m = size * (size - 1.)
    var = ((m * (2 * size + 5) - k["x1"] - k["y1"]) / 18 +
           (2 * xtie * ytie) / m + k["x0"] * k["y0"] / (9 * m * (size - 2)))
    z = con_minus_dis / np.sqrt(var)
    from scipy import special  # here, not at import: scipy.special costs ~0.25 s to import

    pvalue = 2 * special.ndtr(-np.abs(z))
    return float(tau[()]), float(pvalue[()])
