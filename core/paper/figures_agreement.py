"""The paper figures of agreement with the experts: one judge metric against the expert target (scatter),
the sign-corrected correlation by facet (heatmap), preference accuracy by the expert's confidence (GREEN
Fig. 6), the ensembles' tau on held-out pairs (VERT Table 5 as a chart) and the metric simulator's sweep
(VERT App. B, Fig. 7).

Each builder takes the frame its analysis returns (``correlate``, ``breakdown``, ``preference_accuracy``,
``ensemble_table``, ``sweep``), as the CLI prints it and the pages show it, and plots its numbers as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from core.analysis.naming import display_name
from core.analysis.scores import metric_label
from core.analysis.statistic import statistic
from core.paper.figstyle import SYMBOLS, TALL, Figure, styled, title
from core.taxonomy import MISSING, OKABE_ITO

ENSEMBLE_WORDS = {"best_single": "Best single judge", "average": "Average", "linear_regression": "Linear regression",
                  "ridge": "Ridge regression"}
TARGET_AXIS = {"score": "Expert score (mean of annotators, 0-1)",
               "sig_errors": "Expert significant errors per report (mean)",
               "total_errors": "Expert errors per report (mean)"}


def _slug(text: str) -> str:
    from core.paper.tables import slug

    return slug(text)


def scatter_figure(series: pd.DataFrame, judge: str, metric: str, *, target: str, stat: str, estimate: float,
                   n: int, dataset: str | None = None, synthetic: bool = False) -> Figure:
    """``judge · metric`` against the expert ``target``, one point per pair (``series``: ext_id, value,
    target). Pairs with equal values share a point sized by their number; the CSV lists every pair."""
    import altair as alt

    data = series[["ext_id", "value", "target"]]
    data = data[data[["value", "target"]].notna().all(axis=1)].reset_index(drop=True)
    shown = MISSING if pd.isna(estimate) else f"{estimate:.3f}"
    chart = alt.Chart(data).mark_circle(opacity=0.7, color=OKABE_ITO[4]).encode(
        x=alt.X("value:Q", title=display_name(judge, metric, with_judge=True)),
        y=alt.Y("target:Q", title=TARGET_AXIS.get(target, f"Expert target ({target})")),
        size=alt.Size("count():Q", title="Pairs"),
    ).properties(title=title(f"{display_name(judge, metric, with_judge=True)} against the experts: {SYMBOLS[stat]} = {shown}, "
                             f"n = {n:,}", synthetic))
    return Figure(f"scatter-{_slug(judge)}-{_slug(metric)}", styled(chart), data.assign(judge=judge, metric=metric),
                  dataset, synthetic)


def heatmap_figure(cells: pd.DataFrame, facet: str, order: Sequence[tuple[str, str]], *, stat: str, min_n: int,
                   dataset: str | None = None, synthetic: bool = False, capped: str = "") -> Figure:
    """The sign-corrected statistic per ``facet`` value (a ``breakdown`` table with ``expected_sign``), one row
    per (judge, metric) of ``order``, in that order; cells with fewer than ``min_n`` pairs are blank. Row labels
    are never cut (the axis is as wide as the longest); ``capped`` says which rows a capped chart shows ("the
    10 of 16 judge metrics with the highest |τ|"), under the title."""
    import altair as alt

    from core.paper.figstyle import FONT_SIZE

    est = statistic(stat).short
    keep = list(dict.fromkeys((str(j), str(m)) for j, m in order))
    part = cells[[(j, m) in set(keep) for j, m in zip(cells["judge"], cells["metric"], strict=True)]]
    data = part.assign(series=[display_name(j, m, with_judge=True) for j, m in zip(part["judge"], part["metric"],
                                                                                        strict=True)],
                       oriented=part[est] * part["expected_sign"])[
        ["series", "judge", "metric", facet, "n", est, "oriented"]].rename(columns={facet: "facet"})
    data = data.assign(facet_name=facet).reset_index(drop=True)
    rows = [display_name(j, m, with_judge=True) for j, m in keep]
    symbol = SYMBOLS[stat]
    label_px = int(max(map(len, rows), default=10) * 0.75 * FONT_SIZE) + 10  # wider than any label set in it
    heading = title(f"{symbol} with the experts by {facet} (sign-corrected; blank: fewer than {min_n} pairs)",
                    synthetic)
    if capped:
        heading = alt.Title(heading.text, subtitle=[f"Showing {capped}.", *(["synthetic data"] if synthetic else [])])
    chart = alt.Chart(data).mark_rect().encode(
        x=alt.X("facet:N", title=facet),
        y=alt.Y("series:N", sort=rows, title="Judge · metric", axis=alt.Axis(labelLimit=label_px)),
        color=alt.Color("oriented:Q", title=f"{symbol} × expected sign",
                        scale=alt.Scale(domain=[-1, 1], range=[OKABE_ITO[5], "#f7f7f7", OKABE_ITO[4]])),
    ).properties(title=heading)
    return Figure(f"heatmap-{_slug(facet)}", styled(chart), data, dataset, synthetic)


def preference_figure(table: pd.DataFrame, top: int = 6, *, dataset: str | None = None,
                      synthetic: bool = False) -> Figure | None:
    """Preference accuracy by the expert's confidence with Wilson 95% intervals (GREEN Fig. 6), for the
    ``top`` most accurate judge metrics overall; None when no confidence was recorded."""
    import altair as alt

    overall = table[table["scope"] == "overall"].sort_values("accuracy", ascending=False, kind="stable")
    keep = overall.head(top)[["judge", "metric"]].apply(tuple, axis=1).tolist()
    levels = table[table["scope"] == "level"]
    levels = levels[[(j, m) in keep for j, m in zip(levels["judge"], levels["metric"], strict=True)]]
    data = levels.assign(series=[display_name(j, m, with_judge=True) for j, m in zip(levels["judge"],
                                                                                      levels["metric"], strict=True)])[
        ["series", "judge", "metric", "confidence", "accuracy", "ci_low", "ci_high", "n"]].reset_index(drop=True)
    if data.empty:
        return None
    base = alt.Chart(data)
    lines = base.mark_line(point=True).encode(
        x=alt.X("confidence:Q", title="Expert's confidence", axis=alt.Axis(tickMinStep=1, format="d")),
        y=alt.Y("accuracy:Q", title="Accuracy", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("series:N", title="Judge · metric"))
    bands = base.mark_errorbar(ticks=True, opacity=0.6).encode(x="confidence:Q", y=alt.Y("ci_low:Q", title="Accuracy"),
                                                               y2="ci_high:Q", color="series:N")
    chart = alt.layer(bands, lines).properties(
        title=title(f"Preference accuracy by the expert's confidence (the {len(keep)} most accurate)", synthetic))
    return Figure("preference-by-confidence", styled(chart), data, dataset, synthetic)


def ensemble_figure(table: pd.DataFrame, *, target: str, dataset: str | None = None,
                    synthetic: bool = False) -> Figure | None:
    """Kendall's tau-b of each ensemble with the expert ``target`` on held-out pairs, with its 95% CI, per
    feature set (VERT Table 5 as a chart); None when no ensemble has a tau."""
    import altair as alt

    cols = ["feature_set", "ensemble", "tau", "ci_low", "ci_high", "p", "n_train", "n_test"]
    data = table[table["tau"].notna()][[c for c in cols if c in table.columns]].copy()
    if data.empty:
        return None
    data["set"] = data["feature_set"].map(metric_label)
    data["method"] = data["ensemble"].map(lambda e: ENSEMBLE_WORDS.get(e, e))
    data = data.reset_index(drop=True)
    sets = list(dict.fromkeys(data["set"]))
    methods = [ENSEMBLE_WORDS.get(e, e) for e in dict.fromkeys(data["ensemble"])]
    y = alt.Y("set:N", sort=sets, title="Feature set (metric pooled over judges)")
    base = alt.Chart(data)
    zero = alt.Chart(pd.DataFrame({"tau": [0.0]})).mark_rule(color="#7f7f7f", strokeDash=[2, 2]).encode(x="tau:Q")
    bars = base.mark_errorbar(ticks=True).encode(x=alt.X("ci_low:Q", title="Kendall's tau-b on held-out pairs"),
                                                 x2="ci_high:Q", y=y, yOffset=alt.YOffset("method:N", sort=methods),
                                                 color=alt.Color("method:N", sort=methods, title="Ensemble"))
    points = base.mark_point(filled=True, size=60).encode(
        x=alt.X("tau:Q", title="Kendall's tau-b on held-out pairs"), y=y,
        yOffset=alt.YOffset("method:N", sort=methods), color=alt.Color("method:N", sort=methods, title="Ensemble"),
        shape=alt.Shape("method:N", sort=methods, legend=None))  # the colour legend names them; shapes help in print
    chart = alt.layer(zero, bars, points).properties(
        title=title(f"Ensembles with the expert {target} on held-out pairs (95% CIs)", synthetic))
    return Figure(f"ensembles-{_slug(target)}", styled(chart, height=TALL), data, dataset, synthetic)


def simulator_figure(curves: pd.DataFrame, vary: str, at: float, *, words: dict[str, str] | None = None,
                     x_title: str | None = None) -> Figure:
    """Each metric of the unified score family as one parameter varies (VERT App. B, Fig. 7), from
    :func:`core.analysis.simulate.sweep`; a rule marks the current value ``at``."""
    import altair as alt

    words = words or {}
    data = curves.assign(series=curves["metric"].map(lambda m: words.get(m, m))).reset_index(drop=True)
    order = [words.get(m, m) for m in dict.fromkeys(data["metric"])]
    lines = alt.Chart(data).mark_line(point=vary in ("tp", "s", "i")).encode(
        x=alt.X("x:Q", title=x_title or vary), y=alt.Y("value:Q", title="Score (0-1)", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("series:N", sort=order, title="Metric"),
        strokeDash=alt.StrokeDash("series:N", sort=order, title="Metric"))
    rule = alt.Chart(pd.DataFrame({"x": [float(at)]})).mark_rule(color="#000000", strokeDash=[2, 2]).encode(x="x:Q")
    fixed = {k: data[k].iloc[0] for k in ("tp", "s", "i") if k != vary and k in data}
    shown = ", ".join(f"{k.upper() if k in ('tp', 's', 'i') else k} = {v:g}" for k, v in fixed.items())
    chart = alt.layer(lines, rule).properties(title=title(f"Each metric as {x_title or vary} varies ({shown}; "
                                                          "dotted: current value)"))
    return Figure(f"simulator-{_slug(vary)}", styled(chart), data)
