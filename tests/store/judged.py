"""A demo store with the three offline judges run, for the tests that damage, cut or race a store file."""

from __future__ import annotations

import hashlib
from pathlib import Path

from core.ingest.demo import build_demo
from core.judges import run_judge
from core.store.db import Store
from core.store.integrity import check_store


def judged_demo(path: Path, n_pairs: int) -> Path:
    """``n_pairs`` demo pairs (seed 7) with rules + lexical + length run; checked whole before any test spoils it."""
    store = Store(path)
    build_demo(store, n_pairs=n_pairs, seed=7)
    for judge in ("rules", "lexical", "length"):
        run_judge(store, dataset="demo", judge=judge)
    assert check_store(store.path).ok
    return store.path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
