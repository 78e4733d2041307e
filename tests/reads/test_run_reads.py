"""The Run page's two reads, now in core/reads (issue 40: no SQL in pages): the pairs' texts to tick rows by,
and a job's recorded failures by external id."""

from __future__ import annotations

from core.judges.llm import run_llm_judge
from core.reads.failures import run_failures
from core.reads.selection import pair_texts
from tests.fake_openai import FakeOpenAI
from tests.reads.test_runcost import MODEL, make_store


def test_pair_texts_are_the_first_160_characters_of_the_dataset_only(tmp_path):
    store = make_store(tmp_path / "s.duckdb", n=5)
    store.execute("UPDATE pairs SET reference = repeat('x', 400) WHERE pair_id = "
                  "(SELECT min(pair_id) FROM pairs)")
    texts = pair_texts(store, "d")
    assert len(texts) == 5 and list(texts.columns) == ["pair_id", "reference", "candidate"]
    assert texts["reference"].str.len().max() == 160
    assert pair_texts(store, "no such dataset").empty


def test_run_failures_lists_each_failed_pair_by_external_id_with_its_error(tmp_path):
    store = make_store(tmp_path / "s.duckdb", n=6)
    with FakeOpenAI(plan={"Candidate 2.": ["400"] * 10, "Candidate 4.": ["400"] * 10}) as server:
        run = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, concurrency=2)
    failures = run_failures(store, [run.run_id])
    assert list(failures.columns) == ["run_id", "id", "error"]
    assert failures["id"].tolist() == ["p02", "p04"]
    assert failures["error"].str.contains("context too long").all()
    assert run_failures(store, []).empty
