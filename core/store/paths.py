"""Where the store file is when no --store is given: the environment, else the default file name, or the file's
old name when only that one exists (issue 45: the product was renamed; an existing store keeps working)."""

from __future__ import annotations

from pathlib import Path

from core import settings

DEFAULT_STORE = Path(settings.NEW_STORE_FILE)
OLD_DEFAULT_STORE = Path(settings.OLD_STORE_FILE)  # the file's old name (issue 45): still found and used


def default_store_path() -> Path:
    """The store path: ``RADCONCORD_STORE`` if set, else ``data/radconcord.duckdb`` (DEFAULT_STORE), or
    ``data/radjudge.duckdb`` when only that one exists (with a one-line notice: its old name)."""
    named = settings.store_path()
    if named:
        return Path(named)
    if not DEFAULT_STORE.exists() and OLD_DEFAULT_STORE.exists():
        settings.notice_old_name(str(OLD_DEFAULT_STORE), str(DEFAULT_STORE))
        return OLD_DEFAULT_STORE
    return DEFAULT_STORE
