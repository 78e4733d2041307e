"""An error inside the rules judge is a recorded failure, never a clean report.

Before this, ``judge_pair`` caught the error and returned an empty result, which ``render_green`` wrote as
GREEN 1 with zero errors in every category: a perfect score for a pair the judge could not read. The error is
induced by replacing the comparison step (an internal bug cannot be reached with real text on purpose)."""

from __future__ import annotations

import pytest

import core.judges.rules.match as match
from core.judges.live import score_rules_live
from core.judges.rules import judge_pair, score_pair

REFERENCE = "FINDINGS: Large right pleural effusion. IMPRESSION: Large right effusion."
CANDIDATE = "FINDINGS: Lungs are clear. IMPRESSION: No acute disease."


@pytest.fixture
def broken_comparison(monkeypatch):
    def fail(*_args, **_kwargs):
        raise MemoryError

    monkeypatch.setattr(match, "_judge", fail)


def test_the_pair_scores_normally_without_the_fault():
    record = score_pair(REFERENCE, CANDIDATE)
    assert record.error is None and "(b)" in record.raw_text


def test_an_internal_error_is_a_failure_with_no_score(broken_comparison):
    result = judge_pair(REFERENCE, CANDIDATE)
    assert result.failure and "internal error MemoryError" in result.failure and not result.errors
    record = score_pair(REFERENCE, CANDIDATE)
    assert record.error == result.failure and not record.raw_text and record.metrics is None


def test_live_scoring_shows_the_failure_instead_of_a_score(broken_comparison):
    live = score_rules_live(REFERENCE, CANDIDATE)
    assert live.failure and "internal error" in live.failure and live.parsed is None and not live.errors
