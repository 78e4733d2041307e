"""Where a ``python -m core judge`` process spends its time, stage by stage (wall and CPU seconds).

Runs one model judge over a fresh dataset in a child process, against the loopback server
(tests/fake_openai.py, its own process), with each stage of the job timed: the interpreter's start,
the CLI's imports, the job's bookkeeping (submit, claim), reading the pairs, litellm's import, the
run (rendering, leases, sending, storing), the job's end, and the process's exit after ``main()``
returns (measured from outside: the JSON line's arrival to the process's end). The stages are timed
by wrapping the functions that mark them; nothing else changes. Used for issue 34, item 4 (docs/SCALE.md).

    .venv/bin/python bench/bench_judge_stages.py --pairs 1000 --latency 0.2 --concurrency 64 --repeat 3
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.benchlib import parser, start_fake_server  # noqa: E402

MODEL = "openai/bench-judge"
ENV = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")

# The child: `python -m core`'s own entry (core/__main__.py) run with the stage functions wrapped.
_CHILD = r"""
import json, os, runpy, sys, time
def since_start():  # seconds since this process was created (/proc/self/stat field 22)
    ticks = int(open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19])
    return float(open("/proc/uptime").read().split()[0]) - ticks / os.sysconf("SC_CLK_TCK")
base = time.monotonic() - since_start()
marks = [("python started", time.monotonic() - base, time.process_time())]
def mark(name):
    marks.append((name, time.monotonic() - base, time.process_time()))
import core.cli.main
mark("CLI imported (pandas, numpy, duckdb, the parser's modules)")
import core.jobs.table as table, core.judges.llm as llm
def wrap(mod, name, before, after, once=False):
    f = getattr(mod, name)
    def g(*a, **k):
        if once:
            setattr(mod, name, f)  # only the first call marks a stage
        if before: mark(before)
        try: return f(*a, **k)
        finally:
            if after: mark(after)
    setattr(mod, name, g)
wrap(table, "submit", "arguments parsed, job spec built", "job submitted")
wrap(table, "claim", None, "job claimed")
wrap(llm, "load_pairs", "judge dispatched (registry, endpoint check)", "pairs read")
wrap(llm, "check_model", None, "litellm imported (check_model)", once=True)
wrap(llm, "execute_work", "run opened, prompts rendered", "run ended (leases, sending, storing, closing)")
wrap(table, "finish", None, "job finished")
_main = core.cli.main.main
def main(*a, **k):  # core/__main__.py takes main from core.cli.main when it runs: this one
    try:
        return _main(*a, **k)
    finally:
        mark("main() returned")
        print("STAGES " + json.dumps(marks), file=sys.stderr, flush=True)
core.cli.main.main = main
sys.argv = ["core", *sys.argv[1:]]
runpy.run_module("core", run_name="__main__", alter_sys=True)
"""


def _pass(store: Path, dataset: str, url: str, concurrency: int) -> dict:
    cmd = [sys.executable, "-c", _CHILD, "--store", str(store), "judge", "--dataset", dataset, "--judge", MODEL,
           "--api-base", url, "--concurrency", str(concurrency), "--json"]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    t_line = time.monotonic()
    _, err = proc.communicate(timeout=1800)
    t_end = time.monotonic()
    if proc.returncode != 0:
        raise SystemExit(f"judge failed ({proc.returncode}): {err[-2000:]}")
    out = json.loads(line)
    assert out["sent"] == out["requested"] and out["failed"] == 0, out
    marks = json.loads(next(x for x in err.splitlines() if x.startswith("STAGES "))[7:])
    stages, prev_t, prev_c = {}, 0.0, 0.0
    for name, t, c in marks:
        while name in stages:
            name += " (again)"
        stages[name] = (t - prev_t, c - prev_c)
        prev_t, prev_c = t, c
    stages["process exit after the output (measured outside)"] = (t_end - t_line, None)
    return {"stages": stages, "whole": t_end - t0, "run": float(out["seconds"])}


def main() -> None:
    ap = parser(__doc__, pairs=1000, latency=0.2, concurrency=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import pandas as pd

    from core.ingest.importers import PairColumns, import_pairs
    from core.store.db import Store

    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "stages.duckdb")
    for r in range(args.repeat):
        n = args.pairs
        frame = pd.DataFrame({"id": [f"s{i:05d}" for i in range(n)],
                              "ref": [f"Reference {i} (pass {r}): small left pleural effusion." for i in range(n)],
                              "cand": [f"Candidate {i} (pass {r}): left effusion, tiny pneumothorax." for i in range(n)]})
        import_pairs(store, frame, dataset=f"stages{r}", columns=PairColumns("id", "ref", "cand"), name="s.csv")
    server, url = start_fake_server("--latency", str(args.latency))
    load = os.getloadavg()[0]
    try:
        passes = [_pass(store.path, f"stages{r}", url, args.concurrency) for r in range(args.repeat)]
    finally:
        server.terminate()
        server.wait()
    names = list(passes[0]["stages"])
    print(f"{args.pairs} pairs, {args.latency * 1000:.0f} ms latency, concurrency {args.concurrency}; medians of "
          f"{args.repeat} passes; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after\n")
    print("| stage (ends with) | wall s | CPU s |\n| --- | ---: | ---: |")
    for name in names:
        wall = statistics.median(p["stages"][name][0] for p in passes)
        cpus = [p["stages"][name][1] for p in passes if p["stages"][name][1] is not None]
        print(f"| {name} | {wall:.2f} | {statistics.median(cpus):.2f} |" if cpus else f"| {name} | {wall:.2f} | – |")
    whole = statistics.median(p["whole"] for p in passes)
    run = statistics.median(p["run"] for p in passes)
    print(f"| whole process | {whole:.2f} | |\n| the run's own seconds (its --json) | {run:.2f} | |")
    print("\nPasses (whole / run / overhead): " + ", ".join(
        f"{p['whole']:.2f} / {p['run']:.2f} / {p['whole'] - p['run']:.2f}" for p in passes))


if __name__ == "__main__":
    main()
