"""RadEval's per-sample results through the dashboard (AppTest): imported from the Data page's wizard, then
side by side on the Correlations page with the orientation each metric has in core's table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.analysis.naming import display_name
from core.analysis.stats import correlate
from core.ingest.demo import build_demo
from core.ingest.importers.radeval import RADEVAL_METRICS, import_radeval
from core.reads.frames import apply_orientations, correlation_frame, declared_orientations
from core.store.db import Store
from tests.apptest_helpers import assert_ok, open_page
from tests.conftest import copy_store

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "radeval_per_sample.json"
IDS = ROOT / "docs" / "examples" / "radeval_ids.txt"
METRICS = list(json.loads(EXAMPLE.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def demo20(tmp_path_factory) -> Store:
    store = Store(tmp_path_factory.mktemp("rv-app") / "demo20.duckdb")
    build_demo(store, n_pairs=20, seed=7)  # the pairs the example's ids name
    return store


def _wizard(app_test, store: Store):
    at = open_page(app_test, store, "pages/data.py")
    at.radio(key="data_imp_what").set_value("outputs").run()
    assert_ok(at)
    return at


def test_the_wizard_imports_radeval_results_with_their_orientations(app_test, demo20: Store, tmp_path):
    store = copy_store(demo20, tmp_path / "s.duckdb")
    at = _wizard(app_test, store)
    assert at.button(key="data_rv_go").disabled  # nothing uploaded yet
    at.file_uploader(key="data_rv_results").upload(EXAMPLE.name, EXAMPLE.read_bytes(), "application/json")
    at.file_uploader(key="data_rv_ids").upload(IDS.name, IDS.read_bytes(), "text/plain").run()
    assert_ok(at)
    assert at.text_input(key="data_rv_judge").value == "radeval"
    at.button(key="data_rv_go").click().run()
    assert_ok(at)
    assert [s.value for s in at.success] == [
        f"Imported 20 pairs x {len(METRICS)} metrics into dataset **demo**: {20 * len(METRICS)} values added, 0 "
        "skipped (already stored)."]
    shown = [d.value for d in at.dataframe if list(d.value.columns) == ["metric", "orientation"]]
    assert len(shown) == 1
    words = dict(zip(shown[0]["metric"], shown[0]["orientation"], strict=True))
    assert words["radcliq_v1"] == "lower is better" and words["crimson"] == "higher is better"
    assert set(words) == set(METRICS)
    assert store.query_one("SELECT count(*) FROM metric_values") == 20 * len(METRICS)


def test_the_wizard_shows_every_problem_and_imports_nothing(app_test, demo20: Store, tmp_path):
    store = copy_store(demo20, tmp_path / "s.duckdb")
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data["green"][2] = None
    data["rouge1"] = data["rouge1"][:18]
    at = _wizard(app_test, store)
    at.file_uploader(key="data_rv_results").upload("bad.json", json.dumps(data).encode(), "application/json")
    at.file_uploader(key="data_rv_ids").upload(IDS.name, IDS.read_bytes(), "text/plain").run()
    at.button(key="data_rv_go").click().run()
    assert_ok(at)
    assert at.error[0].value.startswith("Nothing was imported: 2 problem(s) found.")
    problems = at.code[0].value.splitlines()
    assert "metric 'green' value 3 (id 'demo-000002'): null is not a number" in problems
    assert any(p.startswith("metric 'rouge1' has 18 values, the ids file 20 ids") for p in problems)
    assert store.query_one("SELECT count(*) FROM metric_values") == 0


def test_an_ids_table_gets_a_column_picker(app_test, demo20: Store, tmp_path):
    store = copy_store(demo20, tmp_path / "s.duckdb")
    ids = IDS.read_text(encoding="utf-8").split()
    table = "n,study_id\n" + "".join(f"{i},{pid}\n" for i, pid in enumerate(ids))
    at = _wizard(app_test, store)
    at.file_uploader(key="data_rv_results").upload(EXAMPLE.name, EXAMPLE.read_bytes(), "application/json")
    at.file_uploader(key="data_rv_ids").upload("ids.csv", table.encode(), "text/csv").run()
    assert at.selectbox(key="data_rv_id_col").value == "study_id"  # guessed from its name
    at.button(key="data_rv_go").click().run()
    assert_ok(at)
    assert store.query_one("SELECT count(*) FROM metric_values") == 20 * len(METRICS)


def test_correlations_show_every_radeval_metric_with_its_orientation(app_test, demo20: Store, tmp_path):
    store = copy_store(demo20, tmp_path / "s.duckdb")
    import_radeval(store, EXAMPLE, IDS, dataset="demo")
    at = open_page(app_test, store, "pages/correlations.py", {"dataset": "demo"})
    shown = at.table[0].value
    assert list(shown.index) == ["radeval"] and set(shown.columns) == {display_name("radeval", m) for m in METRICS}
    detail = [d.value for d in at.dataframe if "tau CI low" in d.value.columns or "sign" in d.value.columns]
    assert len(detail) == 1
    rows = detail[0][detail[0]["judge"] == "radeval"].set_index("metric")
    assert set(rows.index) == set(METRICS)
    expected = correlate(correlation_frame(store, "demo", "score"), n_boot=0, min_n=10, target_name="score")
    expected = apply_orientations(expected, declared_orientations(store, "demo"), "score").set_index("metric")
    for metric in METRICS:
        assert rows.loc[metric, "tau"] == pytest.approx(expected.loc[metric, "tau"], abs=1e-12)
        assert rows.loc[metric, "sign"] == ("ok" if expected.loc[metric, "sign_ok"] else "wrong ⚠")
    # raw RadCliQ falls as the experts' score rises; lower-is-better makes that the right sign
    assert rows.loc["radcliq_v1", "tau"] < 0 and rows.loc["radcliq_v1", "sign"] == "ok"
    assert not RADEVAL_METRICS["radcliq_v1"].higher_is_better
    assert not shown.loc["radeval"].astype(str).str.contains("⚠").any()
