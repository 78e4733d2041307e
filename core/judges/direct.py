"""Calls to an OpenAI-compatible server straight over HTTP, without importing litellm (seconds of start-up).

``python -X importtime`` puts litellm's import at 3-6 s of CPU on this kind of machine (it loads the
``openai`` SDK and every provider's types), while a call to a local vLLM / llama.cpp / Ollama server is
one JSON POST. So for the case where litellm adds nothing but its import, the run sends that POST itself
(a small keep-alive HTTP/1.1 client on asyncio streams, :class:`_Pool`) and litellm stays the gateway for
everything else.

The direct path is taken only when all of this holds (:func:`route`):

- the model is ``openai/NAME`` (litellm's OpenAI-compatible route) with one ``api_base`` that is not an
  OpenAI host (a key from the environment is never in play: the caller sends the named key or
  ``no-key-needed``, as it does through litellm);
- litellm's bundled price map (read as JSON, :func:`price_map`) has no entry for the model, so litellm
  would price the call as unknown too; a priced model goes through litellm, which prices it;
- no ``reasoning_effort`` (litellm decides per model whether to send or drop it);
- no proxy is configured (``HTTP(S)_PROXY``/``ALL_PROXY``: litellm's client honours them, this one does not);
- ``RADCONCORD_LITELLM_ONLY`` is not set (``core.settings``).

What the run sees is what litellm gives (tests/judges/test_direct_path.py compares both paths through
a real loopback server): the same request body (``model``, ``max_tokens``, ``temperature``, the
messages, ``stop`` when given), the same answer text, token counts and unknown price, and the same one-line errors: a
failed call raises an exception of litellm's class name, status and message (:func:`status_error`
follows ``litellm.litellm_core_utils.exception_mapping_utils`` for the ``openai`` provider), so the
caller's retries (429/5xx/timeouts, ``Retry-After``, jitter), key scrubbing and error lines are the
ones of the litellm path.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import time
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from core import settings

__all__ = ["ProviderError", "complete", "price_map", "route", "status_error"]

PREFIX = "openai/"
OPENAI_HOST = "api.openai.com"
PRICE_FILE = "model_prices_and_context_window_backup.json"  # litellm's bundled copy (LITELLM_LOCAL_MODEL_COST_MAP)
PROVIDER = "OpenAIException"
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")  # how litellm names the openai provider in its messages


@lru_cache(maxsize=1)
def price_map() -> dict:
    """litellm's bundled price map, read as JSON without importing litellm ({} when it cannot be found)."""
    spec = importlib.util.find_spec("litellm")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / PRICE_FILE
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    return {}


def route(model: str, api_base: str | None, reasoning_effort: str | None = None) -> str | None:
    """The name to send when ``model`` goes straight to ``api_base`` over HTTP; None: through litellm."""
    if not model.startswith(PREFIX) or not api_base or reasoning_effort is not None:
        return None
    if settings.is_true(settings.env_value(settings.LITELLM_ONLY_VAR)):
        return None
    if any(settings.env_value(name) for name in PROXY_VARS):
        return None
    name = model[len(PREFIX):]
    host = (urlsplit(api_base).hostname or "").lower()
    if not name or host == OPENAI_HOST or host.endswith("." + OPENAI_HOST):
        return None
    prices = price_map()
    if not prices or name in prices or model in prices:  # a priced model: litellm prices it
        return None
    return name


# -- errors, as litellm names them ------------------------------------------------


class ProviderError(Exception):
    """A failed call, shaped like litellm's exception of the same name (status, message, headers)."""

    def __init__(self, message: str, status_code: int, headers=None):
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.headers = headers

    def __str__(self) -> str:
        return self.message


def _error_class(name: str) -> type[ProviderError]:
    return type(name, (ProviderError,), {})


_CLASSES = {name: _error_class(name) for name in (
    "BadRequestError", "AuthenticationError", "PermissionDeniedError", "NotFoundError", "Timeout",
    "RateLimitError", "ContextWindowExceededError", "ContentPolicyViolationError", "InternalServerError",
    "BadGatewayError", "ServiceUnavailableError", "APIError", "APIConnectionError")}


def _raise_as(name: str, message: str, status: int, headers=None) -> ProviderError:
    return _CLASSES[name](f"litellm.{name}: {message}", status, headers)


_CONTEXT_WINDOW = ("exceed context limit", "this model's maximum context length is",
                   "string too long. expected a string with maximum length", "model's maximum context limit",
                   "is longer than the model's context length", "input tokens exceed the configured limit",
                   "`inputs` tokens + `max_new_tokens` must be", "exceeds the available context size",
                   "exceeds the maximum number of tokens allowed")
_TIMEOUT_TEXT = ("Request Timeout Error", "Request timed out", "Timed out generating response",
                 "The read operation timed out")


def _rate_limited(error_str: str, status: int) -> bool:
    low = error_str.lower()
    return bool((re.search(r"\b429\b", error_str) and status == 429) or re.search(r"rate[\s_\-]*limit", low)
                or "service tier capacity exceeded" in low)


def _context_window(error_str: str) -> bool:
    low = error_str.lower()
    if "string_above_max_length" in low or ("invalid 'user'" in low and "string too long" in low):
        return False
    return (any(s in low for s in _CONTEXT_WINDOW) or ("current length is" in low and "while limit is" in low)
            or ("maximum input length is" in low and "tokens" in low))


_BY_STATUS = {400: ("BadRequestError", ""), 401: ("AuthenticationError", "AuthenticationError: "),
              404: ("NotFoundError", "NotFoundError: "), 408: ("Timeout", "Timeout Error: "),
              422: ("BadRequestError", ""), 429: ("RateLimitError", "RateLimitError: "),
              500: ("InternalServerError", "InternalServerError: "), 502: ("BadGatewayError", "BadGatewayError: "),
              503: ("ServiceUnavailableError", "ServiceUnavailableError: "), 504: ("Timeout", "Timeout Error: ")}
_CLASS_STATUS = { "ContextWindowExceededError": 400, "ContentPolicyViolationError": 400,
                 "NotFoundError": 404, "RateLimitError": 429, "InternalServerError": 500}


def status_error(status: int, text: str, headers=None) -> ProviderError:
    """The exception litellm raises for an ``openai/`` model whose server answered ``status`` with ``text``.

    The openai SDK makes ``Error code: N - {body}`` of it (the body's ``error`` object kept); litellm takes
    that object's ``message`` and picks the class from the text first (rate limit, context window, ...),
    then from the status.
    """
    text = text.strip()
    try:
        body = json.loads(text)
        error_str = f"Error code: {status} - {body}"
    except ValueError:
        body, error_str = text, text or f"Error code: {status}"
    data = body.get("error", body) if isinstance(body, dict) else body
    message = None
    if isinstance(data, dict):
        message = data.get("message") or (data["error"].get("message") if isinstance(data.get("error"), dict)
                                           else None)
    message = error_str if message is None else message
    return _mapped(error_str, str(message), status, headers)


def _mapped(error_str: str, message: str, status: int, headers=None) -> ProviderError:
    if any(s in error_str for s in _TIMEOUT_TEXT):
        return _raise_as("Timeout", f"APITimeoutError - Request timed out. Error_str: {error_str}", 408, headers)
    p = PROVIDER
    if _rate_limited(error_str, status):
        return _raise_as("RateLimitError", f"RateLimitError: {p} - {message}", 429, headers)
    if _context_window(error_str):
        inner = f"litellm.BadRequestError: ContextWindowExceededError: {p} - {message}"
        return _raise_as("ContextWindowExceededError", inner, 400, headers)
    if "invalid_request_error" in error_str and "model_not_found" in error_str:
        return _raise_as("NotFoundError", f"{p} - {message}", 404, headers)
    if "A timeout occurred" in error_str:
        return _raise_as("Timeout", f"{p} - {message}", 408, headers)
    if (("invalid_request_error" in error_str and "content_policy_violation" in error_str)
            or ("Invalid prompt" in error_str and "violating our usage policy" in error_str)
            or "request was rejected as a result of the safety system" in error_str.lower()):
        return _raise_as("ContentPolicyViolationError", f"ContentPolicyViolationError: {p} - {message}", 400,
                         headers)
    if "invalid_request_error" in error_str and "Incorrect API key provided" not in error_str:
        return _raise_as("BadRequestError", f"{p} - {message}", 400, headers)
    if "Web server is returning an unknown error" in error_str or \
            "The server had an error processing your request." in error_str:
        return _raise_as("InternalServerError", f"{p} - {message}", 500, headers)
    if "Request too large" in error_str:
        return _raise_as("RateLimitError", f"RateLimitError: {p} - {message}", 429, headers)
    if status in _BY_STATUS:
        name, lead = _BY_STATUS[status]
        return _raise_as(name, f"{lead}{p} - {message}", _CLASS_STATUS.get(name, status), headers)
    return _raise_as("APIError", f"APIError: {p} - {message}", status, headers)


# -- the call ---------------------------------------------------------------------

class _Pool:
    """Keep-alive HTTP/1.1 connections to one endpoint, on one event loop.

    A small client of our own rather than httpx: at 64 calls in flight httpcore's pool spends most of the
    run's CPU scanning its connections on every request (``_assign_requests_to_connections``, measured with
    cProfile: docs/PERFORMANCE.md, "Commands and runs"), and its import is 0.2-0.8 s. A request is one write;
    an answer is read by ``Content-Length``, chunks, or to the end of the connection.
    """

    def __init__(self, api_base: str):
        parts = urlsplit(api_base)
        self.tls = parts.scheme == "https"
        self.host = parts.hostname or "localhost"
        self.port = parts.port or (443 if self.tls else 80)
        self.authority = self.host if parts.port is None else f"{self.host}:{parts.port}"
        self.path = parts.path.rstrip("/")
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def _connect(self):
        ssl_context = None
        if self.tls:
            import ssl

            ssl_context = ssl.create_default_context()
        return await asyncio.open_connection(self.host, self.port, ssl=ssl_context, limit=2 ** 22)

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        conn = None
        while self.idle and conn is None:
            reader, writer = self.idle.pop()
            if reader.at_eof() or writer.is_closing():  # the server closed it while idle
                writer.close()
            else:
                conn = (reader, writer)
        reader, writer = conn or await self._connect()
        try:
            head = [f"POST {self.path}{path} HTTP/1.1", f"Host: {self.authority}", "Accept: application/json",
                    "Content-Type: application/json", f"Content-Length: {len(body)}", "Connection: keep-alive",
                    "User-Agent: RadConcord"] + [f"{k}: {v}" for k, v in headers.items()]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
            status, got, data, keep = await _read_response(reader)
        except BaseException:
            writer.close()
            raise
        if keep:
            self.idle.append((reader, writer))
        else:
            writer.close()
        return status, got, data


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes, bool]:
    line = await reader.readline()
    if not line:
        raise ConnectionError("the server closed the connection")
    version, status = line.split(None, 2)[:2]
    headers: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    keep = version.upper() == b"HTTP/1.1" and headers.get("connection", "").lower() != "close"
    if "content-length" in headers:
        data = await reader.readexactly(int(headers["content-length"]))
    elif "chunked" in headers.get("transfer-encoding", "").lower():
        parts = []
        while (size := int((await reader.readline()).split(b";")[0].strip() or b"0", 16)) > 0:
            parts.append(await reader.readexactly(size))
            await reader.readline()
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass  # trailers
        data = b"".join(parts)
    else:
        data, keep = await reader.read(), False
    return int(status), headers, data, keep


_POOLS: dict[tuple[int, str], _Pool] = {}  # (event loop, endpoint) -> its connections, for the loop's life


def _pool(api_base: str) -> _Pool:
    key = (id(asyncio.get_running_loop()), api_base)
    pool = _POOLS.get(key)
    if pool is None:
        pool = _POOLS[key] = _Pool(api_base)
    return pool


class _Message:
    def __init__(self, content):
        self.content = content


class _Choice:
    def __init__(self, choice: dict):
        self.message = _Message((choice.get("message") or {}).get("content"))
        self.finish_reason = choice.get("finish_reason")


class _Usage:
    def __init__(self, usage: dict):
        self.prompt_tokens = usage.get("prompt_tokens")
        self.completion_tokens = usage.get("completion_tokens")


class Response:
    """The parts of litellm's ``ModelResponse`` the caller reads: choices, usage and the (unknown) price."""

    def __init__(self, data: dict):
        self.choices = [_Choice(c) for c in data.get("choices") or [{}]]
        self.usage = _Usage(data.get("usage") or {})
        self._hidden_params = {"response_cost": None}  # route() sends only models the price map lacks


async def complete(*, model: str, messages: list[dict], api_base: str, timeout: float, temperature: float,
                   max_tokens: int, api_key: str | None = None, stop: list[str] | None = None,
                   **_ignored) -> Response:
    """One POST to ``{api_base}/chat/completions``; raises :class:`ProviderError` shaped as litellm's. ``stop``
    (stop sequences) is sent only when given, as litellm sends it."""
    body = {"model": model[len(PREFIX):] if model.startswith(PREFIX) else model, "messages": messages,
            "max_tokens": max_tokens, "temperature": temperature}
    if stop:
        body["stop"] = list(stop)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    start = time.time()
    try:
        status, got, data = await asyncio.wait_for(
            _pool(api_base).post("/chat/completions", json.dumps(body).encode("utf-8"), headers), timeout)
    except TimeoutError:
        taken = round(time.time() - start, 2)
        raise _mapped(f"Request timed out. - timeout value={timeout}, time taken={taken} seconds", "", 408) from None
    except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        # refused, dropped, reset, garbled: the openai SDK's APIConnectionError, a 500 to litellm
        raise _mapped("Connection error.", "Connection error.", 500) from None
    if status >= 400:
        raise status_error(status, data.decode("utf-8", "replace"), got)
    try:
        return Response(json.loads(data))
    except ValueError:
        raise _raise_as("InternalServerError", f"InternalServerError: {PROVIDER} - Empty or invalid response from "
                        "LLM endpoint.", 500) from None
