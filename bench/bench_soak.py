"""Soak: a long LLM judge run against a faulty server, SIGKILLed at random points and resumed each time.

Not part of CI (minutes of wall time). The loopback server (tests/fake_openai.py, its own process,
so it outlives every kill) answers each attempt with a seeded random fault: 429 with Retry-After,
500, a dropped connection or a truncated answer, at the rates given. The real CLI
``python -m core judge`` runs on N pairs; it is SIGKILLed ``--kills`` times at seeded random moments
(from 1 s after start, during litellm's import, up to well into the run), and re-run with the same
command after each kill; the last run goes to the end. Then, from the store: every pair has exactly
one output or one recorded failure (0 lost, 0 duplicated), no metric value twice, the share of pairs
that failed after retries, and ``check-store``.

    .venv/bin/python bench/bench_soak.py --pairs 10000 --kills 5 --seed 1 [--write]
"""

from __future__ import annotations

import json
import os
import random
import signal
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
from core.ingest.importers import PairColumns, import_pairs  # noqa: E402
from core.store.db import Store  # noqa: E402

MODEL = "openai/soak-judge"
ENV = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
DOC = ROOT / "docs" / "RELIABILITY.md"
BEGIN, END = "<!-- soak:begin -->", "<!-- soak:end -->"


def _pairs(n: int) -> pd.DataFrame:
    sides = ("left", "right")
    return pd.DataFrame({
        "id": [f"s{i:06d}" for i in range(n)],
        "ref": [f"Study {i}: small {sides[i % 2]} pleural effusion. No pneumothorax. Heart size normal."
                for i in range(n)],
        "cand": [f"Study {i}: {sides[(i // 2) % 2]} effusion, {'tiny' if i % 3 else 'no'} pneumothorax."
                 for i in range(n)],
    })


def _outcome(store: Store, dataset: str) -> dict:
    run_id = store.query_one("SELECT run_id FROM judge_runs WHERE dataset = ? AND judge_kind = 'llm'", [dataset])
    n_pairs = store.query_one("SELECT count(*) FROM pairs WHERE dataset = ?", [dataset])
    per_pair = store.query_df("SELECT p.pair_id, count(o.pair_id) AS n, count(o.error) AS failed, "
                              "count(*) FILTER (WHERE o.error IS NULL AND o.parse_status = 'failed') AS unparsed "
                              "FROM pairs p LEFT JOIN judge_outputs o ON o.pair_id = p.pair_id AND o.run_id = ? "
                              "WHERE p.dataset = ? GROUP BY p.pair_id", [run_id, dataset])
    dup_metrics = store.query_one("SELECT count(*) FROM (SELECT pair_id, metric FROM metric_values WHERE run_id = ? "
                                  "GROUP BY pair_id, metric HAVING count(*) > 1)", [run_id])
    return {"run_id": run_id, "pairs": int(n_pairs), "lost": int((per_pair["n"] == 0).sum()),
            "duplicated": int((per_pair["n"] > 1).sum()) + int(dup_metrics),
            "failed": int(per_pair["failed"].sum()), "unparsed": int(per_pair["unparsed"].sum())}


def main() -> None:
    ap = parser(__doc__, pairs=10_000, latency=0.05, concurrency=64)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1, help="kill times and server faults")
    ap.add_argument("--max-retries", type=int, default=3)
    ap.add_argument("--faults", default="429=0.03,500=0.03,drop=0.02,truncate=0.01",
                    help="per-attempt fault rates of the server")
    ap.add_argument("--kill-window", type=float, nargs=2, default=None,
                    help="seconds after a start within which each kill lands (uniform; default 1 to pairs/100, "
                         "at least 10: from litellm's import to well into the run)")
    ap.add_argument("--write", action="store_true", help="replace the soak section of docs/RELIABILITY.md")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    window = args.kill_window or (1.0, max(10.0, args.pairs / 100))
    kills = [round(rng.uniform(*window), 2) for _ in range(args.kills)]
    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "soak.duckdb")
    import_pairs(store, _pairs(args.pairs), dataset="soak", columns=PairColumns("id", "ref", "cand"), name="soak.csv")
    server, url = start_fake_server("--latency", str(args.latency), "--faults", args.faults, "--seed", str(args.seed))
    cmd = [sys.executable, "-m", "core", "--store", str(store.path), "judge", "--dataset", "soak", "--judge", MODEL,
           "--api-base", url, "--concurrency", str(args.concurrency), "--max-retries", str(args.max_retries),
           "--allow-failures", "--json"]
    log: list[dict] = []
    t_start = time.perf_counter()
    try:
        for i, after in enumerate(kills):
            stored_before = store.query_one("SELECT count(*) FROM judge_outputs")
            proc = subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(after)
            finished = proc.poll() is not None
            if not finished:
                proc.send_signal(signal.SIGKILL)
            proc.wait()
            stored = store.query_one("SELECT count(*) FROM judge_outputs")
            log.append({"kill": i + 1, "after_s": after, "killed": not finished, "stored_by_this_run":
                        int(stored - stored_before), "stored_total": int(stored)})
            print(f"kill {i + 1}: {after:5.2f} s after start, {'killed' if not finished else 'had finished'}; "
                  f"{stored - stored_before:,} outputs stored by it, {stored:,} in all", flush=True)
        t_final = time.perf_counter()
        final = subprocess.run(cmd, cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=7200)
        final_s = time.perf_counter() - t_final
    finally:
        server.terminate()
        server.wait()
    wall = time.perf_counter() - t_start
    summary = json.loads(final.stdout) if final.stdout.strip().startswith("{") else {}
    outcome = _outcome(store, "soak")
    check = subprocess.run([sys.executable, "-m", "core", "--store", str(store.path), "check-store", "--json"],
                           cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)
    outcome.update(check_store_ok=json.loads(check.stdout)["ok"], final_exit=final.returncode,
                   final_run_s=round(final_s, 1), wall_s=round(wall, 1),
                   failed_pct=round(100 * outcome["failed"] / outcome["pairs"], 3),
                   unparsed_pct=round(100 * outcome["unparsed"] / outcome["pairs"], 3))
    print(json.dumps({"settings": vars(args) | {"kill_times_s": kills}, "kills": log, "final": summary,
                      "outcome": outcome}, indent=2, default=str))
    ok = outcome["lost"] == 0 and outcome["duplicated"] == 0 and outcome["check_store_ok"]
    print(("PASS" if ok and outcome["failed_pct"] <= 2 else "FAIL") + ": lost {lost}, duplicated {duplicated}, "
          "failed {failed} ({failed_pct}%), unparsed {unparsed} ({unparsed_pct}%), check-store ok "
          "{check_store_ok}".format(**outcome))
    if args.write:
        _write(args, kills, log, outcome)
    if not ok:
        raise SystemExit(1)


def _write(args, kills: list[float], log: list[dict], o: dict) -> None:
    rows = "\n".join(f"| {k['kill']} | {k['after_s']:.2f} s | {'SIGKILL' if k['killed'] else 'finished first'} | "
                     f"{k['stored_by_this_run']:,} | {k['stored_total']:,} |" for k in log)
    section = f"""{BEGIN}
## Soak: {o['pairs']:,} pairs, a faulty server, {len(kills)} kills (`bench/bench_soak.py`, not in CI)

```bash
.venv/bin/python bench/bench_soak.py --pairs {args.pairs} --kills {args.kills} --seed {args.seed} --write
```

Server (its own process, outlives the kills): {args.latency * 1000:.0f} ms per answer; per attempt, seeded
random faults `{args.faults}` (429 with Retry-After 1 s, 500, connection dropped without an answer,
answer cut in half with finish_reason "length"). Judge: `--concurrency {args.concurrency} --max-retries
{args.max_retries} --allow-failures`, the same command after every kill.

| kill | after start | outcome | outputs stored by that run | stored in all |
| --- | --- | --- | ---: | ---: |
{rows}

Then one run to the end ({o['final_run_s']} s; whole soak {o['wall_s']} s wall, this 2-core machine).
From the store: **lost {o['lost']}, duplicated {o['duplicated']}** (pairs without exactly one output or
recorded failure, plus metric values stored twice), **failed after retries {o['failed']} of {o['pairs']:,}
({o['failed_pct']}%)** (target <= 2%), answers stored that the parser could not read at all (parse_status failed; a truncated answer
that still holds counts is kept as a partial parse) {o['unparsed']}
({o['unparsed_pct']}%), `check-store` ok: {o['check_store_ok']}, final exit code {o['final_exit']}
(it would be 4 had any pair failed).
{END}"""
    text = DOC.read_text(encoding="utf-8")
    if BEGIN in text:
        text = text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOC.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
