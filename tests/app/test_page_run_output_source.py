"""The Run page's estimate says where its output tokens per call come from: the prompt's assumption while the
store holds no answer of the prompt, the median of the stored answers once it does."""

from __future__ import annotations

import json

from core.judges.llm import run_llm_judge
from core.prompts.specs import PROMPTS
from core.store.db import Store
from tests.app.test_page_run import MODEL, _expected_sample, _open, _sample
from tests.apptest_helpers import assert_ok, table, use_fake_model
from tests.fake_openai import FakeOpenAI
from tests.judges.test_crimson_run import PARTIAL

CRIMSON_ASSUMED_OUTPUT = PROMPTS["crimson"].assumed_output

COLUMN = "output tokens per call"


def test_the_estimate_names_its_output_figure_and_its_source(app_test, demo_store_copy: Store, monkeypatch):
    store = demo_store_copy
    answer = json.dumps(PARTIAL)
    with FakeOpenAI(answer=lambda messages: answer) as server:
        use_fake_model(monkeypatch, server.url, MODEL)
        at = _open(app_test, store)
        _sample(at, 3, 1)
        at.multiselect(key="run_judges").set_value([MODEL]).run()
        at.multiselect(key="run_prompts").set_value(["crimson"]).run()
        assert_ok(at)
        shown = table(at, "to send", COLUMN)
        assert shown[COLUMN].tolist() == [f"{CRIMSON_ASSUMED_OUTPUT} (assumed: no stored answer of this prompt "
                                          "to measure)"]

        # two answers of the prompt on pairs outside the sample: measured, while the sample is still to send
        others = [p for p in store.query_df("SELECT pair_id FROM pairs WHERE dataset = 'demo' ORDER BY pair_id")
                  ["pair_id"] if p not in _expected_sample(store, 3, 1)][:2]
        run_llm_judge(store, dataset="demo", model=MODEL, prompt_id="crimson", pair_ids=others, api_base=server.url)
    at.run()
    assert_ok(at)
    shown = table(at, "to send", COLUMN)
    assert shown["to send"].tolist() == [3]
    assert shown[COLUMN].tolist() == [f"{len(answer) // 4} (median of 2 stored answers of this model)"]
