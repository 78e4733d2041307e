"""Stop sequences (GenParams.stop, `judge`/`score` --stop, a local server's per-family defaults): sent in the request
only when non-empty, through the direct HTTP path and through litellm alike, and in the cache key only when
non-empty. Every request body is read at a counting proxy (tests/local_server.py) in front of the loopback fake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.judges import localserver
from core.judges.llm import GenParams, cache_key
from core.store.db import Store, stable_hash
from tests.fake_openai import FakeOpenAI
from tests.local_server import CountingProxy

ROOT = Path(__file__).resolve().parents[2]


def cli(store: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "--store", str(store), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})


@pytest.fixture
def proxied():
    with FakeOpenAI() as fake:
        proxy = CountingProxy(fake.url)
        try:
            yield proxy
        finally:
            proxy.stop()


def judge(store: Store, proxy: CountingProxy, *extra: str, env: dict | None = None, prompt: str = "green") -> dict:
    before = proxy.requests
    done = cli(store.path, "judge", "--dataset", "demo", "--judge", "openai/fake-judge", "--api-base", proxy.url,
               "--prompt", prompt, "--limit", "3", "--allow-failures", "--json", *extra, env=env)
    assert done.returncode in (0, 4), done.stderr
    return {"out": json.loads(done.stdout), "bodies": proxy.bodies[before:]}


@pytest.mark.parametrize("env", [{}, {"RADCONCORD_LITELLM_ONLY": "1"}], ids=["direct", "litellm"])
def test_judge_sends_the_stop_sequences_given_and_none_for_an_empty_one(demo_store_copy: Store, proxied, env):
    given = judge(demo_store_copy, proxied, "--stop", "\n\n\n", "--stop", "END", env=env)
    assert given["bodies"] and all(b["stop"] == ["\n\n\n", "END"] for b in given["bodies"])
    none = judge(demo_store_copy, proxied, "--stop", "", env=env)
    assert none["bodies"] and all("stop" not in b for b in none["bodies"])
    # another cache key, another run: the answers without a stop were not taken for the ones with it
    assert none["out"]["run_id"] != given["out"]["run_id"] and none["out"]["sent"] == len(none["bodies"])


def test_a_local_server_gets_the_prompt_familys_stop_sequences_by_default(demo_store_copy: Store, proxied):
    for prompt in ("green", "vert", "crimson"):
        family = localserver.LOCAL_STOP[prompt]
        assert family, f"no default stop sequence for {prompt}"
        bodies = judge(demo_store_copy, proxied, prompt=prompt)["bodies"]
        assert bodies and all(b["stop"] == list(family) for b in bodies), prompt


def test_score_sends_the_stop_sequences(demo_store_copy: Store, proxied):
    done = cli(demo_store_copy.path, "score", "--judge", "openai/fake-judge", "--api-base", proxied.url,
               "--reference", "No pneumothorax.", "--candidate", "Small pneumothorax.", "--stop", "###", "--json")
    assert done.returncode in (0, 1), done.stderr
    assert proxied.bodies[-1]["stop"] == ["###"] and proxied.bodies[-1]["max_tokens"] == 2048


def test_stop_defaults_a_hosted_api_gets_none_and_a_flag_wins():
    assert localserver.stop_defaults("https://api.openai.com/v1", "green", None) == ()
    assert localserver.stop_defaults(None, "crimson", None) == ()
    assert localserver.stop_defaults("http://127.0.0.1:8080/v1", "crimson", None) == localserver.LOCAL_STOP["crimson"]
    assert localserver.stop_defaults("http://127.0.0.1:8080/v1", "vert_random", None) == localserver.LOCAL_STOP["vert"]
    assert localserver.stop_defaults("http://127.0.0.1:8080/v1", "formula", None) == ()
    assert localserver.stop_defaults("http://127.0.0.1:8080/v1", "green", ["X"]) == ("X",)
    assert localserver.stop_defaults("http://127.0.0.1:8080/v1", "green", [""]) == ()


def test_the_cache_key_holds_stop_only_when_non_empty():
    msgs = [{"role": "user", "content": "x"}]
    old = stable_hash("llm-cache", json.dumps({"model": "m", "messages": msgs, "params": {
        "temperature": 0.0, "max_tokens": 2048}}, sort_keys=True, ensure_ascii=False), length=32)
    assert cache_key("m", msgs, GenParams()) == old  # answers stored before stop sequences existed still match
    with_stop = GenParams(stop=["\n\n"])  # a list (the job spec's JSON) is kept as a tuple: hashable
    assert with_stop.stop == ("\n\n",) and hash(with_stop)
    assert cache_key("m", msgs, with_stop) != old
    assert list(with_stop.as_dict()["stop"]) == ["\n\n"] and "stop" not in GenParams().as_dict()
