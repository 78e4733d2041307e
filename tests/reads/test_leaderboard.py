"""Leaderboards: runs whose comparable key differs in any part are never ranked together."""

from __future__ import annotations

import itertools
import json

import pandas as pd
import pytest

from core.analysis.stats import correlate
from core.ingest.importers import PairColumns, import_outputs, import_pairs
from core.judges import run_judge
from core.judges.runs import OutputRecord, RunSpec, ensure_run, finish_run, write_outputs
from core.reads.frames import correlation_frame
from core.reads.leaderboard import SYSTEM_KEY, judges_leaderboard, systems_leaderboard


def _store_with_systems(tmp_store):
    df = pd.DataFrame({"id": [f"p{i}" for i in range(8)], "ref": [f"Reference {i}." for i in range(8)],
                       "cand": [f"Candidate {i}." for i in range(8)], "sys": ["a", "b"] * 4,
                       "split": ["train"] * 4 + ["test"] * 4})
    import_pairs(tmp_store, df, dataset="d", columns=PairColumns("id", "ref", "cand", system="sys", split="split"),
                 name="x.csv")
    return tmp_store


def _run(store, *, model="m1", prompt_id="vert", prompt_hash="h1", params=None, score_a=0.9, score_b=0.5,
         cost=0.01):
    spec = RunSpec("llm", model, "d", model=model, prompt_id=prompt_id, prompt_hash=prompt_hash,
                   params=params if params is not None else {"temperature": 0.0})
    run_id = ensure_run(store, spec, 8)
    pairs = store.query_df("SELECT pair_id, system FROM pairs WHERE dataset = 'd' ORDER BY ext_id")
    recs = [OutputRecord(pair_id=p.pair_id, raw_text="x", latency_ms=100.0 if p.system == "a" else 50.0,
                         cost_usd=cost, metrics={"vert": score_a if p.system == "a" else score_b})
            for p in pairs.itertuples()]
    write_outputs(store, run_id, recs, prompt_id)
    finish_run(store, run_id, "done")
    return run_id


def test_runs_differing_in_any_key_part_are_never_ranked_together(tmp_store):
    store = _store_with_systems(tmp_store)
    base = _run(store)
    variants = {
        "model": _run(store, model="m2"),
        "prompt hash": _run(store, prompt_hash="h2"),
        "prompt id": _run(store, prompt_id="rubric"),
        "params": _run(store, params={"temperature": 0.7}),
        "locale": _run(store, params={"temperature": 0.0, "locale": "pt-BR"}),
    }
    # only the endpoint differs: the same model behind another address is comparable
    same = _run(store, params={"temperature": 0.0, "api_base": "http://10.0.0.2/v1"}, score_a=0.4, score_b=0.8)
    board = systems_leaderboard(store, "d", metric="vert")
    group_of = board.groupby("run_id")["group"].first()
    for name, run_id in variants.items():
        assert group_of[run_id] != group_of[base], name
    for (n1, r1), (n2, r2) in itertools.combinations(variants.items(), 2):
        assert group_of[r1] != group_of[r2], (n1, n2)
    assert group_of[same] == group_of[base]
    # within a group: one rank per entry, 1..n, in score order; across groups ranks restart
    shared = board[board["group"] == group_of[base]].sort_values("rank")
    assert shared["rank"].tolist() == [1, 2, 3, 4]
    assert shared["score"].tolist() == sorted(shared["score"], reverse=True)
    for _, part in board.groupby("group"):
        assert sorted(part["rank"]) == list(range(1, len(part) + 1))
        assert len(part[list(SYSTEM_KEY)].drop_duplicates()) == 1  # one key per group
    assert board["group"].nunique() == board[list(SYSTEM_KEY)].drop_duplicates().shape[0]
    # cost and latency come from judge_outputs, per system
    row = board[(board["run_id"] == base) & (board["system"] == "a")].iloc[0]
    assert row["n"] == 4 and row["cost_usd"] == pytest.approx(0.04) and row["latency_ms_mean"] == 100.0


def test_split_and_dataset_version_are_part_of_the_key(tmp_store):
    store = _store_with_systems(tmp_store)
    _run(store)
    all_pairs = systems_leaderboard(store, "d")
    train = systems_leaderboard(store, "d", split="train")
    assert set(train["n"]) == {2} and set(all_pairs["n"]) == {4}
    assert not set(train["group"]) & set(all_pairs["group"])
    store.execute("UPDATE datasets SET version = 'v2' WHERE name = 'd'")
    assert not set(systems_leaderboard(store, "d")["group"]) & set(all_pairs["group"])


def test_ties_break_on_cost_then_latency(tmp_store):
    store = _store_with_systems(tmp_store)
    _run(store, score_a=0.7, score_b=0.7)
    board = systems_leaderboard(store, "d").sort_values("rank")
    # equal scores and costs: the faster system (b, 50 ms) ranks first (LAIas Sec. 6.3 order)
    assert board["system"].tolist() == ["b", "a"]


def test_judges_board_agreement_with_experts_and_pair_sets(demo_store_copy):
    store = demo_store_copy
    run_judge(store, dataset="demo", judge="rules")
    run_judge(store, dataset="demo", judge="lexical")
    subset = store.query_df("SELECT ext_id, pair_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id LIMIT 40")
    import_outputs(store, subset.assign(score=range(40)), dataset="demo", judge="partial-judge", id_col="ext_id",
                   score_col="score", metric="vert", name="partial.csv")
    board = judges_leaderboard(store, "demo", n_boot=50, seed=1)
    full = board[board["judge"] == "rules"]["group"].iloc[0]
    assert set(board.loc[board["judge"].isin(["rules", "lexical"]), "group"]) == {full}
    partial = board[board["judge"] == "partial-judge"].iloc[0]
    assert partial["group"] != full and partial["n"] == 40 and partial["rank"] == 1  # never ranked against 120 pairs
    ranked = board[board["group"] == full].sort_values("rank")
    assert ranked["tau_oriented"].tolist() == sorted(ranked["tau_oriented"], reverse=True)
    assert ranked.iloc[0]["judge"] == "rules"
    # the numbers are core.analysis.stats.correlate's, oriented: error counts correlate negatively with a score
    frame = correlation_frame(store, "demo", "score", metrics=["ec_sig"])
    expected = correlate(frame, n_boot=50, seed=1).iloc[0]
    row = ranked[ranked["metric"] == "ec_sig"].iloc[0]
    assert row["tau"] == pytest.approx(expected["tau"], abs=1e-12) and row["tau_oriented"] == -row["tau"] > 0
    assert row["ci_low"] == pytest.approx(-expected["ci_high"]) and row["ci_low"] <= row["tau_oriented"]
    assert json.loads(board.to_json(orient="records"))  # serialisable for --json
