"""Identical prompts in one run are sent once: the server counts one request per distinct prompt."""

from __future__ import annotations

import pandas as pd

from core.ingest.importers import PairColumns, import_pairs
from core.judges.llm import run_llm_judge
from core.judges.messages import pair_messages
from core.judges.runs import load_pairs
from core.store.db import Store
from tests.fake_openai import FakeOpenAI

MODEL = "openai/fake-judge"


def _store(path) -> Store:
    """8 pairs: p0-p3 one text, p4-p5 another (with a marker the server fails once on), p6 and p7 their own."""
    texts = [("Lungs clear.", "No acute disease.")] * 4 + [("Small effusion.", "Effusion M400.")] * 2 + \
        [("Cardiomegaly.", "Heart is enlarged."), ("Pneumothorax.", "No pneumothorax.")]
    df = pd.DataFrame({"id": [f"p{i}" for i in range(8)], "ref": [t[0] for t in texts],
                       "cand": [t[1] for t in texts]})
    store = Store(path)
    import_pairs(store, df, dataset="d", columns=PairColumns("id", "ref", "cand"), name="x.csv")
    return store


def _outputs(store):
    return store.query_df("SELECT p.ext_id, o.raw_text, o.error, o.cost_usd, o.cache_key FROM judge_outputs o "
                          "JOIN pairs p USING (pair_id) ORDER BY 1").set_index("ext_id")


def test_one_request_per_distinct_prompt_and_every_pair_answered(tmp_path):
    store = _store(tmp_path / "s.duckdb")
    with FakeOpenAI(plan={"M400": ["400"]}) as server:
        first = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=8, max_retries=0)
        assert server.requests == 4  # 4 distinct prompts, 8 pairs
        assert (first.sent, first.shared, first.ok, first.failed) == (4, 4, 6, 2)
        out = _outputs(store)
        assert len(out) == 8 and out.loc[["p0", "p1", "p2", "p3"], "raw_text"].nunique() == 1
        assert out.loc["p0", "raw_text"] != out.loc["p6", "raw_text"]
        assert out.loc[["p4", "p5"], "error"].str.contains("BadRequestError").all()  # both carry the failure
        assert first.to_json()["shared"] == 4
        again = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=8, max_retries=0)
        assert server.requests == 5  # the failed prompt once more, for both of its pairs
        assert (again.sent, again.shared, again.skipped, again.failed) == (1, 1, 6, 0)
    out = _outputs(store)
    assert out["error"].isna().all() and out.loc["p4", "raw_text"] == out.loc["p5", "raw_text"]


def test_the_demo_sends_its_distinct_prompts_once(tmp_path):
    from core.ingest.demo import build_demo

    store = Store(tmp_path / "demo.duckdb")
    build_demo(store, n_pairs=400, seed=7)  # `python -m core demo`: 400 pairs, 399 distinct prompts
    pairs = load_pairs(store, "demo", None, None)
    distinct = {str(pair_messages("green", row)) for row in pairs.itertuples(index=False)}
    assert (len(pairs), len(distinct)) == (400, 399)
    with FakeOpenAI() as server:
        summary = run_llm_judge(store, dataset="demo", model=MODEL, api_base=server.url, concurrency=32)
        assert server.requests == len(distinct)
    assert (summary.sent, summary.shared, summary.ok) == (len(distinct), len(pairs) - len(distinct), len(pairs))
