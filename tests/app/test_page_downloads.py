"""Every chart a page draws has SVG, PDF and CSV downloads beside it, made by core/paper (the ``figures``
command's code), and the Correlations page's LaTeX table carries the CIs and n it shows.

The buttons are deferred downloads: the files are made when clicked. A test "clicks" one by asking
Streamlit's media file manager to run the button's deferred callable (what the browser's request does),
then opens the file: the SVG parses at the fixed size, the PDF embeds its fonts, and the CSV holds the
numbers the page's analysis computes (recomputed here with the core function the page calls, fed as the
page feeds it).
"""

from __future__ import annotations

import io
import time
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from core.analysis.calibration import count_calibration, injected_calibration, reliability
from core.analysis.errortypes import f1_bootstrap
from core.ingest.comparisons import derive_preferences
from core.reads.frames import correlation_frame, expert_counts, injected_counts, judge_counts, pair_groups
from core.store.db import Store
from tests.apptest_helpers import assert_ok, injected_copy, judged_copy, open_page

N_BOOT = 200
FORMS = ("svg", "pdf", "csv")


@pytest.fixture(scope="module")
def judged(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The demo with the rules and lexical judges, and comparisons derived from its annotations."""
    store = judged_copy(demo_store, tmp_path_factory, "downloads", "rules", "lexical")
    derive_preferences(store, "demo")
    return store


@pytest.fixture(scope="module")
def injected(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    """A dataset shaped like ``python -m core inject`` output (annotator ``injected``), built without a model:
    demo pairs whose experts agree on 1-3 significant errors of type (a), or of (b) and none of (a)."""
    return injected_copy(demo_store, tmp_path_factory.mktemp("downloads-inj") / "inj.duckdb")


def _open(app_test, store: Store, page: str, params: dict | None = None):
    return open_page(app_test, store, page, {"n_boot": str(N_BOOT), **(params or {})})


@pytest.fixture
def media(monkeypatch: pytest.MonkeyPatch) -> list:
    """The media file managers AppTest makes, one per run (AppTest drops its runtime after a run, and with it
    the manager that holds the buttons' deferred callables): a recording subclass, nothing else changed."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.testing.v1 import app_test as module

    made: list = []

    class Recording(MediaFileManager):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(module, "MediaFileManager", Recording)
    return made


def buttons(at) -> dict:
    return {b.key: b for b in at.get("download_button")}


def fetch(at, media: list, key: str):
    """What the browser receives when the download button ``key`` is clicked: Streamlit runs the button's
    deferred callable (registered in the last run's media file manager) and serves the file it returns
    (``.content``, ``.filename``, ``.mimetype``)."""
    button = buttons(at)[key].proto
    assert button.deferred_file_id, key  # made on click, not while the page runs
    manager = media[-1]
    url = manager.execute_deferred(button.deferred_file_id)
    return manager.read_file(url.rsplit("/", 1)[1].split(".")[0])


def click(at, media: list, key: str) -> bytes:
    return fetch(at, media, key).content


def check_files(at, media: list, key: str) -> pd.DataFrame:
    """Click SVG, PDF and CSV of ``key``: a well-formed SVG at the fixed size, a PDF with embedded fonts; the CSV
    as a frame."""
    from core.paper.figstyle import HEIGHT, WIDTH

    shown = buttons(at)
    assert {f"{key}_{f}" for f in FORMS} <= set(shown), sorted(shown)
    assert [shown[f"{key}_{f}"].proto.label for f in FORMS] == ["SVG", "PDF", "Chart CSV"]
    root = ET.fromstring(click(at, media, f"{key}_svg"))
    assert root.tag.endswith("svg")
    assert float(root.get("width")) >= WIDTH and float(root.get("height")) >= HEIGHT  # the fixed plot size, plus axes
    assert len(root.findall(".//{http://www.w3.org/2000/svg}text")) >= 5  # titles, ticks, legend
    pdf = click(at, media, f"{key}_pdf")
    assert pdf.startswith(b"%PDF-") and b"/FontFile" in pdf and len(pdf) > 8_000
    csv = pd.read_csv(io.StringIO(click(at, media, f"{key}_csv").decode("utf-8")))
    assert len(csv) > 0
    return csv


# -- Calibration ----------------------------------------------------------------------------------------


def test_calibration_counts_and_reliability_download_the_pages_numbers(app_test, media, judged: Store):
    at = _open(app_test, judged, "pages/calibration.py")
    counts = check_files(at, media, "cal_dl_fig_counts")
    want = count_calibration(judge_counts(judged, "demo"), expert_counts(judged, "demo"), significant=True,
                             bins=range(0, 13), n_boot=N_BOOT, seed=0, groups=pair_groups(judged, "demo"))
    want = want[want["n"] > 0].reset_index(drop=True)
    assert list(counts["judge"]) == list(want["judge"]) and list(counts["x"]) == list(want["x"])
    assert list(counts["n"]) == list(want["n"])
    assert counts["y"].to_numpy() == pytest.approx(want["y"].to_numpy(), rel=1e-12)
    assert counts["ci_low"].to_numpy() == pytest.approx(want["ci_low"].to_numpy(), rel=1e-12, nan_ok=True)
    assert (counts["dataset"] == "demo").all() and counts["synthetic"].all()

    rel = check_files(at, media, "cal_dl_fig_reliability")
    frame = correlation_frame(judged, "demo", "score")
    scores = frame[["pair_id", "judge", "metric", "value"]]
    targets = frame.drop_duplicates("pair_id")[["pair_id", "target"]]
    want = reliability(scores[scores["metric"] == "green"], targets, n_bins=5, n_boot=N_BOOT, seed=0,
                       groups=pair_groups(judged, "demo"))  # the page's default: the first score, GREEN
    want = want[want["n"] > 0].reset_index(drop=True)
    assert set(rel["metric"]) == {"green"} and list(rel["n"]) == list(want["n"])
    assert rel["y"].to_numpy() == pytest.approx(want["y"].to_numpy(), rel=1e-12)
    assert rel["ci_high"].to_numpy() == pytest.approx(want["ci_high"].to_numpy(), rel=1e-12, nan_ok=True)


def test_calibration_follows_the_view_into_the_file(app_test, media, judged: Store):
    at = _open(app_test, judged, "pages/calibration.py", {"errors": "both", "range": "1-6"})
    svg_file = fetch(at, media, "cal_dl_fig_counts_svg")
    assert svg_file.filename == "demo-synthetic-calibration-counts-both-1-6.svg"
    assert svg_file.mimetype == "image/svg+xml"
    shown = pd.read_csv(io.StringIO(click(at, media, "cal_dl_fig_counts_csv").decode("utf-8")))
    assert shown["x"].between(1, 6).all()
    svg = svg_file.content.decode("utf-8")
    assert "errors (significant and insignificant)" in svg and "synthetic data" in svg


def test_calibration_injected_errors_download_per_error_type(app_test, media, injected: Store):
    at = _open(app_test, injected, "pages/calibration.py", {"dataset": "inj"})
    want = injected_calibration(judge_counts(injected, "inj"), injected_counts(injected, "inj"), n_boot=N_BOOT,
                                seed=0, groups=pair_groups(injected, "inj"))
    for cat in ("a", "b"):
        shown = check_files(at, media, f"cal_dl_fig_injected_{cat}")
        expected = want[(want["category"] == cat) & (want["n"] > 0)].reset_index(drop=True)
        assert set(shown["category"]) == {cat} and list(shown["x"]) == list(expected["x"])
        assert shown["y"].to_numpy() == pytest.approx(expected["y"].to_numpy(), rel=1e-12)
        assert list(shown["n"]) == list(expected["n"])
        assert not shown["synthetic"].any()  # an imported dataset


# -- Error types ------------------------------------------------------------------------------------------


def test_errortypes_f1_chart_downloads_the_pages_f1(app_test, media, judged: Store):
    at = _open(app_test, judged, "pages/errortypes.py", {"measure": "recall"})
    shown = check_files(at, media, "et_dl_fig_f1")
    want = f1_bootstrap(judge_counts(judged, "demo"), expert_counts(judged, "demo"), significant=True,
                        groups=pair_groups(judged, "demo"), n_boot=N_BOOT, seed=0)
    assert list(shown["category"]) == list(want["category"]) and "recall" in shown and "f1" not in shown
    assert shown["recall"].to_numpy() == pytest.approx(want["recall"].to_numpy(), rel=1e-12)
    assert shown["recall_ci_low"].to_numpy() == pytest.approx(want["recall_ci_low"].to_numpy(), rel=1e-12,
                                                              nan_ok=True)
    assert fetch(at, media, "et_dl_fig_f1_pdf").filename == "demo-synthetic-recall-per-category-sig.pdf"


# -- Correlations -----------------------------------------------------------------------------------------


def _correlate(store: Store) -> pd.DataFrame:
    from core.analysis.stats import correlate

    return correlate(correlation_frame(store, "demo", "score"), n_boot=0, min_n=10, cluster_col="group_id",
                     target_name="score")


def test_correlations_scatter_heatmap_and_preferences_download_the_pages_numbers(app_test, media, judged: Store):
    from scipy.stats import kendalltau

    from core.analysis.stats import breakdown
    from core.reads.preferences import dataset_preference_accuracy

    at = _open(app_test, judged, "pages/correlations.py")
    assert_ok(at)
    scatter = check_files(at, media, "corr_dl_fig_scatter")
    judge, metric = scatter["judge"].iloc[0], scatter["metric"].iloc[0]
    assert (judge, metric) == (at.selectbox(key="corr_judge").value, at.selectbox(key="corr_metric").value)
    row = _correlate(judged).set_index(["judge", "metric"]).loc[(judge, metric)]
    assert len(scatter) == row["n"]  # every pair, not the page's sample or its jitter
    assert kendalltau(scatter["value"], scatter["target"]).statistic == pytest.approx(row["tau"], abs=1e-12)

    heat = check_files(at, media, "corr_dl_fig_heat")
    cells = breakdown(correlation_frame(judged, "demo", "score"), by_facet="modality", n_boot=0, min_n=10,
                      cluster_col="group_id", target_name="score").set_index(["judge", "metric", "modality"])
    assert set(heat["facet_name"]) == {"modality"} and len(heat) >= 10
    for _, r in heat.iterrows():
        want = cells.loc[(r["judge"], r["metric"], r["facet"])]
        assert r["n"] == want["n"] and r["tau"] == pytest.approx(want["tau"], abs=1e-12, nan_ok=True)

    prefs = check_files(at, media, "corr_dl_fig_pref")
    table, _ = dataset_preference_accuracy(judged, "demo")
    levels = table[table["scope"] == "level"].set_index(["judge", "metric", "confidence"])
    for _, r in prefs.iterrows():
        want = levels.loc[(r["judge"], r["metric"], r["confidence"])]
        assert r["accuracy"] == pytest.approx(want["accuracy"], rel=1e-12) and r["n"] == want["n"]
    assert prefs["series"].nunique() <= 6


def test_correlations_latex_carries_the_cis_and_n_the_page_shows(app_test, media, judged: Store):
    from tests.paper.conftest import cli

    at = _open(app_test, judged, "pages/correlations.py")
    latex = click(at, media, "corr_dl_latex").decode("utf-8")
    command = cli(judged.path, "correlate", "--dataset", "demo", "--table", "--format", "latex", "--with-ci",
                  "--with-n", "--n-boot", str(N_BOOT)).stdout
    assert latex == command  # the same numbers, CIs, n and caption as the CLI
    assert "95\\% CIs: percentile cluster bootstrap" in latex and f"{N_BOOT} resamples, seed 0" in latex
    assert " [" in latex and "($n=" in latex

    at = _open(app_test, judged, "pages/correlations.py", {"n_boot": "0"})  # no resampling: no CIs shown
    latex = click(at, media, "corr_dl_latex").decode("utf-8")
    assert latex == cli(judged.path, "correlate", "--dataset", "demo", "--table", "--format", "latex", "--with-n",
                        "--n-boot", "0").stdout
    assert "CIs:" not in latex and "($n=" in latex


# -- Ensembles & simulator ----------------------------------------------------------------------------------


def test_ensembles_and_simulator_charts_download_their_numbers(app_test, media, judged: Store):
    from core.analysis.ensemble import ensemble_table, feature_sets_by_metric
    from core.analysis.scores import METRICS
    from core.analysis.simulate import sweep
    from core.reads.frames import feature_frame

    at = _open(app_test, judged, "pages/ensembles.py")
    shown = check_files(at, media, "ens_dl_fig_tau")
    features = feature_frame(judged, "demo", "score")
    columns = [c for c in features.columns if ":" in c]
    sets = {k: v for k, v in feature_sets_by_metric(columns, all_name=None).items() if k in METRICS}
    sets["All"] = columns
    want = ensemble_table(features, "target", sets, train_size=500, seed=0, n_boot=N_BOOT).table
    want = want[want["tau"].notna()].set_index(["ensemble", "feature_set"])
    assert len(shown) == len(want)
    for _, r in shown.iterrows():
        w = want.loc[(r["ensemble"], r["feature_set"])]
        assert r["tau"] == pytest.approx(w["tau"], rel=1e-12) and r["n_test"] == w["n_test"]
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((w["ci_low"], w["ci_high"]), rel=1e-12)

    curves = check_files(at, media, "ens_dl_fig_sweep")
    want = sweep("s", list(range(21)), tp=5, s=2, i=0, alpha=1.0, beta_s=1.0, beta_i=0.0)
    assert list(curves["metric"]) == list(want["metric"]) and list(curves["x"]) == list(want["x"])
    assert curves["value"].to_numpy() == pytest.approx(want["value"].to_numpy(), rel=1e-12)
    assert "dataset" not in curves  # the simulator is no dataset's


# -- the pages' extra time -------------------------------------------------------------------------------------


def test_the_files_are_made_on_click(app_test, media, judged: Store):
    """Drawing the buttons renders nothing (vl-convert takes about 0.1 s a file, 0.5 s for a server's first):
    every figure button is a deferred download, without a file, until it is clicked."""
    at = _open(app_test, judged, "pages/calibration.py")
    figure_buttons = [b.proto for k, b in buttons(at).items() if k.startswith("cal_dl_fig_")]
    assert len(figure_buttons) == 6  # counts and reliability: SVG, PDF, CSV each
    assert all(b.deferred_file_id and not b.url for b in figure_buttons)
    started = time.perf_counter()
    assert click(at, media, "cal_dl_fig_counts_pdf").startswith(b"%PDF-")
    assert time.perf_counter() - started < 30
