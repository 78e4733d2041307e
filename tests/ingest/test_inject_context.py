"""Error injection keeps the patient context: a dataset built from the demo by `inject` carries, on each new
pair, the context of the source pair its reference came from (a CRIMSON judge of the injected pairs reads it)."""

from __future__ import annotations

import json

from core.ingest.inject import inject_dataset
from core.reads.context import context_dict
from core.taxonomy import CONTEXT_FIELDS
from tests.fake_openai import FakeOpenAI

MODEL = "openai/fake-judge"


def _context(store, dataset: str) -> dict[str, dict]:
    rows = store.query_df(f"SELECT ext_id, meta, {', '.join(CONTEXT_FIELDS)} FROM pairs WHERE dataset = ?", [dataset])
    return {r["ext_id"]: (r["meta"], context_dict(r)) for r in rows.to_dict("records")}


def test_injected_pairs_keep_their_source_pairs_context(demo_store_copy):
    store = demo_store_copy
    # one source pair without context, one with a single field: both kept as they are
    pairs = store.query_df("SELECT ext_id, reference FROM pairs WHERE dataset = 'demo' ORDER BY ext_id")
    first, second = pairs.drop_duplicates("reference")["ext_id"].head(2)  # inject takes each reference's first pair
    store.execute(f"UPDATE pairs SET {', '.join(f'{f} = NULL' for f in CONTEXT_FIELDS)} "
                  "WHERE dataset = 'demo' AND ext_id = ?", [first])
    store.execute("UPDATE pairs SET age = NULL, sex = NULL, history = NULL, indication = ' Chest pain ' "
                  "WHERE dataset = 'demo' AND ext_id = ?", [second])
    source = {e: ctx for e, (_, ctx) in _context(store, "demo").items()}
    with FakeOpenAI() as server:
        report = inject_dataset(store, source_dataset="demo", target_dataset="demo-ff", model=MODEL,
                                kind="false_finding", limit=8, seed=3, api_base=server.url)
    assert report.added >= 6
    injected = _context(store, "demo-ff")
    assert len(injected) == report.added
    carried = 0
    for meta, ctx in injected.values():
        origin = json.loads(json.loads(meta)["injection"])["source_ext_id"]
        assert ctx == source[origin]
        carried += bool(ctx)
    assert carried >= report.added - 1  # the demo's pairs carry context; only `first` has none
    by_origin = {json.loads(json.loads(m)["injection"])["source_ext_id"]: c for m, c in injected.values()}
    assert by_origin[first] == {} and by_origin[second] == {"indication": "Chest pain"}  # stripped, as imports do
