"""Shared fixtures: stores on fresh DuckDB files, and a dashboard under AppTest.

- ``tmp_store``: an empty, migrated store in ``tmp_path``.
- ``demo_store``: one store per test session holding ``build_demo(n_pairs=120,
  seed=3)``. Shared: tests must not write to it (use ``demo_store_copy``).
- ``demo_store_copy``: a private copy of the demo store, safe to import into.
- ``app_test``: ``app_test(store)`` -> an ``AppTest`` of app.py reading ``store``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from core.settings import apply_offline_defaults
from core.store import Store

apply_offline_defaults()  # before anything can import litellm

ROOT = Path(__file__).resolve().parents[1]
DEMO_PAIRS = 120
DEMO_SEED = 3


@pytest.fixture
def tmp_store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store.duckdb")


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    from core.demo import build_demo

    store = Store(tmp_path_factory.mktemp("demo") / "demo.duckdb")
    build_demo(store, n_pairs=DEMO_PAIRS, seed=DEMO_SEED)
    return store


def copy_store(store: Store, dest: Path) -> Store:
    """Copy a store file (and its WAL, if any) and open the copy."""
    shutil.copyfile(store.path, dest)
    wal = Path(f"{store.path}.wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{dest}.wal"))
    return Store(dest)


@pytest.fixture
def demo_store_copy(demo_store: Store, tmp_path: Path) -> Store:
    return copy_store(demo_store, tmp_path / "demo-copy.duckdb")


@pytest.fixture
def use_store(monkeypatch: pytest.MonkeyPatch):
    """``use_store(store)`` points ``RADJUDGE_STORE`` at it for this test."""

    def _use(store: Store | os.PathLike | str) -> Path:
        path = Path(store.path if isinstance(store, Store) else store).resolve()
        monkeypatch.setenv("RADJUDGE_STORE", str(path))
        return path

    return _use


@pytest.fixture
def app_test(use_store, monkeypatch: pytest.MonkeyPatch):
    """``app_test(store, query_params=None)`` -> an AppTest of app.py, not yet run.

    Streamlit treats an app with a ``pages/`` folder as a legacy (v1)
    multipage app until ``st.navigation`` is called once in the process; a
    real server then keeps that off for good, but AppTest resets it before
    every run, so from the second run on it would execute the last page
    without app.py. The patch keeps the server's steady state.
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    original_init = PagesManager.__init__

    def init_without_pages_dir(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init_without_pages_dir)

    def _make(store: Store | os.PathLike | str, query_params: dict | None = None) -> AppTest:
        use_store(store)
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
        if query_params:
            at.query_params.update(query_params)
        return at

    return _make


@pytest.fixture
def no_models(monkeypatch: pytest.MonkeyPatch):
    """No model configured: the pages offer only the offline judges."""
    for var in ("RADJUDGE_MODELS", "RADJUDGE_API_BASE", "RADJUDGE_LOCAL_ONLY"):
        monkeypatch.delenv(var, raising=False)
