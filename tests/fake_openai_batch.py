"""A loopback OpenAI-compatible server with the files and batches endpoints, for ``judge --batch``.

It is tests/fake_openai.py's server (``/v1/chat/completions`` answered the same way, with the same
fault ``plan``) plus what a provider's batch API offers:

- ``POST /v1/files`` (multipart upload, purpose ``batch``), ``GET /v1/files/ID``,
  ``GET /v1/files/ID/content``;
- ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``), ``GET /v1/batches/ID``,
  ``GET /v1/batches`` (list), ``POST /v1/batches/ID/cancel``.

A batch moves through ``validating`` -> ``in_progress`` -> ``finalizing`` -> ``completed`` on a thread
of its own, answering one line every ``line_seconds`` with the same answer a direct call would get
(``task_answer``). A line whose messages hold a plan marker gets the plan's next behaviour: ``"500"``
or ``"429"`` (a failed line, written to the error file with that status), ``"400"`` (a failed line
that is not worth retrying), ``"ok"``. ``expire_after`` (batch number -> k) makes that batch expire
after k lines: the k answers go to its output file and every other line to its error file with code
``batch_expired``, as OpenAI does. Everything the server received is counted: ``uploads``,
``batches_created``, ``batch_lines`` (per custom id), ``requests`` (direct chat calls, as before); ``GET
/v1/stats`` returns these counts (for a server in a process of its own).

Run standalone (own process, e.g. for bench/bench_batch.py):
``python tests/fake_openai_batch.py --port 0 --line-seconds 0.001``.
"""

from __future__ import annotations

import argparse
import email.parser
import json
import secrets
import threading
import time
from collections import Counter

from tests.fake_openai import FakeOpenAI, task_answer

TERMINAL = ("completed", "expired", "failed", "cancelled")


def _completion(payload: dict, answer: str) -> dict:
    text = json.dumps(payload.get("messages", []), ensure_ascii=False)
    return {"id": "chatcmpl-batch", "object": "chat.completion", "created": int(time.time()),
            "model": payload.get("model", "fake-judge"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
            "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": len(answer) // 4,
                      "total_tokens": (len(text) + len(answer)) // 4}}


class FakeBatchServer(FakeOpenAI):
    def __init__(self, *, line_seconds: float = 0.0, validate_seconds: float = 0.05,
                 finalize_seconds: float = 0.05, expire_after: dict[int, int] | None = None, **kwargs):
        super().__init__(**kwargs)
        self.line_seconds = line_seconds
        self.validate_seconds = validate_seconds
        self.finalize_seconds = finalize_seconds
        self.expire_after = dict(expire_after or {})
        self.files: dict[str, dict] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.uploads = 0
        self.batches_created = 0
        self.batch_lines: Counter = Counter()  # custom_id -> times it reached the server in a batch
        self.retrieves = 0
        self.downloads = 0
        self.cancels = 0
        # hold_create: the next POST /v1/batches waits until it is set (a test kills the client meanwhile), then
        # makes the batch, or with refuse_held answers 500 without making it
        self.hold_create: threading.Event | None = None
        self.refuse_held = False
        self.holding = 0

    # -- state ------------------------------------------------------------------------

    def _new_file(self, data: bytes, purpose: str, filename: str) -> dict:
        file_id = "file-" + secrets.token_hex(8)
        obj = {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
               "filename": filename, "purpose": purpose, "status": "processed"}
        self.files[file_id] = obj
        self.contents[file_id] = data
        return obj

    def _new_batch(self, body: dict) -> dict:
        with self._lock:
            number = self.batches_created
            self.batches_created += 1
        batch_id = "batch_" + secrets.token_hex(8)
        lines = [json.loads(x) for x in self.contents[body["input_file_id"]].decode().splitlines() if x.strip()]
        batch = {"id": batch_id, "object": "batch", "endpoint": body.get("endpoint"), "errors": None,
                 "input_file_id": body["input_file_id"], "completion_window": body.get("completion_window", "24h"),
                 "status": "validating", "output_file_id": None, "error_file_id": None,
                 "created_at": int(time.time()), "in_progress_at": None, "expires_at": int(time.time()) + 86400,
                 "finalizing_at": None, "completed_at": None, "failed_at": None, "expired_at": None,
                 "cancelling_at": None, "cancelled_at": None,
                 "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                 "metadata": body.get("metadata")}
        self.batches[batch_id] = batch
        with self._lock:
            for line in lines:
                self.batch_lines[line["custom_id"]] += 1
        threading.Thread(target=self._process, args=(batch, lines, self.expire_after.get(number)),
                         daemon=True).start()
        return batch

    def _answer_line(self, line: dict) -> tuple[dict | None, dict | None]:
        """(output line, error line) for one request line."""
        body = line["body"]
        behaviour = self._behaviour(json.dumps(body.get("messages", []), ensure_ascii=False), direct=False)
        rid = "batch_req_" + secrets.token_hex(6)
        if behaviour in ("500", "429", "400"):
            code = int(behaviour)
            return None, {"id": rid, "custom_id": line["custom_id"],
                          "response": {"status_code": code, "request_id": rid,
                                       "body": {"error": {"message": f"line failed with {code}",
                                                          "type": "server_error" if code != 400 else
                                                          "invalid_request_error"}}},
                          "error": None}
        answer = task_answer(body.get("messages", []))
        return {"id": rid, "custom_id": line["custom_id"],
                "response": {"status_code": 200, "request_id": rid, "body": _completion(body, answer)},
                "error": None}, None

    def _process(self, batch: dict, lines: list[dict], expire_after: int | None) -> None:
        time.sleep(self.validate_seconds)
        if batch["status"] == "cancelling":
            return self._close(batch, [], [], "cancelled")
        batch["status"], batch["in_progress_at"] = "in_progress", int(time.time())
        out, err = [], []
        for i, line in enumerate(lines):
            if batch["status"] == "cancelling" or (expire_after is not None and i >= expire_after):
                break
            if self.line_seconds:
                time.sleep(self.line_seconds)
            ok, bad = self._answer_line(line)
            (out if ok else err).append(ok or bad)
            batch["request_counts"]["completed" if ok else "failed"] += 1
        rest = lines[len(out) + len(err):]
        if batch["status"] == "cancelling":
            return self._close(batch, out, err, "cancelled")
        if rest:  # expired with part done: what was not reached is an error line, code batch_expired
            err += [{"id": "batch_req_" + secrets.token_hex(6), "custom_id": x["custom_id"], "response": None,
                     "error": {"code": "batch_expired", "message": "This request could not be executed before "
                                                                   "the completion window expired."}}
                    for x in rest]
            batch["request_counts"]["failed"] += len(rest)
            return self._close(batch, out, err, "expired")
        batch["status"], batch["finalizing_at"] = "finalizing", int(time.time())
        time.sleep(self.finalize_seconds)
        self._close(batch, out, err, "completed")

    def _close(self, batch: dict, out: list[dict], err: list[dict], status: str) -> None:
        if out:
            batch["output_file_id"] = self._new_file(
                "".join(json.dumps(x) + "\n" for x in out).encode(), "batch_output", "out.jsonl")["id"]
        if err:
            batch["error_file_id"] = self._new_file(
                "".join(json.dumps(x) + "\n" for x in err).encode(), "batch_output", "err.jsonl")["id"]
        batch["status"], batch[f"{status}_at"] = status, int(time.time())

    def _behaviour(self, text: str, direct: bool = True) -> str:
        if direct:
            return super()._behaviour(text)
        with self._lock:  # a batch line: the plan applies, but it is not a direct request
            for marker, steps in self.plan.items():
                if marker in text:
                    attempt = self._attempts[marker]
                    self._attempts[marker] += 1
                    return steps[attempt] if attempt < len(steps) else "ok"
            return "ok"

    # -- HTTP ---------------------------------------------------------------------------

    def _handler(self):
        base = super()._handler()
        fake = self

        class Handler(base):
            def do_GET(self):
                parts = self.path.split("?")[0].rstrip("/").split("/")  # ['', 'v1', 'batches', ID]
                if parts[2:] == ["stats"]:  # what the server received (a benchmark's server runs elsewhere)
                    return self._send(200, {"uploads": fake.uploads, "batches_created": fake.batches_created,
                                            "batch_lines": sum(fake.batch_lines.values()),
                                            "distinct_lines": len(fake.batch_lines), "requests": fake.requests,
                                            "bytes_uploaded": sum(len(fake.contents[b["input_file_id"]])
                                                                  for b in fake.batches.values())})
                if len(parts) >= 3 and parts[2] == "batches":
                    if len(parts) == 3:
                        data = list(fake.batches.values())
                        return self._send(200, {"object": "list", "data": data, "has_more": False,
                                                "first_id": data[0]["id"] if data else None,
                                                "last_id": data[-1]["id"] if data else None})
                    batch = fake.batches.get(parts[3])
                    if batch is None:
                        return self._send(404, {"error": {"message": "no such batch", "type": "not_found"}})
                    with fake._lock:
                        fake.retrieves += 1
                    return self._send(200, batch)
                if len(parts) >= 4 and parts[2] == "files":
                    file_id = parts[3]
                    if file_id not in fake.files:
                        return self._send(404, {"error": {"message": "no such file", "type": "not_found"}})
                    if len(parts) == 5 and parts[4] == "content":
                        data = fake.contents[file_id]
                        with fake._lock:
                            fake.downloads += 1
                        self.send_response(200)
                        self.send_header("Content-Type", "application/octet-stream")
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                        return None
                    return self._send(200, fake.files[file_id])
                return super().do_GET()

            def do_POST(self):
                parts = self.path.split("?")[0].rstrip("/").split("/")
                if len(parts) >= 3 and parts[2] == "files":
                    length = int(self.headers.get("Content-Length") or 0)
                    raw = self.rfile.read(length)
                    head = f"Content-Type: {self.headers.get('Content-Type')}\r\n\r\n".encode()
                    message = email.parser.BytesParser().parsebytes(head + raw)
                    fields = {p.get_param("name", header="content-disposition"): p for p in message.get_payload()}
                    data = fields["file"].get_payload(decode=True)
                    purpose = fields["purpose"].get_payload(decode=True).decode() if "purpose" in fields else ""
                    with fake._lock:
                        fake.uploads += 1
                    return self._send(200, fake._new_file(data, purpose, fields["file"].get_filename() or "in"))
                if len(parts) >= 3 and parts[2] == "batches":
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length) or b"{}")
                    if len(parts) == 5 and parts[4] == "cancel":
                        batch = fake.batches.get(parts[3])
                        if batch is None:
                            return self._send(404, {"error": {"message": "no such batch", "type": "not_found"}})
                        with fake._lock:
                            fake.cancels += 1
                        if batch["status"] not in TERMINAL:
                            batch["status"], batch["cancelling_at"] = "cancelling", int(time.time())
                        return self._send(200, batch)
                    if body.get("input_file_id") not in fake.files:
                        return self._send(400, {"error": {"message": "unknown input_file_id",
                                                          "type": "invalid_request_error"}})
                    held, fake.hold_create = fake.hold_create, None
                    if held is not None:
                        fake.holding += 1
                        held.wait()
                        if fake.refuse_held:
                            return self._send(500, {"error": {"message": "not created", "type": "server_error"}})
                    batch = fake._new_batch(body)
                    try:
                        return self._send(200, batch)
                    except OSError:  # the client is gone (killed while it waited): the batch exists anyway
                        return None
                return super().do_POST()

        return Handler


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="0: any free port (printed)")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds per direct call")
    ap.add_argument("--line-seconds", type=float, default=0.0, help="seconds per batch line")
    args = ap.parse_args()
    server = FakeBatchServer(latency=args.latency, port=args.port, line_seconds=args.line_seconds)
    print(f"serving {server.url}", flush=True)
    server._server.serve_forever()
