"""Answers are durable the moment they arrive: an append-only journal beside the store.

A model run appends every answer it receives to its own file in ``<store>.journal/`` (one JSON
line per answer, flushed and fsynced before the answer is queued for DuckDB), so an answer that was
paid for survives a store write that fails (disk full, a lock held past its patience, a read-only
store), a kill, or a crash. A file is named ``<run_id>.<pid>-<process start>.jsonl``: when its
process is gone, the next run of the same run id replays it (:func:`replay`: the answers are
written to the store exactly as a direct write would have written them, and nothing is sent for
them) and deletes it. A run that ends with everything committed deletes its own file.

The journal holds judge answers, which may quote report text: it lives beside the store, is
readable by its owner only (0600 files in a 0700 folder), and goes wherever the store goes.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from core.judges.leases import Process, this_process
from core.judges.runs import OutputRecord, write_outputs
from core.store.db import Store

_FIELDS = ("pair_id", "cache_key", "raw_text", "latency_ms", "tokens_in", "tokens_out", "cost_usd")


def journal_dir(store: Store) -> Path:
    return store.path.with_name(store.path.name + ".journal")


class Journal:
    """This process's journal of one run."""

    def __init__(self, store: Store, run_id: str):
        me = this_process()
        self.path = journal_dir(store) / f"{run_id}.{me.pid}-{me.start or 0}.jsonl"
        self._fh = None
        self.count = 0

    def append(self, rec: OutputRecord) -> None:
        """Write one answer and fsync it; raises OSError when the disk refuses (the caller stops)."""
        if self._fh is None:
            self.path.parent.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self._fh = os.fdopen(fd, "a", encoding="utf-8")
        self._fh.write(json.dumps({k: getattr(rec, k) for k in _FIELDS}, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.count += 1

    def close(self, committed: bool) -> None:
        """Close the file; delete it when every answer in it is committed to the store."""
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:
                pass
            self._fh = None
        if committed and self.path.exists():
            self.path.unlink()


def _owner(path: Path) -> Process | None:
    try:
        pid, start = path.name.rsplit(".", 2)[1].split("-")
        return Process(int(pid), socket.gethostname(), int(start) or None)
    except (ValueError, IndexError):
        return None


def pending_files(store: Store, run_id: str | None = None) -> list[Path]:
    """Journal files left by processes that are gone (of one run, or of every run)."""
    folder = journal_dir(store)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(f"{run_id or '*'}.*.jsonl")):
        owner = _owner(path)
        if owner is None or owner.alive() is False:
            found.append(path)
    return found


def read_records(path: Path) -> list[OutputRecord]:
    """The answers in a journal file (a line cut short by a crash is skipped)."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                d = json.loads(line)
                out.append(OutputRecord(**{k: d.get(k) for k in _FIELDS}))
            except (ValueError, TypeError):
                continue
    return out


def replay(store: Store, run_id: str, prompt_id: str | None) -> int:
    """Store the answers that earlier processes of ``run_id`` journaled but did not commit.

    Returns how many records were replayed (answers already stored are dropped by the write's
    reconciliation). A file is deleted only after its answers are committed.
    """
    n = 0
    for path in pending_files(store, run_id):
        records = read_records(path)
        for start in range(0, len(records), 500):
            write_outputs(store, run_id, records[start:start + 500], prompt_id)
        n += len(records)
        path.unlink()
    return n


def pending_count(store: Store, run_id: str | None = None) -> int:
    """Answers waiting in journal files of processes that are gone."""
    total = 0
    for path in pending_files(store, run_id):
        with open(path, "rb") as fh:
            total += sum(1 for _ in fh)
    return total
