"""The Correlations page through AppTest, on the demo store with the rules and lexical judges.

Every number the page shows is checked against an independent call of the
analysis layer: ``core.analysis.stats.correlate`` on ``core.reads.frames.correlation_frame``
with the same target, filters and toggles (the page filters a cached frame
in memory, so this is what could drift).
"""

from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from core.analysis.naming import column_name
from core.analysis.scores import METRICS
from core.analysis.stats import breakdown, correlate, inter_annotator, paired_difference
from core.judges import run_judge
from core.reads.frames import correlation_frame
from core.reads.queries import facet_values
from core.reads.targets import annotator_target_values, dataset_targets
from core.store.db import Store
from core.taxonomy import MISSING
from tests.apptest_helpers import assert_ok, judged_copy, open_page
from tests.conftest import copy_store
from ui.import_wizard import ImportRequest, run_import

PAGE = "pages/correlations.py"


@pytest.fixture(scope="module")
def judged_store(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The session demo store plus the two offline judges (read-only for the tests)."""
    return judged_copy(demo_store, tmp_path_factory, "corr", "rules", "lexical")


def _open(app_test, store: Store, query_params: dict | None = None):
    return open_page(app_test, store, PAGE, query_params)


def _expected(store: Store, target: str = "score", n_boot: int = 0, seed: int = 0, **kwargs) -> pd.DataFrame:
    frame = correlation_frame(store, "demo", target, **kwargs)
    frame = frame[frame["metric"].isin(list(METRICS))]
    return correlate(frame, n_boot=n_boot, seed=seed, min_n=10, target_name=target)


def _shown(at) -> pd.DataFrame:
    """The judge x metric table as displayed (cell text)."""
    assert len(at.table) == 1
    return at.table[0].value


def _value(cell: str) -> str:
    """A cell's value as the papers print it (|tau|, †, ⚠), before its CI and n."""
    return cell.split(" · ")[0]


def _number(cell: str) -> float:
    return float(_value(cell).replace("†", "").replace("⚠", "").strip())


def _detail(at) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if "tau CI low" in d.value.columns]
    assert len(found) == 1
    return found[0]


def _assert_table_matches(at, expected: pd.DataFrame, value: str = "abs_tau") -> None:
    shown = _shown(at)
    checked = 0
    for row in expected.itertuples(index=False):
        label = column_name(row.metric, expected.loc[expected["metric"] == row.metric, "judge"])
        cell = shown.loc[row.judge, label]
        assert f"{_number(cell):.3f}" == f"{getattr(row, value):.3f}", (row.judge, row.metric, cell)
        assert _value(cell).endswith("⚠") == (not row.sign_ok)
        assert cell.endswith(f"n={row.n:,}")  # every cell says how many pairs it rests on
        assert ("†" in cell) == (not _p_of(row, value) < 0.01)
        checked += 1
    assert checked == len(expected) > 0


def _p_of(row, value: str) -> float:
    return {"abs_tau": row.p, "abs_rho": row.rho_p, "abs_r": row.r_p}[value]


def _array(value) -> np.ndarray:
    """A plotly array from the chart's JSON: a list, or a base64 typed array (``bdata``)."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return out.reshape([int(d) for d in str(value["shape"]).split(",")]) if "shape" in value else out
    return np.asarray(value)


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _chart(at, kind: str) -> dict:
    found = [c for c in _charts(at) if c["data"] and c["data"][0]["type"] == kind]
    assert len(found) == 1, [c["data"][0]["type"] for c in _charts(at)]
    return found[0]


# -- the table ------------------------------------------------------------------------------------


def test_table_shows_rules_and_lexical_with_tau_from_core(app_test, judged_store: Store):
    at = _open(app_test, judged_store)
    assert at.title[0].value == "Correlations"
    shown = _shown(at)
    assert set(shown.index) == {"rules", "lexical"}
    # the rules judge's count formulas say whose counts they are (not "GREEN", as if the GREEN model had run)
    assert {"GREEN formula (rules counts)", "Significant errors (rules counts)", "BLEU-4", "ROUGE-L"} <= \
        set(shown.columns)
    assert not {"GREEN", "GREEN-EC (sig.)"} & set(shown.columns)
    expected = _expected(judged_store)
    _assert_table_matches(at, expected)
    # a judge without a metric shows a dash, as in the papers
    assert shown.loc["lexical", "GREEN formula (rules counts)"] == MISSING

    # the detail table: n and the bootstrap CIs (1,000 resamples, seed 0, groups) from core
    detail = _detail(at).set_index(["judge", "metric"])
    with_ci = _expected(judged_store, n_boot=1000, seed=0)
    for row in with_ci.itertuples(index=False):
        got = detail.loc[(row.judge, row.metric)]
        assert got["n"] == row.n == 120
        assert math.isclose(got["tau CI low"], row.ci_low, abs_tol=1e-12)
        assert math.isclose(got["tau CI high"], row.ci_high, abs_tol=1e-12)
        assert math.isclose(got["rho"], row.rho, abs_tol=1e-12)
        assert got["resampling"] == "groups"
    statement = " ".join(c.value for c in at.caption)
    assert "**1,000** bootstrap resamples, seed **0**" in statement
    assert "resampling reference groups" in statement
    assert at.number_input(key="corr_n_boot").value == 1000
    assert at.number_input(key="corr_seed").value == 0
    # the ceiling: experts' agreement with each other, on the pairs in view, as core computes it
    scored = set(correlation_frame(judged_store, "demo", "score")["pair_id"])
    values = annotator_target_values(judged_store, "demo", "score")
    iaa = inter_annotator(values[values["pair_id"].isin(scored)], "interval")
    ceiling = [i.value for i in at.info if i.value.startswith("**Ceiling:**")]
    assert len(ceiling) == 1
    from core.analysis.ceiling import leave_one_out, mean_tau

    loo = mean_tau(leave_one_out(values[values["pair_id"].isin(scored)]))
    assert f"one expert agrees with the other expert at τ = **{loo:.3f}**" in ceiling[0]
    assert f"Two single experts agree at τ = {iaa.mean_tau:.3f}" in ceiling[0]
    assert f"α = {iaa.alpha:.3f} (interval level)" in ceiling[0]
    assert f"on {iaa.n_units:,} pairs rated twice or more" in ceiling[0]
    assert len(at.get("download_button")) >= 5


def test_changing_the_target_changes_the_values(app_test, judged_store: Store):
    at = _open(app_test, judged_store)
    before = _shown(at).copy()
    at.radio(key="corr_target").set_value("sig_errors").run()
    assert_ok(at)
    after = _shown(at)
    assert not before.equals(after)
    _assert_table_matches(at, _expected(judged_store, "sig_errors"))
    assert at.query_params["target"] == "sig_errors"


def test_spearman_toggle_shows_rho(app_test, judged_store: Store):
    at = _open(app_test, judged_store)
    at.segmented_control(key="corr_stat").set_value("spearman").run()
    assert_ok(at)
    _assert_table_matches(at, _expected(judged_store), value="abs_rho")
    assert any("|ρ| (Spearman ρ)" in c.value for c in at.caption)
    assert at.query_params["stat"] == "spearman"
    # the line above the scatter reports the chosen statistic, as the table does
    line = next(m.value for m in at.markdown if " against the " in m.value and "expected sign" in m.value)
    judge, metric = at.selectbox(key="corr_judge").value, at.selectbox(key="corr_metric").value
    row = _expected(judged_store).set_index(["judge", "metric"]).loc[(judge, metric)]
    assert f"ρ = {row['rho']:.3f}" in line and "τ =" not in line


def test_pairs_in_view_say_how_many_each_judge_covers(app_test, demo_store: Store, tmp_path):
    store = copy_store(demo_store, tmp_path / "partial.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    run_judge(store, dataset="demo", judge="lexical", limit=40)  # one judge scored a third of the pairs
    at = _open(app_test, store)
    n_pairs = store.query_one("SELECT count(*) FROM pairs WHERE dataset = 'demo'")
    caption = next(c.value for c in at.caption if "pairs** in view" in c.value)
    assert f"**{n_pairs:,} pairs** in view" in caption
    assert f"each judge has values for 40 to {n_pairs:,} of them" in caption


def test_a_dataset_without_modality_says_why_there_is_no_breakdown(app_test, demo_store: Store, tmp_path):
    store = copy_store(demo_store, tmp_path / "nomod.duckdb")
    store.execute("UPDATE pairs SET modality = NULL WHERE dataset = 'demo'")
    run_judge(store, dataset="demo", judge="rules")
    at = _open(app_test, store)
    assert at.selectbox(key="corr_facet").value == "modality"
    assert any("This dataset records no modality for its pairs" in c.value for c in at.caption)
    assert not [c for c in at.get("plotly_chart") if "by modality" in c.proto.spec]


def test_identical_pairs_toggle_reduces_n(app_test, judged_store: Store):
    at = _open(app_test, judged_store)
    n_before = _detail(at)["n"].tolist()
    at.toggle(key="corr_identical").set_value(True).run()
    assert_ok(at)
    n_after = _detail(at)["n"].tolist()
    expected = _expected(judged_store, drop_identical=True)
    assert n_after == expected["n"].tolist()
    assert all(a < b for a, b in zip(n_after, n_before, strict=True))
    removed = n_before[0] - n_after[0]
    assert any(f"{removed:,} identical pair(s) removed" in c.value for c in at.caption)
    assert at.query_params["identical"] == "removed"
    _assert_table_matches(at, expected)


def test_a_filter_narrows_the_pairs(app_test, judged_store: Store):
    modality = "CT"
    assert modality in facet_values(judged_store, "demo")["modality"]
    at = _open(app_test, judged_store)
    at.multiselect(key="corr_modality").set_value([modality]).run()
    assert_ok(at)
    expected = _expected(judged_store, filters={"modality": [modality]})
    assert _detail(at)["n"].tolist() == expected["n"].tolist()
    _assert_table_matches(at, expected)
    assert at.query_params["modality"] == modality


def test_url_parameters_reproduce_the_view(app_test, judged_store: Store):
    modality = "US"
    params = {"dataset": "demo", "target": "total_errors", "modality": modality, "identical": "removed",
              "stat": "pearson", "n_boot": "200", "seed": "5", "judge": "lexical", "metric": "rouge_l",
              "facet": "anatomy"}
    at = _open(app_test, judged_store, params)
    assert at.radio(key="corr_target").value == "total_errors"
    assert at.multiselect(key="corr_modality").value == [modality]
    assert at.toggle(key="corr_identical").value is True
    assert at.segmented_control(key="corr_stat").value == "pearson"
    assert (at.number_input(key="corr_n_boot").value, at.number_input(key="corr_seed").value) == (200, 5)
    assert (at.selectbox(key="corr_judge").value, at.selectbox(key="corr_metric").value) == ("lexical", "rouge_l")
    assert at.selectbox(key="corr_facet").value == "anatomy"
    expected = _expected(judged_store, "total_errors", n_boot=200, seed=5, drop_identical=True,
                         filters={"modality": [modality]})
    _assert_table_matches(at, expected, value="abs_r")
    detail = _detail(at)
    assert np.allclose(detail["r CI low"], expected["r_ci_low"], atol=1e-12)

    # the URL the page writes opens the same view in a new session
    changed = _open(app_test, judged_store)
    changed.radio(key="corr_target").set_value("sig_errors").run()
    changed.multiselect(key="corr_anatomy").set_value([facet_values(judged_store, "demo")["anatomy"][0]]).run()
    changed.selectbox(key="corr_judge").set_value("rules").run()
    changed.selectbox(key="corr_metric").set_value("green_f1").run()
    assert_ok(changed)
    url = dict(changed.query_params)  # what the address bar holds
    assert url["target"] == "sig_errors" and url["judge"] == "rules" and url["metric"] == "green_f1"
    again = _open(app_test, judged_store, url)
    assert _shown(again).equals(_shown(changed))
    assert _detail(again).equals(_detail(changed))
    assert again.selectbox(key="corr_metric").value == "green_f1"


def test_large_bootstrap_waits_for_a_click(app_test, judged_store: Store):
    """Above the page's budget (here 7 series x 120 pairs x 20,000 resamples) CIs are computed on request."""
    at = _open(app_test, judged_store, {"n_boot": "20000"})
    assert any("waits for a click" in i.value for i in at.info)
    assert _detail(at)["tau CI low"].isna().all()
    assert "groups" not in _detail(at).columns  # nothing resampled yet
    _assert_table_matches(at, _expected(judged_store))  # the table never waits
    at.button(key="corr_boot_go_table").click().run()
    assert_ok(at)
    detail = _detail(at)
    expected = _expected(judged_store, n_boot=20000, seed=0)
    assert np.allclose(detail["tau CI high"], expected["ci_high"], atol=1e-12)
    assert (detail["groups"] == expected["n_clusters"]).all()
    assert at.query_params["ci"] == "always"
    assert not any("waits for a click" in i.value for i in at.info)


def test_no_resamples_means_no_intervals(app_test, judged_store: Store):
    at = _open(app_test, judged_store, {"n_boot": "0"})
    assert any(c.value.startswith("No bootstrap (resamples = 0)") for c in at.caption)
    assert _detail(at)["tau CI low"].isna().all()
    assert any("set the resamples above 0" in c.value for c in at.caption)


# -- one judge metric -------------------------------------------------------------------------------


def test_selecting_a_judge_metric_shows_scatter_pairs_heatmap_and_paired_test(app_test, judged_store: Store):
    at = _open(app_test, judged_store)
    at.selectbox(key="corr_judge").set_value("lexical").run()
    at.selectbox(key="corr_metric").set_value("bleu4").run()
    assert_ok(at)
    assert at.query_params["judge"] == "lexical" and at.query_params["metric"] == "bleu4"

    frame = correlation_frame(judged_store, "demo", "score")
    series = frame[(frame["judge"] == "lexical") & (frame["metric"] == "bleu4")].sort_values("ext_id")
    scatter = _chart(at, "scattergl")
    points = [p for trace in scatter["data"] for p in zip(_array(trace["x"]), _array(trace["y"]), strict=True)]
    assert len(points) == len(series) == 120
    assert "lexical" in scatter["layout"]["title"]["text"] and "BLEU-4" in scatter["layout"]["title"]["text"]
    assert "expert score" in scatter["layout"]["xaxis"]["title"]["text"]
    assert "BLEU-4" in scatter["layout"]["yaxis"]["title"]["text"]
    # jittered around the exact values, by a small seeded amount
    xs = np.sort([p[0] for p in points])
    assert not np.allclose(xs, np.sort(series["target"].to_numpy()))
    assert np.max(np.abs(xs - np.sort(series["target"].to_numpy()))) < 0.1

    pairs = [d.value for d in at.dataframe if "bleu4" in d.value.columns]
    assert len(pairs) == 1
    assert pairs[0]["id"].tolist() == series["ext_id"].tolist()
    assert np.allclose(pairs[0]["bleu4"], series["value"])

    # tau by modality: one row per judge metric (the selected one in bold), n in every cell
    heat = _chart(at, "heatmap")["data"][0]
    assert len(heat["y"]) == 9 and "<b>lexical · BLEU-4</b>" in heat["y"]  # rules 6 (rules_crimson too), lexical 3
    for row in heat["text"]:
        assert sum(int(t.split("n=")[1]) for t in row if "n=" in t) == 120  # each pair in one modality
    cells = breakdown(frame[frame["metric"].isin(list(METRICS))], "modality", n_boot=0, min_n=10)
    cell = cells[(cells["judge"] == "lexical") & (cells["metric"] == "bleu4") & (cells["modality"] == "CT")].iloc[0]
    z = _array(heat["z"]).reshape(len(heat["y"]), len(heat["x"]))
    got = z[heat["y"].index("<b>lexical · BLEU-4</b>"), heat["x"].index("CT")]
    assert math.isclose(got, cell["tau"] * cell["expected_sign"], abs_tol=1e-12)

    # the paired test against a chosen second judge metric, with CI and p from core
    at.selectbox(key="corr_vs").set_value("rules\x1fgreen").run()
    assert_ok(at)
    expected = paired_difference(frame, "lexical", "rules", "bleu4", "green", n_boot=1000, seed=0,
                                 target_name="score", min_n=10).iloc[0]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["A − B"] == f"{expected['diff']:+.3f}"
    assert metrics["p (two-sided)"] == f"{expected['p_boot']:.3g}"
    text = " ".join(m.value for m in at.markdown)
    assert f"95% CI {expected['ci_low']:+.3f} to {expected['ci_high']:+.3f}" in text
    assert at.query_params["vs_judge"] == "rules" and at.query_params["vs_metric"] == "green"

    # same seed, same jitter: the scatter is reproducible
    at.run()
    assert np.array_equal(_array(_chart(at, "scattergl")["data"][0]["x"]), _array(scatter["data"][0]["x"]))


def test_on_a_large_dataset_the_detail_waits_for_a_choice(app_test, judged_store: Store, monkeypatch):
    import ui.shared

    monkeypatch.setattr(ui.shared, "DETAIL_PAIRS", 100)  # the demo's 400 pairs count as large
    at = _open(app_test, judged_store)
    _assert_table_matches(at, _expected(judged_store))  # the table never waits
    assert at.selectbox(key="corr_judge").value is None
    assert any("waits for a choice" in i.value for i in at.info)
    assert not at.get("plotly_chart") and "judge" not in at.query_params
    at.selectbox(key="corr_judge").set_value("lexical").run()
    assert_ok(at)
    assert len(at.get("plotly_chart")) == 2  # scatter and heatmap
    assert at.query_params["judge"] == "lexical"
    assert not any("waits for a choice" in i.value for i in at.info)
    # a shared link with the choice opens on it
    again = _open(app_test, judged_store, {"judge": "lexical", "metric": "bleu4"})
    assert again.selectbox(key="corr_metric").value == "bleu4"
    assert len(again.get("plotly_chart")) == 2


def test_heatmap_facet_chooser(app_test, judged_store: Store):
    at = _open(app_test, judged_store)
    at.selectbox(key="corr_facet").set_value("anatomy").run()
    assert_ok(at)
    heat = _chart(at, "heatmap")
    anatomies = facet_values(judged_store, "demo")["anatomy"]
    assert heat["data"][0]["x"] == anatomies
    assert heat["layout"]["xaxis"]["title"]["text"] == "anatomy"
    assert at.query_params["facet"] == "anatomy"


def test_wrong_sign_best_and_second_are_marked(app_test, judged_store: Store, tmp_path):
    """A judge whose score runs against the experts: ⚠, and (|tau| = 1) bold best above rules' underlined GREEN."""
    store = copy_store(judged_store, tmp_path / "contrarian.duckdb")
    targets = dataset_targets(store, "demo")
    score = targets[targets["target"] == "score"]
    pairs = store.query_df("SELECT pair_id, ext_id FROM pairs WHERE dataset = 'demo'")
    rows = pairs.merge(score, on="pair_id")
    scores = pd.DataFrame({"id": rows["ext_id"], "value": (1 - rows["value"]).round(6).astype(str)})
    request = ImportRequest(what="outputs", dataset="demo", mapping={"id": "id", "score": "value"},
                            options={"mode": "score", "judge": "contrarian", "metric": "green"})
    run_import(store, request, scores)
    at = _open(app_test, store)
    shown = _shown(at)
    # a column shared by a model-like judge and the rules judge: the formula's name, no judge's
    assert _value(shown.loc["contrarian", "GREEN formula"]) == "1.000 ⚠"
    assert _detail(at).set_index(["judge", "metric"]).loc[("contrarian", "green"), "sign"] == "wrong ⚠"
    # bold best (contrarian, |tau| = 1) and underlined second best (rules) in the GREEN column only
    css = at.table[0].proto.arrow_data.styler.styles
    col = list(shown.columns).index("GREEN formula")
    best, second = list(shown.index).index("contrarian"), list(shown.index).index("rules")
    bold = [sel.strip() for block in re.findall(r"([^{}]+)\{ font-weight: 700 \}", css) for sel in block.split(",")]
    assert any(sel.endswith(f"_row{best}_col{col}") for sel in bold)
    assert not any(sel.endswith(f"_row{second}_col{col}") for sel in bold)
    assert f"td.row{second}.col{col} p {{ text-decoration: underline }}" in css
    assert css.count("text-decoration: underline") == 1


# -- empty states ----------------------------------------------------------------------------------


def test_dataset_without_runs_says_how_to_run_a_judge(app_test, demo_store: Store):
    at = _open(app_test, demo_store)
    infos = [i.value for i in at.info]
    assert any("No judge runs on demo yet" in i and "python -m core judge --dataset demo --judge rules" in i
               for i in infos)
    assert not at.table
    assert not at.get("plotly_chart")


def test_dataset_without_annotations_says_how_to_import_them(app_test, tmp_store: Store):
    pairs = pd.DataFrame({"id": [f"r{i}" for i in range(12)], "reference": ["No effusion."] * 12,
                          "candidate": [f"Small effusion {i}." for i in range(12)]})
    run_import(tmp_store, ImportRequest(what="pairs", dataset="bare",
                                        mapping={"id": "id", "reference": "reference", "candidate": "candidate"}),
               pairs)
    run_judge(tmp_store, dataset="bare", judge="lexical")
    at = _open(app_test, tmp_store)
    infos = [i.value for i in at.info]
    assert any("No expert annotations on bare yet" in i and "import-annotations" in i for i in infos)
    assert not any("No judge runs" in i for i in infos)
    assert not at.table
