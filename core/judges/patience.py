"""The store's patience over a whole model run, and what a run says after a write failed.

A run's answers wait in memory (and in the journal, :mod:`core.judges.journal`) until the flusher
commits them. Each open of the store waits up to ``Store.timeout`` (``RADCONCORD_STORE_TIMEOUT``,
30 s) for a lock, but a run's writes can wait several times in turn: behind the job's heartbeat,
which holds the process's write lock while it waits for the file, then for the file itself, then
the lease renewal. :class:`WriteClock` measures what matters instead: how long the oldest answer
received has waited to be written. Once that reaches the patience the run stops sending (one
patience per run, however the waits add up); the answers are in the journal and a resume stores
them without paying again.
"""

from __future__ import annotations

import re
import threading
import time

from core.judges import leases
from core.store.db import Store


class WriteClock:
    """Since when answers have waited to be written: ``received`` as each arrives, ``taken`` when the
    flusher takes them to write, ``written`` when that commit succeeded. Thread-safe (answers arrive
    on the event loop, the flusher writes in a thread)."""

    def __init__(self, patience: float, clock=time.monotonic):
        self.patience = float(patience)
        self._clock = clock
        self._guard = threading.Lock()
        self._pending: float | None = None  # arrival of the oldest answer not yet taken by the flusher
        self._writing: float | None = None  # arrival of the oldest answer in the write under way

    def received(self) -> None:
        with self._guard:
            if self._pending is None:
                self._pending = self._clock()

    def taken(self) -> None:
        with self._guard:
            if self._pending is not None:
                self._writing = self._pending if self._writing is None else min(self._writing, self._pending)
            self._pending = None

    def written(self) -> None:
        with self._guard:
            self._writing = None

    def waited(self) -> float:
        """Seconds the oldest unwritten answer has waited (0 when every answer received is written)."""
        with self._guard:
            since = [t for t in (self._pending, self._writing) if t is not None]
        return self._clock() - min(since) if since else 0.0

    def overdue(self) -> bool:
        return self.waited() >= self.patience


def overdue_message(store: Store, patience: float) -> str:
    return (f"store {store.path} took no answer for {patience:g} s (the store's patience, RADCONCORD_STORE_TIMEOUT): "
            "it stayed locked by another connection (this or another process) or could not finish a write; "
            "no request was sent after that")


def impatient(store: Store) -> Store:
    """The same store with a short lock patience: bookkeeping after a write already failed."""
    return Store(store.path, timeout=min(store.timeout, 3.0))


def one_line(exc: BaseException | str) -> str:
    return re.sub(r"\s+", " ", str(exc)).strip()[:800]


def kept_message(summary, journal) -> str:
    """One line after a failed write: what this invocation received, stored, journaled and lost
    (``summary``: core.judges.llm.RunSummary)."""
    waiting = summary.journaled - summary.stored
    text = (f"{summary.message}; of {summary.ok - summary.skipped - summary.cached:,} answers received "
            f"{summary.stored:,} are in the store and {max(0, waiting):,} are kept in the journal "
            f"{journal.path.parent}")
    if summary.lost:
        text += f"; {summary.lost:,} could not be kept (the journal's disk refused them too)"
    job = leases.current_job()
    again = f"`python -m core resume {job}`" if job.startswith("job-") else "run the same command again"
    return text + (f"; to finish, {again} (or run the same command again): journaled answers are stored "
                   "without being sent again, and only pairs without an answer are sent")
