"""``python -m core ARGS`` run inside the test process: the same ``main()``, no new interpreter.

A fresh ``python -m core`` costs about 1.2 CPU-seconds to start (5 with litellm imported); a test that
only checks what a command prints, returns and writes needs none of that. ``run_cli`` gives such a test
what ``subprocess.run(..., capture_output=True, text=True)`` gave it: a ``CompletedProcess`` with the
exit code, stdout and stderr, after running ``core.cli.main.main(argv)`` with

- ``sys.argv``, ``sys.stdin`` (``input``, empty by default: not a terminal), ``sys.stdout`` and
  ``sys.stderr`` replaced (byte streams underneath, so ``.buffer`` writes are caught too);
- the environment replaced by ``env`` when given (a whole environment, as ``subprocess`` takes it)
  and the working directory set to ``cwd`` (the checkout by default); both restored afterwards;
- the exit code as the interpreter would give it: main's return value, argparse's ``SystemExit``, or
  1 with the traceback on stderr for an uncaught exception;
- the SIGINT and SIGTERM handlers a command installs (the job worker's) put back.

Tests about process behaviour keep real processes: kills and signals, locks held by another process,
what a fresh interpreter imports (litellm's import time), ``os._exit`` in ``core/__main__.py``.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_PREFIX = ("-m", "core")


def _argv(args: Sequence) -> list[str]:
    """The arguments after ``python -m core`` (a leading ``sys.executable, "-m", "core"`` is dropped)."""
    argv = [str(a) for a in args]
    if argv and argv[0] == sys.executable:
        argv = argv[1:]
    if tuple(argv[:2]) == _PREFIX:
        argv = argv[2:]
    return argv


def _exit_code(exc: SystemExit, stderr) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)  # sys.exit("message"): the interpreter prints it and exits 1
    return 1


def _text(raw: bytes) -> str:
    """Decoded as ``subprocess.run(text=True)`` does: UTF-8 with universal newlines."""
    return raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


class _Kept(io.BytesIO):
    """A byte buffer that outlives its wrapper: a command may close sys.stderr (a broken pipe)."""

    def close(self) -> None:
        pass


def run_cli(*args, env: Mapping[str, str] | None = None, cwd: str | os.PathLike | None = None,
            input: str | bytes | None = None, text: bool = True) -> subprocess.CompletedProcess:
    """``python -m core *args`` in this process; see the module docstring."""
    from core.cli.main import main

    argv = _argv(args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args)
    raw_in = input.encode("utf-8") if isinstance(input, str) else (input or b"")
    out_bytes, err_bytes = _Kept(), _Kept()
    stdin = io.TextIOWrapper(io.BytesIO(raw_in), encoding="utf-8")
    stdout = io.TextIOWrapper(out_bytes, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="backslashreplace", write_through=True)
    saved_streams = sys.stdin, sys.stdout, sys.stderr, sys.argv
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        os.chdir(cwd if cwd is not None else ROOT)
        sys.stdin, sys.stdout, sys.stderr, sys.argv = stdin, stdout, stderr, ["python -m core", *argv]
        try:
            code = main(argv)
            if not isinstance(code, int) or isinstance(code, bool):
                raise SystemExit(code)
        except SystemExit as exc:
            code = _exit_code(exc, stderr)
        except Exception:  # what the interpreter does with an uncaught exception
            traceback.print_exc(file=stderr)
            code = 1
        for stream in (stdout, stderr):
            try:
                stream.flush()
            except ValueError:  # closed by the command (BrokenPipeError path)
                pass
    finally:
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved_streams
        os.chdir(saved_cwd)
        if env is not None:
            os.environ.clear()
            os.environ.update(saved_env)
        for sig, handler in saved_signals.items():
            if handler is not None:
                signal.signal(sig, handler)
    out, err = out_bytes.getvalue(), err_bytes.getvalue()
    return subprocess.CompletedProcess(["python", "-m", "core", *argv], code,
                                       _text(out) if text else out, _text(err) if text else err)
