"""The files of a provider batch: request lines in, result lines out, and their price.

A request line is what a direct call would send (the same body: model, messages, temperature,
max_tokens, reasoning_effort when set) with ``custom_id`` = the prompt's cache key, so its answer is
stored under the key a direct call's would be. Lines are cut into files at the provider's limits
(OpenAI: 50,000 requests and 200 MB per file). A result line (output file or error file) is read into
an answer, or a failure that is worth sending again (5xx, 429, a line the batch never reached before it
expired or was cancelled) or not (any other error: recorded on its pair, as a direct call's would be).

The price of an answer is litellm's batch price (``litellm.cost_calculator.batch_cost_calculator``: the
model's ``*_cost_per_token_batches`` where litellm's table has them, else half its per-token price),
and unknown (None) when the model is not in litellm's table: never 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields

from core.judges.generate import request_options
from core.judges.retry import RETRYABLE_STATUS  # a line fails for the same reasons as a call

OPENAI_MAX_REQUESTS = 50_000  # requests per batch file (OpenAI's limit)
OPENAI_MAX_BYTES = 200 * 1024 * 1024  # bytes per batch file (OpenAI's limit)
ENDPOINT = "/v1/chat/completions"
RETRYABLE_CODES = {"batch_expired", "batch_cancelled", "rate_limit_exceeded", "server_error", "timeout"}
RETRY_MODES = ("batch", "direct")


@dataclass(frozen=True)
class BatchOptions:
    """How a batch run cuts its files, polls, and sends failed lines again."""

    max_requests: int = OPENAI_MAX_REQUESTS
    max_bytes: int = OPENAI_MAX_BYTES
    poll_seconds: float = 30.0
    retry: str = "batch"  # "batch": failed lines in a new batch; "direct": as direct calls
    max_rounds: int = 3  # batch rounds per invocation, the first included
    completion_window: str = "24h"

    @classmethod
    def from_dict(cls, d: dict | None) -> BatchOptions:
        known = {f.name for f in fields(cls)}
        opts = cls(**{k: v for k, v in (d or {}).items() if k in known})
        if opts.retry not in RETRY_MODES:
            raise ValueError(f"batch retry must be one of {', '.join(RETRY_MODES)}, not {opts.retry!r}")
        if opts.max_rounds < 1 or opts.poll_seconds <= 0 or opts.max_requests < 1 or opts.max_bytes < 1:
            raise ValueError("batch options: max_rounds, max_requests and max_bytes at least 1, poll_seconds above 0")
        return opts


def request_line(key: str, model_name: str, messages: list[dict], params) -> bytes:
    """One JSONL request line (bytes, newline included); ``params`` is a
    :class:`~core.judges.generate.GenerateConfig` (sent as a direct call sends it)."""
    body = {"model": model_name, "messages": messages, **request_options(params)}
    line = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body}
    return (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")


def split_files(lines: list[tuple[str, bytes]], max_requests: int = OPENAI_MAX_REQUESTS,
                max_bytes: int = OPENAI_MAX_BYTES) -> tuple[list[list[tuple[str, bytes]]], list[str]]:
    """Cut ``(key, line)`` pairs into files of at most ``max_requests`` lines and ``max_bytes`` bytes, in order.

    Returns (the files, the keys of lines longer than ``max_bytes`` on their own: they fit in no file).
    """
    if max_requests < 1 or max_bytes < 1:
        raise ValueError("batch file limits must be at least 1 request and 1 byte")
    files: list[list[tuple[str, bytes]]] = []
    too_big: list[str] = []
    current: list[tuple[str, bytes]] = []
    size = 0
    for key, line in lines:
        if len(line) > max_bytes:
            too_big.append(key)
            continue
        if current and (len(current) >= max_requests or size + len(line) > max_bytes):
            files.append(current)
            current, size = [], 0
        current.append((key, line))
        size += len(line)
    if current:
        files.append(current)
    return files, too_big


@dataclass
class LineResult:
    """One result line: an answer (``text``, tokens) or an error (``error``, and whether to send it again)."""

    key: str
    text: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    error: str | None = None
    retry: bool = False


def read_result(obj: dict) -> LineResult:
    """A line of an output or error file (OpenAI's batch format) as a :class:`LineResult`."""
    key = str(obj.get("custom_id") or "")
    error = obj.get("error")
    response = obj.get("response") or {}
    if error:  # the line was not executed: expired, cancelled, or refused by the provider
        code = str(error.get("code") or "error")
        return LineResult(key, error=f"batch line not executed ({code}): {error.get('message') or ''}".strip(),
                          retry=code in RETRYABLE_CODES)
    status = response.get("status_code")
    body = response.get("body") or {}
    if status == 200 and body.get("choices"):
        usage = body.get("usage") or {}
        message = body["choices"][0].get("message") or {}
        return LineResult(key, text=message.get("content") or "", tokens_in=usage.get("prompt_tokens"),
                          tokens_out=usage.get("completion_tokens"))
    detail = (body.get("error") or {}).get("message") if isinstance(body.get("error"), dict) else body.get("error")
    return LineResult(key, error=f"batch line failed (HTTP {status}): {detail or 'no detail'}",
                      retry=status is None or int(status) in RETRYABLE_STATUS)


def iter_lines(chunks):
    """Parsed JSON objects from an iterator of byte chunks (a streamed download), as each line completes."""
    rest = b""
    for chunk in chunks:
        rest += chunk
        *complete, rest = rest.split(b"\n")
        for raw in complete:
            if raw.strip():
                yield json.loads(raw)
    if rest.strip():
        yield json.loads(rest)


class BatchPrice:
    """litellm's batch price of one model's answers; None for a model missing from its price table."""

    def __init__(self, litellm, model: str):
        self.litellm, self.model = litellm, model
        try:
            info = litellm.get_model_info(model=model)
        except Exception:  # litellm raises for models missing from its table
            info = None
        self.known = bool(info) and any(info.get(k) is not None for k in (
            "input_cost_per_token", "input_cost_per_token_batches"))

    def cost(self, tokens_in: int | None, tokens_out: int | None) -> float | None:
        if not self.known or tokens_in is None or tokens_out is None:
            return None
        from litellm.cost_calculator import batch_cost_calculator

        usage = self.litellm.Usage(prompt_tokens=int(tokens_in), completion_tokens=int(tokens_out),
                                   total_tokens=int(tokens_in) + int(tokens_out))
        prompt, completion = batch_cost_calculator(usage=usage, model=self.model)
        return float(prompt) + float(completion)
