"""Lexical baselines the papers compare against: BLEU-4, ROUGE-L F1 and ReXVal's BLEU-2.

BLEU-4 and ROUGE-L come from maintained packages (sacrebleu, rouge-score).
``bleu2`` is BLEU-2 exactly as ReXVal's published BLEU column was computed
(CXR-Report-Metric's ``prep_reports`` and ``fast_bleu.BLEU(weights={"bigram":
(1/2, 1/2)})`` with its default smoothing): reports lowercased, every period
split off as a token (``"."`` -> ``" ."``), tokens split on single spaces
with empty ones dropped; clipped unigram and bigram precision against the one
reference, geometric mean with equal weights; a precision with no match
becomes 0.1 / (its n-gram count) (NLTK's method 1, epsilon 0.1) unless no
unigram matches at all (then 0); brevity penalty exp(1 - r/c) when the
candidate is not longer, 0 for an empty one. All on a 0-1 scale, higher is
better. They see words, not findings: that is why they are baselines.

ROUGE-L is rouge-score's, computed without its table: rouge-score fills an
(n+1) x (m+1) table of Python ints for the longest common subsequence (LCS)
of the two token lists (a pair of 50 kB reports: 647 MB and 11 CPU seconds,
100 kB: 1.8 GB and 43 s, measured as docs/offline-judges.md says; 10 MB:
22.6 GB and an out-of-memory kill, issue 42). Here the same tokens
(rouge-score's tokenizer) go through a bit-parallel LCS (:func:`lcs_length`,
Hyyroe 2004: one integer of at most m bits per distinct token of the shorter
report, a few integer operations per token of the other), which gives the same
length exactly, and the same precision, recall and F-measure (rouge-score's
``fmeasure``): the numbers are identical. Time grows with n x m / 30 digit
operations, memory with the distinct tokens times m bits: two 100,000-character
reports of 25,000 distinct tokens each take 0.4 s and 37 MB (tracemalloc).
Reports longer than ``core.judges.bounds.MAX_REPORT_CHARS`` are not scored at
all (the runner records the failure).

English only (``core.judges.language.SUPPORTED``): rouge-score's tokenizer keeps
only a-z and 0-9, so accented words are cut apart and Chinese or Cyrillic text
has no token at all; a pair in another language is a recorded failure, no score.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

from core.judges.language import score_if_read
from core.judges.runs import OutputRecord, RunSpec

LEXICAL_VERSION = "sacrebleu-2.6.0/rouge-score-0.1.2/bleu2-cxr-report-metric/english-only"


@lru_cache(maxsize=1)
def _scorers():
    from rouge_score import tokenizers
    from sacrebleu.metrics import BLEU

    # effective_order: short reports with no 4-gram match still get a defined, smoothed score
    return BLEU(effective_order=True), tokenizers.DefaultTokenizer(use_stemmer=False)


def lcs_length(a: list[str], b: list[str]) -> int:
    """The length of the longest common subsequence of two token lists (bit-parallel, Hyyroe 2004).

    Bit i of ``v`` is 1 while position i of ``a`` is not yet in the subsequence; each token of ``b`` moves one
    match per run of ones; the zeros left are the LCS. Exact, as rouge-score's table gives it.
    """
    if len(a) > len(b):
        a, b = b, a  # the masks span the shorter list
    if not a:
        return 0
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for token in b:
        m = masks.get(token)
        if m:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def rouge_l(reference: str, candidate: str) -> float:
    """ROUGE-L F1 exactly as rouge-score's ``RougeScorer(["rougeL"]).score(reference, candidate)`` gives it."""
    from rouge_score.scoring import fmeasure

    tokenize = _scorers()[1].tokenize
    target, prediction = tokenize(reference), tokenize(candidate)
    if not target or not prediction:
        return 0
    lcs = lcs_length(target, prediction)
    return fmeasure(lcs / len(prediction), lcs / len(target))


def rexval_tokens(text: str) -> list[str]:
    """CXR-Report-Metric's ``prep_reports`` for one report."""
    return [t for t in str(text).lower().replace(".", " .").split(" ") if t != ""]


def _precision(reference: list[str], candidate: list[str], n: int) -> tuple[int, int]:
    grams = Counter(tuple(candidate[i:i + n]) for i in range(len(candidate) - n + 1))
    ref = Counter(tuple(reference[i:i + n]) for i in range(len(reference) - n + 1))
    return sum(min(c, ref[g]) for g, c in grams.items()), max(1, sum(grams.values()))


def bleu2(reference: str, candidate: str) -> float:
    """ReXVal's BLEU-2 (see the module docstring)."""
    ref, cand = rexval_tokens(reference), rexval_tokens(candidate)
    p = [_precision(ref, cand, n) for n in (1, 2)]
    if p[0][0] == 0:
        return 0.0
    log_sum = sum(0.5 * math.log(num / den if num else 1 / (10 * den)) for num, den in p)
    bp = 1.0 if len(cand) > len(ref) else math.exp(1 - len(ref) / len(cand))
    return bp * math.exp(log_sum)


def lexical_scores(reference: str, candidate: str) -> dict[str, float]:
    """{"bleu4": 0-1, "bleu2": 0-1, "rouge_l": 0-1} for one pair."""
    bleu = _scorers()[0]
    return {
        "bleu4": min(1.0, bleu.sentence_score(candidate, [reference]).score / 100.0),  # float noise can pass 1
        "bleu2": bleu2(reference, candidate),
        "rouge_l": rouge_l(reference, candidate),
    }


def score_pair(reference: str, candidate: str) -> OutputRecord:
    return score_if_read("lexical", lexical_scores, reference, candidate)


def spec_for(dataset: str) -> RunSpec:
    return RunSpec("lexical", "lexical", dataset, params={"version": LEXICAL_VERSION})
