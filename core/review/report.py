"""The HTML report's "Edit review" section (for ``edit_review`` datasets), every text escaped.

Tables only (no scripts, so the report's Content-Security-Policy is unchanged):
the RADAR Table 2 shape, the counts behind it, confusion matrices per run on
the Mixed set, and the gold label counts.
"""

from __future__ import annotations

import html
import math

import pandas as pd

from core.review.data import REVIEW_KIND, dataset_kind, evaluation_frame
from core.review.labels import LABELS
from core.review.metrics import accuracy_table, confusion, label_counts, radar_table
from core.store.db import Store
from core.taxonomy import MISSING

ANCHOR = '<section id="methods">'


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return MISSING if math.isnan(value) else f"{value:.3f}"
    return _e(value)


def _table(frame: pd.DataFrame, index: bool = False) -> str:
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = ""
    for idx, row in frame.iterrows():
        cells = ([f"<th>{_e(idx)}</th>"] if index else []) + [f"<td>{_cell(v)}</td>" for v in row.tolist()]
        body += "<tr>" + "".join(cells) + "</tr>"
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def review_section(store: Store, dataset: str) -> str:
    """The section's HTML, or "" when ``dataset`` is not an edit_review dataset."""
    if dataset_kind(store, dataset) != REVIEW_KIND:
        return ""
    frame, runs, who = evaluation_frame(store, dataset)
    intro = ("<p>Each candidate edit of a preliminary report was reviewed by the judges below, who predicted "
             "three labels: <b>agreement</b> (is the edit supported: agree, partially agree, disagree), "
             "<b>severity</b> of the discrepancy (critical, moderate, negligible) and <b>edit type</b> "
             "(correction, addition, clarification), after RADAR (Sun et al.). Accuracy = exact matches with the "
             "expert / n; the composite score counts an edit only when agreement matches and then severity and "
             "edit type both match (RADAR sec. 5.2). <b>Mixed</b> = all edits, <b>Natural</b> = real revisions "
             "only (without the synthetic disagree edits). An unanswered edit counts as wrong.</p>")
    if runs.empty:
        body = (f"<p class='empty'>No judge has reviewed these edits yet: run <code>python -m core judge "
                f"--dataset {_e(dataset)} --judge rules</code>.</p>")
        return f"<section id='edit-review'><h2>Edit review</h2>{intro}{body}</section>"
    acc = accuracy_table(frame)
    table = radar_table(acc, runs[["run_id", "seconds"]])
    parts = [intro, f"<p>Gold labels: {_e(who)}.</p>", "<h3>Results (RADAR Table 2 shape)</h3>", _table(table)]
    counts = acc[["judge", "setting", "eval_set", "n", "n_answered", "agreement_correct", "severity_correct",
                  "edit_type_correct", "composite_correct", "composite_lenient"]]
    parts += ["<h3>Counts behind the table</h3>", _table(counts),
              "<p class='legend'>composite_lenient treats agree and partially agree as the same agreement, as "
              "the released RADAR evaluation script does; the paper's definition (Comp) does not.</p>"]
    parts.append("<h3>Confusion matrices (Mixed; rows: expert, columns: judge)</h3>")
    for run in runs.itertuples(index=False):
        mine = frame[frame["run_id"] == run.run_id]
        parts.append(f"<h4>{_e(run.judge)} · {_e(run.setting)} (n = {len(mine)})</h4>")
        for label in LABELS:
            parts.append(f"<p>{_e(label.replace('_', ' '))}</p>" + _table(confusion(mine, label), index=True))
    first = frame[frame["run_id"] == runs["run_id"].iloc[0]]
    parts += ["<h3>Gold labels (RADAR Table 1b shape)</h3>", _table(label_counts(first))]
    return "<section id='edit-review'><h2>Edit review</h2>" + "".join(parts) + "</section>"


def with_review_section(store: Store, dataset: str, document: str) -> str:
    """``document`` with the section inserted before the methods section (unchanged for other kinds)."""
    section = review_section(store, dataset)
    if not section or ANCHOR not in document:
        return document
    return document.replace(ANCHOR, section + "\n" + ANCHOR, 1)
