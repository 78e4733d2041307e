"""``judge --shard K/N``: the documented split by pair id, stable across stores, disjoint and covering; a
shard's run has the whole run's id; refused with few-shot prompts and for a malformed K/N."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from core.ingest.importers import PairColumns, import_pairs
from core.jobs.shard import parse_shard, shard_of, shard_pair_ids
from core.store.db import Store, pair_id_for
from tests.cli_inprocess import run_cli
from tests.conftest import copy_store

ROOT = Path(__file__).resolve().parents[2]


def cli(*args):
    return run_cli(*map(str, args))


def test_parse_shard_takes_k_of_n_and_refuses_the_rest():
    assert parse_shard("2/3") == (2, 3) and parse_shard(" 1 / 1 ") == (1, 1)
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/3", ""):
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(bad)


def test_the_shard_of_a_pair_is_the_documented_hash_of_its_id():
    ids = [pair_id_for("study", f"case-{i}") for i in range(300)]
    for n in (1, 2, 3, 7):
        for pid in ids:
            expected = int(hashlib.sha256(pid.encode()).hexdigest(), 16) >> (256 - 64)  # the first 16 hex digits
            assert shard_of(pid, n) == expected % n + 1
    sizes = pd.Series([shard_of(p, 3) for p in ids]).value_counts()
    assert set(sizes.index) == {1, 2, 3} and sizes.min() > 60  # about a third each, not a deal


def _import(store: Store, frame: pd.DataFrame, dataset: str) -> None:
    import_pairs(store, frame, dataset=dataset, columns=PairColumns("id", "ref", "cand"), name=f"{dataset}.csv")


def test_shards_are_the_same_in_stores_that_imported_the_same_file(tmp_path):
    frame = pd.DataFrame({"id": [f"x{i:03d}" for i in range(90)], "ref": [f"Reference {i}." for i in range(90)],
                          "cand": [f"Candidate {i}." for i in range(90)]})
    one = Store(tmp_path / "one.duckdb")
    _import(one, frame, "study")
    other = Store(tmp_path / "other.duckdb")  # another dataset first, the same file in reverse order
    _import(other, frame.assign(id=frame["id"] + "-other"), "other")
    _import(other, frame.iloc[::-1], "study")
    every = set(one.query_df("SELECT pair_id FROM pairs")["pair_id"])
    parts = []
    for k in (1, 2, 3):
        ids, label = shard_pair_ids(one, "study", f"{k}/3")
        again, _ = shard_pair_ids(other, "study", f"{k}/3")
        assert ids == again and label == f"shard {k}/3: {len(ids)} of 90 pairs"
        parts.append(set(ids))
    assert set.union(*parts) == every and sum(map(len, parts)) == 90
    first_30 = set(one.query_df("SELECT pair_id FROM pairs ORDER BY ext_id LIMIT 30")["pair_id"])
    limited = [set(shard_pair_ids(one, "study", f"{k}/3", limit=30)[0]) for k in (1, 2, 3)]
    assert set.union(*limited) == first_30 and all(lim <= part for lim, part in zip(limited, parts, strict=True))
    with pytest.raises(ValueError, match="has no pairs to shard"):
        shard_pair_ids(one, "nope", "1/2")


def test_judge_shard_runs_the_whole_runs_id_on_its_part(demo_store, tmp_path):
    whole = copy_store(demo_store, tmp_path / "whole.duckdb")
    part = copy_store(demo_store, tmp_path / "part.duckdb")
    done = cli("--store", whole.path, "judge", "--dataset", "demo", "--judge", "lexical", "--limit", "60", "--json")
    assert done.returncode == 0, done.stderr
    full = json.loads(done.stdout)
    done = cli("--store", part.path, "judge", "--dataset", "demo", "--judge", "lexical", "--limit", "60",
               "--shard", "2/3", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    ids, _ = shard_pair_ids(part, "demo", "2/3", limit=60)
    assert out["run_id"] == full["run_id"] and out["requested"] == len(ids) == out["ok"] and 0 < len(ids) < 60
    judged = set(part.query_df("SELECT pair_id FROM judge_outputs")["pair_id"])
    assert judged == set(ids)
    spec = json.loads(part.query_one("SELECT spec FROM jobs"))
    assert spec["shard"] == "2/3" and spec["limit"] is None and sorted(spec["pair_ids"]) == sorted(ids)
    assert part.query_one("SELECT params FROM judge_runs") == whole.query_one("SELECT params FROM judge_runs")


@pytest.mark.parametrize("extra, reason", [
    (["--shard", "4/3"], "error: --shard 4/3: K must be between 1 and N (N at least 1)"),
    (["--shard", "half"], "error: --shard 'half': give K/N, e.g. 2/3"),
    (["--shard", "1/2", "--judge", "openai/x", "--prompt", "vert_random", "--shots-dataset", "demo"],
     "error: --shard does not go with few-shot prompts"),
])
def test_judge_shard_refusals_are_one_line_and_store_nothing(demo_store, tmp_path, extra, reason):
    store = copy_store(demo_store, tmp_path / "s.duckdb")
    args = ["--store", store.path, "judge", "--dataset", "demo"] + (["--judge", "rules"] if "--judge" not in extra
                                                                     else []) + extra
    done = cli(*args)
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith(reason)
    assert store.query_one("SELECT count(*) FROM jobs") == 0 and store.query_one("SELECT count(*) FROM judge_runs") == 0
