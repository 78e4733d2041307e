"""Metric names that say what computed them (issue 43, point 3): one rule, (judge, metric) -> display name,
used by the pages, the CLI, the report, the LaTeX tables and the figures; the stored keys stay."""

from __future__ import annotations

import json

import pytest

from core.analysis.naming import COUNTED_BY_CODE, FORMULA_NAMES, column_name, display_name
from core.analysis.scores import METRICS
from core.cli.main import main
from core.judges.registry import OFFLINE_JUDGES, offline_module
from core.store.db import Store
from tests.apptest_helpers import judged_copy
from tests.paper.latex_read import read_cells, unstack


def test_the_rules_judges_count_formulas_name_whose_counts_they_are():
    assert display_name("rules", "green") == "GREEN formula (rules counts)"
    assert display_name("rules", "ec_sig") == "Significant errors (rules counts)"
    assert display_name("rules", "green", with_judge=True) == "GREEN formula (rules counts)"
    # a model answering the GREEN prompt (or imported GREEN text) keeps the papers' names
    assert display_name("openai/gpt-4o", "green") == "GREEN"
    assert display_name("openai/gpt-4o", "ec_sig", with_judge=True) == "openai/gpt-4o · GREEN-EC (sig.)"
    # other metrics keep their labels, whoever computed them
    assert display_name("lexical", "bleu4", with_judge=True) == "lexical · BLEU-4"
    assert display_name("imported", "my_score") == "my_score"
    # a column shared by a model and the rules judge: the formula's name, no judge's
    assert column_name("green", ["rules", "openai/gpt-4o"]) == "GREEN formula"
    assert column_name("green", ["openai/gpt-4o", "anthropic/claude"]) == "GREEN"
    assert column_name("green", ["rules"]) == "GREEN formula (rules counts)"


def test_every_offline_judge_that_counts_errors_is_named_for_its_counts():
    """The rule's list of code-counting judges is the registry's: an offline judge whose answers carry the
    count formulas (GREEN, GREEN-EC, ...) must be in COUNTED_BY_CODE, and no other."""
    reference = "Small left pleural effusion. No pneumothorax."
    candidate = "Large right pleural effusion. Pneumothorax."
    counting = set()
    for judge in OFFLINE_JUDGES:
        out = offline_module(judge).score_pair(reference, candidate)
        # GREEN-format text (parsed into counts, then the formulas) or the formulas' values themselves
        green_text = "[Clinically Significant Errors]" in (out.raw_text or "")
        if green_text or set(FORMULA_NAMES) & set(out.metrics or {}):
            counting.add(judge)
    assert counting == set(COUNTED_BY_CODE)
    assert set(FORMULA_NAMES) <= set(METRICS)


@pytest.fixture(scope="module")
def judged(demo_store: Store, tmp_path_factory) -> Store:
    return judged_copy(demo_store, tmp_path_factory, "naming", "rules", "lexical")


def test_cli_latex_figures_and_report_use_the_one_rule_and_keep_the_keys(judged: Store, capsys, tmp_path):
    from core.paper.figures_agreement import scatter_figure
    from core.reads.frames import correlation_frame
    from core.report import build_report

    store = str(judged.path)
    assert main(["--store", store, "correlate", "--dataset", "demo", "--n-boot", "0", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    # stored keys as they were; each row adds its display name
    assert {(r["judge"], r["metric"]) for r in rows} >= {("rules", "green"), ("rules", "ec_sig")}
    assert all(r["name"] == display_name(r["judge"], r["metric"], with_judge=True) for r in rows)

    assert main(["--store", store, "correlate", "--dataset", "demo", "--n-boot", "0", "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    # the headers as the reader sees them, whatever the layout wraps, stacks or transposes (tests.paper.latex_read)
    names = {name for key in read_cells(latex) for name in key}
    assert {"GREEN formula (rules counts)", "Significant errors (rules counts)"} <= names, names
    assert "GREEN-EC" not in unstack(latex) and "GREEN" not in names

    frame = correlation_frame(judged, "demo", "score")
    series = frame[(frame["judge"] == "rules") & (frame["metric"] == "green")].assign(ext_id=lambda d: d["pair_id"])
    figure = scatter_figure(series, "rules", "green", target="score", stat="kendall", estimate=0.8, n=len(series))
    assert "GREEN formula (rules counts)" in json.dumps(figure.chart.to_dict())

    html = build_report(judged, "demo", n_boot=0)
    assert "GREEN formula (rules counts)<br><code>green</code>" in html
    assert "GREEN-EC (sig.)<br>" not in html
