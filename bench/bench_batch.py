"""The batch and replica paths of ``python -m core judge`` on loopback: throughput and requests per replica.

Batch: ``judge --batch`` (the whole CLI process) over ``--pairs`` pairs against the loopback batch server
(tests/fake_openai_batch.py, a process of its own; so is the client), files of
``--batch-lines`` lines. Reported: wall time of the process, the run's own seconds, the client's CPU
seconds, answers per second, files uploaded, batches created, lines sent and direct calls (0), and a direct
re-run's requests (0). The wall time includes the fake server's own work on the lines (about a millisecond
each, one thread per batch); the client's CPU is what uploading, polling, downloading and storing cost here.
A real provider's turnaround is hours, not measured here.

Replicas: ``judge`` with one ``--api-base`` and then with three, over ``--replica-pairs`` pairs at
``--concurrency``, against loopback servers that each answer at most ``--capacity`` calls at once (as a
vLLM replica batches at most so many sequences) in ``--latency`` seconds. Reported: wall time, run
seconds, answers per second, and the calls each replica answered (the run's own report and the
servers' counts).

    .venv/bin/python bench/bench_batch.py --pairs 10000 --replica-pairs 600 --capacity 8 --concurrency 24
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.conftest import marked_store  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")


class CappedServer(FakeOpenAI):
    """A replica that answers at most ``capacity`` calls at once; the others wait their turn."""

    def __init__(self, capacity: int, **kwargs):
        super().__init__(**kwargs)
        self.slots = threading.Semaphore(capacity)

    def _handler(self):
        base = super()._handler()
        fake = self

        class Handler(base):
            def do_POST(self):
                with fake.slots:
                    super().do_POST()

        return Handler


def judge(store_path: Path, *args: str) -> tuple[dict, float, float]:
    """(the run's JSON summary, the process's wall seconds, its CPU seconds: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "core", "--store", str(store_path), "judge", "--dataset", "d",
                           "--json", *args], cwd=ROOT, env=ENV, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"judge failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(done.stdout), wall, cpu


def bench_batch(args, tmp: Path) -> None:
    store = marked_store(tmp / "batch.duckdb", args.pairs)
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_openai_batch.py"), "--port", "0",
                               "--line-seconds", str(args.line_seconds)], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                              text=True)
    url = server.stdout.readline().split()[-1]
    try:
        out, wall, cpu = judge(store.path, "--judge", "openai/gpt-4o-mini", "--api-base", url, "--batch",
                               "--batch-max-requests", str(args.batch_lines), "--batch-poll", "2")
        stats = json.loads(urllib.request.urlopen(f"{url}/stats", timeout=30).read())
        again, again_wall, _ = judge(store.path, "--judge", "openai/gpt-4o-mini", "--api-base", url)
        direct_after = json.loads(urllib.request.urlopen(f"{url}/stats", timeout=30).read())["requests"]
    finally:
        server.terminate()
    print(f"| batch, {args.pairs:,} pairs, files of {args.batch_lines:,} lines | {wall:.1f} s | {out['seconds']:.1f} s "
          f"| {cpu:.1f} s | {out['ok'] / out['seconds']:,.0f} | {stats['uploads']} files "
          f"({stats['bytes_uploaded'] / 1e6:.1f} MB), {stats['batches_created']} batches, {stats['batch_lines']:,} "
          f"lines ({stats['distinct_lines']:,} distinct), {stats['requests']} direct calls; cost "
          f"${out['cost_usd']:.4f} (batch price); direct re-run: {again['sent']} sent ({direct_after} direct calls "
          f"in all), {again_wall:.1f} s |")


def bench_replicas(args, tmp: Path) -> None:
    for n_replicas in (1, 3):
        store = marked_store(tmp / f"replicas{n_replicas}.duckdb", args.replica_pairs)
        servers = [CappedServer(args.capacity, latency=args.latency).start() for _ in range(n_replicas)]
        try:
            flags = [x for s in servers for x in ("--api-base", s.url)]
            out, wall, cpu = judge(store.path, "--judge", "openai/fake-judge", "--concurrency",
                                   str(args.concurrency), *flags)
        finally:
            for s in servers:
                s.stop()
        shares = ", ".join(f"{s.requests}" for s in servers)
        reported = ", ".join(f"{r['ok']} (median {r['latency_ms_median']} ms)" for r in out["replicas"]) or "-"
        print(f"| {n_replicas} replica(s), {args.replica_pairs:,} pairs, concurrency {args.concurrency}, "
              f"{args.capacity} at once each, {args.latency * 1000:.0f} ms | {wall:.1f} s | {out['seconds']:.1f} s | "
              f"{cpu:.1f} s | {out['ok'] / out['seconds']:,.0f} | servers answered {shares}; the run reported {reported} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10000, help="pairs of the batch run")
    ap.add_argument("--batch-lines", type=int, default=5000, help="lines per batch file")
    ap.add_argument("--line-seconds", type=float, default=0.0, help="the batch server's seconds per line")
    ap.add_argument("--replica-pairs", type=int, default=600)
    ap.add_argument("--latency", type=float, default=0.2, help="seconds a replica takes per call")
    ap.add_argument("--capacity", type=int, default=8, help="calls a replica answers at once")
    ap.add_argument("--concurrency", type=int, default=24)
    ap.add_argument("--skip", choices=["batch", "replicas"], help="leave one part out")
    args = ap.parse_args()
    print("| what | process wall | run seconds | client CPU | answers/s (run) | counted |\n"
          "| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        if args.skip != "batch":
            bench_batch(args, Path(tmp))
        if args.skip != "replicas":
            bench_replicas(args, Path(tmp))


if __name__ == "__main__":
    main()
