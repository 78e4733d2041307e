"""bundle, then reproduce in a fresh folder: the store is rebuilt and every table comes out byte-identical;
a non-synthetic dataset's bundle holds no report text unless asked; a changed bundle is caught."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from core.access import RESEARCHER
from core.store.db import Store
from tests.paper.conftest import ROOT, THREE, cli


def members(zip_path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(zip_path) as zf:
        return {n.split("/", 1)[1]: zf.read(n) for n in zf.namelist()}


def test_bundle_then_reproduce_in_a_fresh_folder_is_byte_identical(paper_demo, tmp_path):
    zip_path = tmp_path / "out" / "demo.zip"
    zip_path.parent.mkdir()
    flags = ["--seed", "3", "--n-boot", "200", "--drop-identical", "--with-ci", "--decimals", "2"]
    cli(paper_demo, "bundle", "--dataset", "demo", "--out", str(zip_path), *flags)
    files = members(zip_path)
    manifest = json.loads(files["manifest.json"])
    assert manifest["with_text"] is True and manifest["synthetic"] is True  # synthetic: text by default
    assert manifest["settings"]["seed"] == 3 and manifest["settings"]["drop_identical"] is True
    assert any("tables --dataset demo" in c and "--seed 3" in c and "--drop-identical" in c
               for c in manifest["commands"])
    assert any(p.startswith("numpy==") for p in manifest["versions"]["packages"])
    tables = {n for n in files if n.startswith("tables/")}
    assert {"tables/correlations-score-kendall.tex", "tables/errortypes-f1.md", "tables/tables.tex"} <= tables
    assert b"identical pairs (candidate = reference) removed" in files["tables/correlations-score-kendall.tex"]
    assert b"seed 3" in files["methods.txt"] and files["references.bib"].startswith(b"@")
    fresh = tmp_path / "fresh"  # another folder, and no store at the default path: only the zip is used
    run = cli(tmp_path / "no-such-store.duckdb", "reproduce", str(zip_path), "--out", str(fresh), "--json")
    result = json.loads(run.stdout)
    assert result["ok"] and sorted(result["identical"]) == sorted(tables) and not result["different"]
    assert result["rows"]["pairs"] == 120 and result["rows"]["metric_values"] > 0
    for name in tables:
        assert (fresh / name).read_bytes() == files[name], name
    assert not (tmp_path / "no-such-store.duckdb").exists()
    # the rebuilt store answers correlate like the original, to the last digit
    again = json.loads(cli(fresh / "store.duckdb", "correlate", "--dataset", "demo", "--json", "--seed", "3",
                           "--n-boot", "200", "--drop-identical").stdout)
    first = json.loads(cli(paper_demo, "correlate", "--dataset", "demo", "--json", "--seed", "3", "--n-boot", "200",
                           "--drop-identical").stdout)
    assert again == first


def report_texts(store: Path, dataset: str) -> list[str]:
    s = Store(store)
    pairs = s.query_df("SELECT reference, candidate FROM pairs WHERE dataset = ?", [dataset])
    outputs = s.query_df("SELECT o.raw_text FROM judge_outputs o JOIN judge_runs r USING (run_id) "
                         "WHERE r.dataset = ? AND o.raw_text IS NOT NULL", [dataset])
    texts = list(pairs["reference"]) + list(pairs["candidate"]) + list(outputs["raw_text"])
    return sorted({t.strip()[:40] for t in texts if len(t.strip()) >= 40})


def leaked(files: dict[str, bytes], snippets: list[str]) -> list[str]:
    found = []
    for name, data in files.items():
        if name.endswith(".parquet"):
            table = pq.read_table(io.BytesIO(data))
            cells = [v for col in table.columns if str(col.type) in ("string", "large_string")
                     for v in col.to_pylist() if v]
            text = "\n".join(cells)
        else:
            text = data.decode("utf-8", errors="replace")
        found += [f"{name}: {s!r}" for s in snippets if s in text]
    return found


def test_a_non_synthetic_bundle_holds_no_report_text_unless_asked(three_rater, tmp_path):
    snippets = report_texts(three_rater, THREE)
    assert len(snippets) > 100
    plain, texted = tmp_path / "plain.zip", tmp_path / "texted.zip"
    cli(three_rater, "bundle", "--dataset", THREE, "--out", str(plain))
    cli(three_rater, "bundle", "--dataset", THREE, "--out", str(texted), "--with-text")
    files = members(plain)
    assert json.loads(files["manifest.json"])["with_text"] is False
    assert leaked(files, snippets) == []
    pairs = pq.read_table(io.BytesIO(files["data/pairs.parquet"])).to_pandas()
    assert pairs["reference"].isna().all() and pairs["content_hash"].notna().all() and len(pairs) == 120
    assert pairs["identical"].notna().all()  # the flag travels, so removing identical pairs needs no text
    assert len(leaked(members(texted), snippets)) > 100  # the check finds text when it is there
    again = cli(three_rater, "bundle", "--dataset", THREE, "--out", str(plain), check=False)
    assert again.returncode == 1 and "--force" in again.stderr


def test_the_extracted_bundle_reproduces_with_its_own_script(three_rater, tmp_path):
    zip_path = tmp_path / "study3.zip"
    cli(three_rater, "bundle", "--dataset", THREE, "--out", str(zip_path), "--raters", "r1,r2", "--with-ci")
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(tmp_path / "x")
    folder = tmp_path / "x" / "radconcord-bundle-study3"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    run = subprocess.run(["sh", "reproduce.sh"], cwd=folder, capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    counted = run.stdout.split("regenerated in")[1]
    n, total = counted.split(":")[1].split("byte-identical")[0].split(" of ")
    assert int(n) == int(total) >= 15
    assert b"annotators r1, r2" in (folder / "reproduced" / "tables" / "correlations-sig-errors-kendall.tex").read_bytes()


def test_a_changed_bundle_is_caught(paper_demo, tmp_path):
    zip_path = tmp_path / "demo.zip"
    cli(paper_demo, "bundle", "--dataset", "demo", "--out", str(zip_path), "--n-boot", "100")
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(tmp_path / "x")
    folder = tmp_path / "x" / "radconcord-bundle-demo"
    table = folder / "tables" / "correlations-score-kendall.md"
    table.write_bytes(table.read_bytes().replace(b"0.", b"0,", 1))
    run = cli(tmp_path / "none.duckdb", "reproduce", str(folder), "--out", str(tmp_path / "r1"), check=False)
    assert run.returncode == 1 and "differs from its manifest" in run.stderr
    # a table edited and re-hashed in the manifest passes the hash check, but not the comparison
    from core.paper.bundle import sha256_hex

    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["tables/correlations-score-kendall.md"] = {"bytes": table.stat().st_size,
                                                                "sha256": sha256_hex(table.read_bytes())}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    run = cli(tmp_path / "none.duckdb", "reproduce", str(folder), "--out", str(tmp_path / "r2"), check=False)
    assert run.returncode == 3 and "differs: tables/correlations-score-kendall.md" in run.stdout
    assert shutil.which("sh")
    with pytest.raises(ValueError, match="not an empty folder"):
        from core.paper.reproduce import reproduce

        reproduce(folder, tmp_path / "r2")


def test_a_bundle_with_figures_carries_them_and_still_reproduces(paper_demo, tmp_path):
    from core.paper.bundle import build_bundle
    from core.paper.compute import PaperSettings
    from core.paper.reproduce import reproduce

    data = build_bundle(Store(paper_demo), "demo", PaperSettings(n_boot=50, seed=2), with_figures=True,
                        role=RESEARCHER)
    (tmp_path / "b.zip").write_bytes(data)
    names = set(members(tmp_path / "b.zip"))
    assert {"figures/calibration-counts.svg", "figures/calibration-counts.pdf", "figures/f1-per-category.csv",
            "figures/heatmap-modality.pdf", "figures/reliability-scores.svg", "figures/ensembles-score.pdf"} <= names
    assert "tables/leaderboard-systems.tex" in names
    result = reproduce(tmp_path / "b.zip", tmp_path / "fresh")
    assert result.ok and len(result.identical) >= 15
