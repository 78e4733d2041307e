"""The dashboard launcher (``python serve.py``, what ``make run`` starts): litellm loads in the
server process as it starts, only when a model is configured."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from core.serve import models_configured

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")


def test_models_are_configured_by_the_environment_or_the_secrets_file(tmp_path):
    assert not models_configured(tmp_path, {})
    assert models_configured(tmp_path, {"RADCONCORD_MODELS": "openai/x"})
    assert not models_configured(tmp_path, {"RADCONCORD_MODELS": "  "})
    secrets = tmp_path / ".streamlit" / "secrets.toml"
    secrets.parent.mkdir()
    secrets.write_text('OPENAI_API_KEY = "k"\n')
    assert not models_configured(tmp_path, {})
    secrets.write_text('RADCONCORD_MODELS = "openai/x=http://127.0.0.1:8000/v1"\n[endpoint_keys]\n"u" = "k"\n')
    assert models_configured(tmp_path, {})
    secrets.write_text("this is [not toml")
    assert not models_configured(tmp_path, {})  # Streamlit reports a broken file; the launcher goes on


_PROBE = """
import sys, threading
import core.judges.llm as llm
from core.judges import caller
assert "litellm" not in sys.modules
llm.preload_litellm(); caller.preload_litellm()  # once per process, however often it is asked
names = [t.name for t in threading.enumerate()]
caller.preload_thread().join(60)
print(names.count("litellm-import"), "litellm" in sys.modules, llm.litellm_module().suppress_debug_info)
"""


def test_preload_imports_litellm_once_in_a_background_thread():
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["1", "True", "True"]


def test_core_never_imports_streamlit():
    """The UI lives in app.py, pages/ and the launcher serve.py; core/ stays importable without it."""
    import re

    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "core").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if re.match(r"\s*(import streamlit|from streamlit\b)", line)]
    assert found == []


def test_a_busy_port_says_which_command_starts_elsewhere():
    import socket

    from core.serve import launch_args

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        _, problem = launch_args(["--server.address", "127.0.0.1", "--server.port", str(port)])
        assert problem is not None and f"port {port} is in use" in problem and f"make run PORT={port + 1}" in problem
    _, problem = launch_args(["--server.address", "127.0.0.1", "--server.port", str(port)])
    assert problem is None  # free again


def test_the_server_loads_the_analysis_pages_imports_before_it_starts():
    """scipy and scikit-learn (seconds of import) are loaded as the server starts, not on a first page visit
    (issue 41); importing the launcher alone loads neither."""
    code = ("import sys, serve; before = [m for m in serve.PRELOAD if m in sys.modules]; serve.preload_analysis(); "
            "print(before, [m for m in (*serve.PRELOAD, 'scipy.stats', 'sklearn') if m not in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=330).stdout.strip()
    assert out == "[] []", out
