"""The Correlations page's charts: the scatter of one judge metric and the heatmap by facet.

Also the labels the page and the charts share. Beside each chart:
SVG, PDF and CSV downloads drawn by core/paper as ``python -m core figures`` draws them (ui/downloads.py).
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.analysis.naming import display_name
from core.analysis.scores import METRICS
from core.analysis.statistic import statistic, table
from core.paper.figures_agreement import heatmap_figure, scatter_figure
from ui.correlations_reads import MIN_N
from ui.downloads import figure_downloads
from ui.shared import BLUE, MISSING, OKABE_ITO, VERMILLION

SCATTER_MAX = 5000  # points drawn; larger series show a seeded random sample (stated)
JITTER_GAP = 0.25  # discrete axis (<= 30 levels): jitter up to this share of the gap between levels
JITTER_SPAN = 0.01  # continuous axis: up to this share of the range
DIVERGING = [[0.0, VERMILLION], [0.5, "#F7F7F7"], [1.0, BLUE]]

TARGET_AXIS = {
    "score": "expert score, mean of annotators (0-1)",
    "sig_errors": "expert significant errors per report (mean of annotators)",
    "total_errors": "expert errors per report, significant + insignificant (mean)",
}
STAT_SYMBOL = table("symbol")
STAT_EST = table("short")


def series_label(judge: str, metric: str) -> str:
    """A judge's metric as every page names it (core.analysis.naming, the one naming rule)."""
    return display_name(judge, metric, with_judge=True)


def esc(value) -> str:
    """Plotly labels are HTML-ish: user strings are escaped."""
    return html.escape(str(value))


def scatter(series: pd.DataFrame, judge: str, metric: str, row: pd.Series, target: str, stat: str,
             seed: int, *, dataset: str | None = None, synthetic: bool = False) -> None:
    n = len(series)
    shown = series
    if n > SCATTER_MAX:
        idx = np.sort(np.random.default_rng(seed).choice(n, SCATTER_MAX, replace=False))
        shown = series.iloc[idx]
    rng = np.random.default_rng(seed)

    def jitter(values: np.ndarray) -> np.ndarray:
        levels = np.unique(values)
        if len(levels) < 2:
            width = JITTER_SPAN
        elif len(levels) <= 30:  # discrete: stay well inside the gap to the next level
            width = JITTER_GAP * float(np.diff(levels).min())
        else:
            width = JITTER_SPAN * float(levels[-1] - levels[0])
        return values + rng.uniform(-width, width, len(values))

    x = jitter(shown["target"].to_numpy(float))
    y = jitter(shown["value"].to_numpy(float))
    fig = go.Figure()
    systems = shown["system"].fillna("(no system)")
    palette = dict(zip(sorted(systems.unique()), OKABE_ITO * 10, strict=False))
    many = len(palette) > len(OKABE_ITO)
    for system in sorted(systems.unique()) if not many else ["all"]:
        mask = np.ones(len(shown), bool) if many else (systems == system).to_numpy()
        part = shown[mask]
        fig.add_trace(go.Scattergl(
            x=x[mask], y=y[mask], mode="markers", name=esc(system),
            marker={"size": 6, "opacity": 0.7, "color": BLUE if many else palette[system]},
            # an object array: plotly validates a list element by element (0.1 s for 5,000 points)
            text=np.array([f"pair {esc(e)} · {esc(m)}" for e, m in zip(part["ext_id"], part["modality"].fillna(""),
                                                                          strict=True)], dtype=object),
            customdata=part[["target", "value"]].to_numpy(float),
            hovertemplate="%{text}<br>expert %{customdata[0]:.4g}<br>judge %{customdata[1]:.4g}"
                          "<extra>%{fullData.name}</extra>"))
    spec = METRICS.get(metric)
    unit = "" if spec is None else (" (0-1)" if spec.range == (0.0, 1.0) else " (count per report)")
    est = row[STAT_EST[stat]]
    fig.update_layout(
        title=f"{esc(series_label(judge, metric))}: {STAT_SYMBOL[stat]} = "
              f"{MISSING if pd.isna(est) else f'{est:.3f}'}, n = {n:,}",
        xaxis_title=TARGET_AXIS[target] + " — jittered", yaxis_title=f"{esc(display_name(judge, metric))}{unit} — jittered",
        legend_title="system", height=440, margin={"t": 50, "b": 40})
    st.plotly_chart(fig, width="stretch", key="corr_scatter")
    figure_downloads(lambda: scatter_figure(series, judge, metric, target=target, stat=stat, estimate=float(est),
                                            n=int(row["n"]), dataset=dataset, synthetic=synthetic),
                     name=f"scatter-{judge}-{metric}-{target}", key="corr_dl_fig_scatter", dataset=dataset,
                     synthetic=synthetic)
    sample = f"a seeded random {SCATTER_MAX:,} of {n:,} pairs (seed {seed}); " if n > SCATTER_MAX else ""
    st.caption(f"Each point is one pair: {sample}both axes jittered (seed {seed}) so tied values stay visible — "
               f"by up to {JITTER_GAP:.0%} of the gap between adjacent values on a discrete axis, "
               f"{JITTER_SPAN:.0%} of the range on a continuous one. Hover and the list show exact values.")


def heatmap(cells: pd.DataFrame, facet: str, series: list[tuple[str, str]], selected: tuple[str, str],
             stat: str, target: str, *, dataset: str | None = None, synthetic: bool = False, capped: str = "") -> None:
    if cells.empty:
        st.caption("No values in view.")
        return
    original = cells
    est = STAT_EST[stat]
    cells = cells.assign(oriented=cells[est] * cells["expected_sign"],
                         row=[series_label(j, m) for j, m in zip(cells["judge"], cells["metric"], strict=True)])
    rows = [series_label(j, m) for j, m in series]
    rows = [r for r in rows if r in set(cells["row"])]
    levels = sorted(cells[facet].astype(str).unique())

    def grid(col: str) -> pd.DataFrame:
        return cells.pivot(index="row", columns=facet, values=col).reindex(index=rows, columns=levels)

    z, n, p = grid("oriented"), grid("n"), grid(p_col(stat))
    text = [[("" if pd.isna(n.iat[i, j]) else
              (f"n={int(n.iat[i, j])}" if pd.isna(z.iat[i, j]) else f"{z.iat[i, j]:.2f}<br>n={int(n.iat[i, j])}"))
             for j in range(len(levels))] for i in range(len(rows))]
    custom = np.dstack([n.fillna(0).to_numpy(float), p.to_numpy(float)])
    chosen = series_label(*selected)
    ticks = [f"<b>{esc(r)}</b>" if r == chosen else esc(r) for r in rows]
    fig = go.Figure(go.Heatmap(
        z=z.to_numpy(dtype=float), x=[esc(v) for v in levels], y=ticks, text=text, texttemplate="%{text}",
        customdata=custom, colorscale=DIVERGING, zmin=-1, zmax=1,
        colorbar={"title": f"{STAT_SYMBOL[stat]} × expected sign"},
        hovertemplate=f"%{{y}} · %{{x}}<br>{STAT_SYMBOL[stat]} (sign-corrected) %{{z:.3f}}<br>"
                      "n = %{customdata[0]:.0f} pairs<br>p = %{customdata[1]:.2g}<extra></extra>"))
    fig.update_layout(
        title=f"{STAT_SYMBOL[stat]} with the experts' {target} by {facet} (selected series in bold)",
        xaxis_title=facet, yaxis_title="judge · metric", yaxis_autorange="reversed",
        height=max(260, 90 + 34 * len(rows)), margin={"t": 50, "b": 40})
    st.plotly_chart(fig, width="stretch", key="corr_heatmap")
    figure_downloads(lambda: heatmap_figure(original, facet, series, stat=stat, min_n=MIN_N, dataset=dataset,
                                            synthetic=synthetic, capped=capped),
                     name=f"heatmap-{facet}-{stat}", key="corr_dl_fig_heat", dataset=dataset, synthetic=synthetic)
    st.caption(f"Sign-corrected: > 0 (blue) agrees with the experts in the metric's direction, < 0 (orange) "
               f"is the wrong way. Cells with fewer than {MIN_N} pairs show only n. Point estimates and p; "
               f"per-cell CIs: `python -m core correlate --breakdown {facet} --json`.")


def p_col(stat: str) -> str:
    return statistic(stat).p_col
