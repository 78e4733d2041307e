"""Section headers on one line, as a flattened export or a chat model writes them."""

from __future__ import annotations

import pytest

from core.judges.rules import judge_pair, parse_report


def present(text: str) -> dict[str, bool]:
    return {f.concept: f.present for f in parse_report(text) if f.kind == "finding"}


@pytest.mark.parametrize("text", [
    "Indication: cough. Findings: Small left pleural effusion.",
    "Technique: PA and lateral views. Comparison: none. Findings: Small left pleural effusion.",
    "History: fever; Findings: Small left pleural effusion.",
])
def test_a_capitalised_header_after_a_full_stop_starts_its_section(text):
    assert present(text) == {"pleural_effusion": True}


def test_the_text_of_a_skipped_section_is_still_skipped():
    assert present("History: cough. Known left pleural effusion.") == {}
    assert present("Indication: cough. Findings: No pneumonia.") == {"consolidation": False}


def test_a_one_line_report_is_judged_like_the_same_report_on_lines():
    reference = "INDICATION: cough\nFINDINGS: Small left pleural effusion.\nIMPRESSION: Small left effusion."
    flat = "Indication: cough. Findings: No pleural effusion. Impression: Normal chest."
    assert [e.category for e in judge_pair(reference, flat).errors] == ["b"]
    assert not judge_pair(reference, reference.replace("\n", " ")).errors
