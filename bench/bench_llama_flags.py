"""Which llama.cpp server flags make reading CRIMSON's long prompt faster here, and whether the answers change.

    .venv/bin/python bench/bench_llama_flags.py [--pairs 2] [--max-tokens 32] [--prompt crimson] \
        [--config 'NAME=FLAGS' ...]

Needs the optional LLM extra (requirements-llm.txt). For each configuration (the server's own flags, e.g.
``fa=--flash_attn true``, or an environment variable for it, ``omp=OMP_WAIT_POLICY=passive``; the first is the baseline, repeated last to show how the machine's load moved) it starts
``python -m llama_cpp.server`` with SmolLM2-135M (tests/local_server.py, without its SPEED_FLAGS) on a free
loopback port, sends the prompt's messages for the first N demo pairs (120 pairs, seed 3) at temperature 0 and
prints per configuration: wall seconds per pair, the server's CPU seconds per pair, both as a ratio to the
first baseline, prompt tokens per second, and whether every answer is the baseline's, character for character.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIGS = ["base=", "logits_all_off=--logits_all false", "flash_attn=--flash_attn true",
           "ubatch_1024=--n_batch 1024 --n_ubatch 1024", "kv_q8=--flash_attn true --type_k 8 --type_v 8",
           "mlock=--use_mlock true"]


def messages(prompt: str, pairs: int) -> list[list[dict]]:
    from core.ingest.demo import build_demo
    from core.judges.messages import pair_messages
    from core.judges.runs import load_pairs
    from core.store.db import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "s.duckdb")
        build_demo(store, n_pairs=120, seed=3)
        rows = load_pairs(store, "demo", None, pairs)
        return [pair_messages(prompt, row) for row in rows.itertuples()]


def ask(port: int, msgs: list[dict], max_tokens: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    body = {"model": "smollm2", "messages": msgs, "max_tokens": max_tokens, "temperature": 0.0}
    conn.request("POST", "/v1/chat/completions", body=json.dumps(body), headers={"Content-Type": "application/json"})
    return json.loads(conn.getresponse().read())


def measure(flags: list[str], prompts: list[list[dict]], max_tokens: int, log: Path) -> dict:
    from tests.local_server import LlamaServer

    env = dict(f.split("=", 1) for f in flags if "=" in f and not f.startswith("-"))  # e.g. OMP_WAIT_POLICY=passive
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        server = LlamaServer(log=log, flags=tuple(f for f in flags if f.split("=", 1)[0] not in env))
        server.start(deadline=300)
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    try:
        ask(server.port, [{"role": "user", "content": "Hi"}], 1)  # the first call's set-up, outside the figures
        cpu0, t0, texts, prompt_tokens = server.cpu_seconds(), time.monotonic(), [], 0
        for msgs in prompts:
            answer = ask(server.port, msgs, max_tokens)
            texts.append(answer["choices"][0]["message"]["content"])
            prompt_tokens += answer["usage"]["prompt_tokens"]
        wall, cpu = time.monotonic() - t0, server.cpu_seconds() - cpu0
    finally:
        server.stop()
    return {"wall": wall / len(prompts), "cpu": cpu / len(prompts), "tok_s": prompt_tokens / wall, "texts": texts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--prompt", default="crimson")
    ap.add_argument("--config", action="append", help="NAME=FLAGS (repeatable; the first is the baseline)")
    args = ap.parse_args()
    configs = [c.split("=", 1) for c in (args.config or CONFIGS)]
    configs.append([configs[0][0] + " (again)", configs[0][1]])
    prompts = messages(args.prompt, args.pairs)
    print(f"{args.prompt}, {args.pairs} pairs, --max-tokens {args.max_tokens}, temperature 0", flush=True)
    print("| config | flags | wall s/pair | ratio | server CPU s/pair | ratio | tok/s (all) | answers |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for name, flags in configs:
            r = measure(shlex.split(flags), prompts, args.max_tokens, Path(tmp) / f"{len(name)}.log")
            base = base or r
            same = sum(a == b for a, b in zip(r["texts"], base["texts"], strict=True))
            print(f"| {name} | `{flags}` | {r['wall']:.1f} | {r['wall'] / base['wall']:.2f} | {r['cpu']:.1f} | "
                  f"{r['cpu'] / base['cpu']:.2f} | {r['tok_s']:.0f} | {same}/{len(prompts)} identical |", flush=True)
            if same < len(prompts):
                for a, b in zip(r["texts"], base["texts"], strict=True):
                    if a != b:
                        print(f"    base: {b!r}\n    this: {a!r}", flush=True)


if __name__ == "__main__":
    main()
