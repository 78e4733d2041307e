"""The Checks & leaderboards page through AppTest, on a private copy of the demo store.

Every number checked on the page is recomputed here with the core function the
page calls (as ``python -m core checks`` / ``leaderboard`` do).
"""

from __future__ import annotations

import tests.fake_openai as fake_openai
from core.checks.store import (
    case_results,
    checks_spec,
    failing_checks,
    llm_phase_runs,
    run_checks,
    verdict_counts,
)
from core.judges import run_judge
from core.reads.leaderboard import systems_leaderboard
from tests.apptest_helpers import open_page, tables

PAGE = "pages/checks.py"


def _open(app_test, store, params=None):
    return open_page(app_test, store, PAGE, params, via_home=True)


def test_empty_state_runs_the_checks_then_shows_scores_verdicts_and_failures(app_test, demo_store_copy):
    at = _open(app_test, demo_store_copy)
    assert any("No en-US checks" in i.value for i in at.info)
    at.button(key="chk_run").click().run()
    assert not at.exception, [e.value for e in at.exception]

    run_id = checks_spec("demo", "en-US").run_id()
    cases = case_results(demo_store_copy, "demo", run_id)
    assert len(cases) == 120 and cases["degraded"].all()
    assert at.metric[0].value == "120"
    (verdicts,) = tables(at, "verdict", "share")
    expected = verdict_counts(cases)
    assert verdicts["n"].tolist() == expected["n"].tolist()
    assert verdicts.loc[verdicts["verdict"] == "PASS", "n"].iloc[0] == 0  # degraded: PARTIAL at best
    (failing,) = tables(at, "check_id", "n_checked")
    assert failing["check_id"].tolist() == failing_checks(demo_store_copy, run_id)["check_id"].tolist()
    assert any("degraded" in c.value for c in at.caption)
    assert at.query_params["locale"] == "en-US"


def test_locale_and_board_come_from_the_url_and_systems_are_ranked_within_groups(app_test, demo_store_copy):
    run_judge(demo_store_copy, dataset="demo", judge="rules")
    at = _open(app_test, demo_store_copy, {"locale": "pt-BR", "board": "systems"})
    assert at.selectbox(key="chk_locale").value == "pt-BR"
    assert any("No pt-BR checks" in i.value for i in at.info)
    assert at.radio(key="chk_board").value == "systems"
    board = systems_leaderboard(demo_store_copy, "demo")
    groups = list(dict.fromkeys(board["group"]))
    assert len(groups) == 1  # only the rules run so far
    (shown,) = tables(at, "system", "PASS rate")
    assert shown["system"].tolist() == board["system"].tolist()
    assert shown["rank"].tolist() == [1, 2, 3, 4]
    at.radio(key="chk_board").set_value("judges").run()
    assert not at.exception and at.query_params["board"] == "judges"
    judges = tables(at, "judge", "Kendall τ (oriented)")
    assert judges and judges[0]["judge"].iloc[0] == "rules"  # rules agrees best with the demo's experts


def test_no_model_configured_says_how_and_a_configured_model_runs_the_llm_phase(app_test, demo_store_copy, no_models,
                                                                              monkeypatch):
    run_checks(demo_store_copy, "demo", "en-US")
    at = _open(app_test, demo_store_copy)
    assert any("No model configured" in c.value for c in at.caption)
    assert at.selectbox(key="chk_llm").value == ""

    def answer(messages):
        return ('{"scores": {"CRIT": 5, "QUAL": 5, "TERM": 5, "GUIDE": 5, "RAG": 5}, "critical_failures": [], '
                '"missing_findings": [], "hallucinated_findings": []}')

    monkeypatch.setattr(fake_openai, "task_answer", answer)
    with fake_openai.FakeOpenAI() as server:
        monkeypatch.setenv("RADCONCORD_MODELS", f"openai/fake-judge={server.url}")
        at = _open(app_test, demo_store_copy)
        assert at.selectbox(key="chk_llm_model").value == "openai/fake-judge"
        at.button(key="chk_llm_go").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert server.requests == 120
    runs = llm_phase_runs(demo_store_copy, "demo", "en-US")
    assert len(runs) == 1 and at.selectbox(key="chk_llm").value == runs["run_id"].iloc[0]
    assert at.query_params["llm"] == runs["run_id"].iloc[0]
    assert at.metric[3].value == "0"  # every pair has the judge's scores: nothing degraded
    cases = case_results(demo_store_copy, "demo", checks_spec("demo").run_id(), runs["run_id"].iloc[0])
    (verdicts,) = tables(at, "verdict", "share")
    assert verdicts["n"].tolist() == verdict_counts(cases)["n"].tolist()
