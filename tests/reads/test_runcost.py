"""Time and cost side by side (VERT Table 6 / CREPE Table 3 style): from recorded call timings, cost known or
"unknown", the tau it bought; on the CLI, the leaderboard, the report and the Run page."""

from __future__ import annotations

import json
import time

import pandas as pd

from core.cli.main import main
from core.ingest.importers import PairColumns, import_annotations, import_pairs
from core.judges import run_judge
from core.judges.llm import run_llm_judge
from core.reads.runcost import cost_table, run_costs
from core.report import build_report
from core.store.db import Store
from tests.fake_openai import FakeOpenAI

MODEL = "openai/fake-judge"


def make_store(path, n: int = 24) -> Store:
    store = Store(path)
    df = pd.DataFrame({"id": [f"p{i:02d}" for i in range(n)],
                       "ref": [f"Reference {i}. Left pleural effusion. No pneumothorax." for i in range(n)],
                       "cand": [f"Candidate {i}. {'Right' if i % 3 else 'Left'} pleural effusion." +
                                (" Small pneumothorax." if i % 4 == 0 else "") for i in range(n)]})
    import_pairs(store, df, dataset="d", columns=PairColumns("id", "ref", "cand"), name="x.csv")
    scores = pd.DataFrame({"id": df["id"], "s": [str(5 - (i % 3) - (i % 4 == 0)) for i in range(n)]})
    import_annotations(store, scores, dataset="d", id_col="id", score_col="s", scale_max=5, name="s.csv")
    return store


def test_costs_come_from_recorded_calls_and_a_cached_rerun_changes_neither_them_nor_finished_at(tmp_path,
                                                                                                  capsys):
    store = make_store(tmp_path / "s.duckdb")
    with FakeOpenAI(latency=0.05) as server:
        first = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=4)
        finished = store.query_one("SELECT finished_at FROM judge_runs WHERE run_id = ?", [first.run_id])
        time.sleep(0.05)
        # --stop '': the run above set no stop sequences (a CLI run on a loopback server gets a local server's)
        args = ["--store", str(store.path), "judge", "--dataset", "d", "--judge", MODEL, "--api-base", server.url,
                "--json", "--stop", ""]
        assert main(args) == 0
        again = json.loads(capsys.readouterr().out)
        # the same run again: every pair already answered, nothing sent
        assert again["sent"] == 0 and again["skipped"] == 24
    assert store.query_one("SELECT finished_at FROM judge_runs WHERE run_id = ?", [first.run_id]) == finished
    # nothing was spent now, but the run's price is unknown: said so, never shown as a total of 0
    assert again["cost_usd"] == 0.0 and again["cost_total"] is None
    costs = run_costs(store, "d").set_index("run_id").loc[first.run_id]
    outputs = store.query_df("SELECT latency_ms, tokens_in, tokens_out FROM judge_outputs WHERE run_id = ?",
                             [first.run_id])
    assert costs["pairs"] == costs["calls"] == 24 and costs["failed"] == 0
    assert costs["ms_per_pair"] == outputs["latency_ms"].median() and costs["ms_per_pair"] >= 50
    assert costs["tokens_in"] == outputs["tokens_in"].sum() and costs["tokens_out"] == outputs["tokens_out"].sum()
    assert costs["cost_usd"] is None and not costs["cost_known"]


def test_cache_copies_are_not_calls_and_known_prices_add_up(tmp_path):
    store = make_store(tmp_path / "s.duckdb")
    with FakeOpenAI() as server:
        priced = run_llm_judge(store, dataset="d", model="openai/gpt-4o-mini", api_base=server.url)
    import_pairs(store, store.query_df("SELECT ext_id AS id, reference AS ref, candidate AS cand FROM pairs"),
                 dataset="d2", columns=PairColumns("id", "ref", "cand"), name="copy.csv")
    with FakeOpenAI() as server:
        copied = run_llm_judge(store, dataset="d2", model="openai/gpt-4o-mini", api_base=server.url)
        assert server.requests == 0  # every answer came from the cache
    p = run_costs(store, "d").set_index("run_id").loc[priced.run_id]
    stored = store.query_one("SELECT sum(cost_usd) FROM judge_outputs WHERE run_id = ?", [priced.run_id])
    assert p["cost_known"] and p["cost_usd"] == stored > 0
    assert abs(p["usd_per_1k_pairs"] - 1000 * stored / 24) < 1e-12
    c = run_costs(store, "d2").set_index("run_id").loc[copied.run_id]
    assert (c["pairs"], c["calls"], c["cost_usd"]) == (24, 0, 0.0) and pd.isna(c["ms_per_pair"])


def test_the_tau_each_run_bought_sits_beside_its_cost_in_the_report_and_the_leaderboard(tmp_path, capsys):
    store = make_store(tmp_path / "s.duckdb")
    run_judge(store, dataset="d", judge="rules")
    table, target = cost_table(store, "d")
    row = table.iloc[0]
    assert target == "score" and row["judge"] == "rules" and row["n"] == 24 and row["tau_oriented"] > 0
    assert row["cost_known"] and row["cost_usd"] == 0.0 and row["calls"] == 24
    html = build_report(store, "d", n_boot=50)
    section = html.split("<section id=\"cost\">")[1].split("</section>")[0]
    assert "Time and cost per judge" in section and "rules" in section and f"{row['tau_oriented']:.3f}" in section
    assert main(["--store", str(store.path), "leaderboard", "--dataset", "d", "--kind", "judges", "--json",
                 "--n-boot", "50"]) == 0
    board = pd.DataFrame(json.loads(capsys.readouterr().out))
    assert {"ms_per_pair", "calls", "cost_usd", "cost_known"} <= set(board.columns)
    assert (board["calls"] == 24).all() and (board["cost_usd"] == 0.0).all()


def test_run_page_shows_every_runs_time_and_cost(app_test, tmp_path, monkeypatch):
    store = make_store(tmp_path / "s.duckdb")
    run_judge(store, dataset="d", judge="rules")
    with FakeOpenAI() as server:
        run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url)
    monkeypatch.delenv("RADCONCORD_MODELS", raising=False)
    at = app_test(store)
    at.switch_page("pages/run.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    costs = next(d.value for d in at.dataframe if "median ms / pair" in d.value.columns)
    assert sorted(costs["judge"]) == sorted(["rules", f"{MODEL} · green"])
    by_judge = costs.set_index("judge")
    assert by_judge.loc["rules", "cost"] == "$0.0000" and by_judge.loc[f"{MODEL} · green", "cost"] == "unknown"
    assert by_judge.loc["rules", "pairs answered"] == 24
