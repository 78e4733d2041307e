"""Calibration: do a judge's error counts and scores follow the experts'?

Three views, as ``python -m core calibrate`` computes them:

* VERT Fig. 2 (Sec. 5.2): mean number of errors each judge detects per number
  the experts annotated, with 95% bootstrap CIs and the identity line y = x;
* VERT Fig. 3: detected vs injected k per error type, for datasets built by
  error injection (``python -m core inject``);
* the reliability view: mean judge score per bin of the expert score.

Beside each chart: SVG, PDF and CSV downloads of the same view, drawn by core/paper as ``python -m core
figures`` draws it (ui/downloads.py).

URL state: ``judges`` (repeatable; absent = all), ``errors`` (sig / insig /
both), ``range`` (``1-12``), ``metrics`` (repeatable), ``bins``, ``n_boot``,
``seed``.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.analysis.calibration import count_calibration, injected_calibration, reliability
from core.analysis.errortypes import SIGNIFICANCE_CHOICES
from core.analysis.naming import column_name, display_name
from core.analysis.statistic import SCORE_LIKE_METRICS
from core.paper.figures_counts import calibration_figure as paper_calibration
from core.paper.figures_counts import injected_figures, reliability_figure
from core.reads.frames import (
    correlation_frame,
    expert_counts,
    injected_counts,
    judge_counts,
    judge_runs,
    pair_groups,
)
from core.reads.queries import CATEGORY_NAMES
from ui.downloads import figure_downloads
from ui.shared import (
    OKABE_ITO,
    RUN_HINT,
    cached,
    download_csv,
    draw_dataset_caveat,
    escape_md,
    expert_annotators_choice,
    page_start,
    set_url,
    show_table,
    url_value,
    url_values,
    warn_unknown_names,
)

SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "triangle-down", "star", "cross")
SIGNIFICANCE_LABELS = {"sig": "clinically significant (Fig. 2)", "insig": "insignificant", "both": "both"}
ERROR_WORDS = {"sig": "significant errors", "insig": "insignificant errors", "both": "errors (sig. + insig.)"}
# The score-like metrics (0-1, higher is better) the CLI's reliability view uses.
RELIABILITY_METRICS = SCORE_LIKE_METRICS
RANGE_LIMITS = (0, 30)
# Reports with 0-12 annotated errors: VERT Fig. 2 starts at 1, but reports without errors are most of
# many datasets (56% of the demo) and a judge that invents errors in them is miscalibrated too.
DEFAULT_RANGE = (0, 12)


# -- cached loads (store + dataset + data version in the key) -----------------------


@cached
def _load_counts(store, dataset: str, annotators: tuple[str, ...] | None = None):
    experts = expert_counts(store, dataset, None if annotators is None else list(annotators))
    return judge_counts(store, dataset), experts, injected_counts(store, dataset)


@cached
def _load_judges(store, dataset: str) -> list[str]:
    return judge_runs(store, dataset, checks=False)["judge"].tolist()  # report checks are no judges


@cached(kept=True)  # a bootstrap: kept in the store too (core.reads.results)
def _count_calibration(store, dataset: str, errors: str, lo: int, hi: int, n_boot: int, seed: int,
                       annotators: tuple[str, ...] | None = None) -> pd.DataFrame:
    jc, ec, _ = _load_counts(store, dataset, annotators)
    return count_calibration(jc, ec, significant=SIGNIFICANCE_CHOICES[errors], bins=range(lo, hi + 1),
                             n_boot=n_boot, seed=seed, groups=pair_groups(store, dataset))


@cached(kept=True)  # a bootstrap: kept in the store too (core.reads.results)
def _injected_calibration(store, dataset: str, n_boot: int, seed: int) -> pd.DataFrame:
    jc, _, injected = _load_counts(store, dataset)
    return injected_calibration(jc, injected, n_boot=n_boot, seed=seed, groups=pair_groups(store, dataset))


@cached(kept=True)  # a bootstrap: kept in the store too (core.reads.results)
def _reliability(store, dataset: str, n_bins: int, n_boot: int,
                 seed: int, annotators: tuple[str, ...] | None = None) -> pd.DataFrame:
    frame = correlation_frame(store, dataset, "score", annotators=None if annotators is None else list(annotators))
    if frame.empty:
        return pd.DataFrame()
    scores = frame[["pair_id", "judge", "metric", "value"]]
    targets = frame.drop_duplicates("pair_id")[["pair_id", "target"]]
    known = scores["metric"].isin(RELIABILITY_METRICS)
    return reliability(scores[known], targets, n_bins=n_bins, n_boot=n_boot, seed=seed,
                       groups=pair_groups(store, dataset))


# -- URL state ------------------------------------------------------------------------


def _int_from_url(name: str, default: int, low: int, high: int) -> int:
    raw = url_value(name, "")
    return int(raw) if raw.isdigit() and low <= int(raw) <= high else default


def _range_from_url() -> tuple[int, int]:
    raw = url_value("range", "")
    parts = raw.split("-")
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        lo, hi = int(parts[0]), int(parts[1])
        if RANGE_LIMITS[0] <= lo <= hi <= RANGE_LIMITS[1]:
            return lo, hi
    return DEFAULT_RANGE


def _seed_state(dataset: str, judges: list[str]) -> None:
    """Widget state from the URL on a first visit; a dataset switch resets the judge choice."""
    switched = st.session_state.get("cal_view_dataset") not in (None, dataset)
    st.session_state["cal_view_dataset"] = dataset
    if "cal_judges" not in st.session_state or switched:
        wanted = [j for j in url_values("judges") if j in judges] if not switched else []
        if not switched:
            warn_unknown_names("judge", url_values("judges"), judges, "the judges found" if wanted else "every judge")
        st.session_state["cal_judges"] = wanted or list(judges)
    else:
        st.session_state["cal_judges"] = [j for j in st.session_state["cal_judges"] if j in judges]
    st.session_state.setdefault("cal_errors", url_value("errors") if url_value("errors") in SIGNIFICANCE_CHOICES else "sig")
    st.session_state.setdefault("cal_range", _range_from_url())
    st.session_state.setdefault("cal_bins", _int_from_url("bins", 5, 2, 10))
    st.session_state.setdefault("cal_n_boot", _int_from_url("n_boot", 1000, 0, 10000))
    st.session_state.setdefault("cal_seed", _int_from_url("seed", 0, 0, 2**31 - 1))


# -- drawing helpers ------------------------------------------------------------------


def calibration_figure(frame: pd.DataFrame, series: str, x_title: str, y_title: str, title: str,
                       x_span: tuple[float, float], hover_x: str) -> go.Figure:
    """Mean per bin with CI error bars, one line per ``series`` value, and the identity line."""
    fig = go.Figure()
    lo, hi = x_span
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="identity (y = x)",
                             line={"color": "#000000", "dash": "dash", "width": 1}, hoverinfo="skip"))
    for i, (name, part) in enumerate(frame.groupby(series, sort=True)):
        part = part.sort_values("x")
        ci = part[["ci_low", "ci_high"]].astype(float)
        y = part["y"].astype(float)
        fig.add_trace(go.Scatter(
            x=part["x"], y=y, mode="lines+markers", name=str(name),
            line={"color": OKABE_ITO[i % len(OKABE_ITO)]},
            marker={"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 8},
            error_y={"type": "data", "symmetric": False, "array": (ci["ci_high"] - y).clip(lower=0),
                     "arrayminus": (y - ci["ci_low"]).clip(lower=0), "thickness": 1.2},
            customdata=part[["n", "ci_low", "ci_high"]].to_numpy(),
            hovertemplate=(f"<b>%{{fullData.name}}</b><br>{hover_x}: %{{x}}<br>mean: %{{y:.3f}}"
                           "<br>95% CI: [%{customdata[1]:.3f}, %{customdata[2]:.3f}]"
                           "<br>n = %{customdata[0]} reports<extra></extra>"),
        ))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, height=460, showlegend=True,
                      legend={"orientation": "h", "yanchor": "top", "y": -0.25},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def _missing_caption(table: pd.DataFrame, outside: bool = True) -> str:
    parts = []
    for judge, row in table.groupby("judge").first().iterrows():
        bits = []
        if outside and row.get("n_outside", 0):
            bits.append(f"{int(row['n_outside'])} outside the range")
        if row.get("n_missing_judge", 0):
            bits.append(f"{int(row['n_missing_judge'])} without judge counts")
        if row.get("n_missing_expert", 0):
            bits.append(f"{int(row['n_missing_expert'])} without expert counts")
        if bits:
            parts.append(f"{escape_md(judge)}: " + ", ".join(bits))
    return ("Reports left out — " + "; ".join(parts)) if parts else ""


# -- sections -------------------------------------------------------------------------


def _point_columns(first: dict, y_label: str, expert_label: str, last: dict | None = None) -> dict:
    """The column_config of a table of calibration points: ``first``, then the number of reports, the mean
    (``y_label``) with its CI and the experts' mean (``expert_label``), then ``last``."""
    number = st.column_config.NumberColumn
    return {**first, "n": number("n reports", format="%d"), "y": number(y_label, format="%.3f"),
            "ci_low": number("CI low", format="%.3f"), "ci_high": number("CI high", format="%.3f"),
            "expert_mean": number(expert_label, format="%.3f"), **(last or {})}


def draw_counts(store, dataset: str, synthetic: bool, chosen: list[str], runs: list[str],
                settings: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    st.subheader("Errors detected vs errors annotated (VERT Fig. 2)")
    jc, ec, injected = _load_counts(store, dataset, settings["annotators"])
    lo_hi = st.slider("Expert error-count range", *RANGE_LIMITS, key="cal_range",
                      help="Reports whose expert total lies in this range (default 0-12; VERT Fig. 2 uses 1-12).")
    lo, hi = (int(v) for v in lo_hi)
    set_url("range", None if (lo, hi) == DEFAULT_RANGE else f"{lo}-{hi}")
    if not runs:
        st.info(f"No judge runs on this dataset yet — {RUN_HINT.format(d=dataset)}.", icon=":material/info:")
        return jc, ec, injected
    if jc.empty:
        st.info("No judge on this dataset reported error counts per category. Run a GREEN-format judge: "
                f"{RUN_HINT.format(d=dataset)}, or an LLM judge with `--prompt green` or `--prompt vert`.",
                icon=":material/info:")
        return jc, ec, injected
    if ec.empty:
        st.info("This dataset has no expert error counts (annotations per category a-f), so there is "
                "nothing to calibrate the counts against. Import them on the **Data** page or with "
                f"`python -m core import-annotations FILE --dataset {dataset} --id-col ID "
                "--category-col CATEGORY --significant-col SIGNIFICANT --count-col COUNT`.",
                icon=":material/info:")
        return jc, ec, injected

    errors = settings["errors"]
    with st.spinner("Bootstrapping the confidence intervals…"):
        table = _count_calibration(store, dataset, errors, lo, hi, settings["n_boot"], settings["seed"],
                                   settings["annotators"])
    table = table[table["judge"].isin(chosen)]
    if table.empty:
        st.info("None of the selected judges reported error counts. Pick another judge above.",
                icon=":material/info:")
        return jc, ec, injected
    if int(table["n"].sum()) == 0:
        st.info(f"No report has between {lo} and {hi} expert-annotated {ERROR_WORDS[errors]}. "
                "Widen the range.", icon=":material/info:")
        return jc, ec, injected
    silent = [j for j in chosen if j not in set(table["judge"])]
    if silent:  # selected above but with nothing to plot here: say so rather than leave them out quietly
        st.caption("Not in this chart: " + ", ".join(escape_md(j) for j in silent)
                   + " (no error counts per category; such judges appear in the reliability chart below).")
    word = ERROR_WORDS[errors]
    title = f"Mean {word} detected per expert count" + (" · synthetic data" if synthetic else "")
    shown = table[table["n"] > 0]["x"].astype(int)  # the axis follows the data, not the slider's range
    fig = calibration_figure(
        table[table["n"] > 0], "judge", f"Expert-annotated {word} per report (count)",
        f"Judge-detected {word} per report (mean count)", title, (int(shown.min()), int(shown.max())),
        "expert count")
    st.plotly_chart(fig, width="stretch", key="cal_fig_counts")
    figure_downloads(lambda t=table: paper_calibration(t, dataset=dataset, synthetic=synthetic),
                     name=f"calibration-counts-{errors}-{lo}-{hi}", key="cal_dl_fig_counts", dataset=dataset,
                     synthetic=synthetic)
    outside = int(table.groupby("judge")["n_outside"].first().max())
    if outside:
        total = outside + int(table.groupby("judge")["n"].sum().max())
        st.caption(f"**{outside:,} of {total:,} reports** have an expert count outside {lo}-{hi} and are not "
                   "plotted; widen the range to include them.")
    st.caption(f"Points: mean per bin; bars: 95% percentile bootstrap CI ({settings['n_boot']} resamples, "
               f"seed {settings['seed']}); dashed: y = x. Bins with fewer than two reports have no CI. "
               "Expert totals are means over annotators, rounded half up to a bin.")
    missing = _missing_caption(table, outside=False)  # outside the range: said above
    if missing:
        st.caption(missing)
    view = table[["judge", "x", "n", "y", "ci_low", "ci_high", "expert_mean", "bias"]]
    number = st.column_config.NumberColumn
    show_table(view, hide_index=True, key="cal_table_counts", column_config=_point_columns(
        {"x": number("expert count", format="%d")}, "mean detected", "mean expert",
        {"bias": number("bias (detected − expert)", format="%+.3f")}))
    download_csv(table, dataset, synthetic, f"calibration-counts-{errors}-{lo}-{hi}", "cal_dl_counts")
    return jc, ec, injected


def draw_injected(store, dataset: str, synthetic: bool, chosen: list[str], jc: pd.DataFrame,
                  injected: pd.DataFrame, settings: dict) -> None:
    st.subheader("Detected vs injected errors (VERT Fig. 3)")
    if injected.empty:
        st.info(
            "This dataset has no injected errors. Fig. 3 needs a dataset built by error injection "
            "(VERT App. F): a model adds exactly k = 1, 2 or 3 significant errors of one type to each "
            "reference report, so the true count is known. Build one with\n\n"
            f"`python -m core inject --dataset {dataset} --target {dataset}-injected --judge MODEL "
            "--kind false_finding` (and again with `--kind omission`),\n\n"
            f"then run a judge on `{dataset}-injected` and pick it in the sidebar.",
            icon=":material/info:")
        return
    if jc.empty:
        st.info(f"Injected errors are recorded, but no judge has reported counts yet — "
                f"{RUN_HINT.format(d=dataset)}.", icon=":material/info:")
        return
    with st.spinner("Bootstrapping the confidence intervals…"):
        table = _injected_calibration(store, dataset, settings["n_boot"], settings["seed"])
    table = table[table["judge"].isin(chosen)]
    if table.empty:
        st.info("None of the selected judges has counts on the injected pairs.", icon=":material/info:")
        return
    cats = sorted(table["category"].unique())
    cols = st.columns(len(cats))
    k_max = int(table["x"].max())
    for col, cat in zip(cols, cats, strict=True):
        part = table[table["category"] == cat]
        title = f"({cat}) {CATEGORY_NAMES.get(cat, cat)}" + (" · synthetic" if synthetic else "")
        fig = calibration_figure(part, "judge", "Injected significant errors per report (k)",
                                 f"Detected errors of type ({cat}) (mean count)", title, (0, k_max),
                                 "injected k")
        fig.update_xaxes(dtick=1)
        with col:
            st.plotly_chart(fig, width="stretch", key=f"cal_fig_injected_{cat}")
            figure_downloads(lambda p=part: injected_figures(p, dataset=dataset, synthetic=synthetic)[0],
                             name=f"injected-{cat}", key=f"cal_dl_fig_injected_{cat}", dataset=dataset,
                             synthetic=synthetic)
    st.caption(f"Counts of the injected category only; 95% bootstrap CI ({settings['n_boot']} resamples, "
               f"seed {settings['seed']}).")
    view = table[["judge", "category", "x", "n", "y", "ci_low", "ci_high", "bias", "n_missing_judge"]]
    show_table(view.rename(columns={"x": "k", "y": "mean detected", "n": "n reports"}), hide_index=True,
                 key="cal_table_injected", column_config={
                     "mean detected": st.column_config.NumberColumn(format="%.3f"),
                     "ci_low": st.column_config.NumberColumn("CI low", format="%.3f"),
                     "ci_high": st.column_config.NumberColumn("CI high", format="%.3f"),
                     "bias": st.column_config.NumberColumn("bias (detected − k)", format="%+.3f"),
                     "n_missing_judge": st.column_config.NumberColumn("no judge counts", format="%d"),
                 })
    download_csv(table, dataset, synthetic, "calibration-injected", "cal_dl_injected")


def draw_reliability(store, dataset: str, synthetic: bool, chosen: list[str], runs: list[str],
                     settings: dict) -> None:
    st.subheader("Judge score vs expert score (reliability)")
    bins = st.slider("Expert-score bins", 2, 10, key="cal_bins",
                     help="Equal-width bins of the expert score on 0-1")
    set_url("bins", None if bins == 5 else str(bins))
    settings = {**settings, "bins": int(bins)}
    if not runs:
        st.info(f"No judge runs on this dataset yet — {RUN_HINT.format(d=dataset)}.", icon=":material/info:")
        return
    with st.spinner("Bootstrapping the confidence intervals…"):
        table = _reliability(store, dataset, settings["bins"], settings["n_boot"], settings["seed"],
                             settings["annotators"])
    if table.empty:
        st.info("Needs expert overall scores on this dataset (annotations with field `score`) and a judge "
                "score on the 0-1 scale (GREEN, GREEN-F1, Formula, VERT, BLEU-4, ROUGE-L, ...). Import "
                f"scores with `python -m core import-annotations FILE --dataset {dataset} --id-col ID "
                "--score-col SCORE`.", icon=":material/info:")
        return
    present = [m for m in RELIABILITY_METRICS if m in set(table["metric"])]
    wanted = st.session_state.get("cal_metrics")
    if wanted is None:
        wanted = [m for m in url_values("metrics") if m in present] or present[:1]
    st.session_state["cal_metrics"] = [m for m in wanted if m in present]
    metrics = st.multiselect("Judge scores", present, key="cal_metrics",
                             format_func=lambda m: column_name(m, chosen))
    set_url("metrics", metrics if metrics != present[:1] else None)
    table = table[table["judge"].isin(chosen) & table["metric"].isin(metrics)]
    if table.empty:
        st.info("Pick at least one judge and one score.", icon=":material/info:")
        return
    table = table.assign(series=[display_name(j, m, with_judge=True) for j, m in zip(table["judge"], table["metric"],
                                                                                      strict=True)])
    title = "Mean judge score per expert-score bin" + (" · synthetic data" if synthetic else "")
    fig = calibration_figure(table, "series", "Expert score (normalised to 0-1; bin midpoint)",
                             "Judge score (mean, 0-1)", title, (0, 1), "expert-score bin midpoint")
    st.plotly_chart(fig, width="stretch", key="cal_fig_reliability")
    figure_downloads(lambda t=table: reliability_figure(t, dataset=dataset, synthetic=synthetic),
                     name=f"reliability-{settings['bins']}-bins", key="cal_dl_fig_reliability", dataset=dataset,
                     synthetic=synthetic)
    st.caption(f"{settings['bins']} equal-width bins of the expert score (mean over annotators, scaled to "
               f"0-1); 95% bootstrap CI ({settings['n_boot']} resamples, seed {settings['seed']}).")
    missing = _missing_caption(table, outside=False)
    if missing:
        st.caption(missing)
    view = table[["judge", "metric", "bin_low", "bin_high", "n", "y", "ci_low", "ci_high", "expert_mean"]]
    number = st.column_config.NumberColumn
    show_table(view, hide_index=True, key="cal_table_reliability", column_config=_point_columns(
        {"bin_low": number("expert score from", format="%.2f"), "bin_high": number("to", format="%.2f")},
        "mean judge score", "mean expert score"))
    download_csv(table.drop(columns="series"), dataset, synthetic, "calibration-reliability", "cal_dl_reliability")


# -- the page ---------------------------------------------------------------------------


def main() -> None:
    store, dataset, synthetic = page_start(
        "Calibration",
        empty="Import a dataset (or build the demo) to see how judges' counts follow the experts'.",
        intro="Does a judge that finds *n* errors mean *n*? Points on the dashed line y = x are calibrated.")
    draw_dataset_caveat(store, dataset)  # the demo's rules judge sits near the ceiling by construction
    runs = _load_judges(store, dataset)
    _seed_state(dataset, runs)

    left, mid, right, far = st.columns([3, 2, 1, 1])
    with left:
        chosen = st.multiselect("Judges", runs, key="cal_judges", placeholder="pick judges",
                                disabled=not runs)
    with mid:
        errors = st.radio("Errors counted", list(SIGNIFICANCE_CHOICES), key="cal_errors", horizontal=True,
                          format_func=SIGNIFICANCE_LABELS.get)
    with right:
        n_boot = st.number_input("Bootstrap resamples", 0, 10000, step=100, key="cal_n_boot")
    with far:
        seed = st.number_input("Seed", 0, 2**31 - 1, step=1, key="cal_seed")
    set_url("judges", chosen if chosen != runs else None)
    set_url("errors", None if errors == "sig" else errors)
    set_url("n_boot", None if n_boot == 1000 else str(int(n_boot)))
    set_url("seed", None if seed == 0 else str(int(seed)))
    annotators, _ = expert_annotators_choice(store, dataset, "cal_experts")
    settings = {"errors": errors, "n_boot": int(n_boot), "seed": int(seed),
                "annotators": None if annotators is None else tuple(annotators)}

    jc, _, injected = draw_counts(store, dataset, synthetic, chosen, runs, settings)
    st.divider()
    draw_injected(store, dataset, synthetic, chosen, jc, injected, settings)
    st.divider()
    draw_reliability(store, dataset, synthetic, chosen, runs, settings)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
