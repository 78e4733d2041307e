"""The word-count baseline (``--judge length``): how long the reports are, nothing else.

A table of judges without it flatters every judge: on ReXVal's real reports a
plain word count follows the experts' error counts more closely than BLEU or
ROUGE-L do (longer candidates have more room for errors). Metrics: the
candidate's and the reference's word counts (whitespace-separated tokens) and
their absolute difference. Orientation is the baseline's hypothesis, lower is
better for all three: more words, or a length further from the reference's,
goes with more errors.

Languages (``core.judges.language.SUPPORTED``): any language written with spaces
between words, where a whitespace token is a word. Chinese, Japanese and Thai
put no spaces between words (a "word" would be a phrase or a whole sentence):
a pair in one of them is a recorded failure, no score. Counts compare reports
of one language; a German report has fewer, longer words than its English
translation.
"""

from __future__ import annotations

from core.judges.language import score_if_read
from core.judges.runs import OutputRecord, RunSpec

LENGTH_VERSION = "words-whitespace-2"  # 2: no score for Chinese, Japanese, Thai


def length_scores(reference: str, candidate: str) -> dict[str, float]:
    ref, cand = len(str(reference).split()), len(str(candidate).split())
    return {"words_candidate": float(cand), "words_reference": float(ref), "words_diff": float(abs(cand - ref))}


def score_pair(reference: str, candidate: str) -> OutputRecord:
    return score_if_read("length", length_scores, reference, candidate)


def spec_for(dataset: str) -> RunSpec:
    return RunSpec("length", "length", dataset, params={"version": LENGTH_VERSION})
