"""Whole processes: ``python -m core judge`` vs a script's sequential litellm loop, start-up included.

A user's run is a process: Python starts, litellm is imported (seconds), the
store is read, the calls go out. This benchmark times exactly that, in the same
command, against the same loopback server (its own process, fixed latency):

- baseline: ``python -c`` importing litellm and calling ``litellm.completion``
  in a for-loop over the same rendered messages (what a script would do);
- ``python -m core judge``, the same calls at ``--concurrency``;
- the floor no client can beat: the loop's own start-up (Python + litellm's
  import) plus ceil(n / concurrency) waves of the server's latency.

Each judge pass also reports the run's own ``seconds`` (from its ``--json``: rendering
the prompts, sending, storing, closing the run), so the table shows both figures and the
client's overhead between them: start-up, litellm's import, the job and store work
before and after the run, and the process's exit (issue 34, item 4; docs/SCALE.md).

Each judge pass runs on a fresh dataset (new texts: no cache hits). For
``--pairs`` above ``--baseline-max`` the loop is timed on that many calls and
extrapolated (its import time + n x its per-call time); the table says so.

    .venv/bin/python bench/bench_cli_run.py --pairs 100 --latency 0.2 --concurrency 32 --repeat 3
    .venv/bin/python bench/bench_cli_run.py --pairs 1000 --latency 0.2 --concurrency 64 --repeat 3 --no-loop
"""

from __future__ import annotations

import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pandas as pd  # noqa: E402

from bench.benchlib import parser, start_fake_server  # noqa: E402
from bench.perfdoc import write_section  # noqa: E402
from core.ingest.importers import PairColumns, import_pairs  # noqa: E402
from core.prompts import render_messages  # noqa: E402
from core.store.db import Store  # noqa: E402

MODEL = "openai/bench-judge"
ENV = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")

_LOOP = """
import json, sys, time
t0 = time.perf_counter()
import litellm
litellm.suppress_debug_info = True
imported = time.perf_counter() - t0
url, path, model = sys.argv[1], sys.argv[2], sys.argv[3]
calls = json.load(open(path))
t1 = time.perf_counter()
for messages in calls:
    litellm.completion(model=model, messages=messages, api_base=url, api_key="x", temperature=0.0, max_tokens=2048)
print(json.dumps({"import": imported, "loop": time.perf_counter() - t1, "calls": len(calls)}))
"""

def _pairs(n: int, tag: str) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"b{i:05d}" for i in range(n)],
                         "ref": [f"Reference {i} ({tag}): small left pleural effusion, no pneumothorax."
                                 for i in range(n)],
                         "cand": [f"Candidate {i} ({tag}): left effusion, tiny pneumothorax." for i in range(n)]})


def _judge(store: Store, dataset: str, url: str, concurrency: int) -> tuple[float, float, float]:
    """(the whole process's wall seconds, the run's own seconds as its --json reports them, the process's CPU
    seconds: user + system, all threads; what a loaded machine changes least)."""
    cmd = [sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset", dataset, "--judge", MODEL,
           "--api-base", url, "--concurrency", str(concurrency), "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"judge failed ({proc.returncode}): {proc.stderr[-2000:]}")
    out = json.loads(proc.stdout)
    assert out["sent"] == out["requested"] and out["failed"] == 0, out  # every pair really sent
    return wall, float(out["seconds"]), cpu


def main() -> None:
    ap = parser(__doc__, pairs=100, latency=0.2, concurrency=32)
    ap.add_argument("--repeat", type=int, default=3, help="passes of the judge command")
    ap.add_argument("--baseline-max", type=int, default=100, help="loop calls timed at most; more: extrapolated")
    ap.add_argument("--no-loop", action="store_true",
                    help="skip the sequential loop (its start-up is then timed alone: Python + litellm's import)")
    ap.add_argument("--write", action="store_true", help="replace this benchmark's section of docs/PERFORMANCE.md")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "bench.duckdb")
    n = args.pairs
    for r in range(args.repeat):
        import_pairs(store, _pairs(n, f"pass {r}"), dataset=f"bench{r}", columns=PairColumns("id", "ref", "cand"),
                     name=f"bench{r}.csv")
    sample = _pairs(min(n, args.baseline_max), "loop")
    calls = [render_messages("green", row.ref, row.cand) for row in sample.itertuples(index=False)]
    calls_file = tmp / "calls.json"
    calls_file.write_text(json.dumps(calls))
    empty = tmp / "no-calls.json"
    empty.write_text("[]")

    server, url = start_fake_server("--latency", str(args.latency))
    load_before = os.getloadavg()[0]
    try:
        t0 = time.perf_counter()
        loop = subprocess.run([sys.executable, "-c", _LOOP, url, str(calls_file if not args.no_loop else empty), MODEL],
                              cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=3600, check=True)
        loop_wall = time.perf_counter() - t0
        timing = json.loads(loop.stdout)
        startup = loop_wall - timing["loop"]  # Python + litellm import + exit
        per_call = timing["loop"] / timing["calls"] if timing["calls"] else None
        baseline = None if per_call is None else loop_wall if n <= args.baseline_max else startup + n * per_call
        passes = [_judge(store, f"bench{r}", url, args.concurrency) for r in range(args.repeat)]
    finally:
        server.terminate()
        server.wait()
    load_after = os.getloadavg()[0]

    shipped = [w for w, _, _ in passes]
    runs = [r for _, r, _ in passes]
    gaps = [w - r for w, r, _ in passes]
    med_s = statistics.median(shipped)
    floor = startup + math.ceil(n / args.concurrency) * args.latency

    def ratio(sec: float) -> str:
        return "–" if baseline is None else f"{baseline / sec:.1f}x"

    rows = []
    if baseline is not None:
        how = "measured" if n <= args.baseline_max else (
            f"extrapolated: start-up {startup:.2f} s + {n} x {per_call * 1000:.0f} ms per call, timed on "
            f"{timing['calls']} calls")
        rows.append((f"sequential litellm.completion loop, whole process ({how})", baseline))
    rows += [
        (f"`python -m core judge`, concurrency {args.concurrency}, whole process (median of {args.repeat})", med_s),
        ("... slowest pass", max(shipped)),
        ("... the run's own seconds, as its `--json` reports them (median)", statistics.median(runs)),
        ("... whole process minus the run: the client's overhead (median)", statistics.median(gaps)),
        ("... the process's CPU seconds, user + system, all threads (median)", statistics.median(c for _, _, c in passes)),
        (f"floor: start-up {startup:.2f} s + {math.ceil(n / args.concurrency)} waves of "
         f"{args.latency * 1000:.0f} ms, zero CPU per call", floor),
    ]
    cmd = (f".venv/bin/python bench/bench_cli_run.py --pairs {n} --latency {args.latency} "
           f"--concurrency {args.concurrency} --repeat {args.repeat}" + (" --no-loop" if args.no_loop else ""))
    lines = [f"### Whole process: judge command vs sequential loop ({n} pairs, {args.latency * 1000:.0f} ms "
             "server latency)", "",
             f"Command: `{cmd}` (load average {load_before:.2f} before, {load_after:.2f} after)", "",
             "| what | seconds | speed-up vs baseline |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {sec:.2f} | {ratio(sec)} |" for name, sec in rows]
    loop_note = (f"{per_call * 1000:.0f} ms per call" if per_call is not None else "no call (--no-loop)")
    lines += ["", f"The loop's process spent {timing['import']:.2f} s importing litellm and {loop_note}. "
              "Passes (whole / run / overhead / CPU, s): "
              + ", ".join(f"{w:.2f} / {r:.2f} / {w - r:.2f} / {c:.2f}" for w, r, c in passes) + "."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(f"### Whole process: judge command vs sequential loop ({n} pairs", text)


if __name__ == "__main__":
    main()
