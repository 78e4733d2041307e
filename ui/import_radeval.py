"""The import wizard's RadEval part: RadEval's per-sample JSON and the pair ids in its order, as one run.

Not a page (app.py lists the pages): ui/import_wizard.py draws :func:`draw_radeval_import` when the
user imports judge outputs. RadEval's file is one JSON object, not a table, and its ids come in a second
file, so it has its own two uploaders; the import is one call of ``core.ingest.importers.radeval``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from core.ingest.importers import ImportValidationError, read_table
from core.ingest.importers.radeval import RADEVAL_METRICS, import_radeval
from core.store.db import Store, StoreError
from ui.shared import escape_md, show_table, switch_dataset_next_run

OUTCOME_KEY = "data_rv_outcome"
ID_TYPES = ["txt", "csv", "tsv", "jsonl", "ndjson", "parquet"]
ID_HINTS = ("id", "ext_id", "pair_id", "sample_id", "study_id")


def _id_column(uploaded) -> str | None:
    """For an ids table, the column picker (guessed from its name); a text file of ids needs none."""
    if Path(uploaded.name).suffix.lower() == ".txt":
        return None
    try:
        columns = [str(c) for c in read_table(uploaded.getvalue(), uploaded.name).columns]
    except ImportValidationError as exc:
        st.error("The ids file cannot be read:")
        st.code("\n".join(exc.problems), language=None, wrap_lines=True)
        return None
    guess = next((i for i, c in enumerate(columns) if c.lower() in ID_HINTS), 0)
    return st.selectbox("ID column of the ids file", columns, index=guess, key="data_rv_id_col")


def _show_outcome(token: str) -> None:
    outcome = st.session_state.get(OUTCOME_KEY)
    if not outcome or outcome["token"] != token:
        return
    if not outcome["ok"]:
        st.error(f"Nothing was imported: {len(outcome['problems'])} problem(s) found. Fix the files and import "
                 "again.")
        st.code("\n".join(outcome["problems"]), language=None, wrap_lines=True)  # verbatim, never Markdown
        return
    r = outcome["report"]
    st.success(f"Imported {r['pairs']:,} pairs x {len(r['metrics'])} metrics into dataset "
               f"**{escape_md(r['dataset'])}**: {r['added']:,} values added, {r['skipped']:,} skipped (already "
               "stored).")
    for warning in r["warnings"]:
        st.warning(escape_md(warning))
    show_table(pd.DataFrame({"metric": list(r["metrics"]), "orientation": list(r["metrics"].values())}),
               hide_index=True, key="data_rv_metrics")


def draw_radeval_import(store: Store, dataset_names: list[str], current: str | None) -> None:
    """Two uploaders, a judge name and a dataset, then one import (all or nothing)."""
    with st.expander("RadEval per-sample results (a JSON file and the pair ids in its order)"):
        st.caption("RadEval(metrics=[...], per_sample=True) returns one JSON object: metric name -> one number "
                   "per report, in the order of the references it was given. Every metric is imported at once, "
                   f"as one judge; the orientation of RadEval's {len(RADEVAL_METRICS)} per-sample metrics is "
                   "known (radcliq_v1, raw RadCliQ-v1 per report, is lower-is-better), any other name is "
                   "flagged as assumed higher-is-better.")
        results = st.file_uploader("RadEval results (JSON)", type=["json"], key="data_rv_results")
        ids = st.file_uploader("Pair ids in RadEval's order (a text file, one id per line, or a table)",
                               type=ID_TYPES, key="data_rv_ids")
        id_col = _id_column(ids) if ids is not None else None
        judge = st.text_input("Judge name", value="radeval", key="data_rv_judge")
        names = list(dataset_names)
        dataset = st.selectbox("Dataset", names, index=names.index(current) if current in names else 0,
                               key="data_rv_dataset") if names else None
        if not names:
            st.caption("Import the dataset's pairs first: RadEval's ids must be pairs of a dataset.")
        token = f"{getattr(results, 'file_id', '')}:{getattr(ids, 'file_id', '')}"
        ready = results is not None and ids is not None and bool(dataset)
        if st.button("Validate and import RadEval results", key="data_rv_go", disabled=not ready):
            outcome: dict = {"token": token, "ok": False}
            try:
                report = import_radeval(store, results.getvalue(), ids.getvalue(), dataset=dataset, judge=judge,
                                        id_col=id_col, results_name=results.name, ids_name=ids.name)
            except ImportValidationError as exc:
                st.session_state[OUTCOME_KEY] = {**outcome, "problems": exc.problems}
            except StoreError as exc:  # e.g. the store stayed locked by a CLI job
                st.session_state[OUTCOME_KEY] = {**outcome, "problems": [str(exc)]}
            else:
                st.session_state[OUTCOME_KEY] = {**outcome, "ok": True, "report": report.to_json()}
                switch_dataset_next_run(report.dataset)
                st.rerun()  # every table above was drawn from the store before the import
        _show_outcome(token)
