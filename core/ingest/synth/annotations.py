"""The simulated annotators: ``expert_1`` (the constructed counts), a noisy ``expert_2``, 0-5 scores."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from core.taxonomy import CATEGORIES

ANNOTATION_COLUMNS = ("ext_id", "annotator", "field", "category", "significant", "value", "scale_max")
ANNOTATORS = ("expert_1", "expert_2")
SCALE_MAX = 5.0


def _score(counts: np.ndarray) -> np.ndarray:
    """0-5 score per row of (n, 12) counts laid out as [a_sig, a_insig, b_sig, ...]."""
    sig = counts[:, 0::2].sum(axis=1)
    insig = counts[:, 1::2].sum(axis=1)
    return np.clip((55 - 10 * sig - 3 * insig) // 10, 0, 5)


def second_rater(counts: np.ndarray, identical: np.ndarray, seed: int) -> np.ndarray:
    """Seeded noisy copy of the construction counts (the simulated ``expert_2``)."""
    rng = np.random.default_rng([seed, 2])
    n = counts.shape[0]
    noisy = counts.copy()
    u = rng.random((n, 6))
    for i in np.flatnonzero(((u[:, 0] < 0.12) | (u[:, 1] < 0.10) | (u[:, 2] < 0.03)) & ~identical):
        row = noisy[i]
        if u[i, 0] < 0.12:  # miscount by one in one cell
            nonzero = np.flatnonzero(row)
            if nonzero.size and u[i, 3] < 0.5:
                row[nonzero[int(u[i, 4] * nonzero.size)]] -= 1
            else:
                row[int(u[i, 5] * 12)] += 1
        if u[i, 1] < 0.10:  # judges one significant error as insignificant
            sig_cats = np.flatnonzero(row[0::2])
            if sig_cats.size:
                c = sig_cats[int(u[i, 4] * sig_cats.size)]
                row[2 * c] -= 1
                row[2 * c + 1] += 1
        if u[i, 2] < 0.03:  # or, rarely, the reverse
            insig_cats = np.flatnonzero(row[1::2])
            if insig_cats.size:
                c = insig_cats[int(u[i, 5] * insig_cats.size)]
                row[2 * c + 1] -= 1
                row[2 * c] += 1
    return noisy


def annotation_frame(ext_ids: list[str], counts1: np.ndarray, counts2: np.ndarray) -> pd.DataFrame:
    """Long-form annotations, built column-wise (no per-pair pandas work)."""
    n = len(ext_ids)
    block = 13  # 12 error_count rows + 1 score row per annotator
    values = np.empty((n, 2 * block), dtype=np.float64)
    values[:, 0:12] = counts1
    values[:, 12] = _score(counts1)
    values[:, 13:25] = counts2
    values[:, 25] = _score(counts2)
    cats = [c for c in CATEGORIES for _ in (0, 1)] + [None]
    sigs = [True, False] * 6 + [None]
    fields = ["error_count"] * 12 + ["score"]
    scales = [math.nan] * 12 + [SCALE_MAX]
    # Repeating a small string array with ``take`` avoids converting millions of
    # Python strings one by one (this is most of the cost at 100k pairs).
    within = np.tile(np.arange(2 * block), n)
    return pd.DataFrame({
        "ext_id": pd.array(ext_ids, dtype="str").take(np.repeat(np.arange(n), 2 * block)),
        "annotator": pd.array(list(ANNOTATORS), dtype="str").take(within // block),
        "field": pd.array(fields * 2, dtype="str").take(within),
        # category / significant keep real None on score rows (object dtype, as documented).
        "category": pd.Series(np.array(cats * 2, dtype=object)[within], dtype=object),
        "significant": pd.Series(np.array(sigs * 2, dtype=object)[within], dtype=object),
        "value": values.ravel(),
        "scale_max": np.array(scales * 2, dtype=np.float64)[within],
    }, columns=list(ANNOTATION_COLUMNS))
