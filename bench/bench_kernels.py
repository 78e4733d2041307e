"""The two exact Kendall tau-b kernels of the bootstrap, against each other and a naive scipy loop.

For m distinct (x, y) cells and B resamples, ``core.analysis.stats`` computes tau-b of every resample either with
the cell kernel (a triangular product in BLAS, ``m^2 / 2`` multiply-adds per resample) or with the merge
kernel (weighted merge-sort inversion counts, ``m log2 m`` elementwise steps per resample), and picks the
cheaper one (``core.analysis.stats.kendall_kernel``). This times both on the same resamples (continuous x and y, so
m = n), checks that they agree exactly, and fits the per-unit costs ``CELLS_NS`` and ``MERGE_NS`` that
the choice uses. Baseline in the same run: ``scipy.stats.kendalltau`` on each materialized resample.

    .venv/bin/python bench/bench_kernels.py [--sizes 100 300 1000 3000 10000] [--boot 200] [--write]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from benchlib import best_of  # noqa: E402
from perfdoc import command, finish, stamp  # noqa: E402
from scipy import stats as sps  # noqa: E402

from core.analysis import stats  # noqa: E402

TITLE = "### Bootstrap Kendall kernels: cells vs merge (bench_kernels.py)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 3000, 10000])
    ap.add_argument("--boot", type=int, default=200)
    ap.add_argument("--scipy-boot", type=int, default=20, help="resamples timed for the scipy loop")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="replace this section of docs/PERFORMANCE.md")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    rows, cells_ns, merge_ns = [], [], []
    for n in args.sizes:
        x = rng.normal(size=n)
        y = 0.6 * x + rng.normal(size=n)
        counts = stats.counts_by_pair(n, None, args.boot, 1)
        got = {}

        def run(kernel: str, got=got, x=x, y=y, counts=counts) -> None:
            got[kernel] = stats.boot_stats(x, y, counts, ("kendall",), kernel=kernel)["kendall"]

        t_cells = best_of(lambda: run("cells"), args.repeat)
        t_merge = best_of(lambda: run("merge"), args.repeat)
        assert np.array_equal(got["cells"], got["merge"], equal_nan=True), n
        idx = stats.bootstrap_indices(n, None, args.scipy_boot, 1)
        t0 = time.perf_counter()
        for b, i in enumerate(idx):
            assert abs(sps.kendalltau(x[i], y[i]).statistic - got["merge"][b]) < 1e-12
        t_scipy = (time.perf_counter() - t0) * args.boot / args.scipy_boot
        levels = math.ceil(math.log2(n))
        cells_ns.append(t_cells / (n * n / 2 * args.boot) * 1e9)
        merge_ns.append(t_merge / (n * levels * args.boot) * 1e9)
        rows.append((n, t_cells, t_merge, t_scipy, stats.kendall_kernel(n)))
    lines = [
        TITLE, "",
        f"{stamp(f', numpy {np.__version__}')}. Command: `{command(__file__)}`", "",
        f"| pairs (= cells, continuous) | cell kernel, {args.boot} resamples (s) | merge kernel (s) "
        f"| scipy loop, {args.boot} resamples (s, **extrapolated** from {args.scipy_boot}) "
        "| cell / merge | scipy / chosen | chosen by `kendall_kernel` |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for n, tc, tm, ts, choice in rows:
        chosen = tc if choice == "cells" else tm
        lines.append(f"| {n:,} | {tc:.3f} | {tm:.3f} | {ts:.2f} | {tc / tm:.2f} | {ts / chosen:.0f}x | {choice} |")
    lines += [
        "",
        f"Both kernels give the same numbers on every resample (asserted), equal to scipy's to 1e-12. Fitted "
        f"costs: cell kernel {statistics.median(cells_ns[-2:]):.2f} ns per m^2/2 multiply-add (median of the two "
        f"largest sizes), merge kernel {statistics.median(merge_ns):.1f} ns per m log2 m step; core.analysis.stats uses "
        f"CELLS_NS = {stats.CELLS_NS} and MERGE_NS = {stats.MERGE_NS}. Best of {args.repeat}; the machine's "
        "2 cores are shared.",
    ]
    finish(TITLE, lines, args.write)


if __name__ == "__main__":
    main()
