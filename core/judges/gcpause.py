"""Importing a large library (litellm) with the cyclic garbage collector paused, then freezing what it made.

litellm's import makes about a million objects (pydantic models and their schemas, provider tables).
With the collector on, a collection runs every few hundred new objects and walks the growing heap, which
is about a third of the import's time here (docs/SCALE.md: 2.1 -> 1.4 s of CPU). The objects an import
makes live as long as the process, so after it everything alive is frozen (``gc.freeze``): the
collections during a run then skip them instead of walking them again and again.
"""

from __future__ import annotations

import gc
import importlib
import threading
from types import ModuleType

__all__ = ["import_frozen"]

_GUARD = threading.Lock()
_DONE: set[str] = set()


def import_frozen(name: str) -> ModuleType:
    """``importlib.import_module(name)``; its first import in this process runs with the collector paused
    (restored after, as it was) and is followed by ``gc.freeze()``. A second caller while the first import
    is in flight (a background preload) waits for it."""
    if name not in _DONE:
        with _GUARD:
            if name not in _DONE:
                was_enabled = gc.isenabled()
                gc.disable()
                try:
                    importlib.import_module(name)
                finally:
                    if was_enabled:
                        gc.enable()
                gc.freeze()
                _DONE.add(name)
    return importlib.import_module(name)
