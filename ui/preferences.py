"""The Correlations page's preference section: GREEN Fig. 6 (core/ingest/comparisons.py, core/analysis/preference.py).

Shown only when the dataset holds pairwise expert preferences; a table of each judge's accuracy at
picking the expert-preferred candidate (with its Wilson 95% CI and n) and a labelled chart of that
accuracy by the experts' confidence, with SVG, PDF and CSV downloads beside it (ui/downloads.py).
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from core.analysis.naming import display_name
from core.paper.figures_agreement import preference_figure
from core.reads.preferences import dataset_preference_accuracy, has_preferences
from core.store.db import Store
from ui.downloads import figure_downloads
from ui.shared import (
    OKABE_ITO,
    cached,
    escape_md,
    show_table,
)


@cached
def _accuracy(store: Store, dataset: str):
    if not has_preferences(store, dataset):
        return None
    return dataset_preference_accuracy(store, dataset)


def _label(judge: str, metric: str) -> str:
    return display_name(judge, metric, with_judge=True)


def draw_preferences(store: Store, dataset: str, top: int = 6, *, synthetic: bool = False) -> None:
    found = _accuracy(store, dataset)
    if found is None:
        return
    table, used = found
    overall = table[table["scope"] == "overall"].sort_values("accuracy", ascending=False)
    st.markdown("#### Preference accuracy (GREEN Fig. 6)")
    st.caption(f"How often each judge's score prefers the candidate the expert preferred: "
               f"{used['n_comparisons']:,} comparisons of two candidates of one case "
               f"({escape_md('; '.join(used['sources']) or 'imported')}); a judge scoring both alike counts half; "
               "95% Wilson intervals. Same numbers: `python -m core preference --dataset "
               f"{escape_md(dataset)}`.")
    shown = overall.assign(series=[_label(j, m) for j, m in zip(overall["judge"], overall["metric"], strict=True)])
    show_table(shown[["series", "accuracy", "ci_low", "ci_high", "n", "n_ties", "n_missing"]], hide_index=True,
                 key="corr_pref_table", column_config={
                     "series": "judge · metric",
                     **{c: st.column_config.NumberColumn(format="%.3f") for c in ("accuracy", "ci_low", "ci_high")},
                     "n": st.column_config.NumberColumn(help="comparisons with an expert preference and both scores"),
                 })
    levels = table[table["scope"] == "level"]
    if levels.empty:
        st.caption("No confidence was recorded with these comparisons, so there is no accuracy by confidence.")
        return
    fig = go.Figure()
    for i, (judge, metric) in enumerate(zip(overall["judge"][:top], overall["metric"][:top], strict=True)):
        part = levels[(levels["judge"] == judge) & (levels["metric"] == metric)].sort_values("confidence")
        fig.add_trace(go.Scatter(
            x=part["confidence"], y=part["accuracy"], mode="lines+markers", name=_label(judge, metric),
            line={"color": OKABE_ITO[i % len(OKABE_ITO)]},
            error_y={"type": "data", "symmetric": False, "array": part["ci_high"] - part["accuracy"],
                     "arrayminus": part["accuracy"] - part["ci_low"], "thickness": 1},
            customdata=part[["n"]].to_numpy(),
            hovertemplate="%{fullData.name}<br>confidence %{x}<br>accuracy %{y:.3f}<br>n = %{customdata[0]}"
                          "<extra></extra>"))
    fig.update_layout(title=f"Accuracy by expert confidence (the {min(top, len(overall))} most accurate)",
                      xaxis_title="expert confidence (1-10)", yaxis_title="accuracy (share of comparisons)",
                      yaxis_range=[0, 1.05], height=380, legend={"orientation": "h", "y": -0.3},
                      margin={"t": 50, "b": 40})
    st.plotly_chart(fig, width="stretch", key="corr_pref_chart")
    figure_downloads(lambda: preference_figure(table, top, dataset=dataset, synthetic=synthetic),
                     name="preference-by-confidence", key="corr_dl_fig_pref", dataset=dataset, synthetic=synthetic)
