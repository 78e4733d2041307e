"""`python -m core` as outside scripts use it: its main() in this process (tests/cli_inprocess.py), JSON out,
exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["demo", "datasets", "import-pairs", "import-annotations", "import-outputs", "import-preset",
            "judge", "inject", "parse", "correlate", "compare", "agreement", "errortypes", "calibrate", "ensemble",
            "summary", "simulate", "report", "delete-dataset", "restore-dataset", "trash"]


def cli(*args, stdin=None, store=None):
    return run_cli(*(["--store", str(store)] if store else []), *args, input=stdin)


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
    assert not store.exists()  # a failed import into a new path leaves no empty store (issue 42, item 8d)


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
    from core.store.db import Store

    store = tmp_path / "s.duckdb"
    Store(store).execute("SELECT 1")  # an existing, empty store
    done = cli("import-annotations", str(tmp_path / "nope.csv"), "--dataset", "x", "--id-col", "id",
               "--score-col", "s", store=store)
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    assert "not found" in done.stderr
    done = cli("judge", "--dataset", "nope", "--judge", "lexical", store=store)
    assert done.returncode == 1 and done.stderr.strip() == "error: dataset 'nope' not found (datasets: none)"


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


@pytest.fixture(scope="module")
def judged_store(demo_cli_store):
    for judge in ("rules", "lexical"):
        done = cli("judge", "--dataset", "demo", "--judge", judge, "--json", store=demo_cli_store)
        assert done.returncode == 0, done.stderr
    return demo_cli_store


def test_correlate_json_matches_scipy_on_the_stored_vectors(judged_store):
    from scipy.stats import kendalltau

    from core.reads.frames import correlation_frame
    from core.store.db import Store

    done = cli("correlate", "--dataset", "demo", "--target", "sig_errors", "--n-boot", "200", "--json",
               store=judged_store)
    assert done.returncode == 0, done.stderr
    rows = {(r["judge"], r["metric"]): r for r in json.loads(done.stdout)}
    for key in ("judge", "metric", "n", "tau", "p", "ci_low", "ci_high", "target"):
        assert key in rows[("rules", "ec_sig")]
    assert not any(m.startswith("sig_") for _, m in rows)  # per-category counts only with --all-metrics
    frame = correlation_frame(Store(judged_store), "demo", "sig_errors")
    for (judge, metric), row in rows.items():
        sub = frame[(frame["judge"] == judge) & (frame["metric"] == metric)]
        expected = kendalltau(sub["value"], sub["target"])
        assert row["n"] == len(sub) == 400
        assert abs(row["tau"] - expected.statistic) < 1e-12 and abs(row["p"] - expected.pvalue) < 1e-12
        assert row["ci_low"] <= row["tau"] <= row["ci_high"] and row["target"] == "sig_errors"
    assert rows[("rules", "ec_sig")]["sign_ok"] and rows[("lexical", "bleu4")]["sign_ok"]


def test_analysis_commands_run_on_the_demo(judged_store):
    def run(*args):
        done = cli(*args, "--json", store=judged_store)
        assert done.returncode == 0, f"{args}: {done.stderr}"
        return json.loads(done.stdout)

    cmp = run("compare", "--dataset", "demo", "--a", "rules:ec_sig", "--b", "lexical:bleu4", "--n-boot", "200")
    assert cmp[0]["n"] == 400 and cmp[0]["ci_low"] > 0  # the rules judge tracks the experts better
    agree = run("agreement", "--dataset", "demo")
    assert 0 < agree["alpha"] <= 1 and agree["n_annotators"] == 2
    et = run("errortypes", "--dataset", "demo")
    f1 = {r["category"]: r for r in et["f1"] if r["judge"] == "rules"}
    assert set(f1) == set("abcdef") | {"all"} and all(0 <= r["f1"] <= 1 for r in f1.values())
    cal = run("calibrate", "--dataset", "demo", "--n-boot", "100")
    assert {"counts", "reliability"} <= set(cal) and cal["counts"][0]["x"] == 0  # 0-12, as the page
    ens = run("ensemble", "--dataset", "demo", "--n-boot", "100")
    assert {r["feature_set"] for r in ens} == {"bleu4", "bleu2", "rouge_l", "green", "green_f1", "formula", "ec_sig",
                                               "ec_total", "rules_crimson", "All"}
    assert all(r["n_train"] > 0 and r["n_test"] > 0 and r["status"] == "ok" for r in ens)
    summ = run("summary", "--dataset", "demo", "--judge", "rules")
    assert summ["n_reports"] == 400
    sim = run("simulate", "--tp", "2", "--s", "1")
    assert {r["metric"]: r["value"] for r in sim}["green"] == pytest.approx(2 / 3)
    by = run("correlate", "--dataset", "demo", "--breakdown", "modality", "--n-boot", "100")
    assert sum(r["n"] for r in by if r["judge"] == "rules" and r["metric"] == "ec_sig") == 400
