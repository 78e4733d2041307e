"""The paper figures of error counts and calibration: the count calibration with the identity line (VERT
Fig. 2), detected vs injected errors per error type (VERT Fig. 3), the reliability of judge scores against
the expert score, and F1 (or precision, recall) per error category with CIs (VERT App. C).

Each builder takes the frame the analysis returns (``count_calibration``, ``injected_calibration``,
``reliability``, ``f1_bootstrap``: what ``calibrate`` and ``errortypes`` print as ``--json`` and what the
pages show) and plots its numbers as they are.
"""

from __future__ import annotations

import pandas as pd

from core.paper.figstyle import Figure, styled, title

ERROR_WORDS = {"significant": "significant errors", "insignificant": "insignificant errors",
               "both": "errors (significant and insignificant)"}
MEASURE_WORDS = {"f1": "F1", "precision": "Precision", "recall": "Recall"}


def _identity(top: float):
    import altair as alt

    line = pd.DataFrame({"x": [0.0, top], "y": [0.0, top]})
    return alt.Chart(line).mark_line(color="#7f7f7f", strokeDash=[4, 3]).encode(x="x:Q", y="y:Q")


def _points_with_cis(data: pd.DataFrame, series: str, x_title: str, y_title: str, *, count_axis: bool,
                     legend: str):
    """Mean per bin joined by lines, with the CI as error bars: one colour per ``series`` value."""
    import altair as alt

    axis = alt.Axis(tickMinStep=1, format="d") if count_axis else alt.Axis()
    base = alt.Chart(data)
    bars = base.mark_errorbar(ticks=True).encode(x=alt.X("x:Q", axis=axis), y=alt.Y("ci_low:Q", title=y_title),
                                                 y2="ci_high:Q", color=alt.Color(f"{series}:N", title=legend))
    points = base.mark_line(point=True).encode(x=alt.X("x:Q", title=x_title, axis=axis),
                                               y=alt.Y("y:Q", title=y_title), color=f"{series}:N")
    return bars, points


def calibration_figure(cal: pd.DataFrame, *, dataset: str | None = None, synthetic: bool = False) -> Figure:
    """Mean errors a judge reports per expert count, 95% CIs, and the identity line (VERT Fig. 2)."""
    import altair as alt

    data = cal[cal["n"] > 0][["judge", "x", "y", "ci_low", "ci_high", "n", "identity", "n_boot", "seed"]]
    data = data.reset_index(drop=True)
    kind = str(cal["significance"].iloc[0]) if "significance" in cal and len(cal) else "significant"
    words = ERROR_WORDS.get(kind, "errors")
    top = float(max(data["x"].max(), data[["y", "ci_high"]].max().max()))
    bars, points = _points_with_cis(data, "judge", f"{words.capitalize()} found by the experts",
                                    f"{words.capitalize()} the judge reports (mean)", count_axis=True, legend="Judge")
    chart = alt.layer(_identity(top), bars, points).properties(
        title=title(f"Calibration of error counts: {words} (dashed: identity)", synthetic))
    name = "calibration-counts" if kind == "significant" else f"calibration-counts-{kind}"
    return Figure(name, styled(chart), data, dataset, synthetic)


def injected_figures(injected: pd.DataFrame, *, dataset: str | None = None,
                     synthetic: bool = False) -> list[Figure]:
    """Detected vs injected errors, one figure per injected error type (VERT Fig. 3): the mean number of
    errors of that type each judge reports on reports with k injected errors, 95% CIs, and y = k."""
    import altair as alt

    from core.taxonomy import CATEGORY_NAMES

    out = []
    cols = ["judge", "category", "x", "y", "ci_low", "ci_high", "n", "bias", "n_missing_judge", "n_boot", "seed"]
    for cat in sorted(set(injected["category"])):
        data = injected[(injected["category"] == cat) & (injected["n"] > 0)][cols].reset_index(drop=True)
        if data.empty:
            continue
        top = float(max(data["x"].max(), data[["y", "ci_high"]].max().max()))
        bars, points = _points_with_cis(data, "judge", "Errors injected per report (k)",
                                        f"Errors of type ({cat}) detected (mean)", count_axis=True, legend="Judge")
        chart = alt.layer(_identity(top), bars, points).properties(
            title=title(f"({cat}) {CATEGORY_NAMES.get(cat, cat)}: detected vs injected (dashed: y = k)", synthetic))
        out.append(Figure(f"injected-{cat}", styled(chart), data, dataset, synthetic))
    return out


def reliability_figure(rel: pd.DataFrame, *, dataset: str | None = None, synthetic: bool = False) -> Figure:
    """Mean judge score per bin of the expert score (0-1), 95% CIs, and the identity line: one line per judge
    metric (a reliability diagram)."""
    import altair as alt

    from core.analysis.naming import display_name

    data = rel[rel["n"] > 0].copy()
    labels = [display_name(j, m, with_judge=True) for j, m in zip(data["judge"], data["metric"], strict=True)]
    data = data.assign(series=labels)[["series", "judge", "metric", "bin", "bin_low", "bin_high", "x", "y", "ci_low",
                                       "ci_high", "n", "expert_mean", "n_boot", "seed"]].reset_index(drop=True)
    bars, points = _points_with_cis(data, "series", "Expert score (0-1, bin midpoint)", "Judge score (mean, 0-1)",
                                    count_axis=False, legend="Judge · metric")
    chart = alt.layer(_identity(1.0), bars, points).properties(
        title=title("Judge score per expert-score bin (dashed: identity)", synthetic))
    return Figure("reliability-scores", styled(chart), data, dataset, synthetic)


def f1_figure(f1: pd.DataFrame, measure: str = "f1", *, dataset: str | None = None,
              synthetic: bool = False) -> Figure:
    """F1 (or precision, recall) per error category with 95% bootstrap CIs, one colour per judge."""
    import altair as alt

    from core.taxonomy import CATEGORIES

    if measure not in MEASURE_WORDS:
        raise ValueError(f"unknown measure {measure!r}; valid: {', '.join(MEASURE_WORDS)}")
    low, high = f"{measure}_ci_low", f"{measure}_ci_high"
    cols = ["judge", "category", measure, low, high, "tp", "fp", "fn", "n_pairs", "n_boot", "seed"]
    data = f1[[c for c in dict.fromkeys(cols) if c in f1.columns]].reset_index(drop=True)
    order = [c for c in (*CATEGORIES, "all") if c in set(data["category"])]
    word = MEASURE_WORDS[measure]
    kind = str(f1["significance"].iloc[0]) if "significance" in f1 and len(f1) else "significant"
    x = alt.X("category:N", sort=order, title="Error category", axis=alt.Axis(labelAngle=0))
    base = alt.Chart(data)
    bars = base.mark_bar().encode(x=x, xOffset="judge:N", y=alt.Y(f"{measure}:Q", title=word,
                                                                  scale=alt.Scale(domain=[0, 1])),
                                  color=alt.Color("judge:N", title="Judge"))
    layers = [bars]
    if low in data and data[low].notna().any():
        layers.append(base.mark_errorbar(ticks=True, color="black").encode(x=x, xOffset="judge:N",
                                                                           y=alt.Y(f"{low}:Q", title=word), y2=f"{high}:Q"))
    chart = alt.layer(*layers).properties(
        title=title(f"{word} per error category, {ERROR_WORDS.get(kind, 'errors')} (95% bootstrap CIs)", synthetic))
    name = f"{measure}-per-category" + ("" if kind == "significant" else f"-{kind}")
    return Figure(name, styled(chart), data, dataset, synthetic)
