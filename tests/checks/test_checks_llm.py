"""The LLM phase through the runner against a real loopback server, the parser, and the CLI end to end."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import tests.fake_openai as fake_openai
from core.checks.adversarial import PROMPT_ID, parse_answer, parse_for_store, prompt_hash, render
from core.checks.store import case_results, checks_spec, llm_phase_runs, run_checks
from core.cli.main import main
from core.ingest.importers import PairColumns, import_pairs
from core.judges import run_judge

MODEL = "openai/fake-judge"
REF = ("FINDINGS: Small left pleural effusion. The lungs are otherwise clear. Normal heart size.\n\n"
       "IMPRESSION:\nSmall left pleural effusion.")


@pytest.fixture
def laias_server(monkeypatch):
    """The loopback server, answering the LAIas prompt with scores keyed on a marker in the candidate."""
    original = fake_openai.task_answer

    def answer(messages):
        user = " ".join(m.get("content", "") for m in messages)
        if "hallucinated_findings" not in user:
            return original(messages)
        report = user.split("Generated report:\n", 1)[1]
        if "GARBAGE" in report:
            return "I would rather not answer in JSON."
        crit = 1 if "HARSH" in report else 5
        # code fence and a trailing comma: the tolerance LAIas Sec. 4.3 asks for
        failures = '["invented finding"]' if crit == 1 else "[]"
        return ("```json\n{\"scores\": {\"CRIT\": " + str(crit) + ", \"QUAL\": 5, \"TERM\": 4, \"GUIDE\": 5, "
                "\"RAG\": 5},\n \"critical_failures\": " + failures + ", \"missing_findings\": [], "
                "\"hallucinated_findings\": [],}\n```")

    monkeypatch.setattr(fake_openai, "task_answer", answer)
    with fake_openai.FakeOpenAI() as server:
        yield server


def make_store(tmp_store):
    cands = [REF, REF.replace("Normal heart size.", "Normal heart size. HARSH."), REF.replace("left", "right"),
             REF.replace("Normal heart size.", "Normal heart size. GARBAGE.")]
    df = pd.DataFrame({"id": [f"p{i}" for i in range(4)], "ref": [REF] * 4, "cand": cands,
                       "sys": ["a", "a", "b", "b"], "mod": ["XR"] * 4, "anat": ["chest"] * 4})
    import_pairs(tmp_store, df, dataset="d", columns=PairColumns("id", "ref", "cand", system="sys", modality="mod",
                                                                   anatomy="anat"), name="x.csv")
    return tmp_store


def test_parser_is_tolerant_and_never_invents_scores():
    text = "Here you go:\n```json\n{\"scores\": {\"crit\": 4, \"Structure\": 3, \"TERM\": 9, \"GUIDE\": \"x\",},\n" \
           "\"hallucinated_findings\": [\"a\", \"b\"], \"critical_failures\": []}\n```"
    parsed = parse_answer(text)
    assert parsed["scores"] == {"CRIT": 4.0, "QUAL": 3.0, "TERM": None, "GUIDE": None, "RAG": None}
    assert parsed["hallucinated"] == 2 and parsed["critical"] == 0
    status, _, values = parse_for_store(text)
    assert status == "partial" and "laias_adv_term" not in values and values["laias_adv_crit"] == 4.0
    assert values["laias_adv_overall"] == pytest.approx((30 * 4 + 25 * 3) / 55)
    assert parse_for_store("no json here")[0] == "failed"
    with pytest.raises(ValueError):
        parse_answer('{"scores": {"CRIT": 0}}')  # outside 1-5: unknown, and nothing else is usable


def test_prompt_is_cited_and_carries_the_inputs_verbatim():
    head = render(REF, "Candidate with {{braces}} and {{report}}", locale="pt-BR", exam="tc abdome sc")
    text = head[0]["content"]
    assert "Candidate with {{braces}} and {{report}}" in text and "tc abdome sc" in text and REF in text
    assert "Brazilian Portuguese" in text
    assert prompt_hash("en-US") != prompt_hash("pt-BR")
    from core.checks.adversarial import laias_template

    header, _ = laias_template()
    assert "LAIas Bench Sec. 4.3" in header["source"] and header["status"].startswith("designed")


def test_llm_phase_through_the_runner_min_combination_and_degraded(tmp_store, laias_server):
    store = make_store(tmp_store)
    run_checks(store, "d")
    first = run_judge(store, dataset="d", judge=MODEL, prompt_id=PROMPT_ID, api_base=laias_server.url)
    assert first.sent == 4 and first.ok == 4
    sent = laias_server.requests
    again = run_judge(store, dataset="d", judge=MODEL, prompt_id=PROMPT_ID, api_base=laias_server.url)
    assert again.sent == 0 and again.skipped == 4 and laias_server.requests == sent  # resumable, nothing re-sent
    status = store.query_df("SELECT p.ext_id, o.parse_status FROM judge_outputs o JOIN pairs p USING (pair_id) "
                            "WHERE o.run_id = ? ORDER BY 1", [first.run_id])
    assert status["parse_status"].tolist() == ["ok", "ok", "ok", "failed"]
    runs = llm_phase_runs(store, "d", "en-US")
    assert runs["run_id"].tolist() == [first.run_id]
    assert json.loads(runs["params"].iloc[0])["locale"] == "en-US"

    cases = case_results(store, "d", checks_spec("d").run_id(), first.run_id).set_index("ext_id")
    # p0: rules and judge both happy; TERM min(5 from rules, 4 from the judge) = 4
    assert cases.loc["p0", "term"] == 4.0 and cases.loc["p0", "det_term"] == 5.0
    assert cases.loc["p0", "verdict"] == "PASS" and not cases.loc["p0", "degraded"]
    # p1: the judge's critical failure forces FAIL, and its CRIT 1 wins the min
    assert cases.loc["p1", "crit"] == 1.0 and cases.loc["p1", "verdict"] == "FAIL"
    # p2: the rules catch the swapped side (RAG), the judge does not: min keeps the rules' score
    assert cases.loc["p2", "det_rag"] < 5.0 and cases.loc["p2", "rag"] == cases.loc["p2", "det_rag"]
    # p3: the judge's answer was unusable: degraded, PARTIAL at best
    assert cases.loc["p3", "degraded"] and cases.loc["p3", "verdict"] in ("PARTIAL", "FAIL")
    without = case_results(store, "d", checks_spec("d").run_id())
    assert without["degraded"].all() and (without["verdict"] != "PASS").all()


def test_checks_cli_json_and_leaderboard(tmp_store, laias_server, capsys):
    store = make_store(tmp_store)
    args = ["--store", str(store.path), "checks", "--dataset", "d", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 4 and out["n_degraded"] == 4 and out["llm_run"] is None and out["checked_now"] == 4
    assert {v["verdict"]: v["n"] for v in out["verdicts"]}["PASS"] == 0
    assert "R02" in {c["check_id"] for c in out["failing_checks"]}
    assert main(args + ["--judge", MODEL, "--api-base", laias_server.url]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["checked_now"] == 0 and out["llm_run"] and out["n_degraded"] == 1  # p3's answer was unusable
    assert main(["--store", str(store.path), "leaderboard", "--dataset", "d", "--kind", "systems", "--json"]) == 0
    board = pd.DataFrame(json.loads(capsys.readouterr().out))
    assert set(board["metric"]) == {"laias_overall", "laias_adv_overall"}
    assert board.groupby("group")["rank"].apply(sorted).map(list).tolist() == [[1, 2], [1, 2]]
    assert main(["--store", str(store.path), "leaderboard", "--dataset", "d", "--kind", "systems"]) == 0
    text = capsys.readouterr().out
    assert text.count("== group ") == 2 and "prompt laias_checks_en-US@" in text and "nan" not in text
    assert main(["--store", str(store.path), "checks", "--dataset", "nope"]) == 1
    assert "not found" in capsys.readouterr().err


def test_an_llm_phase_without_one_usable_answer_exits_4_and_is_passed_over(tmp_store, laias_server, capsys,
                                                                           monkeypatch):
    store = make_store(tmp_store)
    base = ["--store", str(store.path), "checks", "--dataset", "d", "--json"]
    assert main(base + ["--judge", MODEL, "--api-base", laias_server.url]) == 0
    good = json.loads(capsys.readouterr().out)["llm_run"]
    monkeypatch.setattr(fake_openai, "task_answer", lambda messages: "Sorry, no JSON today.")
    assert main(base + ["--judge", "openai/other-judge", "--api-base", laias_server.url]) == 4
    captured = capsys.readouterr()
    assert "produced no usable answer" in captured.err and "4 unreadable" in captured.err
    out = json.loads(captured.out)
    assert out["llm_run"] == good and "1 newer run(s) without answers passed over" in out["llm_run_choice"]
    assert out["n_degraded"] == 1  # as with the good phase (p3), not 4
    assert main(base) == 0  # a later plain `checks` uses the good phase too, and says why
    later = json.loads(capsys.readouterr().out)
    assert later["llm_run"] == good and later["n_degraded"] == 1
