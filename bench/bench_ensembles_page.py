"""The Ensembles page's first render on the 400-pair demo, against the Data page in the same run.

The store is bench_page.py's baseline (``python -m core demo --pairs 400`` with the rules and
lexical judges) plus the length judge, as the demo store of `make run` has. Each pass clears Streamlit's
caches (a freshly started server), then opens, in one process and through AppTest as a browser
session would: the Data page (the floor every page pays: app.py, the store, the dataset list)
and the Ensembles page (feature frame, model selection on training pairs, held-out tau with
1,000 bootstrap resamples per row). Medians of ``--repeat`` passes, CPU seconds beside wall.

    .venv/bin/python bench/bench_ensembles_page.py [--repeat 5] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench_page import _app, _timed, demo_store  # noqa: E402
from perfdoc import command, publish, stamp  # noqa: E402

SECTION = "### Ensembles page: first render on the demo"
BUDGET_S = 2.0


def store_with_length(folder: Path):
    from core.judges import run_judge

    store = demo_store(folder)
    if not store.query_one("SELECT count(*) FROM judge_runs WHERE judge_name = 'length'"):
        run_judge(store, dataset="demo", judge="length")
    return store


def first_render(path: Path, page: str) -> tuple[float, float, object]:
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    at = _app(path, page)
    wall, _ = _timed(at.run)
    if at.exception:
        raise SystemExit(f"{page}: the page raised {[e.value for e in at.exception]}")
    return wall, _timed.cpu, at


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--folder", type=Path, default=ROOT / "data")
    ap.add_argument("--write", action="store_true", help="replace this section of docs/PERFORMANCE.md")
    args = ap.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    store = store_with_length(args.folder)
    first_render(store.path, "pages/ensembles.py")  # warm-up: imports are not the page's cost
    load = os.getloadavg()[0]
    runs: dict[str, list[tuple[float, float]]] = {"data": [], "ensembles": []}
    rows = 0
    for i in range(args.repeat):
        for name in runs:
            wall, cpu, at = first_render(store.path, f"pages/{name}.py")
            runs[name].append((wall, cpu))
            if name == "ensembles":
                tables = [d.value for d in at.dataframe if "ci_method" in d.value.columns]
                if not tables:
                    raise SystemExit("ensembles: no ensemble table on the page")
                rows = len(tables[0])
            print(f"pass {i + 1} {name}: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    e, d = med["ensembles"], med["data"]
    lines = [
        SECTION, "",
        f"{stamp()}. Command: `{command(__file__)}` (load average {load:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after).", "",
        f"| page, first render on a cold cache (AppTest, median of {args.repeat}) | wall (s) | CPU (s) | "
        "vs Data page | target (s) | met |",
        "| --- | ---: | ---: | ---: | ---: | :---: |",
        f"| Data page (the floor every page pays) | {d[0]:.2f} | {d[1]:.2f} | 1.0x | – | – |",
        f"| Ensembles page ({rows} rows, 1,000 bootstrap resamples each) | {e[0]:.2f} | {e[1]:.2f} | "
        f"{e[0] / d[0]:.1f}x | {BUDGET_S:.0f} | {'yes' if e[0] < BUDGET_S else '**no**'} |",
        "",
        "Store: the 400-pair demo with the rules, lexical and length judges. AppTest recompiles the script "
        "on every run (a server compiles it once); Streamlit's component discovery (once per server start) is "
        "done once and shared, as in bench_page.py; the machine's 2 cores are shared with other jobs.",
        "",
    ]
    publish(SECTION, "\n".join(lines), args.write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
