"""The Run page's job start and what it shows after a run (pages/run.py): the last job's results with
Resume and Retry failed, its failures by cause, and every run's time and cost."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

from core.jobs.launch import launch
from core.jobs.spec import JobSpec
from core.jobs.table import requeue, submit
from core.judges.batchstore import job_batch_texts
from core.judges.errors import causes_line, explain_error
from core.models import secret_api_key
from core.reads.failures import run_failures
from core.reads.runcost import cost_table, cost_text
from core.store.export import to_safe_csv
from ui.errors import show_error
from ui.jobs import SEEN_KEY, results_of
from ui.shared import cached, escape_md, show_table

ROOT = Path(__file__).resolve().parents[1]


# -- the work ---------------------------------------------------------------------------


def start(store, spec: JobSpec, models, secrets) -> None:
    """Record the job in the store and start its worker process; the job panel shows it from then on.

    The worker outlives this session (a refresh, a closed tab, a server restart): it is a
    ``python -m core worker JOB`` process of its own. Keys from Streamlit's secrets reach it through
    its environment only.
    """
    from ui.access import signed_in_identity

    keys = {m.name: secret_api_key(m, secrets) for m in models}
    job_id = submit(store, spec, origin="dashboard", started_by=signed_in_identity())
    launch(store, job_id, {k: v for k, v in keys.items() if v})
    st.session_state[SEEN_KEY] = None
    st.rerun()


def job_keys(models, secrets) -> dict[str, str]:
    keys = {m.name: secret_api_key(m, secrets) for m in models}
    return {k: v for k, v in keys.items() if v}


# -- after a run ------------------------------------------------------------------------


def _correlations_link() -> None:
    if not (ROOT / "pages" / "correlations.py").exists():
        st.caption("Open the Correlations page to see how these judges agree with the experts.")
        return
    if st.button("Open Correlations", key="run_to_correlations", icon=":material/insights:"):
        try:
            st.switch_page("pages/correlations.py")
        except StreamlitAPIException:  # the page file exists but is not registered in app.py yet
            st.caption("The Correlations page is not registered in this app yet.")


def _failures(store, results: list[dict]) -> pd.DataFrame:
    """The recorded failures of the job's runs, from the store."""
    runs = {r["run_id"]: r for r in results if r.get("run_id") and (r.get("failed_total") or 0) > 0}
    if not runs:
        return pd.DataFrame()
    df = run_failures(store, runs)
    cols = pd.DataFrame([{"run_id": k, **{c: v for c, v in r.items() if c in ("judge", "prompt", "temperature")}}
                         for k, r in runs.items()])
    return df.merge(cols, on="run_id").drop(columns="run_id")


def draw_results(store, job: dict, models, secrets, restricted: bool) -> None:
    st.markdown("#### Last run")
    results = results_of(job)
    spec = JobSpec.from_json(job["spec"])
    table_ = pd.DataFrame(results)
    ok = int(table_["ok"].fillna(0).sum()) if "ok" in table_ else 0
    failed = int(table_["failed_total"].fillna(0).sum()) if "failed_total" in table_ else 0
    unreadable = int(table_["unreadable"].fillna(0).sum()) if "unreadable" in table_ else 0
    pairs = spec.selection or f"{int(job['n_total'] or 0) // max(1, len(spec.tasks)):,} pairs"
    summary = (f"{ok:,} answered ({unreadable:,} of them unreadable as the prompt's format), {failed:,} failed "
               f"over {len(spec.tasks)} run(s) on {pairs} (dataset {escape_md(spec.dataset)}; job `{job['job_id']}`).")
    if job["state"] == "cancelled":
        st.warning("Cancelled: " + summary + " Answers received before the cancel are kept.")
    elif job["state"] == "failed":
        st.error("Stopped: " + summary + " " + escape_md(job.get("message") or ""))
    elif job["state"] == "partial":  # a task did not run (another job sent its prompts, a refused endpoint)
        st.warning("Partly done: " + summary + " " + escape_md(job.get("message") or ""))
    elif failed or unreadable:
        st.warning("Finished: " + summary)
    else:
        st.success("Finished: " + summary)
    batches = job_batch_texts(store, [job["job_id"]]).get(job["job_id"])
    if batches:  # a batch job: what its batch files did at the provider
        st.caption(escape_md(batches.capitalize()) + " (priced at the batch price).")
    if job["state"] in ("cancelled", "failed", "partial") and st.button("Resume", key=f"job_resume_{job['job_id']}",
                                                               icon=":material/play_arrow:"):
        requeue(store, job["job_id"])
        launch(store, job["job_id"], job_keys(models, secrets))
        st.session_state[SEEN_KEY] = None
        st.rerun()
    for r in results:
        if r.get("status") in ("refused", "error", "busy"):
            show_error(f"{r['judge']}: ", r["error"])
    if len(table_):
        show_table(table_, hide_index=True, key="run_results",
                   column_config={"cost_usd": st.column_config.NumberColumn("cost (USD)", format="%.4f")})
        st.download_button("Runs (CSV)", to_safe_csv(table_), file_name="runs.csv", mime="text/csv",
                           key="run_results_csv")
    failures = _failures(store, results)
    if len(failures):
        st.markdown("**Failures**")
        failures.insert(len(failures.columns) - 1, "reason", failures["error"].map(explain_error))
        st.caption("By cause: " + escape_md(causes_line(failures["error"])) + ".")
        for reason, count in failures["reason"].value_counts().items():
            st.caption(f"{count:,} pair(s): {escape_md(reason)}")
        show_table(failures, hide_index=True, key="run_failures",
                   column_config={"error": st.column_config.TextColumn("raw error")})
        st.download_button("Failures (CSV)", to_safe_csv(failures), file_name="failures.csv", mime="text/csv",
                           key="run_failures_csv")
    retry = [t for t, r in zip(spec.tasks, results, strict=False)
             if not t.offline and (r.get("failed_total") or 0) > 0]
    if retry and st.button(f"Retry failed ({failed:,})", key="run_retry", icon=":material/replay:"):
        start(store, spec.retry(retry, local_only=restricted), models, secrets)
    _correlations_link()


def draw_costs(store, dataset: str) -> None:
    """Every run of the dataset: time and cost from its recorded calls, beside the tau it bought."""
    table, target = _cost_table(store, dataset)
    if table.empty:
        return
    st.markdown("#### Time and cost per judge")
    st.caption("From each answer's recorded call time (offline judges: compute time per pair), not from "
               "timestamps; answers copied from the cache made no call. A cost is unknown when a price is missing "
               "from litellm's table, never shown as 0."
               + (f" τ: the best oriented Kendall τ of the run's metrics against the experts' {target}, no CI."
                  if target else " No expert annotations yet: no τ."))
    show = pd.DataFrame({
        "judge": table["judge"], "pairs answered": table["pairs"], "calls": table["calls"],
        "failed": table["failed"], "median ms / pair": table["ms_per_pair"].round(1),
        "tokens in": table["tokens_in"].astype("Int64"), "tokens out": table["tokens_out"].astype("Int64"),
        "cost": [cost_text(c, k) for c, k in zip(table["cost_usd"], table["cost_known"], strict=True)],
        "per 1,000 pairs": [cost_text(c, k) for c, k in zip(table["usd_per_1k_pairs"], table["cost_known"],
                                                           strict=True)],
        "τ": table["tau_oriented"].round(3), "metric": table["metric"], "n": table["n"].astype("Int64")})
    show_table(show, hide_index=True, key="run_costs")


@cached
def _cost_table(store, dataset: str):
    return cost_table(store, dataset)
