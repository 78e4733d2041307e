"""The one gateway to language models: litellm, cached, concurrent, resumable.

Every call goes through :func:`run_llm_judge`:

- cache key = hash(model, fully rendered messages, generation params); a pair
  whose key is stored with a successful answer (in any run) is never sent again;
- ``concurrency`` calls in flight (an asyncio semaphore around ``acompletion``);
- per-call timeout; retries with exponential backoff and jitter on 429, 5xx,
  timeouts and dropped connections, honouring ``Retry-After``; any other
  provider error is recorded on its pair and the run goes on;
- every answer is appended to the run's journal (:mod:`core.judges.journal`,
  fsynced) the moment it arrives, then committed to the store in small batches
  (every ``flush_interval`` seconds); a re-run resumes: the run id is a hash of
  (dataset, model, prompt, params), answers journaled by a dead process are
  stored without being sent, pairs with an answer are skipped, failures are
  retried;
- before sending, the run leases its prompts' cache keys
  (:mod:`core.judges.leases`): a second run sending the same prompts at the
  same time stops with :class:`~core.judges.leases.RunBusy` and sends nothing;
- a store or journal write that fails stops the run at once: no request (nor
  retry) starts after the failure is seen, calls in flight finish and are
  journaled; a cancel does the same (in-flight calls get ``CANCEL_GRACE``
  seconds to answer);
- keys come from the environment (or the caller, e.g. Streamlit secrets) and
  are never stored, logged or put in error text (:func:`redact`).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import NamedTuple

from core import settings
from core.judges import batchstore, direct, leases
from core.judges import journal as journal_mod
from core.judges.endpoints import (  # noqa: F401  (the gateway's names, kept importable from here)
    NO_KEY,
    PROVIDER_HOSTS,
    EndpointRefused,
    check_endpoint,
    environment_key_allowed,
    is_private_endpoint,
    redact,
    safe_api_base,
)
from core.judges.gcpause import import_frozen
from core.judges.messages import DEFAULT_MAX_TOKENS, default_params, pair_messages
from core.judges.patience import WriteClock, impatient, kept_message, one_line, overdue_message
from core.judges.runs import (
    OutputRecord,
    RunSpec,
    answered_keys,
    answered_pair_ids,
    copy_cached_outputs,
    crimson_map_param,
    ensure_run,
    finish_run,
    load_pairs,
    write_outputs,
)
from core.judges.shots import FEWSHOT_PROMPTS, ShotSource, build_shots
from core.settings import apply_offline_defaults
from core.settings import local_only as local_only_setting
from core.store.db import Store, stable_hash

REASONING_EFFORTS = ("none", "low", "medium", "high")
RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}
MAX_BACKOFF = 60.0
CANCEL_GRACE = 15.0  # seconds calls in flight get to answer after a cancel or a stop (they are paid for)
NOT_SENT = "not sent: the run stopped before this attempt"  # a call the caller gave up before sending


class WorkItem(NamedTuple):
    """One pair of a run, rendered: what is sent for it and the cache key its answer is stored under."""

    pair_id: str
    ext_id: str
    messages: list[dict]
    key: str


@dataclass(frozen=True)
class GenParams:
    """Generation parameters: they change the answer, so they are in the cache key."""

    temperature: float = 0.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    reasoning_effort: str | None = None
    stop: tuple[str, ...] = ()  # sent, and in the cache key, only when non-empty

    def __post_init__(self):
        object.__setattr__(self, "stop", tuple(self.stop or ()))
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(f"reasoning effort must be one of {', '.join(REASONING_EFFORTS)}")

    def as_dict(self) -> dict:
        # fields are scalars: no deep copy (dataclasses.asdict) needed; computed once per cache key
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) not in (None, ())}


@dataclass
class RunSummary:
    run_id: str
    requested: int
    cached: int = 0
    skipped: int = 0  # already answered in this run before
    sent: int = 0
    shared: int = 0  # pairs answered by the call of another pair of the run with the identical prompt (not sent)
    ok: int = 0
    failed: int = 0
    cost_usd: float | None = 0.0
    cost_known: bool = True
    seconds: float = 0.0
    status: str = "done"
    failed_total: int = 0  # failures recorded for the run, this invocation's and earlier ones
    unparsed_total: int = 0  # answers of the run (counted in ok) that could not be read as the prompt's format
    cost_total: float | None = None  # the whole run's cost so far (None: a price is unknown); cost_usd is this call's
    replayed: int = 0  # answers journaled by an earlier process, stored now without a call
    stored: int = 0  # answers of this invocation committed to the store
    journaled: int = 0  # answers of this invocation written to the journal
    lost: int = 0  # answers received that neither the journal nor the store could keep
    message: str = ""  # after a failed write: what was kept and how to resume
    replicas: list[dict] = field(default_factory=list)  # several endpoints: per replica calls, ok, latency
    failures: list[dict] = field(default_factory=list)

    def close(self, status: str, started: float) -> RunSummary:
        """Record the final ``status`` and the seconds since ``started`` (``time.monotonic()``); returns self."""
        self.status = status
        self.seconds = round(time.monotonic() - started, 3)
        return self

    def count(self, rec: OutputRecord, ext_id: str) -> None:
        """Count one answer (its cost; an unknown price makes the run's unknown) or one failure."""
        if rec.error is not None:
            self.failed += 1
            self.failures.append({"ext_id": ext_id, "error": rec.error})
        elif rec.cost_usd is None:
            self.ok, self.cost_known = self.ok + 1, False
        else:
            self.ok, self.cost_usd = self.ok + 1, (self.cost_usd or 0.0) + rec.cost_usd

    def to_json(self) -> dict:
        d = asdict(self)
        d["failures"] = self.failures[:50]
        if not self.cost_known:
            d["cost_usd"] = None  # unknown price: shown as unknown, never guessed
        return d


def cache_key(model: str, messages: list[dict], params: GenParams) -> str:
    payload = json.dumps({"model": model, "messages": messages, "params": params.as_dict()},
                         sort_keys=True, ensure_ascii=False)
    return stable_hash("llm-cache", payload, length=32)


# -- the calls ------------------------------------------------------------------

def _status_of(exc: Exception) -> int | None:
    code = getattr(exc, "status_code", None)
    try:
        return int(code) if code is not None else None
    except (TypeError, ValueError):
        return None


def retryable(exc: Exception) -> bool:
    name = type(exc).__name__
    if name in {"Timeout", "APIConnectionError", "RateLimitError", "InternalServerError",
                "ServiceUnavailableError", "BadGatewayError", "APITimeoutError"}:
        return True
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return _status_of(exc) in RETRYABLE_STATUS


def _retry_after(exc: Exception) -> float | None:
    headers = getattr(exc, "litellm_response_headers", None) or getattr(exc, "headers", None)
    if headers is None:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _short_error(exc: Exception, api_key: str | None) -> str:
    status = _status_of(exc)
    text = f"{type(exc).__name__}" + (f" ({status})" if status else "") + f": {exc}"
    text = re.sub(r"\s+", " ", text).strip()
    return redact(text, [api_key] if api_key else None)[:500]


# -- litellm, loaded once, early ---------------------------------------------------

_PRELOAD: threading.Thread | None = None
_PRELOAD_GUARD = threading.Lock()


def preload_litellm() -> None:
    """Start importing litellm in a background thread (seconds of start-up), once per process.

    Called where a model call is likely soon (a CLI judge run, the dashboard's start), so the
    import overlaps the store work instead of sitting inside the run; :func:`litellm_module`
    then waits only for what is left of it.
    """
    global _PRELOAD
    with _PRELOAD_GUARD:
        if _PRELOAD is None:
            _PRELOAD = threading.Thread(target=litellm_module, name="litellm-import", daemon=True)
            _PRELOAD.start()


def litellm_module():
    """litellm, imported after the offline defaults (no price-map download), quiet."""
    apply_offline_defaults()
    litellm = import_frozen("litellm")  # the first import with the collector paused (core.judges.gcpause)
    litellm.suppress_debug_info = True
    return litellm


class ModelNotUsable(ValueError):
    """litellm cannot tell which provider serves a model name: nothing is sent."""


def check_model(model: str, api_base: str | None = None) -> str:
    """The model's provider by litellm's own lookup; :class:`ModelNotUsable` with a hint otherwise.

    Run before anything is sent or stored, so a bare name such as ``my-local-model`` fails at
    once instead of being recorded as a failure on every pair.
    """
    if direct.route(model, api_base) is not None:  # openai/NAME on a custom endpoint: no import needed
        return "openai"
    try:
        return litellm_module().get_llm_provider(model=model, api_base=api_base)[1]
    except Exception:  # litellm raises BadRequestError ("LLM Provider NOT provided")
        name = model.split("/", 1)[-1] or model
        hint = (f"for an OpenAI-compatible server use openai/{name}" if api_base else
                f"prefix its provider, e.g. openai/{name}, anthropic/{name} or ollama/{name} "
                "(litellm's providers: https://docs.litellm.ai/docs/providers)")
        raise ModelNotUsable(f"model '{model}': litellm cannot tell which provider serves it, so nothing "
                             f"was sent; {hint}") from None


class Caller:
    """One model's calls through litellm: timeout, retries with backoff on transient errors, price and usage.

    :meth:`call` sends one message list and returns an ``OutputRecord`` (the
    answer, or the error with any key redacted); it never raises for a
    provider error.
    """

    def __init__(self, model: str, params: GenParams, api_base: str | None, api_key: str | None,
                 timeout: float, max_retries: int, backoff: float):
        self.model = model
        self.params = params
        self.api_base = api_base
        self.api_key = api_key
        if api_base and not api_key and not environment_key_allowed(check_model(model, api_base), api_base):
            self.api_key = NO_KEY  # an explicit key: litellm never reaches for the environment's
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self._price_unknown = False
        self._secret_list: list[str] | None = None
        self.halted: Callable[[], bool] = lambda: False  # set by the runner: no new attempt once True
        # one attempt: straight over HTTP where litellm would add only its import (core.judges.direct), else
        # litellm's (core.judges.replicas routes it over replicas)
        self.direct = direct.route(model, api_base, params.reasoning_effort) is not None
        self.complete = direct.complete if self.direct else self.litellm.acompletion

    @property
    def litellm(self):
        """litellm, imported on first use (never on the direct path)."""
        return litellm_module()

    def _secrets(self) -> list[str]:
        """The values cut out of answers, longest first: read from the environment once per caller (scanning
        it for every answer was the largest CPU cost per call after the HTTP client's)."""
        if self._secret_list is None:
            own = [self.api_key] if self.api_key and self.api_key != NO_KEY and len(self.api_key) >= 6 else []
            self._secret_list = sorted({*settings.secret_values(), *own}, key=len, reverse=True)
        return self._secret_list

    def _cost(self, resp) -> float | None:
        """litellm's price for the call; None (unknown) when the model is not in its price table."""
        hidden = getattr(resp, "_hidden_params", None) or {}
        cost = hidden.get("response_cost")
        if cost is None and not self._price_unknown and not self.direct:
            try:
                cost = self.litellm.completion_cost(completion_response=resp)
            except Exception:  # litellm raises for models missing from its price map
                self._price_unknown = True  # do not pay for that exception on every call
                cost = None
        return None if cost is None else float(cost)

    async def call(self, messages: list[dict]) -> OutputRecord:
        kwargs = dict(model=self.model, messages=messages, timeout=self.timeout, num_retries=0,
                      max_retries=0, temperature=self.params.temperature, max_tokens=self.params.max_tokens,
                      drop_params=True)
        if self.params.reasoning_effort is not None:
            kwargs["reasoning_effort"] = self.params.reasoning_effort
        if self.params.stop:
            kwargs["stop"] = list(self.params.stop)
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        attempt = 0
        start = time.monotonic()
        while True:
            if self.halted():
                return OutputRecord(pair_id="", error=NOT_SENT)
            t0 = time.monotonic()
            try:
                resp = await self.complete(**kwargs)
            except Exception as exc:  # provider errors come in many classes; classify below
                if attempt >= self.max_retries or not retryable(exc):
                    return OutputRecord(pair_id="", error=_short_error(exc, self.api_key),
                                        latency_ms=(time.monotonic() - start) * 1000)
                wait = _retry_after(exc)
                if wait is None:
                    wait = self.backoff * (2 ** attempt)
                wait = min(MAX_BACKOFF, wait) * (1 + 0.25 * random.random())
                attempt += 1
                await asyncio.sleep(wait)
                continue
            latency = (time.monotonic() - t0) * 1000
            choice = resp.choices[0]
            text = choice.message.content or ""
            # An endpoint may repeat a key inside its answer (issue 31, item 7): the key this caller sends and
            # every credential-named environment value are cut out before the text is stored or shown. Exact
            # values only: redact()'s key shapes would also eat words such as "risk-stratified".
            for secret in self._secrets():
                text = text.replace(secret, "[redacted]")
            usage = getattr(resp, "usage", None)
            cost = self._cost(resp)
            return OutputRecord(
                pair_id="", raw_text=text, latency_ms=latency,
                tokens_in=getattr(usage, "prompt_tokens", None), tokens_out=getattr(usage, "completion_tokens", None),
                cost_usd=cost)


Progress = Callable[[int, int, dict], None]


def run_llm_judge(store: Store, *, dataset: str, model: str, prompt_id: str = "green",
                  pair_ids: list[str] | None = None, limit: int | None = None, api_base: str | None = None,
                  api_key: str | None = None, concurrency: int = 8, timeout: float = 120.0,
                  max_retries: int = 4, backoff: float = 0.5, params: GenParams | None = None,
                  progress: Progress | None = None, cancel: threading.Event | None = None,
                  local_only: bool | None = None, flush_interval: float = 0.5, batch: dict | None = None,
                  shots: ShotSource | None = None, crimson_map: str | None = None) -> RunSummary:
    """Run an LLM judge over a dataset's pairs; see the module docstring.

    ``shots`` (few-shot prompts ``vert_random``, ``vert_rad_err``, ...; or
    ``vert`` with shots = D.5) says where examples are drawn from, with k and
    the seed; the shots used are recorded in the run's params. Each pair's patient
    context goes to context-aware prompts (``core.prompts.CONTEXT_PROMPTS``);
    ``crimson_map`` (CRIMSON prompts) overrides the ReXVal category map, recorded in the params.
    """
    from core.judges import batch as batches
    from core.judges import replicas as replica_mod
    from core.prompts import prompt_hash

    params = default_params(prompt_id, params)  # 8,192 for CRIMSON's prompts
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    local_only = local_only_setting() if local_only is None else local_only
    api_base, replicas = replica_mod.split_endpoints(model, api_base, local_only)  # several: core.judges.replicas
    pairs = load_pairs(store, dataset, pair_ids, limit)
    shot_list, run_params = None, params.as_dict()
    if prompt_id in FEWSHOT_PROMPTS or shots is not None:
        if shots is None:
            raise ValueError(f"'{prompt_id}' is a few-shot prompt: choose the dataset (and split) to draw shots from")
        if prompt_id == "vert":
            prompt_id = "vert_random"  # D.5: the VERT prompt with random shots
        shot_list, record = build_shots(store, prompt_id, shots, pairs, dataset)
        run_params["shots"] = record
    p_hash = prompt_hash(prompt_id)  # unknown prompt ids fail here, before any work
    if crimson_map_param(prompt_id, crimson_map):
        run_params["crimson_map"] = crimson_map_param(prompt_id, crimson_map)
    if api_base:
        run_params["api_base"] = safe_api_base(api_base)
    started = time.monotonic()
    work = []
    for row in pairs.itertuples(index=False):
        messages = pair_messages(prompt_id, row, shot_list)
        work.append(WorkItem(row.pair_id, row.ext_id, messages, cache_key(model, messages, params)))
    rendered = time.monotonic() - started  # the summary's seconds: rendering; execute_work adds the rest
    # a name litellm cannot route fails here, before the run exists; unless the store answers every prompt
    # already: then nothing is sent, and litellm (over a second to import) is not needed
    if {w.key for w in work} - answered_keys(store, [w.key for w in work]):
        check_model(model, api_base)
    spec = RunSpec("llm", model, dataset, model=model, prompt_id=prompt_id, prompt_hash=p_hash,
                   params=run_params)
    run_id = ensure_run(store, spec, len(pairs))
    summary = RunSummary(run_id=run_id, requested=len(pairs), seconds=rendered)
    caller = replica_mod.caller_for(model, params, api_base, replicas, api_key, timeout, max_retries, backoff,
                                    summary)
    send = None if batch is None else batches.batch_sender(batch, model, api_base, direct=_send_all)
    return execute_work(store, run_id, prompt_id, work, summary, caller, concurrency=concurrency,
                        progress=progress, cancel=cancel, flush_interval=flush_interval, send=send)


def execute_work(store: Store, run_id: str, prompt_id: str, work: list[WorkItem], summary: RunSummary,
                 make_caller: Callable[[], Caller], *, concurrency: int, progress: Progress | None = None,
                 cancel: threading.Event | None = None, flush_interval: float = 0.5, send=None) -> RunSummary:
    """The part every LLM-backed run shares, once its run exists and its work is rendered.

    ``work`` holds a :class:`WorkItem` ``(pair_id, ext_id, messages, key)`` per pair. Answers
    an earlier process journaled are stored first (no call); pairs already
    answered in this run are skipped; the rest are leased (:mod:`.leases`:
    :class:`~core.judges.leases.RunBusy` if another live run sends them now);
    pairs whose key is answered in any run reuse that answer (no call); the
    rest are sent through the caller ``make_caller()`` builds (only then: it
    imports litellm, seconds of start-up). Recorded failures are replaced when
    answered (by ``send`` if given, e.g. core.judges.batch). Closes the run and fills ``summary``;
    after a failed store write the status is ``failed`` and ``summary.message``
    says what was kept.
    """
    started = time.monotonic()
    work = [WorkItem(*w) for w in work]  # callers may pass plain 4-tuples
    summary.replayed = journal_mod.replay(store, run_id, prompt_id)
    # what the run held when we looked; every write re-checks inside its transaction (core.judges.runs)
    done_here = answered_pair_ids(store, run_id)
    todo = [w for w in work if w.pair_id not in done_here]
    summary.skipped = len(work) - len(todo)
    keys = list(dict.fromkeys(w.key for w in todo))
    leases.claim(store, keys, leases.current_job())  # before the cache is read: see leases.claim
    try:
        batchstore.refuse_if_open(store, keys, run_id if send else None)  # a stopped --batch job's open batches
        return _execute_leased(store, run_id, prompt_id, work, todo, summary, make_caller, started,
                               concurrency=concurrency, progress=progress, cancel=cancel,
                               flush_interval=flush_interval, send=send)
    finally:
        try:  # after a failed write, a short try: the leases die with this process anyway
            leases.release(store if summary.status != "failed" else impatient(store), keys)
        except Exception:
            pass


def _execute_leased(store, run_id, prompt_id, work, todo, summary: RunSummary, make_caller, started, *,
                    concurrency, progress, cancel, flush_interval, send=None) -> RunSummary:
    hits: dict[str, str] = {}
    if todo:
        cached = store.query_df(
            "SELECT cache_key, any_value(raw_text) AS raw_text FROM judge_outputs "
            "WHERE error IS NULL AND cache_key IN (SELECT unnest(?::VARCHAR[])) GROUP BY cache_key",
            [[w.key for w in todo]])
        hits = dict(zip(cached["cache_key"], cached["raw_text"], strict=True))
    if hits:  # answered by the same prompt elsewhere: copied with what was parsed from them
        copied = copy_cached_outputs(store, run_id, prompt_id, [(w.pair_id, w.key) for w in todo if w.key in hits])
        summary.cached += len(copied)
        todo = [w for w in todo if w.pair_id not in copied]  # the other hits are parsed again as this prompt's
    from_cache = [OutputRecord(pair_id=w.pair_id, cache_key=w.key, raw_text=hits[w.key], latency_ms=0.0, cost_usd=0.0)
                  for w in todo if w.key in hits]
    to_send = [w for w in todo if w.key not in hits]
    write_outputs(store, run_id, from_cache, prompt_id)
    summary.cached += len(from_cache)
    summary.ok += summary.skipped + summary.cached
    total = len(work)
    if progress:
        progress(summary.ok, total, _stats(summary))

    if to_send:
        ext_of = {w.pair_id: w.ext_id for w in to_send}
        journal = journal_mod.Journal(store, run_id)
        status, final = run_on_gateway_loop((send or _send_all)(
            store, run_id, prompt_id, make_caller(), to_send, concurrency, summary, total, progress, cancel,
            flush_interval, ext_of, journal))
        journal.close(committed=final is not None)
        if status == "failed":  # a write failed: the answers wait in the journal for the resume
            summary.message = kept_message(summary, journal)
    else:
        status = "done"
        final = finish_run(store, run_id, status)
    summary.status = status
    summary.seconds = round(summary.seconds + time.monotonic() - started, 3)
    if final is not None:
        summary.failed_total = final["failed_total"]
        summary.unparsed_total = final["unparsed_total"]
        summary.cost_total = final["cost_total"]
    return summary


_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_GUARD = threading.Lock()


def run_on_gateway_loop(coro):
    """Run ``coro`` on one long-lived event loop per process.

    litellm keeps its HTTP client sessions per event loop; a fresh loop per run
    (``asyncio.run``) would pay the client set-up every time.
    """
    global _LOOP
    with _LOOP_GUARD:
        if _LOOP is None or _LOOP.is_closed():
            _LOOP = asyncio.new_event_loop()
            threading.Thread(target=_LOOP.run_forever, name="llm-gateway", daemon=True).start()
    return asyncio.run_coroutine_threadsafe(coro, _LOOP).result()


def _stats(s: RunSummary) -> dict:
    return {"ok": s.ok, "failed": s.failed, "sent": s.sent, "cached": s.cached + s.skipped,
            "cost_usd": s.cost_usd if s.cost_known else None, "run_id": s.run_id}


async def _send_all(store, run_id, prompt_id, caller: Caller, to_send, concurrency, summary: RunSummary,
                    total, progress, cancel, flush_interval, ext_of, journal) -> tuple[str, dict | None]:
    """Send ``to_send``; returns (status, the run's totals), totals None when a write failed."""
    sem = asyncio.Semaphore(concurrency)
    pending: list[OutputRecord] = []
    lock = asyncio.Lock()
    finished = asyncio.Event()
    stop = threading.Event()  # a write failed: nothing more is sent
    clock = WriteClock(store.timeout)  # the store's patience, once for the whole run (core.judges.patience)

    def halted() -> bool:
        if not stop.is_set() and clock.overdue():
            fail("could not write the store", overdue_message(store, clock.patience))
        return stop.is_set() or (cancel is not None and cancel.is_set())

    caller.halted = halted

    def fail(what: str, exc: BaseException) -> None:
        if not stop.is_set():
            summary.message = f"{what}: {exc}"
        stop.set()

    in_flight = [0]

    async def one(pair_ids, messages, key):
        async with sem:
            if halted():
                return
            try:  # the answer's place in the journal (one record per pair of the prompt) is reserved before
                journal.make_room(in_flight[0] + len(pair_ids) - 1)  # the call is paid for
            except OSError as exc:
                fail("stopped before sending", exc)
                return
            in_flight[0] += 1
            summary.sent += 1
            try:
                rec = await caller.call(messages)
            finally:
                in_flight[0] -= 1
        if rec.error == NOT_SENT:
            summary.sent -= 1
            return
        rec.pair_id, rec.cache_key = pair_ids[0], key
        # the pairs with the identical prompt get the same answer, unpaid (as a cache hit is)
        records = [rec] + [replace(rec, pair_id=p, cost_usd=0.0) for p in pair_ids[1:]]
        if rec.error is None:
            try:  # durable before anything else happens to it
                await asyncio.to_thread(journal.append_many, records)
                summary.journaled += len(records)
            except OSError as exc:
                summary.lost += len(records)
                fail(f"could not write the journal {journal.path}", exc)
        async with lock:
            pending.extend(records)
            clock.received()
            summary.shared += len(records) - 1
            for r in records:
                summary.count(r, ext_of[r.pair_id])
        if progress:
            progress(summary.ok + summary.failed, total, _stats(summary))

    renewed = [time.monotonic()]

    async def write(batch, finish=None):
        result = await asyncio.to_thread(write_outputs, store, run_id, batch, prompt_id, finish)
        summary.stored += sum(1 for r in batch if r.error is None)
        return result

    async def flusher():
        wait = flush_interval
        while True:
            try:
                await asyncio.wait_for(finished.wait(), timeout=wait)
            except TimeoutError:
                pass
            began = time.monotonic()
            async with lock:
                batch = pending[:]
                pending.clear()
                clock.taken()
            try:
                if batch:  # in a thread, so answers keep arriving while it commits
                    await write(batch)
                clock.written()
                await asyncio.to_thread(leases.renew_quietly, store, renewed)
                # a commit opens and closes the store (0.1-0.2 s of CPU here): at most a fifth of the time goes
                # to them, every answer being in the fsynced journal meanwhile; never more than a sixth of the
                # store's patience, which counts how long the oldest answer waits (core.judges.patience)
                wait = min(max(flush_interval, 4 * (time.monotonic() - began)),
                           max(flush_interval, clock.patience / 6))
                if finished.is_set():
                    async with lock:
                        rest = pending[:]
                        pending.clear()
                    # the last answers and the run's totals in one transaction
                    return await write(rest, outcome["status"])
            except Exception as exc:  # disk full, lock held too long, read-only: stop sending now
                fail("could not write the store", one_line(exc))
                await finished.wait()
                return None

    outcome = {"status": "done"}
    writer = asyncio.create_task(flusher())
    prompts: dict[str, tuple[list, list]] = {}  # cache key -> (its pairs, the messages): one call per prompt
    for w in to_send:
        prompts.setdefault(w.key, ([], w.messages))[0].append(w.pair_id)
    tasks = [asyncio.create_task(one(pair_ids, messages, key)) for key, (pair_ids, messages) in prompts.items()]

    async def watch():
        while not halted():
            if all(t.done() for t in tasks):
                return
            await asyncio.sleep(0.05)
        # stopped: no new call starts (one() and Caller check halted()); calls in flight are paid for,
        # so they get CANCEL_GRACE seconds to answer and be journaled before they are dropped
        deadline = time.monotonic() + CANCEL_GRACE
        while time.monotonic() < deadline and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        for t in tasks:
            t.cancel()

    watcher = asyncio.create_task(watch())
    await asyncio.gather(*tasks, return_exceptions=True)
    watcher.cancel()
    if stop.is_set():
        outcome["status"] = "failed"
    elif cancel is not None and cancel.is_set():
        outcome["status"] = "cancelled"
    finished.set()
    totals = await writer
    return outcome["status"], totals
