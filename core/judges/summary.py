"""What a run reports: :class:`RunSummary` (counts, cost, status, failures) and the progress stats every sender
reports while it runs (:func:`stats`). Leaf module: runners, senders and the offline judges all fill one."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from core.judges.runs import OutputRecord

Progress = Callable[[int, int, dict], None]  # (done, total, stats): see stats()


@dataclass
class RunSummary:
    run_id: str
    requested: int
    cached: int = 0
    skipped: int = 0  # already answered in this run before
    sent: int = 0
    shared: int = 0  # pairs answered by the call of another pair of the run with the identical prompt (not sent)
    ok: int = 0
    failed: int = 0
    cost_usd: float | None = 0.0
    cost_known: bool = True
    seconds: float = 0.0
    status: str = "done"
    failed_total: int = 0  # failures recorded for the run, this invocation's and earlier ones
    unparsed_total: int = 0  # answers of the run (counted in ok) that could not be read as the prompt's format
    cost_total: float | None = None  # the whole run's cost so far (None: a price is unknown); cost_usd is this call's
    replayed: int = 0  # answers journaled by an earlier process, stored now without a call
    stored: int = 0  # answers of this invocation committed to the store
    journaled: int = 0  # answers of this invocation written to the journal
    lost: int = 0  # answers received that neither the journal nor the store could keep
    message: str = ""  # after a failed write: what was kept and how to resume
    replicas: list[dict] = field(default_factory=list)  # several endpoints: per replica calls, ok, latency
    failures: list[dict] = field(default_factory=list)

    def close(self, status: str, started: float) -> RunSummary:
        """Record the final ``status`` and the seconds since ``started`` (``time.monotonic()``); returns self."""
        self.status = status
        self.seconds = round(time.monotonic() - started, 3)
        return self

    def count(self, rec: OutputRecord, ext_id: str) -> None:
        """Count one answer (its cost; an unknown price makes the run's unknown) or one failure."""
        if rec.error is not None:
            self.failed += 1
            self.failures.append({"ext_id": ext_id, "error": rec.error})
        elif rec.cost_usd is None:
            self.ok, self.cost_known = self.ok + 1, False
        else:
            self.ok, self.cost_usd = self.ok + 1, (self.cost_usd or 0.0) + rec.cost_usd

    def to_json(self) -> dict:
        d = asdict(self)
        d["failures"] = self.failures[:50]
        if not self.cost_known:
            d["cost_usd"] = None  # unknown price: shown as unknown, never guessed
        return d


def stats(s: RunSummary) -> dict:
    """The progress stats of a run so far (the ``stats`` of :data:`Progress`)."""
    return {"ok": s.ok, "failed": s.failed, "sent": s.sent, "cached": s.cached + s.skipped,
            "cost_usd": s.cost_usd if s.cost_known else None, "run_id": s.run_id}
