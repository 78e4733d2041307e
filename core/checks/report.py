"""The HTML report's "Deterministic checks" section, when a dataset has checks runs; every text escaped.

Tables only (no scripts: the report's Content-Security-Policy is unchanged):
per locale, the mean score per dimension, the verdict counts, the most frequent
failing checks, and the candidate systems ranked within their comparable-key
group. Inserted before the methods section like the other optional sections.
"""

from __future__ import annotations

import html
import math

import pandas as pd

from core.checks.registry import DIMENSION_NAMES
from core.checks.store import (
    case_results,
    checks_runs,
    default_llm_phase,
    dimension_summary,
    failing_checks,
    llm_phase_runs,
    verdict_counts,
)
from core.store.db import Store

ANCHOR = '<section id="methods">'
TOP_FAILING = 10


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return _e(value)


def _table(frame: pd.DataFrame, columns: dict[str, str]) -> str:
    head = "".join(f"<th>{_e(label)}</th>" for label in columns.values())
    body = "".join("<tr>" + "".join(f"<td>{_cell(row[c])}</td>" for c in columns) + "</tr>"
                   for row in frame.to_dict("records"))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def checks_section(store: Store, dataset: str) -> str:
    """The section's HTML, or "" when the dataset has no checks run."""
    from core.reads.leaderboard import systems_leaderboard

    runs = checks_runs(store, dataset)
    if runs.empty:
        return ""
    parts = ["<section id='checks'><h2>Deterministic checks (LAIas Bench)</h2>",
             "<p>Rule-based checks of each candidate report against its reference, scored 1-5 in five dimensions "
             "with severity caps and weighted (CRIT 0.30, QUAL 0.25, TERM 0.20, GUIDE 0.15, RAG 0.10). With an LLM "
             "judge's scores, each dimension is the minimum of both; without, a result is <em>degraded</em> and "
             "can be PARTIAL at best.</p>"]
    board = systems_leaderboard(store, dataset)
    for run in runs.drop_duplicates("locale").itertuples(index=False):
        llm = llm_phase_runs(store, dataset, run.locale)
        llm_run, note = default_llm_phase(store, dataset, run.locale)
        cases = case_results(store, dataset, run.run_id, llm_run)
        dims = dimension_summary(cases)
        dims["name"] = dims["dimension"].map(lambda d: DIMENSION_NAMES.get(d, "weighted overall"))
        model = llm.loc[llm["run_id"] == llm_run, "model"].iloc[0] if llm_run else None
        phase = (f"LLM phase: run {llm_run} ({model}; {note})." if llm_run else
                 f"No LLM phase ({note}): every result is degraded.")
        parts.append(f"<h3>Locale {_e(run.locale)}</h3><p class='note'>Checks run {_e(run.run_id)} over "
                     f"{len(cases):,} pairs. {_e(phase)}</p>")
        parts.append(_table(dims, {"dimension": "Dimension", "name": "Meaning", "mean_score": "Mean score (1-5)",
                                   "n": "n scored", "n_unscored": "n unscored"}))
        parts.append(_table(verdict_counts(cases), {"verdict": "Verdict", "n": "Pairs", "share": "Share"}))
        failing = failing_checks(store, run.run_id).head(TOP_FAILING)
        if failing.empty:
            parts.append("<p class='empty'>No check failed.</p>")
        else:
            parts.append(_table(failing, {"check_id": "Check", "dimension": "Dimension", "severity": "Severity",
                                          "message": "What it checks", "n_pairs": "Pairs failing",
                                          "n_checked": "Pairs checked"}))
        mine = board[board["run_id"].isin([run.run_id, llm_run])]
        for group, part in mine.groupby("group", sort=False):
            parts.append(f"<p class='note'>Candidate systems by {_e(part['metric'].iloc[0])} "
                         f"(group {_e(group)}: ranked only against runs with the same comparable key)</p>")
            parts.append(_table(part, {"rank": "Rank", "system": "System", "n": "n", "score": "Mean score",
                                       "relaxed_pass_rate": "Not FAIL", "cost_usd": "Judge cost (USD)"}))
    parts.append("</section>")
    return "".join(parts)


def with_checks_section(store: Store, dataset: str, document: str) -> str:
    """``document`` with the section inserted before the methods section (unchanged without checks runs)."""
    section = checks_section(store, dataset)
    if not section or ANCHOR not in document:
        return document
    return document.replace(ANCHOR, section + "\n" + ANCHOR, 1)
