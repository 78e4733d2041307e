"""core.models: configured models (no key values ever), local_only classification, cost, cache hits."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from core.judges import run_judge
from core.judges.llm import GenParams, run_llm_judge
from core.models import (
    configured_models,
    count_cached,
    estimate_cost,
    plan_run,
    provider_of,
    secret_api_key,
)
from core.settings import local_only
from core.store.db import Store
from tests.fake_openai import FakeOpenAI

OPENAI_KEY = "sk-" + "test-openai-0123456789abcdef"  # fake; no key-shaped literal tracked
ANTHROPIC_KEY = "anthropic-secret-value-987654"


def _by_name(models):
    return {m.name: m for m in models}


def test_models_come_from_env_and_secrets_without_key_values():
    env = {"RADCONCORD_MODELS": "openai/gpt-4o-mini, anthropic/claude-3-5-haiku-20241022,gemini/gemini-1.5-flash,"
                              "openai/gpt-4o-mini",  # duplicate: listed once
           "OPENAI_API_KEY": OPENAI_KEY}
    secrets = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "nested": {"OPENAI_API_KEY": "ignored"}}
    models = configured_models(env, secrets)
    assert [m.name for m in models] == ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-20241022",
                                        "gemini/gemini-1.5-flash"]
    m = _by_name(models)
    assert (m["openai/gpt-4o-mini"].provider, m["openai/gpt-4o-mini"].key_present) == ("openai", True)
    assert m["anthropic/claude-3-5-haiku-20241022"].key_present  # from secrets
    gemini = m["gemini/gemini-1.5-flash"]
    assert gemini.needs_key and not gemini.key_present and not gemini.usable
    dumped = repr(models) + json.dumps([asdict(x) for x in models])
    assert OPENAI_KEY not in dumped and ANTHROPIC_KEY not in dumped
    # the one way a key leaves: handed to a run, from secrets only (env keys litellm reads itself)
    assert secret_api_key(m["anthropic/claude-3-5-haiku-20241022"], secrets) == ANTHROPIC_KEY
    assert secret_api_key(m["openai/gpt-4o-mini"], secrets) is None


def test_no_models_configured_is_an_empty_list():
    assert configured_models({}, None) == []
    assert configured_models({"RADCONCORD_MODELS": " , "}, {}) == []


def test_api_base_applies_to_openai_compatible_models_and_loses_credentials():
    env = {"RADCONCORD_MODELS": "openai/local-model,anthropic/claude-3-5-haiku-20241022,"
                              "hosted_vllm/qwen=http://10.1.2.3:8000/v1",
           "RADCONCORD_API_BASE": "http://user:pa55word@127.0.0.1:8000/v1"}
    m = _by_name(configured_models(env))
    local = m["openai/local-model"]
    assert local.api_base == "http://127.0.0.1:8000/v1"  # user:password never returned
    assert local.local and not local.needs_key and local.usable
    assert m["anthropic/claude-3-5-haiku-20241022"].api_base is None  # not OpenAI-compatible
    assert m["hosted_vllm/qwen"].api_base == "http://10.1.2.3:8000/v1" and m["hosted_vllm/qwen"].local
    assert "pa55word" not in repr(list(m.values()))


@pytest.mark.parametrize(("entry", "base", "expected"), [
    ("openai/x", "http://127.0.0.1:9/v1", True),
    ("openai/x", "http://192.168.1.20:8000/v1", True),
    ("openai/x", "http://8.8.8.8/v1", False),  # a public address
    ("openai/gpt-4o-mini", None, False),  # the provider's public endpoint
    ("ollama/llama3", None, True),  # Ollama's default is localhost
])
def test_local_classification(entry, base, expected):
    env = {"RADCONCORD_MODELS": entry, **({"RADCONCORD_API_BASE": base} if base else {})}
    (model,) = configured_models(env)
    assert model.local is expected


def test_local_only_setting_from_env_or_secrets():
    assert local_only({"RADCONCORD_LOCAL_ONLY": "true"}) is True
    assert local_only({}, {"RADCONCORD_LOCAL_ONLY": "1"}) is True
    assert local_only({"RADCONCORD_LOCAL_ONLY": "no"}, {"RADCONCORD_LOCAL_ONLY": "true"}) is False  # env wins
    assert local_only({}, {}) is False


def test_provider_of_bare_names():
    assert provider_of("gpt-4o") == "openai"
    assert provider_of("claude-3-5-sonnet-20240620") == "anthropic"
    assert provider_of("bedrock/anthropic.claude-v2") == "bedrock"


def test_estimate_cost_known_unknown_and_offline():
    one = estimate_cost("gpt-4o-mini", 1, 1000, 400)
    ten = estimate_cost("gpt-4o-mini", 10, 1000, 400)
    assert one is not None and one > 0
    assert ten == pytest.approx(10 * one)
    assert estimate_cost("openai/fake-judge-not-priced", 3, 1000, 400) is None  # unknown, never guessed
    assert estimate_cost("rules", 100, 0, 0) == 0.0


def test_count_cached_matches_runner_cache(demo_store_copy: Store):
    store = demo_store_copy
    ids = store.query_df("SELECT pair_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id LIMIT 6")["pair_id"].tolist()
    params = GenParams(temperature=0.0, max_tokens=512)
    assert count_cached(store, "demo", "openai/fake-judge", "green", ids, params) == 0
    with FakeOpenAI() as server:
        run_llm_judge(store, dataset="demo", model="openai/fake-judge", prompt_id="green", pair_ids=ids[:4],
                      api_base=server.url, params=params)
    assert count_cached(store, "demo", "openai/fake-judge", "green", ids, params) == 4
    # anything in the cache key changes the answer: other params, prompt or model are misses
    assert count_cached(store, "demo", "openai/fake-judge", "green", ids, GenParams(temperature=0.5)) == 0
    assert count_cached(store, "demo", "openai/fake-judge", "vert", ids, params) == 0
    assert count_cached(store, "demo", "openai/other", "green", ids, params) == 0
    plan = plan_run(store, "demo", "openai/fake-judge", ids, "green", params)
    assert (plan.n_calls, plan.cached, plan.to_send) == (6, 4, 2)
    assert plan.cost_usd is None and plan.prompt_tokens > 0


def test_count_cached_for_offline_judges(demo_store_copy: Store):
    store = demo_store_copy
    ids = store.query_df("SELECT pair_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id LIMIT 10")["pair_id"].tolist()
    assert count_cached(store, "demo", "rules", "green", ids) == 0
    run_judge(store, dataset="demo", judge="rules", pair_ids=ids[:7])
    assert count_cached(store, "demo", "rules", "green", ids) == 7
    assert count_cached(store, "demo", "lexical", "green", ids) == 0
    assert plan_run(store, "demo", "rules", ids).cached == 7
