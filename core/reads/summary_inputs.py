"""The three frames a GREEN-style summary is computed from, read from the store in one place for the
report, the Summaries page and the ``summary`` command (core.analysis.summary does the rest)."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from core.analysis.summary import HEADLINE_METRICS
from core.reads.frames import error_texts, judge_counts, judge_values, with_system
from core.store.db import Store

__all__ = ["SummaryFrames", "summary_frames"]


class SummaryFrames(NamedTuple):
    """``errors``, ``counts`` and ``scores`` as :func:`core.analysis.summary.green_summary` takes them (each
    row with its pair's candidate system); ``scores`` holds the headline metrics only (GREEN's, CRIMSON's)."""

    errors: pd.DataFrame
    counts: pd.DataFrame
    scores: pd.DataFrame


def summary_frames(store: Store, dataset: str, counts: pd.DataFrame | None = None) -> SummaryFrames:
    """The judges' error explanations, per-category counts and headline scores on ``dataset``.

    ``counts``: :func:`core.reads.frames.judge_counts` of the dataset when the caller has read it already.
    """
    counts = judge_counts(store, dataset) if counts is None else counts
    return SummaryFrames(
        errors=error_texts(store, dataset),
        counts=with_system(store, dataset, counts),
        scores=with_system(store, dataset, judge_values(store, dataset, metrics=list(HEADLINE_METRICS))))
