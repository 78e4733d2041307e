"""The report's excerpts name their pair's patient context (issue 33, item 1), escaped, and only with excerpts."""

from __future__ import annotations

import html

import pytest

from core.judges import run_judge
from core.report import build_report, collect
from core.store.db import Store
from tests.conftest import copy_store

SCRIPT = "<script>window.__pwned=1</script>"


@pytest.fixture(scope="module")
def judged(demo_store: Store, tmp_path_factory) -> Store:
    store = copy_store(demo_store, tmp_path_factory.mktemp("ctx-report") / "judged.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    # markup in one field of every pair: it must come out as text
    store.execute("UPDATE pairs SET indication = indication || ? WHERE dataset = 'demo'", [f" {SCRIPT}"])
    return store


def test_each_excerpt_shows_its_pairs_context_escaped(judged: Store):
    data = collect(judged, "demo", n_boot=50, seed=0)
    assert data.excerpts, "the demo's summary has representative pairs"
    page = build_report(judged, "demo", n_boot=50, seed=0, include_excerpts=True)
    assert SCRIPT not in page
    for pair_id, excerpt in data.excerpts.items():
        age, sex, indication, history = judged.query_one(
            "SELECT age, sex, indication, history FROM pairs WHERE pair_id = ?", [pair_id])
        words = f"Age {age} · Sex {sex} · Indication {indication}"
        if history is not None:
            words += f" · Comparison / history {history}"
        expected = (f"example: pair {html.escape(excerpt['ext_id'])} · <span class='context'>patient: "
                    f"{html.escape(words)}</span>")
        assert expected in page, expected
    assert "with their pairs&#x27; patient context, where stored" in page


def test_without_excerpts_no_context_leaves_the_machine(judged: Store):
    page = build_report(judged, "demo", n_boot=50, seed=0, include_excerpts=False)
    assert "patient:" not in page and "window.__pwned" not in page
    indication = judged.query_one("SELECT indication FROM pairs ORDER BY pair_id LIMIT 1")
    assert html.escape(indication) not in page
