"""Judge x metric tables in the papers' style (VERT Tables 1-3): best / second best, daggers, wrong signs.

:func:`judge_metric_table` pivots a :func:`core.analysis.stats.correlate` table; :func:`mark_best` flags the
best and second-best value per group.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from core.analysis.correlation import require_columns
from core.analysis.statistic import STATISTICS
from core.taxonomy import MISSING

#: Column order of judge x metric tables (VERT Tables 2-3, then baselines).
METRIC_ORDER: tuple[str, ...] = ("green", "ec_sig", "ec_total", "green_f1", "formula", "vert", "rubric",
                                 "radfact", "fineradscore", "bleu4", "bleu2", "rouge_l", "words_diff",
                                 "words_candidate", "words_reference")

TABLE_LEGEND = ("|tau| (Kendall tau-b). † p >= 0.01 (not significant at 0.01); ⚠ correlation has the wrong "
                "sign for the metric's orientation; bold = best, underline = second best per metric.")

# a value column (tau, abs_tau, tau_oriented, rho, ...) -> its statistic's estimate and p-value columns
_STAT_OF_VALUE = {col: s.short for s in STATISTICS for col in (s.short, s.abs_col)}
_P_OF_VALUE = {**{col: s.p_col for s in STATISTICS for col in (s.short, s.abs_col)}, "tau_oriented": "p"}


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
    MISSING (an em dash) for no value, "(n=7)" when too few pairs), and the boolean frames
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
    require_columns(corr_table, [rows, columns, value])
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
    text = pd.DataFrame(MISSING, index=values.index, columns=values.columns)
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
