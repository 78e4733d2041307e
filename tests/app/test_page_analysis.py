"""The analysis pages through AppTest: Calibration, Error types, Summaries, Ensembles & simulator.

A module fixture copies the demo store and runs the rules and lexical judges
on it (offline, a few seconds); every number checked on a page is recomputed
here with the core function the page calls, fed as ``core/cli/analysis.py``
feeds it. Bootstrap-heavy pages are opened with ``n_boot=200`` in the URL to
keep the suite quick (the URL state is part of what is tested).
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from core.analysis.calibration import count_calibration, injected_calibration
from core.analysis.ensemble import ensemble_table, feature_sets_by_metric
from core.analysis.errortypes import accuracy_per_category, f1_per_category, mae_per_category
from core.analysis.scores import METRICS, formula, green, green_f1
from core.analysis.summary import green_summary
from core.reads.frames import (
    error_texts,
    expert_counts,
    feature_frame,
    injected_counts,
    judge_counts,
    judge_values,
    pair_facets,
    pair_groups,
    with_system,
)
from core.reads.queries import CATEGORY_NAMES, get_pair
from core.store.db import Store
from tests.apptest_helpers import assert_ok, injected_copy, judged_copy, open_page
from tests.apptest_helpers import table as table_with
from tests.apptest_helpers import tables as tables_with

N_BOOT = 200
PAGES = {
    "pages/calibration.py": "Calibration",
    "pages/errortypes.py": "Error types",
    "pages/summaries.py": "Summaries",
    "pages/ensembles.py": "Ensembles & simulator",
}


@pytest.fixture(scope="module")
def judged_store(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    return judged_copy(demo_store, tmp_path_factory, "analysis", "rules", "lexical")


def _open(app_test, store: Store, page: str, params: dict | None = None):
    return open_page(app_test, store, page, {"n_boot": str(N_BOOT), **(params or {})}, via_home=True)


def _selectable(at, prefix: str):
    """The one selectable table whose key starts with ``prefix`` (selectable tables keep their key)."""
    found = [d for d in at.dataframe if (d.key or "").startswith(prefix)]
    assert len(found) == 1, [d.key for d in at.dataframe]
    return found[0]


def _figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _array(value) -> list:
    """A trace's array as a list: plotly writes numeric arrays as base64 ``bdata``."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")]).tolist() if shape else flat.tolist()
    return list(value)


def _trace(figure: dict, name: str) -> dict:
    found = [t for t in figure["data"] if t.get("name") == name]
    assert len(found) == 1, [t.get("name") for t in figure["data"]]
    return {k: _array(v) if k in ("x", "y", "customdata") else v for k, v in found[0].items()}


def _infos(at) -> str:
    return "\n".join(i.value for i in at.info)


# -- every page ----------------------------------------------------------------------------------


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_renders_with_labelled_charts(app_test, judged_store: Store, page: str):
    at = _open(app_test, judged_store, page)
    assert at.title[0].value == PAGES[page]
    for figure in _figures(at):
        layout = figure["layout"]
        assert layout["xaxis"]["title"]["text"] and layout["yaxis"]["title"]["text"]
    if page != "pages/summaries.py":
        assert _figures(at), "no chart drawn"
    assert [b for b in at.get("download_button")], "no CSV download offered"


# -- calibration --------------------------------------------------------------------------------


def test_calibration_shows_the_core_means_cis_and_seed(app_test, judged_store: Store):
    at = _open(app_test, judged_store, "pages/calibration.py")
    # CIs resample whole groups (pairs sharing a reference), as the page does
    expected = count_calibration(judge_counts(judged_store, "demo"), expert_counts(judged_store, "demo"),
                                 significant=True, bins=range(0, 13), n_boot=N_BOOT, seed=0,
                                 groups=pair_groups(judged_store, "demo"))
    want = expected[(expected["judge"] == "rules") & (expected["x"] == 1)].iloc[0]
    assert want["n"] > 10  # the demo has enough one-error reports for the check to mean something

    table = table_with(at, "bias")
    assert table["x"].tolist() == list(range(0, 13))  # default 0-12: reports without errors count too
    got = table[(table["judge"] == "rules") & (table["x"] == 1)].iloc[0]
    assert got["y"] == pytest.approx(want["y"])
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((want["ci_low"], want["ci_high"]))
    assert got["n"] == want["n"]

    figure = _figures(at)[0]
    rules = _trace(figure, "rules")
    assert list(rules["x"])[1] == 1 and rules["y"][1] == pytest.approx(want["y"])
    assert [c[0] for c in rules["customdata"]][1] == want["n"]  # n per bin in the hover
    plotted = expected[(expected["judge"] == "rules") & (expected["n"] > 0)]["x"]
    assert plotted.max() < 12  # the demo's counts stop early ...
    assert _trace(figure, "identity (y = x)")["y"] == [0, plotted.max()]  # ... and so does the axis
    assert list(rules["x"]) == plotted.tolist()  # empty bins are not drawn
    # lexical is selected but has no error counts: the chart says so instead of leaving it out silently
    assert any(c.value.startswith("Not in this chart: lexical") for c in at.caption)
    assert any(f"{N_BOOT} resamples, seed 0" in c.value for c in at.caption)
    # no injected annotations on the demo: the page says how to build such a dataset
    assert "python -m core inject" in _infos(at)


def test_calibration_range_and_significance_live_in_the_url(app_test, judged_store: Store):
    at = _open(app_test, judged_store, "pages/calibration.py", {"range": "2-5", "errors": "both"})
    assert at.slider(key="cal_range").value == (2, 5)
    assert at.radio(key="cal_errors").value == "both"
    expected = count_calibration(judge_counts(judged_store, "demo"), expert_counts(judged_store, "demo"),
                                 significant=None, bins=range(2, 6), n_boot=N_BOOT, seed=0)
    table = table_with(at, "bias")
    assert table["x"].tolist() == [2, 3, 4, 5]
    assert table["y"].tolist() == pytest.approx(expected["y"].tolist(), nan_ok=True)
    outside = int(expected.groupby("judge")["n_outside"].first().max())
    assert outside > 0 and any(f"**{outside:,} of" in c.value and "outside 2-5" in c.value for c in at.caption)

    at.slider(key="cal_range").set_value((0, 12)).run()
    at.radio(key="cal_errors").set_value("sig").run()
    assert_ok(at)
    assert "range" not in at.query_params and "errors" not in at.query_params
    at.number_input(key="cal_seed").set_value(7).run()
    assert at.query_params["seed"] == "7"
    assert any("seed 7" in c.value for c in at.caption)


@pytest.fixture
def injected_store(demo_store: Store, tmp_path) -> Store:
    """A dataset shaped like `python -m core inject` output, built without a model.

    Demo pairs whose experts agree on 1-3 significant errors of type (a), or of
    type (b) and none of (a), become pairs with k injected errors of that type
    (annotator ``injected``, as core/ingest/inject.py writes them); the rules judge runs on it.
    """
    return injected_copy(demo_store, tmp_path / "injected.duckdb")


def test_calibration_shows_detected_vs_injected_per_error_type(app_test, injected_store: Store):
    at = _open(app_test, injected_store, "pages/calibration.py", {"dataset": "inj"})
    assert at.sidebar.selectbox(key="dataset").value == "inj"
    assert "python -m core inject" not in _infos(at)
    expected = injected_calibration(judge_counts(injected_store, "inj"), injected_counts(injected_store, "inj"),
                                    n_boot=N_BOOT, seed=0, groups=pair_groups(injected_store, "inj"))
    assert set(expected["category"]) == {"a", "b"}
    table = table_with(at, "mean detected")
    assert len(table) == len(expected)
    for cat in ("a", "b"):
        want = expected[(expected["category"] == cat) & (expected["x"] == 1)].iloc[0]
        got = table[(table["category"] == cat) & (table["k"] == 1)].iloc[0]
        assert got["mean detected"] == pytest.approx(want["y"])
        assert got["n reports"] == want["n"] > 0
    titles = [f["layout"]["title"]["text"] for f in _figures(at)]
    assert any(t.startswith("(a) False report of a finding") for t in titles)
    assert any(t.startswith("(b) Missing a finding") for t in titles)


# -- error types --------------------------------------------------------------------------------


def test_errortypes_f1_per_category_equals_core(app_test, judged_store: Store):
    at = _open(app_test, judged_store, "pages/errortypes.py")
    jc, ec = judge_counts(judged_store, "demo"), expert_counts(judged_store, "demo")
    expected = f1_per_category(jc, ec, significant=True).set_index(["judge", "category"])
    table = table_with(at, "support").set_index(["judge", "category"])
    assert set(table.index.get_level_values("judge")) == {"rules"}  # lexical reports no counts
    row, want = table.loc[("rules", "a")], expected.loc[("rules", "a")]
    assert row["f1"] == pytest.approx(want["f1"])
    assert (row["tp"], row["fp"], row["fn"], row["support"]) == pytest.approx(
        (want["tp"], want["fp"], want["fn"], want["support"]))
    bars = _trace(_figures(at)[0], "rules")
    assert bars["y"][0] == pytest.approx(want["f1"])
    assert bars["x"][0].startswith("(a)")
    assert any("lexical" in c.value for c in at.caption)  # judges without counts are named

    # GREEN Table 4 shapes: one row per judge, one column per category
    mae, acc, average = tables_with(at, "(a) false finding")  # in page order
    assert mae.loc[0, "judge"] == "rules" and mae.loc[0, "n reports"] == 120
    want_mae = mae_per_category(jc, ec, significant=True).set_index(["judge", "category"]).loc[("rules", "a")]
    assert mae.loc[0, "(a) false finding"] == f"{want_mae['mae']:.3f} ± {want_mae['sd']:.3f}"
    want_acc = accuracy_per_category(jc, ec, significant=True).set_index(["judge", "category"]).loc[("rules", "a")]
    assert acc.loc[0, "(a) false finding"] == f"{want_acc['accuracy']:.1%} ({want_acc['n_correct']})"
    assert average["counts of"].tolist() == ["rules", "experts (reports judged by rules)"]
    assert average.loc[0, "(a) false finding"] == f"{want_mae['mean_judge']:.3f}"

    at.radio(key="et_errors").set_value("both").run()
    assert_ok(at)
    both = f1_per_category(jc, ec, significant=None).set_index(["judge", "category"])
    table = table_with(at, "support").set_index(["judge", "category"])
    assert table.loc[("rules", "b"), "f1"] == pytest.approx(both.loc[("rules", "b"), "f1"])
    assert at.query_params["errors"] == "both"


# -- summaries ------------------------------------------------------------------------------------


def _expected_summary(store: Store, system: str | None = None):
    errors = error_texts(store, "demo")
    counts = with_system(store, "demo", judge_counts(store, "demo"))
    scores = with_system(store, "demo", judge_values(store, "demo", metrics=["green"]))
    return green_summary(errors, counts, scores, "rules", system=system, seed=0)


def test_summaries_list_representatives_and_open_a_cluster(app_test, judged_store: Store):
    at = _open(app_test, judged_store, "pages/summaries.py")
    summary = _expected_summary(judged_store)
    assert at.selectbox(key="sum_judge").options == ["rules"]  # lexical writes no GREEN answers
    categories = table_with(at, "representatives")
    assert list(categories["representatives"].iloc[0]) == summary.representatives["a"]
    assert categories["mean_count"].tolist() == pytest.approx(summary.categories["mean_count"].tolist())
    assert at.metric[0].value == f"{summary.green_mean:.3f} ± {summary.green_std:.3f}"
    assert any("seed 0" in c.value for c in at.caption)
    assert not [d for d in at.dataframe if (d.key or "").startswith("sum_members_")]  # nothing selected yet
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)  # cluster sizes per category, labelled
    assert chart["layout"]["xaxis"]["title"]["text"] == "Error category"
    assert chart["layout"]["yaxis"]["title"]["text"] == "Explanations (count)"
    shown = {(x, trace["name"]): y for trace in chart["data"] for x, y in zip(trace["x"], trace["y"], strict=True)}
    sizes = summary.clusters.groupby(["category", "cluster"])["size"].first()
    assert shown == {(f"({c}) {CATEGORY_NAMES[c]}", f"cluster {k + 1}"): int(n) for (c, k), n in sizes.items()}

    # Select the second representative: the largest cluster's members and that pair open.
    reps = _selectable(at, "sum_reps_")
    assert reps.value["text"].tolist() == summary.representatives["a"]
    at.session_state[reps.key] = {"selection": {"rows": [1], "columns": [], "cells": []}}
    at.run()
    assert_ok(at)
    largest = summary.clusters[(summary.clusters["category"] == "a") & (summary.clusters["cluster"] == 0)]
    members = _selectable(at, "sum_members_").value
    assert members["text"].tolist() == largest.sort_values("rank")["text"].tolist()
    facets = pair_facets(judged_store, "demo").set_index("pair_id")
    assert members["ext_id"].tolist() == facets.loc[largest.sort_values("rank")["pair_id"], "ext_id"].tolist()
    second = get_pair(judged_store, largest.sort_values("rank")["pair_id"].iloc[1])
    texts = [t.value for t in at.text]
    assert second["reference"] in texts and second["candidate"] in texts
    assert at.query_params["cluster"] == "0"

    # Select another cluster in the clusters table.
    clusters = _selectable(at, "sum_clusters_")
    at.session_state[clusters.key] = {"selection": {"rows": [2], "columns": [], "cells": []}}
    at.run()
    assert_ok(at)
    third = summary.clusters[(summary.clusters["category"] == "a") & (summary.clusters["cluster"] == 2)]
    members = _selectable(at, "sum_members_").value
    assert sorted(members["text"]) == sorted(third["text"])
    assert at.query_params["cluster"] == "2"


def test_summaries_compare_two_systems(app_test, judged_store: Store):
    systems = sorted(pair_facets(judged_store, "demo")["system"].unique())
    at = _open(app_test, judged_store, "pages/summaries.py",
               {"mode": "compare", "a": systems[0], "b": systems[1]})
    assert at.radio(key="sum_mode").value == "compare"
    compared = dict(zip((0, 1), tables_with(at, "representatives"), strict=True))
    for key, system in ((0, systems[0]), (1, systems[1])):
        expected = _expected_summary(judged_store, system)
        shown = compared[key]
        assert shown["mean_count"].tolist() == pytest.approx(expected.categories["mean_count"].tolist())
    labels = [m.value for m in at.metric]
    first = _expected_summary(judged_store, systems[0])
    assert f"{first.green_mean:.3f} ± {first.green_std:.3f}" in labels


# -- ensembles & simulator -------------------------------------------------------------------------


def test_ensembles_show_held_out_tau_and_split_sizes(app_test, judged_store: Store):
    at = _open(app_test, judged_store, "pages/ensembles.py")
    features = feature_frame(judged_store, "demo", "score")
    columns = [c for c in features.columns if ":" in c]
    sets = {k: v for k, v in feature_sets_by_metric(columns, all_name=None).items() if k in METRICS}
    sets["All"] = columns
    result = ensemble_table(features, "target", sets, train_size=500, seed=0, n_boot=N_BOOT)
    want = result.table.set_index(["ensemble", "feature_set"]).loc[("linear_regression", "All")]

    table = table_with(at, "status")
    got = table[(table["ensemble"] == "Linear regression") & (table["feature_set"] == "All")].iloc[0]
    assert got["tau"] == pytest.approx(want["tau"])
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((want["ci_low"], want["ci_high"]))
    assert (got["n_train"], got["n_test"]) == (want["n_train"], want["n_test"])
    table5 = table_with(at, "All").set_index("ensemble")
    assert table5.loc["Linear regression", "All"].startswith(f"{want['tau']:.3f} [")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Training pairs (n_train)"] == str(len(result.split.train_ids))
    assert metrics["Held-out test pairs (n_test)"] == str(len(result.split.test_ids))
    assert not set(result.split.train_ids) & set(result.split.test_ids)
    assert "Nothing is evaluated on its training pairs" in _infos(at)


def test_simulator_sliders_follow_core_scores(app_test, judged_store: Store):
    at = _open(app_test, judged_store, "pages/ensembles.py")
    at.slider(key="ens_sim_tp").set_value(2)
    at.slider(key="ens_sim_s").set_value(1)
    at.run()
    assert_ok(at)
    values = table_with(at, "beta_s").set_index("metric")["value"]
    assert values.iloc[0] == pytest.approx(green(2, 1))  # GREEN 2 / 3
    assert f"{values.iloc[0]:.3f}" == "0.667"
    assert values.iloc[1] == pytest.approx(green_f1(2, 1))
    assert values.iloc[2] == pytest.approx(formula(2, 1, 0))
    assert "0.667" in [m.value for m in at.metric]
    assert (at.query_params["tp"], at.query_params["s"]) == ("2", "1")

    sweep = [f for f in _figures(at) if f["layout"]["xaxis"]["title"]["text"].startswith("S ")][0]
    green_line = _trace(sweep, [t["name"] for t in sweep["data"] if t["name"].startswith("GREEN (")][0])
    assert green_line["y"][green_line["x"].index(1)] == pytest.approx(green(2, 1))
    assert green_line["y"][green_line["x"].index(2)] == pytest.approx(0.5)  # TP = S gives 0.5

    # a weight: the unified score moves, the named metrics do not
    at.slider(key="ens_sim_beta_s").set_value(2.0).run()
    values = table_with(at, "beta_s").set_index("metric")["value"]
    assert values.iloc[3] == pytest.approx(2 / (2 + 2 * 1))
    assert values.iloc[0] == pytest.approx(green(2, 1))
    assert at.query_params["beta_s"] == "2"


# -- empty states -------------------------------------------------------------------------------


@pytest.mark.parametrize("page", list(PAGES))
def test_pages_without_runs_say_what_to_do(app_test, demo_store: Store, page: str):
    at = _open(app_test, demo_store, page)
    assert "No judge runs on this dataset yet" in _infos(at)
    assert "python -m core judge --dataset demo --judge rules" in _infos(at)
    if page == "pages/ensembles.py":  # the simulator needs no data
        assert at.slider(key="ens_sim_tp").value == 5


@pytest.mark.parametrize("page", list(PAGES))
def test_pages_on_an_empty_store(app_test, tmp_store: Store, page: str):
    at = _open(app_test, tmp_store, page)
    assert at.title[0].value == PAGES[page]
    assert any("Import a dataset" in c.value for c in at.caption)
