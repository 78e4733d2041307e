"""What durability costs a model run: the journal's fsync per answer and the leases per run.

Measured against the store write every answer already paid for before (``write_outputs`` of the same
answers in batches of 50, as the flusher commits them), in the same command:

- journal: append + fsync of each answer (GREEN-format answers from the test server's generator);
- leases: claiming and releasing the cache keys of a run of ``--pairs`` prompts (one write each);
- a job's heartbeat: one progress write (``core.jobs.table.beat``).

    .venv/bin/python bench/bench_durable.py --answers 1000 --pairs 20000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from core.jobs import table  # noqa: E402
from core.jobs.spec import JobSpec, Task  # noqa: E402
from core.judges import leases  # noqa: E402
from core.judges.journal import Journal  # noqa: E402
from core.judges.runs import OutputRecord, RunSpec, ensure_run, write_outputs  # noqa: E402
from tests.conftest import marked_store  # noqa: E402
from tests.fake_openai import green_answer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=20000, help="cache keys leased by one run")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = marked_store(Path(tmp) / "s.duckdb", args.answers)
        pairs = store.query_df("SELECT pair_id FROM pairs ORDER BY ext_id")["pair_id"].tolist()
        records = [OutputRecord(pair_id=p, cache_key=f"k{i}", raw_text=green_answer(p), latency_ms=200.0,
                                tokens_in=300, tokens_out=250, cost_usd=0.0) for i, p in enumerate(pairs)]
        run_id = ensure_run(store, RunSpec("llm", "bench", "d", model="bench", prompt_id="green"), len(pairs))

        t0 = time.perf_counter()
        for start in range(0, len(records), 50):
            write_outputs(store, run_id, records[start:start + 50], "green")
        store_s = time.perf_counter() - t0

        journal = Journal(store, run_id)
        times = []
        for rec in records:
            t = time.perf_counter()
            journal.append(rec)
            times.append(time.perf_counter() - t)
        journal.close(committed=True)
        journal_s = sum(times)

        keys = [f"key-{i}" for i in range(args.pairs)]
        t0 = time.perf_counter()
        leases.claim(store, keys, "bench")
        claim_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        leases.release(store, keys)
        release_s = time.perf_counter() - t0

        job_id = table.submit(store, JobSpec("d", [Task("bench", "green")]), origin="cli")
        beats = []
        for _ in range(20):
            t = time.perf_counter()
            table.beat(store, job_id, table.Progress(done=1, total=2))
            beats.append(time.perf_counter() - t)

    n = len(records)
    print(f"Command: `.venv/bin/python bench/bench_durable.py --answers {args.answers} --pairs {args.pairs}`\n")
    print("| what | total (s) | per answer (ms) | vs the store writes |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| store: write_outputs, batches of 50 (baseline) | {store_s:.3f} | {1000 * store_s / n:.3f} | 1.00x |")
    print(f"| journal: append + fsync each answer | {journal_s:.3f} | {1000 * journal_s / n:.3f} | "
          f"{journal_s / store_s:.2f}x |")
    print(f"\nJournal fsync per answer: median {1000 * statistics.median(times):.3f} ms, "
          f"p99 {1000 * sorted(times)[int(0.99 * (n - 1))]:.3f} ms.")
    print(f"Leases for a run of {args.pairs:,} prompts: claim {claim_s:.3f} s, release {release_s:.3f} s "
          f"({1e6 * (claim_s + release_s) / args.pairs:.1f} µs per prompt).")
    print(f"Job heartbeat (one progress write): median {1000 * statistics.median(beats):.1f} ms of 20.")


if __name__ == "__main__":
    main()
