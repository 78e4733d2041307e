"""The one answer recorder of a run's senders (direct calls, replicas, batch): every answer is journaled
(fsynced, :mod:`core.judges.journal`) the moment it arrives, committed to the store with ``write_outputs``,
counted in the run's :class:`~core.judges.summary.RunSummary` and reported as progress.

A journal or store write that fails stops the run (:meth:`Recorder.fail`): the first failure's one-line
message goes in the summary, :attr:`Recorder.stopped` is set, and every sender starts nothing after it.
"""

from __future__ import annotations

import threading

from core.judges.patience import one_line
from core.judges.runs import OutputRecord, write_outputs
from core.judges.summary import Progress, RunSummary, stats
from core.store.db import Store


class Recorder:
    """One invocation's answers of one run (see the module docstring)."""

    def __init__(self, store: Store, run_id: str, prompt_id: str, journal, summary: RunSummary, total: int,
                 progress: Progress | None, ext_of: dict[str, str]):
        self.store, self.run_id, self.prompt_id, self.journal = store, run_id, prompt_id, journal
        self.summary, self.total, self.progress, self.ext_of = summary, total, progress, ext_of
        self.stopped = threading.Event()  # a write failed: nothing more is sent

    def fail(self, what: str, exc: BaseException | str) -> None:
        """Stop the run after a failed write; the first failure's message is the one kept."""
        if not self.stopped.is_set():
            self.summary.message = f"{what}: {one_line(exc)}"
        self.stopped.set()

    def keep(self, records: list[OutputRecord]) -> None:
        """Journal the answers among ``records`` (one fsync): durable before anything else happens to them."""
        answers = [r for r in records if r.error is None]
        if not answers:
            return
        try:
            self.journal.append_many(answers)
            self.summary.journaled += len(answers)
        except OSError as exc:
            self.summary.lost += len(answers)
            self.fail(f"could not write the journal {self.journal.path}", exc)

    def count(self, records: list[OutputRecord]) -> None:
        """Count answers and failures in the summary (each failure with its pair's ext_id)."""
        for rec in records:
            self.summary.count(rec, self.ext_of.get(rec.pair_id, rec.pair_id))

    def write(self, records: list[OutputRecord], finish: str | None = None) -> dict | None:
        """Commit ``records`` (and with ``finish`` the run's end) in one transaction; raises when the store
        refuses. Returns the run's totals when ``finish`` is given."""
        result = write_outputs(self.store, self.run_id, records, self.prompt_id, finish)
        self.summary.stored += sum(1 for r in records if r.error is None)
        return result

    def store_now(self, records: list[OutputRecord]) -> None:
        """Journal, commit, count and report ``records`` at once (a sender that receives answers in bulk)."""
        if not records:
            return
        self.keep(records)
        try:
            self.write(records)
        except Exception as exc:
            self.fail("could not write the store", exc)
        self.count(records)
        self.report()

    def finish(self, status: str) -> dict | None:
        """Close the run with ``status``: its totals, or None after a failed write (the journal keeps them)."""
        if self.stopped.is_set():
            return None
        return write_outputs(self.store, self.run_id, [], self.prompt_id, finish=status)

    def report(self) -> None:
        if self.progress:
            s = self.summary
            self.progress(s.ok + s.failed, self.total, stats(s))
