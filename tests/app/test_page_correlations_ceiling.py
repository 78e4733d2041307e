"""The ceiling is quoted in the statistic the table shows (issue 30, item 3), on the page, in
``agreement --stat`` and in the report, and all three equal scipy on the same per-rater data; report checks
stay out of the Correlations table (item 4); the heatmap title names the target in words (item 8)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import scipy.stats

from core.checks.store import run_checks
from core.reads.targets import annotator_target_values
from core.report.html import build_report
from core.store.db import Store
from tests.apptest_helpers import judged_copy, open_page
from tests.conftest import DEMO_PAIRS

PAGE = "pages/correlations.py"
STATS = {"kendall": ("tau", "τ", scipy.stats.kendalltau), "spearman": ("rho", "ρ", scipy.stats.spearmanr),
         "pearson": ("r", "r", scipy.stats.pearsonr)}


@pytest.fixture(scope="module")
def store(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    judged = judged_copy(demo_store, tmp_path_factory, "corr-ceiling", "rules", "lexical")
    run_checks(judged, "demo", "en-US")  # must not show up as a judge
    return judged


def _scipy_ceiling(store: Store, target: str, stat: str) -> float:
    """Two experts on the demo: leave-one-out = pairwise = the statistic of their two value columns."""
    values = annotator_target_values(store, "demo", target)
    wide = values.pivot(index="pair_id", columns="annotator", values="value").dropna()
    assert list(wide.columns) == ["expert_1", "expert_2"] and len(wide) == DEMO_PAIRS
    return float(STATS[stat][2](wide["expert_1"], wide["expert_2"]).statistic)


@pytest.mark.parametrize("stat", ["spearman", "pearson", "kendall"])
@pytest.mark.parametrize("target", ["score", "sig_errors"])
def test_page_cli_and_report_quote_the_ceiling_in_the_tables_statistic(app_test, store, capsys, stat, target):
    from core.cli.main import main

    key, sym, _ = STATS[stat]
    expected = _scipy_ceiling(store, target, stat)
    others = {s: _scipy_ceiling(store, target, s) for s in STATS if s != stat}

    # the page, with this statistic selected
    at = open_page(app_test, store, PAGE, {"stat": stat, "target": target, "n_boot": "0"})
    (box,) = [i.value for i in at.info if i.value.startswith("**Ceiling:**")]
    page = float(re.search(rf"at {re.escape(sym)} = \*\*([0-9.]+)\*\*", box).group(1))
    pairwise = float(re.search(rf"agree at {re.escape(sym)} = ([0-9.]+) \(mean pairwise\)", box).group(1))
    assert {"kendall": "Kendall τ-b", "spearman": "Spearman ρ", "pearson": "Pearson r"}[stat] in box

    # the CLI
    assert main(["--store", str(store.path), "agreement", "--dataset", "demo", "--target", target,
                 "--stat", key, "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["stat"] == key

    # the report
    html = build_report(store, "demo", stat=stat, n_boot=0)
    section = html.split("<h3>" + {"score": "Overall quality", "sig_errors": "Number of clinically"}[target])[1]
    report = float(re.search(rf"at {re.escape(sym)} = <strong>([0-9.]+)</strong> \(leave-one-out", section).group(1))

    assert cli["loo"] == pytest.approx(expected, abs=1e-12)
    assert cli["mean_pairwise"] == pytest.approx(expected, abs=1e-12)
    assert page == round(expected, 3) and pairwise == round(expected, 3)
    assert report == round(expected, 2)
    # and it is not another statistic's value (the bug: Kendall's tau next to a rho table)
    assert all(abs(round(v, 3) - page) > 0.0005 for v in others.values())
    if stat != "kendall":
        assert cli["loo_tau"] == pytest.approx(_scipy_ceiling(store, target, "kendall"), abs=1e-12)


def test_checks_are_not_a_judge_on_the_page_and_the_heatmap_title_is_words(app_test, store):
    at = open_page(app_test, store, PAGE, {"target": "sig_errors", "n_boot": "0", "judge": "rules",
                                           "metric": "ec_sig"})
    shown = at.table[0].value
    assert "checks:en-US" not in shown.index and {"rules", "lexical"} <= set(shown.index)
    assert not [c for c in shown.columns if "laias" in str(c)]
    assert "checks:en-US" not in at.selectbox(key="corr_vs").options if at.selectbox(key="corr_vs") else True
    captions = " ".join(c.value for c in at.caption).replace("\\", "")  # escape_md's backslashes
    assert "Not in this table: the report checks (checks:en-US)" in captions
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    titles = [s["layout"]["title"]["text"] for s in specs if "title" in s["layout"]]
    heat = [t for t in titles if " by modality" in t]
    assert heat == ["τ with the experts' significant errors by modality (selected series in bold)"]
    assert not any("sig_errors" in t for t in titles)


def test_report_correlation_table_has_no_checks_row(store):
    html = build_report(store, "demo", n_boot=0)
    corr = html.split('<section id="correlations">')[1].split("</section>")[0]
    assert "checks:en-US" not in corr and "laias_" not in corr
    assert np.isfinite(float(re.search(r"at τ = <strong>([0-9.]+)</strong>", html).group(1)))
