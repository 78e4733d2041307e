"""Few-shot runs, the designed baselines, error injection and the lexical judge, end to end."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from core.ingest.importers import PairColumns, import_annotations, import_pairs
from core.ingest.inject import inject_dataset
from core.judges import run_judge
from core.judges.lexical import lexical_scores
from core.judges.llm import run_llm_judge
from core.judges.shots import ShotSource
from core.store.db import Store
from tests.fake_openai import FakeOpenAI

MODEL = "openai/fake-judge"


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    n = 30
    df = pd.DataFrame({
        "id": [f"p{i:02d}" for i in range(n)],
        "ref": [f"Study {i}. Small left pleural effusion. No pneumothorax. Heart size normal." for i in range(n)],
        "cand": [f"Study {i}. Left effusion. Tiny pneumothorax." for i in range(n)],
        "grp": [f"g{i // 2}" for i in range(n)],
        "split": ["train" if i < 20 else "test" for i in range(n)],
    })
    import_pairs(store, df, dataset="d", columns=PairColumns("id", "ref", "cand", group="grp", split="split"),
                 name="d.csv", kind="error_counts")
    rows = []
    for i in range(n):
        for c in "abcdef":
            for sig in (True, False):
                rows.append({"id": f"p{i:02d}", "cat": c, "sig": sig, "n": int(sig and c == "abcdef"[i % 6])})
    import_annotations(store, pd.DataFrame(rows), dataset="d", id_col="id", category_col="cat",
                       significant_col="sig", count_col="n", name="a.csv")
    score = pd.DataFrame({"id": [f"p{i:02d}" for i in range(n)], "s": [str(i % 6) for i in range(n)]})
    import_annotations(store, score, dataset="d", id_col="id", score_col="s", name="s.csv")
    return store


def test_few_shot_run_records_shots_and_never_uses_evaluated_pairs(store):
    test_ids = store.query_df("SELECT pair_id FROM pairs WHERE split = 'test'")["pair_id"].tolist()
    with FakeOpenAI() as server:
        summary = run_llm_judge(store, dataset="d", model=MODEL, prompt_id="vert_random", api_base=server.url,
                                pair_ids=test_ids, shots=ShotSource(dataset="d", split="train", k=5, seed=3))
        again = run_llm_judge(store, dataset="d", model=MODEL, prompt_id="vert_random", api_base=server.url,
                              pair_ids=test_ids, shots=ShotSource(dataset="d", split="train", k=5, seed=3))
    assert summary.ok == 10 and again.sent == 0  # same seed: same shots, same prompts, all cached
    run = store.query_df("SELECT prompt_id, params FROM judge_runs").iloc[0]
    assert run["prompt_id"] == "vert_random"
    shots = json.loads(run["params"])["shots"]
    used = shots["ids"] if "ids" in shots else shots["ext_ids"]
    assert len(used) == 5 and shots["seed"] == 3
    evaluated = set(store.query_df("SELECT ext_id FROM pairs WHERE split = 'test'")["ext_id"])
    assert not set(used) & evaluated
    prompt = store.query_df("SELECT raw_text FROM judge_outputs LIMIT 1")  # answers stored
    assert len(prompt) == 1


def test_few_shot_prompt_without_a_source_is_refused(store):
    with pytest.raises(ValueError, match="few-shot prompt"):
        run_llm_judge(store, dataset="d", model=MODEL, prompt_id="vert_rad_err", api_base="http://127.0.0.1:9")


def test_rad_err_shots_exclude_the_evaluated_groups(store):
    evaluated = store.query_df("SELECT pair_id FROM pairs WHERE ext_id IN ('p00', 'p02', 'p04')")["pair_id"]
    with FakeOpenAI() as server:
        run_llm_judge(store, dataset="d", model=MODEL, prompt_id="vert_rad_err", api_base=server.url,
                      pair_ids=list(evaluated), shots=ShotSource(dataset="d", seed=1))
    shots = json.loads(store.query_one("SELECT params FROM judge_runs"))["shots"]
    used = shots.get("ids") or shots.get("ext_ids")
    # p00/p01 share group g0 etc.: neither the pairs nor their group mates may be shots
    assert not set(used) & {"p00", "p01", "p02", "p03", "p04", "p05"}


def test_radfact_and_fineradscore_judges_store_their_metrics(store):
    with FakeOpenAI() as server:
        run_llm_judge(store, dataset="d", model=MODEL, prompt_id="radfact", api_base=server.url, limit=4)
        run_llm_judge(store, dataset="d", model=MODEL, prompt_id="fineradscore", api_base=server.url, limit=4)
    m = store.query_df("SELECT metric, avg(value) AS v, count(*) AS n FROM metric_values GROUP BY metric")
    values = dict(zip(m["metric"], m["v"], strict=True))
    assert values["radfact_precision"] == pytest.approx(0.5) and values["radfact_recall"] == pytest.approx(1.0)
    assert values["radfact"] == pytest.approx(2 * 0.5 / 1.5)
    assert values["fineradscore_corrections"] == 1 and values["fineradscore"] > 0
    assert set(store.query_df("SELECT parse_status FROM judge_outputs")["parse_status"]) == {"ok"}


def test_error_injection_builds_a_dataset_with_known_counts(store):
    store.execute("UPDATE pairs SET reference = reference || ' IMPLAUSIBLE' WHERE ext_id = 'p02'")
    store.execute("UPDATE pairs SET reference = reference || ' BADJSON' WHERE ext_id = 'p04'")
    with FakeOpenAI() as server:
        rep = inject_dataset(store, source_dataset="d", target_dataset="d-omit", model=MODEL, kind="omission",
                             limit=6, seed=5, api_base=server.url)
        calls = server.requests
        again = inject_dataset(store, source_dataset="d", target_dataset="d-omit", model=MODEL,
                               kind="omission", limit=6, seed=5, api_base=server.url)
        # accepted pairs are never redone; the two excluded reports get another 5 attempts each
        assert again.skipped == 4 and again.added == 0 and len(again.excluded) == 2
        assert server.requests - calls == again.calls == 5 + 5 * 2
    assert rep.requested == 6 and rep.added == 4
    excluded = {e["ext_id"]: e["reasons"] for e in rep.excluded}
    assert set(excluded) == {"p02", "p04"}
    assert len(excluded["p02"]) == 5 and "implausible" in excluded["p02"][0]
    assert len(excluded["p04"]) == 5 and "JSON" in excluded["p04"][0]
    pairs = store.query_df("SELECT ext_id, reference, candidate, meta FROM pairs WHERE dataset = 'd-omit'")
    ann = store.query_df(
        "SELECT p.ext_id, a.category, a.significant, a.value FROM annotations a JOIN pairs p USING (pair_id) "
        "WHERE p.dataset = 'd-omit' AND a.value > 0")
    for row in pairs.itertuples():
        k = json.loads(row.meta)["injection"]
        k = json.loads(k)["k"]
        assert row.ext_id.endswith(f":omission:k{k}")
        got = ann[ann["ext_id"] == row.ext_id]
        assert got[["category", "significant", "value"]].values.tolist() == [["b", True, float(k)]]
        assert len(row.candidate) < len(row.reference)  # sentences were dropped
    ds = store.query_df("SELECT synthetic, version FROM datasets WHERE name = 'd-omit'").iloc[0]
    assert ds["synthetic"] and json.loads(ds["version"])["seed"] == 5


def test_lexical_judge_runs_offline_and_is_idempotent(store):
    first = run_judge(store, dataset="d", judge="lexical")
    second = run_judge(store, dataset="d", judge="lexical")
    assert first.ok == 30 and second.skipped == 30
    m = store.query_df("SELECT metric, count(*) AS n FROM metric_values GROUP BY metric ORDER BY metric")
    assert m.values.tolist() == [["bleu2", 30], ["bleu4", 30], ["rouge_l", 30]]


def test_lexical_scores_bounds():
    same = lexical_scores("Small left effusion.", "Small left effusion.")
    assert same == {"bleu4": 1.0, "bleu2": 1.0, "rouge_l": 1.0}
    diff = lexical_scores("Small left effusion.", "Normal chest.")
    assert 0 <= diff["bleu4"] < 0.5 and diff["rouge_l"] == 0.0


def test_injected_dataset_feeds_the_fig3_calibration(store):
    from core.analysis.calibration import injected_calibration
    from core.reads.frames import injected_counts, judge_counts

    with FakeOpenAI() as server:
        inject_dataset(store, source_dataset="d", target_dataset="d-ff", model=MODEL, kind="false_finding",
                       limit=12, seed=2, api_base=server.url)
        run_llm_judge(store, dataset="d-ff", model=MODEL, api_base=server.url)
    injected = injected_counts(store, "d-ff")
    assert set(injected["category"]) == {"a"} and set(injected["k"]) <= {1, 2, 3} and len(injected) == 12
    table = injected_calibration(judge_counts(store, "d-ff"), injected, n_boot=50, seed=0)
    assert set(table["x"]) == set(injected["k"])
    assert table.groupby("x")["n"].sum().sum() == 12 and (table["identity"] == table["x"]).all()


def test_inject_cli_exits_4_when_it_added_nothing(store, capsys):
    from core.cli.main import main

    store.execute("UPDATE pairs SET reference = reference || ' BADJSON' WHERE ext_id IN ('p00', 'p01')")
    with FakeOpenAI() as server:
        args = ["--store", str(store.path), "inject", "--dataset", "d", "--target", "d-none", "--judge", MODEL,
                "--kind", "omission", "--limit", "2", "--api-base", server.url, "--json"]
        assert main(args) == 4
        captured = capsys.readouterr()
        assert json.loads(captured.out)["added"] == 0
        assert "no report was injected into 'd-none' (2 excluded" in captured.err and "JSON" in captured.err
        ok = ["--store", str(store.path), "inject", "--dataset", "d", "--target", "d-some", "--judge", MODEL,
              "--kind", "omission", "--limit", "4", "--api-base", server.url, "--json"]
        assert main(ok) == 0  # p02, p03 go in: something was added
        assert json.loads(capsys.readouterr().out)["added"] == 2
        assert main(ok) == 4  # a re-run adds nothing: p00 and p01 fail again
        capsys.readouterr()
        store.execute("UPDATE pairs SET reference = replace(reference, ' BADJSON', '')")
        assert main(args) == 0 and json.loads(capsys.readouterr().out)["added"] == 2
        assert main(args) == 0  # everything asked for is in already: nothing to add is not a failure
        assert json.loads(capsys.readouterr().out)["skipped"] == 2


def test_d7_and_d9_work_end_to_end_from_the_products_own_commands(store, capsys):
    """D.7 from two `inject` runs into one pool, D.9 from a stored VERT run on that pool: the commands the
    help text names, then the few-shot runs; the shots come from the pool and are recorded."""
    from core.cli.main import main

    base = ["--store", str(store.path)]
    with FakeOpenAI() as server:
        url = ["--api-base", server.url, "--json"]
        for kind in ("false_finding", "omission"):
            assert main(base + ["inject", "--dataset", "d", "--target", "pool", "--judge", MODEL, "--kind", kind,
                                "--k", "1", "--limit", "8", *url]) == 0
        assert json.loads(capsys.readouterr().out.splitlines()[-1])["added"] == 8
        judge = base + ["judge", "--dataset", "d", "--judge", MODEL, "--limit", "3", "--shots-dataset", "pool"]
        assert main(judge + ["--prompt", "vert_rate_err", *url]) == 0  # D.7
        d7 = json.loads(capsys.readouterr().out)
        assert d7["ok"] == 3 and d7["unparsed_total"] == 0

        assert main(judge + ["--prompt", "vert_rate_err_10", *url]) == 1  # D.9 without its run: says how
        err = capsys.readouterr().err
        assert "--shots-run" in err and "--prompt vert" in err and "has no such run yet" in err
        assert main(base + ["judge", "--dataset", "pool", "--judge", MODEL, "--prompt", "vert", *url]) == 0
        pool_run = json.loads(capsys.readouterr().out)["run_id"]
        assert main(judge + ["--prompt", "vert_rate_err_10", *url]) == 1  # now the error names the run to use
        assert pool_run in capsys.readouterr().err
        assert main(judge + ["--prompt", "vert_rate_err_10", "--shots-run", pool_run, *url]) == 0  # D.9
        d9 = json.loads(capsys.readouterr().out)
        assert d9["ok"] == 3 and d9["unparsed_total"] == 0

    pool_ids = set(store.query_df("SELECT ext_id FROM pairs WHERE dataset = 'pool'")["ext_id"])
    params = {r.prompt_id: json.loads(r.params)["shots"] for r in store.query_df(
        "SELECT prompt_id, params FROM judge_runs WHERE prompt_id LIKE 'vert_rate%'").itertuples()}
    d7_ids, d9_ids = params["vert_rate_err"]["ext_ids"], params["vert_rate_err_10"]["ext_ids"]
    assert len(d7_ids) == 4 and set(d7_ids) <= pool_ids
    assert {i.split(":")[1] for i in d7_ids} == {"false_finding", "omission"}  # two of (a), two of (b)
    assert len(d9_ids) == 10 and set(d9_ids) <= pool_ids and params["vert_rate_err_10"]["shot_run"] == pool_run
