"""A CRIMSON run's plan and output budget: the cost estimate and the cache count render each pair's patient
context as the run does, and a CRIMSON prompt asks for 8,192 output tokens unless the user sets a budget,
while every other prompt keeps 2,048 (so their cache keys and run ids are unchanged)."""

from __future__ import annotations

import json

from core.cli.main import main
from core.jobs.spec import Task
from core.judges.llm import GenParams, run_llm_judge
from core.judges.runs import load_pairs
from core.models import count_cached, estimate_prompt_tokens, plan_run
from core.prompts import render_messages
from core.reads.context import context_dict
from core.taxonomy import CONTEXT_FIELDS
from tests.fake_openai import FakeOpenAI
from tests.judges.test_crimson_run import SHAPES

MODEL = "openai/fake-judge"
N = 6


def _ids(store, n=N) -> list[str]:
    return load_pairs(store, "demo", limit=n)["pair_id"].tolist()


def _blank_context(store, ids) -> None:
    store.execute(f"UPDATE pairs SET {', '.join(f'{f} = NULL' for f in CONTEXT_FIELDS)} "
                  "WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))", [ids])


def test_the_crimson_estimate_grows_with_the_pairs_context(demo_store_copy):
    store = demo_store_copy
    ids = _ids(store)
    pairs = load_pairs(store, "demo", ids)
    assert all(context_dict(r) for r in pairs.itertuples(index=False))  # the demo's pairs carry context
    with_context = plan_run(store, "demo", MODEL, ids, "crimson")
    green_before = plan_run(store, "demo", MODEL, ids, "green")
    nocontext_before = plan_run(store, "demo", MODEL, ids, "crimson_nocontext")
    # the estimate is that of the messages the run sends, context block included
    sent = sum(estimate_prompt_tokens(render_messages("crimson", r.reference, r.candidate, context=context_dict(r)))
               for r in pairs.itertuples(index=False))
    assert with_context.prompt_tokens == sent
    _blank_context(store, ids)
    without = plan_run(store, "demo", MODEL, ids, "crimson")
    assert with_context.prompt_tokens > without.prompt_tokens
    # the context adds its block and the context guidelines to every pair's prompt
    assert (with_context.prompt_tokens - without.prompt_tokens) / N > 100
    assert plan_run(store, "demo", MODEL, ids, "green").prompt_tokens == green_before.prompt_tokens  # GREEN ignores it
    assert plan_run(store, "demo", MODEL, ids, "crimson_nocontext").prompt_tokens == nocontext_before.prompt_tokens


def test_the_cache_count_of_a_crimson_run_finds_its_answers(demo_store_copy):
    """count_cached renders with the context too: after a CRIMSON run every pair is a hit (without the context
    the keys would differ and the plan would offer to pay for them again)."""
    store = demo_store_copy
    ids = _ids(store)
    with FakeOpenAI(answer=lambda messages: SHAPES["partial"][0]) as server:
        summary = run_llm_judge(store, dataset="demo", model=MODEL, prompt_id="crimson", pair_ids=ids,
                                api_base=server.url)  # no params: CRIMSON's defaults
        assert {p["max_tokens"] for p in server.seen_params} == {8192}
    assert summary.ok == N
    params = json.loads(store.query_one("SELECT params FROM judge_runs WHERE run_id = ?", [summary.run_id]))
    assert params["max_tokens"] == 8192
    assert count_cached(store, "demo", MODEL, "crimson", ids) == N  # default params: CRIMSON's 8,192 tokens
    plan = plan_run(store, "demo", MODEL, ids, "crimson")
    assert (plan.cached, plan.to_send, plan.cost_usd) == (N, 0, 0.0)
    assert count_cached(store, "demo", MODEL, "crimson", ids, GenParams(max_tokens=2048)) == 0  # another budget


def test_task_params_default_to_the_prompts_budget():
    assert Task(MODEL, "crimson").params().max_tokens == 8192
    assert Task(MODEL, "crimson_noguide_nocontext").params().max_tokens == 8192
    assert Task(MODEL, "crimson", max_tokens=1000).params().max_tokens == 1000  # the user's own budget wins
    assert Task(MODEL, "green").params() == GenParams()  # unchanged: 2,048
    assert Task(MODEL).params().max_tokens == 2048
    assert Task(MODEL, "vert").params().max_tokens == 2048
    assert Task("rules").params() is None
    assert Task(MODEL, "crimson").columns()["max tokens"] == 8192


def test_judge_asks_crimson_for_8192_tokens_and_keeps_green_at_2048(demo_store_copy, capsys):
    store = demo_store_copy
    # --stop '': no stop sequences, as before a loopback server got a local server's (this test is about budgets)
    base = ["--store", str(store.path), "judge", "--dataset", "demo", "--judge", MODEL, "--limit", "3", "--json",
            "--allow-failures", "--stop", ""]
    with FakeOpenAI(answer=lambda m: SHAPES["perfect"][0] if m[0]["role"] == "system" else None) as server:
        # a GREEN run made before this change (explicit 2,048) is the same run, answered from its own cache
        old = run_llm_judge(store, dataset="demo", model=MODEL, prompt_id="green", limit=3, api_base=server.url,
                            params=GenParams(temperature=0.0, max_tokens=2048))
        sent = server.requests
        assert main([*base, "--api-base", server.url]) == 0
        green = json.loads(capsys.readouterr().out)
        assert server.requests == sent and green["run_id"] == old.run_id
        assert main([*base, "--prompt", "crimson", "--api-base", server.url]) == 0
        crimson = json.loads(capsys.readouterr().out)
        budgets = [p["max_tokens"] for p in server.seen_params[sent:]]
        assert main([*base, "--prompt", "crimson", "--max-tokens", "4096", "--api-base", server.url]) == 0
        own = json.loads(capsys.readouterr().out)
        assert [p["max_tokens"] for p in server.seen_params[sent + 3:]] == [4096] * 3
    assert budgets == [8192] * 3
    params = json.loads(store.query_one("SELECT params FROM judge_runs WHERE run_id = ?", [crimson["run_id"]]))
    assert params["max_tokens"] == 8192
    assert own["run_id"] != crimson["run_id"]  # another budget is another run


def test_score_asks_crimson_for_8192_tokens(capsys):
    with FakeOpenAI(answer=lambda m: SHAPES["partial"][0]) as server:
        args = ["score", "--reference", "Left effusion.", "--candidate", "Right effusion.", "--judge", MODEL,
                "--api-base", server.url, "--json"]
        assert main([*args, "--prompt", "crimson"]) == 0
        assert main([*args, "--prompt", "green"]) in (0, 1)
        capsys.readouterr()
        assert [p["max_tokens"] for p in server.seen_params] == [8192, 2048]
