"""Memory peak of the dashboard process on the 1M-output store, against an empty store.

Each measurement is a fresh Python process (so peaks do not carry over) that
drives app.py with Streamlit's AppTest, as one browser session would: the
Data page first, then the Correlations page (the heaviest reader: the
correlation frame of every judge run). It reports its peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss`` and ``VmHWM`` from /proc) after
start-up (Streamlit, pandas, DuckDB imported), after each page, and the time
each page took.

The large store is the one bench/bench_page.py builds (50,000 pairs x 20 runs =
1,000,000 judge outputs, 2,000,000 metric values), built here with its builder
when missing and reused when present. The baseline, in the same command, is the
same session on an empty store. ``--write`` replaces this benchmark's section of
docs/PERFORMANCE.md.

    .venv/bin/python bench/bench_memory.py [--pairs 50000] [--runs 20] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.perfdoc import finish, stamp  # noqa: E402

TITLE = "### Dashboard memory peak (bench_memory.py)"

# The measuring process: one AppTest session, peaks reported as JSON on the last line of stdout.
CHILD = r"""
import json, os, resource, sys, time
from pathlib import Path
root = Path(sys.argv[2])
sys.path.insert(0, str(root))

def peak_mb():
    rusage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    hwm = [l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmHWM")]
    return max(rusage, int(hwm[0].split()[1]) / 1024 if hwm else 0.0)

os.environ["RADCONCORD_STORE"] = sys.argv[1]
from streamlit.testing.v1 import AppTest
from tests.apptest_steady import keep_steady
import core.reads.frames, core.analysis.stats, duckdb, pandas  # start-up cost, measured before any page
keep_steady()  # as tests/conftest.py's app_test
out = {"startup_mb": peak_mb()}
at = AppTest.from_file(str(root / "app.py"), default_timeout=1800)
at.switch_page("pages/data.py")  # the home page is Correlations once a dataset has runs
t0 = time.perf_counter(); at.run(); out["data_s"] = time.perf_counter() - t0
assert not at.exception, [e.value for e in at.exception]
out["data_mb"] = peak_mb()
at.switch_page("pages/correlations.py")
t0 = time.perf_counter(); at.run(); out["corr_s"] = time.perf_counter() - t0
assert not at.exception, [e.value for e in at.exception]
out["corr_mb"] = peak_mb()
print(json.dumps(out))
"""


def measure(store_path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(store_path.resolve()), str(ROOT)], cwd=ROOT,
                          capture_output=True, text=True, timeout=3600,
                          env=dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false"))
    if proc.returncode != 0:
        raise SystemExit(f"measuring {store_path} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    from bench_page import bench_store  # the 1M-output store's builder (bench/bench_page.py)

    from core.store.db import Store

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--folder", type=Path, default=ROOT / "data", help="where the large store is kept")
    ap.add_argument("--write", action="store_true", help="replace this section of docs/PERFORMANCE.md")
    args = ap.parse_args()

    args.folder.mkdir(parents=True, exist_ok=True)
    big, build_s = bench_store(args.pairs, args.runs, args.folder)
    n_out = big.query_one("SELECT count(*) FROM judge_outputs")
    n_met = big.query_one("SELECT count(*) FROM metric_values")
    empty = Store(Path(tempfile.mkdtemp()) / "empty.duckdb")
    t0 = time.perf_counter()
    base = measure(empty.path)
    large = measure(big.path)
    total = time.perf_counter() - t0

    def row(name: str, m: dict) -> str:
        return (f"| {name} | {m['startup_mb']:.0f} | {m['data_mb']:.0f} | {m['data_s']:.2f} | {m['corr_mb']:.0f} | "
                f"{m['corr_s']:.2f} | {m['corr_mb'] / base['corr_mb']:.2f}x | {m['corr_mb'] - base['corr_mb']:+.0f} |")

    cmd = f".venv/bin/python bench/bench_memory.py --pairs {args.pairs} --runs {args.runs}" + \
        (" --write" if args.write else "")
    lines = [
        TITLE, "",
        f"{stamp()}. Command: `{cmd}`", "",
        "| store | peak RSS after start-up (MB) | after Data page (MB) | Data page (s) | "
        "after Correlations page (MB) | Correlations page (s) | peak vs empty store | difference (MB) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        row("empty store (baseline)", base),
        row(f"{args.pairs:,} pairs x {args.runs} runs = {n_out:,} outputs, {n_met:,} metric values", large),
        "",
        "One fresh process per store, one AppTest session each (Data page, then Correlations page); peak RSS "
        "is the larger of `ru_maxrss` and `VmHWM`, so it includes the interpreter, Streamlit, pandas and "
        "DuckDB. AppTest runs the script in the measuring process, as the server would for one session; a "
        "server with several sessions shares the cached frames between them (`st.cache_data`). "
        f"Large store built by bench/bench_page.py's builder ({'reused' if build_s == 0 else f'{build_s:.0f} s'}); "
        f"measuring took {total:.0f} s. The machine's 2 cores are shared with other jobs, so the page times "
        "vary between runs (memory much less).",
    ]
    finish(TITLE, lines, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
