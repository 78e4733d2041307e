"""Coverage study: do the 95% intervals of core.analysis.stats cover the population value 95% of the time?

Simulated data with a known population correlation, in the shape of the judge studies: references with
4 candidates each (pairs of one reference share a reference effect), n = 200 and n = 5,000 pairs.

* ``continuous``: (x, y) = reference effect + candidate effect, both bivariate normal (correlation 0.8
  between references, 0.4 within), so that every pair is bivariate normal with correlation 0.6:
  population tau-b = 2/pi asin(0.6), Spearman rho = 6/pi asin(0.3), Pearson r = 0.6 (exact).
* ``tied``: the same latent pairs, x rounded to 1 decimal (a judge's coarse score), y cut into a 0-5
  expert score: heavy ties in both. Its population values are computed from 2,000,000 independent pairs
  (Monte Carlo; standard error about 0.0005, far below the intervals' half-widths).
* ``independent``: the continuous design with one pair per reference (no clustering).

Each replication draws a sample, computes every interval, and counts whether it covers the population
value: ``bootstrap`` / ``bootstrap-cluster`` (percentile, seeded; resampling pairs or references),
``asymptotic`` / ``asymptotic-cluster`` (Fisher z, influence-value variance), and, as a check that the
study can fail, ``asymptotic, clusters ignored`` on clustered data. Monte Carlo standard error of a
coverage of 0.95 over R replications: sqrt(0.95 x 0.05 / R) (0.7% at R = 1,000). Also reported: mean
interval width, and how far the asymptotic and bootstrap endpoints are apart (mean |difference| over
the mean bootstrap width) on the same samples.

    .venv/bin/python bench/bench_coverage.py [--reps 2000] [--boot-reps 1000] [--boot-reps-large 500] [--write]

``--write`` replaces this study's section of docs/STATISTICS.md.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import shlex
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import numpy as np  # noqa: E402
from perfdoc import write_section  # noqa: E402

from core.analysis import stats  # noqa: E402

TITLE = "### Coverage of the 95% intervals (bench_coverage.py)"
DOC = ROOT / "docs" / "STATISTICS.md"
STATS = {"kendall": "tau", "spearman": "rho", "pearson": "r"}
RHO_BETWEEN, RHO_WITHIN = 0.8, 0.4


def draw(rng, n: int, design: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One sample of n pairs: x, y and the reference label per pair (None: independent pairs)."""
    per = 1 if design == "independent" else 4
    groups = n // per
    between = rng.multivariate_normal([0, 0], [[1, RHO_BETWEEN], [RHO_BETWEEN, 1]], groups) * math.sqrt(0.5)
    within = rng.multivariate_normal([0, 0], [[1, RHO_WITHIN], [RHO_WITHIN, 1]], groups * per) * math.sqrt(0.5)
    if per == 1:  # independent pairs: the same marginal law (correlation 0.6), no shared effect
        within = rng.multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], n)
        between = np.zeros((n, 2))
    xy = np.repeat(between, per, axis=0) + within
    x, y = xy[:, 0], xy[:, 1]
    if design == "tied":
        x, y = np.round(x, 1), np.clip(np.rint(2.5 + 1.2 * y), 0, 5)
    labels = None if per == 1 else np.repeat(np.arange(groups), per).astype(str)
    return x, y, labels


def population(design: str, seed: int = 12345) -> dict[str, float]:
    if design != "tied":
        return {"kendall": 2 / math.pi * math.asin(0.6), "spearman": 6 / math.pi * math.asin(0.3), "pearson": 0.6}
    rng = np.random.default_rng(seed)
    # independent pairs from the marginal law (each from its own reference), then the same rounding
    z = rng.multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], 2_000_000)
    x, y = np.round(z[:, 0], 1), np.clip(np.rint(2.5 + 1.2 * z[:, 1]), 0, 5)
    point = stats.correlation(x, y)
    return {"kendall": point["tau"], "spearman": point["rho"], "pearson": point["r"]}


def study(design: str, n: int, reps: int, boot_reps: int, n_boot: int, seed: int) -> list[dict]:
    truth = population(design)
    clustered = design != "independent"
    rng = np.random.default_rng(seed)
    methods = (["asymptotic-cluster", "asymptotic, clusters ignored", "bootstrap-cluster"] if clustered
               else ["asymptotic", "bootstrap"])
    hits = {(m, s): [] for m in methods for s in STATS}
    widths = {(m, s): [] for m in methods for s in STATS}
    gaps = {s: [] for s in STATS}
    t_asym = t_boot = 0.0
    for r in range(reps):
        x, y, labels = draw(rng, n, design)
        point = stats.correlation(x, y)
        est = {"kendall": point["tau"], "spearman": point["rho"], "pearson": point["r"]}
        t0 = time.perf_counter()
        phi = stats.influence_values(x, y)
        codes = stats.cluster_codes_of(len(x), labels) if clustered else None
        asym = {}
        for s in STATS:
            asym[("asymptotic-cluster" if clustered else "asymptotic", s)] = stats.influence_interval(
                phi[s], codes, est[s], 0.95)[:2]
            if clustered:
                asym[("asymptotic, clusters ignored", s)] = stats.influence_interval(phi[s], None, est[s], 0.95)[:2]
        t_asym += time.perf_counter() - t0
        if r < boot_reps:
            t0 = time.perf_counter()
            reps_ = stats.bootstrap_distribution(x, y, labels, n_boot=n_boot, seed=seed * 100_003 + r)
            for s in STATS:
                lo, hi, _ = stats.percentile_interval(reps_[s], 0.95)
                asym[("bootstrap-cluster" if clustered else "bootstrap", s)] = (lo, hi)
                a_lo, a_hi = asym[("asymptotic-cluster" if clustered else "asymptotic", s)]
                gaps[s].append((abs(a_lo - lo) + abs(a_hi - hi)) / 2 / (hi - lo))
            t_boot += time.perf_counter() - t0
        for key, (lo, hi) in asym.items():
            hits[key].append(lo <= truth[key[1]] <= hi)
            widths[key].append(hi - lo)
    rows = []
    for (m, s), h in hits.items():
        cov = float(np.mean(h))
        rows.append({"design": design, "n": n, "method": m, "stat": STATS[s], "truth": truth[s], "reps": len(h),
                     "coverage": cov, "mc_se": math.sqrt(0.95 * 0.05 / len(h)), "width": float(np.mean(widths[(m, s)])),
                     "gap": float(np.mean(gaps[s])) if gaps[s] and m.startswith("bootstrap") else math.nan,
                     "seconds": (t_boot if m.startswith("bootstrap") else t_asym) / max(1, len(h))})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000, help="replications for the asymptotic intervals")
    ap.add_argument("--boot-reps", type=int, default=1000, help="replications that also run the bootstrap")
    ap.add_argument("--boot-reps-large", type=int, default=500,
                    help="the same above 1,000 pairs (a bootstrap of 5,000 continuous pairs takes about 1.5 s)")
    ap.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples per replication")
    ap.add_argument("--sizes", type=int, nargs="+", default=[200, 5000])
    ap.add_argument("--designs", nargs="+", default=["continuous", "tied", "independent"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", action="store_true", help=f"replace this section of {DOC.relative_to(ROOT)}")
    args = ap.parse_args()

    started = time.perf_counter()
    rows = []
    for n in args.sizes:
        for d, design in enumerate(args.designs):
            boot_reps = args.boot_reps if n <= 1000 else args.boot_reps_large
            rows += study(design, n, args.reps, min(boot_reps, args.reps), args.n_boot, args.seed * 10 + d)
            print(f"done {design} n={n} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    cmd = ".venv/bin/python bench/" + Path(__file__).name + (" " + shlex.join(sys.argv[1:]) if sys.argv[1:] else "")
    lines = [
        TITLE, "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, Python {platform.python_version()}, "
        f"numpy {np.__version__}. Command: `{cmd}` ({time.perf_counter() - started:.0f} s).", "",
        "| design | n | interval | statistic | population value | replications | coverage | in 93-97%? "
        "| mean width | asymptotic vs bootstrap endpoints (share of width) | s per interval set |",
        "| --- | ---: | --- | --- | ---: | ---: | ---: | :---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        ok = "yes" if 0.93 <= r["coverage"] <= 0.97 else ("–" if "ignored" in r["method"] else "**no**")
        gap = "–" if math.isnan(r["gap"]) else f"{r['gap']:.3f}"
        lines.append(f"| {r['design']} | {r['n']:,} | {r['method']} | {r['stat']} | {r['truth']:.4f} | {r['reps']:,} "
                     f"| {r['coverage']:.3f} ± {r['mc_se']:.3f} | {ok} | {r['width']:.4f} | {gap} "
                     f"| {r['seconds']:.4f} |")
    lines += [
        "",
        "Designs: `continuous` and `tied` have 4 candidates per reference (n / 4 clusters; the reference effect "
        "makes pairs of one reference correlated), `independent` one pair per reference. ± is the Monte Carlo "
        "standard error of a 0.95 coverage. 'clusters ignored' is the asymptotic interval computed as if the "
        "pairs were independent: it is expected to under-cover (shown to prove that the study can fail). The "
        "endpoint column is the mean |asymptotic - bootstrap| endpoint difference over the bootstrap width, on "
        f"the same samples. Bootstrap: {args.n_boot:,} resamples per replication, percentile interval.",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(TITLE, text, DOC)
        print(f"\nwritten to {DOC}")


if __name__ == "__main__":
    main()
