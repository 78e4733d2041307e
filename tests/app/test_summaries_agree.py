"""The report, the Summaries page and the `summary` command agree on which judges have a summary and on the
score heading it (core.analysis.summary.summarisable_judges and judge_summary, fed by
core.reads.summary_inputs.summary_frames), on one store holding a GREEN-format run (rules), a CRIMSON run
(through the loopback OpenAI-compatible server) and two judges without a summary: a GREEN score imported
alone (no error per category) and the lexical judge (no GREEN or CRIMSON score).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from core.analysis.naming import display_name
from core.analysis.summary import summarisable_judges
from core.cli.main import main
from core.judges import run_judge
from core.reads.frames import judge_runs
from core.reads.summary_inputs import summary_frames
from core.report import collect
from tests.app.test_page_crimson import LABEL, crimson_store  # noqa: F401  (a fixture)
from tests.apptest_helpers import assert_ok, open_page

SCORE_ONLY = "green-scores-only"


@pytest.fixture
def mixed_store(crimson_store, tmp_path, capsys):  # noqa: F811
    store, _ = crimson_store
    run_judge(store, dataset="demo", judge="lexical")
    # a GREEN score per pair equal to the experts' own score: the best-agreeing judge, but nothing per category
    expert = store.query_df("SELECT p.ext_id AS id, avg(a.value) AS green FROM annotations a JOIN pairs p "
                            "USING (pair_id) WHERE p.dataset = 'demo' AND a.field = 'score' "
                            "GROUP BY p.ext_id ORDER BY 1")
    assert len(expert) > 10
    path = tmp_path / "green.csv"
    expert.to_csv(path, index=False)
    assert main(["--store", str(store.path), "import-outputs", str(path), "--dataset", "demo", "--judge", SCORE_ONLY,
                 "--id-col", "id", "--score-col", "green", "--metric", "green", "--json"]) == 0
    capsys.readouterr()
    return store


def _cli_summary(store, capsys, judge: str) -> tuple[int, dict | str]:
    code = main(["--store", str(store.path), "summary", "--dataset", "demo", "--judge", judge, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else err)


def test_report_page_and_cli_agree_on_the_judges_and_their_headline(app_test, mixed_store, capsys):
    store = mixed_store
    judges = summarisable_judges(*summary_frames(store, "demo"), order=judge_runs(store, "demo")["judge"].tolist())
    assert judges == ["rules", LABEL]  # neither the score alone nor the lexical judge
    headline = {"rules": "green", LABEL: "crimson"}

    # the CLI: a summary for each of them, headed by its own score; the others refused in one line
    for judge in judges:
        code, got = _cli_summary(store, capsys, judge)
        assert code == 0 and got["judge"] == judge and got["score_metric"] == headline[judge], got
    for judge in (SCORE_ONLY, "lexical"):
        code, err = _cli_summary(store, capsys, judge)
        assert code == 1 and f"judge '{judge}' has nothing to summarise" in err, err
        assert err.count("\n") == 1 and "judges with a summary: " in err

    # the page: the same judges offered (run order), each headed as the CLI heads it
    at = open_page(app_test, store, "pages/summaries.py", {"judge": SCORE_ONLY}, via_home=True)
    box = at.selectbox(key="sum_judge")
    assert list(box.options) == judges  # in run order
    assert box.value == judges[0]  # the URL's judge has no summary
    for judge in judges:
        box.set_value(judge).run()
        assert_ok(at)
        # named by the one naming rule: the GREEN formula over the rules judge's counts says so
        assert at.metric[0].label == f"{display_name(judge, headline[judge])} (mean ± std)"
        assert at.metric[0].label.startswith("GREEN formula (rules counts)" if judge == "rules" else "CRIMSON")
        box = at.selectbox(key="sum_judge")

    # the report: its summary is of one of them (never the best-agreeing score-only judge), headed the same
    data = collect(store, "demo", n_boot=0, seed=0)
    assert data.summary is not None and data.summary.judge in judges
    code, got = _cli_summary(store, capsys, data.summary.judge)
    assert data.summary.score_metric == got["score_metric"] == headline[data.summary.judge]
    assert data.summary.green_n == got["green_n"] and data.summary.green_mean == pytest.approx(got["green_mean"])
    best = data.targets[0].corr.sort_values("tau_oriented", ascending=False).iloc[0]
    assert best["judge"] == SCORE_ONLY  # the report passed over it for want of a summary


def test_summarisable_judges_needs_a_headline_and_something_per_category():
    def frame(rows, cols):
        return pd.DataFrame(rows, columns=cols)

    errors = frame([("p1", "green-texts", "A", "a", True, "x"), ("p1", "texts-only", "A", "a", True, "y")],
                   ["pair_id", "judge", "system", "category", "significant", "text"])
    counts = frame([("p1", "crimson-counts", "A", "a", True, 0)],
                   ["pair_id", "judge", "system", "category", "significant", "count"])
    scores = frame([("p1", "green-texts", "A", "green", 0.5), ("p1", "crimson-counts", "A", "crimson", 1.0),
                    ("p1", "score-only", "A", "green", 0.7), ("p1", "texts-only", "A", "bleu", 0.1)],
                   ["pair_id", "judge", "system", "metric", "value"])
    assert summarisable_judges(errors, counts, scores) == ["crimson-counts", "green-texts"]
    assert summarisable_judges(errors, counts, scores, order=["green-texts", "nobody"]) == ["green-texts",
                                                                                          "crimson-counts"]
