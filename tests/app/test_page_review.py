"""The Edit review page through AppTest, on a real store holding ``demo`` and ``demo-review``.

Every number checked on the page is recomputed with the core functions the
page calls (as ``review-eval`` does).
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from core.judges import run_judge
from core.review.data import evaluation_frame
from core.review.demo import build_review_demo
from core.review.metrics import accuracy_table, confusion, eval_subset
from core.store.db import Store
from tests.apptest_helpers import open_page
from tests.conftest import copy_store

PAGE = "pages/review.py"


@pytest.fixture(scope="module")
def review_store(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = copy_store(demo_store, tmp_path_factory.mktemp("review") / "review.duckdb")
    build_review_demo(store, n_cases=16, seed=2)
    return store


def _open(app_test, store: Store, params: dict | None = None):
    at = open_page(app_test, store, PAGE, params, via_home=True)
    assert at.title[0].value == "Edit review"
    return at


def _figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _z(trace: dict) -> list:
    z = trace["z"]
    if isinstance(z, dict) and "bdata" in z:
        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        return flat.reshape([int(n) for n in str(z["shape"]).split(",")]).tolist()
    return z


def _infos(at) -> str:
    return "\n".join(i.value for i in at.info)


def test_a_non_review_dataset_gets_an_empty_state_that_names_the_review_datasets(app_test, review_store):
    at = _open(app_test, review_store, {"dataset": "demo"})
    text = _infos(at)
    assert "not an edit-review dataset" in text and "demo\\-review" in text
    assert not at.dataframe and not _figures(at)


def test_before_any_run_the_page_offers_the_offline_baseline_and_it_fills_the_table(app_test, tmp_path,
                                                                                 demo_store):
    store = copy_store(demo_store, tmp_path / "fresh.duckdb")
    build_review_demo(store, n_cases=6, seed=4)
    at = _open(app_test, store, {"dataset": "demo-review"})
    assert "No judge has reviewed these edits yet" in _infos(at)
    assert not at.dataframe
    at.button(key="rv_run_rules").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Mixed Comp" in d.value.columns for d in at.dataframe)
    runs = store.query_df("SELECT judge_name, status FROM judge_runs WHERE dataset = 'demo-review'")
    assert runs.to_dict("records") == [{"judge_name": "rules", "status": "done"}]


@pytest.fixture(scope="module")
def judged(review_store: Store) -> Store:
    run_judge(review_store, dataset="demo-review", judge="rules")
    return review_store


def test_the_table_has_radar_table_2_shape_and_the_core_numbers(app_test, judged):
    at = _open(app_test, judged, {"dataset": "demo-review"})
    table = next(d.value for d in at.dataframe if "Mixed Comp" in d.value.columns)
    assert list(table.columns) == ["Model", "Setting", "Mixed Agr", "Mixed Sev", "Mixed Typ", "Mixed Comp",
                                   "Natural Agr", "Natural Sev", "Natural Typ", "Natural Comp", "n Mixed",
                                   "n Natural", "Time (s)"]
    frame, _, _ = evaluation_frame(judged, "demo-review")
    acc = accuracy_table(frame).set_index("eval_set")
    row = table.iloc[0]
    assert row["Model"] == "rules"
    for eval_set in ("Mixed", "Natural"):
        assert row[f"n {eval_set}"] == acc.loc[eval_set, "n"]
        for label, short in (("agreement", "Agr"), ("severity", "Sev"), ("edit_type", "Typ"),
                             ("composite", "Comp")):
            assert row[f"{eval_set} {short}"] == pytest.approx(acc.loc[eval_set, label])
    assert acc.loc["Mixed", "n"] > acc.loc["Natural", "n"] > 0  # the demo has synthetic edits
    assert row["Time (s)"] >= 0
    assert [b for b in at.get("download_button")], "no CSV download offered"


def test_confusion_matrices_are_labelled_and_follow_the_evaluation_set_in_the_url(app_test, judged):
    at = _open(app_test, judged, {"dataset": "demo-review", "evalset": "Natural"})
    figures = _figures(at)
    assert len(figures) == 3
    for fig in figures:
        assert fig["layout"]["xaxis"]["title"]["text"] == "Predicted label (judge)"
        assert fig["layout"]["yaxis"]["title"]["text"] == "Gold label (expert)"
    frame, _, _ = evaluation_frame(judged, "demo-review")
    natural = eval_subset(frame, "Natural")
    expected = confusion(natural, "agreement")
    assert _z(figures[0]["data"][0]) == expected.to_numpy().tolist()
    assert figures[0]["data"][0]["x"] == list(expected.columns)
    assert at.radio(key="rv_set").value == "Natural"
    at.radio(key="rv_set").set_value("Mixed").run()
    mixed = confusion(frame, "agreement")
    assert _z(_figures(at)[0]["data"][0]) == mixed.to_numpy().tolist()
    assert mixed.to_numpy().sum() > expected.to_numpy().sum()
