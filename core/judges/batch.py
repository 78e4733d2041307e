"""``judge --batch``: a run's prompts sent through a provider's batch API instead of one call each.

The run is the direct run's in every other respect (:func:`core.judges.execute.execute_plan`: the journal
is replayed, answered pairs skipped, cache keys leased, cached answers copied); only the pairs left
to send go here, to :class:`BatchSender` (the :mod:`core.judges.sending` contract). Their prompts are written as JSONL request lines (:mod:`.batchfiles`, custom_id =
cache key), cut into files at the provider's limits, uploaded (``litellm.create_file``) and made into
batches (``litellm.create_batch``), each recorded in ``job_batches`` (:mod:`.batchstore`) before it is
polled. Then each open batch is read (``litellm.retrieve_batch``: after 1 s, then at doubling intervals up
to every ``poll_seconds``, so a small batch is collected soon and a day-long one is not polled often) and its state
and counts recorded (what ``jobs`` and the Run page show); a finished batch's output and error files
are streamed (``litellm.file_content``) and its answers journaled and stored as they come, each as a
direct call's answer would be (same cache key, same row, parsed the same way), priced at the batch
price. Failed lines worth sending again (5xx, 429, lines an expired or cancelled batch never reached)
go in a new batch (``retry="batch"``, up to ``max_rounds`` rounds) or as direct calls
(``retry="direct"``); other failures are recorded on their pairs. A restarted process (``resume``,
or the same command again) finds the run's open batches in the store and polls them instead of
sending their prompts again. A cancel cancels the open batches at the provider and stores what they
had answered.

Only OpenAI-compatible batch endpoints are driven: models of provider ``openai`` (OpenAI's API) or any
model at an ``--api-base`` that serves ``/v1/files`` and ``/v1/batches`` (e.g. a LiteLLM proxy in front of
vLLM, whose own server has no such routes). Nothing was run against a real provider's batch API here
(docs/SCALE.md).
"""

from __future__ import annotations

import asyncio
import threading
import time

from core.judges import batchstore, leases
from core.judges.batchfiles import (  # noqa: F401  (RETRY_MODES, BatchOptions: importable from here)
    ENDPOINT,
    RETRY_MODES,
    BatchOptions,
    BatchPrice,
    iter_lines,
    read_result,
    request_line,
    split_files,
)
from core.judges.caller import check_model
from core.judges.calls import CallSender
from core.judges.endpoints import safe_api_base
from core.judges.retry import call_with_retries, retryable, short_error
from core.judges.runs import OutputRecord
from core.judges.sending import CANCEL_GRACE, SendContext

BATCH_PROVIDERS = ("openai",)  # providers whose own API serves OpenAI's batch endpoints
WRITE_EVERY = 500  # answers stored per transaction while a result file streams in


def batch_problem(model: str, api_base: str | None) -> str | None:
    """Why ``model`` at ``api_base`` cannot run as a batch (one line), or None when it can."""
    if api_base:
        return None  # an OpenAI-compatible server: its /v1/files and /v1/batches are used
    provider = check_model(model, None)
    if provider not in BATCH_PROVIDERS:
        return (f"--batch drives OpenAI-compatible batch endpoints: model '{model}' is served by {provider}; "
                f"use a model of provider {' or '.join(BATCH_PROVIDERS)}, or --api-base of a server that offers "
                "/v1/files and /v1/batches")
    return None


class BatchSender:
    """The batch API's sender: the run's prompts in batches; with ``retry="direct"`` what the batches did not
    answer goes as direct calls (:class:`~core.judges.calls.CallSender`)."""

    def __init__(self, options: dict | BatchOptions | None, model: str, api_base: str | None):
        self.opts = options if isinstance(options, BatchOptions) else BatchOptions.from_dict(options)
        problem = batch_problem(model, api_base)
        if problem:
            raise ValueError(problem)
        self.job = leases.current_job()  # read here, in the run's thread: the batches are recorded with this job

    async def send(self, work, ctx: SendContext) -> tuple[str, dict | None]:
        run = BatchRun(ctx, self.opts, self.job)
        status, leftovers = await asyncio.to_thread(run.rounds, work)
        if leftovers:
            return await CallSender().send([w for w in work if w.key in leftovers], ctx)
        return status, await asyncio.to_thread(ctx.recorder.finish, status)


class BatchRun:
    """One invocation's batches of one run (runs in a worker thread: every call here blocks)."""

    def __init__(self, ctx: SendContext, opts: BatchOptions, job: str):
        recorder, caller = ctx.recorder, ctx.caller
        self.store, self.run_id, self.caller, self.opts = recorder.store, recorder.run_id, caller, opts
        self.recorder, self.summary = recorder, recorder.summary
        self.cancel = ctx.cancel or threading.Event()
        self.litellm = caller.litellm
        self.model_name = self.litellm.get_llm_provider(caller.model, api_base=caller.api_base)[0]
        self.provider = {"custom_llm_provider": "openai"}
        if caller.api_base:
            self.provider["api_base"] = caller.api_base
        if caller.api_key:
            self.provider["api_key"] = caller.api_key
        self.endpoint = safe_api_base(caller.api_base)
        self.price = BatchPrice(self.litellm, caller.model)
        self.job = job
        self.pairs_of: dict[str, list[str]] = {}
        self.messages: dict[str, list[dict]] = {}
        self.open: dict[str, dict] = {}  # input_file_id -> its job_batches row
        self.last_error: dict[str, str] = {}
        self.round_of: dict[str, int] = {}  # the round of the last batch that held each key
        self.renewed = [time.monotonic()]

    # -- the rounds --------------------------------------------------------------------

    def rounds(self, to_send) -> tuple[str, set[str]]:
        """Submit, poll and collect until every key is answered or given up; (status, keys left for direct)."""
        for w in to_send:
            self.pairs_of.setdefault(w.key, []).append(w.pair_id)
            self.messages[w.key] = w.messages
        rows = batchstore.open_batches(self.store, self.run_id)
        elsewhere = sorted({r["endpoint"] or "the provider's default" for r in rows if r["endpoint"] != self.endpoint})
        if elsewhere:
            raise ValueError(f"run {self.run_id} has batches open at {', '.join(elsewhere)}; run it again with "
                             "that --api-base to collect them (nothing was sent)")
        batchstore.adopt(self.store, [r["input_file_id"] for r in rows], self.job)
        self.open = {r["input_file_id"]: r for r in rows}
        for r in rows:
            for k in r["keys"]:
                self.round_of[k] = max(self.round_of.get(k, 0), int(r["round"]))
        pending = [k for k in self.pairs_of if k not in self.round_of]
        try:
            while not self._stopped():
                if pending:  # each key's next round; past max_rounds its last error is recorded on its pairs
                    nxt = {k: self.round_of.get(k, -1) + 1 for k in pending}
                    self._store([self._failure(k, self.last_error.get(k, "not answered"))
                                 for k in pending if nxt[k] >= self.opts.max_rounds])
                    for round_no in sorted({r for r in nxt.values() if r < self.opts.max_rounds}):
                        self._submit([k for k in pending if nxt[k] == round_no], round_no)
                    pending = []
                if not self.open:
                    break
                pending = self._poll()
                if pending and self.opts.retry == "direct" and not self._stopped():
                    return "done", set(pending)
        except BatchWriteFailed:
            pass
        if self.recorder.stopped.is_set():
            return "failed", set()
        return ("cancelled" if self.cancel.is_set() else "done"), set()

    def _stopped(self) -> bool:
        return self.recorder.stopped.is_set() or self.cancel.is_set()

    # -- provider calls ------------------------------------------------------------------

    def _call(self, function, **kwargs):
        """A provider call with the caller's retries (the one retry policy: core.judges.retry), then it raises."""
        return call_with_retries(lambda: getattr(self.litellm, function)(**kwargs, **self.provider),
                                 self.caller.max_retries, self.caller.backoff, self.cancel.is_set)

    def _submit(self, keys: list[str], round_no: int) -> None:
        lines = [(k, request_line(k, self.model_name, self.messages[k], self.caller.params)) for k in keys]
        files, too_big = split_files(lines, self.opts.max_requests, self.opts.max_bytes)
        self._store([self._failure(k, f"the prompt is longer than a batch file may be ({self.opts.max_bytes:,} "
                                      "bytes)") for k in too_big])
        for chunk in files:
            if self._stopped():
                return
            data = b"".join(line for _, line in chunk)
            chunk_keys = [k for k, _ in chunk]
            try:
                upload = self._call("create_file", file=("radconcord-batch.jsonl", data, "application/jsonl"),
                                    purpose="batch")
            except Exception as exc:
                self._store([self._failure(k, self._error("upload", exc)) for k in chunk_keys])
                continue
            batchstore.record_upload(self.store, file_id=upload.id, run_id=self.run_id, job_id=self.job,
                                     endpoint=self.endpoint, round_no=round_no, keys=chunk_keys, n_bytes=len(data))
            row = {"input_file_id": upload.id, "batch_id": None, "keys": chunk_keys}
            self.round_of.update(dict.fromkeys(chunk_keys, round_no))
            self.open[upload.id] = row
            self.summary.sent += len(chunk_keys)
            self._create(row)
        self._report()

    def _create(self, row: dict) -> None:
        """Make (or, after a restart, find) the batch of an uploaded file and record its id."""
        try:
            found = None
            if row.get("state") == "creating":  # a process died between upload and create: look first
                listed = self._call("list_batches", limit=100)
                found = next((b for b in getattr(listed, "data", []) if b.input_file_id == row["input_file_id"]),
                             None)
            batch = found or self._call("create_batch", completion_window=self.opts.completion_window,
                                        endpoint=ENDPOINT, input_file_id=row["input_file_id"],
                                        metadata={"radconcord_run": self.run_id})
        except Exception as exc:
            error = self._error("create the batch", exc)
            self._store([self._failure(k, error) for k in row["keys"]])
            batchstore.record_collected(self.store, row["input_file_id"], 0, error, state="failed")
            self.open.pop(row["input_file_id"], None)
            return
        batchstore.record_state(self.store, row["input_file_id"], batch)
        row["batch_id"], row["state"] = batch.id, batch.status

    def _poll(self) -> list[str]:
        """Poll until no batch is open (or a cancel's grace ends); the keys to send again."""
        again: list[str] = []
        cancelled_at = None
        wait = min(1.0, self.opts.poll_seconds)
        while self.open:
            for file_id, row in list(self.open.items()):
                if row["batch_id"] is None:
                    self._create(row)
                    continue
                try:
                    batch = self._call("retrieve_batch", batch_id=row["batch_id"])
                except Exception as exc:  # unreachable now: keep the batch and try next time
                    row["message"] = self._error("read the batch", exc)
                    if not transient(exc):  # refused (a 401, a 404): say so on its pairs; a resume may still
                        self._store([self._failure(k, row["message"]) for k in row["keys"]])  # collect it
                        del self.open[file_id]
                    continue
                batchstore.record_state(self.store, file_id, batch)
                if batch.status in batchstore.TERMINAL:
                    again += self._collect(row, batch)
                    del self.open[file_id]
            self._report()
            leases.renew_quietly(self.store, self.renewed)
            if self.recorder.stopped.is_set() or not self.open:
                break
            if self.cancel.is_set():
                if cancelled_at is None:
                    cancelled_at = time.monotonic()
                    self._cancel_open()
                elif time.monotonic() - cancelled_at > CANCEL_GRACE:
                    break  # still open at the provider: recorded, a resume collects them
                time.sleep(min(self.opts.poll_seconds, 1.0))
            else:
                self.cancel.wait(wait)
                wait = min(self.opts.poll_seconds, wait * 2)
        return [k for k in dict.fromkeys(again) if k in self.pairs_of]

    def _cancel_open(self) -> None:
        for row in self.open.values():
            if row["batch_id"]:
                try:
                    self._call("cancel_batch", batch_id=row["batch_id"])
                except Exception:  # already finished, or unreachable: the next poll tells
                    pass

    # -- results --------------------------------------------------------------------------

    def _collect(self, row: dict, batch) -> list[str]:
        """Store a finished batch's answers and final failures as they stream in; the keys to send again."""
        file_id, keys = row["input_file_id"], row["keys"]
        latency = batchstore.age_seconds(self.store, file_id) * 1000  # upload to results: the line's wait
        if batch.status == "failed":  # the whole batch was refused (e.g. validation): say why on every pair
            errors = getattr(getattr(batch, "errors", None), "data", None) or []
            why = "; ".join(str(getattr(e, "message", e)) for e in errors[:3]) or "no reason given"
            self._store([self._failure(k, f"the batch failed at the provider: {why}") for k in keys])
            batchstore.record_collected(self.store, file_id, 0, why)
            return []
        seen: set[str] = set()
        wanted = set(keys)
        again: list[str] = []
        stored = 0
        for result_file in (batch.output_file_id, batch.error_file_id):
            if not result_file:
                continue
            pending: list[OutputRecord] = []
            stream = self._call("file_content", file_id=result_file, stream=True)
            for obj in iter_lines(stream.stream_iterator):
                r = read_result(obj)
                if r.key in seen or r.key not in wanted:
                    continue
                seen.add(r.key)
                if r.text is not None:
                    pending += self._answers(r, latency)
                    stored += 1
                elif r.retry:
                    again.append(r.key)
                    self.last_error[r.key] = r.error
                else:
                    pending += self._failure(r.key, r.error)
                if len(pending) >= WRITE_EVERY:
                    self._store(pending)
                    pending = []
            self._store(pending)
        missing = [k for k in keys if k not in seen]  # in neither file: the provider never answered them
        for k in missing:
            self.last_error[k] = f"not in the {batch.status} batch's result files"
        batchstore.record_collected(self.store, file_id, stored)
        return again + missing

    def _answers(self, r, latency: float) -> list[OutputRecord]:
        text = self.caller.scrub(r.text)  # as a direct call's: a key repeated in an answer is cut out
        cost = self.price.cost(r.tokens_in, r.tokens_out)
        return [OutputRecord(pair_id=p, cache_key=r.key, raw_text=text, latency_ms=latency, tokens_in=r.tokens_in,
                             tokens_out=r.tokens_out, cost_usd=cost) for p in self.pairs_of.get(r.key, [])]

    def _failure(self, key: str, error: str) -> list[OutputRecord]:
        return [OutputRecord(pair_id=p, cache_key=key, error=error) for p in self.pairs_of.get(key, [])]

    def _store(self, records) -> None:
        """Journal the answers (one fsync), then store answers and failures in one transaction (the recorder)."""
        self.recorder.store_now([r for group in records for r in (group if isinstance(group, list) else [group])])
        if self.recorder.stopped.is_set():
            raise BatchWriteFailed

    def _error(self, what: str, exc: Exception) -> str:
        return short_error(exc, self.caller.api_key, f"could not {what} at the provider: ")

    def _report(self) -> None:
        self.recorder.report()


def transient(exc: Exception) -> bool:
    """A provider error worth trying again, by the gateway's rule for a call (a dropped connection, a timeout,
    a retryable status); any other error without a status (a bug, a malformed answer) is not polled forever."""
    return retryable(exc)


class BatchWriteFailed(RuntimeError):
    """A store or journal write failed: stop; the provider keeps the results, a resume collects them."""
