"""`python -m core` as outside scripts use it: real processes, JSON out, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ["demo", "datasets", "import-pairs", "import-annotations", "import-outputs", "import-preset",
            "judge", "inject", "parse"]


def cli(*args, stdin=None, store=None):
    cmd = [sys.executable, "-m", "core"] + (["--store", str(store)] if store else []) + list(args)
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, input=stdin, timeout=300)


@pytest.fixture(scope="module")
def demo_cli_store(tmp_path_factory):
    store = tmp_path_factory.mktemp("cli") / "s.duckdb"
    done = cli("demo", "--json", store=store)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["added"] >= 400 and report["seed"] == 7
    return store


def test_demo_then_datasets_json(demo_cli_store):
    done = cli("datasets", "--json", store=demo_cli_store)
    assert done.returncode == 0, done.stderr
    rows = {r["name"]: r for r in json.loads(done.stdout)}
    demo = rows["demo"]
    assert demo["pairs"] >= 400 and demo["modalities"] >= 6 and demo["synthetic"] is True
    assert demo["kind"] == "error_counts" and demo["annotators"] == 2 and demo["annotations"] > 0
    assert demo["runs"] == 0


def test_demo_twice_adds_nothing(demo_cli_store):
    done = cli("demo", "--json", store=demo_cli_store)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["added"] == 0


def test_import_duplicate_ids_fails_names_them_and_leaves_no_dataset(tmp_path):
    f = tmp_path / "dup.csv"
    pd.DataFrame({"id": ["a", "b", "a"], "r": ["x", "y", "z"], "c": ["1", "2", "3"]}).to_csv(f, index=False)
    store = tmp_path / "s.duckdb"
    done = cli("import-pairs", str(f), "--dataset", "dupes", "--id-col", "id", "--reference-col", "r",
               "--candidate-col", "c", store=store)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0] == "error: duplicate id 'a' on rows 1 and 3"
    listed = json.loads(cli("datasets", "--json", store=store).stdout)
    assert listed == []


def test_import_same_file_twice_keeps_the_count(tmp_path):
    f = tmp_path / "good.tsv"
    pd.DataFrame({"id": ["a", "b"], "r": ["x", "y"], "c": ["1", "2"]}).to_csv(f, index=False, sep="\t")
    store = tmp_path / "s.duckdb"
    args = ("import-pairs", str(f), "--dataset", "good", "--id-col", "id", "--reference-col", "r",
            "--candidate-col", "c", "--json")
    first = json.loads(cli(*args, store=store).stdout)
    second = json.loads(cli(*args, store=store).stdout)
    assert (first["added"], second["added"], second["skipped"]) == (2, 0, 2)
    assert json.loads(cli("datasets", "--json", store=store).stdout)[0]["pairs"] == 2


def test_missing_file_and_unknown_dataset_are_one_line_errors(tmp_path):
    store = tmp_path / "s.duckdb"
    done = cli("import-annotations", str(tmp_path / "nope.csv"), "--dataset", "x", "--id-col", "id",
               "--score-col", "s", store=store)
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    assert "not found" in done.stderr
    done = cli("judge", "--dataset", "nope", "--judge", "lexical", store=store)
    assert done.returncode == 1 and done.stderr.strip() == "error: dataset 'nope' not found"


def test_parse_from_stdin(tmp_path):
    text = (ROOT / "tests" / "parse_corpus").glob("*.txt")
    sample = next(iter(sorted(text))).read_text()
    done = cli("parse", "-", "--json", stdin=sample)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) >= {"sig", "insig", "matched", "overall_score", "status", "reason", "metrics"}
    assert set(out["sig"]) == set("abcdef")
    assert set(out["metrics"]) >= {"green", "green_f1", "formula", "ec_sig", "ec_total", "vert"}


def test_judge_lexical_json_summary(demo_cli_store):
    done = cli("judge", "--dataset", "demo", "--judge", "lexical", "--limit", "50", "--json", store=demo_cli_store)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for key in ("run_id", "requested", "cached", "sent", "ok", "failed", "cost_usd", "seconds"):
        assert key in out
    assert out["requested"] == 50 and out["ok"] == 50 and out["failed"] == 0 and out["sent"] == 0


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    done = cli(command, "--help")
    assert done.returncode == 0 and "usage: python -m core" in done.stdout
