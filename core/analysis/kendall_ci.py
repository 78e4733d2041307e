"""Kendall's tau-b of two score lists with a percentile bootstrap CI (:func:`kendall_ci`), as the ensemble
table reports it for every row (the rule is in :mod:`core.analysis.ensemble`'s docstring, which re-exports it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core.analysis.bootstrap import bootstrap_distribution, percentile_interval
from core.analysis.correlation import correlation

__all__ = ["kendall_ci", "tau_b"]


def tau_b(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """tau-b and its p as scipy.stats.kendalltau gives them (NaN for a constant input), through
    :func:`core.analysis.stats.correlation`: the contingency table for tied data, no scipy wrapper per call."""
    out = correlation(x, y, min_n=2)
    return out["tau"], out["p"]


def kendall_ci(
    x: Sequence[float],
    y: Sequence[float],
    seed: int = 0,
    n_boot: int = 1000,
    level: float = 0.95,
    groups: Sequence | None = None,
) -> dict:
    """Kendall's tau-b of ``x`` and ``y`` with a percentile bootstrap CI.

    Parameters
    ----------
    x, y : sequence of float
        Paired values (no missing values).
    seed : int
        Seed of the bootstrap (recorded by callers).
    n_boot : int
        Bootstrap resamples; 0 skips the CI.
    level : float
        Confidence level of the interval.
    groups : sequence, optional
        Cluster labels: the bootstrap then resamples whole clusters (pairs that
        share a reference are not independent).

    Returns
    -------
    dict
        ``tau, p, ci_low, ci_high, n, ci_method`` (tau and p as
        :func:`scipy.stats.kendalltau`, ``variant="b"``, gives them; NaN when
        undefined). The resamples are :func:`core.analysis.stats.bootstrap_distribution`'s
        (all at once, the exact vectorized tau-b; seeded as there), ``ci_method``
        ``bootstrap``, ``bootstrap-cluster`` or ``none``.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-d and of equal length")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("x and y must not contain NaN (drop or impute first)")
    n = len(x)
    out = {"tau": math.nan, "p": math.nan, "ci_low": math.nan, "ci_high": math.nan, "n": n, "ci_method": "none"}
    if n < 2:
        return out
    out["tau"], out["p"] = tau_b(x, y)
    if n_boot <= 0 or math.isnan(out["tau"]):
        return out
    labels = None if groups is None else np.array([str(g) for g in groups], dtype=object)
    taus = bootstrap_distribution(x, y, labels, n_boot=n_boot, seed=seed, stats=("kendall",))["kendall"]
    low, high, valid = percentile_interval(taus, level)
    if valid:
        out["ci_low"], out["ci_high"] = low, high
        out["ci_method"] = "bootstrap" if groups is None else "bootstrap-cluster"
    return out
