"""A `judge` re-run whose every pair is answered already sends nothing, never imports litellm, and says
"nothing to send"; a re-run with a recorded failure still imports it and retries the failure. Real processes
against the loopback server; what was imported is read from CPython's own ``-X importtime`` report."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from core.settings import LITELLM_ONLY_VAR
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
MODEL = "openai/fake-judge"
N = 6


def judge(store, url: str, litellm_only: bool = False) -> subprocess.CompletedProcess:
    """``litellm_only``: every call through litellm (core.settings.LITELLM_ONLY_VAR), so a run that sends
    imports it; otherwise a call to this unpriced custom endpoint takes core.judges.direct's path."""
    env = dict(ENV, **{LITELLM_ONLY_VAR: "true"}) if litellm_only else ENV
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "core", "--store", str(store.path), "judge",
                           "--dataset", "d", "--judge", MODEL, "--api-base", url, "--max-retries", "0"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def imported_litellm(proc: subprocess.CompletedProcess) -> bool:
    """Whether the process imported litellm or any of its modules (an ``-X importtime`` line names each)."""
    return any(re.search(r"\|\s*litellm(\.\S+)?\s*$", line) for line in proc.stderr.splitlines())


def fields(proc: subprocess.CompletedProcess) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in proc.stdout.splitlines() if re.match(r"^[a-z_]+: ", line))


def test_a_rerun_with_every_pair_answered_sends_nothing_and_never_imports_litellm(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", N, {N - 1: "FAILONCE"})
    with FakeOpenAI(plan={"FAILONCE": ["400"]}) as server:  # the marked pair: one refusal, then answered
        first = judge(store, server.url, litellm_only=True)
        assert first.returncode == 4, first.stderr[-2000:]  # one pair failed and is recorded
        assert server.requests == N and imported_litellm(first)  # the check sees an import when there is one

        retry = judge(store, server.url, litellm_only=True)  # a recorded failure is something to send: litellm is needed
        assert retry.returncode == 0, retry.stderr[-2000:]
        assert server.requests == N + 1 and imported_litellm(retry)
        assert fields(retry)["sent"] == "1" and "nothing to send" not in retry.stdout

        again = judge(store, server.url)
        assert again.returncode == 0, again.stderr[-2000:]
        assert server.requests == N + 1  # (a) the server received nothing
    assert not imported_litellm(again)  # (b) litellm was never imported
    out = fields(again)
    assert (out["sent"], out["skipped"], out["ok"], out["status"]) == ("0", str(N), str(N), "done")
    assert f"nothing to send: the store already answers all {N} pairs ({N} in this run, 0 copied" in again.stdout
