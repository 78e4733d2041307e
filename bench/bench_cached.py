"""Re-running a judge on 10,000 already-answered pairs: zero calls, target under 3 s.

Builds a store with ``--pairs`` pairs whose answers are already cached: a
finished run of the same model and prompt on a copy of the dataset (its
outputs hold the fake server's deterministic GREEN answers under the exact
cache keys the runner computes). Then, against a live loopback server that
counts requests:

* **cache hit**: the first run on the dataset finds every answer in the cache
  (another run's outputs) and copies them with what was parsed from them
  (``core.judges.runs.copy_cached_outputs``), sends nothing;
* **re-run**: the same run again: every pair already answered, skipped.

Baseline in the same command: reading the dataset's pairs from the store
(``core.judges.runs.load_pairs``), the least any re-run has to do.
Prints a table; ``--write`` replaces this benchmark's section of
docs/PERFORMANCE.md.

    .venv/bin/python bench/bench_cached.py --pairs 10000 [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pandas as pd  # noqa: E402

from bench.perfdoc import finish, stamp  # noqa: E402
from core.ingest.importers import PairColumns, import_pairs  # noqa: E402
from core.judges.llm import GenParams, cache_key, run_llm_judge  # noqa: E402
from core.judges.runs import OutputRecord, RunSpec, ensure_run, finish_run, load_pairs, write_outputs  # noqa: E402
from core.prompts import prompt_hash, render_messages  # noqa: E402
from core.store.db import Store  # noqa: E402
from tests.fake_openai import FakeOpenAI, green_answer  # noqa: E402

MODEL = "openai/bench-judge"
TITLE = "### Re-run of cached pairs (bench_cached.py)"
TARGET_S = 3.0


def build(store: Store, n: int) -> None:
    df = pd.DataFrame({"id": [f"b{i:06d}" for i in range(n)],
                       "ref": [f"Reference {i}: small left pleural effusion, no pneumothorax." for i in range(n)],
                       "cand": [f"Candidate {i}: left effusion, tiny pneumothorax {i % 7}." for i in range(n)]})
    for dataset in ("bench", "answered"):
        import_pairs(store, df, dataset=dataset, columns=PairColumns("id", "ref", "cand"), name=f"{dataset}.csv")
    # "answered": a finished run of the same model and prompt, as an earlier study would leave it
    params = GenParams()
    spec = RunSpec("llm", MODEL, "answered", model=MODEL, prompt_id="green", prompt_hash=prompt_hash("green"),
                   params=params.as_dict())
    run_id = ensure_run(store, spec, n)
    pairs = load_pairs(store, "answered")
    records = []
    for row in pairs.itertuples(index=False):
        messages = render_messages("green", row.reference, row.candidate)
        records.append(OutputRecord(pair_id=row.pair_id, cache_key=cache_key(MODEL, messages, params),
                                    raw_text=green_answer(json.dumps(messages, ensure_ascii=False)),
                                    latency_ms=200.0, tokens_in=500, tokens_out=120, cost_usd=None))
    write_outputs(store, run_id, records, "green")
    finish_run(store, run_id, "done")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--write", action="store_true", help="replace this section of docs/PERFORMANCE.md")
    args = ap.parse_args()
    n = args.pairs

    store = Store(Path(tempfile.mkdtemp()) / "cached.duckdb")
    t0 = time.perf_counter()
    build(store, n)
    build_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    pairs = load_pairs(store, "bench")
    baseline = time.perf_counter() - t0
    assert len(pairs) == n
    # where the time goes: what the runner does for every pair before it can skip one ...
    t0 = time.perf_counter()
    messages = [render_messages("green", r.reference, r.candidate) for r in pairs.itertuples(index=False)]
    keys = [cache_key(MODEL, m, GenParams()) for m in messages]
    render_s = time.perf_counter() - t0
    assert len(set(keys)) == n
    # ... and what a cache hit would add if it parsed each stored answer again (1,000 timed, scaled to n)
    from core.parse import parse_output

    sample = [green_answer(json.dumps(m, ensure_ascii=False)) for m in messages[:1000]]
    t0 = time.perf_counter()
    for text in sample:
        parse_output(text)
    parse_s = (time.perf_counter() - t0) * n / len(sample)
    with FakeOpenAI() as server:
        t0 = time.perf_counter()
        hit = run_llm_judge(store, dataset="bench", model=MODEL, api_base=server.url, concurrency=32)
        hit_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = run_llm_judge(store, dataset="bench", model=MODEL, api_base=server.url, concurrency=32)
        again_s = time.perf_counter() - t0
        calls = server.requests
    assert hit.cached == n and hit.sent == 0 and again.skipped == n and again.sent == 0 and calls == 0, \
        (hit, again, calls)
    assert store.query_one("SELECT count(*) FROM judge_outputs WHERE run_id = ?", [hit.run_id]) == n
    count_values = "SELECT count(*) FROM metric_values m JOIN judge_runs r USING (run_id) WHERE r.dataset = ?"
    assert store.query_one(count_values, ["bench"]) == store.query_one(count_values, ["answered"]) > 0

    def met(s: float) -> str:
        return "yes" if s < TARGET_S else "**no**"

    cmd = f".venv/bin/python bench/bench_cached.py --pairs {n}" + (" --write" if args.write else "")
    lines = [
        TITLE, "",
        f"{stamp()}. Command: `{cmd}`", "",
        f"| what ({n:,} pairs) | calls sent | seconds | ratio vs baseline | target (s) | met |",
        "| --- | ---: | ---: | ---: | ---: | :---: |",
        f"| baseline: read the dataset's pairs from the store | – | {baseline:.2f} | 1.0x | – | – |",
        f"| first run, every answer in the cache (copied with its parsed metrics) | {hit.sent} | {hit_s:.2f} | "
        f"{hit_s / baseline:.1f}x | {TARGET_S:.0f} | {met(hit_s)} |",
        f"| re-run of the finished run (every pair skipped) | {again.sent} | {again_s:.2f} | "
        f"{again_s / baseline:.1f}x | {TARGET_S:.0f} | {met(again_s)} |",
        f"| of which: render and hash every prompt (done before the skip check) | – | {render_s:.2f} | "
        f"{render_s / baseline:.1f}x | – | – |",
        f"| for comparison: parsing every answer again instead (**extrapolated** from 1,000) | – | {parse_s:.2f} | "
        f"{parse_s / baseline:.1f}x | – | – |",
        "",
        f"The loopback server counted {calls} requests in both runs. Building the store (two imports of {n:,} "
        f"pairs and a finished run whose answers fill the cache) took {build_s:.1f} s and is not timed above. "
        "The machine's 2 cores are shared with other jobs, so timings vary between runs.",
    ]
    finish(TITLE, lines, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
