"""Large benchmark stores for the statistics benchmarks (bench_correlate.py), built once and kept.

``continuous_store``: the store of issue 18, built the way a user builds it, through the CLI:
``import-pairs`` (``--pairs`` pairs, 4 candidates per reference, so ``pairs / 4`` reference groups;
6 modalities), ``import-annotations`` (one annotator's 0-5 score) and ``--runs`` ``import-outputs``, each
a judge's score per pair with 4 decimals (continuous: about 10,000 distinct values per run). With the
defaults: 50,000 pairs x 20 runs = 1,000,000 judge outputs.

``discrete_store``: bench/bench_page.py's store (the same pairs and runs, with the discrete ``green``
and ``ec_sig`` values an LLM judge writes, and two annotators), built by its builder.

Both are cached under ``data/`` (git-ignored) by their parameters.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

DATASET = "big"
MODALITIES = ("CT", "MRI", "XR", "US", "CTA", "MG")
#: one metric per run, cycling: every one a 0-1 score, higher is better (core.analysis.scores.METRICS)
RUN_METRICS = ("rouge_l", "bleu4", "radfact", "green", "vert")


def _cli(store: Path, *args: str, root: Path = ROOT) -> None:
    proc = subprocess.run([sys.executable, "-m", "core", "--store", str(store), *args], cwd=root,
                          capture_output=True, text=True, env=dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True"))
    if proc.returncode != 0:
        raise SystemExit(f"python -m core {' '.join(args[:1])} failed:\n{proc.stderr[-2000:]}")


def build_continuous(path: Path, n_pairs: int, n_runs: int, seed: int = 0, root: Path = ROOT) -> None:
    """Write the files and import them with the CLI of the code in ``root`` (as issue 18 measured)."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 1, n_pairs)
    ids = np.char.add("b-", np.char.zfill(np.arange(n_pairs).astype(str), 6))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pd.DataFrame({
            "id": ids, "reference": np.char.add("Reference report ", (np.arange(n_pairs) // 4).astype(str)),
            "candidate": np.char.add("Candidate report ", ids),
            "group": np.char.add("ref-", (np.arange(n_pairs) // 4).astype(str)),
            "system": np.array(["sys-a", "sys-b", "sys-c", "sys-d"])[np.arange(n_pairs) % 4],
            "modality": np.array(MODALITIES)[rng.integers(0, len(MODALITIES), n_pairs)],
        }).to_parquet(folder / "pairs.parquet")
        _cli(path, "import-pairs", str(folder / "pairs.parquet"), "--dataset", DATASET, "--id-col", "id",
             "--reference-col", "reference", "--candidate-col", "candidate", "--group-col", "group",
             "--system-col", "system", "--modality-col", "modality", "--kind", "score", "--synthetic", root=root)
        score = np.clip(np.rint(2.5 + 1.2 * quality + rng.normal(0, 0.8, n_pairs)), 0, 5)
        pd.DataFrame({"id": ids, "score": score}).to_parquet(folder / "scores.parquet")
        _cli(path, "import-annotations", str(folder / "scores.parquet"), "--dataset", DATASET, "--id-col", "id",
             "--score-col", "score", "--annotator", "expert_1", root=root)
        for r in range(n_runs):
            noise = 0.4 + 1.6 * r / max(1, n_runs - 1)
            value = np.round(1 / (1 + np.exp(-(quality + rng.normal(0, noise, n_pairs)))), 4)
            file = folder / f"run{r:02d}.parquet"
            pd.DataFrame({"id": ids, "score": value}).to_parquet(file)
            _cli(path, "import-outputs", str(file), "--dataset", DATASET, "--judge", f"judge-{r:02d}",
                 "--id-col", "id", "--score-col", "score", "--metric", RUN_METRICS[r % len(RUN_METRICS)], root=root)


def continuous_store(n_pairs: int = 50_000, n_runs: int = 20, folder: Path = ROOT / "data",
                     root: Path = ROOT, tag: str = "") -> tuple[Path, float]:
    """The continuous store, built once per (pairs, runs); returns its path and the build time (0: reused).

    ``root`` and ``tag``: build it with another checkout's CLI (an older schema, for that code to read),
    kept under its own name.
    """
    key = hashlib.sha1(f"{n_pairs}-{n_runs}-v1".encode()).hexdigest()[:8]
    path = folder / f"bench-continuous-{n_pairs}x{n_runs}-{key}{tag}.duckdb"
    if path.exists():
        return path, 0.0
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")  # data/*.tmp is git-ignored
    for p in (tmp, Path(f"{tmp}.wal")):
        p.unlink(missing_ok=True)
    t0 = time.perf_counter()
    build_continuous(tmp, n_pairs, n_runs, root=root)
    shutil.move(tmp, path)
    return path, time.perf_counter() - t0


def discrete_store(n_pairs: int = 50_000, n_runs: int = 20, folder: Path = ROOT / "data",
                   root: Path = ROOT, tag: str = "") -> tuple[Path, float]:
    """bench/bench_page.py's store (discrete green and ec_sig values, dataset ``bench``); with ``root``,
    built by that checkout's bench_page.py and core (its schema), kept under ``tag``."""
    folder.mkdir(parents=True, exist_ok=True)
    if root == ROOT:
        from bench_page import bench_store

        store, seconds = bench_store(n_pairs, n_runs, folder)
        return store.path, seconds
    path = folder / f"bench-page-{n_pairs}x{n_runs}{tag}.duckdb"
    if path.exists():
        return path, 0.0
    tmp = path.with_suffix(".tmp")
    for p in (tmp, Path(f"{tmp}.wal")):
        p.unlink(missing_ok=True)
    t0 = time.perf_counter()
    code = ("import sys; from pathlib import Path; sys.path.insert(0, 'bench'); from bench_page import build_store; "
            f"build_store(Path({str(tmp)!r}), {n_pairs}, {n_runs})")
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                          env=dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True"))
    if proc.returncode != 0:
        raise SystemExit(f"building the discrete store with {root} failed:\n{proc.stderr[-2000:]}")
    shutil.move(tmp, path)
    return path, time.perf_counter() - t0


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="build the benchmark stores")
    ap.add_argument("--pairs", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    print(continuous_store(a.pairs, a.runs))
    print(discrete_store(a.pairs, a.runs))
