"""Pairwise expert preferences read back from the store and scored per judge (GREEN Fig. 6): the
comparisons core.ingest.comparisons wrote, and core.analysis.preference's accuracy for every judge score."""

from __future__ import annotations

import pandas as pd

from core.store.db import Store


def has_preferences(store: Store, dataset: str) -> bool:
    """Whether ``dataset`` holds any pairwise expert preference (the Correlations page's section is shown then)."""
    return bool(store.query_one("SELECT count(*) FROM preferences WHERE dataset = ?", [dataset]))


def load_preferences(store: Store, dataset: str) -> pd.DataFrame:
    return store.query_df("SELECT comparison_id, pair_id_a, pair_id_b, preferred, confidence, annotator, source "
                          "FROM preferences WHERE dataset = ? ORDER BY comparison_id", [dataset])


def dataset_preference_accuracy(store: Store, dataset: str, *, ties: str = "half") -> tuple[pd.DataFrame, dict]:
    """core.analysis.preference.preference_accuracy for every judge score of the dataset; and what was used."""
    from core.analysis.preference import preference_accuracy
    from core.analysis.scores import METRICS
    from core.reads.frames import declared_orientations, judge_values

    prefs = load_preferences(store, dataset)
    if prefs.empty:
        raise ValueError(f"dataset '{dataset}' has no pairwise preferences; import them (import-preferences FILE "
                         f"--dataset {dataset} ...) or derive them (import-preferences --dataset {dataset} "
                         "--from-annotations)")
    scores = judge_values(store, dataset)
    declared = {m: up for (_, m), up in declared_orientations(store, dataset).items()}
    scores = scores[scores["metric"].isin(set(METRICS) | set(declared))]
    table = preference_accuracy(prefs, scores[["pair_id", "judge", "metric", "value"]], declared, ties=ties)
    sources = sorted(prefs["source"].dropna().unique()) if "source" in prefs else []
    return table, {"n_comparisons": len(prefs), "sources": sources, "ties": ties}
