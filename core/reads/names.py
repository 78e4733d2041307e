"""Names a user types (a dataset, a judge) checked against what the store holds, with a did-you-mean.

One message for the CLI and the dashboard (a dataset or judge named in a URL):
``dataset 'dmeo' not found; did you mean 'demo'? (datasets: demo, demo-review)``. Close names come
from difflib, case-insensitive, at most three.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from core.store.db import Store


def close_names(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to ``name`` (difflib's ratio >= 0.6, case ignored), best first."""
    known = list(dict.fromkeys(known))
    lowered = {k.lower(): k for k in known}
    return [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'demo'?"`` (or two or three, joined by "or"), or "" when nothing is close."""
    close = close_names(name, known)
    if not close:
        return ""
    return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


def not_found(what: str, name: str, known: Iterable[str], plural: str | None = None) -> str:
    """``dataset 'dmeo' not found; did you mean 'demo'? (datasets: demo, demo-review)``."""
    known = sorted(set(known))
    listed = ", ".join(known) if known else "none"
    return f"{what} '{name}' not found{did_you_mean(name, known)} ({plural or what + 's'}: {listed})"


def dataset_names(store: Store) -> list[str]:
    return store.query_df("SELECT name FROM datasets ORDER BY name")["name"].tolist()


def require_dataset(store: Store, name: str) -> None:
    """``ValueError`` with a did-you-mean when the store has no dataset ``name``."""
    known = dataset_names(store)
    if name not in known:
        raise ValueError(not_found("dataset", name, known))


def judge_names(store: Store, dataset: str) -> tuple[list[str], set[str]]:
    """The judges run on ``dataset``: (their labels as the analyses list them, every name that means one of
    them: the labels and the bare judge names)."""
    from core.reads.frames import judge_runs

    runs = judge_runs(store, dataset)
    if runs.empty:
        return [], set()
    labels = sorted(set(runs["judge"]))
    return labels, set(labels) | set(runs["judge_name"].dropna())
