"""Summaries: what kinds of error does a judge write, per category (GREEN Sec. 3.3, Fig. 4)?

As ``python -m core summary``: for one judge (and optionally one candidate
system) the mean count and the share of reports without an error in each
category, the 3 explanations nearest the centre of the largest cluster of
that category's explanations, and the mean ± std of GREEN (of CRIMSON for a
CRIMSON run, whose answers give the same categories). Every cluster
stays browsable: select a representative or a cluster to list its members
with their report pairs. Two systems can be set side by side.

URL state: ``judge``, ``system``, ``mode`` (summary / compare), ``a`` and
``b`` (the compared systems), ``cat`` (the explored category), ``cluster``,
``seed``.
"""

from __future__ import annotations

import hashlib

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.analysis.naming import display_name
from core.analysis.scores import CATEGORIES
from core.analysis.summary import compare_systems, judge_summary, normalized_text, summarisable_judges
from core.reads.frames import judge_runs
from core.reads.queries import CATEGORY_NAMES, find_pairs
from core.reads.summary_inputs import summary_frames
from ui.shared import (
    MISSING,
    OKABE_ITO,
    RUN_HINT,
    cached,
    data_version,
    download_csv,
    escape_md,
    page_start,
    set_url,
    show_reports,
    show_table,
    url_value,
)

ALL_SYSTEMS = "(all systems)"
MODES = {"summary": "One judge", "compare": "Two systems side by side"}


# -- cached loads -----------------------------------------------------------------------


@cached
def _inputs(store, dataset: str):
    """The three frames of every summary (core.reads.summary_inputs: the report's and cmd_summary's too), and
    the run labels."""
    errors, counts, scores = summary_frames(store, dataset)
    runs = judge_runs(store, dataset)["judge"].tolist()
    return errors, counts, scores, runs


@cached
def _systems(store, dataset: str) -> list[str]:
    _, counts, scores, _ = _inputs(store, dataset)
    found = set(counts["system"].dropna()) | set(scores["system"].dropna())
    return sorted(str(s) for s in found)


@cached(max_entries=32)
def _summary(store, dataset: str, judge: str, system: str | None, seed: int):
    errors, counts, scores, _ = _inputs(store, dataset)
    return judge_summary(errors, counts, scores, judge, system=system, seed=seed)


@cached
def _compare(store, dataset: str, judge: str, a: str, b: str, seed: int):
    errors, counts, scores, _ = _inputs(store, dataset)
    return compare_systems(errors, counts, scores, judge, systems=(a, b), seed=seed)


@cached
def _summarisable(store, dataset: str) -> list[str]:
    """The judges with a summary (core.analysis.summary.summarisable_judges, as the report and the CLI ask),
    in run order."""
    errors, counts, scores, runs = _inputs(store, dataset)
    return summarisable_judges(errors, counts, scores, order=runs)


@cached(max_entries=4)
def _pair_texts(store, dataset: str) -> pd.DataFrame:
    """ext_id, reference and candidate of every pair (one query, kept for the data version)."""
    _, total = find_pairs(store, dataset, limit=0)
    frame, _ = find_pairs(store, dataset, limit=max(total, 1))
    return frame[["pair_id", "ext_id", "system", "reference", "candidate"]].set_index("pair_id")


# -- URL state ----------------------------------------------------------------------------


def _valid_or(value: str | None, options: list[str], default: str) -> str:
    return value if value in options else default


def _seed_state(dataset: str, judges: list[str], systems: list[str]) -> None:
    switched = st.session_state.get("sum_view_dataset") not in (None, dataset)
    st.session_state["sum_view_dataset"] = dataset
    fresh = "sum_judge" not in st.session_state or switched

    def pick(key: str, param: str, options: list[str], default: str) -> None:
        if fresh or key not in st.session_state:
            st.session_state[key] = _valid_or(None if switched else url_value(param), options, default)
        elif st.session_state[key] not in options:
            st.session_state[key] = default

    pick("sum_judge", "judge", judges, judges[0])
    pick("sum_system", "system", [ALL_SYSTEMS, *systems], ALL_SYSTEMS)
    pick("sum_mode", "mode", list(MODES), "summary")
    pick("sum_cat", "cat", list(CATEGORIES), "a")
    if len(systems) >= 2:
        pick("sum_a", "a", systems, systems[0])
        pick("sum_b", "b", systems, systems[1])
    if fresh or "sum_seed" not in st.session_state:
        raw = url_value("seed", "")
        st.session_state["sum_seed"] = int(raw) if raw.isdigit() and int(raw) < 2**31 else 0
    if fresh:
        raw = url_value("cluster", "")
        st.session_state["sum_cluster"] = int(raw) if raw.isdigit() and not switched else None
        st.session_state["sum_member"] = None


# -- drawing ---------------------------------------------------------------------------------


def _green_text(mean: float | None, std: float | None) -> str:
    if mean is None or pd.isna(mean):
        return MISSING
    return f"{mean:.3f} ± {std:.3f}" if std is not None and not pd.isna(std) else f"{mean:.3f}"


CATEGORY_CONFIG = {
    "category": st.column_config.TextColumn("", width="small"),
    "label": st.column_config.TextColumn("error category", width="medium"),
    "mean_count": st.column_config.NumberColumn("mean count", format="%.3f",
                                                help="Mean number of errors of this kind per report"),
    "share_no_error": st.column_config.NumberColumn("no error", format="percent",
                                                    help="Share of reports with no error of this kind"),
    "n_reports": st.column_config.NumberColumn("n reports", format="%d"),
    "n_texts": st.column_config.NumberColumn("explanations", format="%d"),
    "largest_size": st.column_config.NumberColumn("largest cluster", format="%d",
                                                  help="Explanations in the largest cluster"),
    "k": st.column_config.NumberColumn("k", format="%d", help="Clusters chosen by the silhouette score"),
    "representatives": st.column_config.ListColumn(
        "representatives (largest cluster)", width="large",
        help="The 3 explanations nearest the centre of the largest cluster"),
}
CATEGORY_VIEW = ["category", "label", "mean_count", "share_no_error", "largest_size", "representatives", "n_reports",
                 "n_texts", "k"]


def _view_key(*parts: object) -> str:
    return hashlib.sha1(repr(parts).encode()).hexdigest()[:10]


def _selection(event, table_key: str) -> tuple[bool, list[int]]:
    """(changed since the last run, selected rows) of a selectable table."""
    rows = list(event.selection.rows)
    previous = st.session_state.get("sum_prev_" + table_key, [])
    st.session_state["sum_prev_" + table_key] = rows
    return rows != previous, rows


def draw_clusters(store, dataset: str, synthetic: bool, summary, view: str) -> None:
    """Representatives and clusters of one category; the selected cluster's members and pairs."""
    cat = st.selectbox("Explore a category", list(CATEGORIES), key="sum_cat",
                       format_func=lambda c: f"({c}) {CATEGORY_NAMES[c]}")
    set_url("cat", None if cat == "a" else cat)
    clusters = summary.clusters[summary.clusters["category"] == cat]
    row = summary.categories.set_index("category").loc[cat]
    if clusters.empty:
        st.caption(f"No explanations of this kind from this judge ({escape_md(row['status'])}).")
        set_url("cluster", None)
        return
    sil = "" if pd.isna(row["silhouette"]) else f", silhouette {row['silhouette']:.2f}"
    k = "1 group" if pd.isna(row["k"]) else f"k = {int(row['k'])} clusters"
    st.caption(f"{len(clusters)} explanations, {k}{sil} ({escape_md(row['status'])}). "
               "Select a representative or a cluster to list its members.")
    key = _view_key(view, cat)
    reps_key, clusters_key = f"sum_reps_{key}", f"sum_clusters_{key}"
    if st.session_state.get("sum_view_key") != key:  # another view: nothing selected yet (a URL cluster aside)
        if "sum_view_key" in st.session_state:
            st.session_state["sum_cluster"], st.session_state["sum_member"] = None, None
        st.session_state["sum_view_key"] = key

    left, right = st.columns(2)
    largest = clusters[clusters["is_largest"]].sort_values("rank")
    reps = largest[~largest["text"].map(normalized_text).duplicated()].head(3)  # three different sentences
    with left:
        st.markdown(f"**Representatives** · largest cluster, {int(reps['size'].iloc[0])} explanations")
        reps_event = show_table(
            reps[["rank", "text", "distance"]], hide_index=True, key=reps_key, on_select="rerun",
            selection_mode="single-row",
            column_config={"text": st.column_config.TextColumn("explanation", width="large"),
                           "distance": st.column_config.NumberColumn("cosine distance to centre",
                                                                     format="%.3f")})
    overview = (clusters.sort_values(["cluster", "rank"]).groupby("cluster", as_index=False)
                .agg(size=("size", "first"), text=("text", "first")))
    with right:
        st.markdown(f"**Clusters** · {len(overview)}, largest first")
        clusters_event = show_table(
            overview.assign(cluster=overview["cluster"] + 1), hide_index=True, key=clusters_key,
            on_select="rerun", selection_mode="single-row",
            column_config={"cluster": st.column_config.NumberColumn("#", format="%d"),
                           "size": st.column_config.NumberColumn("members", format="%d"),
                           "text": st.column_config.TextColumn("nearest the centre", width="large")})

    texts = _pair_texts(store, dataset)[["ext_id"]]
    download_csv(clusters.join(texts, on="pair_id"), dataset, synthetic, f"clusters-{cat}", f"sum_dl_clusters_{key}")

    reps_changed, reps_rows = _selection(reps_event, reps_key)
    clusters_changed, cluster_rows = _selection(clusters_event, clusters_key)
    if reps_changed and reps_rows:
        st.session_state["sum_cluster"] = 0
        st.session_state["sum_member"] = int(reps["rank"].iloc[reps_rows[0]])
    elif clusters_changed and cluster_rows:
        st.session_state["sum_cluster"] = int(overview["cluster"].iloc[cluster_rows[0]])
        st.session_state["sum_member"] = None
    elif (reps_changed or clusters_changed) and not reps_rows and not cluster_rows:
        st.session_state["sum_cluster"], st.session_state["sum_member"] = None, None

    chosen = st.session_state.get("sum_cluster")
    if chosen is None or chosen not in set(overview["cluster"]):
        set_url("cluster", None)
        return
    set_url("cluster", str(chosen))
    draw_members(store, dataset, synthetic, clusters[clusters["cluster"] == chosen], key)


def cat_of(members: pd.DataFrame) -> str:
    return str(members["category"].iloc[0])


def draw_members(store, dataset: str, synthetic: bool, members: pd.DataFrame, key: str) -> None:
    number = int(members["cluster"].iloc[0]) + 1
    st.markdown(f"**Cluster {number}: all {len(members)} members and their pairs**")
    texts = _pair_texts(store, dataset)
    table = members.sort_values("rank").join(texts, on="pair_id")
    view = table[["rank", "text", "ext_id", "system", "distance", "reference", "candidate"]]
    member_key = f"sum_members_{key}_{number}"
    event = show_table(
        view, hide_index=True, key=member_key, on_select="rerun", selection_mode="single-row",
        column_config={"text": st.column_config.TextColumn("explanation", width="large"),
                       "ext_id": st.column_config.TextColumn("pair"),
                       "distance": st.column_config.NumberColumn("distance", format="%.3f"),
                       "reference": st.column_config.TextColumn(width="large"),
                       "candidate": st.column_config.TextColumn(width="large")})
    changed, rows = _selection(event, member_key)
    if changed and rows:
        st.session_state["sum_member"] = int(view["rank"].iloc[rows[0]])
    rank = st.session_state.get("sum_member")
    pick = table[table["rank"] == rank] if rank is not None else table.head(0)
    if pick.empty:
        pick = table.head(1)
    pair = pick.iloc[0]
    download_csv(table.drop(columns=["is_largest"]), dataset, synthetic, f"cluster-{cat_of(members)}-{number}",
              f"sum_dl_members_{key}")
    st.caption(f"Pair {escape_md(pair['ext_id'])} (member {int(pair['rank'])}) — select another member above "
               "to open its pair. The judge's explanation:")
    st.text(pair["text"])
    show_reports(pair["reference"], pair["candidate"])


def cluster_sizes(clusters: pd.DataFrame) -> pd.DataFrame:
    """One row per (category, cluster): its size; clusters numbered from 1 (largest) within a category."""
    if clusters.empty:
        return pd.DataFrame(columns=["category", "cluster", "size"])
    sizes = clusters.groupby(["category", "cluster"], as_index=False)["size"].first()
    return sizes.assign(cluster=sizes["cluster"] + 1).sort_values(["category", "cluster"], ignore_index=True)


def draw_cluster_sizes(clusters: pd.DataFrame) -> None:
    """Stacked bars: per error category, the explanations in each cluster (largest at the bottom)."""
    sizes = cluster_sizes(clusters)
    if sizes.empty:
        return
    fig = go.Figure()
    for number, part in sizes.groupby("cluster"):
        fig.add_bar(x=[f"({c}) {CATEGORY_NAMES[c]}" for c in part["category"]], y=part["size"].tolist(),
                    name=f"cluster {number}", marker_color=OKABE_ITO[(number - 1) % len(OKABE_ITO)],
                    hovertemplate="%{x}<br>cluster " + str(number) + ": %{y} explanations<extra></extra>")
    fig.update_layout(barmode="stack", height=360, margin={"t": 40, "b": 10},
                      title="Cluster sizes per error category (cluster 1 = largest)",
                      xaxis_title="Error category", yaxis_title="Explanations (count)", legend_title="Cluster")
    st.plotly_chart(fig, key="sum_sizes_chart")


def draw_summary(store, dataset: str, synthetic: bool, judge: str, system: str | None, seed: int) -> None:
    with st.spinner("Clustering the explanations…"):
        summary = _summary(store, dataset, judge, system, seed)
    green, info = st.columns([1, 3])
    label = display_name(judge, summary.score_metric)
    green.metric(f"{label} (mean ± std)", _green_text(summary.green_mean, summary.green_std),
                 help=f"Mean and population standard deviation of the judge's {label} score, as GREEN Fig. 4")
    info.caption(
        f"{summary.green_n} {label} values over {summary.n_reports} reports"
        + (f" of system {escape_md(system)}" if system else "")
        + f" · embedding {escape_md(summary.embedding)}, k tried {summary.k_range[0]}-{summary.k_range[1]}, "
        f"seed {summary.seed}" + (" · synthetic data" if synthetic else ""))
    for note in summary.notes:
        info.caption(escape_md(note))
    show_table(summary.categories[CATEGORY_VIEW], hide_index=True, key="sum_categories",
                 column_config=CATEGORY_CONFIG)
    name = f"summary-{judge}" + (f"-{system}" if system else "")
    download_csv(summary.categories, dataset, synthetic, name, "sum_dl_categories")
    draw_cluster_sizes(summary.clusters)
    st.divider()
    draw_clusters(store, dataset, synthetic, summary, _view_key(dataset, judge, system, seed, data_version()))


def draw_compare(store, dataset: str, synthetic: bool, judge: str, systems: list[str], seed: int) -> None:
    if len(systems) < 2:
        st.info("Comparing needs pairs from at least two candidate systems; this dataset's pairs "
                f"name {len(systems)}. Import pairs with a system column (`--system-col`).",
                icon=":material/info:")
        return
    left, right = st.columns(2)
    a = left.selectbox("System A", systems, key="sum_a")
    b = right.selectbox("System B", systems, key="sum_b")
    set_url("a", a)
    set_url("b", b)
    if a == b:
        st.info("Pick two different systems.", icon=":material/info:")
        return
    with st.spinner("Clustering the explanations of both systems…"):
        table = _compare(store, dataset, judge, a, b, seed)
    for col, name in zip((left, right), (a, b), strict=True):
        part = table[table["system"] == name]
        head = part.iloc[0]
        with col:
            st.markdown(f"#### {escape_md(name)}")
            label = display_name(judge, head["score_metric"])
            st.metric(f"{label} (mean ± std)", _green_text(head["green_mean"], head["green_std"]))
            st.caption(f"{int(head['green_n'])} {label} values over {int(head['n_reports_system'])} reports · "
                       f"seed {int(head['seed'])}" + (" · synthetic data" if synthetic else ""))
            show_table(part[CATEGORY_VIEW], hide_index=True, key=f"sum_compare_{'ab'[name == b]}",
                         column_config=CATEGORY_CONFIG)
    download_csv(table, dataset, synthetic, f"summary-{judge}-{a}-vs-{b}", "sum_dl_compare")


def main() -> None:
    store, dataset, synthetic = page_start(
        "Summaries", empty="Import a dataset (or build the demo) to summarise a judge's error explanations.",
        intro="What a judge writes about the errors it finds, clustered per category as in GREEN's "
              "summary (Sec. 3.3, Fig. 4): how often each kind occurs, and its typical explanations.")
    _, _, _, runs = _inputs(store, dataset)
    if not runs:
        st.info(f"No judge runs on this dataset yet — {RUN_HINT.format(d=dataset)}.", icon=":material/info:")
        return
    judges = _summarisable(store, dataset)
    if not judges:
        st.info("No judge on this dataset wrote GREEN-format or CRIMSON answers (error counts, explanations and "
                f"a GREEN or CRIMSON score). Run one: {RUN_HINT.format(d=dataset)}, or an LLM judge with "
                "`--prompt green` or `--prompt crimson`.", icon=":material/info:")
        return
    systems = _systems(store, dataset)
    _seed_state(dataset, judges, systems)

    c1, c2, c3, c4 = st.columns([3, 2, 2, 1])
    judge = c1.selectbox("Judge", judges, key="sum_judge")
    mode = c2.radio("View", list(MODES), key="sum_mode", format_func=MODES.get, horizontal=True)
    system = None
    if mode == "summary":
        picked = c3.selectbox("Candidate system", [ALL_SYSTEMS, *systems], key="sum_system")
        system = None if picked == ALL_SYSTEMS else picked
    seed = int(c4.number_input("Seed", 0, 2**31 - 1, step=1, key="sum_seed",
                               help="Seed of the SVD and k-means (recorded with the summary)"))
    set_url("judge", judge)
    set_url("mode", None if mode == "summary" else mode)
    set_url("system", system if mode == "summary" else None)
    set_url("seed", None if seed == 0 else str(seed))
    if mode == "compare":
        set_url("cat", None)
        set_url("cluster", None)
        draw_compare(store, dataset, synthetic, judge, systems, seed)
    else:
        set_url("a", None)
        set_url("b", None)
        draw_summary(store, dataset, synthetic, judge, system, seed)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
