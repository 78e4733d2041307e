"""The Live scoring page through AppTest, and the escaping of highlighted report text."""

from __future__ import annotations

import re

import pytest

from core.judges.live import Marked, highlight_html, score_rules_live
from core.store.db import Store
from core.taxonomy import MISSING
from tests.apptest_helpers import assert_ok, open_page, tables, use_fake_model
from tests.fake_openai import FakeOpenAI

REFERENCE = "FINDINGS: Moderate left pleural effusion. No pneumothorax. Heart size is normal."
CANDIDATE = "FINDINGS: Small right pleural effusion. Small pneumothorax. Heart is normal."
HOSTILE = "<script>alert('x')</script> <img src=x onerror=alert(1)> Small pneumothorax."


def _open(app_test, store):
    return open_page(app_test, store, "pages/live.py")


def _paste(at, reference: str, candidate: str):
    at.text_area(key="live_reference").input(reference)
    at.text_area(key="live_candidate").input(candidate).run()
    assert_ok(at)
    return at


def _counts(at) -> list:
    """The per-category count tables (static st.table, index = '(a) False report of a finding', ...)."""
    return [t.value for t in at.table if "significant" in t.value.columns]



def _html_blocks(at) -> list[str]:
    return [m.value for m in at.markdown if m.proto.allow_html]


def _store_state(store: Store) -> tuple:
    return (store.data_version(), store.query_one("SELECT count(*) FROM pairs"),
            store.query_one("SELECT count(*) FROM judge_outputs"))


def test_rules_answer_for_pasted_text_and_nothing_stored(app_test, demo_store_copy: Store, no_models):
    store = demo_store_copy
    before = _store_state(store)
    at = _open(app_test, store)
    assert any("paste" in i.value.lower() for i in at.info)  # empty state says what to do
    _paste(at, REFERENCE, CANDIDATE)

    counts = _counts(at)[0]
    sig = {name[1]: value for name, value in counts["significant"].items()}
    assert sig == {"a": "1", "b": "0", "c": "1", "d": "1", "e": "0", "f": "0"}  # false pneumothorax, side, severity
    assert "(d) Misassessment of the severity of a finding" in counts.index.tolist()
    metrics = dict(tables(at, "score", "value")[0][["score", "value"]].values.tolist())
    # the rules judge's counts, named so (core.analysis.naming): not "GREEN-EC", as if the GREEN model had run
    assert metrics["Significant errors (rules counts)"] == "3" and metrics["All errors (rules counts)"] == "3"
    errors = tables(at, "category", "significant", "text")[0]
    assert errors["category"].tolist() == ["a", "c", "d"]
    assert "no cardiomegaly" in tables(at, "matched finding")[0]["matched finding"].tolist()
    assert any("[Clinically Significant Errors]" in c.value for c in at.code)  # raw output
    assert any("No model is configured" in i.value for i in at.info)

    # the error phrases are marked in both reports
    reference_html, candidate_html = _html_blocks(at)
    assert '<mark title="(c) significant">Moderate left pleural effusion.</mark>' in reference_html
    assert '<mark title="(a) significant">Small pneumothorax.</mark>' in candidate_html
    assert _store_state(store) == before  # scoring wrote nothing


def test_hostile_html_in_reports_stays_escaped(app_test, demo_store: Store, no_models):
    at = _paste(_open(app_test, demo_store), "<script>alert(2)</script> " + REFERENCE, HOSTILE)
    blocks = _html_blocks(at)
    assert len(blocks) == 2
    for block in blocks:
        assert "&lt;script&gt;alert(" in block
        tags = set(re.findall(r"</?\s*([a-zA-Z]+)", block))
        assert tags <= {"div", "mark", "br"}, tags
    assert "&lt;img src=x onerror=alert(1)&gt;" in blocks[1]
    assert '<mark title="(a) significant">Small pneumothorax.</mark>' in blocks[1]  # marked after escaping
    assert "<mark" in blocks[0]  # the reference's effusion the candidate omits


def test_highlight_escapes_before_marking():
    text = "<b>bold</b> & 5 < 6 *not italic* $x$ :red[no]\nSmall <script>pneumothorax</script>."
    out = highlight_html(text, [Marked("Small <script>pneumothorax</script>.", "a", True), Marked("amp", "b", False)])
    assert out.count("<mark") == 1 and "<script" not in out and "<b>" not in out
    assert "&lt;script&gt;pneumothorax&lt;/script&gt;" in out
    assert "&amp;" in out  # "amp" must not be marked inside an entity
    assert "&#42;not italic&#42;" in out and "&#36;x&#36;" in out and "&#58;red&#91;no&#93;" in out
    assert "<br>" in out
    live = score_rules_live("No pneumothorax.", "<script>x</script> Small pneumothorax.")
    assert "<script" not in highlight_html("<script>x</script> Small pneumothorax.", live.candidate_marks)


def test_save_as_pair_stores_exactly_one_pair(app_test, demo_store_copy: Store, no_models):
    store = demo_store_copy
    at = _paste(_open(app_test, store), REFERENCE, HOSTILE)
    assert store.query_one("SELECT count(*) FROM pairs WHERE dataset = 'live'") == 0
    at.text_input(key="live_save_dataset").set_value("pasted")
    at.text_input(key="live_save_id").set_value("case-1")
    at.button(key="live_save").click().run()
    assert_ok(at)
    rows = store.query_df("SELECT dataset, ext_id, reference, candidate FROM pairs WHERE dataset = 'pasted'")
    assert rows.values.tolist() == [["pasted", "case-1", REFERENCE, HOSTILE]]  # verbatim
    assert store.query_one("SELECT count(*) FROM pairs") == 121
    assert any("case" in s.value and "saved" in s.value for s in at.success)
    at.button(key="live_save").click().run()  # the same pair again: no duplicate
    assert store.query_one("SELECT count(*) FROM pairs") == 121


def test_pair_from_the_dataset_is_scored_without_writes(app_test, demo_store: Store, no_models):
    before = _store_state(demo_store)
    at = _open(app_test, demo_store)
    at.radio(key="live_src").set_value("pair").run()
    assert_ok(at)
    pair_id = at.selectbox(key="live_pair").value
    reference, candidate = demo_store.query_df("SELECT reference, candidate FROM pairs WHERE pair_id = ?",
                                               [pair_id]).iloc[0]
    assert [t.value for t in at.text][:2] == [reference, candidate]
    expected = score_rules_live(reference, candidate).parsed
    counts = _counts(at)[0]
    assert counts["significant"].tolist() == [str(expected.sig[c]) for c in "abcdef"]
    assert at.query_params["pair"] == pair_id
    assert not [b for b in at.button if b.key == "live_save"]  # stored pairs are not saved again
    assert _store_state(demo_store) == before


def test_configured_model_answers_side_by_side(app_test, demo_store_copy: Store, monkeypatch):
    store = demo_store_copy
    before = _store_state(store)
    with FakeOpenAI() as server:
        use_fake_model(monkeypatch, server.url)
        at = _paste(_open(app_test, store), REFERENCE, CANDIDATE)
        assert at.multiselect(key="live_models").value == ["openai/fake-judge"]
        at.button(key="live_score").click().run()
        assert_ok(at)
        assert server.requests == 1
    assert any("fake" in m.value and "green" in m.value for m in at.markdown)
    counts = _counts(at)[1]
    assert (counts["significant"] != MISSING).all() and counts.index.tolist()[0] == "(a) False report of a finding"
    assert any("cost unknown" in c.value for c in at.caption)
    assert _store_state(store) == before  # live calls are never stored


def test_score_live_refuses_before_any_request():
    from core.judges.live import score_live
    from core.judges.llm import EndpointRefused

    with pytest.raises(EndpointRefused, match="local_only"):
        score_live(REFERENCE, CANDIDATE, "openai/gpt-4o-mini", "green", None, None, local_only=True)
    with pytest.raises(ValueError, match="zero-shot"):
        score_live(REFERENCE, CANDIDATE, "openai/gpt-4o-mini", "vert_random", "http://127.0.0.1:9/v1", None)


# -- languages the rules judge cannot read, candidates that are not reports, the words of the meaning column --

from tests.judges.test_language import FOREIGN_PAIRS, NAMES  # noqa: E402


@pytest.mark.parametrize("lang", list(FOREIGN_PAIRS))
def test_a_foreign_pair_is_not_scored_and_the_reason_is_shown(app_test, demo_store: Store, no_models, lang):
    at = _paste(_open(app_test, demo_store), *FOREIGN_PAIRS[lang])
    errors = [e.value.replace("\\", "") for e in at.error]  # the markdown source, escapes removed
    assert any(f"unsupported language: the reference report is {NAMES[lang]}" in e for e in errors), errors
    assert _counts(at) == []  # no score, no error counts
    assert not tables(at, "score", "value") and not _html_blocks(at)
    assert any("rules: English only" in c.value.replace("\\", "") for c in at.caption)


def test_a_refusal_is_not_scored(app_test, demo_store: Store, no_models):
    at = _paste(_open(app_test, demo_store), "No acute cardiopulmonary abnormality.",
                "As an AI, I can't provide a diagnosis.")
    assert any("not a report: the candidate is a refusal" in e.value.replace("\\", "") for e in at.error)
    assert _counts(at) == []


def test_a_report_over_the_length_cap_is_not_scored_and_the_reason_is_shown(app_test, demo_store: Store, no_models):
    """The cap of every offline judge (core.judges.bounds): before it, the rules judge scored the first 100,000
    characters of a longer report as if they were the whole report."""
    over = ("FINDINGS: Small left pleural effusion. " * 2600)[:100_001]
    at = _paste(_open(app_test, demo_store), over, CANDIDATE)
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any("too long to judge: the reference report has 100,001 characters; the rules judge reads reports of "
               "at most 100,000 characters" in e for e in errors), errors
    assert _counts(at) == [] and not tables(at, "score", "value") and not _html_blocks(at)


def test_meaning_column_in_words_and_the_same_numbers_as_the_score_command(app_test, demo_store: Store, no_models,
                                                                          capsys, tmp_path):
    import json

    from core.cli.main import main

    at = _paste(_open(app_test, demo_store), REFERENCE, CANDIDATE)
    table = tables(at, "score", "value", "meaning")[0]
    assert not table["meaning"].str.contains(r"M / \(M \+ S\)|2M|\+ 2S", regex=True).any()
    assert "number of clinically significant errors" in table["meaning"].tolist()[3]
    page = dict(table[["score", "value"]].values.tolist())

    Store(tmp_path / "s.duckdb")
    capsys.readouterr()
    assert main(["--store", str(tmp_path / "s.duckdb"), "score", "--reference", REFERENCE, "--candidate", CANDIDATE,
                 "--judge", "rules", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    from core.analysis.naming import display_name

    for metric, value in cli["metrics"].items():
        shown = page[display_name("rules", metric)]  # the one naming rule, as the score command prints
        assert shown == (MISSING if value is None else f"{value:.3g}" if isinstance(value, float) else str(value))
    counts = _counts(at)[0]
    assert counts["significant"].tolist() == [str(cli["sig"][c]) for c in "abcdef"]


def test_a_wrong_side_effusion_is_significant_and_below_a_perfect_score_on_the_page(app_test, demo_store_copy: Store,
                                                                                    no_models):
    # issue 44: before, one insignificant location error and a headline GREEN of 1.0 (a wrong side scored perfect)
    at = _paste(_open(app_test, demo_store_copy), "Small left pleural effusion. No pneumothorax.",
                "Small right pleural effusion. No pneumothorax.")
    sig = {name[1]: value for name, value in _counts(at)[0]["significant"].items()}
    assert sig == {"a": "0", "b": "0", "c": "1", "d": "0", "e": "0", "f": "0"}
    metrics = dict(tables(at, "score", "value")[0][["score", "value"]].values.tolist())
    assert 0 < float(metrics["GREEN formula (rules counts)"]) < 1  # before: 1
    assert float(metrics["CRIMSON-style score (rules levels)"]) == 0.5
