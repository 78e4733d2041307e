"""Judges by name: ``rules``, ``lexical``, ``length``, ``distilled:NAME``, or any litellm model.

:mod:`core.judges.registry` says which code runs each judge (one line per
judge, imported on first use); unknown special names get the list of valid
ones. The judges themselves: :mod:`.rules`, :mod:`.lexical`, :mod:`.length`
(offline, run by :mod:`.offline`), :mod:`.llm` (the gateway to models), with
the run bookkeeping in :mod:`.runs`.
"""

from __future__ import annotations

from core.judges.registry import OFFLINE_JUDGES, OFFLINE_MODULES, offline_module, run_judge

__all__ = ["OFFLINE_JUDGES", "OFFLINE_MODULES", "offline_module", "run_judge"]
