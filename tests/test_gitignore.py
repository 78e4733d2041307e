"""What a store and its runs leave in data/ is ignored by git (issue 43, point 10): after a dashboard run,
``git status`` used to list ``data/radconcord.duckdb.jobs/``. The paths come from the code that writes them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from core.distill.data import models_dir
from core.jobs.launch import log_path
from core.judges.journal import journal_dir
from core.store.backup import auto_backup_folder

ROOT = Path(__file__).resolve().parents[1]


def left_behind() -> list[Path]:
    """Every file a run on the default store writes beside it (none of them is created here)."""
    store = SimpleNamespace(path=ROOT / "data" / "radconcord.duckdb")
    return [store.path, Path(f"{store.path}.wal"), log_path(store, "job-20260101-000000-abcdef"),
            journal_dir(store) / "llm-0123.42-7.jsonl", auto_backup_folder(store.path) / "before-v9.duckdb",
            models_dir(store) / "student" / "card.json", ROOT / "data" / "radconcord.duckdb.tmp" / "spill.bin",
            ROOT / "data" / ".radconcord.duckdb.x1.partial" / "t.parquet", ROOT / "data" / ".radconcord.duckdb.x2.restoring"]


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
def test_git_ignores_what_a_run_leaves_in_data():
    paths = [str(p.relative_to(ROOT)) for p in left_behind()]
    done = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=ROOT, input="\n".join(paths),
                          capture_output=True, text=True, timeout=60)
    ignored = set(done.stdout.split())
    assert [p for p in paths if p not in ignored] == []
    # and what belongs to the project is still tracked
    kept = subprocess.run(["git", "check-ignore", "--no-index", "data/README.md"], cwd=ROOT, capture_output=True)
    assert kept.returncode == 1
