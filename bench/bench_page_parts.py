"""Where the Correlations page's first render goes: each data function timed inside real renders.

Opens the page through AppTest on the large store of bench/bench_page.py (built there, reused here),
``--repeat`` times with every Streamlit cache cleared first (a freshly started server), and reports the
wall seconds spent in each of the page's data functions during that render, then in a filter change
(one modality). The rest of a render is Streamlit's own work (widgets, tables, AppTest overhead).
A diagnostic beside bench_page.py (which reports the contract's numbers); it writes nothing.

    .venv/bin/python bench/bench_page_parts.py [--pairs 50000] [--runs 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_page  # noqa: E402

#: module:function (or module:Class.method) timed while the page renders
TIMED = (
    "core.reads.pairmatrix:pair_matrix", "core.reads.pairmatrix:PairMatrix.correlate", "core.reads.pairmatrix:read_ratings",
    "core.analysis.stats:agreement_matrix", "core.analysis.stats:judge_metric_table", "core.reads.queries:list_datasets",
    "core.reads.queries:facet_values", "core.reads.targets:main_targets_present", "core.reads.frames:judge_runs",
    "core.reads.ratings:expert_annotators", "core.store.db:Store.data_version",
)
SPENT: collections.Counter = collections.Counter()


def _wrap(spec: str) -> None:
    module_name, name = spec.split(":")
    owner = importlib.import_module(module_name)
    attr = name
    if "." in name:
        cls, attr = name.split(".")
        owner = getattr(owner, cls)
    original = getattr(owner, attr)

    @functools.wraps(original)
    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            SPENT[name] += time.perf_counter() - t0

    setattr(owner, attr, timed)


def _filter(at) -> None:
    at.multiselect(key="corr_modality").set_value([bench_page.MODALITIES[0]]).run()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=ROOT / "data")
    args = parser.parse_args()
    import streamlit as st

    big, _ = bench_page.bench_store(args.pairs, args.runs, args.folder)
    warm = bench_page._app(bench_page.demo_store(args.folder).path)
    warm.run()  # imports are not the page's cost
    for spec in TIMED:
        _wrap(spec)
    for i in range(args.repeat):
        st.cache_data.clear()
        st.cache_resource.clear()
        at = bench_page._app(big.path)
        for step, action in (("first render", at.run),
                             ("filter change", functools.partial(_filter, at))):
            SPENT.clear()
            t0 = time.perf_counter()
            action()
            total = time.perf_counter() - t0
            bench_page._check(at, step)
            parts = ", ".join(f"{k} {v:.3f}" for k, v in SPENT.most_common())
            print(f"pass {i + 1} {step}: {total:.2f} s; {parts}; other {total - sum(SPENT.values()):.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
