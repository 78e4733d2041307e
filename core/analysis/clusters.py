"""Clustering of embedded explanation texts for the GREEN-style summary (:mod:`core.analysis.summary`,
whose docstring gives the rule): k-means with k chosen by the silhouette, clusters renumbered by size,
members ranked by cosine distance to their cluster's mean, and the representatives as distinct sentences.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score
from threadpoolctl import threadpool_limits

__all__ = ["CLUSTER_COLUMNS", "cluster_category", "distinct_texts", "normalized_text"]

#: Columns of :attr:`core.analysis.summary.Summary.clusters`, in order.
CLUSTER_COLUMNS: tuple[str, ...] = (
    "category", "cluster", "size", "is_largest", "rank", "text", "pair_id", "distance",
)

# Above this many texts the silhouette is computed on a seeded sample: its cost
# and memory grow with the square of the number of texts.
_SILHOUETTE_SAMPLE = 2000


def _cosine_distance(rows: np.ndarray, centre: np.ndarray) -> np.ndarray:
    denom = np.linalg.norm(rows, axis=1) * np.linalg.norm(centre)
    sim = rows @ centre / np.where(denom == 0, 1.0, denom)
    return np.clip(1.0 - np.where(denom == 0, 0.0, sim), 0.0, 2.0)


def _choose_k(emb: np.ndarray, n_distinct: int, k_range: tuple[int, int], seed: int):
    """Best-silhouette labels, or ``(None, reason)`` when clustering is impossible."""
    n = emb.shape[0]
    if n == 0:
        return None, None, None, "no explanations"
    k_lo, k_hi = max(2, k_range[0]), min(k_range[1], n_distinct, n - 1)
    if n < 3:
        return None, None, None, f"too few texts to cluster ({n}; the silhouette needs at least 3): listed as one group"
    if n_distinct < 2:
        return None, None, None, "all texts identical: one cluster"
    if k_hi < k_lo:
        return None, None, None, (f"k range {k_range} impossible with {n_distinct} distinct texts "
                                  f"and {n} texts: listed as one group")
    sample = min(n, _SILHOUETTE_SAMPLE) if n > _SILHOUETTE_SAMPLE else None
    best = (-math.inf, None, None)
    # One thread: a category holds at most a few thousand short texts, where
    # OpenMP start-up costs more than it saves and oversubscribes a shared server.
    with threadpool_limits(limits=1):
        for k in range(k_lo, k_hi + 1):
            labels = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(emb)
            if len(np.unique(labels)) < 2:
                continue
            score = float(silhouette_score(emb, labels, metric="cosine", sample_size=sample,
                                           random_state=seed))
            if score > best[0]:  # strict: ties keep the smaller k
                best = (score, k, labels)
    if best[1] is None:
        return None, None, None, "k-means found a single cluster: listed as one group"
    return best[2], best[1], best[0], "clustered"


def cluster_category(texts: list[str], pair_ids: list, emb: np.ndarray, k_range: tuple[int, int],
                      seed: int, n_distinct: int, n_representatives: int):
    labels, k, silhouette, status = _choose_k(emb, n_distinct, k_range, seed)
    n = len(texts)
    if n == 0:
        return pd.DataFrame(columns=list(CLUSTER_COLUMNS[1:])), None, None, status, [], 0
    if labels is None:
        labels = np.zeros(n, dtype=int)
    # Renumber clusters by size (largest = 0); equal sizes by first member.
    sizes = np.bincount(labels)
    first = np.array([np.flatnonzero(labels == c)[0] if sizes[c] else n for c in range(len(sizes))])
    order = sorted((c for c in range(len(sizes)) if sizes[c]), key=lambda c: (-sizes[c], first[c]))
    relabel = {old: new for new, old in enumerate(order)}
    labels = np.array([relabel[c] for c in labels])
    rows = []
    for c in range(len(order)):
        members = np.flatnonzero(labels == c)
        centre = emb[members].mean(axis=0)
        dist = _cosine_distance(emb[members], centre)
        # Ties (duplicate texts) broken by text then pair id: order-independent.
        ranked = sorted(zip(np.round(dist, 12), [texts[i] for i in members],
                            [str(pair_ids[i]) for i in members], members, strict=True))
        for rank, (d, text, _, i) in enumerate(ranked, start=1):
            rows.append({"cluster": c, "size": len(members), "is_largest": c == 0, "rank": rank,
                         "text": text, "pair_id": pair_ids[i], "distance": float(d)})
    frame = pd.DataFrame(rows, columns=list(CLUSTER_COLUMNS[1:]))
    top = frame[frame["cluster"] == 0].sort_values("rank")
    reps = distinct_texts(top["text"], n_representatives)
    return frame, k, silhouette, status, reps, int(sizes.max())


def normalized_text(text: str) -> str:
    """Lower case, words only: the key under which two explanations count as the same sentence."""
    return re.sub(r"[\W_]+", " ", str(text).lower()).strip()


def distinct_texts(texts, n: int) -> list[str]:
    """The first ``n`` texts that differ after normalisation (case, spacing, punctuation), in order:
    three representatives are three different sentences, not one sentence three times."""
    out, seen = [], set()
    for text in texts:
        key = normalized_text(text)
        if key not in seen:
            seen.add(key)
            out.append(text)
            if len(out) == n:
                break
    return out
