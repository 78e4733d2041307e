"""The direct HTTP path (core.judges.direct) gives what litellm gives, through real loopback servers.

Each case is sent twice, once through litellm (``RADCONCORD_LITELLM_ONLY``) and once straight over HTTP, and
the two must agree: the request the server received, the answer, tokens and price, and every error line
(class, status, message, redaction; only litellm's measured "time taken" differs between two timeouts).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest

from core import settings
from core.judges import direct
from core.judges.llm import Caller, GenParams, run_llm_judge, run_on_gateway_loop
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/fake-judge"

# marker -> (status, body): what providers and servers answer when a call fails
ERRORS = {
    "E403": (403, {"error": {"message": "forbidden here", "type": "permission_error"}}),
    "E404": (404, {"error": {"message": "The model `x` does not exist", "type": "invalid_request_error",
                             "code": "model_not_found"}}),
    "E404B": (404, {"detail": "Not Found"}),
    "E422": (422, {"detail": [{"loc": ["body", "temperature"], "msg": "bad"}]}),
    "ECTX": (400, {"object": "error", "message": "This model's maximum context length is 4096 tokens",
                   "type": "BadRequestError", "code": 400}),
    "EVLLM": (400, {"object": "error", "message": "prompt is empty", "type": "BadRequestError", "code": 400}),
    "E502": (502, "<html>bad gateway</html>"),
    "E503": (503, {"error": {"message": "overloaded"}}),
    "E504": (504, {"error": {"message": "upstream gone"}}),
    "E418": (418, {"error": {"message": "teapot"}}),
    "ETEXT": (500, "plain text failure"),
    "EEMPTY": (500, ""),
    "ERATE": (400, {"error": {"message": "Rate limit reached for tokens"}}),
}


class _ErrorServer(ThreadingHTTPServer):
    daemon_threads = True


def _error_server():
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            marker = payload["messages"][-1]["content"].split()[-1]
            status, body = ERRORS[marker]
            data = (body if isinstance(body, str) else json.dumps(body)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = _ErrorServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _call(monkeypatch, litellm_only: bool, url: str, text: str, *, key=None, timeout=1.5):
    if litellm_only:
        monkeypatch.setenv(settings.LITELLM_ONLY_VAR, "true")
    else:
        monkeypatch.delenv(settings.LITELLM_ONLY_VAR, raising=False)
    caller = Caller(MODEL, GenParams(), url, key, timeout, 0, 0.01)
    assert caller.direct is not litellm_only
    rec = run_on_gateway_loop(caller.call([{"role": "user", "content": f"judge this {text}"}]))
    error = None if rec.error is None else re.sub(r"time taken=[\d.]+ seconds", "time taken=T seconds", rec.error)
    return (error, rec.raw_text, rec.tokens_in, rec.tokens_out, rec.cost_usd)


def test_route_only_where_litellm_adds_nothing(monkeypatch):
    monkeypatch.delenv(settings.LITELLM_ONLY_VAR, raising=False)
    assert direct.route("openai/my-local", "http://127.0.0.1:8000/v1") == "my-local"
    assert direct.route("openai/my-local", None) is None  # the provider's own API: litellm
    assert direct.route("openai/my-local", "https://api.openai.com/v1") is None
    assert direct.route("openai/gpt-4o-mini", "http://127.0.0.1:8000/v1") is None  # priced: litellm prices it
    assert direct.route("anthropic/claude-3-5-haiku-20241022", "http://127.0.0.1:8000/v1") is None
    assert direct.route("openai/my-local", "http://127.0.0.1:8000/v1", reasoning_effort="low") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://10.0.0.1:3128")  # litellm's client honours proxies; ours does not
    assert direct.route("openai/my-local", "http://127.0.0.1:8000/v1") is None
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.setenv(settings.LITELLM_ONLY_VAR, "1")
    assert direct.route("openai/my-local", "http://127.0.0.1:8000/v1") is None


def test_both_paths_give_the_same_answers_and_error_lines(monkeypatch):
    plan = {m: [m, m] for m in ("400", "429", "500", "drop", "echo401", "slow", "truncate", "prose", "echo200")}
    seen = {}
    with FakeOpenAI(plan=plan, retry_after=0.01, slow_seconds=4.0) as server:
        for litellm_only in (True, False):
            seen[litellm_only] = {m: _call(monkeypatch, litellm_only, server.url, m, key="sk-test-key-123456")
                                  for m in ["ok", *plan]}
            seen[litellm_only]["params"] = server.seen_params[-1]
        assert server.seen_params[0] == server.seen_params[-1] == {"model": "fake-judge", "max_tokens": 2048,
                                                                   "temperature": 0.0}
    errors = _error_server()
    try:
        url = f"http://127.0.0.1:{errors.server_address[1]}/v1"
        for litellm_only in (True, False):
            seen[litellm_only].update({m: _call(monkeypatch, litellm_only, url, m) for m in ERRORS})
    finally:
        errors.shutdown()
    differ = {case: (seen[True][case], seen[False][case]) for case in seen[True] if seen[False][case] != seen[True][case]}
    assert not differ
    assert seen[False]["ok"][0] is None and seen[False]["ok"][1].startswith("[Explanation]")
    assert "sk-test-key" not in json.dumps(seen[False])  # the echoed key is scrubbed on both paths
    assert seen[False]["429"][0].startswith("RateLimitError (429): litellm.RateLimitError")
    assert seen[False]["ECTX"][0].startswith("ContextWindowExceededError (400)")


def test_a_run_stores_the_same_outputs_on_both_paths(tmp_path, monkeypatch):
    markers = {1: "M429", 2: "M400", 3: "MTRUNC"}
    plan = {"M429": ["429"], "M400": ["400"], "MTRUNC": ["truncate"]}
    columns = "p.ext_id, o.raw_text, o.error, o.parse_status, o.tokens_in, o.tokens_out, o.cost_usd, o.cache_key"
    rows = {}
    for litellm_only in (True, False):
        if litellm_only:
            monkeypatch.setenv(settings.LITELLM_ONLY_VAR, "true")
        else:
            monkeypatch.delenv(settings.LITELLM_ONLY_VAR, raising=False)
        store = marked_store(tmp_path / f"s{litellm_only}.duckdb", 12, markers)
        with FakeOpenAI(plan=plan, retry_after=0.2) as server:
            summary = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=4,
                                    max_retries=2, backoff=0.01)
            assert server.requests == 13 and len(server.attempt_times["M429"]) == 2  # the 429 retried once
        assert (summary.ok, summary.failed, summary.to_json()["cost_usd"]) == (11, 1, None)
        outputs = store.query_df(f"SELECT {columns} FROM judge_outputs o JOIN pairs p USING (pair_id) ORDER BY 1")
        metrics = store.query_df("SELECT p.ext_id, m.metric, m.value FROM metric_values m JOIN pairs p "
                                 "USING (pair_id) ORDER BY 1, 2")
        rows[litellm_only] = (outputs, metrics)
    for new, old in zip(rows[False], rows[True], strict=True):
        pd.testing.assert_frame_equal(new, old)
    assert len(rows[False][1]) > 11 * 4
    assert rows[False][0]["error"].notna().sum() == 1
    assert "BadRequestError (400)" in rows[False][0].set_index("ext_id").loc["p002", "error"]


def _imports_of(args: list[str], env_extra: dict | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True", **(env_extra or {}))
    env.pop(settings.LITELLM_ONLY_VAR, None)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "core", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)
    modules = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return proc, {name.split(".")[0] for name in modules}  # top-level packages (a top package's own line may be
    # missing when its import ends in another thread or never returns to the caller's frame)


@pytest.mark.parametrize("judge", ["openai/fake-judge", "rules"])
def test_score_against_a_local_server_does_not_import_litellm(judge):
    with FakeOpenAI() as server:
        proc, modules = _imports_of(["score", "--reference", "No acute findings.", "--candidate",
                                     "Small left effusion.", "--judge", judge, "--api-base", server.url, "--json"])
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert json.loads(proc.stdout.splitlines()[-1])["scored"] is True
        assert server.requests == (1 if judge.startswith("openai/") else 0)
    assert "litellm" not in modules and "openai" not in modules
    assert "httpx" not in modules


def test_judge_sends_and_reruns_without_litellm(tmp_path):
    marked_store(tmp_path / "s.duckdb", 6, {})
    with FakeOpenAI() as server:
        args = ["--store", str(tmp_path / "s.duckdb"), "judge", "--dataset", "d", "--judge", MODEL, "--api-base",
                server.url, "--json"]
        first, first_modules = _imports_of(args)
        again, again_modules = _imports_of(args)
        helped, help_modules = _imports_of(["judge", "--help"])
        assert server.requests == 6
    assert first.returncode == again.returncode == helped.returncode == 0, first.stderr[-2000:]
    assert json.loads(first.stdout)["sent"] == 6 and json.loads(again.stdout)["sent"] == 0
    for modules in (first_modules, again_modules, help_modules):
        assert "litellm" not in modules


def test_cost_planning_of_an_unpriced_local_model_does_not_import_litellm():
    code = ("import sys; from core.models import estimate_cost; "
            "print(estimate_cost('openai/my-local', 10, 100, 50), sorted({m.split('.')[0] for m in sys.modules} "
            "& {'litellm', 'openai'})); "
            "print(estimate_cost('openai/gpt-4o-mini', 10, 100, 50) > 0, 'litellm' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.stdout.split("\n")[:2] == ["None []", "True True"], proc.stderr[-2000:]
