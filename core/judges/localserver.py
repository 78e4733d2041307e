"""What a model served on this machine or a private network needs (llama.cpp, Ollama, vLLM): call defaults
for a CPU server, and the model name checked against what the server lists.

- **Defaults.** An endpoint on loopback or a private address (:func:`core.judges.llm.is_private_endpoint`) is
  taken for a local server: ``judge`` sends at most :data:`LOCAL_CONCURRENCY` calls at once (a CPU server
  answers one request at a time; more only queue there and time out) and waits :data:`LOCAL_TIMEOUT` seconds
  per call (the first answer loads the model; a CPU answers tens of tokens per second). A hosted API keeps
  ``CLOUD_CONCURRENCY`` and ``CLOUD_TIMEOUT``. It also gets :data:`LOCAL_STOP`'s stop sequences for the
  prompt's family (:func:`stop_defaults`), which cut a small model's answer where it runs on past its
  format. A flag the user gives always wins.
- **The model name.** ``GET {api_base}/models`` lists what an OpenAI-compatible server serves. vLLM and
  Ollama answer a name they do not serve with HTTP 404 on every call; llama.cpp's servers (``llama-server``
  and ``llama-cpp-python``) answer *any* name with the one model they loaded. :func:`served_models` reads
  the list, :func:`name_note` says in one line when a llama.cpp server will answer with another model than
  the one named, and :func:`not_served_line` turns a run whose every failure is "model not found" into one
  line naming the models the server does serve.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from core.judges.errors import explain_error
from core.judges.llm import is_private_endpoint, safe_api_base
from core.prompts.specs import PROMPTS

__all__ = ["CLOUD_CONCURRENCY", "CLOUD_TIMEOUT", "LOCAL_CONCURRENCY", "LOCAL_STOP", "LOCAL_TIMEOUT", "call_defaults",
           "name_note", "not_served_line", "served_models", "stop_defaults"]

LOCAL_CONCURRENCY = 2
LOCAL_TIMEOUT = 600.0
CLOUD_CONCURRENCY = 8
CLOUD_TIMEOUT = 120.0
#: stop sequences a local server gets by default, per prompt id: the table's ``local_stop`` (core/prompts/specs.py)
LOCAL_STOP: dict[str, tuple[str, ...]] = {pid: spec.local_stop for pid, spec in PROMPTS.items() if spec.local_stop}
# llama.cpp's servers list their one model with these owners (llama-server: "llamacpp", llama-cpp-python: "me")
_ANSWERS_ANY_NAME = frozenset({"llamacpp", "me"})


def is_local(api_base: str | None) -> bool:
    """Whether ``api_base`` is a server on this machine or a private network (the local defaults apply)."""
    return bool(api_base) and is_private_endpoint(api_base)


def call_defaults(api_base: str | None, concurrency: int | None, timeout: float | None) -> tuple[int, float]:
    """``(concurrency, timeout)``: the values given, else the local server's or the hosted API's defaults."""
    local = is_local(api_base)
    return (concurrency if concurrency is not None else LOCAL_CONCURRENCY if local else CLOUD_CONCURRENCY,
            timeout if timeout is not None else LOCAL_TIMEOUT if local else CLOUD_TIMEOUT)


def stop_defaults(api_base: str | None, prompt_id: str | None, stop: list[str] | None) -> tuple[str, ...]:
    """The stop sequences to send: ``stop`` when given (``--stop ''`` alone: none), else a local server's for
    ``prompt_id``'s family (:data:`LOCAL_STOP`), else none."""
    if stop is not None:
        return tuple(s for s in stop if s)
    if not is_local(api_base):
        return ()
    return LOCAL_STOP.get(prompt_id or "green", ())


def served_models(api_base: str | None, timeout: float = 3.0) -> list[dict] | None:
    """The models a local server lists (``GET {api_base}/models``: ``[{"id": ..., "owned_by": ...}, ...]``);
    None when it is not a local server or does not answer with such a list (nothing is ever asked of a
    hosted API here)."""
    if not is_local(api_base):
        return None
    url = api_base.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 (a loopback/private URL)
            data = json.loads(resp.read())
    except (OSError, ValueError, urllib.error.URLError):
        return None
    models = data.get("data") if isinstance(data, dict) else None
    if not isinstance(models, list):
        return None
    return [m for m in models if isinstance(m, dict) and isinstance(m.get("id"), str)]


def _bare(model: str) -> str:
    """The name the server sees: litellm sends ``openai/NAME`` as ``NAME`` (``ollama/NAME`` likewise)."""
    return model.split("/", 1)[1] if "/" in model else model


def name_note(model: str, api_base: str | None, listed: list[dict] | None = None) -> str | None:
    """One line when ``api_base`` is a llama.cpp server that does not list ``model``'s name: it will answer
    with the model it loaded all the same, and the run is recorded under the name given. None otherwise."""
    listed = served_models(api_base) if listed is None else listed
    if not listed or _bare(model) in {m["id"] for m in listed}:
        return None
    if not {str(m.get("owned_by", "")) for m in listed} & _ANSWERS_ANY_NAME:
        return None
    ids = ", ".join(m["id"] for m in listed)
    return (f"note: {safe_api_base(api_base)} is a llama.cpp server serving {ids}; it answers any model name with "
            f"that model, so '{model}' is answered by it (start the server with --model_alias "
            f"{_bare(model)}, or name the model openai/{listed[0]['id']})")


def not_served_line(model: str, api_base: str | None, errors: list[str]) -> str | None:
    """One line for a run whose every failure is the server not knowing ``model``'s name (vLLM's and
    Ollama's HTTP 404), naming what the server lists; None when some failure had another cause."""
    if not errors or any(explain_error(e) != explain_error("NotFoundError (404)") for e in errors):
        return None
    listed = served_models(api_base)
    serves = (f"; it serves {', '.join(m['id'] for m in listed)} (e.g. --judge openai/{listed[0]['id']})"
              if listed else "")
    where = f"the server at {safe_api_base(api_base)}" if api_base else "the provider"
    return (f"{where} does not serve a model named '{_bare(model)}'{serves}; "
            "the pairs are recorded as failed, nothing else was changed")
