"""Answers are durable the moment they arrive: an append-only journal beside the store.

A model run appends every answer it receives to its own file in ``<store>.journal/`` (one JSON
line per answer, written and fsynced before the answer is queued for DuckDB), so an answer that was
paid for survives a store write that fails (disk full, a lock held past its patience, a read-only
store), a kill, or a crash. The journal and the store usually share a disk, so the journal
*reserves* its space before the calls that will fill it are made (``posix_fallocate``, in steps of
``RESERVE_STEP``): a request is sent only when the reserved space left holds an answer for it and
for every call in flight (``PER_ANSWER`` bytes each). When the disk cannot give more, the run stops
sending, and the answers still coming in land in space already reserved. A file is named ``<run_id>.<pid>-<process start>.jsonl``: when its
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
import threading
from pathlib import Path

from core.judges.leases import Process, this_process
from core.judges.runs import OutputRecord, write_outputs
from core.store.db import Store

_FIELDS = ("pair_id", "cache_key", "raw_text", "latency_ms", "tokens_in", "tokens_out", "cost_usd")
PER_ANSWER = 64 * 1024  # bytes reserved per call in flight (a 16k-token answer as JSON)
RESERVE_STEP = 1024 * 1024


class JournalFull(OSError):
    """The disk cannot give the journal the space an answer needs: send nothing more."""


def journal_dir(store: Store) -> Path:
    return store.path.with_name(store.path.name + ".journal")


class Journal:
    """This process's journal of one run (thread-safe: answers arrive from worker threads)."""

    def __init__(self, store: Store, run_id: str):
        me = this_process()
        self.path = journal_dir(store) / f"{run_id}.{me.pid}-{me.start or 0}.jsonl"
        self._fd: int | None = None
        self._lock = threading.Lock()
        self.offset = 0  # where the next record goes
        self.reserved = 0  # bytes allocated on disk for this file
        self.count = 0

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(mode=0o700, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600)
        return self._fd

    def _reserve(self, need: int) -> None:
        fd = self._open()
        size = max(need, RESERVE_STEP)
        try:
            os.posix_fallocate(fd, self.reserved, size)
        except OSError as exc:
            raise JournalFull(exc.errno, f"no disk space left for the journal {self.path}: {exc.strerror}") from exc
        self.reserved += size

    def make_room(self, in_flight: int) -> None:
        """Before a call: reserved space for its answer and the ``in_flight`` others, or :class:`JournalFull`."""
        need = (in_flight + 1) * PER_ANSWER
        if self.reserved - self.offset >= need + PER_ANSWER:
            # enough room by a snapshot (with one answer's margin for an append in progress, which reserves
            # what it writes itself): no wait for the lock an fsync in another thread may hold for milliseconds,
            # on the event loop that every call shares
            return
        with self._lock:
            if self.reserved - self.offset < need:
                self._reserve(need - (self.reserved - self.offset))

    def append(self, rec: OutputRecord) -> None:
        """Write one answer and fsync it; raises OSError when the disk refuses (the caller stops)."""
        self.append_many([rec])

    def append_many(self, records: list[OutputRecord]) -> None:
        """Write several answers with one fsync (a downloaded batch file's); OSError as :meth:`append`."""
        data = b"".join((json.dumps({k: getattr(r, k) for k in _FIELDS}, ensure_ascii=False) + "\n").encode("utf-8")
                        for r in records)
        if not data:
            return
        with self._lock:
            fd = self._open()
            if self.offset + len(data) > self.reserved:
                self._reserve(self.offset + len(data) - self.reserved)
            os.pwrite(fd, data, self.offset)
            os.fsync(fd)
            self.offset += len(data)
            self.count += len(records)

    def close(self, committed: bool) -> None:
        """Close the file; delete it when every answer in it is committed to the store, else give
        back the space reserved beyond its records."""
        with self._lock:
            if self._fd is not None:
                try:
                    if not committed:
                        os.ftruncate(self._fd, self.offset)
                    os.close(self._fd)
                except OSError:
                    pass
                self._fd = None
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
    with open(path, "rb") as fh:
        text = fh.read().split(b"\0", 1)[0].decode("utf-8", "replace")  # reserved space reads as NULs
        for line in text.splitlines():
            try:
                d = json.loads(line)
                out.append(OutputRecord(**{k: d.get(k) for k in _FIELDS}))
            except (ValueError, TypeError):
                continue
    return out


def replay(store: Store, run_id: str, prompt_id: str | None) -> int:
    """Store the answers that earlier processes of ``run_id`` journaled but did not commit.

    Returns how many answers the store gained from them (a journal holds every answer its process
    received, the ones it committed too: those are dropped by the write's reconciliation). A file is
    deleted only after its answers are committed.
    """
    files = pending_files(store, run_id)
    if not files:
        return 0
    count = ("SELECT count(*) FROM judge_outputs WHERE run_id = ? AND error IS NULL")
    before = store.query_one(count, [run_id])
    for path in files:
        records = read_records(path)
        for start in range(0, len(records), 500):
            write_outputs(store, run_id, records[start:start + 500], prompt_id)
        path.unlink()
    return store.query_one(count, [run_id]) - before


def pending_count(store: Store, run_id: str | None = None) -> int:
    """Answers waiting in journal files of processes that are gone."""
    return sum(len(read_records(path)) for path in pending_files(store, run_id))
