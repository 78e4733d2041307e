"""The call sender (:class:`CallSender`, the :mod:`core.judges.sending` contract): one call per distinct
prompt, ``concurrency`` in flight (an asyncio semaphore), answers journaled as they arrive and committed in
small batches (every ``flush_interval`` seconds, adapting to what a commit costs).

Pairs with the identical prompt share one call: the others get its answer unpaid, as a cache hit is
(``RunSummary.shared``). A write that fails, or a store that took no answer for its patience
(:mod:`core.judges.patience`), stops the run: no call (nor retry) starts after it; calls in flight get
``CANCEL_GRACE`` seconds to answer and be journaled, as after a cancel.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import replace

from core.judges import leases
from core.judges.caller import NOT_SENT
from core.judges.patience import WriteClock, overdue_message
from core.judges.plan import WorkItem
from core.judges.runs import OutputRecord
from core.judges.sending import CANCEL_GRACE, SendContext


class CallSender:
    """Direct calls (one endpoint, or several replicas: the caller decides where each attempt goes)."""

    async def send(self, work: Sequence[WorkItem], ctx: SendContext) -> tuple[str, dict | None]:
        recorder = ctx.recorder
        store, summary, caller = recorder.store, recorder.summary, ctx.caller
        sem = asyncio.Semaphore(ctx.concurrency)
        pending: list[OutputRecord] = []
        lock = asyncio.Lock()
        finished = asyncio.Event()
        clock = WriteClock(store.timeout)  # the store's patience, once for the whole run (core.judges.patience)

        def halted() -> bool:
            if not recorder.stopped.is_set() and clock.overdue():
                recorder.fail("could not write the store", overdue_message(store, clock.patience))
            return recorder.stopped.is_set() or ctx.cancelled

        caller.halted = halted
        in_flight = [0]

        async def one(pair_ids: list[str], messages: list[dict], key: str):
            async with sem:
                if halted():
                    return
                try:  # the answer's place in the journal (one record per pair of the prompt) is reserved before
                    recorder.journal.make_room(in_flight[0] + len(pair_ids) - 1)  # the call is paid for
                except OSError as exc:
                    recorder.fail("stopped before sending", exc)
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
            await asyncio.to_thread(recorder.keep, records)  # durable before anything else happens to it
            async with lock:
                pending.extend(records)
                clock.received()
                summary.shared += len(records) - 1
                recorder.count(records)
            recorder.report()

        renewed = [time.monotonic()]

        async def flusher():
            wait = ctx.flush_interval
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
                        await asyncio.to_thread(recorder.write, batch)
                    clock.written()
                    await asyncio.to_thread(leases.renew_quietly, store, renewed)
                    # a commit opens and closes the store (0.1-0.2 s of CPU here): at most a fifth of the time goes
                    # to them, every answer being in the fsynced journal meanwhile; never more than a sixth of the
                    # store's patience, which counts how long the oldest answer waits (core.judges.patience)
                    wait = min(max(ctx.flush_interval, 4 * (time.monotonic() - began)),
                               max(ctx.flush_interval, clock.patience / 6))
                    if finished.is_set():
                        async with lock:
                            rest = pending[:]
                            pending.clear()
                        # the last answers and the run's totals in one transaction
                        return await asyncio.to_thread(recorder.write, rest, status)
                except Exception as exc:  # disk full, lock held too long, read-only: stop sending now
                    recorder.fail("could not write the store", exc)
                    await finished.wait()
                    return None

        status = "done"
        writer = asyncio.create_task(flusher())
        prompts: dict[str, list[WorkItem]] = {}  # cache key -> the work items of its pairs: one call per prompt
        for w in work:
            prompts.setdefault(w.key, []).append(w)
        tasks = [asyncio.create_task(one([w.pair_id for w in items], items[0].messages, key))
                 for key, items in prompts.items()]

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
        status = ctx.outcome()
        finished.set()
        totals = await writer
        return status, totals
