"""One model's calls: litellm (loaded once, early) or the direct HTTP path, one attempt at a time through the
one retry policy (:mod:`core.judges.retry`), the answer's keys cut out, its price and usage.

:meth:`Caller.call` sends one message list and returns an ``OutputRecord`` (the answer, or the error with any
key redacted); it never raises for a provider error. :class:`core.judges.replicas.ReplicaCaller` is the same
caller with its attempts spread over several replicas.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from core import settings
from core.judges import direct
from core.judges.endpoints import NO_KEY, environment_key_allowed
from core.judges.gcpause import import_frozen
from core.judges.generate import GenerateConfig, request_options
from core.judges.retry import attempt_wait, short_error
from core.judges.runs import OutputRecord
from core.settings import apply_offline_defaults

NOT_SENT = "not sent: the run stopped before this attempt"  # a call the caller gave up before sending

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


def preload_thread() -> threading.Thread | None:
    """The thread :func:`preload_litellm` started (None before)."""
    return _PRELOAD


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
    """One model's calls through litellm or the direct path: timeout, retries, price and usage (module doc)."""

    def __init__(self, model: str, params: GenerateConfig, api_base: str | None, api_key: str | None,
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
        self.halted: Callable[[], bool] = lambda: False  # set by the sender: no new attempt once True
        # one attempt: straight over HTTP where litellm would add only its import (core.judges.direct), else
        # litellm's (core.judges.replicas routes it over replicas)
        self.direct = direct.route(model, api_base, params.reasoning_effort) is not None
        self.complete = direct.complete if self.direct else self.litellm.acompletion

    @property
    def litellm(self):
        """litellm, imported on first use (never on the direct path)."""
        return litellm_module()

    def secrets(self) -> list[str]:
        """The values cut out of answers, longest first: read from the environment once per caller (scanning
        it for every answer was the largest CPU cost per call after the HTTP client's)."""
        if self._secret_list is None:
            own = [self.api_key] if self.api_key and self.api_key != NO_KEY and len(self.api_key) >= 6 else []
            self._secret_list = sorted({*settings.secret_values(), *own}, key=len, reverse=True)
        return self._secret_list

    def scrub(self, text: str) -> str:
        """``text`` with this caller's key and every credential-named environment value cut out.

        An endpoint may repeat a key inside its answer (issue 31, item 7); every sender (direct, replicas,
        batch) scrubs answers here before they are stored or shown. Exact values only: redact()'s key shapes
        would also eat words such as "risk-stratified"."""
        for secret in self.secrets():
            text = text.replace(secret, "[redacted]")
        return text

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
                      max_retries=0, drop_params=True, **request_options(self.params))
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
                wait = attempt_wait(exc, attempt, self.max_retries, self.backoff)
                if wait is None:
                    return OutputRecord(pair_id="", error=short_error(exc, self.api_key),
                                        latency_ms=(time.monotonic() - start) * 1000)
                attempt += 1
                await asyncio.sleep(wait)
                continue
            latency = (time.monotonic() - t0) * 1000
            text = self.scrub(resp.choices[0].message.content or "")
            usage = getattr(resp, "usage", None)
            return OutputRecord(
                pair_id="", raw_text=text, latency_ms=latency,
                tokens_in=getattr(usage, "prompt_tokens", None), tokens_out=getattr(usage, "completion_tokens", None),
                cost_usd=self._cost(resp))
