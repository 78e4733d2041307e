"""Lexical baselines the papers compare against: sentence BLEU-4 and ROUGE-L F1.

Both from maintained packages (sacrebleu, rouge-score), on a 0-1 scale,
higher is better. They see words, not findings: that is why they are baselines.
"""

from __future__ import annotations

from functools import lru_cache

from core.judges.runs import OutputRecord, RunSpec

LEXICAL_VERSION = "sacrebleu-2.6.0/rouge-score-0.1.2"


@lru_cache(maxsize=1)
def _scorers():
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import BLEU

    # effective_order: short reports with no 4-gram match still get a defined, smoothed score
    return BLEU(effective_order=True), rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def lexical_scores(reference: str, candidate: str) -> dict[str, float]:
    """{"bleu4": 0-1, "rouge_l": 0-1} for one pair."""
    bleu, rouge = _scorers()
    return {
        "bleu4": min(1.0, bleu.sentence_score(candidate, [reference]).score / 100.0),  # float noise can pass 1
        "rouge_l": rouge.score(reference, candidate)["rougeL"].fmeasure,
    }


def score_pair(reference: str, candidate: str) -> OutputRecord:
    return OutputRecord(pair_id="", metrics=lexical_scores(reference, candidate))


def spec_for(dataset: str) -> RunSpec:
    return RunSpec("lexical", "lexical", dataset, params={"version": LEXICAL_VERSION})
