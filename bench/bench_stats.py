"""Correlation table with bootstrap CIs vs a naive scipy loop over the resamples.

Synthetic, seeded data: 10 metrics x 2,000 pairs (500 references with 4
candidates each, as in ReXVal), one judge. ``core.analysis.stats.correlate`` computes
Kendall tau-b, Spearman rho and Pearson r with 1,000 bootstrap resamples each,
once resampling pairs and once resampling reference groups. The baseline is
what a script would do: for every resample, materialize it and call scipy's
three functions; it is timed on fewer resamples in the same command and
extrapolated linearly to 1,000 (labelled as such). Prints a markdown table;
``--write`` appends it to docs/PERFORMANCE.md (or ``--out``).

    .venv/bin/python bench/bench_stats.py [--pairs 2000] [--boot 1000] [--repeat 5] [--write]
"""

from __future__ import annotations

import platform
import shlex
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats as sps  # noqa: E402

from bench.benchlib import parser  # noqa: E402
from core.analysis.stats import bootstrap_indices, correlate  # noqa: E402

METRICS = ("green", "ec_sig", "ec_total", "green_f1", "formula", "vert", "rubric", "radfact", "bleu4", "rouge_l")
BUDGET_S = 2.0


def synthetic(n_pairs: int, seed: int = 0, per_group: int = 4) -> pd.DataFrame:
    """Long frame: pair_id, group_id, judge, metric, value, target (score in k/15, 16 levels)."""
    rng = np.random.default_rng(seed)
    quality = rng.uniform(0, 1, n_pairs)
    # three annotators score 0-5; the target is their exact mean / 5 = (integer sum) / 15
    raters = np.clip(np.rint(quality[:, None] * 5 + rng.normal(0, 0.8, (n_pairs, 3))), 0, 5).astype(int)
    target = raters.sum(1) / 15
    errors = rng.poisson(4 * (1 - quality))
    matched = rng.poisson(2 + 4 * quality)
    insig = rng.poisson(1.5, n_pairs)

    def noisy(scale: float) -> np.ndarray:
        return np.clip(quality + rng.normal(0, scale, n_pairs), 0, 1)

    with np.errstate(invalid="ignore", divide="ignore"):
        values = {
            "green": np.where(matched > 0, matched / (matched + errors), 0.0),
            "ec_sig": errors.astype(float),
            "ec_total": (errors + insig).astype(float),
            "green_f1": np.where(matched > 0, 2 * matched / (2 * matched + errors), 0.0),
            "formula": np.where(matched > 0, matched / (matched + 2 * errors + 0.5 * insig), 0.0),
            "vert": np.round(noisy(0.25), 2),
            "rubric": np.round(noisy(0.3), 1),
            "radfact": noisy(0.3),
            "bleu4": noisy(0.5) ** 2,
            "rouge_l": noisy(0.4),
        }
    pair_id = np.array([f"p{i:05d}" for i in range(n_pairs)])
    group_id = np.array([f"r{i // per_group:05d}" for i in range(n_pairs)])
    return pd.concat([pd.DataFrame({"pair_id": pair_id, "group_id": group_id, "judge": "synthetic-judge",
                                    "metric": m, "value": v, "target": target}) for m, v in values.items()],
                     ignore_index=True)


def naive_loop(data: pd.DataFrame, n_boot: int, seed: int, groups: bool) -> float:
    """Seconds for the naive scipy loop over ``n_boot`` resamples of every metric."""
    t0 = time.perf_counter()
    for _, frame in data.groupby("metric"):
        frame = frame.sort_values("pair_id")
        x, y = frame["value"].to_numpy(), frame["target"].to_numpy()
        for idx in bootstrap_indices(len(x), frame["group_id"].to_numpy() if groups else None, n_boot, seed):
            xs, ys = x[idx], y[idx]
            sps.kendalltau(xs, ys)
            sps.spearmanr(xs, ys)
            sps.pearsonr(xs, ys)
    return time.perf_counter() - t0


def main() -> None:
    ap = parser(__doc__, pairs=2000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--baseline-boot", type=int, default=20, help="resamples timed for the naive loop")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of correlate (median and best shown)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", action="store_true", help="append the table to --out")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "PERFORMANCE.md",
                    help="file --write appends to (created with a '# Performance' title if missing)")
    args = ap.parse_args()

    data = synthetic(args.pairs, args.seed)
    correlate(data, n_boot=args.boot, seed=args.seed)  # untimed warm-up: allocations, BLAS threads
    rows = []
    for label, cluster_col in (("pairs", None), ("groups (500 x 4)", "group_id")):
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            table = correlate(data, n_boot=args.boot, seed=args.seed, cluster_col=cluster_col)
            times.append(time.perf_counter() - t0)
        assert len(table) == len(METRICS) and (table["n"] == args.pairs).all()
        base = naive_loop(data, args.baseline_boot, args.seed, cluster_col is not None)
        base_full = base * args.boot / args.baseline_boot
        rows.append((label, statistics.median(times), min(times), base, base_full))

    cmd = ".venv/bin/python bench/" + Path(__file__).name + (" " + shlex.join(sys.argv[1:]) if sys.argv[1:] else "")
    lines = [
        f"### core.analysis.stats.correlate: {len(METRICS)} metrics x {args.pairs} pairs, "
        f"{args.boot} bootstrap resamples, tau + rho + r with CIs",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}, numpy {np.__version__}. Command: `{cmd}`",
        "",
        f"| resampling | correlate, median of {args.repeat} (s) | best (s) | budget (s) | naive scipy loop, "
        f"{args.baseline_boot} resamples, measured (s) | naive, {args.boot} resamples, **extrapolated** (s) "
        "| speed-up (extrapolated / median) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, med, best, base, base_full in rows:
        ok = "" if med < BUDGET_S else " (over budget)"
        lines.append(f"| {label} | {med:.3f}{ok} | {best:.3f} | {BUDGET_S:.1f} | {base:.3f} | {base_full:.1f} "
                     f"| {base_full / med:.0f}x |")
    lines += ["", "Synthetic data (seeded); the machine's 2 cores are shared, so timings vary between runs."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        path = args.out
        head = "" if path.exists() else "# Performance\n"
        with path.open("a", encoding="utf-8") as fh:  # append only: other sections stay as they are
            fh.write(head + "\n" + text + "\n")
        print(f"\nappended to {path}")


if __name__ == "__main__":
    main()
