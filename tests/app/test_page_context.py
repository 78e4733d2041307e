"""Patient context on the pages (issue 33, items 1 and 5) through AppTest: the Data page shows a pair's
context and the import wizard maps it; Annotate shows it to the rater (still blinded to the judges);
Live scoring takes the fields, hands the filled ones to the model call as ``context=`` and saves them
with a pasted pair."""

from __future__ import annotations

import pandas as pd

from core.judges import live
from core.reads import ratings
from core.reads.queries import find_pairs, get_pair
from core.store.db import Store
from core.taxonomy import CONTEXT_FIELDS
from tests.apptest_helpers import assert_ok, open_page, use_fake_model
from tests.fake_openai import FakeOpenAI

LABELS = {"age": "Age", "sex": "Sex", "indication": "Indication", "history": "Comparison / history"}
REFERENCE = "FINDINGS: Moderate left pleural effusion. No pneumothorax."
CANDIDATE = "FINDINGS: Small right pleural effusion. No pneumothorax."


def _context_shown(at) -> dict[str, str]:
    """The Patient context box as {label: text}: each field is a caption followed by its text."""
    assert any(m.value == "**Patient context**" for m in at.markdown), [m.value for m in at.markdown]
    labels = [c.value for c in at.caption if c.value in LABELS.values()]
    texts = [t.value for t in at.text]
    # the box is drawn before the reports: its texts are the first ones on the page
    return dict(zip(labels, texts[:len(labels)], strict=True))


def _first_pair(store: Store, dataset: str = "demo") -> dict:
    frame, _ = find_pairs(store, dataset, limit=1)
    return get_pair(store, frame["pair_id"].iloc[0])


# -- Data ------------------------------------------------------------------------------------------------


def test_data_page_shows_the_pairs_context_above_the_reports(app_test, demo_store: Store):
    pair = _first_pair(demo_store)
    at = app_test(demo_store, {"dataset": "demo", "pair": pair["pair_id"]})
    at.switch_page("pages/data.py")
    at.run()
    assert_ok(at)
    stored = demo_store.query_df(f"SELECT {', '.join(CONTEXT_FIELDS)} FROM pairs WHERE pair_id = ?",
                                 [pair["pair_id"]]).iloc[0]
    expected = {LABELS[f]: stored[f] for f in CONTEXT_FIELDS if pd.notna(stored[f])}
    assert len(expected) >= 3  # the demo gives every pair an age, a sex and an indication
    assert _context_shown(at) == expected
    texts = [t.value for t in at.text]
    assert texts[len(expected):len(expected) + 2] == [pair["reference"], pair["candidate"]]


def test_data_page_says_when_a_pair_has_no_context(app_test, tmp_store: Store, tmp_path):
    from core.ingest.importers import PairColumns, import_pairs

    import_pairs(tmp_store, pd.DataFrame({"id": ["x"], "r": ["No effusion."], "c": ["Effusion."]}), dataset="bare",
                 columns=PairColumns("id", "r", "c"))
    pair = _first_pair(tmp_store, "bare")
    at = app_test(tmp_store, {"dataset": "bare", "pair": pair["pair_id"]})
    at.switch_page("pages/data.py")
    at.run()
    assert_ok(at)
    assert not any(m.value == "**Patient context**" for m in at.markdown)
    assert any(c.value.startswith("No patient context stored for this pair") for c in at.caption)


def test_import_wizard_maps_the_context_columns(app_test, tmp_store: Store, tmp_path):
    path = tmp_path / "ctx.csv"
    path.write_text("id,reference,candidate,patient_age,gender,indication\n"
                    "c1,Left effusion.,Right effusion.,82, F ,pre-operative\n"
                    "c2,Normal heart.,Cardiomegaly.,,M,\n", encoding="utf-8")
    at = app_test(tmp_store)
    at.switch_page("pages/data.py")
    at.run()
    at.radio(key="data_imp_what").set_value("pairs")
    at.file_uploader(key="data_imp_file").upload(path.name, path.read_bytes(), "text/csv")
    at.run()
    assert_ok(at)
    picked = {s.label: s.value for s in at.selectbox}
    assert (picked["Patient age column"], picked["Patient sex column"], picked["Indication column"],
            picked["Comparison / history column"]) == ("patient_age", "gender", "indication", "(none)")
    at.button(key="data_imp_go").click().run()
    assert_ok(at)
    assert any("2 added" in s.value for s in at.success), [s.value for s in at.success]
    rows = tmp_store.query_df("SELECT ext_id, age, sex, indication, history FROM pairs ORDER BY ext_id")
    assert rows.astype(object).where(rows.notna(), None).values.tolist() == [
        ["c1", "82", "F", "pre-operative", None], ["c2", None, "M", None, None]]


# -- Annotate ------------------------------------------------------------------------------------------------


def test_annotate_shows_the_rater_the_context_and_no_judge(app_test, demo_store_copy: Store):
    from core.judges import run_judge

    store = demo_store_copy
    run_judge(store, dataset="demo", judge="rules")
    queue_id = ratings.create_queue(store, "demo", "ctx", "sample", n=3, seed=2, role="researcher")
    first = ratings.queue_pair_ids(store, queue_id)[0]
    at = open_page(app_test, store, "pages/annotate.py", {"dataset": "demo", "rater": "Dr C", "queue": queue_id})
    pair = get_pair(store, first)
    assert any(pair["ext_id"].replace("-", "\\-") in m.value for m in at.markdown if m.value.startswith("Pair **1**"))
    assert _context_shown(at) == {LABELS[f]: v for f, v in pair["context"].items()}
    assert not [e for e in at.expander if e.label.startswith("Unblinded")]  # blinded: no judge values


# -- Live scoring -------------------------------------------------------------------------------------------


def test_live_fills_the_fields_from_a_picked_pair(app_test, demo_store: Store, no_models):
    at = open_page(app_test, demo_store, "pages/live.py")
    at.radio(key="live_src").set_value("pair").run()
    assert_ok(at)
    pair = get_pair(demo_store, at.selectbox(key="live_pair").value)
    shown = {f: at.text_input(key=f"live_ctx_{f}_{pair['pair_id']}").value for f in CONTEXT_FIELDS}
    assert shown == {f: pair["context"].get(f, "") for f in CONTEXT_FIELDS}
    note = [c.value for c in at.caption if c.value.startswith("Optional.")]
    assert note and "the rules judge reads it" in note[0] and "the lexical and length judges ignore it" in note[0]


def test_live_passes_the_filled_fields_to_the_model_call(app_test, demo_store_copy: Store, monkeypatch):
    seen: list = []
    real = live.score_live

    def recording(*args, **kwargs):  # the real call, with what the page handed it noted
        seen.append(kwargs.get("context"))
        return real(*args, **kwargs)

    monkeypatch.setattr(live, "score_live", recording)
    with FakeOpenAI() as server:
        use_fake_model(monkeypatch, server.url)
        at = open_page(app_test, demo_store_copy, "pages/live.py")
        at.text_area(key="live_reference").input(REFERENCE)
        at.text_area(key="live_candidate").input(CANDIDATE)
        at.text_input(key="live_ctx_age").input(" 82 ")
        at.text_input(key="live_ctx_indication").input("pre-operative assessment")
        at.text_input(key="live_ctx_sex").input("   ")  # blank: not passed
        at.run()
        assert_ok(at)
        assert any("does not read the patient context" in c.value for c in at.caption)
        at.button(key="live_score").click().run()
        assert_ok(at)
        assert server.requests == 1
    assert seen == [{"age": "82", "indication": "pre-operative assessment"}]
    assert any("fake" in m.value for m in at.markdown)  # the model's answer is drawn


def test_live_saves_the_context_with_a_pasted_pair(app_test, demo_store_copy: Store, no_models):
    store = demo_store_copy
    at = open_page(app_test, store, "pages/live.py")
    at.text_area(key="live_reference").input(REFERENCE)
    at.text_area(key="live_candidate").input(CANDIDATE)
    at.text_input(key="live_ctx_age").input("25")
    at.text_input(key="live_ctx_history").input("CT chest 2024")
    at.run()
    at.text_input(key="live_save_id").set_value("ctx-1")
    at.button(key="live_save").click().run()
    assert_ok(at)
    row = store.query_df("SELECT age, sex, indication, history FROM pairs WHERE ext_id = 'ctx-1'")
    assert row.astype(object).where(row.notna(), None).values.tolist() == [["25", None, None, "CT chest 2024"]]
