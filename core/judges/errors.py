"""One readable line for the model errors users meet most; the raw text stays available.

A failure is stored as the gateway wrote it (``core.judges.llm._short_error``:
the exception class, the HTTP status, litellm's message, credentials removed).
The pages and the CLI show :func:`explain_error`'s sentence first and the raw
text on request. Classification works on that stored text, so it also covers
failures recorded by earlier runs.
"""

from __future__ import annotations

import re

# (pattern on the stored text, the sentence shown); the first match wins.
_KNOWN: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p, re.I), text) for p, text in (
    (r"LLM Provider NOT provided",
     "litellm does not know which provider serves this model name: prefix it, e.g. openai/NAME for an "
     "OpenAI-compatible server"),
    (r"AuthenticationError|\(401\)|invalid[_ ]api[_ ]key|incorrect api key",
     "the endpoint refused the API key (authentication failed): check the key configured for this model"),
    (r"PermissionDenied|\(403\)",
     "the key is not allowed to use this model (permission denied)"),
    (r"ContextWindowExceeded|context[_ ]length|maximum context|too many tokens|context window",
     "the prompt is longer than this model's context window: use a model with a longer context"),
    (r"NotFoundError|\(404\)|model[_ ]not[_ ]found|does not exist|unknown model",
     "the endpoint does not know this model name: check its spelling and the models the server serves"),
    (r"RateLimit|\(429\)|rate limit|quota",
     "the provider's rate limit or quota was hit, even after retries: lower the concurrency or try later"),
    (r"Connection refused|Connection error|APIConnectionError|ConnectError|Cannot connect|Name or service not known|"
     r"nodename nor servname",
     "the endpoint could not be reached (connection refused or unknown host): is the server running at "
     "that address?"),
    (r"Timeout|timed out",
     "the model did not answer within the time limit: raise --timeout or lower the concurrency"),
    (r"\(5\d\d\)|InternalServerError|ServiceUnavailable|BadGateway",
     "the provider's server failed (5xx), even after retries: try again later"),
))


def explain_error(raw: str | None) -> str:
    """A short, plain sentence for a stored failure text (its first line when unknown)."""
    text = (raw or "").strip()
    if not text:
        return "unknown error"
    own = text.find("model '")
    if own >= 0 and "cannot tell which provider serves it" in text:  # check_model's message says it all
        return text[own:]
    for pattern, sentence in _KNOWN:
        if pattern.search(text):
            return sentence
    first = text.splitlines()[0]
    return first if len(first) <= 200 else first[:199] + "…"


# What a retry summary counts: the transient causes the gateway retries, then the rest.
_CAUSES: tuple[tuple[str, re.Pattern], ...] = tuple((name, re.compile(p, re.I)) for name, p in (
    ("429 rate limit", r"RateLimit|\(429\)"),
    ("timeout", r"Timeout|timed out"),
    ("refused or dropped connection", r"Connection refused|Connection error|APIConnectionError|ConnectError|"
                                      r"Cannot connect|Name or service not known|disconnected|reset by peer"),
    # litellm reports a dropped connection as InternalServerError (500) "Connection error.": matched above
    ("5xx server error", r"\(5\d\d\)|InternalServerError|ServiceUnavailable|BadGateway"),
    ("authentication", r"AuthenticationError|\(401\)|PermissionDenied|\(403\)"),
    ("request refused (4xx)", r"\(4\d\d\)|BadRequest|ContextWindowExceeded|NotFound"),
))


def error_cause(raw: str | None) -> str:
    """The cause a stored failure counts under (HTTP status first, then the error's class)."""
    text = raw or ""
    for name, pattern in _CAUSES:
        if pattern.search(text):
            return name
    return "other"


def causes_line(errors) -> str:
    """'12 × 429 rate limit, 3 × 5xx server error': every cause with its count, most frequent first."""
    from collections import Counter

    counts = Counter(error_cause(e) for e in errors)
    return ", ".join(f"{n:,} × {cause}" for cause, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
