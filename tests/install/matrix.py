"""Install check on each Python: ``python tests/install/matrix.py [3.11 3.12 3.13]`` (``make matrix``).

For each version, in a fresh venv (pyenv's interpreter, ~/.pyenv/versions/X.Y.*): ``pip install CHECKOUT``,
then, from an empty folder outside the checkout, ``radconcord --help``, ``radconcord demo``, ``radconcord judge
--dataset demo --judge rules`` (correlate needs a judge's run), ``radconcord correlate --dataset demo``, and an AppTest run of the installed dashboard (the
``radconcord_app`` package's app.py, on the demo store just built). Each step's wall and CPU seconds
are printed; the exit code is the number of versions that failed. Nothing outside loopback is reached
except the package index pip is configured with (the pip cache makes a second run cheap).

``--editable`` installs with ``pip install -e`` instead; ``--keep`` leaves the venvs in --work.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
VERSIONS = ("3.11", "3.12", "3.13")

# Run by the venv's python: the installed dashboard's first screen on the demo store, under AppTest.
SMOKE = """
import sys
from importlib.util import find_spec
from pathlib import Path
from streamlit.testing.v1 import AppTest
place = Path(next(iter(find_spec("radconcord_app").submodule_search_locations)))
assert (place / "pages" / "correlations.py").is_file() and (place / "ui" / "shared.py").is_file(), place
at = AppTest.from_file(str(place / "app.py"), default_timeout=120)
at.run()
assert not at.exception, [e.value for e in at.exception]
assert "demo" in at.sidebar.selectbox(key="dataset").options, "no demo dataset in the picker"
assert any(s.label == "Judge" and "rules" in s.options for s in at.selectbox), "Correlations did not open"
print("apptest ok:", len(at.markdown), "markdown,", len(at.dataframe), "tables,", len(at.selectbox), "selectboxes")
"""

# Run by the venv's python: `radconcord serve` on a free loopback port until Streamlit's health check answers.
SERVE = """
import socket, subprocess, sys, time, urllib.request
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
proc = subprocess.Popen([sys.argv[1], "serve", "--server.port", str(port)], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
try:
    for _ in range(240):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                assert r.read() == b"ok"
                print("serve ok on port", port); break
        except OSError:
            assert proc.poll() is None, proc.stdout.read()
            time.sleep(0.5)
    else:
        raise SystemExit("no health answer in 120 s")
finally:
    proc.terminate(); proc.wait(30)
"""


def interpreter(version: str) -> Path | None:
    """pyenv's newest X.Y.* python, or None."""
    found = sorted(PYENV.glob(f"{version}.*/bin/python{version}"),
                   key=lambda p: [int(x) for x in p.parts[-3].split(".") if x.isdigit()])
    return found[-1] if found else None


def step(name: str, cmd: list[str], cwd: Path, env: dict, timeout: int = 1800) -> tuple[bool, float, float, str]:
    """Run cmd; (ok, wall s, cpu s of the child, last lines of output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        ok, out = done.returncode == 0, (done.stdout + done.stderr)
    except subprocess.TimeoutExpired as exc:
        ok, out = False, f"timed out after {timeout} s: {exc}"
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"  {'ok  ' if ok else 'FAIL'} {name:<34} {wall:7.1f} s wall {cpu:7.1f} s cpu", flush=True)
    return ok, wall, cpu, "\n".join(out.strip().splitlines()[-15:])


def check(version: str, work: Path, editable: bool, reuse: bool = False) -> tuple[bool, list[tuple[str, float, float]]]:
    python = interpreter(version)
    if python is None:
        print(f"{version}: no interpreter under {PYENV}")
        return False, []
    print(f"Python {version} ({python})", flush=True)
    venv, away = work / f"venv-{version}", work / f"away-{version}"
    reuse = reuse and (venv / "bin" / "radconcord").exists()
    if not reuse:
        shutil.rmtree(venv, ignore_errors=True)
    shutil.rmtree(away, ignore_errors=True)
    away.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RADJUDGE_", "RADCONCORD_", "VIRTUAL_ENV"))}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
               PYTHONDONTWRITEBYTECODE="1")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    bin_ = venv / "bin"
    install = ["pip", "install", "--quiet", *(["-e"] if editable else []), str(ROOT)]
    steps = [
        ("venv", [str(python), "-m", "venv", str(venv)], work),
        ("pip install" + (" -e" if editable else ""), [str(bin_ / "python"), "-m", *install], away),
        ("radconcord --help", [str(bin_ / "radconcord"), "--help"], away),
        ("radconcord demo", [str(bin_ / "radconcord"), "demo"], away),
        ("radconcord judge --dataset demo (rules)",
         [str(bin_ / "radconcord"), "judge", "--dataset", "demo", "--judge", "rules"], away),
        ("radconcord correlate --dataset demo", [str(bin_ / "radconcord"), "correlate", "--dataset", "demo"], away),
        ("AppTest smoke (installed app.py)", [str(bin_ / "python"), "-c", SMOKE], away),
        ("radconcord serve (health answers)", [str(bin_ / "python"), "-c", SERVE, str(bin_ / "radconcord")], away),
    ]
    times = []
    for name, cmd, cwd in steps[2:] if reuse else steps:
        ok, wall, cpu, tail = step(name, cmd, cwd, env)
        times.append((name, wall, cpu))
        if not ok:
            print("    " + tail.replace("\n", "\n    "))
            return False, times
        if name == "radconcord --help" and "correlate" not in tail + subprocess.run(
                cmd, cwd=cwd, env=env, capture_output=True, text=True).stdout:
            print("    --help does not list correlate")
            return False, times
    return True, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="*", default=list(VERSIONS))
    parser.add_argument("--work", type=Path, default=None, help="where the venvs go (default: a temporary folder)")
    parser.add_argument("--editable", action="store_true", help="pip install -e instead of pip install")
    parser.add_argument("--keep", action="store_true", help="keep the venvs")
    parser.add_argument("--reuse", action="store_true",
                        help="with --work: use a venv already there as it is (no venv, no pip install)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="radconcord-matrix-"))
    work.mkdir(parents=True, exist_ok=True)
    failed, total = [], time.monotonic()
    try:
        for version in args.versions:
            ok, times = check(version, work, args.editable, args.reuse)
            print(f"  {version}: {'passed' if ok else 'FAILED'} in {sum(t[1] for t in times):.1f} s wall, "
                  f"{sum(t[2] for t in times):.1f} s cpu", flush=True)
            if not ok:
                failed.append(version)
    finally:
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"matrix: {len(args.versions) - len(failed)}/{len(args.versions)} passed in "
          f"{time.monotonic() - total:.1f} s" + (f"; failed: {' '.join(failed)}" if failed else ""))
    return len(failed)


if __name__ == "__main__":
    sys.exit(main())
