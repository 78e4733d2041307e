"""Embeddings of explanation texts for the GREEN-style summary (:mod:`core.analysis.summary`, whose
docstring gives the rule): TF-IDF + seeded TruncatedSVD by default, or a callable, or a Sentence-Transformers
model already on disk (never downloaded); rows L2-normalised for cosine geometry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer

__all__ = ["DEFAULT_EMBEDDING", "Embedder", "embed_texts", "resolve_embedder"]

DEFAULT_EMBEDDING = "tfidf-svd"
_SVD_MAX_COMPONENTS = 64

Embedder = Callable[[list[str]], "np.ndarray"]


def _tfidf_svd(texts: list[str], seed: int) -> np.ndarray:
    # token_pattern keeps one-letter tokens ("L", "5") that matter in reports.
    try:
        x = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True,
                            token_pattern=r"(?u)\b\w+\b").fit_transform(texts)
    except ValueError:  # empty vocabulary
        x = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit_transform(texts)
    n_components = min(_SVD_MAX_COMPONENTS, x.shape[1] - 1, x.shape[0] - 1)
    if n_components >= 2:
        return TruncatedSVD(n_components=n_components, random_state=seed).fit_transform(x)
    return x.toarray()


@functools.lru_cache(maxsize=2)
def _sentence_model(name: str):
    from sentence_transformers import SentenceTransformer

    # local_files_only: a name that is not already on disk fails instead of
    # being fetched from the hub.
    return SentenceTransformer(name, local_files_only=True)


def resolve_embedder(embedder: Embedder | str | None, notes: list[str]) -> tuple[Embedder | None, str]:
    """(callable or None for the default, name of the embedding)."""
    if embedder is None:
        return None, DEFAULT_EMBEDDING
    if isinstance(embedder, str):
        try:
            model = _sentence_model(embedder)
        except ImportError:
            notes.append(f"sentence-transformers is not installed: used {DEFAULT_EMBEDDING} "
                         f"instead of {embedder!r}")
            return None, DEFAULT_EMBEDDING
        except Exception as exc:  # noqa: BLE001 - any load failure falls back, recorded
            notes.append(f"could not load {embedder!r} from local files ({type(exc).__name__}): "
                         f"used {DEFAULT_EMBEDDING}")
            return None, DEFAULT_EMBEDDING
        return (lambda texts: model.encode(texts)), f"sentence-transformers:{embedder}"
    if callable(embedder):
        name = getattr(embedder, "name", None) or getattr(embedder, "__name__", None) or type(embedder).__name__
        return embedder, f"custom:{name}"
    raise TypeError(f"embedder must be None, a callable or a model name, got {type(embedder).__name__}")


def embed_texts(texts: Sequence[str], seed: int = 0, embedder: Embedder | None = None) -> np.ndarray:
    """Unit-length embeddings of ``texts`` (rows), for cosine geometry.

    Parameters
    ----------
    texts : sequence of str
        Non-blank texts.
    seed : int
        Seed of the TruncatedSVD (default embedding only).
    embedder : callable, optional
        ``embedder(list_of_texts) -> array (n, d)``; default TF-IDF + SVD.

    Returns
    -------
    numpy.ndarray
        ``(n, d)`` array, each row L2-normalised as GREEN's reference code does
        before k-means, so Euclidean k-means works in cosine geometry.
    """
    texts = list(texts)
    if not texts:
        return np.zeros((0, 1))
    raw = _tfidf_svd(texts, seed) if embedder is None else np.asarray(embedder(texts), dtype=float)
    if raw.ndim != 2 or raw.shape[0] != len(texts):
        raise ValueError(f"embedder returned shape {raw.shape}, expected ({len(texts)}, d)")
    if not np.all(np.isfinite(raw)):
        raise ValueError("embedder returned non-finite values")
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    return raw / np.where(norms == 0, 1.0, norms)
