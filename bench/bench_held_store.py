"""A store held by another process for ``--hold`` seconds mid-run: when does the run stop sending?

``judge --concurrency 4`` on ``--pairs`` pairs against the loopback server (50 ms a call) with
``RADCONCORD_STORE_TIMEOUT=--patience``; a second process holds ``duckdb.connect(store, read_only=True)``
for ``--hold`` seconds once 30 requests have arrived. Printed, from the server's side: requests sent
during the hold, the last one's time after the hold began, how many came after the patience, and
when the run's process ended (issue 42, item 6; numbers in docs/judges.md, "Runs are jobs").

    .venv/bin/python bench/bench_held_store.py --patience 30 --hold 60 --pairs 20000
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
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.conftest import marked_store  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

HOLDER = ("import sys, time, duckdb\nwhile True:\n    try:\n        c = duckdb.connect(sys.argv[1], read_only=True)\n"
          "        break\n    except duckdb.IOException:\n        time.sleep(0.01)\n"
          "print('held', flush=True)\ntime.sleep(float(sys.argv[2]))\nc.close()\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--patience", type=float, default=30.0)
    ap.add_argument("--hold", type=float, default=60.0)
    ap.add_argument("--pairs", type=int, default=20000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.duckdb"
        store = marked_store(path, args.pairs)
        env = dict(os.environ, PYTHONPATH=str(ROOT), RADCONCORD_STORE_TIMEOUT=f"{args.patience:g}")
        with FakeOpenAI(latency=0.05) as server:
            proc = subprocess.Popen([sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset",
                                     "d", "--judge", "openai/fake-judge", "--api-base", server.url, "--concurrency",
                                     "4", "--max-retries", "0", "--json"], cwd=ROOT, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            while server.requests < 30:
                time.sleep(0.05)
            holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(args.hold)],
                                      stdout=subprocess.PIPE, text=True)
            holder.stdout.readline()
            held = time.monotonic()
            ended = None
            while time.monotonic() < held + args.hold + 5:  # the run's end, if it comes before the hold's + 5 s
                if ended is None and proc.poll() is not None:
                    ended = round(time.monotonic() - held, 1)
                time.sleep(0.05)
            holder.wait()
            if proc.poll() is None:  # still going after the hold: it never stopped
                proc.terminate()
            _, err = proc.communicate(timeout=600)
            during = [t - held for t in server.request_times if t >= held]
            print(json.dumps({"patience_s": args.patience, "hold_s": args.hold, "sent_during_hold": len(during),
                              "last_request_after_hold_began_s": round(max(during), 1) if during else None,
                              "sent_after_patience": sum(t > args.patience for t in during),
                              "process_ended_after_hold_began_s": ended, "exit": proc.returncode,
                              "last_line": err.strip().splitlines()[-1][:200] if err.strip() else ""}))


if __name__ == "__main__":
    main()
