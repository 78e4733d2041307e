"""The Correlations page in words: the headline above the table, the table's cells with their CI and n, its
legend and what its intervals are.

The headline is :func:`core.analysis.headline.headline`, the function
``python -m core correlate`` and the HTML report use; names are :mod:`core.analysis.naming`'s.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from core.analysis.headline import headline, sentences
from core.analysis.naming import column_name
from core.analysis.statistic import STATISTICS, table
from core.analysis.stats import AUTO_BOOTSTRAP_MAX_N, TABLE_LEGEND, ci_method_for
from core.taxonomy import MIN_N
from ui.correlations_charts import STAT_SYMBOL
from ui.shared import draw_caveat, escape_md

STATS = table("name")
#: statistic -> (estimate, CI low, CI high) columns of a correlate table.
CI_COLS = {s.key: (s.short, s.ci_low, s.ci_high) for s in STATISTICS}


def draw_headline(table: pd.DataFrame, agreement: dict | None, stat: str, target: str, info: dict,
                  paired=None) -> None:
    """The answer in words (best judge with CI and n, the ceiling in the same statistic, the paired test
    against the runner-up), then the dataset's caveat (the synthetic demo's)."""
    said = headline(table, stat=stat, min_n=MIN_N, loo=None if agreement is None else agreement["loo"],
                    n_annotators=0 if agreement is None else int(agreement["n_annotators"]), paired=paired)
    words = sentences(said, target)
    st.success("  \n".join(escape_md(s) for s in words), icon=":material/lightbulb:")
    draw_caveat(info)


def cell_texts(shaped, table: pd.DataFrame, stat: str) -> pd.DataFrame:
    """The judge x metric table's cells as shown: the papers' value (|statistic|, †, ⚠), then its 95% CI (of
    the printed quantity: [-high, -low] when the estimate is negative) when computed, and n. Columns are
    named by the one naming rule (a column shared by several judges by the name they share)."""
    est, low, high = CI_COLS[stat]
    rows = {(str(r["judge"]), str(r["metric"])): r for r in table.to_dict("records")}
    text = shaped.text.copy()
    for judge in text.index:
        for metric in text.columns:
            row = rows.get((str(judge), str(metric)))
            if row is None or pd.isna(shaped.n.at[judge, metric]) or math.isnan(shaped.values.at[judge, metric]):
                continue
            lo, hi = float(row.get(low, math.nan)), float(row.get(high, math.nan))
            if float(row[est]) < 0:
                lo, hi = -hi, -lo
            ci = "" if math.isnan(lo) or math.isnan(hi) else f" · CI {lo:.2f}–{hi:.2f}"
            text.at[judge, metric] = f"{text.at[judge, metric]}{ci} · n={int(shaped.n.at[judge, metric]):,}"
    names = {m: column_name(str(m), [str(j) for j in shaped.n.index[shaped.n[m].notna()]]) for m in text.columns}
    text = text.rename(columns=names)
    text.index.name = "judge"
    return text


def legend(stat: str) -> str:
    if stat == "kendall":
        return TABLE_LEGEND
    return TABLE_LEGEND.replace("|tau| (Kendall tau-b)", f"|{STAT_SYMBOL[stat]}| ({STATS[stat]})")


def boot_statement(counts: dict, n_boot: int, seed: int, computed: bool) -> str:
    if n_boot == 0:
        return "No bootstrap (resamples = 0): no confidence intervals."
    clustered = counts["groups"] > 0  # as core.analysis.stats: any group_id label means the bootstrap resamples groups
    how = (f"resampling reference groups (`group_id`: {counts['groups']:,} groups), since candidates of "
           "one reference are not independent" if clustered else "resampling pairs (no group ids)")
    state = "" if computed else " — not computed yet for this view (see below)"
    return f"95% percentile CIs from **{n_boot:,}** bootstrap resamples, seed **{seed}**, {how}{state}."


def ci_statement(counts: dict, n_boot: int, seed: int, computed: bool, ci: str, sizes) -> str:
    """What the intervals are: the bootstrap statement, the asymptotic one, or both (auto, mixed sizes)."""
    methods = {ci_method_for(ci, int(n), counts["groups"] > 0, n_boot) for n in sizes}
    boot = boot_statement(counts, n_boot, seed, computed) if any(m.startswith("bootstrap") for m in methods) \
        or not any(m.startswith("asymptotic") for m in methods) else ""
    if not any(m.startswith("asymptotic") for m in methods):
        return boot
    how = (f"summed within reference groups ({counts['groups']:,} groups)" if counts["groups"] > 0
           else "pairs independent (no group ids)")
    text = f"95% asymptotic CIs (Fisher z; variance from each pair's influence on τ, ρ and r, {how})"
    return text + "." if not boot else f"{text} for rows of more than {AUTO_BOOTSTRAP_MAX_N:,} pairs; {boot}"
