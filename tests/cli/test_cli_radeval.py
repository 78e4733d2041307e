"""`python -m core import-outputs --format radeval` as a researcher runs it: real processes, JSON out, exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from core.ingest.demo import build_demo
from core.ingest.importers.radeval import RADEVAL_METRICS
from core.store.db import Store
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "radeval_per_sample.json"
IDS = ROOT / "docs" / "examples" / "radeval_ids.txt"


def cli(store: Path, *args: str) -> subprocess.CompletedProcess:
    return run_cli("--store", str(store), *args)


def values(store: Path) -> int:
    return Store(store).query_one("SELECT count(*) FROM metric_values")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "s.duckdb"
    build_demo(Store(path), n_pairs=20, seed=7)  # the first 20 pairs of `python -m core demo`
    return path


def test_import_then_correlate_lists_every_metric_with_its_orientation(store):
    metrics = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    done = cli(store, "import-outputs", str(EXAMPLE), "--format", "radeval", "--dataset", "demo", "--ids", str(IDS),
               "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["pairs"], report["added"], report["skipped"]) == (20, 20 * len(metrics), 0)
    assert report["metrics"]["radcliq_v1"] == "lower is better"
    again = cli(store, "import-outputs", str(EXAMPLE), "--format", "radeval", "--dataset", "demo", "--ids", str(IDS),
                "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["added"] == 0
    corr = cli(store, "correlate", "--dataset", "demo", "--n-boot", "0", "--json")
    assert corr.returncode == 0, corr.stderr
    rows = {r["metric"]: r for r in json.loads(corr.stdout) if r["judge"] == "radeval"}
    assert set(rows) == set(metrics)
    for metric, row in rows.items():
        sign = 1 if RADEVAL_METRICS[metric].higher_is_better else -1
        assert row["expected_sign"] == sign and row["orientation_assumed"] is False, metric
        assert row["tau_oriented"] == pytest.approx(sign * row["tau"])
    assert rows["radcliq_v1"]["tau"] < 0 < rows["radcliq_v1"]["tau_oriented"] and rows["radcliq_v1"]["sign_ok"]


def test_refusals_are_one_line_exit_2_and_store_nothing(store, tmp_path):
    short = tmp_path / "short.json"
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data["bleu"] = data["bleu"][:19]
    short.write_text(json.dumps(data), encoding="utf-8")
    base = ["import-outputs", "--format", "radeval", "--dataset", "demo"]
    done = cli(store, *base, str(short), "--ids", str(IDS))
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: metric 'bleu' has 19 values, the ids file 20 ids: RadEval writes one value "
                                   "per report, in the order of the ids")
    no_ids = cli(store, *base, str(EXAMPLE))
    assert no_ids.returncode == 2 and "--ids FILE" in no_ids.stderr
    score_col = cli(store, *base, str(EXAMPLE), "--ids", str(IDS), "--score-col", "bleu")
    assert score_col.returncode == 2 and "--score-col do(es) not apply to --format radeval" in score_col.stderr
    green = cli(store, "import-outputs", str(EXAMPLE), "--dataset", "demo")
    assert green.returncode == 2 and "give --judge and --id-col" in green.stderr
    assert values(store) == 0
