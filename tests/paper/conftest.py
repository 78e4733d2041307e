"""Stores for the paper tests: the demo with the three offline judges, and a 3-rater imported dataset.

Both are built once per session through the CLI (``python -m core demo``, ``import-pairs``,
``import-annotations``, ``judge``), in-process through ``core.cli.main.main``; tests must not write to
them (copy first).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from core.store.db import Store
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
THREE = "study3"  # the imported dataset's name
RATERS = ("r1", "r2", "r3")


def cli(store: Path | str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``python -m core --store STORE ARGS``, its main run in this process (tests/cli_inprocess.py); its
    stdout as text (UTF-8)."""
    run = run_cli("--store", str(store), *args)
    if check and run.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {run.returncode}: {run.stderr}")
    return run


def core_main(store: Path, *args: str) -> None:
    from core.cli.main import main

    code = main(["--store", str(store), *args])
    assert code == 0, args


@pytest.fixture(scope="session")
def paper_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with the demo (120 pairs, seed 3) and the rules, lexical and length judges run on it."""
    path = tmp_path_factory.mktemp("paper-demo") / "demo.duckdb"
    core_main(path, "demo", "--pairs", "120", "--seed", "3", "--json")
    for judge in ("rules", "lexical", "length"):
        # a pair the offline judge cannot read (e.g. a candidate that is no report) is recorded as failed
        core_main(path, "judge", "--dataset", "demo", "--judge", judge, "--json", "--allow-failures")
    return path


def write_three_rater_files(store: Store, folder: Path) -> tuple[Path, Path]:
    """Pairs of the demo written as an imported study's files, and error counts from three raters.

    r1 keeps the demo's first expert's counts; r2 adds a missed finding (b) on every fifth pair; r3 drops a
    false finding (a) on every seventh pair that has one. Integer counts, as a study's raters give them.
    """
    pairs = store.query_df("SELECT ext_id, reference, candidate, group_id, system, modality FROM pairs "
                           "WHERE dataset = 'demo' ORDER BY ext_id")
    counts = store.query_df("SELECT p.ext_id, a.category, a.significant, a.value FROM annotations a JOIN pairs p "
                            "USING (pair_id) WHERE p.dataset = 'demo' AND a.annotator = 'expert_1' "
                            "AND a.field = 'error_count' ORDER BY 1, 2, 3")
    rows = []
    for i, ext in enumerate(pairs["ext_id"]):
        mine = counts[counts["ext_id"] == ext]
        for rater in RATERS:
            for _, c in mine.iterrows():
                value = int(c["value"])
                if rater == "r2" and i % 5 == 0 and c["category"] == "b" and c["significant"]:
                    value += 1
                if rater == "r3" and i % 7 == 0 and c["category"] == "a" and c["significant"] and value > 0:
                    value -= 1
                rows.append({"id": ext, "rater": rater, "category": c["category"],
                             "significant": "true" if c["significant"] else "false", "count": value})
    pairs_csv, ann_csv = folder / "pairs.csv", folder / "errors.csv"
    pairs.rename(columns={"ext_id": "id"}).to_csv(pairs_csv, index=False)
    pd.DataFrame(rows).to_csv(ann_csv, index=False)
    return pairs_csv, ann_csv


@pytest.fixture(scope="session")
def three_rater(paper_demo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``paper_demo`` plus dataset ``study3``: imported (not synthetic), three raters' error counts,
    the three offline judges run on it."""
    import shutil

    folder = tmp_path_factory.mktemp("paper-three")
    path = folder / "three.duckdb"
    shutil.copyfile(paper_demo, path)
    pairs_csv, ann_csv = write_three_rater_files(Store(path), folder)
    core_main(path, "import-pairs", str(pairs_csv), "--dataset", THREE, "--id-col", "id", "--reference-col",
              "reference", "--candidate-col", "candidate", "--group-col", "group_id", "--system-col", "system",
              "--modality-col", "modality", "--kind", "error_counts")
    core_main(path, "import-annotations", str(ann_csv), "--dataset", THREE, "--id-col", "id", "--category-col",
              "category", "--significant-col", "significant", "--count-col", "count", "--annotator-col", "rater")
    for judge in ("rules", "lexical", "length"):
        core_main(path, "judge", "--dataset", THREE, "--judge", judge, "--json", "--allow-failures")
    return path


def correlate_json(store: Path, dataset: str, *extra: str) -> list[dict]:
    return json.loads(cli(store, "correlate", "--dataset", dataset, "--json", *extra).stdout)
