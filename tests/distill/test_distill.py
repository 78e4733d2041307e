"""The distilled CREPE-style scorer: a student trained from the rules judge on the demo store.

One student is trained per module (tiny built-in encoder, a few epochs: the
packaged MiniLM is exercised in test_distill_minilm.py), through the CLI, and
then used as ``--judge distilled:NAME``. Real parts throughout: a DuckDB file,
the real training loop, the real judge runner.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.cli.main import main
from core.store.db import Store

ROOT = Path(__file__).resolve().parents[2]
NAME = "rules-tiny"
BLOCK_TORCH = (
    "import sys\n"
    "class _NoTorch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'torch' or name.startswith('torch.'):\n"
    "            raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n"
    "sys.meta_path.insert(0, _NoTorch())\n")
KEYS = {"name", "teacher", "n_train", "n_test", "tau_vs_teacher", "tau_vs_expert", "ms_per_pair"}


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[Store, dict]:
    """The 400-pair demo, the rules judge run on it, and a student distilled from that run."""
    from core.ingest.demo import build_demo
    from core.judges import run_judge

    store = Store(tmp_path_factory.mktemp("distill") / "demo.duckdb")
    build_demo(store, n_pairs=400, seed=7)
    run_judge(store, dataset="demo", judge="rules")
    code, out = _cli("--store", str(store.path), "distill", "--dataset", "demo", "--teacher", "rules",
                     "--name", NAME, "--encoder", "tiny", "--epochs", "4", "--seed", "1", "--generated", "0", "--json")
    assert code == 0
    result = json.loads(out)
    print("student from rules:", {k: result[k] for k in sorted(KEYS | {"n_val", "train_seconds"})})
    return store, result


def test_student_learns_the_rules_judge_and_is_fast(trained):
    store, result = trained
    assert KEYS <= set(result)
    assert result["teacher"] == "rules" and result["name"] == NAME
    assert result["n_train"] + result["n_val"] + result["n_test"] == 400
    assert result["n_test"] >= 30 and result["n_train"] >= 300
    # It learnt something real about the teacher's counts (chance is 0) and about the experts' through it.
    assert result["tau_vs_teacher"] > 0.2
    assert result["tau_vs_teacher_ci"][0] > 0
    assert result["tau_vs_expert"] > 0.15
    assert result["ms_per_pair"] > 0
    assert set(result["mae"]) == {f"sig_{c}" for c in "abcdef"}
    assert result["no_identical"]["n"] < result["n"]  # the demo has identical pairs; they were removed
    card = json.loads((Path(store.path).parent / "models" / NAME / "card.json").read_text())
    assert card["seed"] == 1 and card["split_seed"] == 1 and card["epochs"] == 4
    assert len(card["history"]) == card["epochs_run"] and card["best_epoch"] >= 1


def test_splits_are_disjoint_and_never_split_a_study(trained):
    store, _ = trained
    card = json.loads((Path(store.path).parent / "models" / NAME / "card.json").read_text())
    splits = {s: set(ids) for s, ids in card["splits"].items()}
    assert not (splits["train"] & splits["val"]) and not (splits["train"] & splits["test"])
    assert not (splits["val"] & splits["test"])
    groups = store.query_df("SELECT pair_id, group_id FROM pairs WHERE dataset = 'demo'")
    split_of = {pid: s for s, ids in splits.items() for pid in ids}
    groups["split"] = groups["pair_id"].map(split_of)
    assert groups.groupby("group_id")["split"].nunique().max() == 1


def test_judge_scores_only_held_out_pairs(trained):
    store, result = trained
    card = json.loads((Path(store.path).parent / "models" / NAME / "card.json").read_text())
    code, out = _cli("--store", str(store.path), "judge", "--dataset", "demo", "--judge", f"distilled:{NAME}",
                     "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["ok"] == result["n_test"] and summary["skipped_trained"] == result["n_train"] + result["n_val"]
    run = store.query_df("SELECT run_id, judge_kind, judge_name, params FROM judge_runs WHERE judge_kind = 'distilled'")
    assert run["judge_name"].tolist() == [f"distilled:{NAME}"]
    params = json.loads(run["params"].iloc[0])
    assert params["teacher"] == "rules" and params["n_train"] == result["n_train"]
    scored = set(store.query_df("SELECT pair_id FROM judge_outputs WHERE run_id = ?", [run["run_id"].iloc[0]])["pair_id"])
    assert scored == set(card["splits"]["test"])
    assert not scored & (set(card["splits"]["train"]) | set(card["splits"]["val"]))
    metrics = store.query_df("SELECT metric, count(*) AS n FROM metric_values WHERE run_id = ? GROUP BY metric",
                             [run["run_id"].iloc[0]])
    assert set(metrics["metric"]) == {f"sig_{c}" for c in "abcdef"} | {"ec_sig"}
    assert (metrics["n"] == len(scored)).all()
    # The student's stored score on its test pairs is the one its card reports against the teacher.
    from core.reads.frames import correlation_frame

    frame = correlation_frame(store, "demo", "sig_errors", metrics=["ec_sig"])
    assert f"distilled:{NAME}" in set(frame["judge"])  # every analysis page sees it
    # Re-running sends nothing new.
    code, out = _cli("--store", str(store.path), "judge", "--dataset", "demo", "--judge", f"distilled:{NAME}",
                     "--json")
    again = json.loads(out)
    assert again["skipped"] == result["n_test"] and again["requested"] == result["n_test"]


def test_training_pairs_are_recognised_by_text_in_another_dataset(trained, tmp_path):
    from core.ingest.importers import PairColumns, import_pairs
    from core.judges import run_judge

    store, _ = trained
    card = json.loads((Path(store.path).parent / "models" / NAME / "card.json").read_text())
    seen = store.query_df("SELECT reference, candidate FROM pairs WHERE pair_id = ?", [card["splits"]["train"][0]])
    csv = tmp_path / "copy.csv"
    pd.DataFrame({"id": ["copied", "new"], "reference": [seen["reference"][0], "Heart size normal."],
                  "candidate": [seen["candidate"][0], "Heart size is enlarged."]}).to_csv(csv, index=False)
    import_pairs(store, csv, dataset="copy", columns=PairColumns(id="id", reference="reference", candidate="candidate"))
    summary = run_judge(store, dataset="copy", judge=f"distilled:{NAME}")
    assert summary.ok == 1 and summary.skipped_trained == 1
    ext = store.query_df("SELECT p.ext_id FROM judge_outputs o JOIN pairs p USING (pair_id) "
                         "WHERE p.dataset = 'copy'")["ext_id"].tolist()
    assert ext == ["new"]


def test_rerun_reuses_and_a_different_model_needs_a_new_name(trained):
    store, result = trained
    weights = Path(store.path).parent / "models" / NAME / "weights.pt"
    before = weights.stat().st_mtime_ns
    code, out = _cli("--store", str(store.path), "distill", "--dataset", "demo", "--teacher", "rules",
                     "--name", NAME, "--encoder", "tiny", "--epochs", "4", "--seed", "1", "--generated", "0", "--json")
    assert code == 0 and json.loads(out)["reused"] is True
    assert json.loads(out)["tau_vs_teacher"] == result["tau_vs_teacher"]
    assert weights.stat().st_mtime_ns == before
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, _ = _cli("--store", str(store.path), "distill", "--dataset", "demo", "--teacher", "expert",
                       "--name", NAME, "--encoder", "tiny", "--epochs", "1")
    assert code == 1 and "exists with other settings" in err.getvalue()
    assert weights.stat().st_mtime_ns == before


def test_unknown_teacher_and_unknown_student_are_clear_errors(trained):
    store, _ = trained
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, _ = _cli("--store", str(store.path), "distill", "--dataset", "demo", "--teacher", "gpt-9",
                       "--name", "x", "--encoder", "tiny")
    assert code == 1 and "teacher 'gpt-9' is not a run" in err.getvalue() and "rules" in err.getvalue()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, _ = _cli("--store", str(store.path), "judge", "--dataset", "demo", "--judge", "distilled:nope")
    assert code == 1 and "no distilled scorer named 'nope'" in err.getvalue() and NAME in err.getvalue()


def test_crepe_loss_is_the_mean_of_mse_and_bce():
    import torch

    from core.distill.model import crepe_loss

    counts = torch.tensor([[0.5, 2.0, 0.0, 1.0, 0.0, 3.0], [1.0, 0.0, 0.2, 0.0, 0.0, 0.0]])
    logits = torch.tensor([[0.1, 2.0, -1.0, 0.3, -2.0, 1.0], [0.0, -0.5, 0.5, 0.0, 1.0, -1.0]])
    target = torch.tensor([[1.0, 2.0, 0.0, 0.0, 0.0, 4.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]])
    c, lg, t = counts.numpy(), logits.numpy(), target.numpy()
    mse = ((c - t) ** 2).mean()
    p = (t > 0).astype(float)
    prob = 1 / (1 + np.exp(-lg))
    bce = -(p * np.log(prob) + (1 - p) * np.log(1 - prob)).mean()
    assert float(crepe_loss(counts, logits, target)) == pytest.approx((mse + bce) / 2, rel=1e-6)


def test_model_has_six_count_and_six_presence_heads():
    from core.distill.model import CrepeModel

    model = CrepeModel("tiny", 64)
    assert len(model.count_heads) == 6 and len(model.presence_heads) == 6
    assert isinstance(model.dropout, __import__("torch").nn.Dropout)


def test_group_split_is_seeded_and_keeps_groups_whole():
    from core.distill.data import group_split

    groups = pd.Series([f"g{i // 3}" for i in range(90)])
    a = group_split(groups, seed=5)
    assert (a == group_split(groups, seed=5)).all()
    assert not (a == group_split(groups, seed=6)).all()
    frame = pd.DataFrame({"g": groups, "s": a})
    assert frame.groupby("g")["s"].nunique().max() == 1
    counts = frame["s"].value_counts()
    assert counts["test"] >= 9 and counts["val"] >= 9 and counts["train"] >= 60
    with pytest.raises(ValueError, match="at least 3 groups"):
        group_split(pd.Series(["a", "a", "b"]), seed=0)


def test_core_and_cli_work_without_torch(trained, tmp_path):
    """With torch blocked, core imports, other commands run, and distill says how to install the extra."""
    store, _ = trained
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(Path(store.path).read_bytes())
    commands = [["distill", "--dataset", "demo", "--teacher", "rules", "--name", "x"],
                ["judge", "--dataset", "demo", "--judge", "lexical", "--limit", "5", "--json"],
                ["export-finetune", "--dataset", "demo", "--out", str(tmp_path / "ft.jsonl"), "--json"],
                ["judge", "--dataset", "demo", "--judge", f"distilled:{NAME}"]]
    # One interpreter runs four commands (each a fresh subprocess would cost seconds of imports).
    prog = BLOCK_TORCH + f"""
import contextlib, io, json
from core.cli.main import main
results = []
for argv in {commands!r}:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--store", {str(copy)!r}, *argv])
    results.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(results))
"""
    r = subprocess.run([sys.executable, "-c", prog], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    (code1, _, err1), (code2, out2, _), (code3, out3, _), (code4, _, err4) = json.loads(r.stdout.splitlines()[-1])
    assert code1 == 1 and "run `make setup-ml` (it installs requirements-ml.txt" in err1 and "Traceback" not in err1
    assert code2 == 0 and json.loads(out2)["ok"] == 5  # the lexical judge runs (scipy probes for torch)
    assert code3 == 0 and json.loads(out3)["n_train"] > 0  # the export needs no torch
    assert code4 == 1 and "make setup-ml" in err4  # a trained model, but no torch to run it


def test_requirements_ml_is_pinned_and_make_test_installs_it():
    lines = [ln.strip() for ln in (ROOT / "requirements-ml.txt").read_text().splitlines()]
    pins = [ln for ln in lines if ln and not ln.startswith("#") and not ln.startswith("-r")]
    assert pins and all("==" in ln for ln in pins), pins
    assert "torch==2.13.0" in pins
    makefile = (ROOT / "Makefile").read_text()
    assert "$(VENV)/.ml-ok" in makefile and "-r requirements-ml.txt" in makefile
    test_line = next(ln for ln in makefile.splitlines() if ln.startswith("test:"))
    run_line = next(ln for ln in makefile.splitlines() if ln.startswith("run:"))
    assert "setup-ml" in test_line or ".ml-ok" in test_line
    assert "ml" not in run_line


def test_a_pair_over_the_length_cap_is_a_recorded_failure_never_scored(trained):
    """The cap of every offline judge (core.judges.bounds): the student never tokenizes an over-long report."""
    from core.ingest.importers import PairColumns, import_pairs
    from core.judges import run_judge
    from core.judges.bounds import MAX_REPORT_CHARS

    store, _ = trained
    long = "FINDINGS: Small left effusion. " * (MAX_REPORT_CHARS // 31 + 1)
    frame = pd.DataFrame({"id": ["long", "short"], "reference": [long, "Heart size normal. Lungs clear."],
                          "candidate": ["Lungs clear.", "Heart size is enlarged."]})
    import_pairs(store, frame, dataset="long", columns=PairColumns(id="id", reference="reference",
                                                                   candidate="candidate"))
    summary = run_judge(store, dataset="long", judge=f"distilled:{NAME}")
    assert summary.ok == 1 and summary.failed == 1 and summary.failed_total == 1 and summary.status == "done"
    assert summary.failures[0]["ext_id"] == "long"
    assert summary.failures[0]["error"].startswith(f"too long to judge: the reference report has {len(long):,}")
    rows = store.query_df("SELECT p.ext_id, o.error, o.raw_text FROM judge_outputs o JOIN pairs p USING (pair_id) "
                          "WHERE p.dataset = 'long'")
    by_id = {r.ext_id: r for r in rows.itertuples()}
    assert by_id["long"].error.startswith("too long") and not isinstance(by_id["long"].raw_text, str)
    assert isinstance(by_id["short"].raw_text, str)
    n_metrics = store.query_one("SELECT count(*) FROM metric_values m JOIN pairs p USING (pair_id) "
                                "WHERE p.dataset = 'long' AND p.ext_id = 'long'")
    assert n_metrics == 0
