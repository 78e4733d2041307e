"""Tables in words: JSON text as readable phrases and missing values as a dash (ui/shared.show_table)."""

from __future__ import annotations

import math

import pandas as pd

from ui.shared import MISSING, readable_json


def test_json_objects_and_lists_read_as_words():
    assert readable_json('{"generator": "core.ingest.synth", "seed": 7, "n_pairs": 400}') == \
        "generator core.ingest.synth · seed 7 · n pairs 400"
    assert readable_json('{"version": "rules-1"}') == "version rules-1"
    assert readable_json('{"filters": {"modality": ["CT", "MR"]}, "blinded": true, "note": null}') == \
        "filters modality CT, MR · blinded yes"
    assert readable_json("[]") == MISSING and readable_json("{}") == MISSING


def test_other_values_are_left_alone():
    for value in ("plain text", "{not json", "[1, 2", 3, None):
        assert readable_json(value) == value
    assert math.isnan(readable_json(float("nan")))


def test_show_table_passes_the_placeholder_and_converts_text_columns(monkeypatch):
    import streamlit as st

    from ui import shared

    seen = {}
    monkeypatch.setattr(st, "dataframe", lambda data, **kw: seen.update(data=data, **kw) or "event")
    frame = pd.DataFrame({"params": ['{"seed": 1}', None], "tau": [0.5, math.nan]})
    assert shared.show_table(frame, hide_index=True) == "event"
    assert seen["placeholder"] == MISSING and seen["hide_index"] is True
    assert seen["data"]["params"].tolist()[0] == "seed 1" and pd.isna(seen["data"]["params"].tolist()[1])
    assert frame["params"].tolist()[0] == '{"seed": 1}'  # the caller's frame is not changed


def test_the_glossary_explains_every_metric_category_and_statistic():
    from core import glossary
    from core.analysis.scores import METRICS
    from core.reads.queries import CATEGORY_NAMES

    terms = dict(glossary.entries())
    assert all(spec.label in terms for spec in METRICS.values())
    assert all(any(name in term for term in terms) for name in CATEGORY_NAMES.values())
    for word in ("Kendall's τ-b (tau)", "95% CI", "Ceiling", "Krippendorff's α (alpha)", "p and †", "F1"):
        assert len(terms[word]) > 40
    assert terms["GREEN-EC (sig.)"].endswith("Lower is better.")
    assert glossary.judge_in_words("rules").startswith("rules (offline judge") and \
        glossary.judge_in_words("gpt-x") == "gpt-x"
    html = glossary.as_html()
    assert html.count("<dt>") == len(terms) and "<script" not in html
