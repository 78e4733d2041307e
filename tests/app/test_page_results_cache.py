"""The Correlations page keeps what it computed in the store (core/reads/results.py, migration 012).

A second server (here: a new AppTest after Streamlit's caches are emptied, as a restarted server
starts) reads the table with its CIs from the store instead of computing it, shows the same numbers
as the first one and as the CLI's ``correlate --json``; a new judge run (a data write) is never answered
from the kept result; a table quicker to compute than to write is not kept; a store held by another connection keeps nothing and the page goes on.
"""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest
import streamlit as st

from core.reads import results
from core.reads.pairmatrix import PairMatrix
from core.store.db import Store
from tests.apptest_helpers import judged_copy, open_page

PAGE = "pages/correlations.py"
VIEW = {"dataset": "demo", "n_boot": "200"}


@pytest.fixture
def judged(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    return judged_copy(demo_store, tmp_path_factory, "kept", "rules", "lexical")


def _fresh_server() -> None:
    st.cache_data.clear()
    st.cache_resource.clear()


def _cells(at) -> list[list[str]]:
    return at.table[0].value.astype(str).values.tolist()


def _correlations(monkeypatch) -> list[int]:
    """Count the page's correlation computations (PairMatrix.correlate) from now on."""
    calls = []
    original = PairMatrix.correlate

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(PairMatrix, "correlate", counted)
    return calls


def test_a_restarted_server_reads_the_table_from_the_store(app_test, judged: Store, monkeypatch, capsys):
    monkeypatch.setattr(results, "KEEP_ABOVE_S", 0.0)  # keep every table (the demo's are quick)
    _fresh_server()
    first = open_page(app_test, judged, PAGE, VIEW)
    shown = _cells(first)
    kept = judged.query_df("SELECT reader, data_version FROM results_cache")
    assert "load_table" in set(kept["reader"]) and set(kept["data_version"]) == {judged.data_version()}

    _fresh_server()
    calls = _correlations(monkeypatch)
    again = open_page(app_test, judged, PAGE, VIEW)
    assert calls == [], "the restarted page computed the table again instead of reading it from the store"
    assert _cells(again) == shown
    # the numbers are the CLI's (correlate --json, the same resamples and seed)
    from core.cli.main import main

    capsys.readouterr()
    assert main(["--store", str(judged.path), "correlate", "--dataset", "demo", "--n-boot", "200", "--seed", "0",
                 "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    cli = cli["rows"] if isinstance(cli, dict) and "rows" in cli else cli
    detail = next(d.value for d in again.dataframe if "tau CI low" in d.value.columns)
    compared = 0
    for row in cli:
        match = detail[(detail["judge"] == row["judge"]) & (detail["metric"] == row["metric"])]
        if len(match) and row.get("tau") is not None:
            assert match["tau"].iloc[0] == pytest.approx(row["tau"], abs=1e-12)
            assert match["tau CI low"].iloc[0] == pytest.approx(row["ci_low"], abs=1e-12)
            compared += 1
    assert compared >= 4


def test_a_data_write_is_never_answered_from_a_kept_result(app_test, judged: Store, monkeypatch):
    monkeypatch.setattr(results, "KEEP_ABOVE_S", 0.0)
    _fresh_server()
    open_page(app_test, judged, PAGE, VIEW)
    from core.judges import run_judge

    run_judge(judged, dataset="demo", judge="length")  # a new judge: a new data version
    _fresh_server()
    calls = _correlations(monkeypatch)
    at = open_page(app_test, judged, PAGE, VIEW)
    assert calls, "the table of the old data was read back"
    assert any("length" in str(j) for j in at.table[0].value.index)
    assert set(judged.query_df("SELECT data_version FROM results_cache")["data_version"]) == {judged.data_version()}


def test_a_quick_result_is_not_kept(app_test, judged: Store, monkeypatch):
    """A table quicker to compute than KEEP_ABOVE_S costs more to write than to compute again: not kept."""
    monkeypatch.setattr(results, "KEEP_ABOVE_S", 3600.0)
    _fresh_server()
    open_page(app_test, judged, PAGE, VIEW)
    assert judged.query_one("SELECT count(*) FROM results_cache") == 0
    monkeypatch.setattr(results, "KEEP_ABOVE_S", 0.0)
    _fresh_server()
    open_page(app_test, judged, PAGE, VIEW)
    assert judged.query_one("SELECT count(*) FROM results_cache") >= 2  # the point table and the one with CIs


def test_keep_gives_up_quietly_on_a_held_store(judged: Store):
    import duckdb

    frame = pd.DataFrame({"tau": [0.1234567890123, float("nan")], "reason": [None, "too few"]})
    version = judged.data_version()
    key = results.result_key("reader", ("demo",), version)
    held = duckdb.connect(str(judged.path))  # another connection holds the file
    try:
        t0 = time.monotonic()
        assert results.keep(judged, key, "reader", version, frame) is False
        assert time.monotonic() - t0 < 5 * results.WRITE_PATIENCE_S + 1  # the page does not wait long
    finally:
        held.close()
    assert results.lookup(judged, key) is None
    assert results.keep(judged, key, "reader", version, frame) is True
    back = results.lookup(judged, key)
    pd.testing.assert_frame_equal(back, frame)
    assert json.dumps(back["tau"].tolist()[:1]) == json.dumps([0.1234567890123])


def test_calibration_reads_its_bootstrap_from_the_store_after_a_restart(app_test, judged: Store, monkeypatch):
    import core.analysis.calibration as calibration

    monkeypatch.setattr(results, "KEEP_ABOVE_S", 0.0)
    params = {"dataset": "demo", "n_boot": "100"}
    _fresh_server()
    first = open_page(app_test, judged, "pages/calibration.py", params)
    shown = [d.value for d in first.dataframe if "bias" in d.value.columns]
    assert shown and "_count_calibration" in set(judged.query_df("SELECT reader FROM results_cache")["reader"])

    _fresh_server()
    calls = []
    original = calibration.count_calibration
    monkeypatch.setattr(calibration, "count_calibration", lambda *a, **k: calls.append(1) or original(*a, **k))
    again = open_page(app_test, judged, "pages/calibration.py", params)
    assert calls == [], "the restarted page bootstrapped the calibration again"
    for before, after in zip(shown, [d.value for d in again.dataframe if "bias" in d.value.columns], strict=True):
        pd.testing.assert_frame_equal(before, after)
