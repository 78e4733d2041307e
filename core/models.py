"""Which language models the dashboard may run, and what a planned run would cost.

Models come from configuration, never from the store:

| setting (environment, or a root-level Streamlit secret) | meaning |
| --- | --- |
| RADCONCORD_MODELS | comma-separated litellm model names, e.g. ``openai/gpt-4o-mini,anthropic/claude-3-5-haiku-20241022``; an entry ``name=URL`` gives that model its own OpenAI-compatible endpoint |
| RADCONCORD_API_BASE | endpoint of an OpenAI-compatible server (vLLM, Ollama, llama.cpp), used by the OpenAI-style entries that name no URL of their own |
| RADCONCORD_LOCAL_ONLY | "true": only loopback/private endpoints may receive report text |
| OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, ... | provider keys, sent only to the provider's own API: only their *presence* is reported here |
| ``[endpoint_keys]`` (secrets table) | ``"URL" = "key"``: the key for one custom endpoint; a custom endpoint gets no other key |

The environment wins over secrets for the same name. Nothing here returns a
key's value except :func:`secret_api_key`, which hands a key from Streamlit
secrets to a run (``api_key=``); it is never stored, shown or logged.

The page passes ``st.secrets`` in as a plain dict: this module never imports
streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from core.judges import OFFLINE_JUDGES
from core.judges.endpoints import environment_key_allowed, is_private_endpoint, safe_api_base
from core.judges.generate import GenerateConfig as GenParams
from core.judges.messages import default_params
from core.judges.plan import RunPlan as WorkPlan
from core.judges.plan import RunRequest, plan
from core.judges.runs import answered_keys
from core.judges.shots import ShotSource
from core.settings import (
    API_BASE_VAR,
    LOCAL_ONLY_VAR,
    MODELS_VAR,
    apply_offline_defaults,
    environ,
    lookup,
    merged,
)
from core.store.db import Store

__all__ = ["MODELS_VAR", "API_BASE_VAR", "LOCAL_ONLY_VAR", "PROVIDER_KEYS", "ModelConfig", "RunPlan",
           "assumed_output_tokens", "configured_models", "count_cached", "estimate_cost", "estimate_prompt_tokens",
           "measured_output_tokens", "plan_run", "secret_api_key"]


# provider -> the environment variables that hold its credentials (any one suffices).
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "vertex_ai": ("GOOGLE_APPLICATION_CREDENTIALS", "VERTEXAI_PROJECT"),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
    "bedrock": ("AWS_ACCESS_KEY_ID", "AWS_PROFILE"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"),
    "openrouter": ("OPENROUTER_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "fireworks_ai": ("FIREWORKS_API_KEY",),
    "xai": ("XAI_API_KEY",),
}
# Servers that run on the user's own machine or network: no key needed.
LOCAL_PROVIDERS = {"ollama": "http://localhost:11434", "ollama_chat": "http://localhost:11434",
                   "hosted_vllm": None, "lm_studio": None, "llamafile": None, "openai_like": None}
# Providers whose requests an OpenAI-compatible server can answer (RADCONCORD_API_BASE applies to them).
OPENAI_COMPATIBLE = {"openai", "hosted_vllm", "lm_studio", "llamafile", "openai_like"}


@dataclass(frozen=True)
class ModelConfig:
    """One configured model. Holds no credential, only whether one is present."""

    name: str  # the litellm model name
    api_base: str | None  # endpoint without any user:password part
    provider: str
    local: bool  # the endpoint is loopback or private: report text stays on this machine/network
    needs_key: bool
    key_present: bool
    replicas: tuple[str, ...] = ()  # several RADCONCORD_API_BASE URLs: replicas of the model (core.judges.replicas)

    @property
    def usable(self) -> bool:
        return self.key_present or not self.needs_key

    @property
    def endpoint(self) -> str | list[str] | None:
        """What a run of this model is given: every replica when there are several, else its one endpoint."""
        return list(self.replicas) if self.replicas else self.api_base


def provider_of(model: str) -> str:
    """The litellm provider of a model name (``anthropic/claude-...`` -> ``anthropic``)."""
    if "/" in model:
        return model.split("/", 1)[0].lower()
    low = model.lower()
    if low.startswith(("gpt-", "o1", "o3", "o4", "chatgpt", "text-embedding")):
        return "openai"
    if low.startswith("claude"):
        return "anthropic"
    if low.startswith("gemini"):
        return "gemini"
    if low.startswith(("mistral", "mixtral", "codestral")):
        return "mistral"
    if low.startswith("command"):
        return "cohere"
    return "unknown"


def _parse_entries(text: str) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    for raw in text.split(","):
        entry = raw.strip()
        if not entry:
            continue
        name, _, url = entry.partition("=")
        name, url = name.strip(), url.strip() or None
        if name and name not in seen:
            seen.add(name)
            out.append((name, url))
    return out


@lru_cache(maxsize=64)
def _is_local(api_base: str) -> bool:
    # A DNS lookup per host, once per process: the page redraws often. This is
    # display only; every run checks its endpoint again (core.judges.llm.check_endpoint).
    return is_private_endpoint(api_base)


def configured_models(env: Mapping[str, str] | None = None, secrets: Mapping | None = None) -> list[ModelConfig]:
    """The models named by ``RADCONCORD_MODELS``, each with its endpoint and key status.

    ``env`` defaults to the process environment (core.settings); ``secrets`` is a plain dict (e.g. of
    ``st.secrets``). Key values are read only to test their presence.
    """
    from core.judges.replicas import endpoints

    settings = merged(env, secrets)
    listed = lookup(secrets or {}, API_BASE_VAR)  # a TOML list in the secrets: several replicas
    if isinstance(listed, list | tuple) and lookup(environ() if env is None else env, API_BASE_VAR) is None:
        settings[API_BASE_VAR] = " ".join(str(u) for u in listed)
    bases = endpoints(settings.get(API_BASE_VAR, ""))  # several URLs: replicas of one model
    default_base = bases[0] if bases else None
    models = []
    for name, url in _parse_entries(settings.get(MODELS_VAR, "")):
        provider = provider_of(name)
        api_base = url or (default_base if provider in OPENAI_COMPATIBLE else None)
        if api_base is None and provider in LOCAL_PROVIDERS:
            api_base = LOCAL_PROVIDERS[provider]
        replicas = tuple(safe_api_base(u) for u in bases) if len(bases) > 1 and api_base == default_base else ()
        local = all(_is_local(u) for u in (replicas or [api_base])) if api_base else False
        key_names = PROVIDER_KEYS.get(provider, ())
        own = environment_key_allowed(provider, api_base)  # the provider's own API: its key may go there
        key_present = (any(settings.get(k, "").strip() for k in key_names) if own else
                       bool(_endpoint_key(secrets, safe_api_base(api_base))))
        # An OpenAI-style entry pointed at a local/private server needs no real key; any other
        # endpoint gets only a key named for it ([endpoint_keys]), so we cannot tell if it needs one.
        needs_key = bool(key_names) and own and not (local and provider in OPENAI_COMPATIBLE)
        if provider == "unknown":
            needs_key = False  # litellm will say what it wants; nothing to check here
        models.append(ModelConfig(name=name, api_base=safe_api_base(api_base), provider=provider, local=local,
                                  needs_key=needs_key, key_present=key_present, replicas=replicas))
    return models


def _endpoint_key(secrets: Mapping | None, api_base: str | None) -> str | None:
    """The key named for one endpoint in secrets: ``[endpoint_keys]`` ``"URL" = "key"``."""
    table = (secrets or {}).get("endpoint_keys")
    value = table.get(api_base) if api_base and isinstance(table, Mapping) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def secret_api_key(model: ModelConfig, secrets: Mapping | None) -> str | None:
    """The key for ``model`` from Streamlit secrets (None: litellm reads the environment, or for a custom
    endpoint the gateway sends none).

    A custom endpoint (not the provider's own API) gets only the key named for it in
    ``[endpoint_keys]``; the provider keys go to the provider's own endpoint only. Passed to a run as
    ``api_key=``; never stored, shown or logged.
    """
    if not environment_key_allowed(model.provider, model.api_base):
        return _endpoint_key(secrets, model.api_base)
    for k in PROVIDER_KEYS.get(model.provider, ()):
        value = (secrets or {}).get(k)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


# -- cost and cache -----------------------------------------------------------------


def estimate_cost(model: str, n_calls: int, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for ``n_calls`` calls of ``prompt_tokens`` in / ``completion_tokens`` out each.

    From litellm's bundled price table (``litellm.cost_per_token``); None when
    the model is not in it (unknown is reported as unknown, never guessed).
    Offline judges cost 0.
    """
    if model in OFFLINE_JUDGES or n_calls <= 0:
        return 0.0
    if _unpriced_openai_compatible(model):
        return None  # what litellm answers for it, without its import (seconds)
    apply_offline_defaults()
    import litellm  # late: slow to import, and only after the offline defaults

    try:
        p_cost, c_cost = litellm.cost_per_token(model=model, prompt_tokens=int(prompt_tokens),
                                                completion_tokens=int(completion_tokens))
    except Exception:  # litellm raises (various classes) for models missing from its table
        return None
    if p_cost is None or c_cost is None:
        return None
    return float(n_calls) * (float(p_cost) + float(c_cost))


def _unpriced_openai_compatible(model: str) -> bool:
    """``openai/NAME`` missing from litellm's bundled price map (read as JSON, core.judges.direct): litellm's
    ``cost_per_token`` raises for it, so its price is unknown."""
    from core.judges.direct import PREFIX, price_map

    prices = price_map()
    return bool(prices) and model.startswith(PREFIX) and model not in prices and model[len(PREFIX):] not in prices


def estimate_prompt_tokens(messages: list[dict]) -> int:
    """Rough token count of chat messages (about 4 characters a token, plus framing)."""
    chars = sum(len(str(m.get("content", ""))) for m in messages)
    return chars // 4 + 4 * len(messages) + 3


def _effective_prompt(prompt_id: str, shots: ShotSource | None) -> str:
    from core.prompts.specs import prompt_spec

    spec = prompt_spec(prompt_id)
    return spec.with_shots if shots is not None and spec is not None and spec.with_shots else prompt_id


def _planned(store: Store, dataset: str, model: str, prompt_id: str, pair_ids: list[str] | None,
             params: GenParams | None, shots: ShotSource | None) -> WorkPlan:
    """The run's own plan (core.judges.plan): the messages it would send, one per pair, and their cache keys,
    rendered as the run renders them (each pair's patient context, which CRIMSON's prompts read)."""
    return plan(store, RunRequest(dataset, model, prompt_id, pair_ids, config=params, shots=shots))


def _offline_done(store: Store, dataset: str, judge: str, pair_ids: list[str] | None) -> int:
    from core.judges import offline_module

    spec = offline_module(judge).spec_for(dataset)
    sql = "SELECT count(*) FROM judge_outputs WHERE run_id = ? AND error IS NULL"
    params: list = [spec.run_id()]
    if pair_ids is not None:
        sql += " AND pair_id IN (SELECT unnest(?::VARCHAR[]))"
        params.append(list(pair_ids))
    return int(store.query_one(sql, params))


def count_cached(store: Store, dataset: str, model: str, prompt_id: str, pair_ids: list[str] | None,
                 params: GenParams | None = None, shots: ShotSource | None = None) -> int:
    """How many of these calls would be answered from the store instead of sent.

    For a model: messages are rendered as the runner renders them and their
    cache keys looked up among successful stored answers (any run). For the
    offline judges (``rules``, ``lexical``): the pairs already answered in
    their deterministic run. ``pair_ids=None`` means the whole dataset.
    """
    if model in OFFLINE_JUDGES:
        return _offline_done(store, dataset, model, pair_ids)
    keys = _planned(store, dataset, model, prompt_id, pair_ids, params, shots).keys
    hits = answered_keys(store, keys)
    return sum(1 for k in keys if k in hits)


def assumed_output_tokens(prompt_id: str) -> int:
    """Output tokens per answer a plan assumes for ``prompt_id`` when no stored answer can be measured: its
    row's ``assumed_output`` (core.prompts.specs says where each figure comes from; bench/output_tokens.py
    prints the worked answers and their counts); GREEN's 350 for an id the table lacks."""
    from core.prompts.specs import PromptSpec, prompt_spec

    spec = prompt_spec(prompt_id)
    return (spec or PromptSpec("", "")).assumed_output


def measured_output_tokens(store: Store, prompt_id: str, model: str | None = None) -> tuple[int, float | None]:
    """``(n, median)`` of the output tokens of the stored answers of ``prompt_id`` (any dataset).

    ``model``: only the answers of runs of that model (``judge_runs.model``); None: any model. Successful
    answers with a recorded ``tokens_out`` only (a cache copy records none: no call was made), one answer per
    cache key, and none cut off at its run's budget (``tokens_out`` at least the ``max_tokens`` recorded in the
    run's params: a truncated answer says nothing of the answer's length). ``(0, None)`` when there is none.
    """
    same_model = "AND r.model = ?" if model is not None else ""
    row = store.query_df(
        "SELECT count(*) AS n, median(t) AS med FROM (SELECT coalesce(o.cache_key, o.run_id || '/' || o.pair_id) "
        "AS k, any_value(o.tokens_out) AS t FROM judge_outputs o JOIN judge_runs r USING (run_id) "
        f"WHERE r.prompt_id = ? {same_model} AND o.error IS NULL AND o.tokens_out IS NOT NULL "
        "AND o.tokens_out < coalesce(CASE WHEN json_valid(r.params) THEN TRY_CAST(json_extract_string(r.params, "
        "'$.max_tokens') AS INTEGER) END, o.tokens_out + 1) GROUP BY k)",
        [prompt_id] + ([model] if model is not None else []))
    n = int(row["n"].iloc[0])
    return n, (float(row["med"].iloc[0]) if n else None)


def _output_each(store: Store, prompt_id: str, model: str, max_tokens: int,
                 given: int | None) -> tuple[int, str]:
    """Output tokens per answer for a plan, and where the figure comes from: ``given``, else the stored answers
    of ``model``, else those of any other model, else the prompt's assumption."""
    if given is not None:
        each, source = int(given), "given"
    else:
        whose = "this model"
        n, median = measured_output_tokens(store, prompt_id, model)
        if not n:  # none of this model: any model's answers are other models'
            whose = "other models"
            n, median = measured_output_tokens(store, prompt_id)
        each, source = ((round(median), f"median of {n:,} stored answer{'s' if n != 1 else ''} of {whose}") if n
                        else (assumed_output_tokens(prompt_id), "assumed: no stored answer of this prompt to measure"))
    if each > max_tokens:
        each, source = max_tokens, f"{source}, capped at max_tokens"
    return each, source


@dataclass(frozen=True)
class RunPlan:
    """What starting one judge x prompt x params run would do."""

    judge: str
    prompt_id: str | None
    params: GenParams | None
    n_calls: int
    cached: int
    prompt_tokens: int  # total over the calls still to send (estimate)
    completion_tokens: int  # total output over the calls still to send: output_each per call
    cost_usd: float | None  # None: price unknown
    output_each: int = 0  # output tokens per call in the estimate
    output_source: str = ""  # where output_each comes from: "median of N stored answers of this model" (or "of
    # other models"), "assumed: ...", "given"

    @property
    def to_send(self) -> int:
        return self.n_calls - self.cached

    @property
    def output_note(self) -> str:
        """``output_each`` and its source in a few words, e.g. "550 (assumed: ...)"; "" for an offline judge."""
        return f"{self.output_each:,} ({self.output_source})" if self.output_source else ""


def plan_run(store: Store, dataset: str, judge: str, pair_ids: list[str], prompt_id: str = "green",
             params: GenParams | None = None, shots: ShotSource | None = None,
             completion_tokens: int | None = None) -> RunPlan:
    """Calls, cache hits and estimated cost of one run before it starts.

    The cost counts only the calls not in the cache. Output tokens per call: ``completion_tokens`` when
    given, else the median of the stored answers of the same prompt by the same model, else by any other model
    (:func:`measured_output_tokens`: answers cut off at their run's ``max_tokens`` left out), else the prompt's
    assumption (:func:`assumed_output_tokens`); never more than ``params.max_tokens``. The
    plan says which (``output_source``). The prompts are rendered with each pair's patient context, as the
    run renders them. Without ``params``: the prompt's defaults.
    """
    n = len(pair_ids)
    if judge in OFFLINE_JUDGES:
        cached = _offline_done(store, dataset, judge, pair_ids) if n else 0
        return RunPlan(judge, None, None, n, cached, 0, 0, 0.0)
    work_plan = _planned(store, dataset, judge, prompt_id, pair_ids, params, shots) if n else None
    params = work_plan.config if work_plan else default_params(prompt_id, params)
    work = work_plan.work if work_plan else []
    hits = answered_keys(store, [w.key for w in work])
    todo = [w.messages for w in work if w.key not in hits]
    p_tokens = sum(estimate_prompt_tokens(m) for m in todo)
    effective = work_plan.prompt_id if work_plan else _effective_prompt(prompt_id, shots)
    out_each, source = _output_each(store, effective, judge, int(params.max_tokens), completion_tokens)
    cost = 0.0
    if todo:
        avg_in = p_tokens // len(todo)
        cost = estimate_cost(judge, len(todo), avg_in, out_each)
    return RunPlan(judge, effective, params, n, n - len(todo), p_tokens, out_each * len(todo), cost, out_each, source)
