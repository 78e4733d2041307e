"""CRIMSON on the Summaries and Live scoring pages (AppTest), against a loopback OpenAI-compatible server
answering CRIMSON JSON (tests/fake_openai.py).

- Summaries lists a CRIMSON run beside the GREEN-format ones, heads it with CRIMSON's mean ± std (equal to
  the hand-computed scores of the answers sent) and counts its ReXVal categories; a GREEN run keeps GREEN.
- Live scoring with a CRIMSON prompt shows CRIMSON's scores and their meanings, sends the patient context,
  and asks for 8,192 output tokens unless the user sets another budget.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.cli.main import main
from core.judges import run_judge
from core.judges.live import CRIMSON_ORDER, MEANINGS
from core.judges.runs import load_pairs
from core.store.db import Store
from core.taxonomy import MISSING
from tests.apptest_helpers import assert_ok, open_page, tables, use_fake_model
from tests.fake_openai import FakeOpenAI
from tests.judges.test_crimson_run import NAMES, SHAPES, _answer

MODEL = "openai/x"
LABEL = f"{MODEL} · crimson"
N = 16


@pytest.fixture
def crimson_store(demo_store_copy, capsys):
    """The demo with the rules judge run, and a CRIMSON run over its first N pairs (one answer shape each);
    returns (store, {pair_id: shape})."""
    store = demo_store_copy
    run_judge(store, dataset="demo", judge="rules")
    pairs = load_pairs(store, "demo", limit=N)
    shape_of = {}
    for i, row in enumerate(pairs.itertuples(index=False)):
        shape_of.setdefault((row.reference, row.candidate), NAMES[i % len(NAMES)])
    with FakeOpenAI(answer=_answer(shape_of)) as server:
        assert main(["--store", str(store.path), "judge", "--dataset", "demo", "--judge", MODEL, "--prompt", "crimson",
                     "--limit", str(N), "--api-base", server.url, "--json", "--allow-failures"]) == 0
    capsys.readouterr()
    return store, {r.pair_id: shape_of[(r.reference, r.candidate)] for r in pairs.itertuples(index=False)}


def _hand(shapes: dict[str, str]):
    """CRIMSON scores and significant counts per category of the answers that could be read, from SHAPES."""
    read = [SHAPES[s] for s in shapes.values() if SHAPES[s][1] is not None]
    scores = np.array([r[1] for r in read])
    sig = {c: np.mean([int(r[2][i]) for r in read]) for i, c in enumerate("abcdef")}
    return scores, sig


def test_summaries_lists_a_crimson_run_headed_by_its_score(app_test, crimson_store):
    store, shapes = crimson_store
    at = open_page(app_test, store, "pages/summaries.py", {"judge": LABEL}, via_home=True)
    options = at.selectbox(key="sum_judge").options
    assert LABEL in options and "rules" in options and "lexical" not in options
    assert at.selectbox(key="sum_judge").value == LABEL
    scores, sig = _hand(shapes)
    head = at.metric[0]
    assert head.label == "CRIMSON (mean ± std)"
    assert head.value == f"{scores.mean():.3f} ± {scores.std(ddof=0):.3f}"
    assert any(f"{len(scores)} CRIMSON values" in c.value for c in at.caption)
    categories = next(t for t in tables(at, "category", "mean_count", "representatives"))
    shown = dict(zip(categories["category"], categories["mean_count"], strict=True))
    assert shown == pytest.approx(sig)  # significant errors per category, as the answers listed them
    texts = set(store.query_df("SELECT text FROM judge_errors e JOIN judge_runs r USING (run_id) "
                               "WHERE r.prompt_id = 'crimson' AND e.significant")["text"])
    reps = [t for row in categories["representatives"] for t in row]
    assert reps and set(reps) <= texts  # the representatives are the CRIMSON answers' own error texts

    at.selectbox(key="sum_judge").set_value("rules").run()  # a GREEN-format judge: the GREEN formula
    assert_ok(at)
    assert at.metric[0].label == "GREEN formula (rules counts) (mean ± std)"  # over the rules judge's counts
    green = store.query_df("SELECT m.value FROM metric_values m JOIN judge_runs r USING (run_id) "
                           "WHERE r.judge_name = 'rules' AND m.metric = 'green' AND r.dataset = 'demo'")["value"]
    assert at.metric[0].value == f"{green.mean():.3f} ± {green.std(ddof=0):.3f}"


def test_summaries_compares_two_systems_of_a_crimson_run(app_test, crimson_store):
    store, shapes = crimson_store
    systems = store.query_df("SELECT pair_id, system FROM pairs WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))",
                             [list(shapes)]).set_index("pair_id")["system"]
    a, b = sorted(systems.unique())[:2]
    at = open_page(app_test, store, "pages/summaries.py", {"judge": LABEL, "mode": "compare", "a": a, "b": b},
                   via_home=True)
    labels = {m.label for m in at.metric}
    assert labels == {"CRIMSON (mean ± std)"}
    for system in (a, b):
        scores, _ = _hand({p: s for p, s in shapes.items() if systems[p] == system})
        want = f"{scores.mean():.3f} ± {scores.std(ddof=0):.3f}" if len(scores) else MISSING
        assert want in [m.value for m in at.metric]


def test_correlations_show_the_crimson_run_higher_is_better(app_test, crimson_store):
    from core.analysis.stats import correlate
    from core.reads.frames import correlation_frame

    store, shapes = crimson_store
    at = open_page(app_test, store, "pages/correlations.py", {"dataset": "demo"})
    assert_ok(at)
    detail = [d.value for d in at.dataframe if "sign" in d.value.columns and "judge" in d.value.columns]
    assert len(detail) == 1
    row = detail[0][(detail[0]["judge"] == LABEL) & (detail[0]["metric"] == "crimson")].iloc[0]
    want = correlate(correlation_frame(store, "demo", "score"), n_boot=0, min_n=10, target_name="score")
    want = want[(want["judge"] == LABEL) & (want["metric"] == "crimson")].iloc[0]
    assert row["tau"] == pytest.approx(want["tau"], abs=1e-12)
    assert want["n"] == sum(SHAPES[s][1] is not None for s in shapes.values())  # failures have no score
    assert want["expected_sign"] == 1 and row["sign"] == ("ok" if want["sign_ok"] else "wrong ⚠")


REFERENCE = "Left pneumothorax. Right effusion."
CANDIDATE = "Right pneumothorax. Atelectasis."


def test_live_scoring_with_a_crimson_prompt_shows_its_scores(app_test, demo_store_copy: Store, monkeypatch):
    partial = SHAPES["partial"][0]
    with FakeOpenAI(answer=lambda messages: partial) as server:
        use_fake_model(monkeypatch, server.url)
        at = open_page(app_test, demo_store_copy, "pages/live.py")
        at.text_area(key="live_reference").input(REFERENCE)
        at.text_area(key="live_candidate").input(CANDIDATE)
        at.text_input(key="live_ctx_age").input("82").run()
        at.selectbox(key="live_prompt").set_value("crimson").run()
        assert_ok(at)
        assert at.number_input(key="live_max_tokens_8192").value == 8192  # CRIMSON's default budget
        at.button(key="live_score").click().run()
        assert_ok(at)
        assert server.requests == 1
        sent, params = server.seen_messages[-1], server.seen_params[-1]
    assert "Patient Context:\n    Age: 82\n" in sent[1]["content"]
    assert params["max_tokens"] == 8192
    model_scores = tables(at, "score", "value", "meaning")[1]  # [0] is the rules judge's (GREEN's scores)
    from core.analysis.scores import METRICS

    assert model_scores["score"].tolist() == [METRICS[m].label for m in CRIMSON_ORDER]
    row = model_scores.set_index("score").loc["CRIMSON"]
    assert row["value"] == "0.667" and row["meaning"] == MEANINGS["crimson"]  # the partial answer: 0.6667
    counts = [t.value for t in at.table if "significant" in t.value.columns][1]
    assert counts["significant"].tolist() == ["0", "0", "1", "1", "1", "0"]  # (c) (d) (e), as parsed
    assert any("fake" in m.value and "· crimson" in m.value for m in at.markdown)  # the answer's title


def test_live_scoring_keeps_a_green_prompt_at_2048_tokens(app_test, demo_store_copy: Store, monkeypatch):
    with FakeOpenAI() as server:
        use_fake_model(monkeypatch, server.url)
        at = open_page(app_test, demo_store_copy, "pages/live.py")
        at.text_area(key="live_reference").input(REFERENCE)
        at.text_area(key="live_candidate").input(CANDIDATE).run()
        assert at.selectbox(key="live_prompt").value == "green"
        assert at.number_input(key="live_max_tokens_2048").value == 2048
        at.button(key="live_score").click().run()
        assert_ok(at)
        assert server.seen_params[-1]["max_tokens"] == 2048
    model_scores = tables(at, "score", "value", "meaning")[1]
    assert model_scores["score"].tolist()[0] == "GREEN"
