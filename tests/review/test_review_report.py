"""The HTML report's Edit review section: present for edit_review datasets only, numbers from core, text escaped."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from core.judges import run_judge
from core.report import build_report
from core.review.data import evaluation_frame
from core.review.importer import import_review
from core.review.metrics import accuracy_table
from core.review.report import review_section
from core.store.db import Store

HOSTILE = "<script>alert('x')</script>"


def test_report_of_an_edit_review_dataset_has_the_section_with_core_numbers_and_escaped_text(tmp_path: Path):
    store = Store(tmp_path / "s.duckdb")
    rows = [{"id": f"e{i}", "case": "c", "preliminary": "FINDINGS: normal.", "edit": f"Free air {HOSTILE} {i}.",
             "agreement": "agree", "severity": "critical", "edit_type": "addition",
             "subset": "natural" if i < 3 else "synthetic"} for i in range(5)]
    f = tmp_path / "e.csv"
    pd.DataFrame(rows).to_csv(f, index=False)
    import_review(store, f, dataset="rv", annotator=HOSTILE)
    empty = review_section(store, "rv")
    assert "No judge has reviewed these edits yet" in empty

    run_judge(store, dataset="rv", judge="rules")
    document = build_report(store, "rv", n_boot=50)
    assert "<section id='edit-review'><h2>Edit review</h2>" in document
    assert document.index("id='edit-review'") < document.index('<section id="methods">')
    assert HOSTILE not in document and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in document
    frame, _, _ = evaluation_frame(store, "rv")
    acc = accuracy_table(frame).set_index("eval_set")
    section = review_section(store, "rv")
    for eval_set in ("Mixed", "Natural"):
        for label in ("agreement", "severity", "edit_type", "composite"):
            assert f"<td>{acc.loc[eval_set, label]:.3f}</td>" in section
    assert "<th>gold</th>" in section and "(no answer)" in section


def test_other_datasets_get_no_review_section(demo_store: Store):
    assert review_section(demo_store, "demo") == ""
