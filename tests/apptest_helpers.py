"""Helpers shared by the AppTest page tests (tests/test_page_*.py).

- ``assert_ok(at)``: the last run raised nothing (the exceptions are the failure message).
- ``open_page(app_test, store, page, params, via_home=False)``: an AppTest on ``page``, run once.
- ``tables(at, *columns)`` / ``table(at, *columns)``: the shown tables having all these columns.
- ``judged_copy(demo_store, tmp_path_factory, folder, *judges)``: a copy of the demo store with
  the offline ``judges`` run on it.
- ``injected_copy(demo_store, path)``: a copy of the demo store with a dataset ``inj`` of injected errors.
- ``use_fake_model(monkeypatch, url, model)``: the pages offer ``model``, served at ``url``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from core.ingest.importers import PairColumns, import_annotations, import_pairs
from core.judges import run_judge
from core.reads.frames import expert_counts
from core.reads.queries import find_pairs
from core.store.db import Store
from tests.conftest import copy_store

FAKE_MODEL = "openai/fake-judge"


def assert_ok(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def open_page(app_test, store, page: str, params: dict | None = None, *, via_home: bool = False):
    """``page`` under AppTest, run once; ``via_home`` runs app.py's home page first (as a visitor
    who lands on the dashboard and then picks the page)."""
    at = app_test(store, params)
    if via_home:
        at.run()
    at.switch_page(page)
    at.run()
    assert_ok(at)
    return at


def tables(at, *columns: str):
    """The tables having all these columns, in page order (read-only tables expose no key to AppTest)."""
    return [d.value for d in at.dataframe if set(columns) <= set(d.value.columns)]


def table(at, *columns: str):
    found = tables(at, *columns)
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]
    return found[0]


def judged_copy(demo_store: Store, tmp_path_factory: pytest.TempPathFactory, folder: str, *judges: str) -> Store:
    """A private copy of the demo store (in a fresh ``folder``) with the offline ``judges`` run on ``demo``."""
    store = copy_store(demo_store, tmp_path_factory.mktemp(folder) / "judged.duckdb")
    for judge in judges:
        run_judge(store, dataset="demo", judge=judge)
    return store


def injected_copy(demo_store: Store, path: Path) -> Store:
    """A copy of the demo store at ``path`` with a dataset ``inj`` shaped like ``python -m core inject``
    output (annotator ``injected``), built without a model: the demo pairs whose experts agree on 1-3
    significant errors of type (a), or of type (b) and none of (a), as pairs with that many injected errors
    of that type (as core/ingest/inject.py writes them); the rules judge run on it."""
    store = copy_store(demo_store, path)
    counts = expert_counts(store, "demo")
    sig = counts[counts["significant"]].pivot_table(index="pair_id", columns="category", values="count")
    pick_a = sig.index[sig["a"].isin([1, 2, 3])]
    pick_b = sig.index[sig["b"].isin([1, 2, 3]) & (sig["a"] == 0)]
    pairs, _ = find_pairs(store, "demo", limit=1000)
    pairs = pairs[pairs["pair_id"].isin(pick_a.union(pick_b))]
    import_pairs(store, pairs, dataset="inj", columns=PairColumns("ext_id", "reference", "candidate"),
                 kind="error_counts")
    ext = pairs.set_index("pair_id")["ext_id"]
    rows = [{"id": ext[p], "category": cat, "significant": True, "count": int(sig.loc[p, cat])}
            for cat, picked in (("a", pick_a), ("b", pick_b)) for p in picked]
    import_annotations(store, pd.DataFrame(rows), dataset="inj", id_col="id", category_col="category",
                       significant_col="significant", count_col="count", annotator="injected")
    run_judge(store, dataset="inj", judge="rules")
    return store


def use_fake_model(monkeypatch: pytest.MonkeyPatch, url: str, model: str = FAKE_MODEL) -> None:
    """Configure ``model`` at ``url`` (a FakeOpenAI server) as the only model, not local-only."""
    monkeypatch.setenv("RADCONCORD_MODELS", model)
    monkeypatch.setenv("RADCONCORD_API_BASE", url)
    monkeypatch.delenv("RADCONCORD_LOCAL_ONLY", raising=False)
