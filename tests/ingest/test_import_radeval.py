"""RadEval's per-sample results imported as one run (core/ingest/importers/radeval.py), on real DuckDB files.

The store holds the first 20 pairs of the CLI demo (``build_demo(n_pairs=20, seed=7)``: the same pairs and
annotations as ``python -m core demo``'s first 20), the pairs docs/examples/radeval_ids.txt names.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from core.analysis.stats import correlate
from core.ingest.demo import build_demo
from core.ingest.importers import ImportValidationError, import_outputs
from core.ingest.importers.radeval import RADEVAL_METRICS, import_radeval, read_ids
from core.reads.frames import apply_orientations, correlation_frame, declared_orientations
from core.store.db import Store
from tests.conftest import copy_store

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "radeval_per_sample.json"
IDS = ROOT / "docs" / "examples" / "radeval_ids.txt"
TABLES = ("judge_runs", "judge_outputs", "metric_values")


@pytest.fixture(scope="module")
def base_store(tmp_path_factory) -> Store:
    store = Store(tmp_path_factory.mktemp("radeval") / "base.duckdb")
    build_demo(store, n_pairs=20, seed=7)
    return store


@pytest.fixture
def store(base_store: Store, tmp_path: Path) -> Store:
    return copy_store(base_store, tmp_path / "s.duckdb")


def example() -> dict:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def ids() -> list[str]:
    return IDS.read_text(encoding="utf-8").split()


def counts(store: Store) -> dict[str, int]:
    return {t: store.query_one(f"SELECT count(*) FROM {t}") for t in TABLES}


def write_json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def test_the_example_imports_every_metric_into_one_run_with_its_orientation(store):
    data, order = example(), ids()
    report = import_radeval(store, EXAMPLE, IDS, dataset="demo")
    assert (report.pairs, report.rows, report.added, report.skipped) == (20, 20 * len(data), 20 * len(data), 0)
    assert report.warnings == []
    assert report.metrics["radcliq_v1"] == "lower is better" and report.metrics["bleu"] == "higher is better"
    runs = store.query_df("SELECT run_id, judge_kind, judge_name, params, n_ok FROM judge_runs")
    assert len(runs) == 1 and runs.loc[0, "judge_kind"] == "imported" and runs.loc[0, "judge_name"] == "radeval"
    assert runs.loc[0, "n_ok"] == 20
    params = json.loads(runs.loc[0, "params"])
    assert params["mode"] == "radeval" and params["metrics"] == sorted(data) and params["assumed"] == []
    assert params["orientations"] == {m: RADEVAL_METRICS[m].higher_is_better for m in data}
    stored = store.query_df("SELECT p.ext_id, m.metric, m.value FROM metric_values m JOIN pairs p USING (pair_id)")
    assert len(stored) == 20 * len(data)
    got = stored.set_index(["metric", "ext_id"])["value"]
    for metric, values in data.items():  # every value at its id, in RadEval's order
        assert [got[(metric, i)] for i in order] == values


def test_reimport_adds_nothing_a_new_metric_is_added_a_changed_value_is_refused(store, tmp_path):
    import_radeval(store, EXAMPLE, IDS, dataset="demo")
    before = counts(store)
    again = import_radeval(store, EXAMPLE, IDS, dataset="demo")
    assert (again.added, again.skipped) == (0, before["metric_values"]) and counts(store) == before
    extra = write_json(tmp_path / "more.json", {"bleu": example()["bleu"], "my_score": [0.5] * 20})
    more = import_radeval(store, extra, IDS, dataset="demo")
    assert (more.added, more.skipped) == (20, 20)
    assert more.metrics["my_score"] == "assumed higher is better" and "my_score" in more.warnings[0]
    params = json.loads(store.query_one("SELECT params FROM judge_runs"))
    assert params["assumed"] == ["my_score"] and "my_score" in params["metrics"] and "radcliq_v1" in params["metrics"]
    after = counts(store)
    changed = example()
    changed["green"][3] = 0.123
    with pytest.raises(ImportValidationError) as err:
        import_radeval(store, write_json(tmp_path / "changed.json", changed), IDS, dataset="demo")
    assert err.value.problems[0].startswith(f"id '{ids()[3]}': metric 'green' is stored as ")
    assert "the file says 0.123" in err.value.problems[0]
    assert counts(store) == after  # nothing of the changed file was written


def _drop_one(d):
    d["bleu"] = d["bleu"][:-1]


def _set(metric, i, value):
    def change(d):
        d[metric][i] = value
    return change


BAD_FILES = {
    "length": (_drop_one, "metric 'bleu' has 19 values, the ids file 20 ids"),
    "null": (_set("green", 2, None), "metric 'green' value 3 (id 'demo-000002'): null is not a number"),
    "nan": (_set("crimson", 0, math.nan), "metric 'crimson' value 1 (id 'demo-000000'): NaN is not a number"),
    "inf": (_set("rouge1", 4, math.inf), "metric 'rouge1' value 5 (id 'demo-000004'): Infinity is not a number"),
    "text": (_set("bertscore", 19, "0.8"), "metric 'bertscore' value 20 (id 'demo-000019'): text '0.8' is not a"),
    "bool": (_set("ratescore", 1, True), "metric 'ratescore' value 2 (id 'demo-000001'): true/false is not a"),
    "nested per sample": (_set("radgraph_simple", 5, {"f1": 0.5}), "value 6 (id 'demo-000005'): object is not a"),
    "aggregate": (lambda d: d.update(bleu=0.36), "metric 'bleu' holds one number, not a list: RadEval's default"),
    "detailed": (lambda d: d.update(srrbert_label_scores={"No Finding": {"f1-score": 0.6}}),
                 "metric 'srrbert_label_scores' holds an object, not a list: RadEval's detailed breakdown"),
    "first releases": (lambda d: d.update(rouge={"rouge1": {"mean_score": 0.4, "sample_scores": [0.4] * 20}}),
                       "metric 'rouge' holds an object with sample_scores: the layout of RadEval's first releases"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_results_file_is_refused_by_name_and_stores_nothing(store, tmp_path, case):
    change, message = BAD_FILES[case]
    data = example()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, allow_nan=True), encoding="utf-8")
    before = counts(store)
    with pytest.raises(ImportValidationError) as err:
        import_radeval(store, path, IDS, dataset="demo")
    assert any(message in p for p in err.value.problems), err.value.problems
    assert counts(store) == before


def test_every_problem_is_named_at_once(store, tmp_path):
    data = example()
    data["green"][0] = None
    data["green"][7] = "n/a"
    data["bleu"] = data["bleu"][:5]
    with pytest.raises(ImportValidationError) as err:
        import_radeval(store, write_json(tmp_path / "two.json", data), IDS, dataset="demo")
    problems = err.value.problems
    assert "metric 'bleu' has 5 values, the ids file 20 ids: RadEval writes one value per report, in the order of " \
           "the ids" in problems
    assert "metric 'green' value 1 (id 'demo-000000'): null is not a number" in problems
    assert "metric 'green' value 8 (id 'demo-000007'): text 'n/a' is not a number" in problems
    assert counts(store) == {"judge_runs": 0, "judge_outputs": 0, "metric_values": 0}


@pytest.mark.parametrize(("text", "message"), [
    ("[0.1, 0.2]", "holds a list, not a JSON object"),
    ('{"bleu": [0.1], ', "is not valid JSON"),
    ("{}", "is an empty JSON object"),
    ('{"bleu": [0.1], "bleu": [0.2]}', "metric 'bleu' appears more than once"),
    ('{"bl\\u202eeu": [0.1]}', "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("", "is empty"),
])
def test_a_file_that_is_no_per_sample_object_is_refused(store, tmp_path, text, message):
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ImportValidationError) as err:
        import_radeval(store, path, IDS, dataset="demo")
    assert any(message in p for p in err.value.problems), err.value.problems
    assert counts(store)["judge_runs"] == 0


def test_bad_ids_are_refused_by_name(store, tmp_path):
    dup = tmp_path / "dup.txt"
    dup.write_text("\n".join(ids()[:19] + ["demo-000003"]) + "\n", encoding="utf-8")
    with pytest.raises(ImportValidationError, match="duplicate id 'demo-000003' on rows 4 and 20"):
        import_radeval(store, EXAMPLE, dup, dataset="demo")
    unknown = tmp_path / "unknown.txt"
    unknown.write_text("\n".join(ids()[:19] + ["nope-1"]), encoding="utf-8")
    with pytest.raises(ImportValidationError) as err:
        import_radeval(store, EXAMPLE, unknown, dataset="demo")
    assert "row 20: id 'nope-1' is not a pair of dataset 'demo'" in err.value.problems
    gap = tmp_path / "gap.txt"
    gap.write_text("\n".join(ids()[:10] + [""] + ids()[10:19]) + "\n\n", encoding="utf-8")
    with pytest.raises(ImportValidationError, match="ids line 11: empty id"):
        import_radeval(store, EXAMPLE, gap, dataset="demo")
    with pytest.raises(ImportValidationError, match="looks like a table: say which column holds the ids"):
        import_radeval(store, EXAMPLE, b"id\ndemo-000000\n", dataset="demo", ids_name="ids.csv")
    with pytest.raises(ImportValidationError, match="dataset 'nowhere' not found"):
        import_radeval(store, EXAMPLE, IDS, dataset="nowhere")
    assert counts(store) == {"judge_runs": 0, "judge_outputs": 0, "metric_values": 0}


def test_ids_from_a_table_column(store, tmp_path):
    table = tmp_path / "ids.csv"
    pd.DataFrame({"row": range(20), "study": ids()}).to_csv(table, index=False)
    assert read_ids(table, id_col="study") == (ids(), [])
    report = import_radeval(store, EXAMPLE, table, dataset="demo", judge="radeval-csv", id_col="study")
    assert report.added == 20 * len(example())
    with pytest.raises(ImportValidationError, match="column 'id' \\(ids\\) not found in the ids file; its columns "
                                                    "are: row, study"):
        import_radeval(store, EXAMPLE, table, dataset="demo", id_col="id")


def test_a_judge_name_holding_another_kind_of_import_is_refused(store, tmp_path):
    scores = tmp_path / "s.csv"
    pd.DataFrame({"id": ids(), "v": range(20)}).to_csv(scores, index=False)
    import_outputs(store, scores, dataset="demo", judge="radeval", id_col="id", score_col="v")
    before = counts(store)
    with pytest.raises(ImportValidationError, match="already holds imported outputs of another kind \\(score\\)"):
        import_radeval(store, EXAMPLE, IDS, dataset="demo")
    assert counts(store) == before


def test_a_green_import_into_a_radeval_judge_is_refused(store, tmp_path):
    """The other direction: text or scores under the name of a RadEval run would mix into its metrics."""
    import_radeval(store, EXAMPLE, IDS, dataset="demo")
    scores = tmp_path / "s.csv"
    pd.DataFrame({"id": ids(), "v": range(20)}).to_csv(scores, index=False)
    before = counts(store)
    with pytest.raises(ImportValidationError, match="judge 'radeval' already holds imported RadEval per-sample "
                                                    "results on dataset 'demo'"):
        import_outputs(store, scores, dataset="demo", judge="radeval", id_col="id", score_col="v")
    assert counts(store) == before


def test_each_metric_keeps_its_orientation_in_the_correlation_table(store, tmp_path):
    data = example() | {"my_score": example()["green"]}  # a name outside RadEval's table
    import_radeval(store, write_json(tmp_path / "r.json", data), IDS, dataset="demo")
    table = correlate(correlation_frame(store, "demo", "score"), n_boot=0, min_n=10, target_name="score")
    table = apply_orientations(table, declared_orientations(store, "demo"), "score").set_index("metric")
    assert set(table.index) == set(data) and set(table["judge"]) == {"radeval"}
    radcliq = table.loc["radcliq_v1"]  # raw RadCliQ falls as the experts' score rises: right for lower-is-better
    assert radcliq["tau"] < 0 and radcliq["expected_sign"] == -1 and radcliq["sign_ok"]
    assert radcliq["tau_oriented"] == -radcliq["tau"] and not radcliq["orientation_assumed"]
    for metric in data:
        row = table.loc[metric]
        up = RADEVAL_METRICS[metric].higher_is_better if metric in RADEVAL_METRICS else True
        assert row["expected_sign"] == (1 if up else -1)
        assert bool(row["orientation_assumed"]) == (metric not in RADEVAL_METRICS), metric
    assert table.loc["my_score", "tau"] == table.loc["green", "tau"]  # same values, only the flag differs


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_results_and_ids_saved_with_a_byte_order_mark_import_as_the_utf8_files_do(base_store, tmp_path, encoding):
    """Windows tools save JSON and text as UTF-16 or UTF-8 with a BOM; every importer reads them alike."""
    stored = {}
    for enc in ("utf-8", encoding):
        folder = tmp_path / enc
        folder.mkdir()
        results, id_file = folder / "per_sample.json", folder / "ids.txt"
        results.write_bytes(EXAMPLE.read_text(encoding="utf-8").encode(enc))
        id_file.write_bytes(IDS.read_text(encoding="utf-8").encode(enc))
        store = copy_store(base_store, folder / "s.duckdb")
        report = import_radeval(store, results, id_file, dataset="demo")
        assert report.added == 20 * len(example()), enc
        stored[enc] = [store.query_df(sql) for sql in (
            "SELECT run_id, judge_name, params, n_ok FROM judge_runs",
            "SELECT run_id, pair_id, parse_status FROM judge_outputs ORDER BY ALL",
            "SELECT * FROM metric_values ORDER BY ALL")]
    for utf8, other in zip(stored["utf-8"], stored[encoding], strict=True):
        pd.testing.assert_frame_equal(utf8, other)
