"""Starting a job in a process of its own that outlives the browser tab and the dashboard server.

The dashboard submits a job to the store and starts ``python -m core --store PATH worker JOB`` in a
new session (``start_new_session``: a Ctrl-C or a restart of the server does not reach it), with
its output in ``<store>.jobs/JOB.log``. Model keys from Streamlit's secrets reach the worker through
its environment only (``RADCONCORD_JOB_KEYS``), never the store, the log or the command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from core import settings
from core.jobs import table
from core.judges.leases import Process
from core.store.db import Store

ROOT = Path(__file__).resolve().parents[2]


def log_path(store: Store, job_id: str) -> Path:
    return store.path.with_name(store.path.name + ".jobs") / f"{job_id}.log"


def launch(store: Store, job_id: str, keys: dict[str, str] | None = None) -> int:
    """Start the worker for a queued job; its pid (recorded on the job)."""
    log = log_path(store, job_id)
    log.parent.mkdir(mode=0o700, exist_ok=True)
    env = dict(settings.environ())
    for name in settings.both_names(settings.JOB_KEYS_VAR):
        env.pop(name, None)
    if keys:
        env[settings.JOB_KEYS_VAR] = json.dumps({k: v for k, v in keys.items() if v})
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "core", "--store", str(store.path.resolve()), "worker", job_id],
                                cwd=str(ROOT), env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                start_new_session=True, close_fds=True)
    from core.judges.leases import proc_start, this_process

    table.set_process(store, job_id, proc.pid, this_process().host, proc_start(proc.pid))
    # waited for by a thread, so a worker that has ended does not linger as this server's zombie
    threading.Thread(target=proc.wait, name=f"reap-{job_id}", daemon=True).start()
    return proc.pid


def signal_cancel(job: dict) -> bool:
    """Send SIGTERM to the job's process when it runs on this host (the store flag covers the rest)."""
    import signal

    pid, host, start = job.get("pid"), job.get("host"), job.get("proc_start")
    if pid is None or host is None or str(pid) == "nan":
        return False
    proc = Process(int(pid), str(host), None if start is None or str(start) == "nan" else int(start))
    if proc.alive() is not True or proc.pid == os.getpid():
        return False
    try:
        os.kill(proc.pid, signal.SIGTERM)
    except OSError:
        return False
    return True
