"""The one sending contract: how a run's prompts left to send reach the model.

:func:`core.judges.execute.execute_plan` prepares a run (journal replayed, answered pairs skipped, cache keys
leased, cached answers copied) and hands what is left to a :class:`Sender`, with a :class:`SendContext`. Two
senders implement it: :class:`core.judges.calls.CallSender` (one call per prompt, over one endpoint or, with a
:class:`~core.judges.replicas.ReplicaCaller`, over several replicas) and :class:`core.judges.batch.BatchSender`
(a provider's batch API). Every sender records answers through the context's
:class:`~core.judges.recorder.Recorder`, stops when it is stopped or the cancel is set, and returns
``(status, totals)``: status ``done``, ``cancelled`` or ``failed``; the run's totals, None after a failed write.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core.judges.plan import WorkItem
from core.judges.recorder import Recorder

CANCEL_GRACE = 15.0  # seconds calls in flight get to answer after a cancel or a stop (they are paid for)


@dataclass
class SendContext:
    """What a sender needs besides its work: the caller (its model, settings, retries), how many calls at once,
    the cancel, how often answers are committed, and the recorder."""

    caller: object  # core.judges.caller.Caller (or a subclass)
    concurrency: int
    recorder: Recorder
    cancel: threading.Event | None = None
    flush_interval: float = 0.5

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def outcome(self) -> str:
        """The status a sender ends with: failed after a write failed, cancelled, else done."""
        return "failed" if self.recorder.stopped.is_set() else ("cancelled" if self.cancelled else "done")


class Sender(Protocol):
    async def send(self, work: Sequence[WorkItem], ctx: SendContext) -> tuple[str, dict | None]:
        """Send ``work`` (its prompts, each once), record every answer, close the run; (status, totals)."""
        ...
