"""A real OpenAI-compatible HTTP server on loopback that misbehaves on purpose.

Tests and benchmarks talk to it through litellm exactly as they would talk to
vLLM or Ollama: ``model="openai/<name>"``, ``api_base=server.url``. Faults are
keyed on the request so they are reproducible: a ``plan`` maps a marker string
(found in the request's messages) to a list of behaviours, one per attempt;
after the list runs out the server answers normally.

Behaviours: ``"ok"``, ``"429"`` (with Retry-After), ``"500"``, ``"drop"``
(close the connection without answering), ``"slow"`` (sleep ``slow_seconds``
before answering), ``"truncate"`` (half the answer, finish_reason "length"),
``"400"`` (a non-retryable error), ``"echo401"`` (an auth error that repeats the
Authorization header back, as careless providers do), ``"prose"`` (a 200 answer in
no format any prompt asks for), ``"echo200"`` (a normal 200 answer that also repeats the
Authorization header, and any ``api-key``/``x-api-key`` header, inside its text).

``fault_rates`` (e.g. ``{"429": 0.03, "500": 0.03, "drop": 0.02, "truncate": 0.02}``)
adds random faults for requests no plan marker matches: each attempt draws its
behaviour from a ``random.Random(seed)``, so retries can fail again (the soak
benchmark, bench/bench_soak.py).

Run standalone: ``python tests/fake_openai.py --port 8765 --latency 0.2 [--faults 429=0.03,500=0.03 --seed 1]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def green_answer(messages_text: str) -> str:
    """A deterministic GREEN-format answer derived from the request text."""
    h = int(hashlib.sha256(messages_text.encode()).hexdigest(), 16)
    sig = [(h >> (3 * i)) % 3 for i in range(6)]
    insig = [(h >> (20 + 2 * i)) % 2 for i in range(6)]
    matched = 1 + (h >> 40) % 5
    names = ["False report of a finding in the candidate",
             "Missing a finding present in the reference",
             "Misidentification of a finding's anatomic location/position",
             "Misassessment of the severity of a finding",
             "Mentioning a comparison that isn't in the reference",
             "Omitting a comparison detailing a change from a prior study"]
    lines = ["[Explanation]:", "Synthetic answer from the loopback test server.", "",
             "[Clinically Significant Errors]:"]
    for letter, name, n in zip("abcdef", names, sig, strict=True):
        lines.append(f"({letter}) {name}: {n}." + (f" Error {letter} text." if n else ""))
    lines += ["", "[Clinically Insignificant Errors]:"]
    for letter, name, n in zip("abcdef", names, insig, strict=True):
        lines.append(f"({letter}) {name}: {n}." + (f" Minor {letter} text." if n else ""))
    lines += ["", "[Matched Findings]:", f"{matched}. " + "; ".join(f"finding {i}" for i in range(matched))]
    return "\n".join(lines)


def _sentences(report: str) -> list[str]:
    return [s.strip() + "." for s in re.split(r"(?<=[.])\s+", report.strip()) if s.strip(". ")]


def task_answer(messages: list[dict]) -> str:
    """Answer in the format the request's prompt asks for (judging, injection, validation, baselines)."""
    system = " ".join(m.get("content", "") for m in messages if m.get("role") == "system")
    user = " ".join(m.get("content", "") for m in messages if m.get("role") == "user")
    if "Modified report:" in user and "plausib" in system.lower():
        ok = "IMPLAUSIBLE" not in user
        return json.dumps({"plausible": ok, "reason": "reads like a real report" if ok else "contradictory"})
    m = re.match(r"Inject exactly (\d)", user)
    if m:
        k = int(m.group(1))
        report = user.split("Radiology report:\n", 1)[-1]
        if "BADJSON" in report:
            return "I cannot produce JSON today."
        if "ERROR TYPE (a)" in system:
            added = [f"New false finding number {i + 1} is present." for i in range(k)]
            changes = [{"sentence index": i + 1, "original": "", "modified": a, "explanation": "invented"}
                       for i, a in enumerate(added)]
            modified = report.rstrip() + " " + " ".join(added)
        else:
            sents = _sentences(report)
            dropped = sents[:k]
            changes = [{"sentence index": i + 1, "original": d, "modified": "", "explanation": "removed"}
                       for i, d in enumerate(dropped)]
            modified = " ".join(sents[k:]) or "No findings reported."
        return json.dumps({"modified report": modified, "changes detail": changes})
    if "candidate_phrases" in user:
        return json.dumps({"candidate_phrases": [{"phrase": "a", "entailed": True, "evidence": ["x"]},
                                                 {"phrase": "b", "entailed": False, "evidence": []}],
                           "reference_phrases": [{"phrase": "c", "entailed": True, "evidence": ["y"]}]})
    if "needs_correction" in user:
        return json.dumps({"lines": [{"line": 1, "needs_correction": True, "correction": "fixed",
                                      "severity": "Urgent", "category": "c", "comment": "side"}],
                           "missing": []})
    answer = green_answer(json.dumps(messages, ensure_ascii=False))
    if "[Overall Accuracy Score]:" in system + user:  # VERT (D.2): the score the prompt asks for, from the counts
        sig = sum(int(n) for n in re.findall(r"^\([a-f]\) [^:]+: (\d)\.", answer.split("[Clinically Insignificant")[0],
                                                re.M))
        answer += f"\n\n[Overall Accuracy Score]:\n{max(0.0, 1 - 0.15 * sig):.2f}"
    return answer


class _Server(ThreadingHTTPServer):
    # A real server's listen backlog (uvicorn, vLLM's: 2048). The default of 5 makes the kernel drop
    # connections when a client opens 64 at once, and a dropped one stalls its call for up to its timeout:
    # runs of 1,000 pairs at concurrency 64 took 30-122 s instead of 5 s now and then (docs/SCALE.md).
    request_queue_size = 256
    daemon_threads = True


class FakeOpenAI:
    def __init__(self, latency: float = 0.0, plan: dict[str, list[str]] | None = None,
                 slow_seconds: float = 5.0, retry_after: float = 1.0, port: int = 0,
                 fault_rates: dict[str, float] | None = None, seed: int = 0,
                 answer: Callable[[list[dict]], str | None] | None = None):
        import random

        self.answer = answer  # a test's own answers (e.g. CRIMSON JSON); None from it: the default answer
        self.seen_messages: list[list[dict]] = []  # every request's messages, as received
        self.seen_params: list[dict] = []  # every request's other fields (model, max_tokens, temperature, ...)
        self.latency = latency
        self.plan = plan or {}
        self.fault_rates = dict(fault_rates or {})
        self._rng = random.Random(seed)
        self.slow_seconds = slow_seconds
        self.retry_after = retry_after
        self.requests = 0
        self.request_times: list[float] = []  # time.monotonic() of each request's arrival
        self.answer_times: list[float] = []  # time.monotonic() of each 200 answer, as it is sent
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests the server held at once: concurrency, seen from here
        self.behaviours: Counter = Counter()
        self.seen_headers: list[dict] = []
        self._attempts: dict[str, int] = defaultdict(int)
        self.attempt_times: dict[str, list[float]] = defaultdict(list)
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", port), self._handler())
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _behaviour(self, text: str) -> str:
        with self._lock:
            self.requests += 1
            self.request_times.append(time.monotonic())
            for marker, steps in self.plan.items():
                if marker in text:
                    attempt = self._attempts[marker]
                    self._attempts[marker] += 1
                    self.attempt_times[marker].append(time.monotonic())
                    b = steps[attempt] if attempt < len(steps) else "ok"
                    break
            else:
                b = "ok"
                draw = self._rng.random() if self.fault_rates else 1.0
                for fault, rate in self.fault_rates.items():
                    if draw < rate:
                        b = fault
                        break
                    draw -= rate
            self.behaviours[b] += 1
            return b

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, code: int, body: dict, headers: dict | None = None):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):  # /v1/models, for clients that probe
                self._send(200, {"object": "list", "data": [{"id": "fake-judge", "object": "model"}]})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                payload = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.seen_headers.append(dict(self.headers))
                    fake.seen_messages.append(payload.get("messages", []))
                    fake.seen_params.append({k: v for k, v in payload.items() if k != "messages"})
                text = json.dumps(payload.get("messages", []), ensure_ascii=False)
                behaviour = fake._behaviour(text)
                with fake._lock:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if fake.latency:
                        time.sleep(fake.latency)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1
                if behaviour == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if behaviour == "429":
                    self._send(429, {"error": {"message": "rate limited", "type": "rate_limit"}},
                               {"Retry-After": f"{fake.retry_after:g}"})
                    return
                if behaviour == "500":
                    self._send(500, {"error": {"message": "server exploded", "type": "server_error"}})
                    return
                if behaviour == "echo401":  # a careless provider that repeats the key back
                    self._send(401, {"error": {"message": f"invalid key {self.headers.get('Authorization')}",
                                               "type": "auth_error"}})
                    return
                if behaviour == "400":
                    self._send(400, {"error": {"message": "bad request: context too long",
                                               "type": "invalid_request_error"}})
                    return
                if behaviour == "slow":
                    time.sleep(fake.slow_seconds)
                own = fake.answer(payload.get("messages", [])) if fake.answer else None
                answer = own if own is not None else task_answer(payload.get("messages", []))
                finish = "stop"
                if behaviour == "truncate":
                    answer, finish = answer[: len(answer) // 2], "length"
                elif behaviour == "prose":  # an answer in no format the prompt asked for
                    answer = "I have reviewed both reports and they look broadly similar to me."
                elif behaviour == "echo200":  # a successful answer that repeats the credentials it was sent
                    sent = [self.headers.get(h) for h in ("Authorization", "api-key", "x-api-key")]
                    answer += "\n\n(request received with " + "; ".join(v for v in sent if v) + ")"
                with fake._lock:
                    fake.answer_times.append(time.monotonic())
                self._send(200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                    "model": payload.get("model", "fake-judge"),
                    "choices": [{"index": 0, "finish_reason": finish,
                                 "message": {"role": "assistant", "content": answer}}],
                    "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": len(answer) // 4,
                              "total_tokens": (len(text) + len(answer)) // 4},
                })

        return Handler


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8765, help="0: any free port (printed)")
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--faults", default="", help="random faults per attempt, e.g. 429=0.03,500=0.03,drop=0.02")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random faults")
    args = ap.parse_args()
    rates = {k: float(v) for k, v in (item.split("=") for item in args.faults.split(",") if item)}
    server = FakeOpenAI(latency=args.latency, port=args.port, fault_rates=rates, seed=args.seed)
    print(f"serving {server.url}", flush=True)
    server._server.serve_forever()
