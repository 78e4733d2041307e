"""How often one dashboard run opens the store, how long it holds the file at a stretch, and its CPU.

Each page's first run under AppTest (the page script in this process), on ``STORE`` (dataset ``demo``), every
Streamlit cache emptied first and serve.py's PRELOAD modules imported (as a started server has them), with
``core.store.handles.connect``/``close`` wrapped: the number of openings, the longest time one connection was
open, the time the file was held in all, and the run's CPU seconds. Run it in each checkout to compare
(docs/PERFORMANCE.md, "Pages"; tests/app/test_page_store_once.py asserts the openings).

    .venv/bin/python bench/bench_store_openings.py STORE pages/correlations.py pages/data.py ...
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from pathlib import Path

ROOT = Path.cwd()  # the checkout measured (run from its root)
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def main(store: str, pages: list[str]) -> None:
    os.environ["RADCONCORD_STORE"] = store
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from core.store import handles
    from tests.apptest_steady import keep_steady

    keep_steady()  # a server's steady state, as tests/conftest.py's app_test
    opened: dict[int, float] = {}
    holds: list[float] = []
    real_connect, real_close = handles.connect, handles.close

    def connect(path, **kwargs):
        conn = real_connect(path, **kwargs)
        opened[id(conn)] = time.perf_counter()
        return conn

    def close(conn, path):
        started = opened.pop(id(conn), None)
        if started is not None:
            holds.append(time.perf_counter() - started)
        return real_close(conn, path)

    handles.connect, handles.close = connect, close
    for name in ("core.analysis.stats", "core.analysis.summary", "core.analysis.ensemble", "plotly.graph_objects"):
        importlib.import_module(name)  # serve.py's PRELOAD
    for page in pages:
        st.cache_data.clear()
        st.cache_resource.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.query_params.update({"dataset": "demo"})
        at.switch_page(page)
        holds.clear()
        cpu, wall = time.process_time(), time.perf_counter()
        at.run()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        if at.exception:
            raise SystemExit(f"{page}: {[e.value for e in at.exception]}")
        print(f"{page}: {len(holds)} openings, longest hold {max(holds, default=0):.2f} s, "
              f"held {sum(holds):.2f} of {wall:.2f} s, {cpu:.2f} CPU-s", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    main(sys.argv[1], sys.argv[2:])
