"""Judge jobs on the dashboard: the sidebar indicator every page shows, and the Run page's job panel.

Everything here reads the store's ``jobs`` table (core.jobs.table), never the session: after a
refresh, in a second tab, in another browser or after the server restarts, the same jobs show the
same numbers. Jobs run in worker processes (core.jobs.launch), so closing the tab stops nothing;
Cancel and Resume act on the store (and signal the worker on this host).
"""

from __future__ import annotations

import json
import math

import pandas as pd
import streamlit as st

from core.jobs import table
from core.jobs.eta import starting_text
from core.jobs.launch import launch, signal_cancel
from core.judges.batchstore import job_batch_texts
from core.store.db import Store, StoreError
from core.taxonomy import is_missing
from ui.shared import escape_md

POLL_SECONDS = 1.0
SEEN_KEY = "jobs_active_seen"  # the active job ids at the last poll: a change reruns the page


def _cost(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "cost unknown"
    return f"${value:,.4f}"


def progress_text(job: dict) -> str:
    done, total = int(job["n_done"] or 0), int(job["n_total"] or 0)
    if done == 0 and job.get("state") in table.ACTIVE:  # nothing answered yet: say what it is doing, not 0 / 0
        parts = [starting_text(table.any_model(job))] + ([f"{total:,} answers to come"] if total else [])
        return " · ".join(parts + ([str(job["task"])] if job.get("task") else []))
    eta = table.eta_seconds(job)
    parts = [f"{done:,} / {total:,} answers", f"ok {int(job['n_ok'] or 0):,}", f"failed {int(job['n_failed'] or 0):,}",
             f"sent {int(job['n_sent'] or 0):,}", _cost(job["cost_usd"])]
    if eta is not None:
        parts.append(f"ETA about {eta:,.0f} s")
    if job.get("task"):
        parts.append(str(job["task"]))
    return " · ".join(parts)


def jobs_indicator(store: Store) -> None:
    """One line in the sidebar while jobs run (or wait to be resumed), on every page."""
    try:
        running, interrupted, partial = table.active_count(store)
    except StoreError:
        return
    if running:
        st.sidebar.caption(f":material/progress_activity: {running} judge job(s) running — see Run judges")
    if interrupted:
        st.sidebar.caption(f":material/warning: {interrupted} judge job(s) interrupted — resume on Run judges")
    if partial:
        st.sidebar.caption(f":material/warning: {partial} judge job(s) partial (some tasks did not run) — "
                           "resume on Run judges")


def _cancel(store: Store, job: dict) -> None:
    job = table.request_cancel(store, job["job_id"])
    signal_cancel(job)


def _resume(store: Store, job_id: str, keys: dict[str, str]) -> None:
    table.requeue(store, job_id)
    launch(store, job_id, keys)


def _draw_job(store: Store, job: dict, keys: dict[str, str], batches: str = "") -> None:
    job_id = job["job_id"]
    state = job["state"]
    who = "" if is_missing(job.get("started_by")) else f" by {escape_md(job['started_by'])}"
    st.markdown(f"**{escape_md(job['label'])}** · {state} · `{job_id}`{who} (from the {job['origin']})")
    total = int(job["n_total"] or 0)
    st.progress(min(1.0, (job["n_done"] or 0) / total) if total else 0.0, text=progress_text(job))
    if batches:  # judge --batch / "Batch (cheaper, slower)": the provider's state of each batch file
        st.caption(escape_md(batches.capitalize()))
    if state in table.ACTIVE:
        if job.get("cancel_requested"):
            st.caption("Cancelling: no new call is sent; answers already received are kept.")
        elif st.button("Cancel", key=f"job_cancel_{job_id}", icon=":material/stop_circle:"):
            _cancel(store, job)
            st.rerun()
    elif state == "interrupted" or state in RESUMABLE:
        if state == "interrupted":
            st.warning("Interrupted: its process is gone (killed, or the machine restarted). Resume finishes it: "
                       "answers already received are stored without being paid again.", icon=":material/warning:")
        else:  # partial or failed: the message names the tasks that did not run and why
            what = "Partly done" if state == "partial" else "Failed"
            st.warning(f"{what}: {escape_md(job.get('message') or 'no reason recorded')}", icon=":material/warning:")
        if st.button("Resume", key=f"job_resume_{job_id}", icon=":material/play_arrow:"):
            _resume(store, job_id, keys)
            st.rerun()


RESUMABLE = ("partial", "failed")  # finished jobs the panel lists with Resume (besides the interrupted ones)


def live_jobs(store: Store, dataset: str, skip: str = "") -> pd.DataFrame:
    """The dataset's jobs among its 20 newest that run, or wait for a Resume (interrupted, partial, failed);
    ``skip``: a job id the page shows elsewhere (the newest finished job, with its results and Resume)."""
    jobs = table.list_jobs(store, dataset=dataset, limit=20)
    if not len(jobs):
        return jobs
    return jobs[jobs["state"].isin([*table.ACTIVE, "interrupted", *RESUMABLE]) & (jobs["job_id"] != skip)]


@st.fragment(run_every=POLL_SECONDS)
def job_panel(store: Store, dataset: str, keys: dict[str, str], skip: str = "") -> None:
    """The dataset's running jobs and those waiting for a Resume, polled from the store; when one ends, the
    page reruns."""
    jobs = live_jobs(store, dataset, skip)
    active = sorted(jobs.loc[jobs["state"].isin(table.ACTIVE), "job_id"]) if len(jobs) else []
    seen = st.session_state.get(SEEN_KEY)
    st.session_state[SEEN_KEY] = active
    if seen is not None and set(seen) - set(active):  # a job ended: show its results with the whole page
        st.rerun(scope="app")
    texts = job_batch_texts(store, jobs["job_id"].tolist()) if len(jobs) else {}
    for job in jobs.to_dict("records"):
        _draw_job(store, job, keys, texts.get(job["job_id"], ""))


def last_finished(store: Store, dataset: str) -> dict | None:
    jobs = table.list_jobs(store, dataset=dataset, limit=20)
    done = jobs[jobs["state"].isin(("done", "partial", "cancelled", "failed"))] if len(jobs) else jobs
    return done.iloc[0].to_dict() if len(done) else None


def results_of(job: dict) -> list[dict]:
    try:
        return json.loads(job.get("results") or "[]")
    except ValueError:
        return []
