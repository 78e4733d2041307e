"""Edit review: how well does each judge review proposed edits of a preliminary report (RADAR)?

As ``python -m core review-eval``: accuracy of agreement, severity and edit
type, the composite score, for the Mixed set and the Natural subset, in the
shape of RADAR's Table 2, with the run time of each setting; the gold label
counts (Table 1b); confusion matrices per label for one run.

URL state: ``run`` (the run whose confusion matrices are shown), ``evalset``
(Mixed / Natural), ``annotator`` (whose gold labels).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.review.data import REVIEW_KIND, annotators, evaluation_frame, review_datasets
from core.review.labels import LABELS
from core.review.metrics import EVAL_SETS, accuracy_table, confusion, eval_subset, label_counts, radar_table
from ui.shared import (
    cached,
    download_csv,
    escape_md,
    load_datasets,
    page_start,
    set_url,
    show_table,
    url_value,
)

LABEL_TITLES = {"agreement": "Agreement", "severity": "Severity", "edit_type": "Edit type"}
# Sequential, colour-blind safe (blue to yellow, readable in greyscale).
HEATMAP_SCALE = "Cividis"


@cached
def _load(store, dataset: str, annotator: str | None):
    return evaluation_frame(store, dataset, annotator=annotator)


@cached
def _annotators(store, dataset: str) -> list[str]:
    return annotators(store, dataset)["annotator"].tolist()


@cached
def _review_datasets(store) -> list[str]:
    return review_datasets(store)


def confusion_figure(table: pd.DataFrame, title: str) -> go.Figure:
    """Gold (rows) x predicted (columns) counts, each cell labelled with its count."""
    z = table.to_numpy()
    fig = go.Figure(go.Heatmap(
        z=z, x=list(table.columns), y=list(table.index), colorscale=HEATMAP_SCALE, zmin=0,
        text=z, texttemplate="%{text}", colorbar={"title": {"text": "edits"}},
        hovertemplate="gold %{y} · predicted %{x}<br>%{z} edits<extra></extra>"))
    fig.update_layout(title=title, height=340, margin={"l": 10, "r": 10, "t": 50, "b": 10},
                      xaxis_title="Predicted label (judge)", yaxis_title="Gold label (expert)")
    fig.update_yaxes(autorange="reversed")
    return fig


def _run_label(runs: pd.DataFrame, run_id: str) -> str:
    row = runs.loc[runs["run_id"] == run_id].iloc[0]
    return f"{row['judge']} · {row['setting']}"


def draw(store, dataset: str, synthetic: bool) -> None:
    who_all = _annotators(store, dataset)
    if not who_all:
        st.info("This dataset has no gold labels (agreement, severity, edit type), so nothing can be scored. "
                f"Import them with `python -m core import-review FILE --dataset {dataset}` "
                "(layout in docs/REVIEW.md).", icon=":material/info:")
        return
    wanted = url_value("annotator")
    annotator = who_all[0]
    if len(who_all) > 1:
        annotator = st.selectbox("Gold labels of", who_all, index=who_all.index(wanted) if wanted in who_all else 0)
    set_url("annotator", annotator if annotator != who_all[0] else None)
    frame, runs, who = _load(store, dataset, annotator)
    if runs.empty:
        st.info("No judge has reviewed these edits yet. Run the offline baseline with the button below (no key, "
                f"nothing leaves the machine) or `python -m core judge --dataset {dataset} --judge rules`; "
                f"a model with sampled slices: `python -m core review-judge --dataset {dataset} --judge MODEL "
                "--slices 10`.", icon=":material/info:")
        if st.button("Run the rules baseline", key="rv_run_rules"):
            from core.judges import run_judge

            with st.spinner("Reviewing edits with the rules baseline"):
                run_judge(store, dataset=dataset, judge="rules")
            st.rerun()
        return

    acc = accuracy_table(frame)
    st.subheader("Results in the shape of RADAR Table 2")
    table = radar_table(acc, runs[["run_id", "seconds"]])
    show_table(table, hide_index=True, key="rv_table", column_config={
        **{c: st.column_config.NumberColumn(c, format="%.3f") for c in table.columns if c.split()[-1] in
           ("Agr", "Sev", "Typ", "Comp")},
        "Time (s)": st.column_config.NumberColumn("Time (s)", format="%.1f",
                                                  help="wall time of the run, first start to last finish"),
    })
    st.caption("Accuracy per label = exact matches / n; **Comp** (composite, RADAR sec. 5.2) counts an edit only "
               "when agreement matches and then severity and edit type both match. **Mixed** = all edits "
               "(natural and synthetic disagree edits), **Natural** = the natural subset; agreement on Natural is "
               "dominated by 'agree'. n = edits with gold labels that the run tried; an unanswered or unparsed "
               f"edit counts as wrong. Gold labels: {escape_md(who)}.")
    download_csv(table, dataset, synthetic, "review-table", "rv_dl_table")
    with st.expander("Counts behind every cell, and the lenient composite of the released evaluation script"):
        detail = acc.drop(columns=["run_id"])
        show_table(detail, hide_index=True, key="rv_detail")
        st.caption("composite_lenient counts 'agree' and 'partially agree' as the same agreement, as the "
                   "released RADAR evaluation script does; the paper's text (and Comp above) does not.")
        download_csv(detail, dataset, synthetic, "review-counts", "rv_dl_detail")

    st.subheader("Confusion matrices")
    run_ids = runs["run_id"].tolist()
    wanted_run = url_value("run")
    left, right = st.columns([3, 2])
    with left:
        run_id = st.selectbox("Run", run_ids, index=run_ids.index(wanted_run) if wanted_run in run_ids else 0,
                              format_func=lambda r: _run_label(runs, r), key="rv_run")
    with right:
        wanted_set = url_value("evalset")
        eval_set = st.radio("Edits", EVAL_SETS, horizontal=True, key="rv_set",
                            index=EVAL_SETS.index(wanted_set) if wanted_set in EVAL_SETS else 0)
    set_url("run", run_id if run_id != run_ids[0] else None)
    set_url("evalset", eval_set if eval_set != EVAL_SETS[0] else None)
    part = eval_subset(frame[frame["run_id"] == run_id], eval_set)
    st.caption(f"{escape_md(_run_label(runs, run_id))} · {eval_set} · n = {len(part)} edits")
    columns = st.columns(len(LABELS))
    for col, label in zip(columns, LABELS, strict=True):
        matrix = confusion(part, label)
        with col:
            st.plotly_chart(confusion_figure(matrix, LABEL_TITLES[label]), width="stretch", key=f"rv_cm_{label}")
            flat = matrix.reset_index().rename(columns={"gold": "gold \\ predicted"})
            download_csv(flat, dataset, synthetic, f"confusion-{label}-{eval_set.lower()}", f"rv_dl_cm_{label}")

    st.subheader("Gold labels (RADAR Table 1b)")
    counts = label_counts(frame[frame["run_id"] == run_ids[0]]) if len(frame) else pd.DataFrame()
    show_table(counts, hide_index=True, key="rv_counts")
    download_csv(counts, dataset, synthetic, "review-gold-counts", "rv_dl_counts")


def main() -> None:
    store, dataset, synthetic = page_start(
        "Edit review",
        empty="Build the demo (`python -m core demo`, which includes `demo-review`) or import edits with "
              "`python -m core import-review`.",
        intro="Does a judge agree with the expert on proposed edits of a preliminary report: is the edit "
              "supported (agreement), how much does it matter (severity), what kind of edit is it (edit type)? "
              "After RADAR (Sun et al.).")
    datasets = load_datasets(store)
    kind = datasets.loc[datasets["name"] == dataset, "kind"]
    if kind.empty or kind.iloc[0] != REVIEW_KIND:
        names = _review_datasets(store)
        where = (f"pick one in the sidebar ({', '.join(escape_md(n) for n in names)})" if names else
                 "build `demo-review` with `python -m core demo`, or import edits with "
                 "`python -m core import-review FILE --dataset NAME`")
        st.info(f"**{escape_md(dataset)}** is not an edit-review dataset. To review report edits, {where}.",
                icon=":material/info:")
        return
    draw(store, dataset, synthetic)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
