"""The dashboard's charts as files for a paper: SVG and PDF at a fixed size, drawn without a browser, each
with the numbers behind it as CSV (``NAME.svg``, ``NAME.pdf``, ``NAME.csv``).

The figures of one dataset, from :class:`core.paper.compute.Results` (the analysis commands' own results):
the count calibration with CIs and the identity line (VERT Fig. 2), detected vs injected errors per error
type on an injected dataset (VERT Fig. 3), the reliability of judge scores against the expert score, F1
per error type with CIs (VERT App. C), the best judge metric against the experts (scatter), preference
accuracy by the expert's confidence (GREEN Fig. 6), the sign-corrected correlation by facet (heatmap) and
the ensembles' tau on held-out pairs (VERT Table 5). The builders are in :mod:`core.paper.figures_counts`
and :mod:`core.paper.figures_agreement`, the style and rendering in :mod:`core.paper.figstyle`; the
dashboard's download buttons call the same builders on the page's own view.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from core.analysis.statistic import statistic
from core.paper.compute import Results
from core.paper.correlations import STAT_COLUMNS
from core.paper.figstyle import FONT_SIZE, HEIGHT, WIDTH, Figure, figure_bytes, figure_csv, render
from core.paper.figures_agreement import ensemble_figure, heatmap_figure, preference_figure, scatter_figure
from core.paper.figures_counts import calibration_figure, f1_figure, injected_figures, reliability_figure

__all__ = ["FIGURE_PARTS", "FONT_SIZE", "HEIGHT", "WIDTH", "Figure", "all_figures", "best_series", "figure_bytes",
           "figure_csv", "render", "write_figures"]

HEATMAP_SERIES = 10       # rows of the heatmap: the best series of the table
PREFERENCE_SERIES = 6     # lines of the preference chart
#: What the figures need of core.paper.compute.compute_all besides the correlations.
FIGURE_PARTS = ("f1", "calibration", "injected", "reliability", "preference", "ensemble")


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


def _where(results: Results) -> dict:
    return {"dataset": results.dataset, "synthetic": bool(results.context.synthetic)}


def results_scatter(results: Results) -> Figure | None:
    """The best judge metric's value against the expert target, one point per pair."""
    stat = results.settings.stat
    best = best_series(results.corr, stat)
    if best is None:
        return None
    judge, metric = best
    frame = results.frame
    series = frame[(frame["judge"] == judge) & (frame["metric"] == metric)]
    row = results.corr[(results.corr["judge"] == judge) & (results.corr["metric"] == metric)].iloc[0]
    return scatter_figure(series, judge, metric, target=results.context.target, stat=stat,
                          estimate=float(row[STAT_COLUMNS[stat][0]]), n=int(row["n"]), **_where(results))


def results_heatmap(results: Results) -> Figure | None:
    """The sign-corrected statistic per facet value (modality, else system, else anatomy) for the best series."""
    from core.analysis.stats import breakdown
    from core.reads.frames import apply_orientations

    frame, s = results.frame, results.settings
    facet = next((f for f in ("modality", "system", "anatomy") if frame[f].nunique() >= 2), None)
    if facet is None:
        return None
    absolute = STAT_COLUMNS[s.stat][1]
    top = results.corr.sort_values(absolute, ascending=False, kind="stable").head(HEATMAP_SERIES)
    order = list(zip(top["judge"], top["metric"], strict=True))
    keep = set(order)
    part = frame[[(j, m) in keep for j, m in zip(frame["judge"], frame["metric"], strict=True)]]
    cells = breakdown(part, by_facet=facet, n_boot=0, seed=s.seed, min_n=s.min_n,
                      cluster_col="group_id" if s.clusters else None, target_name=results.context.target)
    cells = apply_orientations(cells, results.declared, results.context.target)
    symbol = statistic(s.stat).symbol
    capped = (f"the {len(order)} of {len(results.corr)} judge metrics with the highest |{symbol}|; all of them: "
              f"correlate --breakdown {facet}") if len(results.corr) > len(order) else ""
    return heatmap_figure(cells, facet, order, stat=s.stat, min_n=s.min_n, capped=capped, **_where(results))


def all_figures(results: Results) -> list[Figure]:
    """Every figure the dataset has data for."""
    where = _where(results)
    out = []
    if results.calibration is not None and (results.calibration["n"] > 0).any():
        out.append(calibration_figure(results.calibration, **where))
    if results.injected is not None and (results.injected["n"] > 0).any():
        out += injected_figures(results.injected, **where)
    if results.reliability is not None and (results.reliability["n"] > 0).any():
        out.append(reliability_figure(results.reliability, **where))
    if results.f1 is not None and len(results.f1):
        out.append(f1_figure(results.f1, **where))
    out += [f for f in (results_scatter(results),) if f is not None]
    if results.preference is not None:
        figure = preference_figure(results.preference[0], PREFERENCE_SERIES, **where)
        out += [figure] if figure is not None else []
    out += [f for f in (results_heatmap(results),) if f is not None]
    if results.ensemble is not None and len(results.ensemble.table):
        figure = ensemble_figure(results.ensemble.table, target=results.context.target, **where)
        out += [figure] if figure is not None else []
    return out


def write_figures(figures: list[Figure], out: Path, forms: tuple[str, ...] = ("svg", "pdf")) -> list[dict]:
    """Write ``NAME.svg``, ``NAME.pdf`` and ``NAME.csv`` per figure; returns one record per file with its
    bytes and the seconds it took to render."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for figure in figures:
        for form in forms:
            started = time.perf_counter()
            data = render(figure, form)
            seconds = time.perf_counter() - started
            (out / f"{figure.name}.{form}").write_bytes(data)
            written.append({"file": f"{figure.name}.{form}", "bytes": len(data), "seconds": round(seconds, 3)})
        csv = figure_csv(figure)
        (out / f"{figure.name}.csv").write_bytes(csv)
        written.append({"file": f"{figure.name}.csv", "bytes": len(csv), "seconds": 0.0})
    return written
