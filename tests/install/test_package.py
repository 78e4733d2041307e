"""The installable package (issue 45, docs/INSTALL.md): what the wheel holds, its pins and commands, and
``python -m core serve`` starting the dashboard from another folder with the project's Streamlit settings.

The full install on Python 3.11-3.13 (fresh venvs, the commands from another folder) is ``make matrix``
(tests/install/matrix.py): minutes per version, so not part of this file.
"""

from __future__ import annotations

import email
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from core.cli.dashboard import launcher
from core.serve import packaged_config

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["core", "ui", "pages", "app.py", "serve.py", "setup.py", "pyproject.toml", "README.md", ".streamlit",
           "requirements.txt", "requirements-ml.txt", "requirements-llm.txt", "constraints.txt"]


def pins(name: str) -> list[str]:
    lines = [ln.strip() for ln in (ROOT / name).read_text().splitlines()]
    return sorted(ln for ln in lines if ln and not ln.startswith(("#", "-")))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel `pip install .` builds, from a copy of the checkout (the build leaves files behind)."""
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheel")
    for name in SOURCES:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(
            ROOT / name, src / name, **({"ignore": shutil.ignore_patterns("__pycache__")} if (ROOT / name).is_dir() else {}))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                           "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("radconcord-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_holds_core_its_data_and_the_dashboard(wheel):
    names = set(wheel.namelist())
    core = {str(p.relative_to(ROOT)) for p in (ROOT / "core").rglob("*")
            if p.suffix in {".py", ".sql", ".txt"} and "__pycache__" not in p.parts}
    assert core and core <= names, sorted(core - names)[:5]
    assert any(n.startswith("core/store/migrations/") and n.endswith(".sql") for n in names)
    dashboard = {f"radconcord_app/{d}/{p.name}" for d in ("ui", "pages") for p in (ROOT / d).glob("*.py")}
    dashboard |= {"radconcord_app/app.py", "radconcord_app/serve.py", "radconcord_app/.streamlit/config.toml"}
    assert dashboard <= names, sorted(dashboard - names)
    tops = {n.split("/")[0] for n in names}
    assert tops == {"core", "radconcord_app", "radconcord-0.1.0.dist-info"}, tops  # no setup.py, tests, data


def test_the_commands_and_the_pins(wheel):
    entry = wheel.read("radconcord-0.1.0.dist-info/entry_points.txt").decode()
    assert "radconcord = core.__main__:run" in entry and "radconcord-app = radconcord_app.serve:main" in entry
    meta = email.message_from_bytes(wheel.read("radconcord-0.1.0.dist-info/METADATA"))
    assert meta["Name"] == "radconcord"
    assert meta["Requires-Python"].replace(" ", "") in {">=3.11,<3.14", "<3.14,>=3.11"}
    required = meta.get_all("Requires-Dist")
    assert sorted(r for r in required if "extra ==" not in r) == pins("requirements.txt")
    assert sorted(r.split(";")[0].strip() for r in required if 'extra == "ml"' in r) == pins("requirements-ml.txt")
    assert sorted(r.split(";")[0].strip() for r in required if 'extra == "llm"' in r) == pins("requirements-llm.txt")
    assert "litellm==1.102.4" in required  # never 1.107.0 (constraints.txt)


def test_the_project_streamlit_settings_apply_where_the_folder_has_none(tmp_path):
    config = packaged_config(ROOT, tmp_path)
    assert config["STREAMLIT_SERVER_ADDRESS"] == "127.0.0.1"
    assert config["STREAMLIT_SERVER_HEADLESS"] == "true"
    assert config["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] == "false"
    assert config["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] == "none"
    assert packaged_config(ROOT, ROOT) == {}  # the checkout: Streamlit reads the file itself
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "config.toml").write_text("[server]\nport = 9999\n")
    assert packaged_config(ROOT, tmp_path) == {}  # the folder's own file wins whole


def test_serve_starts_the_dashboard_from_another_folder(tmp_path):
    assert launcher() == ROOT / "serve.py"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RADJUDGE_", "RADCONCORD_", "STREAMLIT_"))}
    env.update(PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.Popen([sys.executable, "-m", "core", "serve", "--server.port", str(port)], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    assert r.read() == b"ok"
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "no health answer in 120 s"
                time.sleep(0.3)
    finally:
        proc.terminate()
        out = proc.communicate(timeout=30)[0]
    assert "127.0.0.1" in out and "0.0.0.0" not in out, out  # the project's loopback address applied
