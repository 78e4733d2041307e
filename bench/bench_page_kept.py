"""What keeping results in the store (core/reads/results.py) costs and saves on one page's first render.

Under AppTest (the page script in this process, so CPU seconds are the server's), on a copy of ``--store``,
with every Streamlit cache emptied before each render (a freshly started server):

* **not kept** (as before migration 012): ``results.keep`` replaced by a no-op;
* **first, keeping**: the kept results deleted, then a render that keeps what took >= KEEP_ABOVE_S;
* **restart, reading kept**: a render that finds them in the store.

    .venv/bin/python bench/bench_page_kept.py --store S --dataset D [--page pages/correlations.py]
        [--param ci=always ...] [--repeat 2] [--keep-above SECONDS]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import bench_page  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--dataset", default="demo")
    parser.add_argument("--page", default="pages/correlations.py")
    parser.add_argument("--param", action="append", default=[], help="a URL parameter NAME=VALUE")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--keep-above", type=float, help="results.KEEP_ABOVE_S for this run")
    args = parser.parse_args()
    import streamlit as st

    from core.reads import results
    from core.store.db import Store

    if args.keep_above is not None:
        results.KEEP_ABOVE_S = args.keep_above
    params = {"dataset": args.dataset, **dict(p.split("=", 1) for p in args.param)}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store.duckdb"
        shutil.copyfile(args.store, path)
        Store(path).data_version()  # migrated before the timing
        warm = bench_page._app(path, args.page)
        warm.query_params.update(params)
        warm.run()  # imports are not what is measured here

        def render(label: str) -> None:
            st.cache_data.clear()
            st.cache_resource.clear()
            results._KEYS.clear()  # a new process knows no kept keys
            at = bench_page._app(path, args.page)
            at.query_params.update(params)
            c0, t0 = time.process_time(), time.perf_counter()
            at.run()
            if at.exception:
                raise SystemExit(f"{label}: {[e.value for e in at.exception]}")
            kept = Store(path).query_one("SELECT count(*) FROM results_cache")
            print(f"{label}: {time.process_time() - c0:.2f} CPU-s, {time.perf_counter() - t0:.2f} s wall, "
                  f"{kept} result(s) kept", flush=True)

        keep = results.keep
        for _ in range(args.repeat):
            results.keep = lambda *a, **k: False
            with Store(path).write(counter="cache_version") as conn:
                conn.execute("DELETE FROM results_cache")
            render("not kept (as before)")
            results.keep = keep
            render("first, keeping")
            render("restart, reading kept")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
