"""The answer in words: which judge is closest to the experts, how sure we are, and the ceiling.

One function computes it (:func:`headline`) and one writes it (:func:`sentences`), for the Correlations
page, ``python -m core correlate`` and the HTML report alike:

- the best (judge, metric): the highest sign-corrected statistic (``expected_sign x`` tau-b, rho or r) among
  rows with at least ``min_n`` pairs and the expected sign, with its 95% CI and n;
- the ceiling in the same statistic: one expert against the mean of the others (leave-one-out,
  :mod:`core.analysis.ceiling`), on at least ``min_n`` pairs;
- whether the best is significantly better than the runner-up (the best metric of another judge): the
  paired bootstrap of the difference (:func:`core.analysis.stats.paired_difference`, the Correlations page's
  paired test), significant when its 95% interval excludes 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from core.analysis.correlation import MIN_N
from core.analysis.naming import display_name
from core.analysis.statistic import STATISTICS, table

#: statistic -> (estimate, CI low, CI high) columns of a correlate table.
STAT_COLS = {s.key: (s.short, s.ci_low, s.ci_high) for s in STATISTICS}
SYMBOLS = table("symbol")
#: The targets in words, as a headline names them.
TARGETS = {"score": "the experts' overall score", "sig_errors": "the experts' count of significant errors",
           "total_errors": "the experts' count of all errors"}


@dataclass(frozen=True)
class Headline:
    stat: str                      # kendall / spearman / pearson
    min_n: int
    best: dict | None              # the correlate row closest to the experts, with ``oriented``, ``lo``, ``hi``
    runner_up: dict | None         # the best row of another judge, likewise
    paired: dict | None            # paired_difference's row, best (A) against the runner-up (B)
    ceiling: float                 # leave-one-out, in ``stat``; NaN when not available
    ceiling_n: int                 # pairs the ceiling rests on (the most any expert shares with the others)
    n_annotators: int

    @property
    def significant(self) -> bool | None:
        """Whether the best beats the runner-up (95% CI of the paired difference above 0); None: no test."""
        if self.paired is None or pd.isna(self.paired.get("ci_low")):
            return None
        return bool(self.paired["ci_low"] > 0)


def _oriented(row: dict, stat: str) -> dict:
    est, low, high = STAT_COLS[stat]
    sign = float(row.get("expected_sign", 1) or 1)
    lo, hi = sign * float(row[low]), sign * float(row[high])
    return {**row, "oriented": sign * float(row[est]), "lo": min(lo, hi), "hi": max(lo, hi)}


def ranked(corr: pd.DataFrame, min_n: int = MIN_N, stat: str = "kendall") -> pd.DataFrame:
    """The rows that agree with the experts (expected sign, at least ``min_n`` pairs), closest first."""
    if corr.empty:
        return corr
    est = STAT_COLS[stat][0]
    ok = corr.assign(oriented=corr[est].astype(float) * corr["expected_sign"].astype(float))
    ok = ok[(ok["n"] >= min_n) & (ok["oriented"] > 0) & ok["oriented"].notna()]
    return ok.sort_values(["oriented", "n"], ascending=[False, False], kind="stable")


def best_row(corr: pd.DataFrame, min_n: int = MIN_N, stat: str = "kendall") -> dict | None:
    """The row that agrees best in ``stat`` (right sign, enough pairs); ``oriented`` holds its signed value."""
    top = ranked(corr, min_n, stat)
    return None if top.empty else _oriented(top.iloc[0].to_dict(), stat)


def headline(corr: pd.DataFrame, *, stat: str = "kendall", min_n: int = MIN_N, loo: pd.DataFrame | None = None,
             n_annotators: int = 0, paired: Callable[[tuple, tuple], pd.DataFrame] | None = None) -> Headline:
    """The headline of one correlate table.

    ``loo``: :func:`core.analysis.ceiling.leave_one_out` on the same pairs (None: no ceiling); ``paired(a, b)``:
    the paired test of (judge, metric) ``a`` against ``b`` as one :func:`paired_difference` row (None, or
    resamples set to 0: no test).
    """
    from core.analysis.ceiling import STAT_ALIASES, STAT_COLUMNS

    if stat not in STAT_COLS:
        raise ValueError(f"unknown statistic {stat!r}; valid: {', '.join(STAT_COLS)}")
    top = ranked(corr, min_n, stat)
    best = _oriented(top.iloc[0].to_dict(), stat) if len(top) else None
    runner_up = None
    if best is not None:
        others = top[top["judge"] != best["judge"]]
        runner_up = _oriented(others.iloc[0].to_dict(), stat) if len(others) else None
    result = None
    if best is not None and runner_up is not None and paired is not None:
        table = paired((best["judge"], best["metric"]), (runner_up["judge"], runner_up["metric"]))
        result = table.iloc[0].to_dict() if len(table) else None
    ceiling, ceiling_n = math.nan, 0
    if loo is not None and len(loo):
        col = STAT_COLUMNS[STAT_ALIASES[stat]][0]
        usable = loo[(loo["n"] >= min_n) & loo[col].notna()]
        if len(usable):
            ceiling, ceiling_n = float(usable[col].mean()), int(usable["n"].max())
        else:
            ceiling_n = int(loo["n"].max())
    return Headline(stat=stat, min_n=min_n, best=best, runner_up=runner_up, paired=result, ceiling=ceiling,
                    ceiling_n=ceiling_n, n_annotators=n_annotators)


def _ci(lo: float, hi: float) -> str:
    return "no CI" if math.isnan(lo) or math.isnan(hi) else f"95% CI {lo:.2f} to {hi:.2f}"


def sentences(h: Headline, target: str | None = None) -> list[str]:
    """The headline as plain sentences: the best judge, the ceiling, the paired test."""
    sym = SYMBOLS[h.stat]
    against = f" with {TARGETS.get(target, target)}" if target else ""
    if h.best is None:
        return [f"No judge metric agrees with the experts{against} in the expected direction on at least "
                f"{h.min_n} pairs."]
    b = h.best
    out = [f"Closest to the experts{against}: {display_name(b['judge'], b['metric'], with_judge=True)}, "
           f"{sym} = {b['oriented']:.2f} ({_ci(b['lo'], b['hi'])}; n = {int(b['n']):,} pairs)."]
    if h.n_annotators < 2:
        out.append(f"Ceiling: not available ({h.n_annotators} expert{'s' if h.n_annotators != 1 else ''}; two "
                   "are needed).")
    elif math.isnan(h.ceiling):
        out.append(f"Ceiling: not available (experts share {h.ceiling_n:,} pairs; at least {h.min_n} are needed, "
                   "as for each judge).")
    else:
        others = "the other expert" if h.n_annotators == 2 else f"the mean of the other {h.n_annotators - 1}"
        relation = ("" if math.isnan(b["lo"]) or math.isnan(b["hi"]) else
                    "; the best judge's CI lies below it" if b["hi"] < h.ceiling else
                    "; the best judge's CI lies above it" if b["lo"] > h.ceiling else
                    "; it lies within the best judge's CI")
        out.append(f"Ceiling: one expert agrees with {others} at {sym} = {h.ceiling:.2f} (n = {h.ceiling_n:,} "
                   f"pairs){relation}.")
    r = h.runner_up
    if r is None:
        out.append("No other judge to compare it with.")
        return out
    name = display_name(r["judge"], r["metric"], with_judge=True)
    if h.significant is None:
        out.append(f"Runner-up: {name}, {sym} = {r['oriented']:.2f} (no paired test: it needs bootstrap "
                   "resamples and shared pairs).")
        return out
    p = h.paired
    verdict = ("significantly better than" if h.significant else "not significantly better than")
    out.append(f"It is {verdict} the runner-up, {name} ({sym} = {r['oriented']:.2f}): difference "
               f"{p['diff']:+.2f} (95% CI {p['ci_low']:+.2f} to {p['ci_high']:+.2f}, paired bootstrap, "
               f"p = {p['p_boot']:.2g}, n = {int(p['n']):,} pairs).")
    return out
