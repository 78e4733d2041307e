"""tests/cli_inprocess.py's run_cli gives what a real ``python -m core`` gives, and leaves the test process as
it found it (environment, working directory, streams, signal handlers)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.cli_inprocess import ROOT, run_cli


def _real(*args: str, env: dict | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True,
                          env=env, input=input, timeout=300)


def test_exit_codes_and_output_match_a_real_process(tmp_path: Path):
    missing = tmp_path / "nope.duckdb"
    cases = [("--store", str(missing), "datasets"),  # refused: exit 1, one line on stderr
             ("nosuch",),  # argparse: exit 2, usage on stderr
             ("parse", "-", "--json")]  # stdin read, JSON out
    for argv in cases:
        real = _real(*argv, input="[Clinically Significant Errors]:\n(a) x: 0.\n")
        mine = run_cli(*argv, input="[Clinically Significant Errors]:\n(a) x: 0.\n")
        assert (mine.returncode, mine.stdout, mine.stderr) == (real.returncode, real.stdout, real.stderr), argv
    assert json.loads(run_cli("parse", "-", "--json", input="score: 3").stdout)
    assert not missing.exists()


def test_environment_cwd_streams_and_signals_are_restored(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("RADCONCORD_ARCH_PROBE", "before")
    handler = signal.getsignal(signal.SIGTERM)
    streams = sys.stdin, sys.stdout, sys.stderr
    cwd = os.getcwd()
    store = tmp_path / "s.duckdb"
    done = run_cli("--store", str(store), "demo", "--pairs", "20", "--json",
                   env={**os.environ, "RADCONCORD_ARCH_PROBE": "during"}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["added"] >= 20 and "created a new store" in done.stderr
    assert os.environ["RADCONCORD_ARCH_PROBE"] == "before" and os.getcwd() == cwd
    assert (sys.stdin, sys.stdout, sys.stderr) == streams and signal.getsignal(signal.SIGTERM) == handler
    judged = run_cli("--store", str(store), "judge", "--dataset", "demo", "--judge", "length", "--json")
    assert judged.returncode == 0 and json.loads(judged.stdout)["ok"] >= 20  # the job worker ran here
    assert signal.getsignal(signal.SIGTERM) == handler  # the worker's SIGTERM handler was taken back


def test_an_uncaught_exception_is_exit_1_with_its_traceback(monkeypatch):
    import core.cli.main as cli_main

    def boom(argv=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli_main, "main", boom)
    done = run_cli("datasets")
    assert done.returncode == 1 and "Traceback" in done.stderr and "RuntimeError: boom" in done.stderr
