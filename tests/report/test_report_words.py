"""The report in a clinician's words (issue 43, point 6): the glossary and the summary say what a figure
means; formulas ("S: sum of ...", "M / (M + S)") and technical terms ("Krippendorff's α ... (interval level)")
stay behind a "details" fold."""

from __future__ import annotations

import re

import pytest

from core import glossary
from core.analysis.scores import METRICS
from core.judges import run_judge
from core.report import build_report
from core.store.db import Store
from tests.conftest import copy_store

FORMULAS = [METRICS[m].description for m in glossary.METRIC_WORDS]


@pytest.fixture(scope="module")
def report(demo_store: Store, tmp_path_factory) -> str:
    store = copy_store(demo_store, tmp_path_factory.mktemp("words") / "s.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    return build_report(store, "demo", n_boot=0)


def _outside_details(html: str) -> str:
    return re.sub(r"<details>.*?</details>", "", html, flags=re.S)


def test_the_glossary_says_metrics_in_words_with_the_formula_folded(report: str):
    section = report.split('<section id="glossary">')[1].split("</section>")[0]
    assert "<dt>GREEN</dt><dd>The share of the reference's findings the candidate states correctly" in section
    assert "<details><summary>Formula</summary>M / (M + S); 0 when M = 0." in section
    plain = _outside_details(section)
    for formula in FORMULAS:
        assert formula not in plain, formula
    # the sidebar's glossary (the same entries) is in words too
    assert not any(formula in text for _, text in glossary.entries() for formula in FORMULAS)


def test_the_summary_keeps_formulas_and_levels_behind_details(report: str):
    summary = report.split('<section id="summary">')[1].split("</section>")[0]
    plain = _outside_details(summary)
    assert "Closest to the experts" in plain and "Ceiling: one expert agrees" in plain
    assert "Krippendorff" not in plain and "level)" not in plain and "S: sum of" not in plain
    assert "Krippendorff's α" in summary and "(ratio level)" in summary  # behind the fold
