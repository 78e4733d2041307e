"""``judge --shard K/N``: one machine's part of a dataset, so that several machines can judge a study.

The split is by pair and depends on nothing but the pair's id: a pair belongs to shard
``int(sha256(pair_id)[:16 hex digits], 16) mod N + 1``. A pair id is itself a stable hash of the
dataset's name and the pair's external id (``core.store.db.pair_id_for``), so stores that imported the
same file under the same dataset name put every pair in the same shard, whatever else they hold and in
whatever order they imported it. Shards are about equal in size (a hash, not a deal), never overlap,
and together cover the dataset. With ``--limit`` the shard is taken of the first ``limit`` pairs (by
external id), so the N shards of a limited run together are that limited run.

The shard chooses pairs only: it is recorded with the job (its spec), never in the run's parameters,
so each shard's run has the run id, and each prompt the cache key, that one run over every pair has;
``python -m core merge`` then brings the shards' outputs together under that one run.
"""

from __future__ import annotations

import hashlib
import re

from core.store.db import Store

__all__ = ["parse_shard", "shard_ids", "shard_of", "shard_pair_ids"]


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` -> ``(K, N)`` with 1 <= K <= N; ValueError with the reason otherwise."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m:
        raise ValueError(f"--shard {text!r}: give K/N, e.g. 2/3 (this machine judges the second of three parts)")
    k, n = int(m.group(1)), int(m.group(2))
    if n < 1 or not 1 <= k <= n:
        raise ValueError(f"--shard {text}: K must be between 1 and N (N at least 1)")
    return k, n


def shard_of(pair_id: str, n: int) -> int:
    """The shard (1..n) of a pair: ``int(sha256(pair_id) first 16 hex digits, 16) mod n + 1``."""
    digest = hashlib.sha256(pair_id.encode("utf-8", "surrogatepass")).hexdigest()
    return int(digest[:16], 16) % n + 1


def shard_pair_ids(store: Store, dataset: str, shard: str, limit: int | None = None) -> tuple[list[str], str]:
    """The pair ids of ``dataset`` in shard ``shard`` (``"K/N"``), of its first ``limit`` pairs by external id
    when given, in that order; and a label for the job (``"shard 2/3: 334 of 1,000 pairs"``)."""
    parse_shard(shard)
    sql = "SELECT pair_id FROM pairs WHERE dataset = ? ORDER BY ext_id"
    params: list = [dataset]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(int(limit))
    ids = list(store.query_df(sql, params)["pair_id"])
    if not ids:
        raise ValueError(f"dataset '{dataset}' has no pairs to shard; check the name with `python -m core datasets`")
    return shard_ids(ids, shard)


def shard_ids(ids: list[str], shard: str, of: str = "") -> tuple[list[str], str]:
    """The pair ids of ``ids`` in shard ``shard``, in their order, and the label (``of``: what ``ids`` are,
    e.g. the selection flags' label, named after the count)."""
    k, n = parse_shard(shard)
    mine = [p for p in ids if shard_of(p, n) == k]
    return mine, f"shard {k}/{n}: {len(mine):,} of {len(ids):,} pairs" + (f" ({of})" if of else "")
