"""One replica of a served model: tests/fake_openai.py's server in a process of its own, with a request log.

Every chat request is logged as two lines in ``--log`` (opened for appending, one ``os.write`` each, so
the lines survive a SIGKILL): ``recv DIGEST`` when it arrives and ``done DIGEST`` once its answer has
been written to the socket, DIGEST being the SHA-256 of the request's messages (one per pair). A killed
replica's received-but-unanswered requests are therefore exactly its ``recv`` digests without ``done``.

``Replica(port, latency, log)`` starts and SIGKILLs such a process (same port on restart) from a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[1]


class LoggedFakeOpenAI(FakeOpenAI):
    def __init__(self, log: str, **kwargs):
        super().__init__(**kwargs)
        self.log_fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def _handler(self):
        base = super()._handler()
        fake = self

        class Handler(base):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                digest = hashlib.sha256(json.dumps(json.loads(raw or b"{}").get("messages", []),
                                                   sort_keys=True).encode()).hexdigest()[:16]
                os.write(fake.log_fd, f"recv {digest}\n".encode())
                connection, self.rfile = self.rfile, _Replay(raw)  # the base handler reads the body again
                try:
                    super().do_POST()
                finally:
                    self.rfile = connection  # the next request on this kept-alive connection
                os.write(fake.log_fd, f"done {digest}\n".encode())

        return Handler


class _Replay:
    def __init__(self, data: bytes):
        self.data = data

    def read(self, n: int = -1) -> bytes:
        out, self.data = (self.data, b"") if n < 0 else (self.data[:n], self.data[n:])
        return out


def digest_of(messages: list[dict]) -> str:
    """The digest a replica logs for a request with these messages."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:16]


def read_log(path: Path) -> tuple[Counter, Counter]:
    """(received, answered) digests of a replica's log."""
    received, answered = Counter(), Counter()
    if path.exists():
        for line in path.read_text().splitlines():
            kind, _, digest = line.partition(" ")
            (received if kind == "recv" else answered)[digest] += 1
    return received, answered


class Replica:
    """A replica process on a fixed port, killed with SIGKILL and started again on the same port."""

    def __init__(self, port: int, latency: float, log: Path):
        self.port, self.latency, self.log = port, latency, log
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> Replica:
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fake_replica", "--port", str(self.port),
                                      "--latency", str(self.latency), "--log", str(self.log)],
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env=dict(os.environ, PYTHONPATH=str(ROOT)))
        line = self.proc.stdout.readline()
        if not line.startswith("serving"):
            raise RuntimeError(f"replica on port {self.port} did not start: {line!r}")
        return self

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def received(self) -> int:
        return sum(read_log(self.log)[0].values())


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    for _ in range(50):  # the port of a replica just killed may take a moment to be free again
        try:
            server = LoggedFakeOpenAI(args.log, latency=args.latency, port=args.port)
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise SystemExit(f"port {args.port} stays in use")
    print(f"serving {server.url}", flush=True)
    server._server.serve_forever()
