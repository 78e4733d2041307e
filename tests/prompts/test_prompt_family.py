"""Adding a prompt family is one row of core.prompts.specs.PROMPTS plus its own module (docs/ARCHITECTURE.md,
"Adding a prompt family"): a tiny yes/no prompt in a module of a temporary folder, its row added to the table,
is listed by the CLI and the Run page's list, rendered, sent to the loopback server with its own output
budget, and its answers parsed and stored as its metric."""

from __future__ import annotations

from core.judges.llm import run_llm_judge
from core.prompts.specs import PROMPTS, PromptSpec
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI

MODULE = '''
"""A tiny prompt family: do two reports agree? Answered yes or no, stored as tiny_yes (1 or 0)."""


def render(spec, reference, candidate, shots, context):
    return [{"role": "user", "content": f"Do these reports agree? Answer yes or no.\\nA: {reference}\\nB: {candidate}"}]


def parse(text):
    word = text.strip().lower().rstrip(".")
    if word not in ("yes", "no"):
        return "failed", "the answer is neither yes nor no", {}
    return "ok", "", {"tiny_yes": 1.0 if word == "yes" else 0.0}
'''

ROW = PromptSpec("tiny_agree", "tiny", render="tiny_family:render", parser="tiny_family:parse", answer="values",
                 metrics=("tiny_yes",), max_tokens=16, assumed_output=2)


def test_a_new_prompt_family_is_one_row_and_its_own_module(tmp_path, monkeypatch, run_cli):
    (tmp_path / "tiny_family.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(PROMPTS, ROW.id, ROW)
    from core.judges.messages import default_max_tokens
    from core.models import assumed_output_tokens
    from core.prompts import list_prompts, prompt_for

    # listed: the Run page's choices (list_prompts) and the CLI's --prompt help
    assert "tiny_agree" in list_prompts()
    assert "tiny_agree" in run_cli("judge", "--help").stdout.replace("\n", " ")
    # rendered by its module, with the row's budget and the planner's assumption
    rendered = prompt_for("tiny_agree", "No effusion.", "Small effusion {x}.")
    assert rendered.prompt_id == "tiny_agree" and rendered.messages == [
        {"role": "user", "content": "Do these reports agree? Answer yes or no.\nA: No effusion.\nB: Small effusion {x}."}]
    assert (default_max_tokens("tiny_agree"), assumed_output_tokens("tiny_agree")) == (16, 2)
    # sent and parsed: a real run against the loopback server, answers stored as the row's metric
    store = marked_store(tmp_path / "s.duckdb", 3)
    with FakeOpenAI(answer=lambda messages: "no" if "Candidate report 2." in messages[0]["content"] else "Yes.") as server:
        summary = run_llm_judge(store, dataset="d", model="openai/x", prompt_id="tiny_agree", api_base=server.url)
    assert [m[0]["content"].startswith("Do these reports agree?") for m in server.seen_messages] == [True] * 3
    assert {p["max_tokens"] for p in server.seen_params} == {16}
    values = store.query_df("SELECT p.ext_id, m.metric, m.value FROM metric_values m JOIN pairs p USING (pair_id) "
                            "WHERE m.run_id = ? ORDER BY p.ext_id", [summary.run_id])
    assert values.values.tolist() == [["p000", "tiny_yes", 1.0], ["p001", "tiny_yes", 1.0], ["p002", "tiny_yes", 0.0]]
    assert store.query_one("SELECT prompt_id FROM judge_runs WHERE run_id = ?", [summary.run_id]) == "tiny_agree"
