"""The dashboard's charts as files for a paper: SVG and PDF at a fixed size, drawn without a browser.

Each figure is a Vega-Lite chart (Altair) rendered by ``vl-convert-python`` (a Rust build of Vega, no
browser, no network), in the colour-blind-safe Okabe-Ito palette with 12-point labels, and written with
the numbers behind it as CSV: ``NAME.svg``, ``NAME.pdf``, ``NAME.csv``. The numbers come from
:class:`core.paper.compute.Results` (the analysis commands' own results) and are plotted as they are.

Figures: the count calibration with CIs and the identity line (VERT Fig. 2), F1 per error type with CIs
(VERT App. C), the best judge metric against the experts (scatter), preference accuracy by the expert's
confidence (GREEN Fig. 6) and the sign-corrected correlation by facet (heatmap).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from core.paper.compute import Results
from core.paper.correlations import STAT_COLUMNS
from core.paper.tables import slug
from core.taxonomy import OKABE_ITO

WIDTH, HEIGHT = 420, 280  # px at 72 dpi: 5.8 x 3.9 in, a one-column figure
FONT_SIZE = 12
HEATMAP_SERIES = 10       # rows of the heatmap: the best series of the table
PREFERENCE_SERIES = 6     # lines of the preference chart
#: What the figures need of core.paper.compute.compute_all besides the correlations.
FIGURE_PARTS = ("f1", "calibration", "preference")


@dataclass
class Figure:
    """One figure: its name (file stem), the chart and the numbers behind it."""

    name: str
    chart: object          # altair.Chart (or layer)
    data: pd.DataFrame


def _config(chart):
    return (chart.properties(width=WIDTH, height=HEIGHT)
            .configure(font="Liberation Sans")
            .configure_axis(labelFontSize=FONT_SIZE, titleFontSize=FONT_SIZE, grid=True, gridOpacity=0.3)
            .configure_legend(labelFontSize=FONT_SIZE, titleFontSize=FONT_SIZE, labelLimit=260)
            .configure_title(fontSize=FONT_SIZE + 1, anchor="start")
            .configure_range(category=list(OKABE_ITO)))


def calibration_figure(cal: pd.DataFrame) -> Figure:
    """Mean significant errors detected per expert count, 95% CIs, and the identity line (VERT Fig. 2)."""
    import altair as alt

    data = cal[cal["n"] > 0][["judge", "x", "y", "ci_low", "ci_high", "n", "identity", "n_boot", "seed"]]
    data = data.reset_index(drop=True)
    top = float(max(data["x"].max(), data[["y", "ci_high"]].max().max()))
    line = pd.DataFrame({"x": [0.0, top], "y": [0.0, top]})
    identity = alt.Chart(line).mark_line(color="#7f7f7f", strokeDash=[4, 3]).encode(x="x:Q", y="y:Q")
    base = alt.Chart(data)
    count_axis = alt.Axis(tickMinStep=1, format="d")
    bars = base.mark_errorbar(ticks=True).encode(x=alt.X("x:Q", axis=count_axis),
                                                 y=alt.Y("ci_low:Q", title="Significant errors the judge reports (mean)"),
                                                 y2="ci_high:Q", color=alt.Color("judge:N", title="Judge"))
    points = base.mark_line(point=True).encode(
        x=alt.X("x:Q", title="Significant errors found by the experts", axis=count_axis),
        y=alt.Y("y:Q", title="Significant errors the judge reports (mean)"), color="judge:N")
    chart = alt.layer(identity, bars, points).properties(title="Calibration of error counts (dashed: identity)")
    return Figure("calibration-counts", _config(chart), data)


def f1_figure(f1: pd.DataFrame) -> Figure:
    """F1 per error category with 95% bootstrap CIs, one colour per judge."""
    import altair as alt

    from core.taxonomy import CATEGORIES

    cols = ["judge", "category", "f1", "f1_ci_low", "f1_ci_high", "tp", "fp", "fn", "n_pairs", "n_boot", "seed"]
    data = f1[[c for c in cols if c in f1.columns]].reset_index(drop=True)
    order = [c for c in (*CATEGORIES, "all") if c in set(data["category"])]
    x = alt.X("category:N", sort=order, title="Error category", axis=alt.Axis(labelAngle=0))
    base = alt.Chart(data)
    bars = base.mark_bar().encode(x=x, xOffset="judge:N", y=alt.Y("f1:Q", title="F1", scale=alt.Scale(domain=[0, 1])),
                                  color=alt.Color("judge:N", title="Judge"))
    err = base.mark_errorbar(ticks=True, color="black").encode(x=x, xOffset="judge:N",
                                                               y=alt.Y("f1_ci_low:Q", title="F1"), y2="f1_ci_high:Q")
    chart = alt.layer(bars, err).properties(title="F1 per error category (95% bootstrap CIs)")
    return Figure("f1-per-category", _config(chart), data)


def best_series(corr: pd.DataFrame, stat: str) -> tuple[str, str] | None:
    """The judge metric that agrees best in ``stat`` (right sign, a value), as the report's headline picks it."""
    est = STAT_COLUMNS[stat][0]
    oriented = corr[est].astype(float) * corr["expected_sign"].astype(float)
    ok = corr.assign(oriented=oriented)
    ok = ok[ok["oriented"].notna() & (ok["oriented"] > 0)]
    if ok.empty:
        return None
    row = ok.sort_values(["oriented", "n"], ascending=[False, False], kind="stable").iloc[0]
    return str(row["judge"]), str(row["metric"])


def scatter_figure(results: Results) -> Figure | None:
    """The best judge metric's value against the expert target, one point per pair."""
    import altair as alt

    stat = results.settings.stat
    best = best_series(results.corr, stat)
    if best is None:
        return None
    judge, metric = best
    frame = results.frame
    data = frame[(frame["judge"] == judge) & (frame["metric"] == metric)][["ext_id", "value", "target"]]
    data = data[data[["value", "target"]].notna().all(axis=1)].reset_index(drop=True)
    row = results.corr[(results.corr["judge"] == judge) & (results.corr["metric"] == metric)].iloc[0]
    symbol = {"kendall": "τ", "spearman": "ρ", "pearson": "r"}[stat]
    value = float(row[STAT_COLUMNS[stat][0]])
    # pairs with equal values share a point, sized by how many they are (the CSV lists every pair)
    chart = alt.Chart(data).mark_circle(opacity=0.7, color=OKABE_ITO[4]).encode(
        x=alt.X("value:Q", title=f"{judge} · {metric}"),
        y=alt.Y("target:Q", title=f"Expert target ({results.context.target})"),
        size=alt.Size("count():Q", title="Pairs"),
    ).properties(title=f"{judge} · {metric} against the experts: {symbol} = {value:.3f}, n = {int(row['n'])}")
    return Figure(f"scatter-{slug(judge)}-{slug(metric)}", _config(chart), data.assign(judge=judge, metric=metric))


def preference_figure(results: Results) -> Figure | None:
    """Preference accuracy by the expert's confidence, with Wilson 95% intervals (GREEN Fig. 6)."""
    import altair as alt

    if results.preference is None:
        return None
    table = results.preference[0]
    overall = table[table["scope"] == "overall"].sort_values("accuracy", ascending=False, kind="stable")
    keep = overall.head(PREFERENCE_SERIES)[["judge", "metric"]].apply(tuple, axis=1).tolist()
    levels = table[table["scope"] == "level"]
    levels = levels[[(j, m) in keep for j, m in zip(levels["judge"], levels["metric"], strict=True)]]
    data = levels.assign(series=levels["judge"] + " · " + levels["metric"])[
        ["series", "judge", "metric", "confidence", "accuracy", "ci_low", "ci_high", "n"]].reset_index(drop=True)
    if data.empty:
        return None
    base = alt.Chart(data)
    lines = base.mark_line(point=True).encode(
        x=alt.X("confidence:Q", title="Expert's confidence", axis=alt.Axis(tickMinStep=1, format="d")),
        y=alt.Y("accuracy:Q", title="Accuracy",
                                                                        scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("series:N", title="Judge · metric"))
    bands = base.mark_errorbar(ticks=True, opacity=0.6).encode(x="confidence:Q", y=alt.Y("ci_low:Q", title="Accuracy"),
                                                               y2="ci_high:Q", color="series:N")
    chart = alt.layer(bands, lines).properties(title="Preference accuracy by the expert's confidence")
    return Figure("preference-by-confidence", _config(chart), data)


def heatmap_figure(results: Results) -> Figure | None:
    """The sign-corrected statistic per facet value (modality, else system, else anatomy) for the best series."""
    import altair as alt

    from core.analysis.stats import breakdown
    from core.reads.frames import apply_orientations

    frame, s = results.frame, results.settings
    facet = next((f for f in ("modality", "system", "anatomy") if frame[f].nunique() >= 2), None)
    if facet is None:
        return None
    est, absolute = STAT_COLUMNS[s.stat][:2]
    top = results.corr.sort_values(absolute, ascending=False, kind="stable").head(HEATMAP_SERIES)
    keep = set(zip(top["judge"], top["metric"], strict=True))
    part = frame[[(j, m) in keep for j, m in zip(frame["judge"], frame["metric"], strict=True)]]
    cells = breakdown(part, by_facet=facet, n_boot=0, seed=s.seed, min_n=s.min_n,
                      cluster_col="group_id" if s.clusters else None, target_name=results.context.target)
    cells = apply_orientations(cells, results.declared, results.context.target)
    data = cells.assign(series=cells["judge"] + " · " + cells["metric"],
                        oriented=cells[est] * cells["expected_sign"])[
        ["series", "judge", "metric", facet, "n", est, "oriented"]].rename(columns={facet: "facet"})
    data = data.assign(facet_name=facet).reset_index(drop=True)
    symbol = {"kendall": "τ", "spearman": "ρ", "pearson": "r"}[s.stat]
    order = [f"{j} · {m}" for j, m in zip(top["judge"], top["metric"], strict=True)]
    chart = alt.Chart(data).mark_rect().encode(
        x=alt.X("facet:N", title=facet), y=alt.Y("series:N", sort=order, title="Judge · metric"),
        color=alt.Color("oriented:Q", title=f"{symbol} × expected sign",
                        scale=alt.Scale(domain=[-1, 1], range=[OKABE_ITO[5], "#f7f7f7", OKABE_ITO[4]])),
    ).properties(title=f"{symbol} with the experts by {facet} (sign-corrected; blank: fewer than {s.min_n} pairs)")
    return Figure(f"heatmap-{facet}", _config(chart), data)


def all_figures(results: Results) -> list[Figure]:
    """Every figure the dataset has data for."""
    out = []
    if results.calibration is not None and (results.calibration["n"] > 0).any():
        out.append(calibration_figure(results.calibration))
    if results.f1 is not None and len(results.f1):
        out.append(f1_figure(results.f1))
    for make in (scatter_figure, preference_figure, heatmap_figure):
        figure = make(results)
        if figure is not None:
            out.append(figure)
    return out


def render(figure: Figure, form: str) -> bytes:
    """``figure`` as SVG (UTF-8) or PDF bytes, at its fixed size, without a browser."""
    import vl_convert as vlc

    spec = figure.chart.to_json()
    if form == "svg":
        return vlc.vegalite_to_svg(spec).encode("utf-8")
    if form == "pdf":
        return vlc.vegalite_to_pdf(spec)
    raise ValueError(f"unknown figure format {form!r}; valid: svg, pdf")


def write_figures(figures: list[Figure], out: Path, forms: tuple[str, ...] = ("svg", "pdf")) -> list[dict]:
    """Write ``NAME.svg``, ``NAME.pdf`` and ``NAME.csv`` per figure; returns one record per file with its
    bytes and the seconds it took to render."""
    from core.store.export import to_safe_csv

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for figure in figures:
        for form in forms:
            started = time.perf_counter()
            data = render(figure, form)
            seconds = time.perf_counter() - started
            (out / f"{figure.name}.{form}").write_bytes(data)
            written.append({"file": f"{figure.name}.{form}", "bytes": len(data), "seconds": round(seconds, 3)})
        csv = to_safe_csv(figure.data)
        (out / f"{figure.name}.csv").write_bytes(csv)
        written.append({"file": f"{figure.name}.csv", "bytes": len(csv), "seconds": 0.0})
    return written
