"""Error types: which kinds of error does each judge find, and how exactly?

As ``python -m core errortypes``: count-level precision, recall and F1 per
error category (VERT App. C) with the TP / FP / FN behind every bar, and the
mean absolute error and accuracy of the counts per category (the shape of
GREEN Table 4).

F1, precision and recall carry 95% percentile CIs from a seeded bootstrap that resamples reference
groups (``core.analysis.errortypes.f1_bootstrap``), as the correlations' intervals do.

Beside the chart: SVG, PDF and CSV downloads of the same view, drawn by core/paper as ``python -m core
figures`` draws it (ui/downloads.py).

URL state: ``judges`` (repeatable; absent = all), ``errors`` (sig / insig /
both), ``measure`` (f1 / precision / recall), ``n_boot``, ``seed``.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.analysis.errortypes import (
    ALL,
    SIGNIFICANCE_CHOICES,
    accuracy_per_category,
    f1_bootstrap,
    mae_per_category,
)
from core.analysis.scores import CATEGORIES
from core.paper.figures_counts import f1_figure as paper_f1_figure
from core.reads.frames import expert_counts, judge_counts, judge_runs, pair_groups
from core.reads.queries import CATEGORY_NAMES
from ui.downloads import figure_downloads
from ui.shared import (
    MISSING,
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

PATTERNS = ("", "/", ".", "x", "-", "\\", "+", "|")
SIGNIFICANCE_LABELS = {"sig": "clinically significant", "insig": "insignificant", "both": "both"}
MEASURES = {"f1": "F1", "precision": "Precision", "recall": "Recall"}
SHORT_NAMES = {"a": "false finding", "b": "missing finding", "c": "location", "d": "severity",
               "e": "false comparison", "f": "missing comparison", ALL: "all (a-f)"}
ORDER = [*CATEGORIES, ALL]
DEFAULT_N_BOOT, MAX_N_BOOT = 1000, 20000


def category_tick(cat: str) -> str:
    return f"({cat}) {SHORT_NAMES[cat]}" if cat != ALL else SHORT_NAMES[ALL]


# -- cached loads -------------------------------------------------------------------------


@cached
def _load_counts(store, dataset: str, annotators: tuple[str, ...] | None = None):
    experts = expert_counts(store, dataset, None if annotators is None else list(annotators))
    return judge_counts(store, dataset), experts


@cached
def _load_judges(store, dataset: str) -> list[str]:
    return judge_runs(store, dataset, checks=False)["judge"].tolist()  # report checks are no judges


@cached(compute=True)  # statistics: the store is not held meanwhile
def _tables(store, dataset: str, errors: str, annotators: tuple[str, ...] | None = None, n_boot: int = DEFAULT_N_BOOT,
            seed: int = 0):
    jc, ec = _load_counts(store, dataset, annotators)
    significant = SIGNIFICANCE_CHOICES[errors]
    f1 = f1_bootstrap(jc, ec, significant=significant, groups=pair_groups(store, dataset), n_boot=n_boot, seed=seed)
    return (f1, mae_per_category(jc, ec, significant=significant),
            accuracy_per_category(jc, ec, significant=significant))


# -- URL state -------------------------------------------------------------------------------


def _seed_state(dataset: str, judges: list[str]) -> None:
    switched = st.session_state.get("et_view_dataset") not in (None, dataset)
    st.session_state["et_view_dataset"] = dataset
    if "et_judges" not in st.session_state or switched:
        wanted = [j for j in url_values("judges") if j in judges] if not switched else []
        if not switched:
            warn_unknown_names("judge", url_values("judges"), judges, "the judges found" if wanted else "every judge")
        st.session_state["et_judges"] = wanted or list(judges)
    else:
        st.session_state["et_judges"] = [j for j in st.session_state["et_judges"] if j in judges]
    st.session_state.setdefault("et_errors", url_value("errors") if url_value("errors") in SIGNIFICANCE_CHOICES else "sig")
    st.session_state.setdefault("et_measure", url_value("measure") if url_value("measure") in MEASURES else "f1")
    for key, name, default, high in (("et_n_boot", "n_boot", DEFAULT_N_BOOT, MAX_N_BOOT), ("et_seed", "seed", 0, 2**31 - 1)):
        raw = url_value(name, str(default))
        st.session_state.setdefault(key, min(int(raw), high) if raw.isdigit() else default)


# -- drawing -----------------------------------------------------------------------------------


def f1_figure(f1: pd.DataFrame, measure: str, title: str) -> go.Figure:
    """Grouped bars: one group per category, one bar per judge; counts in the hover."""
    fig = go.Figure()
    for i, (judge, part) in enumerate(f1.groupby("judge", sort=True)):
        part = part.set_index("category").reindex(ORDER).reset_index()
        fig.add_trace(go.Bar(
            x=[category_tick(c) for c in part["category"]], y=part[measure], name=str(judge),
            marker={"color": OKABE_ITO[i % len(OKABE_ITO)], "pattern": {"shape": PATTERNS[i % len(PATTERNS)]}},
            text=[f"{v:.2f}" for v in part[measure]], textposition="outside",
            error_y=_error_bars(part, measure),
            customdata=part[["tp", "fp", "fn", "support", "precision", "recall", "f1", "n_pairs"]].to_numpy(),
            hovertemplate=("<b>%{fullData.name}</b> · %{x}<br>"
                           "F1 %{customdata[6]:.3f} · precision %{customdata[4]:.3f} · recall %{customdata[5]:.3f}"
                           "<br>TP %{customdata[0]:.1f} · FP %{customdata[1]:.1f} · FN %{customdata[2]:.1f}"
                           "<br>expert errors (support) %{customdata[3]:.1f} · n = %{customdata[7]} reports"
                           "<extra></extra>"),
        ))
    fig.update_layout(barmode="group", title=title, height=440, xaxis_title="Error category (VERT App. C)",
                      yaxis_title=f"{MEASURES[measure]} (0-1, count level)", yaxis_range=[0, 1.12],
                      showlegend=True, legend={"orientation": "h", "yanchor": "top", "y": -0.25},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def _error_bars(part: pd.DataFrame, measure: str) -> dict | None:
    """The bar's 95% bootstrap interval (none without resamples)."""
    low, high = f"{measure}_ci_low", f"{measure}_ci_high"
    if low not in part or part[low].isna().all():
        return None
    return {"type": "data", "symmetric": False, "color": "#444444", "thickness": 1,
            "array": (part[high] - part[measure]).clip(lower=0).fillna(0).tolist(),
            "arrayminus": (part[measure] - part[low]).clip(lower=0).fillna(0).tolist()}


def wide_by_category(frame: pd.DataFrame, cell) -> pd.DataFrame:
    """Judges as rows, categories a-f + all as columns (GREEN Table 4 shape); ``cell(row) -> str``."""
    rows = []
    for judge, part in frame.groupby("judge", sort=True):
        part = part.set_index("category")
        row = {"judge": judge, "n reports": int(part["n_pairs"].iloc[0])}
        row |= {category_tick(c): cell(part.loc[c]) for c in ORDER if c in part.index}
        rows.append(row)
    return pd.DataFrame(rows)


def _fmt(value: float, spec: str = ".3f") -> str:
    return MISSING if pd.isna(value) else format(value, spec)


def average_counts(mae: pd.DataFrame) -> pd.DataFrame:
    """Mean count per report, per judge and for the experts on the same reports."""
    rows = []
    for judge, part in mae.groupby("judge", sort=True):
        part = part.set_index("category")
        n = int(part["n_pairs"].iloc[0])
        rows.append({"counts of": judge, "n reports": n}
                    | {category_tick(c): _fmt(part.loc[c, "mean_judge"]) for c in ORDER})
        rows.append({"counts of": f"experts (reports judged by {judge})", "n reports": n}
                    | {category_tick(c): _fmt(part.loc[c, "mean_expert"]) for c in ORDER})
    table = pd.DataFrame(rows)
    expert_rows = table[table["counts of"].str.startswith("experts")]
    if len(expert_rows) > 1 and (expert_rows.drop(columns="counts of").nunique() == 1).all():
        # every judge saw the same reports: one expert row is enough
        keep = table.index.isin(expert_rows.index[1:])
        table = table[~keep].reset_index(drop=True)
        table.loc[table["counts of"].str.startswith("experts"), "counts of"] = "experts"
    return table


def draw(store, dataset: str, synthetic: bool, runs: list[str]) -> None:
    if not runs:
        st.info(f"No judge runs on this dataset yet — {RUN_HINT.format(d=dataset)}.", icon=":material/info:")
        return
    annotators, _ = expert_annotators_choice(store, dataset, "et_experts")
    annotators = None if annotators is None else tuple(annotators)
    jc, ec = _load_counts(store, dataset, annotators)
    if jc.empty:
        st.info("No judge on this dataset reported error counts per category (lexical scores have none). "
                f"Run a GREEN-format judge: {RUN_HINT.format(d=dataset)}, or an LLM judge with "
                "`--prompt green` or `--prompt vert`.", icon=":material/info:")
        return
    if ec.empty:
        st.info("This dataset has no expert error counts per category, so F1, MAE and accuracy cannot be "
                "computed. Import them on the **Data** page or with `python -m core import-annotations FILE "
                f"--dataset {dataset} --id-col ID --category-col CATEGORY --significant-col SIGNIFICANT "
                "--count-col COUNT`.", icon=":material/info:")
        return
    with_counts = set(jc["judge"])
    judges = [j for j in runs if j in with_counts]  # run order; only judges that report counts
    _seed_state(dataset, judges)
    left, mid, right, boot, seed_col = st.columns([3, 2, 2, 1, 1])
    with left:
        chosen = st.multiselect("Judges", judges, key="et_judges", placeholder="pick judges")
    with mid:
        errors = st.radio("Errors", list(SIGNIFICANCE_CHOICES), key="et_errors", horizontal=True,
                          format_func=SIGNIFICANCE_LABELS.get)
    with right:
        measure = st.radio("Bar height", list(MEASURES), key="et_measure", horizontal=True,
                           format_func=MEASURES.get)
    with boot:
        n_boot = int(st.number_input("Bootstrap resamples", 0, MAX_N_BOOT, step=100, key="et_n_boot",
                                     help="resamples of reference groups for the 95% CIs; 0 = no intervals"))
    with seed_col:
        seed = int(st.number_input("Seed", 0, 2**31 - 1, step=1, key="et_seed",
                                   help="numpy default_rng seed of the resamples"))
    set_url("judges", chosen if chosen != judges else None)
    set_url("errors", None if errors == "sig" else errors)
    set_url("measure", None if measure == "f1" else measure)
    set_url("n_boot", None if n_boot == DEFAULT_N_BOOT else str(n_boot))
    set_url("seed", None if seed == 0 else str(seed))
    without = [j for j in runs if j not in with_counts]
    if without:
        st.caption("Not shown (no counts per category): " + ", ".join(escape_md(j) for j in without))
    if not chosen:
        st.info("Pick at least one judge.", icon=":material/info:")
        return
    f1, mae, acc = _tables(store, dataset, errors, annotators, n_boot, seed)
    f1, mae, acc = (t[t["judge"].isin(chosen)] for t in (f1, mae, acc))

    st.subheader("F1 per error category (VERT App. C)")
    title = f"{MEASURES[measure]} per category, {SIGNIFICANCE_LABELS[errors]} errors" + (
        " · synthetic data" if synthetic else "")
    st.plotly_chart(f1_figure(f1, measure, title), width="stretch", key="et_fig_f1")
    figure_downloads(lambda t=f1: paper_f1_figure(t, measure, dataset=dataset, synthetic=synthetic),
                     name=f"{measure}-per-category-{errors}", key="et_dl_fig_f1", dataset=dataset, synthetic=synthetic)
    st.caption("Count level, per report and category: TP = min(expert, judge), FP = max(0, judge − expert), "
               "FN = max(0, expert − judge), summed over reports; a zero denominator gives 0. "
               "**all** is the micro average over a-f. Expert counts are means over annotators.")
    st.caption(_ci_caption(f1, n_boot, seed))
    counts = f1[["judge", "category", "tp", "fp", "fn", "support", "precision", "recall", "f1", "f1_ci_low",
                 "f1_ci_high", "precision_ci_low", "precision_ci_high", "recall_ci_low", "recall_ci_high",
                 "n_pairs", "n_groups", "n_missing_judge", "n_missing_expert"]]
    show_table(counts, hide_index=True, key="et_table_f1", column_config={
        "tp": st.column_config.NumberColumn("TP", format="%.1f"),
        "fp": st.column_config.NumberColumn("FP", format="%.1f"),
        "fn": st.column_config.NumberColumn("FN", format="%.1f"),
        "support": st.column_config.NumberColumn("support (expert errors)", format="%.1f"),
        "precision": st.column_config.NumberColumn(format="%.3f"),
        "recall": st.column_config.NumberColumn(format="%.3f"),
        "f1": st.column_config.NumberColumn("F1", format="%.3f"),
        "f1_ci_low": st.column_config.NumberColumn("F1 CI low", format="%.3f"),
        "f1_ci_high": st.column_config.NumberColumn("F1 CI high", format="%.3f"),
        **{f"{m}_ci_{e}": st.column_config.NumberColumn(f"{m} CI {e}", format="%.3f")
           for m in ("precision", "recall") for e in ("low", "high")},
        "n_pairs": st.column_config.NumberColumn("n reports", format="%d"),
        "n_groups": st.column_config.NumberColumn("groups resampled", format="%d"),
        "n_missing_judge": st.column_config.NumberColumn("no judge counts", format="%d"),
        "n_missing_expert": st.column_config.NumberColumn("no expert counts", format="%d"),
    })
    download_csv(f1, dataset, synthetic, f"f1-{errors}", "et_dl_f1")

    st.subheader("Count errors per category (GREEN Table 4)")
    st.markdown("**Mean absolute error ± SD** of the judge's count against the mean expert count")
    show_table(wide_by_category(mae, lambda r: f"{_fmt(r['mae'])} ± {_fmt(r['sd'])}"), hide_index=True,
                 key="et_table_mae")
    st.caption("Per report |judge − expert| in each category, then mean and SD over reports. **all** sums the "
               "absolute differences of a-f per report (GREEN's Δ error column), so an error put in the wrong "
               "category costs twice.")
    download_csv(mae, dataset, synthetic, f"mae-{errors}", "et_dl_mae")

    st.markdown("**Accuracy**: share of reports whose count equals the mean expert count")
    show_table(wide_by_category(acc, lambda r: f"{_fmt(r['accuracy'], '.1%')} ({int(r['n_correct'])})"),
                 hide_index=True, key="et_table_acc")
    st.caption("In brackets: reports counted correctly (for **all**: correct report × category cells, out of "
               "6 × n). A judge can never match a mean of 1.5, which keeps (a) and (b) low on doubly "
               "annotated data.")
    download_csv(acc, dataset, synthetic, f"accuracy-{errors}", "et_dl_acc")

    st.markdown("**Average error count per report**")
    average = average_counts(mae)
    show_table(average, hide_index=True, key="et_table_avg")
    download_csv(average, dataset, synthetic, f"average-counts-{errors}", "et_dl_avg")


def _ci_caption(f1: pd.DataFrame, n_boot: int, seed: int) -> str:
    if n_boot == 0 or f1.empty:
        return "No bootstrap (resamples = 0): no confidence intervals."
    grouped = (f1["resampling"] == "groups").any()
    sizes = sorted({int(v) for v in f1["n_groups"]})
    what = (f"reference groups (`group_id`: {'/'.join(f'{k:,}' for k in sizes)} groups), since candidates of one "
            "reference are not independent" if grouped else f"reports ({'/'.join(f'{k:,}' for k in sizes)})")
    return (f"95% percentile CIs (bars and table) from **{n_boot:,}** bootstrap resamples, seed **{seed}**, "
            f"resampling {what}; TP, FP and FN are summed over the drawn reports before dividing. A resample in "
            "which a category occurs on neither side is left out of that interval. n = reports with counts "
            "from both the judge and the experts.")


def main() -> None:
    store, dataset, synthetic = page_start(
        "Error types", empty="Import a dataset (or build the demo) to compare judges per error category.",
        intro="Which kinds of error each judge finds, against the experts' counts per category "
              "(" + "; ".join(f"({c}) {CATEGORY_NAMES[c]}" for c in CATEGORIES) + ").")
    draw_dataset_caveat(store, dataset)  # the demo's rules judge sits near the ceiling by construction
    draw(store, dataset, synthetic, _load_judges(store, dataset))


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
