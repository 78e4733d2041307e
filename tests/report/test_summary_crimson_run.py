"""The `summary` command and the HTML report's error summary take a CRIMSON run (issue 33): headed by CRIMSON's
mean ± std, as the Summaries page is, while a GREEN-format judge keeps GREEN's. The CRIMSON run is made through
the CLI against the loopback OpenAI-compatible server (tests/fake_openai.py), as in tests/judges/test_crimson_run.py.
"""

from __future__ import annotations

import html
import json

import pytest

from core.cli.main import main
from core.report import build_report, collect
from tests.fake_openai import FakeOpenAI
from tests.judges.test_crimson_run import MODEL, N, _answer, crimson_demo  # noqa: F401  (a fixture)

JUDGE = f"{MODEL} · crimson"  # the run's label (core.reads.frames.judge_runs), as the CLI and pages name it


@pytest.fixture
def crimson_run(crimson_demo, capsys):  # noqa: F811
    store, _, shape_of = crimson_demo
    with FakeOpenAI(answer=_answer(shape_of)) as server:
        code = main(["--store", str(store.path), "judge", "--dataset", "demo", "--judge", MODEL, "--prompt", "crimson",
                     "--limit", str(N), "--api-base", server.url, "--json", "--allow-failures"])
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    assert code == 0
    values = store.query_df("SELECT value FROM metric_values WHERE run_id = ? AND metric = 'crimson'",
                            [run_id])["value"].to_numpy(float)
    assert 0 < len(values) < N  # the unreadable answers have no score
    return store, values


def _summary(store, capsys, *args) -> tuple[int, str]:
    code = main(["--store", str(store.path), "summary", "--dataset", "demo", *args])
    return code, capsys.readouterr().out


def test_the_summary_command_heads_a_crimson_run_with_crimsons_mean_and_std(crimson_run, capsys):
    store, values = crimson_run
    code, out = _summary(store, capsys, "--judge", JUDGE, "--json")
    assert code == 0
    got = json.loads(out)
    assert got["score_metric"] == "crimson" and got["green_n"] == len(values)
    assert got["green_mean"] == pytest.approx(values.mean()) and got["green_std"] == pytest.approx(values.std())
    code, out = _summary(store, capsys, "--judge", JUDGE)
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith(f"CRIMSON (mean ± std) {values.mean():.3f} ± {values.std():.3f} from {len(values)} "
                            "values over "), first
    assert "GREEN" not in first

    systems = store.query_df("SELECT DISTINCT p.system FROM judge_outputs o JOIN pairs p USING (pair_id) "
                             "ORDER BY 1")["system"].tolist()
    assert len(systems) >= 2
    code, out = _summary(store, capsys, "--judge", JUDGE, "--compare", *systems[:2], "--json")
    assert code == 0 and {r["score_metric"] for r in json.loads(out)} == {"crimson"}

    # a GREEN-format judge beside it is still headed by GREEN
    assert main(["--store", str(store.path), "judge", "--dataset", "demo", "--judge", "rules", "--json"]) == 0
    capsys.readouterr()
    code, out = _summary(store, capsys, "--judge", "rules")
    # the GREEN formula over the rules judge's counts, named so (core.analysis.naming)
    assert code == 0 and out.startswith("GREEN formula (rules counts) (mean ± std) ")
    code, out = _summary(store, capsys, "--judge", "lexical")
    assert code != 0


def test_the_report_summarises_a_crimson_run_under_crimsons_score(crimson_run):
    store, values = crimson_run
    data = collect(store, "demo", n_boot=50, seed=0)
    summary = data.summary
    assert summary is not None and summary.judge == JUDGE and summary.score_metric == "crimson"
    assert summary.green_n == len(values) and summary.green_mean == pytest.approx(values.mean())
    assert len(summary.clusters)  # CRIMSON's error explanations, clustered
    page = build_report(store, "demo", n_boot=50, seed=0)
    line = (f"CRIMSON score: mean {values.mean():.3f}, standard deviation {values.std():.3f} over "
            f"{len(values):,} reports.")
    assert line in page and html.escape(JUDGE) in page
    assert "GREEN score: mean" not in page
    # the judge is chosen among those with a summary (counts per category will do), not only those explaining
    assert (f"Judge: <strong>{html.escape(JUDGE)}</strong> (the judge closest to the experts among the judges "
            "with a summary: a GREEN or CRIMSON score and errors per category).") in page


def test_without_a_judge_with_a_summary_the_report_says_what_one_needs(crimson_demo, capsys):  # noqa: F811
    store, _, _ = crimson_demo
    assert main(["--store", str(store.path), "judge", "--dataset", "demo", "--judge", "lexical", "--json"]) == 0
    capsys.readouterr()
    data = collect(store, "demo", n_boot=0, seed=0)
    note = ("No judge on this dataset has a summary yet (a GREEN or CRIMSON score and errors per category, "
            "explained or counted); run one (python -m core judge --dataset demo --judge rules) to get one.")
    assert data.summary is None and data.summary_note == note
    assert html.escape(note) in build_report(store, "demo", n_boot=0, seed=0)
