"""Asymptotic confidence intervals of correlations: influence values, cluster-robust, Fisher's z.

:func:`influence_values` gives each pair's influence on tau-b, rho and r in
O(n log n); their cluster sums give a cluster-robust variance (CR1), and the
interval is Fisher's z with a t quantile on G - 1 degrees of freedom
(:func:`asymptotic_ci`). ``ci="auto"`` takes them above
:data:`core.analysis.stats.AUTO_BOOTSTRAP_MAX_N` pairs (:func:`core.analysis.stats.ci_method_for`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core.analysis.bootstrap import cluster_codes_of, complete_pairs
from core.analysis.correlation import METHODS, STAT_COLUMNS, check_stats, correlation
from core.analysis.tiedstats import cells, dense_codes, kendall_counts


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b`` without BLAS: a BLAS dot product of two vectors wakes OpenBLAS's threads, which costs far more
    than einsum's own loop on vectors this size."""
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
      discordant partners (``core.analysis.tiedstats.discordant_weights``): ties in x, y or both are exact.
    * **Spearman rho** is the correlation of the mid-distribution values ``u_i = F(x_i-) + P(x_i) / 2``
      and ``v_i`` (mid-ranks, rescaled: ties are part of the definition). With ``kappa(d) = 1, 1/2, 0``
      for ``d > 0, = 0, < 0`` and means over all pairs, ``IF_uv(i) = u_i v_i + E[kappa(x - x_i) v] +
      E[u kappa(y - y_i)] - 3 E[uv]``, ``IF_uu(i) = u_i^2 + 2 E[u kappa(x - x_i)] - 3 E[u^2]`` (``E u = 1/2``
      whatever the data), and ``IF_rho = IF_uv / (s_u s_v) - (rho / 2) (IF_uu / s_u^2 + IF_vv / s_v^2)``.
    * **Pearson r**: ``IF_r(i) = zx_i zy_i - (r / 2) (zx_i^2 + zy_i^2)`` of the standardised values.
    """
    stats = check_stats(stats)
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


def influence_interval(phi: np.ndarray, clusters: tuple[np.ndarray, int] | None, estimate: float,
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
    from scipy import special  # here, not at import (scipy.special: ~0.25 s)

    half = float(special.stdtrit(g - 1, 0.5 + level / 2)) * se / (1 - estimate * estimate)
    z = math.atanh(estimate)
    return math.tanh(z - half), math.tanh(z + half), se


def asymptotic_ci(x, y, groups=None, stat: str = "kendall", level: float = 0.95) -> dict:
    """Asymptotic confidence interval of a correlation, cluster-robust when ``groups`` are given.

    Parameters and result as :func:`bootstrap_ci` (``ci_method`` ``asymptotic`` or ``asymptotic-cluster``,
    and ``se``, the standard error of the estimate); see :func:`influence_values` for the variance and
    :func:`core.analysis.stats.ci_method_for` for when :func:`core.analysis.stats.correlate` takes it.
    """
    (stat,) = check_stats(stat)
    x, y, g, n_missing = complete_pairs(x, y, groups)
    point = correlation(x, y, min_n=2)
    est = point[STAT_COLUMNS[stat][0]]
    clusters = None if g is None else cluster_codes_of(len(x), g)
    lo = hi = se = math.nan
    if point["reason"] is None:
        lo, hi, se = influence_interval(influence_values(x, y, (stat,))[stat], clusters, est, level)
    return {"stat": stat, "estimate": est, "ci_low": lo, "ci_high": hi, "se": se, "level": level,
            "n": len(x), "n_missing": n_missing, "n_clusters": len(x) if clusters is None else clusters[1],
            "ci_method": "asymptotic" if groups is None else "asymptotic-cluster"}
