"""The judge x metric correlation table of the VERT / CREPE papers as a :class:`~core.paper.tables.PaperTable`.

Built from a :func:`core.analysis.stats.correlate` table (the CLI's ``correlate --json`` rows, or the
Correlations page's) through :func:`core.analysis.stats.judge_metric_table`, so the printed values, the
daggers, the wrong-sign flags and the best / second marks are that function's:

- the value is |statistic| (tau-b, rho or r) to ``decimals`` places;
- a dagger where the statistic's own p >= 0.01;
- best bold and second best underlined per column, only where two or more judges have the metric;
  **ties are decided on the printed (rounded) values**: two values printed alike are marked alike, and
  the second best is the next distinct printed value (dense ranking);
- the CI (on request) is the interval of the printed quantity: when the estimate is negative the printed
  value is -estimate and its interval [-high, -low] (negation is monotone, so this is exact).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from core.analysis.statistic import BY_NAME, STATISTICS, statistic, table
from core.paper.tables import Cell, PaperTable, count_words, fmt, slug

#: statistic -> (estimate, |estimate|, CI low, CI high) columns of a correlate table.
STAT_COLUMNS = {s.key: (s.short, s.abs_col, s.ci_low, s.ci_high) for s in STATISTICS}
STAT_ALIASES = {name: s.key for name, s in BY_NAME.items()}
STAT_WORDS = table("ascii_words")
TARGET_WORDS = {"score": "the expert score (0-1, higher is better)",
                "sig_errors": "the number of clinically significant errors per report",
                "total_errors": "the number of errors per report (significant and insignificant)"}
CI_WORDS = {"bootstrap": "percentile bootstrap resampling pairs",
            "bootstrap-cluster": "percentile cluster bootstrap resampling reference groups",
            "asymptotic": "asymptotic (influence values; Fisher z)",
            "asymptotic-cluster": "asymptotic, cluster-robust (influence values summed within reference groups; "
                                  "Fisher z with t(G-1))"}


@dataclass(frozen=True)
class CorrelationContext:
    """What the caption states besides the numbers: the view the table was computed on."""

    dataset: str
    synthetic: bool
    target: str
    raters: str           # e.g. "experts (imported annotations)"
    n_pairs: int          # pairs in view with the target and a judge value
    n_groups: int         # reference groups among them
    n_identical: int      # identical pairs (candidate = reference) among them, or removed
    identical_removed: bool

    def to_json(self) -> dict:
        return dict(self.__dict__)


def target_words(target: str) -> str:
    if target in TARGET_WORDS:
        return TARGET_WORDS[target]
    kind, _, cat = target.partition("_")
    return f"the expert {'significant' if kind == 'sig' else 'total'} error count of category ({cat})"


def ci_statement(corr: pd.DataFrame) -> str:
    """How the intervals were made, from the rows themselves (method, resamples, seed)."""
    methods = sorted({m for m in corr.get("ci_method", pd.Series(dtype=object)).dropna() if m != "none"})
    if not methods:
        return "No confidence intervals (no resampling)."
    parts = []
    for m in methods:
        rows = corr[corr["ci_method"] == m]
        text = CI_WORDS.get(m, m)
        if m.startswith("bootstrap"):
            text += (f", {int(rows['n_boot'].max()):,} resamples, seed {int(rows['seed'].iloc[0])}")
        parts.append(text)
    level = float(corr["level"].dropna().iloc[0]) if "level" in corr and corr["level"].notna().any() else 0.95
    return f"{level:.0%} CIs: " + "; ".join(parts) + "."


def _ci(row: pd.Series, est: str, lo: str, hi: str, decimals: int) -> tuple[tuple[str, str], tuple[float, float]] | None:
    low, high = float(row.get(lo, math.nan)), float(row.get(hi, math.nan))
    if math.isnan(low) or math.isnan(high):
        return None
    if float(row[est]) < 0:  # the printed value is -estimate: its interval is [-high, -low]
        low, high = -high, -low
    return (fmt(low, decimals), fmt(high, decimals)), (low, high)


def _cells(shaped, by_key: dict, est: str, lo: str, hi: str, decimals: int) -> tuple:
    """The PaperTable rows of a :func:`core.analysis.stats.judge_metric_table` (``by_key``: (row, column) -> the
    long table's row, for the CIs)."""
    rows = []
    for key in shaped.values.index:
        cells = []
        for column in shaped.values.columns:
            v = float(shaped.values.at[key, column])
            n = shaped.n.at[key, column]
            n = None if pd.isna(n) else int(n)
            if math.isnan(v):
                cells.append(Cell(text=shaped.text.at[key, column] if n is not None else "–", n=n))
                continue
            ci = _ci(by_key[(str(key), str(column))], est, lo, hi, decimals)
            cells.append(Cell(text=fmt(v, decimals), value=v, bold=bool(shaped.best.at[key, column]),
                              underline=bool(shaped.second.at[key, column]),
                              dagger=bool(shaped.dagger.at[key, column]),
                              wrong_sign=bool(shaped.wrong_sign.at[key, column]),
                              ci=ci[0] if ci else None, ci_value=ci[1] if ci else None, n=n))
        rows.append((str(key), tuple(cells)))
    return tuple(rows)


def _check(stat: str, decimals: int) -> str:
    stat = STAT_ALIASES.get(stat, stat)
    if stat not in STAT_COLUMNS:
        raise ValueError(f"unknown statistic {stat!r}; valid: tau, rho, r")
    if not 0 <= decimals <= 6:
        raise ValueError(f"--decimals must be 0-6, not {decimals}")
    return stat


def _n_text(rows: tuple, n_pairs: int) -> str:
    ns = [c.n for _, cells in rows for c in cells if c.n is not None and not math.isnan(c.value)]
    text = count_words(n_pairs, "pair")
    if ns and (min(ns) != n_pairs or max(ns) != n_pairs):
        text += f" (each cell: n = {min(ns):,}" + (f" to {max(ns):,})" if min(ns) != max(ns) else ")")
    return text


def _identical_words(ctx: CorrelationContext) -> str:
    return (f"{count_words(ctx.n_identical, 'identical pair')} (candidate = reference) "
            + ("removed" if ctx.identical_removed else "kept"))


MARKS = ("† p ≥ 0.01; ⚠ correlation against the metric's orientation; bold best and underlined second best per "
         "column (on the printed values), only where two or more {what} have a value.")


def correlation_table(corr: pd.DataFrame, ctx: CorrelationContext, *, stat: str = "kendall", decimals: int = 3,
                      with_ci: bool = False, with_n: bool = False) -> PaperTable:
    """The judge x metric table of ``corr`` (one row per judge and metric) in statistic ``stat``."""
    from core.analysis.naming import column_name
    from core.analysis.stats import judge_metric_table

    stat = _check(stat, decimals)
    est, value, lo, hi = STAT_COLUMNS[stat]
    shaped = judge_metric_table(corr, value, decimals=decimals)
    by_key = {(str(r["judge"]), str(r["metric"])): r for _, r in corr.iterrows()}
    rows = _cells(shaped, by_key, est, lo, hi, decimals)
    keys = tuple(str(m) for m in shaped.values.columns)
    headers = tuple(column_name(m, corr.loc[corr["metric"] == m, "judge"].astype(str)) for m in keys)

    symbol = statistic(stat).symbol
    caption = (f"Agreement of judge metrics with the experts on {ctx.dataset}"
               + (" (synthetic data)" if ctx.synthetic else "") + f": |{symbol}| ({STAT_WORDS[stat]}) between "
               f"each metric and {target_words(ctx.target)}, averaged over {ctx.raters}; {_n_text(rows, ctx.n_pairs)} "
               f"in {count_words(ctx.n_groups, 'reference group')}; {_identical_words(ctx)}. ")
    if with_ci:
        caption += ci_statement(corr) + " "
    caption += ("† p ≥ 0.01; ⚠ correlation against the metric's orientation; bold best and underlined second "
                "best per column (on the printed values), only where two or more judges have the metric.")

    return PaperTable(name=f"correlations-{slug(ctx.target)}-{stat}", corner="Judge", columns=headers,
                      column_keys=keys, rows=rows, caption=caption,
                      label=f"tab:{slug(ctx.dataset)}-{slug(ctx.target)}-{stat}", with_ci=with_ci, with_n=with_n,
                      across="Metric")


def breakdown_table(cells: pd.DataFrame, ctx: CorrelationContext, facet: str, *, stat: str = "kendall",
                    decimals: int = 3, with_ci: bool = False, with_n: bool = False) -> PaperTable:
    """``correlate --breakdown FACET`` in the papers' shape: one row per judge metric, one column per value of
    ``facet`` (``cells``: a :func:`core.analysis.stats.breakdown` table), with the correlation table's rules
    (|statistic|, dagger, wrong sign, best and second best per column on the printed values, CI of the
    printed quantity)."""
    from core.analysis.naming import display_name
    from core.analysis.stats import judge_metric_table

    stat = _check(stat, decimals)
    est, value, lo, hi = STAT_COLUMNS[stat]
    labels = [display_name(j, m, with_judge=True) for j, m in zip(cells["judge"], cells["metric"], strict=True)]
    long = cells.assign(series=labels, facet_value=cells[facet].astype(object).where(cells[facet].notna(), "(none)")
                        .astype(str))
    shaped = judge_metric_table(long, value, rows="series", columns="facet_value", decimals=decimals)
    by_key = {(str(r["series"]), str(r["facet_value"])): r for _, r in long.iterrows()}
    rows = _cells(shaped, by_key, est, lo, hi, decimals)
    keys = tuple(str(v) for v in shaped.values.columns)
    symbol = statistic(stat).symbol
    caption = (f"Agreement of judge metrics with the experts on {ctx.dataset}"
               + (" (synthetic data)" if ctx.synthetic else "") + f", by {facet}: |{symbol}| ({STAT_WORDS[stat]}) "
               f"between each metric and {target_words(ctx.target)}, averaged over {ctx.raters}, computed on the "
               f"pairs of each {facet} value (columns); {_n_text(rows, ctx.n_pairs)} in "
               f"{count_words(ctx.n_groups, 'reference group')} in all; {_identical_words(ctx)}; a cell with too "
               "few pairs shows its n. ")
    if with_ci:
        caption += ci_statement(cells) + " "
    caption += MARKS.format(what="judge metrics")
    return PaperTable(name=f"correlations-{slug(ctx.target)}-{stat}-by-{slug(facet)}", corner="Judge · metric",
                      columns=keys, column_keys=keys, rows=rows, caption=caption,
                      label=f"tab:{slug(ctx.dataset)}-{slug(ctx.target)}-{stat}-{slug(facet)}", with_ci=with_ci,
                      with_n=with_n, across=facet.capitalize())
