"""Statistics at scale: whole `python -m core correlate` processes on 1,000,000 judge outputs.

Stores (bench/bigstores.py, built once and kept under data/): ``continuous`` is issue 18's store, built
with the CLI (50,000 pairs in 12,500 reference groups of 4, one annotator's 0-5 score, 20 imported runs
whose scores have 4 decimals); ``discrete`` is bench/bench_page.py's store (the same shape, with the
discrete GREEN and error-count values an LLM judge writes, two annotators: 40 series).

Timed, each as a fresh process (wall seconds, median of ``--repeat``; peak RSS of that process):

* ``correlate --dataset D --target score --json`` (CIs included: ``--ci auto``, asymptotic at this size),
  ``--breakdown modality``, and ``--ci bootstrap`` (the seeded cluster bootstrap, on request);
* the same commands with the code before this change (``git archive`` of ``--before-ref`` into a
  temporary folder; on the continuous store only with ``--before-continuous``: it took 1,161 s in
  issue 18);
* ``ensemble --dataset demo`` on a 400-pair demo store with the rules, lexical and length judges, before
  and after, plus ``core.analysis.ensemble.ensemble_table`` timed in process (no imports);
* the baseline in the same run: a naive scipy loop over the same stored vectors (read with
  core.reads.frames.correlation_frame), i.e. ``scipy.stats.kendalltau/spearmanr/pearsonr`` per series and per
  cluster-bootstrap resample; timed on ``--baseline-boot`` resamples per series and extrapolated to 1,000
  (labelled as such).

    .venv/bin/python bench/bench_correlate.py [--pairs 50000] [--runs 20] [--repeat 3] [--before-continuous] [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import numpy as np  # noqa: E402
from bigstores import continuous_store, discrete_store  # noqa: E402
from perfdoc import finish  # noqa: E402

TITLE = "### Statistics at scale: correlate on 1,000,000 judge outputs (bench_correlate.py)"
TARGETS = {"correlate": 10.0, "breakdown": 15.0, "memory_mb": 1500.0, "ensemble_table": 1.0}


# `python -m core` inside a launcher that writes the process's own VmHWM when it exits. ru_maxrss from wait4
# is no use here: Linux carries the parent's high-water mark into a child at exec, so every child of this
# (large) process would report at least this process's peak.
_PEAK = """import atexit, os, runpy, sys
def _peak():
    with open('/proc/self/status') as f, open(os.environ['BENCH_PEAK_FILE'], 'w') as out:
        out.write(next(line.split()[1] for line in f if line.startswith('VmHWM:')))
atexit.register(_peak)
sys.argv = ['core', *sys.argv[1:]]
runpy.run_module('core', run_name='__main__', alter_sys=True)
"""


def run(cwd: Path, store: Path | None, *args: str, timeout: float = 7200) -> tuple[float, float, str]:
    """One `python -m core` process: (wall seconds, peak RSS in MB, stdout)."""
    cmd = [sys.executable, "-c", _PEAK] + (["--store", str(store)] if store else []) + list(args)
    out = tempfile.TemporaryFile()
    with tempfile.NamedTemporaryFile(suffix=".peak") as peak:
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.PIPE, timeout=timeout,
                              env=dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", BENCH_PEAK_FILE=peak.name))
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(args)} in {cwd} failed:\n{proc.stderr.decode()[-2000:]}")
        kb = Path(peak.name).read_text().strip()
    out.seek(0)
    return wall, int(kb) / 1024, out.read().decode()


def timed(cwd: Path, store: Path | None, args: list[str], repeat: int) -> dict:
    runs = [run(cwd, store, *args) for _ in range(repeat)]
    return {"s": statistics.median(r[0] for r in runs), "all": [r[0] for r in runs],
            "mb": max(r[1] for r in runs), "out": runs[-1][2]}


def checkout(ref: str, folder: Path) -> Path:
    """The code of ``ref`` (git archive), to run the 'before' commands from."""
    archive = folder / "before.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "archive", ref], cwd=ROOT, stdout=fh, check=True)
    target = folder / "before"
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    return target


def naive_loop(store: Path, dataset: str, n_boot: int, baseline_boot: int) -> dict:
    """What a script would do: read the vectors, then scipy per series and per cluster-bootstrap resample."""
    from scipy import stats as sps

    from core.analysis.stats import bootstrap_indices
    from core.reads.frames import correlation_frame
    from core.store.db import Store

    t0 = time.perf_counter()
    frame = correlation_frame(Store(store), dataset, "score", counts=False)
    read = time.perf_counter() - t0
    point = boot = 0.0
    series = 0
    for _, part in frame.groupby(["judge", "metric"]):
        part = part.sort_values("pair_id")
        x, y = part["value"].to_numpy(float), part["target"].to_numpy(float)
        groups = part["group_id"].to_numpy(dtype=object)
        t0 = time.perf_counter()
        sps.kendalltau(x, y)
        sps.spearmanr(x, y)
        sps.pearsonr(x, y)
        point += time.perf_counter() - t0
        t0 = time.perf_counter()
        for idx in bootstrap_indices(len(x), groups, n_boot=baseline_boot, seed=0):
            xs, ys = x[idx], y[idx]
            sps.kendalltau(xs, ys)
            sps.spearmanr(xs, ys)
            sps.pearsonr(xs, ys)
        boot += time.perf_counter() - t0
        series += 1
    return {"read": read, "point": point, "boot_measured": boot, "series": series,
            "total": read + point + boot * n_boot / baseline_boot}


def demo_for_ensemble(root: Path, folder: Path, tag: str = "") -> Path:
    """``python -m core demo`` (400 pairs) plus the rules, lexical and length judges, by the code in root."""
    path = ROOT / "data" / f"bench-ensemble-demo-400{tag}.duckdb"
    if path.exists():
        return path
    tmp = folder / f"demo{tag}.duckdb"
    run(root, tmp, "demo")
    for judge in ("rules", "lexical", "length"):
        run(root, tmp, "judge", "--dataset", "demo", "--judge", judge)
    shutil.move(tmp, path)
    return path


def ensemble_in_process(store: Path, repeat: int) -> float:
    from core.analysis.ensemble import ensemble_table, feature_sets_by_metric
    from core.analysis.scores import METRICS
    from core.reads.frames import feature_frame
    from core.reads.targets import HIGHER_IS_BETTER, resolve_target
    from core.store.db import Store

    s = Store(store)
    target = resolve_target(s, "demo", None)
    features = feature_frame(s, "demo", target)
    columns = [c for c in features.columns if ":" in c]
    sets = {k: v for k, v in feature_sets_by_metric(columns, all_name=None).items() if k in METRICS}
    sets["All"] = columns
    times = []
    for _ in range(repeat + 1):  # the first call warms caches (threadpool controller, imports inside)
        t0 = time.perf_counter()
        ensemble_table(features, "target", sets, seed=0, target_higher_is_better=HIGHER_IS_BETTER[target],
                       n_boot=1000)
        times.append(time.perf_counter() - t0)
    return statistics.median(times[1:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before-ref", default="7373225", help="git ref of the code before this change")
    ap.add_argument("--before-continuous", action="store_true",
                    help="also time the old code on the continuous store (20 minutes at full size)")
    ap.add_argument("--small-pairs", type=int, default=5000,
                    help="also a continuous store of this many pairs (x --runs), before and after: both bootstrap "
                         "(auto keeps the bootstrap up to 5,000 pairs), cell kernel vs merge kernel (0: skip)")
    ap.add_argument("--no-bootstrap", action="store_true", help="skip the --ci bootstrap runs")
    ap.add_argument("--baseline-boot", type=int, default=3, help="resamples per series timed for the naive loop")
    ap.add_argument("--write", action="store_true", help="replace this section of docs/PERFORMANCE.md")
    args = ap.parse_args()

    started = time.perf_counter()
    load = os.getloadavg()[0]
    cont, cont_build = continuous_store(args.pairs, args.runs)
    disc, disc_build = discrete_store(args.pairs, args.runs)
    rows: list[tuple] = []  # (what, seconds, peak MB, vs baseline, target, note)
    with tempfile.TemporaryDirectory() as tmp:
        before = checkout(args.before_ref, Path(tmp))
        base = naive_loop(cont, "big", 1000, args.baseline_boot)
        corr = ["correlate", "--dataset", "big", "--target", "score", "--json"]
        r = timed(ROOT, cont, corr, args.repeat)
        methods = sorted({row["ci_method"] for row in json.loads(r["out"])})
        rows.append(("continuous: `correlate` (CIs: auto, here " + ", ".join(methods) + ")", r, "correlate"))
        r = timed(ROOT, cont, [*corr, "--breakdown", "modality"], args.repeat)
        cells = json.loads(r["out"])
        rows.append((f"continuous: `correlate --breakdown modality` ({len(cells)} cells of about "
                     f"{statistics.median(c['n'] for c in cells):,.0f} pairs; "
                     f"{', '.join(sorted({c['ci_method'] for c in cells}))})", r, "breakdown"))
        if not args.no_bootstrap:
            r = timed(ROOT, cont, [*corr, "--ci", "bootstrap"], 1)
            rows.append(("continuous: `correlate --ci bootstrap` (1,000 cluster resamples, merge kernel)", r, None))
        tag = f"-schema-of-{args.before_ref}"  # the code before reads only its own schema: its own copy
        if args.before_continuous:
            old_cont, _ = continuous_store(args.pairs, args.runs, root=before, tag=tag)
            r = timed(before, old_cont, corr, 1)
            rows.append(("continuous: `correlate`, code before (bootstrap, cell kernel)", r, None))
        if args.small_pairs:
            small, _ = continuous_store(args.small_pairs, args.runs)
            r = timed(ROOT, small, corr, args.repeat)
            methods = sorted({row["ci_method"] for row in json.loads(r["out"])})
            rows.append((f"continuous, {args.small_pairs:,} pairs x {args.runs} runs: `correlate` "
                         f"({', '.join(methods)}, merge kernel)", r, None))
            old_small, _ = continuous_store(args.small_pairs, args.runs, root=before, tag=tag)
            r = timed(before, old_small, corr, 1)
            rows.append((f"continuous, {args.small_pairs:,} pairs x {args.runs} runs: `correlate`, code before "
                         "(bootstrap, cell kernel)", r, None))
        dcorr = ["correlate", "--dataset", "bench", "--target", "score", "--json"]
        r = timed(ROOT, disc, dcorr, args.repeat)
        rows.append(("discrete: `correlate` (CIs: auto)", r, None))
        if not args.no_bootstrap:
            r = timed(ROOT, disc, [*dcorr, "--ci", "bootstrap"], args.repeat)
            rows.append(("discrete: `correlate --ci bootstrap` (cell kernel, as before)", r, None))
        old_disc, _ = discrete_store(args.pairs, args.runs, root=before, tag=tag)
        r = timed(before, old_disc, dcorr, args.repeat)
        rows.append(("discrete: `correlate`, code before (bootstrap)", r, None))
        demo = demo_for_ensemble(ROOT, Path(tmp))
        old_demo = demo_for_ensemble(before, Path(tmp), tag)
        ens = ["ensemble", "--dataset", "demo"]
        rows.append(("demo 400 pairs: `ensemble` whole process", timed(ROOT, demo, ens, args.repeat), None))
        rows.append(("demo 400 pairs: `ensemble` whole process, code before", timed(before, old_demo, ens,
                                                                                   args.repeat), None))
        in_proc = ensemble_in_process(demo, args.repeat)

    cmd = ".venv/bin/python bench/" + Path(__file__).name + (" " + shlex.join(sys.argv[1:]) if sys.argv[1:] else "")
    lines = [
        TITLE, "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, Python {platform.python_version()}, "
        f"numpy {np.__version__}. Command: `{cmd}` (load average {load:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after; {time.perf_counter() - started:.0f} s).", "",
        "| what (whole process) | seconds (median) | runs | peak RSS (MB) | vs naive scipy loop | target | met |",
        "| --- | ---: | --- | ---: | ---: | ---: | :---: |",
    ]
    for what, r, key in rows:
        target = TARGETS.get(key) if key else None
        met = "–" if target is None else ("yes" if r["s"] < target and r["mb"] < TARGETS["memory_mb"] else "**no**")
        ratio = f"{base['total'] / r['s']:.0f}x faster" if what.startswith("continuous:") else "–"
        lines.append(f"| {what} | {r['s']:.2f} | {', '.join(f'{v:.1f}' for v in r['all'])} | {r['mb']:.0f} "
                     f"| {ratio} | {'–' if target is None else f'< {target:.0f} s, < 1,500 MB'} | {met} |")
    lines.append(f"| naive scipy loop on the continuous store, 1,000 cluster-bootstrap resamples per series "
                 f"(**extrapolated** from {args.baseline_boot}) | {base['total']:.0f} | – | – | 1x | – | – |")
    lines.append(f"| `core.analysis.ensemble.ensemble_table` on the demo, in process (no imports) | {in_proc:.2f} | – | – | – "
                 f"| < {TARGETS['ensemble_table']:.0f} s | {'yes' if in_proc < TARGETS['ensemble_table'] else '**no**'} |")
    lines += [
        "",
        f"Naive loop: reading the {base['series']} series {base['read']:.1f} s, scipy's three point estimates "
        f"{base['point']:.1f} s, {args.baseline_boot} resamples per series {base['boot_measured']:.1f} s, so 1,000 "
        f"resamples about {base['boot_measured'] * 1000 / args.baseline_boot:.0f} s. Stores "
        f"({'reused' if cont_build == 0 else f'built in {cont_build:.0f} s'} / "
        f"{'reused' if disc_build == 0 else f'built in {disc_build:.0f} s'}): continuous "
        f"`{cont.name}`, discrete `{disc.name}`. 'Code before' is `git archive {args.before_ref}` (the last "
        "commit before this work): bootstrap CIs only, the cell kernel for every resample; it reads only its "
        "own schema, so it runs on copies of the stores built by its own code from the same seeds. The "
        "machine's 2 cores are shared with other jobs, so wall times vary between runs.",
    ]
    finish(TITLE, lines, args.write)
    return 0 if all(math.isfinite(r["s"]) for _, r, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
