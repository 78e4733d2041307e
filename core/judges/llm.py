"""The one gateway to language models: a run is planned, then sent, cached, concurrent, resumable.

Every model run goes through :func:`run_llm_judge`, a small pipeline of leaf modules:

- :mod:`.plan`: ``plan(store, request) -> RunPlan``: the run's identity and one named ``WorkItem`` per pair
  (messages and cache key = hash(model, fully rendered messages, generation settings,
  :mod:`.generate`)); a pair whose key is stored with a successful answer (in any run) is never sent again;
- :mod:`.execute`: journal replayed, answered pairs skipped, keys leased (:mod:`.leases`: a second run
  sending the same prompts at the same time stops with :class:`~core.judges.leases.RunBusy`), cached
  answers copied, the rest handed to a sender;
- :mod:`.sending`: the one sending contract; :mod:`.calls` (``concurrency`` calls in flight, one per
  distinct prompt, through a :mod:`.caller` or, over several endpoints, :mod:`.replicas`) and :mod:`.batch`
  (a provider's batch API) implement it;
- :mod:`.caller` and :mod:`.retry`: per-call timeout; retries with exponential backoff and jitter on 429,
  5xx, timeouts and dropped connections, honouring ``Retry-After``; any other provider error is recorded on
  its pair and the run goes on;
- :mod:`.recorder`: every answer is appended to the run's journal (:mod:`.journal`, fsynced) the moment it
  arrives, then committed to the store in small batches; a re-run resumes (the run id is a hash of dataset,
  model, prompt and params); a store or journal write that fails stops the run at once: no request (nor
  retry) starts after the failure is seen, calls in flight finish and are journaled; a cancel does the same
  (in-flight calls get ``CANCEL_GRACE`` seconds to answer);
- keys come from the environment (or the caller, e.g. Streamlit secrets) and are never stored, logged or put
  in error text (:mod:`.endpoints` ``redact``).

The names the rest of the code imports from here (``GenParams``, ``Caller``, ``RunSummary``, ...) are the leaf
modules', re-exported.
"""

from __future__ import annotations

import threading

from core.judges.caller import (  # noqa: F401  (the gateway's names, kept importable from here)
    NOT_SENT,
    Caller,
    ModelNotUsable,
    check_model,
    litellm_module,
    preload_litellm,
)
from core.judges.endpoints import (  # noqa: F401
    NO_KEY,
    PROVIDER_HOSTS,
    EndpointRefused,
    check_endpoint,
    environment_key_allowed,
    is_private_endpoint,
    redact,
    safe_api_base,
)
from core.judges.execute import execute_plan, open_run, run_on_gateway_loop  # noqa: F401
from core.judges.generate import REASONING_EFFORTS, GenerateConfig, GenParams, cache_key  # noqa: F401
from core.judges.plan import RunPlan, RunRequest, WorkItem, plan  # noqa: F401
from core.judges.retry import MAX_BACKOFF, RETRYABLE_STATUS, retryable  # noqa: F401
from core.judges.sending import CANCEL_GRACE  # noqa: F401
from core.judges.shots import ShotSource
from core.judges.summary import Progress, RunSummary
from core.settings import local_only as local_only_setting
from core.store.db import Store


def run_llm_judge(store: Store, *, dataset: str, model: str, prompt_id: str = "green",
                  pair_ids: list[str] | None = None, limit: int | None = None, api_base: str | None = None,
                  api_key: str | None = None, concurrency: int = 8, timeout: float = 120.0,
                  max_retries: int = 4, backoff: float = 0.5, params: GenerateConfig | None = None,
                  progress: Progress | None = None, cancel: threading.Event | None = None,
                  local_only: bool | None = None, flush_interval: float = 0.5, batch: dict | None = None,
                  shots: ShotSource | None = None, crimson_map: str | None = None) -> RunSummary:
    """Run an LLM judge over a dataset's pairs; see the module docstring.

    ``shots`` (few-shot prompts ``vert_random``, ``vert_rad_err``, ...; or
    ``vert`` with shots = D.5) says where examples are drawn from, with k and
    the seed; the shots used are recorded in the run's params. Each pair's patient
    context goes to context-aware prompts (``core.prompts.CONTEXT_PROMPTS``);
    ``crimson_map`` (CRIMSON prompts) overrides the ReXVal category map, recorded in the params.
    ``batch``: the batch options (:class:`core.judges.batch.BatchOptions`) to send through a batch API.
    """
    from core.judges import batch as batches
    from core.judges import replicas as replica_mod
    from core.judges.runs import answered_keys

    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    local_only = local_only_setting() if local_only is None else local_only
    api_base, replicas = replica_mod.split_endpoints(model, api_base, local_only)  # several: core.judges.replicas
    the_plan = plan(store, RunRequest(dataset, model, prompt_id, pair_ids, limit, params, shots, crimson_map,
                                      api_base))
    # a name litellm cannot route fails here, before the run exists; unless the store answers every prompt
    # already: then nothing is sent, and litellm (over a second to import) is not needed
    keys = the_plan.keys
    if set(keys) - answered_keys(store, keys):
        check_model(model, api_base)
    summary = open_run(store, the_plan)
    caller = replica_mod.caller_for(model, the_plan.config, api_base, replicas, api_key, timeout, max_retries,
                                    backoff, summary)
    sender = None if batch is None else batches.BatchSender(batch, model, api_base)
    return execute_plan(store, the_plan, caller, concurrency=concurrency, summary=summary, progress=progress,
                        cancel=cancel, flush_interval=flush_interval, sender=sender)
