"""The output tokens of a run's plan: the prompt's stated assumption while the store holds no answer of the
prompt, then the median of the stored answers' ``tokens_out`` (the plan's own model's when it has some, else
other models'; answers cut off at their run's budget left out), and the estimated cost moves with it. Runs go
to the loopback server, whose usage reports ``len(answer) // 4`` completion tokens."""

from __future__ import annotations

import json
import re
import statistics

from core.judges.llm import GenParams, run_llm_judge
from core.models import assumed_output_tokens, estimate_cost, measured_output_tokens, plan_run
from core.prompts.specs import PROMPTS
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI
from tests.judges.test_crimson_run import PARTIAL

CRIMSON_ASSUMED_OUTPUT = PROMPTS["crimson"].assumed_output  # 550: the table's figures
GREEN_ASSUMED_OUTPUT = PROMPTS["green"].assumed_output  # 350
RUN_MODEL = "openai/fake-judge"  # answered by the loopback server
PLAN_MODEL = "openai/gpt-4o-mini"  # priced in litellm's bundled table; never called here
N = 5
PADS = [0, 300, 900, 1500, 2400]  # spaces after the JSON of pair i: answers of different lengths


def _ids(store, dataset: str = "d") -> list[str]:
    return store.query_df("SELECT pair_id FROM pairs WHERE dataset = ? ORDER BY ext_id", [dataset])["pair_id"].tolist()


def _padded_answers(served: list[str]):
    """A CRIMSON answer per request, padded by the pair's number (``Candidate report i.``); kept in ``served``."""

    def answer(messages: list[dict]) -> str:
        text = " ".join(m["content"] for m in messages)
        i = int(re.search(r"Candidate report (\d+)\.", text).group(1))
        served.append(json.dumps(PARTIAL) + " " * PADS[i])
        return served[-1]

    return answer


def test_no_answer_assumes_then_the_stored_answers_median_is_used_and_the_cost_moves(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", N)
    ids = _ids(store)
    before = plan_run(store, "d", PLAN_MODEL, ids, "crimson")
    assert (before.output_each, before.to_send) == (CRIMSON_ASSUMED_OUTPUT, N)
    assert before.output_source.startswith("assumed") and "assumed" in before.output_note
    assert before.completion_tokens == N * CRIMSON_ASSUMED_OUTPUT
    assert before.cost_usd == estimate_cost(PLAN_MODEL, N, before.prompt_tokens // N, CRIMSON_ASSUMED_OUTPUT)
    green_before = plan_run(store, "d", PLAN_MODEL, ids, "green")
    assert green_before.output_each == GREEN_ASSUMED_OUTPUT < CRIMSON_ASSUMED_OUTPUT

    served: list[str] = []
    with FakeOpenAI(answer=_padded_answers(served)) as server:
        summary = run_llm_judge(store, dataset="d", model=RUN_MODEL, prompt_id="crimson", api_base=server.url)
    assert summary.ok == N and len(served) == N
    expected = statistics.median(len(a) // 4 for a in served)  # what the server reported, worked out here
    stored = store.query_df("SELECT tokens_out FROM judge_outputs WHERE run_id = ?", [summary.run_id])["tokens_out"]
    assert sorted(stored) == sorted(len(a) // 4 for a in served)  # the store recorded the reported usage
    assert measured_output_tokens(store, "crimson") == (N, expected)

    after = plan_run(store, "d", PLAN_MODEL, ids, "crimson")  # another model: nothing cached, the answers measured
    assert (after.output_each, after.to_send) == (round(expected), N)
    assert after.output_source == f"median of {N} stored answers of other models"
    assert after.prompt_tokens == before.prompt_tokens  # only the output figure changed ...
    assert after.cost_usd == estimate_cost(PLAN_MODEL, N, after.prompt_tokens // N, round(expected))
    assert expected < CRIMSON_ASSUMED_OUTPUT and after.cost_usd < before.cost_usd  # ... and the cost with it
    # answers of another prompt are not this prompt's measure
    assert plan_run(store, "d", PLAN_MODEL, ids, "green").output_each == GREEN_ASSUMED_OUTPUT
    assert measured_output_tokens(store, "crimson_noguide") == (0, None)


def test_copies_count_once_failures_not_at_all_and_the_budget_caps(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", N, {0: "FAILME"})
    marked_store(tmp_path / "s.duckdb", N, {0: "FAILME"}, dataset="d2")  # the same texts: the same cache keys
    served: list[str] = []
    with FakeOpenAI(answer=_padded_answers(served), plan={"FAILME": ["400"]}) as server:
        first = run_llm_judge(store, dataset="d", model=RUN_MODEL, prompt_id="crimson", api_base=server.url)
        assert (first.ok, first.failed) == (N - 1, 1)  # pair 0: a recorded failure, no tokens
        second = run_llm_judge(store, dataset="d2", model=RUN_MODEL, prompt_id="crimson", api_base=server.url,
                               pair_ids=_ids(store, "d2")[1:])
        assert (second.cached, second.sent) == (N - 1, 0)  # copied, not sent
    assert store.query_one("SELECT count(*) FROM judge_outputs WHERE error IS NULL") == 2 * (N - 1)
    expected = statistics.median(len(a) // 4 for a in served)
    assert measured_output_tokens(store, "crimson") == (N - 1, expected)  # each answer once

    ids = _ids(store)
    capped = plan_run(store, "d", PLAN_MODEL, ids, "crimson", GenParams(max_tokens=100))
    assert capped.output_each == 100 and capped.output_source == f"median of {N - 1} stored answers of other " \
                                                                 "models, capped at max_tokens"
    given = plan_run(store, "d", PLAN_MODEL, ids, "crimson", completion_tokens=123)
    assert (given.output_each, given.output_source) == (123, "given")


def test_the_plans_own_model_comes_first_and_answers_cut_off_at_their_budget_are_left_out(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", N)
    ids = _ids(store)
    served_a: list[str] = []
    served_b: list[str] = []
    longer = "x" * 8000  # model B answers 2,000 tokens more than model A
    with FakeOpenAI(answer=_padded_answers(served_a)) as server:
        tokens_a = sorted(len(json.dumps(PARTIAL) + " " * pad) // 4 for pad in PADS)
        budget = tokens_a[3]  # pairs 3 and 4 reach the budget: cut off, so not a measure of the answer's length
        run_a = run_llm_judge(store, dataset="d", model=RUN_MODEL, prompt_id="crimson", api_base=server.url,
                              params=GenParams(max_tokens=budget))
    other = "openai/fake-judge-b"
    with FakeOpenAI(answer=lambda messages: served_b.append(json.dumps(PARTIAL) + longer) or served_b[-1]) as server:
        run_b = run_llm_judge(store, dataset="d", model=other, prompt_id="crimson", api_base=server.url,
                              params=GenParams(max_tokens=4000))
    assert (run_a.ok, run_b.ok, len(served_a), len(served_b)) == (N, N, N, N)
    assert sorted(len(a) // 4 for a in served_a) == tokens_a  # what the server reported
    kept_a = [t for t in tokens_a if t < budget]
    tokens_b = [len(a) // 4 for a in served_b]
    assert len(kept_a) == 3 and max(tokens_b) < 4000
    assert measured_output_tokens(store, "crimson", RUN_MODEL) == (3, statistics.median(kept_a))
    assert measured_output_tokens(store, "crimson", other) == (N, statistics.median(tokens_b))
    assert measured_output_tokens(store, "crimson") == (3 + N, statistics.median(kept_a + tokens_b))

    own = plan_run(store, "d", RUN_MODEL, ids, "crimson", GenParams(max_tokens=4000))
    assert own.to_send == N  # another budget: other cache keys, nothing cached
    assert (own.output_each, own.output_source) == (round(statistics.median(kept_a)),
                                                    "median of 3 stored answers of this model")
    fallback = plan_run(store, "d", "openai/fake-judge-c", ids, "crimson", GenParams(max_tokens=4000))
    assert (fallback.output_each, fallback.output_source) == (round(statistics.median(kept_a + tokens_b)),
                                                              f"median of {3 + N} stored answers of other models")
    assert own.output_each < fallback.output_each  # model B's longer answers weigh only on other models' plans


def test_each_prompt_family_has_its_assumption():
    assert {assumed_output_tokens(p) for p in ("crimson", "crimson_nocontext", "crimson_noguide",
                                               "crimson_noguide_nocontext")} == {CRIMSON_ASSUMED_OUTPUT}
    assert {assumed_output_tokens(p) for p in ("green", "green_original", "vert", "vert_random", "formula",
                                               "rubric")} == {GREEN_ASSUMED_OUTPUT}
    assert assumed_output_tokens("fineradscore") < assumed_output_tokens("radfact") < CRIMSON_ASSUMED_OUTPUT
