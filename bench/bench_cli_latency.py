"""CLI latency: time to first request and whole process of `score` and `judge`, with ratios to issue 41's figures.

Every command is a real ``python -m core`` process against a loopback OpenAI-compatible server
(tests/fake_openai.py, here in the bench's process: the client is another process, so they do not share
a GIL; the server's clock is ``time.monotonic``, the system-wide clock the client's start is read on).
Each command runs twice in the same invocation: as the product runs it, and with
``RADCONCORD_LITELLM_ONLY=true`` (every call through litellm, as before core.judges.direct), so the
ratio between them holds whatever the machine's load. Wall times on a shared machine are inflated: the
CPU seconds (user + system of the child) are the steadier figure.

- ``score`` with a model: whole process, and the time from the process's start to the server's first
  request (issue 41: 13 s whole process, 4.9-6.1 s of litellm's import before any request);
- ``score`` with the rules judge; ``judge --help``; ``judge`` with nothing left to send;
- ``judge`` over ``--pairs`` new pairs at ``--concurrency`` and ``--latency``: whole process, the run's own
  seconds, and the rate against a sequential ``litellm.completion`` loop timed on ``--baseline-max`` calls
  (issue 41: run 10.9-13.0 s, 5.0 s around it, 14.4x the loop; targets: >= 15x, run within 2x of
  latency x pairs / concurrency).

    .venv/bin/python bench/bench_cli_latency.py --pairs 1000 --latency 0.2 --concurrency 64 --repeat 3
"""

from __future__ import annotations

import json
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

from bench.bench_cli_run import _LOOP, _pairs  # noqa: E402
from bench.benchlib import parser  # noqa: E402
from bench.perfdoc import write_section  # noqa: E402
from core.ingest.importers import PairColumns, import_pairs  # noqa: E402
from core.prompts import render_messages  # noqa: E402
from core.store.db import Store  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

MODEL = "openai/bench-judge"
TITLE = "### CLI latency: time to first request and whole process"
# issue 41's figures (seconds), measured before this work on this kind of machine
ISSUE = {"score_model": 13.0, "score_rules": 4.3, "first_request": 4.9, "run_1000": 10.9, "whole_1000": 15.9,
         "rate_1000": 14.4}


def _env(litellm_only: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    env.pop("RADCONCORD_LITELLM_ONLY", None)
    if litellm_only:
        env["RADCONCORD_LITELLM_ONLY"] = "true"
    return env


def _run(args: list[str], litellm_only: bool, server: FakeOpenAI | None = None) -> dict:
    """One ``python -m core`` process: wall and CPU seconds, the first request's delay, its stdout."""
    seen = len(server.request_times) if server else 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=_env(litellm_only),
                          capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{args[:4]} failed ({proc.returncode}): {proc.stderr[-1500:]}")
    first = server.request_times[seen] - start if server and len(server.request_times) > seen else None
    return {"wall": wall, "cpu": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
            "first": first, "out": proc.stdout}


def _median(runs: list[dict], key: str) -> float | None:
    values = [r[key] for r in runs if r[key] is not None]
    return statistics.median(values) if values else None


def main() -> None:
    ap = parser(__doc__, pairs=1000, latency=0.2, concurrency=64)
    ap.add_argument("--repeat", type=int, default=3, help="passes of each command")
    ap.add_argument("--baseline-max", type=int, default=60, help="calls of the sequential loop (extrapolated)")
    ap.add_argument("--write", action="store_true", help="replace this benchmark's section of docs/PERFORMANCE.md")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "bench.duckdb")
    n = args.pairs
    for mode in ("direct", "litellm"):
        for r in range(args.repeat):
            import_pairs(store, _pairs(n, f"{mode} {r}"), dataset=f"{mode}{r}", columns=PairColumns("id", "ref", "cand"),
                         name=f"{mode}{r}.csv")
    calls = [render_messages("green", row.ref, row.cand) for row in _pairs(args.baseline_max, "loop").itertuples()]
    (tmp / "calls.json").write_text(json.dumps(calls))
    score = ["score", "--reference", "No acute cardiopulmonary process.", "--candidate", "Small left effusion.",
             "--json"]
    load_before = os.getloadavg()[0]
    rows: dict[str, dict[str, list[dict]]] = {}

    with FakeOpenAI(latency=args.latency) as server:
        def both(name: str, cmd: list[str], srv=None):
            rows[name] = {"direct": [], "litellm": []}
            for _ in range(args.repeat):
                for mode in ("direct", "litellm"):
                    rows[name][mode].append(_run(cmd, mode == "litellm", srv))

        both("score with a model", [*score, "--judge", MODEL, "--api-base", server.url], server)
        both("score with the rules judge", [*score, "--judge", "rules"])
        both("judge --help", ["judge", "--help"])
        runs = {"direct": [], "litellm": []}
        for r in range(args.repeat):
            for mode in ("direct", "litellm"):
                cmd = ["--store", str(store.path), "judge", "--dataset", f"{mode}{r}", "--judge", MODEL, "--api-base",
                       server.url, "--concurrency", str(args.concurrency), "--json"]
                res = _run(cmd, mode == "litellm", server)
                res["run"] = json.loads(res["out"])["seconds"]
                assert json.loads(res["out"])["sent"] == n, res["out"][:300]
                runs[mode].append(res)
        rows["judge with nothing left to send"] = {"direct": [], "litellm": []}
        for mode in ("direct", "litellm"):
            cmd = ["--store", str(store.path), "judge", "--dataset", f"{mode}0", "--judge", MODEL, "--api-base",
                   server.url, "--json"]
            for _ in range(args.repeat):
                res = _run(cmd, mode == "litellm", server)
                assert json.loads(res["out"])["sent"] == 0
                rows["judge with nothing left to send"][mode].append(res)
        loop = subprocess.run([sys.executable, "-c", _LOOP, server.url, str(tmp / "calls.json"), MODEL], cwd=ROOT,
                              env=_env(True), capture_output=True, text=True, timeout=3600, check=True)
    load_after = os.getloadavg()[0]
    timing = json.loads(loop.stdout)
    per_call = timing["loop"] / timing["calls"]
    loop_whole = 1.0 + timing["import"] + n * per_call  # about 1 s of Python and exit besides the import
    ideal = args.latency * n / args.concurrency

    cmd = (f".venv/bin/python bench/bench_cli_latency.py --pairs {n} --latency {args.latency} "
           f"--concurrency {args.concurrency} --repeat {args.repeat} --baseline-max {args.baseline_max}")
    lines = [TITLE, "", f"Command: `{cmd}` (load average {load_before:.1f} before, {load_after:.1f} after; "
             f"medians of {args.repeat}; wall seconds on a shared 2-core machine, CPU seconds of the process)", "",
             "| command | wall s | CPU s | first request s | through litellm: wall / CPU / first | issue 41 |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]

    def fmt(x):
        return "–" if x is None else f"{x:.2f}"

    issue_of = {"score with a model": f"{ISSUE['score_model']:.1f} s whole, {ISSUE['first_request']:.1f}+ s import",
                "score with the rules judge": f"{ISSUE['score_rules']:.1f} s"}
    for name, modes in rows.items():
        d, lt = modes["direct"], modes["litellm"]
        lines.append(f"| `{name}` | {fmt(_median(d, 'wall'))} | {fmt(_median(d, 'cpu'))} | {fmt(_median(d, 'first'))} "
                     f"| {fmt(_median(lt, 'wall'))} / {fmt(_median(lt, 'cpu'))} / {fmt(_median(lt, 'first'))} "
                     f"| {issue_of.get(name, '–')} |")
    d, lt = runs["direct"], runs["litellm"]
    whole, run, cpu = _median(d, "wall"), _median(d, "run"), _median(d, "cpu")
    lines += ["", f"`judge` over {n} new pairs, concurrency {args.concurrency}, {args.latency * 1000:.0f} ms latency "
              f"(ideal run: latency x pairs / concurrency = {ideal:.2f} s):", "",
              "| what | product | through litellm | issue 41 |", "| --- | ---: | ---: | ---: |",
              f"| whole process, s | {whole:.2f} | {_median(lt, 'wall'):.2f} | {ISSUE['whole_1000']:.1f} |",
              f"| the run's own seconds | {run:.2f} | {_median(lt, 'run'):.2f} | {ISSUE['run_1000']:.1f} |",
              f"| CPU seconds of the process | {cpu:.2f} | {_median(lt, 'cpu'):.2f} | – |",
              f"| run / ideal | {run / ideal:.2f}x | {_median(lt, 'run') / ideal:.2f}x | "
              f"{ISSUE['run_1000'] / ideal:.2f}x |",
              f"| rate vs a sequential litellm loop (whole processes) | {loop_whole / whole:.1f}x | "
              f"{loop_whole / _median(lt, 'wall'):.1f}x | {ISSUE['rate_1000']:.1f}x |", "",
              f"The sequential loop: litellm's import {timing['import']:.2f} s, {per_call * 1000:.0f} ms per call "
              f"over {timing['calls']} calls, so {n} calls take about {loop_whole:.1f} s whole process "
              "(1 s of Python and exit added). Passes (whole / run / CPU, s): "
              + ", ".join(f"{r['wall']:.2f} / {r['run']:.2f} / {r['cpu']:.2f}" for r in d) + "; through litellm: "
              + ", ".join(f"{r['wall']:.2f} / {r['run']:.2f} / {r['cpu']:.2f}" for r in lt) + "."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
