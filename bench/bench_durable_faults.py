"""The issue-29 fault scenarios, with the numbers printed: what the server was sent, what was kept.

1. Full disk: a store of ``--pairs`` pairs on a 64 MB tmpfs (root only) with ``--free-mb`` left,
   ``judge --concurrency 16``; then the space is freed and the same command resumes.
2. A reader holds the store past the patience (``RADCONCORD_STORE_TIMEOUT=2``) mid-run; then resume.
3. Two identical runs started together.

Counts come from the loopback server (requests received) and the store (outputs), never from the
client's own summary.

    sudo .venv/bin/python bench/bench_durable_faults.py --pairs 2000 --free-mb 6
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import duckdb  # noqa: E402

from core.judges import journal  # noqa: E402
from tests.conftest import marked_store  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

MODEL = "openai/fake-judge"


def judge(store, url, concurrency, env=None):
    cmd = [sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset", "d", "--judge", MODEL,
           "--api-base", url, "--concurrency", str(concurrency), "--max-retries", "0", "--json"]
    t0 = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    return done, time.monotonic() - t0


def stored(store) -> int:
    return store.query_one("SELECT count(*) FROM judge_outputs WHERE error IS NULL")


def journaled(store) -> int:
    return sum(len(journal.read_records(p)) for p in journal.journal_dir(store).glob("*.jsonl"))


def full_disk(pairs: int, free_mb: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        disk = Path(tmp)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(disk)], check=True)
        try:
            store = marked_store(disk / "s.duckdb", pairs)
            st = os.statvfs(disk)
            filler = disk / "filler"
            subprocess.run(["fallocate", "-l", f"{st.f_bavail * st.f_frsize // 1024 - free_mb * 1024}k",
                            str(filler)], check=True)
            with FakeOpenAI(latency=0.02) as server:
                done, secs = judge(store, server.url, 16)
                first = server.requests
                print(f"full disk: exit {done.returncode} after {secs:.1f} s; server received {first:,} requests; "
                      f"store holds {stored(store):,} answers, journal {journaled(store):,}")
                print("  " + done.stderr.strip().splitlines()[-1][:400])
                filler.unlink()
                done, secs = judge(store, server.url, 16)
                out = json.loads(done.stdout)
                print(f"  resume: exit {done.returncode}, {secs:.1f} s; server received {server.requests - first:,} "
                      f"more (pairs never answered: {pairs - first:,}); replayed {out['replayed']:,}; "
                      f"store holds {stored(store):,} answers for {pairs:,} pairs")
        finally:
            subprocess.run(["umount", "-l", str(disk)], check=False)


def held_lock(pairs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = marked_store(Path(tmp) / "s.duckdb", pairs)
        with FakeOpenAI(latency=0.1) as server:
            cmd = [sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset", "d", "--judge",
                   MODEL, "--api-base", server.url, "--concurrency", "2", "--json"]
            proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env=dict(os.environ, RADCONCORD_STORE_TIMEOUT="2"))
            while server.requests < 20:
                time.sleep(0.05)
            release = threading.Event()
            held_at = time.monotonic()

            def reader():
                con = duckdb.connect(str(store.path), read_only=True)
                release.wait(12)
                con.close()

            t = threading.Thread(target=reader)
            t.start()
            _, err = proc.communicate()
            release.set()
            t.join()
            first = server.requests
            print(f"held lock: last request {max(server.request_times) - held_at:.1f} s after the lock was taken "
                  f"(patience 2 s); server received {first:,}; journal holds {journaled(store):,}; "
                  f"exit {proc.returncode}")
            done, _ = judge(store, server.url, 8)
            print(f"  resume: server received {server.requests - first:,} more of {pairs - first:,} never answered; "
                  f"replayed {json.loads(done.stdout)['replayed']:,}; store {stored(store):,}/{pairs:,}")


def twins(pairs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = marked_store(Path(tmp) / "s.duckdb", pairs)
        with FakeOpenAI(latency=0.05) as server:
            cmd = [sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset", "d", "--judge",
                   MODEL, "--api-base", server.url, "--concurrency", "1", "--json"]
            procs = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for _ in range(2)]
            codes = [p.wait() for p in procs]
            print(f"two identical runs: exit codes {codes}; server received {server.requests:,} requests for "
                  f"{pairs:,} pairs; store holds {stored(store):,} answers")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--free-mb", type=int, default=6)
    args = ap.parse_args()
    if os.geteuid() == 0:
        full_disk(args.pairs, args.free_mb)
    else:
        print("full disk: skipped (mounting a tmpfs needs root)")
    held_lock(300)
    twins(400)
