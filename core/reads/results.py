"""Computed results kept in the store (migration 012, ``results_cache``), keyed like the judge cache.

A dashboard page that computed a table from the store's data (a correlation table with its bootstrap
CIs, a breakdown, a paired test) keeps it here, so the next process that asks the same question of
the same data with the same code reads it instead of computing it: a revisit after a server restart,
a second server over the same file, another user. The key is the SHA-256 of

* the reader (a name and the digest of its source, from the caller),
* its arguments (their ``repr``: strings, numbers, tuples),
* the store's ``data_version`` (every committed write of data bumps it, so a new judge run or a new
  annotation is never answered from an older result), and
* :func:`code_version`: a digest of the statistics and reading code (``core/analysis``, ``core/reads``,
  ``core/taxonomy.py``), so a changed computation never reads a result of the old one.

Results are DataFrames stored as Parquet (floats bit for bit, so every number shown is the one
computed). Keeping one is a short write transaction with its own counter (``cache_version``: the
caches keyed on ``data_version`` stay valid) that also prunes rows of an older ``data_version`` and
keeps at most :data:`MAX_ROWS`. Keeping is best effort: a store this process may not write (a
read-only file, a viewer's copy) or that another connection holds longer than :data:`WRITE_PATIENCE_S`
keeps nothing and says nothing, and the caller's in-process cache still answers the next run.
"""

from __future__ import annotations

import functools
import hashlib
import io
import time
from pathlib import Path

import pandas as pd

from core.store.db import Store, StoreError

__all__ = ["KEEP_ABOVE_S", "MAX_ROWS", "WRITE_PATIENCE_S", "code_version", "keep", "lookup", "result_key"]

#: Rows kept at most (the newest); a correlation table of 40 series is a few kB.
MAX_ROWS = 2000
#: Results quicker to compute than this are not kept: a keep is a write transaction (0.1-0.2 s of CPU here,
#: and the next read of the changed file opens it again), which a quick table does not repay (measured with
#: the Correlations page on the demo: keeping every table made a first render 0.5 CPU-s slower).
KEEP_ABOVE_S = 0.25
#: Seconds the set of kept keys read for a data version stays fresh in a process (a key kept by another
#: process meanwhile is found on the next read of the set; until then it is computed again, never wrong).
KEYS_FRESH_S = 5.0
_KEYS: dict[tuple[str, int], tuple[float, frozenset[str]]] = {}
#: Seconds a keep waits for a store another connection holds before giving up (a page must not wait).
WRITE_PATIENCE_S = 0.5

_CORE = Path(__file__).resolve().parents[1]


@functools.cache
def code_version() -> str:
    """Digest of the code that computes the kept results (read once per process)."""
    digest = hashlib.sha256()
    files = sorted([*(_CORE / "analysis").rglob("*.py"), *(_CORE / "reads").rglob("*.py"), _CORE / "taxonomy.py"])
    for path in files:
        digest.update(path.relative_to(_CORE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def result_key(reader: str, args: tuple, data_version: int) -> str:
    """The key of ``reader(*args)`` on the data of ``data_version`` with this code."""
    text = "\x1f".join([reader, repr(args), str(int(data_version)), code_version()])
    return hashlib.sha256(text.encode()).hexdigest()


def _kept_keys(store: Store, data_version: int) -> frozenset[str]:
    """The keys kept for ``data_version``, read once per :data:`KEYS_FRESH_S` per store: a page run's
    several readers ask one query (each opening of the file costs tens of ms), not one each."""
    where = (str(store.path), int(data_version))
    now = time.monotonic()
    seen = _KEYS.get(where)
    if seen is not None and now - seen[0] < KEYS_FRESH_S:
        return seen[1]
    try:
        keys = frozenset(store.query_df("SELECT key FROM results_cache WHERE data_version = ?",
                                        [int(data_version)])["key"])
    except StoreError:
        keys = frozenset()
    _KEYS[where] = (now, keys)
    return keys


def lookup(store: Store, key: str, data_version: int | None = None) -> pd.DataFrame | None:
    """The kept result of ``key``, or None (none kept, or a store without the table). With ``data_version``
    (the key's), a key the store did not hold a moment ago costs no query."""
    if data_version is not None and key not in _kept_keys(store, data_version):
        return None
    try:
        payload = store.query_one("SELECT payload FROM results_cache WHERE key = ?", [key])
    except StoreError:
        return None
    if payload is None:
        return None
    return pd.read_parquet(io.BytesIO(bytes(payload)))


@functools.lru_cache(maxsize=8)
def _writer(path: str) -> Store:
    """One impatient handle per store file (a handle checks the file's blocks before its first write)."""
    return Store(path, timeout=WRITE_PATIENCE_S, create=False)


def keep(store: Store, key: str, reader: str, data_version: int, frame: pd.DataFrame) -> bool:
    """Keep ``frame`` under ``key`` (best effort: False when the store could not be written)."""
    buffer = io.BytesIO()
    try:
        frame.to_parquet(buffer)
    except (ValueError, TypeError, ImportError):  # a column Parquet cannot hold: keep nothing
        return False
    try:
        with _writer(str(store.path)).write(counter="cache_version") as conn:
            conn.execute("DELETE FROM results_cache WHERE data_version <> ? OR key = ?", [int(data_version), key])
            conn.execute("INSERT INTO results_cache (key, reader, data_version, payload) VALUES (?, ?, ?, ?)",
                         [key, reader, int(data_version), buffer.getvalue()])
            conn.execute("DELETE FROM results_cache WHERE key IN (SELECT key FROM results_cache "
                         "ORDER BY created_at DESC, key OFFSET ?)", [MAX_ROWS])
    except (StoreError, OSError):
        return False
    where = (str(store.path), int(data_version))
    if where in _KEYS:
        _KEYS[where] = (_KEYS[where][0], _KEYS[where][1] | {key})
    return True
