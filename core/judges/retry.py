"""The one retry policy of every provider call: which errors are worth another attempt, how long to wait
(exponential backoff with jitter, or the provider's ``Retry-After``), and the one-line error text with keys cut
out. A direct call (:class:`core.judges.caller.Caller`) and a batch API call (:mod:`core.judges.batch`) both
loop through :func:`attempt_wait`: the async loop sleeps with ``asyncio``, the batch's blocking loop
(:func:`call_with_retries`) with ``time``. Leaf module."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable

from core.judges.endpoints import redact

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}
MAX_BACKOFF = 60.0


def status_of(exc: Exception) -> int | None:
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
    return status_of(exc) in RETRYABLE_STATUS


def retry_after(exc: Exception) -> float | None:
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


def attempt_wait(exc: Exception, attempt: int, max_retries: int, backoff: float) -> float | None:
    """Seconds to wait before attempt ``attempt + 1`` after ``exc``; None: give up (not retryable, or the
    ``max_retries`` are spent). ``Retry-After`` when the provider sends one, else ``backoff * 2**attempt``; at
    most :data:`MAX_BACKOFF`, plus up to 25% jitter."""
    if attempt >= max_retries or not retryable(exc):
        return None
    wait = retry_after(exc)
    if wait is None:
        wait = backoff * (2 ** attempt)
    return min(MAX_BACKOFF, wait) * (1 + 0.25 * random.random())


def call_with_retries(call: Callable[[], object], max_retries: int, backoff: float,
                      give_up: Callable[[], bool] = lambda: False):
    """``call()`` again after a transient error, by :func:`attempt_wait`; the last error is raised (also at once
    when ``give_up()``, e.g. a cancel). For blocking calls (a batch API's, in a worker thread)."""
    attempt = 0
    while True:
        try:
            return call()
        except Exception as exc:
            wait = attempt_wait(exc, attempt, max_retries, backoff)
            if wait is None or give_up():
                raise
            time.sleep(wait)
            attempt += 1


def short_error(exc: Exception, api_key: str | None, what: str = "") -> str:
    """The one-line error stored on a pair: class, status, message (``what``: a prefix), keys cut out, 500
    characters at most."""
    status = status_of(exc)
    text = what + f"{type(exc).__name__}" + (f" ({status})" if status else "") + f": {exc}"
    text = re.sub(r"\s+", " ", text).strip()
    return redact(text, [api_key] if api_key else None)[:500]
