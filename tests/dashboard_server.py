"""The dashboard as ``make run`` starts it (``python serve.py``), on a free loopback port, for the browser
tests (tests/app/test_browser*.py) and the browser bench (bench/bench_pages_browser.py): one start and
stop both use.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 60


class ServerDidNotStart(RuntimeError):
    """The server exited or did not answer its health check in time; the message ends with its log."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(proc: subprocess.Popen, url: str, log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerDidNotStart(f"streamlit exited with {proc.returncode} before it was healthy:\n"
                                    f"{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    raise ServerDidNotStart(f"streamlit was not healthy after {timeout_s} s:\n{log.read_text()[-4000:]}")


@contextlib.contextmanager
def running_dashboard(store_path: Path, log: Path, *extra_args: str, root: Path = ROOT, env: dict | None = None,
                      port: int | None = None, start_timeout_s: float = START_TIMEOUT_S
                      ) -> Iterator[tuple[str, subprocess.Popen]]:
    """``python serve.py`` of the checkout ``root`` over ``store_path``, output to ``log``; yields its base URL
    and process once its health check answers, and always stops it. ``env`` is laid over this process's
    environment (a value of None removes the variable)."""
    port = port or free_port()
    environment = {**os.environ, "RADCONCORD_STORE": str(store_path), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                   "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **(env or {})}
    environment = {k: v for k, v in environment.items() if v is not None}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, str(root / "serve.py"),  # `streamlit run app.py` as `make run` starts it
             "--server.headless", "true", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", *extra_args],
            cwd=root, env=environment, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        _wait_healthy(proc, f"http://127.0.0.1:{port}/_stcore/health", log, start_timeout_s)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
