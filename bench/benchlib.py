"""Pieces several benchmarks share: the argument parser's common options, best-of-N timing, and the
fake model server (tests/fake_openai.py) in its own process. The doc-writing helpers are in perfdoc.py."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def parser(doc: str, *, pairs: int | None = None, latency: float | None = None,
           concurrency: int | None = None) -> argparse.ArgumentParser:
    """An ArgumentParser described by ``doc``'s first line, with the options whose default is given:
    ``--pairs``, ``--latency`` (seconds the fake model takes to answer), ``--concurrency``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    if pairs is not None:
        ap.add_argument("--pairs", type=int, default=pairs)
    if latency is not None:
        ap.add_argument("--latency", type=float, default=latency, help="seconds the fake model takes to answer")
    if concurrency is not None:
        ap.add_argument("--concurrency", type=int, default=concurrency)
    return ap


def best_of(fn, repeat: int, clock=time.perf_counter) -> float:
    """The shortest of ``repeat`` calls of ``fn``, in seconds of ``clock``."""
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times)


def start_fake_server(*args: str) -> tuple[subprocess.Popen, str]:
    """``python tests/fake_openai.py --port 0 *args`` in its own process, as a real provider would be
    (in the benchmark's process it would compete with the client for the GIL); returns the process
    (terminate it when done) and its base URL."""
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_openai.py"), "--port", "0", *args],
                              stdout=subprocess.PIPE, text=True)
    return server, server.stdout.readline().split()[-1]
