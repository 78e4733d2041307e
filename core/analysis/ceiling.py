"""The comparable ceiling: each expert against the mean of the other experts (leave-one-out).

A judge is scored against the *mean* of the experts. Pairwise agreement between
two single experts is a lower bar than that: a mean of several raters is less
noisy than any one of them, so a judge can "beat" pairwise agreement without
being as good as an expert. The comparable figure puts one expert where the
judge stands: expert i's values against the mean of the others on the pairs
both cover, in the statistic the judges are shown in (Kendall tau-b, Spearman
rho or Pearson r: every row carries all three). With k raters the other side is a mean of k - 1,
one fewer than the judge faces, so the leave-one-out ceiling is still a slight
underestimate; it is the closest like-for-like figure the data allow.

Exact arithmetic: values become integer micro-units (as core.reads.targets does), the
others' sum is an integer and their mean one division, so two pairs whose means
are equal rationals get bit-identical floats and tau sees the tie.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from core.analysis.correlation import correlation
from core.analysis.statistic import BY_NAME, ESTIMATE_P_COLUMNS, STATISTICS, statistic
from core.analysis.tiedstats import dense_codes, kendall_tau_b

MICRO = 10**6
#: The ceiling's statistic by any of its names (the page's "kendall", the CLI's "tau") -> (estimate, p) columns.
STAT_COLUMNS = {s.short: (s.short, s.p_col) for s in STATISTICS}
STAT_ALIASES = {name: s.short for name, s in BY_NAME.items()}
#: How the ceiling's statistic is named in words (page, CLI, report).
STAT_WORDS = {s.short: s.name for s in STATISTICS}
STAT_SYMBOLS = {s.short: s.symbol for s in STATISTICS}
LOO_COLUMNS = ["annotator", "n", *ESTIMATE_P_COLUMNS]


def stat_key(stat: str) -> str:
    """``"tau"``, ``"rho"`` or ``"r"`` for any name of the statistic (kendall / spearman / pearson too)."""
    return statistic(stat).short


def leave_one_out(values: pd.DataFrame, *, min_n: int = 3) -> pd.DataFrame:
    """Per annotator: ``annotator, n, tau, p, rho, rho_p, r, r_p`` against the mean of the other annotators.

    ``values``: long ``pair_id, annotator, value`` (one value per pair and annotator, e.g.
    :func:`core.reads.targets.annotator_values` for one target). ``n`` counts pairs the annotator rated
    together with at least one other; fewer than ``min_n`` gives NaN statistics. tau is Kendall's tau-b
    (exact ties), rho Spearman's (mid-ranks) and r Pearson's, each with scipy's p-value, all on the same
    exact means.
    """
    cols = LOO_COLUMNS
    ann = values.dropna(subset=["value"])
    if ann["annotator"].nunique() < 2:
        return pd.DataFrame(columns=cols)
    wide = ann.pivot(index="pair_id", columns="annotator", values="value")
    names = sorted(wide.columns, key=str)
    micro = np.rint(wide[names].to_numpy(dtype=float) * MICRO)  # NaN stays NaN
    rated = ~np.isnan(micro)
    ints = np.where(rated, micro, 0).astype(np.int64)
    total, count = ints.sum(axis=1), rated.sum(axis=1)
    rows = []
    for i, name in enumerate(names):
        others = count - rated[:, i]
        use = rated[:, i] & (others > 0)
        n = int(use.sum())
        tau = p = math.nan
        others_stats = {"rho": math.nan, "rho_p": math.nan, "r": math.nan, "r_p": math.nan}
        if n >= min_n:
            mean = (total[use] - ints[use, i]) / others[use]  # one division per pair: equal rationals tie
            result = kendall_tau_b(*dense_codes(ints[use, i]), *dense_codes(mean))
            if result is None:  # too many distinct values for the table kernel: scipy's merge sort
                from scipy.stats import kendalltau

                result = tuple(kendalltau(ints[use, i], mean))
            tau, p = (float(v) for v in result)
            found = correlation(ints[use, i].astype(float), mean, min_n=min_n)  # rho and r: scale-free
            others_stats = {k: float(found[k]) for k in others_stats}
        rows.append({"annotator": name, "n": n, "tau": tau, "p": p, **others_stats})
    return pd.DataFrame(rows, columns=cols)


def mean_stat(table: pd.DataFrame, stat: str = "tau") -> float:
    """The leave-one-out ceiling in ``stat`` (tau / rho / r): the mean over annotators (NaN ones left out)."""
    col = STAT_COLUMNS[stat_key(stat)][0]
    vals = table[col].dropna() if len(table) and col in table else pd.Series(dtype=float)
    return float(vals.mean()) if len(vals) else math.nan


def mean_tau(table: pd.DataFrame) -> float:
    """The leave-one-out ceiling: the mean of the annotators' taus (NaN ones left out)."""
    return mean_stat(table, "tau")


LEVEL_NOTE = {"interval": "interval level (differences between values are meaningful)",
              "ratio": "ratio level (counts: zero means none)",
              "ordinal": "ordinal level (only the order of values is meaningful)",
              "nominal": "nominal level (categories)"}
