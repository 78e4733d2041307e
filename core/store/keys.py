"""Stable ids and content hashes: the same inputs always give the same id, in every store and process."""

from __future__ import annotations

import hashlib


def stable_hash(*parts: str, length: int = 20) -> str:
    """Hex digest of the parts joined by a separator no report text contains."""
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:length]


def pair_id_for(dataset: str, ext_id: str) -> str:
    """Stable pair id: the same dataset and external id always give the same id."""
    return stable_hash("pair", dataset, ext_id)


def content_hash_for(reference: str, candidate: str) -> str:
    """Hash of a pair's texts: a rating records it so later edits are visible."""
    return stable_hash("content", reference, candidate, length=16)
