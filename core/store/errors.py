"""What a store error means: the error classes, and the DuckDB messages that say "held by another", "the disk
refused" or "the file is damaged" (core.store.db raises them; core.store.forensics decides damage)."""

from __future__ import annotations

from pathlib import Path

import duckdb

# Substrings of DuckDB errors that mean "someone else holds the file": retry. The last two come from this
# process: DuckDB keeps one database instance per file and process, so a read opened while another thread's
# write is open (or the reverse) is refused for its different configuration, and one opened while that
# instance is being made or torn down meets a "unique file handle conflict". Both pass once the other
# connection closes.
CONTENTION = (
    "could not set lock",
    "conflicting lock",
    "database is locked",
    "different configuration",
    "unique file handle conflict",
)
# Substrings of DuckDB errors that mean "the disk refused the write" (full, or a size limit).
WRITE_FAILED = ("no space left", "file too large", "could not write", "disk quota")


class StoreError(RuntimeError):
    """A store problem the user can act on (message says what and where)."""


class StoreBusy(StoreError):
    """Another process held the store file for longer than the timeout."""


class StoreFull(StoreError):
    """The disk refused a write (full, or a file size limit): that transaction was rolled back."""


class StoreDamaged(StoreError):
    """DuckDB found the file damaged (a failed block checksum, a truncated file, not a database)."""


class StoreMissing(StoreError):
    """The store file named (``RADCONCORD_STORE``) does not exist, and nothing was made there."""


class StoreForeign(StoreError):
    """The file is a DuckDB database of something else, or an empty one a read may not initialise."""


# Substrings of DuckDB errors that mean "the file itself is damaged": no retry, no write.
_DAMAGE = ("corrupt database file", "does not match stored checksum", "could not read enough bytes",
           "not a valid duckdb database file", "file is truncated", "failed to read", "invalid block")


def is_damage(exc: BaseException) -> bool:
    """Whether a DuckDB error says the store file is damaged (see ``_DAMAGE``)."""
    return isinstance(exc, duckdb.Error) and any(s in str(exc).lower() for s in _DAMAGE)


def damaged(path: Path, exc: BaseException) -> StoreDamaged:
    """The one-line error for a damaged store file."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return StoreDamaged(f"the store at {path} is damaged: {first}; run check-store; "
                        "restore from a backup or export")


class StoreRaced(StoreBusy):
    """A read met what DuckDB called damage, but a re-check of the file under a fresh read-only connection
    found it whole: the file changed under the read (another connection's checkpoint). Transient: try again."""


def raced(path: Path, exc: BaseException) -> StoreRaced:
    """The one-line error for a read that failed on a file a re-check found whole."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return StoreRaced(f"a read of the store at {path} failed ({first}), but the file checks out whole: it was "
                      "changed during the read; nothing is damaged; try again")
