"""What a model job's progress line says against the truth (issue 43, point 9).

A job of ``--pairs`` pairs runs in this process against a loopback server of fixed ``--latency`` at
``--concurrency``; the Run page's progress text (ui/jobs.progress_text) is read from the store every
0.1 s, and each change of its first part is printed beside the seconds that were truly left.

``python bench/bench_job_eta.py --pairs 80 --latency 0.3 --concurrency 2``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.settings import apply_offline_defaults  # noqa: E402

apply_offline_defaults()


def main() -> None:
    from core.jobs import table
    from core.jobs.spec import JobSpec, Task
    from core.jobs.worker import run_job
    from core.judges.callsettings import CallSettings
    from tests.conftest import marked_store
    from tests.fake_openai import FakeOpenAI
    from ui.jobs import progress_text

    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=80)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--concurrency", type=int, default=2)
    args = ap.parse_args()
    store = marked_store(Path(tempfile.mkdtemp()) / "s.duckdb", args.pairs)
    with FakeOpenAI(latency=args.latency) as server:
        spec = JobSpec(dataset="d", tasks=[Task("openai/fake-judge", "green", 0.0)],
                       call=CallSettings(concurrency=args.concurrency, api_base=server.url, max_retries=0))
        job_id = table.submit(store, spec, origin="dashboard")
        seen = []
        worker = threading.Thread(target=run_job, args=(store, job_id), daemon=True)
        worker.start()
        while worker.is_alive():
            seen.append((time.monotonic(), table.get_job(store, job_id)))
            time.sleep(0.1)
        end = time.monotonic()
    last = None
    for t, job in seen:
        if job["state"] != "running":
            continue
        text = progress_text(job)
        if text.split(" · ")[0] != last:
            last = text.split(" · ")[0]
            print(f"{end - t:5.1f} s truly left | {text}")


if __name__ == "__main__":
    main()
