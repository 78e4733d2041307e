"""Ensembles & simulator: combining judges (VERT Table 5) and the metric algebra (VERT App. B).

Ensembles, as ``python -m core ensemble``: per score metric, the best single
judge, the average of that metric across judges and a linear regression on
it, plus a regression on every feature ("All"); each is fitted on training
pairs and Kendall's tau with the experts is computed on held-out pairs only.

Simulator, as ``python -m core simulate``: GREEN, GREEN-F1, Formula and the
unified alpha/beta score for chosen TP, S and I, and line charts of each
metric as one parameter varies (App. B.7, Fig. 7).

Beside each chart: SVG, PDF and CSV downloads drawn by core/paper as ``python -m core figures`` draws
(ui/downloads.py).

URL state: ``target``, ``train``, ``seed``, ``n_boot`` (ensembles);
``tp``, ``s``, ``i``, ``alpha``, ``beta_s``, ``beta_i``, ``vary`` (simulator).
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.analysis.ensemble import ensemble_table, feature_sets_by_metric
from core.analysis.scores import METRICS, metric_label
from core.analysis.simulate import UNIFIED, simulate_grid, sweep
from core.paper.figures_agreement import ensemble_figure, simulator_figure
from core.reads.frames import feature_frame, judge_runs
from core.reads.targets import HIGHER_IS_BETTER, MAIN_TARGETS, dataset_targets
from ui.downloads import figure_downloads
from ui.shared import (
    MISSING,
    OKABE_ITO,
    RUN_HINT,
    cached,
    download_csv,
    escape_md,
    expert_annotators_choice,
    page_start,
    set_url,
    show_table,
    url_value,
)

SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "triangle-down", "star", "cross")
TARGET_LABELS = {"score": "expert score (higher = better)",
                 "sig_errors": "expert significant-error count (lower = better)",
                 "total_errors": "expert total error count (lower = better)"}
ENSEMBLE_LABELS = {"best_single": "Best single judge", "average": "Average", "linear_regression": "Linear regression",
                   "ridge": "Ridge regression"}

# Simulator parameters: (label with unit, low, high, step, default). Counts are whole numbers (App. B.1).
SIM_PARAMS = {
    "tp": ("TP — matched findings (count)", 0, 20, 1, 5),
    "s": ("S — clinically significant errors (count)", 0, 20, 1, 2),
    "i": ("I — insignificant errors (count)", 0, 20, 1, 0),
    "alpha": ("α — weight of TP", 0.0, 5.0, 0.1, 1.0),
    "beta_s": ("β_S — weight of S", 0.0, 5.0, 0.1, 1.0),
    "beta_i": ("β_I — weight of I", 0.0, 5.0, 0.1, 0.0),
}
SIM_METRICS = {"green": "GREEN (α=1, β_S=1, β_I=0)", "green_f1": "GREEN-F1 (α=2, β_S=1, β_I=0)",
               "formula": "Formula (α=1, β_S=2, β_I=0.5)", UNIFIED: "unified (your α, β_S, β_I)"}


def _url_int(name: str, default: int, low: int, high: int) -> int:
    raw = url_value(name, "")
    return int(raw) if raw.isdigit() and low <= int(raw) <= high else default


def _url_float(name: str, default: float, low: float, high: float) -> float:
    try:
        value = float(url_value(name, ""))
    except ValueError:
        return default
    return value if math.isfinite(value) and low <= value <= high else default


# -- ensembles ------------------------------------------------------------------------------


@cached
def _load_judges(store, dataset: str) -> list[str]:
    return judge_runs(store, dataset, checks=False)["judge"].tolist()  # report checks are no judges


@cached
def _targets(store, dataset: str) -> list[str]:
    present = set(dataset_targets(store, dataset)["target"])
    return [t for t in MAIN_TARGETS if t in present]


@cached(compute=True)  # model fits and a bootstrap: the store is not held meanwhile
def _ensembles(store, dataset: str, target: str, train_size: int, seed: int,
               n_boot: int, experts: tuple[str, ...] | None = None):
    """As cmd_ensemble: one feature set per score metric (pooled over judges), and "All"."""
    features = feature_frame(store, dataset, target, annotators=None if experts is None else list(experts))
    columns = [c for c in features.columns if ":" in c]
    if len(columns) < 2:
        return None, len(columns)
    sets = {k: v for k, v in feature_sets_by_metric(columns, all_name=None).items() if k in METRICS}
    sets["All"] = columns
    result = ensemble_table(features, "target", sets, train_size=train_size, seed=seed,
                            target_higher_is_better=HIGHER_IS_BETTER[target], n_boot=n_boot)
    return result, len(columns)


def table5(table: pd.DataFrame) -> pd.DataFrame:
    """VERT Table 5 shape: ensembles as rows, feature sets as columns, tau [95% CI] in each cell."""
    def cell(r) -> str:
        if pd.isna(r["tau"]):
            return MISSING
        ci = "" if pd.isna(r["ci_low"]) else f" [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        return f"{r['tau']:.3f}{ci}"

    order = list(dict.fromkeys(table["feature_set"]))
    wide = (table.assign(cell=[cell(r) for _, r in table.iterrows()])
            .pivot(index="ensemble", columns="feature_set", values="cell")
            .reindex(columns=order))
    wide = wide.reindex([e for e in ENSEMBLE_LABELS if e in wide.index]).fillna("")
    wide.index = [ENSEMBLE_LABELS[e] for e in wide.index]
    wide.columns = [metric_label(c) for c in wide.columns]
    return wide.rename_axis("ensemble").reset_index()


def tau_figure(table: pd.DataFrame, title: str) -> go.Figure:
    fig = go.Figure()
    fig.add_vline(x=0, line={"color": "#000000", "width": 1, "dash": "dot"})
    for i, (ensemble, part) in enumerate(table.groupby("ensemble", sort=False)):
        part = part.dropna(subset=["tau"])
        fig.add_trace(go.Scatter(
            x=part["tau"], y=[metric_label(s) for s in part["feature_set"]], mode="markers",
            name=ENSEMBLE_LABELS.get(ensemble, ensemble),
            marker={"color": OKABE_ITO[i % len(OKABE_ITO)], "symbol": SYMBOLS[i % len(SYMBOLS)], "size": 10},
            error_x={"type": "data", "symmetric": False, "array": part["ci_high"] - part["tau"],
                     "arrayminus": part["tau"] - part["ci_low"], "thickness": 1.2},
            customdata=part[["n_train", "n_test", "ci_low", "ci_high", "p"]].to_numpy(),
            hovertemplate=("<b>%{fullData.name}</b> · %{y}<br>tau %{x:.3f} "
                           "[%{customdata[2]:.3f}, %{customdata[3]:.3f}], p %{customdata[4]:.2g}"
                           "<br>fitted on %{customdata[0]} pairs, tested on %{customdata[1]}<extra></extra>"),
        ))
    fig.update_layout(title=title, xaxis_title="Kendall's tau-b with the experts on held-out pairs (95% CI)",
                      yaxis_title="Feature set (metric pooled over judges)", height=120 + 36 * table[
                          "feature_set"].nunique(), scattermode="group",
                      legend={"orientation": "h", "yanchor": "top", "y": -0.25},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def _seed_ensemble_state(dataset: str, targets: list[str]) -> None:
    switched = st.session_state.get("ens_view_dataset") not in (None, dataset)
    st.session_state["ens_view_dataset"] = dataset
    if "ens_target" not in st.session_state or switched or st.session_state["ens_target"] not in targets:
        wanted = url_value("target")
        st.session_state["ens_target"] = wanted if wanted in targets and not switched else targets[0]
    st.session_state.setdefault("ens_train", _url_int("train", 500, 1, 1_000_000))
    st.session_state.setdefault("ens_seed", _url_int("seed", 0, 0, 2**31 - 1))
    st.session_state.setdefault("ens_n_boot", _url_int("n_boot", 1000, 0, 10000))


def draw_ensembles(store, dataset: str | None, synthetic: bool) -> None:
    if dataset is None:
        st.caption("Import a dataset (or build the demo) to combine judges.")
        return
    runs = _load_judges(store, dataset)
    if not runs:
        st.info(f"No judge runs on this dataset yet — {RUN_HINT.format(d=dataset)}. Ensembles combine at "
                "least two judge metrics.", icon=":material/info:")
        return
    targets = _targets(store, dataset)
    if not targets:
        st.info("This dataset has no expert annotations to fit and test ensembles against. Import scores or "
                "error counts on the **Data** page (or `python -m core import-annotations`).",
                icon=":material/info:")
        return
    _seed_ensemble_state(dataset, targets)
    annotators, _ = expert_annotators_choice(store, dataset, "ens_experts")  # imported / clinician ratings
    c1, c2, c3, c4 = st.columns([3, 2, 1, 1])
    target = c1.selectbox("Expert target", targets, key="ens_target", format_func=TARGET_LABELS.get)
    train_size = int(c2.number_input("Most training pairs", 1, 1_000_000, step=50, key="ens_train",
                                     help="VERT fits on 500 pairs of the training split"))
    n_boot = int(c3.number_input("Bootstrap resamples", 0, 10000, step=100, key="ens_n_boot"))
    seed = int(c4.number_input("Seed", 0, 2**31 - 1, step=1, key="ens_seed"))
    set_url("target", None if target == targets[0] else target)
    set_url("train", None if train_size == 500 else str(train_size))
    set_url("n_boot", None if n_boot == 1000 else str(n_boot))
    set_url("seed", None if seed == 0 else str(seed))

    with st.spinner("Fitting on the training pairs and bootstrapping tau on the held-out pairs…"):
        result, n_features = _ensembles(store, dataset, target, train_size, seed,
                                        n_boot, None if annotators is None else tuple(annotators))
    if result is None:
        st.info(f"Not enough data: ensembles need at least two judge metrics with values on pairs that have "
                f"the target; this dataset has {n_features}. Run another judge, e.g. `python -m core judge "
                f"--dataset {dataset} --judge lexical`.", icon=":material/info:")
        return
    split = result.split
    table = result.table
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Training pairs (n_train)", f"{len(split.train_ids):,}")
    m2.metric("Held-out test pairs (n_test)", f"{len(split.test_ids):,}")
    m3.metric("Unused pairs", f"{len(split.unused_ids) + len(split.dropped_ids):,}",
              help="Train-split pairs beyond the training size, other splits (e.g. val), and test pairs "
                   "whose group has a fitted pair")
    m4.metric("Seed", f"{split.seed}")
    st.info("**Nothing is evaluated on its training pairs.** The training pairs only fit the regression, pick "
            "the best single judge and set the average's normalisation; every tau below is computed on the "
            "held-out test pairs. Rows can use fewer pairs when a feature is missing (see n_train / n_test).",
            icon=":material/verified:")
    st.caption(f"Split: {escape_md(split.rule)}.")

    st.markdown(f"**Kendall's tau with the {TARGET_LABELS[target]} on the test pairs** (VERT Table 5 shape; "
                f"95% bootstrap CI, {n_boot} resamples, seed {seed})")
    wide = table5(table)
    show_table(wide, hide_index=True, key="ens_table5")
    download_csv(wide, dataset, synthetic, f"ensembles-table5-{target}", "ens_dl_table5")
    st.caption("Each column pools one metric across the judges; **All** feeds every judge metric (scores, "
               "per-category counts, matched findings) to the regression. A positive tau means agreement "
               "with the experts (the target is oriented so that higher = better; VERT prints |tau|).")
    title = "Ensembles on held-out pairs" + (" · synthetic data" if synthetic else "")
    st.plotly_chart(tau_figure(table, title), width="stretch", key="ens_fig_tau")
    if table["tau"].notna().any():
        figure_downloads(lambda t=table: ensemble_figure(t, target=target, dataset=dataset, synthetic=synthetic),
                         name=f"ensembles-{target}", key="ens_dl_fig_tau", dataset=dataset, synthetic=synthetic)
    view = table.drop(columns=["columns"]).assign(
        ensemble=table["ensemble"].map(lambda e: ENSEMBLE_LABELS.get(e, e)),
        feature_set=table["feature_set"].map(metric_label))
    show_table(view, hide_index=True, key="ens_table", column_config={
        "n_train": st.column_config.NumberColumn("n_train", format="%d"),
        "n_test": st.column_config.NumberColumn("n_test", format="%d"),
        "tau": st.column_config.NumberColumn("tau", format="%.3f"),
        "p": st.column_config.NumberColumn("p", format="%.2g"),
        "ci_low": st.column_config.NumberColumn("CI low", format="%.3f"),
        "ci_high": st.column_config.NumberColumn("CI high", format="%.3f"),
    })
    download_csv(table, dataset, synthetic, f"ensembles-{target}", "ens_dl_table")
    for note in result.notes[1:]:  # notes[0] is the split rule, shown above
        st.caption(escape_md(note))


# -- simulator --------------------------------------------------------------------------------


def _seed_sim_state() -> None:
    for name, (_, low, high, _, default) in SIM_PARAMS.items():
        key = f"ens_sim_{name}"
        if key not in st.session_state:
            if isinstance(default, int):
                st.session_state[key] = _url_int(name, default, low, high)
            else:
                st.session_state[key] = round(_url_float(name, default, low, high), 1)
    if "ens_sim_vary" not in st.session_state:
        st.session_state["ens_sim_vary"] = url_value("vary") if url_value("vary") in SIM_PARAMS else "s"


def sweep_figure(curves: pd.DataFrame, vary: str, at: float, title: str) -> go.Figure:
    fig = go.Figure()
    for i, (metric, part) in enumerate(curves.groupby("metric", sort=False)):
        fig.add_trace(go.Scatter(
            x=part["x"], y=part["value"], mode="lines+markers" if vary in ("tp", "s", "i") else "lines",
            name=SIM_METRICS.get(metric, metric),
            line={"color": OKABE_ITO[i % len(OKABE_ITO)], "dash": "dash" if metric == UNIFIED else "solid"},
            marker={"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 6},
            hovertemplate="<b>%{fullData.name}</b><br>" + SIM_PARAMS[vary][0].split(" (")[0]
                          + " = %{x}<br>score %{y:.3f}<extra></extra>"))
    fig.add_vline(x=at, line={"color": "#000000", "width": 1, "dash": "dot"},
                  annotation_text="current", annotation_position="top")
    fig.update_layout(title=title, xaxis_title=SIM_PARAMS[vary][0], yaxis_title="Score (0-1)",
                      yaxis_range=[-0.02, 1.05], height=420,
                      legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def draw_simulator() -> None:
    st.caption("VERT App. B writes GREEN, GREEN-F1 and Formula as one family: "
               "score = α·TP / (α·TP + β_S·S + β_I·I), and 0 whenever TP = 0. Move the sliders to see how "
               "each metric reacts; the **unified** row uses your weights.")
    _seed_sim_state()
    counts, weights = st.columns(2)
    values = {}
    for name in ("tp", "s", "i"):
        label, low, high, step, _ = SIM_PARAMS[name]
        values[name] = counts.slider(label, low, high, step=step, key=f"ens_sim_{name}")
    for name in ("alpha", "beta_s", "beta_i"):
        label, low, high, step, _ = SIM_PARAMS[name]
        values[name] = weights.slider(label, low, high, step=step, key=f"ens_sim_{name}")
    for name, value in values.items():
        default = SIM_PARAMS[name][4]
        set_url(name, None if value == default else (str(int(value)) if isinstance(default, int) else f"{value:g}"))

    grid = simulate_grid([values["tp"]], [values["s"]], [values["i"]], alpha=values["alpha"],
                         beta_s=values["beta_s"], beta_i=values["beta_i"])
    tiles = st.columns(len(grid))
    for tile, (_, row) in zip(tiles, grid.iterrows(), strict=True):
        tile.metric(SIM_METRICS[row["metric"]].split(" (")[0], f"{row['value']:.3f}",
                    help=f"α = {row['alpha']:g}, β_S = {row['beta_s']:g}, β_I = {row['beta_i']:g}")
    shown = grid.assign(metric=grid["metric"].map(SIM_METRICS))
    show_table(shown, hide_index=True, key="ens_sim_values", column_config={
        "value": st.column_config.NumberColumn("score", format="%.3f")})
    download_csv(grid, None, False, "simulator-point", "ens_dl_sim_point")

    vary = st.radio("Vary", list(SIM_PARAMS), key="ens_sim_vary", horizontal=True,
                    format_func=lambda p: SIM_PARAMS[p][0].split(" —")[0])
    set_url("vary", None if vary == "s" else vary)
    label, low, high, step, _ = SIM_PARAMS[vary]
    xs = [round(low + k * step, 6) for k in range(int(round((high - low) / step)) + 1)]
    fixed = {k: v for k, v in values.items() if k != vary}
    curves = sweep(vary, xs, **{k: fixed.get(k, values[k]) for k in ("tp", "s", "i")},
                   alpha=values["alpha"] if vary != "alpha" else None,
                   beta_s=values["beta_s"] if vary != "beta_s" else None,
                   beta_i=values["beta_i"] if vary != "beta_i" else None)
    if vary in ("alpha", "beta_s", "beta_i"):
        st.caption("Varying a weight changes only the unified score; the named metrics have fixed weights "
                   "and appear as flat reference lines.")
    others = ", ".join(f"{SIM_PARAMS[k][0].split(' —')[0]} = {v:g}" for k, v in fixed.items())
    fig = sweep_figure(curves, vary, values[vary], f"Each metric as {label.split(' —')[0]} varies ({others})")
    st.plotly_chart(fig, width="stretch", key="ens_fig_sweep")
    figure_downloads(lambda c=curves, v=vary, at=values[vary], x=label.split(" —")[0]:
                     simulator_figure(c, v, at, words=SIM_METRICS, x_title=x),
                     name=f"simulator-{vary}", key="ens_dl_fig_sweep")
    download_csv(curves, None, False, f"simulator-sweep-{vary}", "ens_dl_sweep")


def main() -> None:
    store, dataset, synthetic = page_start("Ensembles & simulator")
    ensembles_tab, simulator_tab = st.tabs(["Ensembles (VERT Table 5)", "Metric simulator (VERT App. B)"])
    # The simulator first: it needs no data, so it stays responsive while ensembles are fitted.
    with simulator_tab:
        draw_simulator()
    with ensembles_tab:
        draw_ensembles(store, dataset, synthetic)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
