"""A model server on this machine (core.judges.localserver): the call defaults `judge` takes for it, and the
one line a user gets when the server does not serve the model name (vLLM's and Ollama's HTTP 404)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from core.jobs.spec import JobSpec
from core.judges import localserver
from core.store.db import Store
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]


def cli(store: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "--store", str(store), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_a_loopback_server_gets_two_calls_at_once_and_a_long_timeout(demo_store_copy: Store):
    with FakeOpenAI(latency=0.4) as server:
        done = cli(demo_store_copy.path, "judge", "--dataset", "demo", "--judge", "openai/fake-judge",
                   "--api-base", server.url, "--limit", "8", "--json")
        assert done.returncode == 0, done.stderr
        assert server.requests == 8
        assert server.max_in_flight == localserver.LOCAL_CONCURRENCY == 2  # the old default sent 8 at once
    spec = JobSpec.from_json(demo_store_copy.query_one("SELECT spec FROM jobs"))
    assert (spec.call.concurrency, spec.call.timeout) == (2, localserver.LOCAL_TIMEOUT)


def test_flags_given_win_over_the_local_defaults(demo_store_copy: Store):
    with FakeOpenAI(latency=0.3) as server:
        done = cli(demo_store_copy.path, "judge", "--dataset", "demo", "--judge", "openai/fake-judge",
                   "--api-base", server.url, "--limit", "6", "--concurrency", "6", "--timeout", "30", "--json")
        assert done.returncode == 0, done.stderr
        assert server.max_in_flight > 2
    spec = JobSpec.from_json(demo_store_copy.query_one("SELECT spec FROM jobs"))
    assert (spec.call.concurrency, spec.call.timeout) == (6, 30.0)


def test_call_defaults_keep_the_hosted_api_values():
    assert localserver.call_defaults(None, None, None) == (8, 120.0)
    assert localserver.call_defaults("https://api.openai.com/v1", None, None) == (8, 120.0)
    assert localserver.call_defaults("http://127.0.0.1:8000/v1", None, None) == (2, 600.0)
    assert localserver.call_defaults("http://10.0.0.5:11434/v1", 1, 45.0) == (1, 45.0)


class _StrictServer:
    """A loopback server that answers like vLLM: it lists one model and answers any other name with 404."""

    def __init__(self, served: str = "Qwen/Qwen2.5-7B-Instruct"):
        self.posts = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code: int, body: dict):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._send(200, {"object": "list", "data": [{"id": served, "object": "model", "owned_by": "vllm"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                outer.posts += 1
                self._send(404, {"object": "error", "message": f"The model `{body['model']}` does not exist.",
                                 "type": "NotFoundError", "param": None, "code": 404})

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def stop(self):
        self.http.shutdown()
        self.http.server_close()


def test_a_model_name_the_server_does_not_serve_ends_in_one_line_naming_what_it_serves(demo_store_copy: Store):
    server = _StrictServer()
    try:
        done = cli(demo_store_copy.path, "judge", "--dataset", "demo", "--judge", "openai/qwen-7b",
                   "--api-base", server.url, "--limit", "3")
    finally:
        server.stop()
    assert done.returncode == 4
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: the server at {server.url} does not serve a model named 'qwen-7b'; it serves "
                      "Qwen/Qwen2.5-7B-Instruct (e.g. --judge openai/Qwen/Qwen2.5-7B-Instruct); the pairs are "
                      "recorded as failed, nothing else was changed"]
    assert server.posts == 3  # 404 is not retried
    assert demo_store_copy.query_one("SELECT n_failed FROM judge_runs") == 3


def test_the_name_checks_ask_nothing_of_a_hosted_api():
    assert localserver.served_models("https://api.openai.com/v1") is None
    assert localserver.name_note("openai/gpt-4o", "https://api.openai.com/v1") is None
    assert localserver.not_served_line("openai/gpt-4o", None, ["NotFoundError (404): no such model"]) == (
        "the provider does not serve a model named 'gpt-4o'; the pairs are recorded as failed, nothing "
        "else was changed")
    assert localserver.not_served_line("openai/x", None, ["RateLimitError (429): slow down"]) is None
