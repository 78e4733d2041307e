"""Data: the datasets in the store, a pair browser and the import wizard.

The view lives in the URL so a copied link reproduces it: ``dataset`` (kept by
app.py), ``modality`` / ``anatomy`` / ``system`` / ``split`` (repeatable),
``q`` (text search), ``page`` and ``pair`` (the open pair).
"""

from __future__ import annotations

import hashlib
import math

import pandas as pd
import streamlit as st

from core.access import CHANGE_DATA
from core.reads.queries import FACETS, counts_by_category
from core.store.datasets import delete_dataset, restore_dataset
from core.store.db import StoreError
from ui.access import current_role, may
from ui.context import show_context
from ui.import_wizard import draw_import_wizard
from ui.shared import (
    escape_md,
    load_annotation_summary,
    load_datasets,
    load_facets,
    load_pair,
    load_pairs,
    page_start,
    seed_facet_filters,
    set_url,
    show_reports,
    show_table,
    switch_dataset_next_run,
    url_value,
)

PAGE_SIZES = (25, 50, 100, 200)
FILTER_KEYS = {facet: f"data_{facet}" for facet in FACETS}


# -- datasets ------------------------------------------------------------------


def draw_datasets(datasets: pd.DataFrame) -> None:
    view = datasets.copy()
    # Synthetic data is labelled wherever it is shown (DESIGN.md, conventions).
    view.insert(1, "origin", view.pop("synthetic").map({True: "synthetic", False: "imported"}))
    show_table(
        view,
        hide_index=True,
        key="data_datasets",
        column_config={
            "name": st.column_config.TextColumn("dataset"),
            "origin": st.column_config.TextColumn(
                help="synthetic: generated with errors injected by construction"
            ),
            "created_at": st.column_config.DatetimeColumn("created", format="YYYY-MM-DD HH:mm"),
        },
    )


# -- delete with undo ----------------------------------------------------------------
# The rows move to the store's trash (core.store.datasets); "Undo" moves them back. The
# last deletion of this session stays undoable here; `python -m core trash` lists all.


def _delete_clicked(store, name: str) -> None:
    # A button callback: runs before the rerun, so the confirm box may be cleared.
    st.session_state["data_delete_confirm"] = ""
    try:
        st.session_state["data_deleted"] = delete_dataset(store, name).to_json()
    except (ValueError, StoreError) as exc:
        st.session_state["data_delete_error"] = str(exc)


def _undo_clicked(store, batch_id: str) -> None:
    try:
        record = restore_dataset(store, batch_id)
    except (ValueError, StoreError) as exc:
        st.session_state["data_delete_error"] = str(exc)
        return
    st.session_state.pop("data_deleted", None)
    st.session_state["data_restored"] = record.dataset
    switch_dataset_next_run(record.dataset)


def draw_delete_dataset(store, datasets: pd.DataFrame, dataset: str | None) -> None:
    """The notice + Undo after a deletion, and the delete control (type the name to confirm)."""
    if error := st.session_state.pop("data_delete_error", None):
        st.error(f"Nothing changed: {escape_md(error)}")
    if restored := st.session_state.pop("data_restored", None):
        st.success(f"Restored dataset **{escape_md(restored)}** from the trash.")
    deleted = st.session_state.get("data_deleted")
    if deleted:
        counts = deleted["counts"]
        notice, undo, dismiss = st.columns([6, 1, 1], vertical_alignment="center")
        notice.warning(f"Deleted dataset **{escape_md(deleted['dataset'])}**: {counts['pairs']:,} pairs, "
                       f"{counts['annotations']:,} annotations and {counts['judge_runs']:,} judge runs moved to "
                       "the trash.", icon=":material/delete:")
        undo.button("Undo", key="data_undo", icon=":material/undo:", on_click=_undo_clicked,
                    args=(store, deleted["batch_id"]))
        if dismiss.button("Dismiss", key="data_undo_dismiss", type="tertiary"):
            st.session_state.pop("data_deleted", None)
            st.rerun()
    if dataset is None or dataset not in set(datasets["name"]):
        return
    row = datasets.loc[datasets["name"] == dataset].iloc[0]
    with st.expander(f"Delete dataset {escape_md(dataset)}", icon=":material/delete:"):
        st.markdown(f"Moves **{escape_md(dataset)}** with its {row['pairs']:,} pairs, {row['annotations']:,} "
                    f"annotations and {row['runs']:,} judge runs to the trash. You can undo it right after.")
        typed = st.text_input("Type the dataset name to confirm", key="data_delete_confirm",
                              placeholder=dataset)
        st.button("Delete dataset", key="data_delete", type="primary", icon=":material/delete:",
                  disabled=typed.strip() != dataset, on_click=_delete_clicked, args=(store, dataset))


# -- pair browser ----------------------------------------------------------------


def _seed_view(dataset: str, facets: dict[str, list[str]]) -> None:
    """Fill the filter widgets' state before they are drawn.

    A key still missing (first visit, or back from another page) is seeded
    from the URL, so a shared link opens the same view; switching dataset
    starts from a clean view, since the old filters name the old dataset's values.
    """
    first_visit, switched = seed_facet_filters("data_view_dataset", dataset, facets, FILTER_KEYS)
    if switched:
        st.session_state["data_q"], st.session_state["data_pair"] = "", None
        return
    st.session_state.setdefault("data_q", url_value("q", ""))
    st.session_state.setdefault("data_pair", url_value("pair"))
    if first_visit:
        page = url_value("page", "1")
        st.session_state["data_page_start"] = int(page) if page.isdigit() and int(page) > 0 else 1


def _filter_widgets(facets: dict[str, list[str]]) -> tuple[dict[str, list[str]], str]:
    cols = st.columns(len(FACETS))
    filters = {}
    for col, (facet, key) in zip(cols, FILTER_KEYS.items(), strict=True):
        with col:
            filters[facet] = st.multiselect(
                facet.capitalize(), facets[facet], key=key, placeholder="all",
                disabled=not facets[facet],
            )
    search, size = st.columns([4, 1])
    with search:
        text = st.text_input(
            "Search reports", key="data_q", placeholder="text in the reference or candidate, or a pair id",
        )
    with size:
        st.selectbox("Rows per page", PAGE_SIZES, index=1, key="data_page_size")
    return filters, text.strip()


def _pairs_view(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.rename(columns={"ext_id": "id", "group_id": "group"})


def draw_pair_browser(store, dataset: str) -> str | None:
    """Filters, one page of pairs and the row selection; returns the open pair id."""
    facets = load_facets(store, dataset)
    _seed_view(dataset, facets)
    filters, text = _filter_widgets(facets)
    size = int(st.session_state["data_page_size"])

    # The pager and table keys carry the view: a new filter, search or page size
    # starts again at page 1 with no row selected.
    view = hashlib.sha1(repr((dataset, sorted(filters.items()), text, size)).encode()).hexdigest()[:10]
    pager_key = f"data_page_{view}"
    start = st.session_state.pop("data_page_start", 1)  # a shared URL's page, used once
    page = int(st.session_state.get(pager_key) or start)
    frame, total = load_pairs(store, dataset, filters, text, limit=size, offset=(page - 1) * size)
    n_pages = max(1, math.ceil(total / size))
    if page > n_pages:  # a link to a page past the end
        page = n_pages
        frame, total = load_pairs(store, dataset, filters, text, limit=size, offset=(page - 1) * size)

    first = (page - 1) * size + 1
    if total:
        last = first + len(frame) - 1
        st.caption(f"showing {first:,}-{last:,} of {total:,} pairs · select a row to open it")
    else:
        st.caption("no pairs match these filters")

    table_key = f"data_pairs_{view}_{page}"
    event = show_table(
        _pairs_view(frame),
        key=table_key,
        on_select="rerun",
        selection_mode="single-row",
        hide_index=True,
        column_order=["id", "system", "modality", "anatomy", "split", "group", "annotators",
                      "reference", "candidate"],
        column_config={
            "reference": st.column_config.TextColumn(width="large"),
            "candidate": st.column_config.TextColumn(width="large"),
        },
    )
    st.pagination(n_pages, default=page, key=pager_key, max_visible_pages=7)

    rows = list(event.selection.rows)
    previous = st.session_state.get("data_pairs_selection")
    if rows:
        st.session_state["data_pair"] = str(frame["pair_id"].iloc[rows[0]])
    elif previous and previous[0] == table_key and previous[1]:
        st.session_state["data_pair"] = None  # the user cleared the selection
    st.session_state["data_pairs_selection"] = (table_key, rows)

    for facet in FACETS:
        set_url(facet, filters[facet])
    set_url("q", text)
    set_url("page", str(page) if page > 1 else None)
    return st.session_state.get("data_pair")


# -- pair detail -------------------------------------------------------------------


def draw_pair_detail(store, pair: dict) -> None:
    st.subheader(f"Pair {escape_md(pair['ext_id'])}")
    if pair["synthetic"]:
        st.badge("synthetic pair", icon=":material/science:", color="orange")
    show_context(pair["context"], empty="No patient context stored for this pair (import it with the pairs: "
                                        "age, sex, indication, comparison/history columns).")
    show_reports(pair["reference"], pair["candidate"])

    fields = {
        "pair id": pair["pair_id"],
        "group": pair["group_id"],
        "system": pair["system"],
        "modality": pair["modality"],
        "anatomy": pair["anatomy"],
        "split": pair["split"],
        **{f"meta: {k}": v for k, v in pair["meta"].items()},
    }
    meta = pd.DataFrame(
        {"field": list(fields), "value": ["" if v is None else str(v) for v in fields.values()]}
    )

    summary = load_annotation_summary(store, pair["pair_id"], role=current_role())  # no blinded rating for a viewer
    info, notes = st.columns([2, 3])
    with info:
        st.markdown("**Metadata**")
        show_table(meta, hide_index=True, key="data_pair_meta")
    with notes:
        st.markdown("**Expert annotations**")
        if summary.empty:
            st.caption("No expert annotations for this pair.")
            return
        scored = summary[summary["score"].notna()]
        if len(scored):
            cols = st.columns(min(len(scored), 4))
            for i, (_, row) in enumerate(scored.iterrows()):
                scale = f" / {row['scale_max']:g}" if pd.notna(row["scale_max"]) else ""
                label = f"{escape_md(row['annotator'])}: overall score"
                cols[i % len(cols)].metric(label, f"{row['score']:g}{scale}")
        counts = counts_by_category(summary)
        if len(counts.columns) > 2:
            st.caption("Errors per category, clinically significant (sig) and insignificant (insig)")
            count_cols = {
                c: st.column_config.NumberColumn(c, format="%d", width="small") for c in counts.columns[2:]
            }
            show_table(
                counts, hide_index=True, key="data_pair_counts",
                column_config={"category": st.column_config.TextColumn(width="small"), **count_cols},
            )


# -- the page ----------------------------------------------------------------------

def main() -> None:
    store, dataset, _ = page_start("Data")
    datasets = load_datasets(store)
    st.markdown("#### Datasets")
    if datasets.empty:
        st.caption("The store holds no datasets yet.")
    else:
        draw_datasets(datasets)
    researcher = may(CHANGE_DATA)  # viewers of a team deployment browse only (core/access.py)
    if researcher:
        draw_delete_dataset(store, datasets, dataset)
    tabs = ["Browse pairs", "Import data"] if researcher else ["Browse pairs"]
    browse, *upload = st.tabs(tabs, default="Import data" if datasets.empty and researcher else None)
    with browse:
        if dataset is None:
            st.caption("Import a dataset (or build the demo) to browse its pairs.")
        else:
            pair_id = draw_pair_browser(store, dataset)
            pair = load_pair(store, pair_id) if pair_id else None
            if pair is not None and pair["dataset"] == dataset:
                set_url("pair", pair_id)
                st.divider()
                draw_pair_detail(store, pair)
            else:
                set_url("pair", None)
    if upload:
        with upload[0]:
            draw_import_wizard(store, datasets["name"].tolist(), dataset)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
