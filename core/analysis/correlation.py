"""Point estimates: Kendall's tau-b, Spearman's rho and Pearson's r of paired values, with scipy's p-values.

:func:`correlation` is the one place a correlation is computed (tied data through
:mod:`core.analysis.tiedstats`, scipy otherwise); :data:`METHODS`, :data:`STAT_COLUMNS`,
:func:`check_stats` and :func:`require_columns` are the names and checks the bootstrap, the asymptotic
intervals and the tables (:mod:`core.analysis.stats`) share.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from core.analysis.statistic import ESTIMATE_P_COLUMNS, KEYS, STATISTICS
from core.analysis.tiedstats import dense_codes, kendall_tau_b, pearson_r, spearman_rho
from core.taxonomy import MIN_N  # noqa: F401 - the one minimum n, re-exported for the analysis layer

#: Correlation statistics, in output order.
METHODS: tuple[str, ...] = KEYS
#: Statistic -> (estimate column, p column, CI prefix) in the correlate table.
STAT_COLUMNS = {s.key: (s.short, s.p_col, s.ci_prefix) for s in STATISTICS}


def check_stats(stats: Iterable[str]) -> tuple[str, ...]:
    """``stats`` (one name or several) as a tuple, each one of :data:`METHODS`; ValueError otherwise."""
    stats = (stats,) if isinstance(stats, str) else tuple(stats)
    bad = [s for s in stats if s not in METHODS]
    if bad or not stats:
        raise ValueError(f"unknown statistic {bad}; valid: {', '.join(METHODS)}")
    return stats


def require_columns(data: pd.DataFrame, cols: Iterable[str]) -> None:
    """KeyError naming the columns of ``cols`` that ``data`` lacks (and those it has)."""
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise KeyError(f"missing column(s) {missing}; have {list(data.columns)}")


def _scipy_stats():
    """scipy.stats, imported on first use: a large part of a process's start, and most data never need it
    (tied data take core.analysis.tiedstats, Pearson's r its own code)."""
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
        ``core.analysis.tiedstats.dense_codes(y)``, when the caller already has them (series over the same
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
    :mod:`core.analysis.tiedstats` for tau and rho (from the contingency table instead
    of sorting) and r (without scipy's per-call overhead): the same numbers,
    bit for bit.
    """
    x, y, n_missing = _as_pairs(x, y)
    n = len(x)
    out = {"n": n, "n_missing": n_missing, **dict.fromkeys(ESTIMATE_P_COLUMNS, math.nan), "reason": None}
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
