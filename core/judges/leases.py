"""Who is sending a prompt now: leases on cache keys, and whether a process is still alive.

Before a model run sends its prompts it claims their cache keys (the same prompt to the same model
with the same parameters) in the store's ``job_leases`` table, in one write transaction. DuckDB lets
one process write at a time, so two runs started in the same second cannot both claim a key: the
second finds the first's lease and stops with :class:`RunBusy` naming the job that holds it, before
it sends anything. A lease names its holder's process (pid, host, and the process's start time so a
reused pid is not mistaken for it); a holder that has died (SIGKILL, reboot) no longer holds anything
on its own host, and a holder on another host holds a key until ``expires_at``, which it renews while
it runs. Leases are released when the run ends, whatever the outcome.

Lease writes bump the store's ``job_version``, not ``data_version`` (see ``core.store.db.Store.write``).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

import pandas as pd

from core.store.db import Store

LEASE_SECONDS = 120  # a holder on another host keeps its keys this long without a renewal
RENEW_SECONDS = 30


class RunBusy(RuntimeError):
    """Another live process is sending some of these prompts now; nothing was sent."""


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the process name (Linux), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()  # the name in () may hold spaces


def proc_start(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux ``/proc``), or None elsewhere."""
    fields = _stat(pid)
    try:
        return int(fields[19]) if fields else None  # field 22 of stat
    except (IndexError, ValueError):
        return None


@dataclass(frozen=True)
class Process:
    """A process as the store records it."""

    pid: int
    host: str
    start: int | None

    def alive(self, now_host: str | None = None) -> bool | None:
        """True/False on this host; None when the process lives on another host (use its expiry)."""
        if self.host != (now_host or socket.gethostname()):
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's process: it exists
            pass
        fields = _stat(self.pid)
        if fields and fields[0] in ("Z", "X"):  # ended, not yet reaped by its parent
            return False
        if self.start is not None and fields is not None:
            return proc_start(self.pid) == self.start
        return True


def this_process() -> Process:
    pid = os.getpid()
    return Process(pid, socket.gethostname(), proc_start(pid))


def holder_alive(pid, host, start, unexpired: bool = False) -> bool:
    """Is the recorded holder still there? Its own host answers exactly; another host: until its
    lease or heartbeat expires (``unexpired``, computed by the store's clock)."""
    if pid is None or host is None or pd.isna(pid) or pd.isna(host):
        return False
    alive = Process(int(pid), str(host), None if pd.isna(start) else int(start)).alive()
    return bool(unexpired) if alive is None else alive


_LIVE = ("SELECT cache_key, job_id, pid, host, proc_start, expires_at > CAST(now() AS TIMESTAMP) AS unexpired "
         "FROM job_leases WHERE cache_key IN (SELECT unnest(?::VARCHAR[]))")


def claim(store: Store, keys: list[str], job_id: str) -> None:
    """Lease ``keys`` for this process (as ``job_id``), or raise :class:`RunBusy` and lease nothing.

    Keys held by a dead holder are taken over; keys this process holds already are renewed.
    """
    if not keys:
        return
    me = this_process()
    with store.write("job_version") as conn:
        rows = conn.execute(_LIVE, [keys]).df()
        mine = (rows["pid"] == me.pid) & (rows["host"] == me.host)
        others = rows[~mine]
        live = others[[holder_alive(r.pid, r.host, r.proc_start, r.unexpired) for r in others.itertuples()]]
        if len(live):
            jobs = sorted(set(live["job_id"]))
            pid = int(live["pid"].iloc[0])
            raise RunBusy(
                f"{len(live):,} of these {len(keys):,} prompts are being sent now by job {jobs[0]} (pid {pid}"
                + (f", and {len(jobs) - 1} other job(s)" if len(jobs) > 1 else "")
                + f"); nothing was sent. Wait for it (`python -m core jobs`) or cancel it "
                  f"(`python -m core cancel {jobs[0]}`), then run again: answers it stores are not paid twice")
        conn.execute("DELETE FROM job_leases WHERE cache_key IN (SELECT unnest(?::VARCHAR[]))", [keys])
        frame = pd.DataFrame({"cache_key": pd.unique(pd.Series(keys, dtype=str))})
        conn.register("lease_keys", frame)
        conn.execute("INSERT INTO job_leases SELECT cache_key, ?, ?, ?, ?, "
                     f"CAST(now() AS TIMESTAMP) + INTERVAL {LEASE_SECONDS} SECOND FROM lease_keys",
                     [job_id, me.pid, me.host, me.start])
        conn.unregister("lease_keys")


def release(store: Store, keys: list[str]) -> None:
    """Give up this process's leases on ``keys`` (others' leases stay)."""
    if not keys:
        return
    me = this_process()
    with store.write("job_version") as conn:
        conn.execute("DELETE FROM job_leases WHERE pid = ? AND host = ? "
                     "AND cache_key IN (SELECT unnest(?::VARCHAR[]))", [me.pid, me.host, keys])


def renew(store: Store) -> None:
    """Push back the expiry of every lease this process holds."""
    me = this_process()
    with store.write("job_version") as conn:
        conn.execute(f"UPDATE job_leases SET expires_at = CAST(now() AS TIMESTAMP) + INTERVAL {LEASE_SECONDS} "
                     "SECOND WHERE pid = ? AND host = ?", [me.pid, me.host])


# The job a process is working for: set by core.jobs around a run, read when leasing.
_CURRENT = threading.local()


def current_job() -> str:
    return getattr(_CURRENT, "job_id", None) or f"pid-{os.getpid()}"


@contextmanager
def working_for(job_id: str):
    """Leases taken by this thread inside the block are recorded as ``job_id``'s."""
    before = getattr(_CURRENT, "job_id", None)
    _CURRENT.job_id = job_id
    try:
        yield
    finally:
        _CURRENT.job_id = before


def renew_quietly(store: Store, last: list[float]) -> None:
    """:func:`renew` at most every RENEW_SECONDS (``last`` holds the last time); a busy store waits."""
    now = time.monotonic()
    if now - last[0] < RENEW_SECONDS:
        return
    last[0] = now
    try:
        renew(store)
    except Exception:  # a held or full store: the next renewal tries again; the pid still proves life
        pass
