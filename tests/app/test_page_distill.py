"""The Distill page through AppTest: train a (tiny) student from the rules judge, read its card, score with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.distill.data import load_card
from core.store.db import Store
from tests.apptest_helpers import judged_copy, open_page
from tests.conftest import ROOT
from tests.distill.test_distill import BLOCK_TORCH

PAGE = "pages/distill.py"


@pytest.fixture(scope="module")
def judged_store(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    return judged_copy(demo_store, tmp_path_factory, "distill-page", "rules")


def _open(app_test, store: Store, params: dict | None = None):
    return open_page(app_test, store, PAGE, params, via_home=True)


def test_empty_state_then_train_then_card_then_score(app_test, judged_store):
    at = _open(app_test, judged_store, {"encoder": "tiny", "epochs": "2"})
    assert "No student trained on this dataset yet" in "\n".join(i.value for i in at.info)
    assert at.selectbox[0].value == "rules"  # the latest run is the default teacher
    at.text_input[0].set_value("page-student")
    at.button[0].click()  # the form's Train button
    at.run(timeout=240)
    assert not at.exception, [e.value for e in at.exception]
    card = load_card(judged_store, "page-student")
    assert card["teacher"] == "rules" and card["encoder"] == "tiny" and card["epochs"] == 2
    assert at.query_params["model"] in ("page-student", ["page-student"])
    # The card shows the numbers of the saved model.
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["tau vs teacher"] == f"{card['metrics']['all']['vs_teacher']['tau']:.3f}"
    assert metrics["ms per pair (student)"] == f"{card['ms_per_pair']:.2f}"
    table = next(d.value for d in at.dataframe if "student tau vs teacher" in d.value.columns)
    assert table["n"].tolist() == [card["metrics"]["all"]["n"], card["metrics"]["no_identical"]["n"]]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["xaxis"]["title"]["text"].startswith("milliseconds per pair")
    assert len(at.get("download_button")) == 3
    # Side by side (CREPE Table 3 style): student and teacher on the same held-out pairs; no LLM run here.
    side = next(d.value for d in at.dataframe if "role" in d.value.columns)
    assert side["role"].tolist() == ["student", "teacher"]
    assert side["n"].tolist()[0] == card["metrics"]["all"]["n"]
    assert side["tau vs experts"].iloc[0].startswith(f"{card['metrics']['all']['vs_expert']['tau']:.3f}")
    assert any("no LLM judge run" in c.value for c in at.caption)
    # Score the held-out pairs from the page.
    score = next(b for b in at.button if b.label.startswith("Score the other pairs"))
    score.click()
    at.run(timeout=120)
    assert not at.exception
    n_out = judged_store.query_one("SELECT count(*) FROM judge_outputs o JOIN judge_runs r USING (run_id) "
                                   "WHERE r.judge_name = 'distilled:page-student'")
    assert n_out == card["n_test"]
    assert any(f"{card['n_train'] + card['n_val']} training/validation pairs left out" in s.value
               for s in at.success)


def test_page_says_how_to_install_the_extra_without_torch(judged_store, tmp_path):
    """The page without torch (blocked in a subprocess): a clear message, no exception."""
    prog = BLOCK_TORCH + f"""
import os
os.environ['RADCONCORD_STORE'] = {str(judged_store.path)!r}
from streamlit.testing.v1 import AppTest
from tests.apptest_steady import keep_steady
keep_steady()
at = AppTest.from_file({str(Path(ROOT) / 'app.py')!r}, default_timeout=60)
at.run()
at.switch_page({PAGE!r})
at.run()
assert not at.exception, [e.value for e in at.exception]
print("\\n".join(i.value for i in at.info))
"""
    r = subprocess.run([sys.executable, "-c", prog], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "run `make setup-ml` (it installs requirements-ml.txt" in r.stdout
