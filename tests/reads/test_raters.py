"""One rater rule everywhere: clinician ratings never join the expert target unless asked (issue: real studies)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from core.judges import run_judge
from core.reads.raters import resolve_raters
from core.reads.ratings import save_rating
from tests.cli_inprocess import run_cli
from tests.conftest import copy_store

ROOT = Path(__file__).resolve().parents[2]


def _cli(store, *args) -> subprocess.CompletedProcess:
    return run_cli("--store", str(store.path), *args)


@pytest.fixture(scope="module")
def rated(demo_store, tmp_path_factory):
    """The demo with the rules judge and one clinician who rated three pairs far from the experts."""
    store = copy_store(demo_store, tmp_path_factory.mktemp("raters") / "s.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    pairs = store.query_df("SELECT pair_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id LIMIT 3")["pair_id"]
    for i, pid in enumerate(pairs):
        save_rating(store, pid, "alice", score=float(i), counts={"sig_a": 9 - i, "insig_b": 2})
    return store


def _tau(rows: list[dict], judge: str = "rules", metric: str = "ec_sig") -> float:
    return next(r["tau"] for r in rows if r["judge"] == judge and r["metric"] == metric)


def test_the_cli_default_is_the_imported_experts_and_is_recorded(rated):
    base = ["correlate", "--dataset", "demo", "--target", "sig_errors", "--n-boot", "0", "--json"]
    default = json.loads(_cli(rated, *base).stdout)
    experts = json.loads(_cli(rated, *base, "--raters", "experts").stdout)
    everyone = json.loads(_cli(rated, *base, "--raters", "all").stdout)
    assert {r["raters"] for r in default} == {"experts"} and {r["raters"] for r in everyone} == {"all"}
    assert _tau(default) == _tau(experts) != _tau(everyone)  # the three ratings move the mixed target
    names = _cli(rated, *base, "--raters", "expert_1").stdout
    assert {r["raters"] for r in json.loads(names)} == {"expert_1"}
    few = json.loads(_cli(rated, *base, "--raters", "clinicians").stdout)
    assert {r["n"] for r in few} == {3}
    bad = _cli(rated, *base, "--raters", "bob")
    assert bad.returncode == 1 and "bob not an annotator of 'demo'" in bad.stderr and "rater:alice" in bad.stderr
    agree = json.loads(_cli(rated, "agreement", "--dataset", "demo", "--target", "sig_errors", "--json").stdout)
    assert agree["raters"] == "experts" and agree["n_annotators"] == 2
    board = json.loads(_cli(rated, "leaderboard", "--dataset", "demo", "--target", "sig_errors", "--n-boot", "0",
                            "--json").stdout)
    assert {r["raters"] for r in board} == {"experts"}
    assert next(r["tau"] for r in board if r["metric"] == "ec_sig") == pytest.approx(_tau(default), abs=1e-12)


def test_cli_page_and_report_give_identical_numbers_for_the_same_choice(rated, app_test, tmp_path):
    rows = json.loads(_cli(rated, "correlate", "--dataset", "demo", "--target", "sig_errors", "--n-boot", "0",
                           "--json").stdout)
    tau = abs(_tau(rows))
    # the Correlations page, default choice, same target
    at = app_test(rated, {"dataset": "demo", "target": "sig_errors"})
    at.switch_page("pages/correlations.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="corr_experts").value == "imported"
    table = at.table[0].value
    shown = table.loc["rules"] if "rules" in table.index else table.set_index(table.columns[0]).loc["rules"]
    cell = str(shown["Significant errors (rules counts)"]).split(" · ")[0]  # the value before its CI and n
    assert float(re.sub(r"[^0-9.]", "", cell)) == pytest.approx(round(tau, 3), abs=1e-9)
    # the report from the CLI
    out = tmp_path / "r.html"
    assert _cli(rated, "report", "--dataset", "demo", "--out", str(out), "--n-boot", "0").returncode == 0
    html = out.read_text(encoding="utf-8")
    assert "experts (imported annotations)" in html and "--raters experts" in html
    assert f"<td>{tau:.3f}" in html or f"<strong>{tau:.3f}</strong>" in html
    assert resolve_raters(rated, "demo").annotators == ["expert_1", "expert_2"]
