"""The Correlations page's confidence-interval control (issue 18): auto by size, bootstrap, asymptotic."""

from __future__ import annotations

import math

import pytest

from core.analysis import stats
from core.analysis.stats import correlate
from core.reads.frames import correlation_frame
from core.store.db import Store
from tests.apptest_helpers import judged_copy, open_page

PAGE = "pages/correlations.py"


@pytest.fixture(scope="module")
def judged_store(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    return judged_copy(demo_store, tmp_path_factory, "corr_ci", "rules")


def _open(app_test, store: Store, query_params: dict | None = None):
    return open_page(app_test, store, PAGE, query_params)


def _detail(at):
    (found,) = [d.value for d in at.dataframe if "tau CI low" in d.value.columns]
    return found.set_index(["judge", "metric"])


def _expected(store: Store, ci: str):
    frame = correlation_frame(store, "demo", "score", counts=False)  # the page's scores, no per-category counts
    return correlate(frame[frame["judge"] == "rules"], n_boot=1000, seed=0, min_n=10, ci=ci)


def _statement(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_asymptotic_from_the_url_and_the_control(app_test, judged_store):
    at = _open(app_test, judged_store, {"ci_method": "asymptotic"})
    assert at.selectbox(key="corr_ci_method").value == "asymptotic"
    detail = _detail(at)
    expected = _expected(judged_store, "asymptotic")
    assert len(expected) and set(expected["ci_method"]) == {"asymptotic-cluster"}
    for row in expected.itertuples(index=False):
        got = detail.loc[(row.judge, row.metric)]
        assert got["CI method"] == "asymptotic-cluster"
        assert math.isclose(got["tau CI low"], row.ci_low, abs_tol=1e-12)
        assert math.isclose(got["r CI high"], row.r_ci_high, abs_tol=1e-12)
    assert "asymptotic CIs" in _statement(at) and "bootstrap resamples" not in _statement(at)
    # back to auto: 400 pairs is small, so the bootstrap, as before
    at.selectbox(key="corr_ci_method").set_value("auto").run()
    assert not at.exception
    assert set(_detail(at)["CI method"]) == {"bootstrap-cluster"}
    assert "**1,000** bootstrap resamples" in _statement(at)


def test_auto_switches_to_asymptotic_above_the_size_limit(app_test, judged_store, monkeypatch):
    monkeypatch.setattr(stats, "AUTO_BOOTSTRAP_MAX_N", 100)  # the demo's rows (n = 120...) are now "large"
    at = _open(app_test, judged_store, {"n_boot": "20000"})
    # no bootstrap row left: nothing waits for a click, every interval is asymptotic
    assert not [b for b in at.button if b.key and b.key.startswith("corr_boot_go_")]
    assert set(_detail(at)["CI method"]) == {"asymptotic-cluster"}
    assert "asymptotic CIs" in _statement(at)
