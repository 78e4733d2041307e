"""Rule-based judge (``--judge rules``): GREEN-style error counts without a model.

Deterministic, offline, standard library only.  It reads the two report texts
(never any label or metadata), turns each into a list of normalised findings,
matches them and writes its verdict in GREEN's own answer format, so the
standard parser (:func:`core.parse.result.parse_output`) computes its metrics exactly
as for an LLM judge.

Pipeline (each step documented in its module)
---------------------------------------------
1-4. :mod:`.extract` -- segmentation into sections and sentences, observations
     of :mod:`.vocab` (synonyms, clinical weight, severity scales, site
     classes, cue words), their attributes (polarity, certainty, side, sites,
     severity, size, comparison with a prior study) and deduplication within
     a report: :func:`parse_report`.
5.   :mod:`.match` -- matching findings across the two reports, the errors in
     GREEN / ReXVal's categories (a)-(f) and the significance rule:
     :func:`judge_pair`.
Then :mod:`.render` writes the result in GREEN's answer format
(:func:`render_green`).  :mod:`.patterns` holds the compiled regular
expressions and the term :class:`Scanner`; :mod:`.findings` the data types.

API: :func:`judge_pair` (structured :class:`RulesResult`), :func:`render_green`,
:func:`score_pair` (``OutputRecord`` for the offline runner; a pair that is not in English, or whose
candidate is not a report, is a recorded failure: :mod:`.screen`), :func:`screen_pair`, :func:`spec_for`,
:func:`parse_report`, :func:`clear_caches`.
"""

from __future__ import annotations

from core.judges.rules.crimson_style import rules_crimson
from core.judges.rules.extract import (
    MAX_REPORT_CHARS,
    MAX_SENTENCE_CHARS,
    MAX_STATEMENTS,
    clear_caches,
    parse_report,
)
from core.judges.rules.findings import (
    CATEGORIES,
    CATEGORY_LABELS,
    RULES_VERSION,
    Finding,
    Match,
    RuleError,
    RulesResult,
)
from core.judges.rules.match import judge_pair
from core.judges.rules.patterns import Scanner
from core.judges.rules.render import render_green, score_pair, spec_for
from core.judges.rules.screen import not_a_report, screen_pair

__all__ = ["CATEGORIES", "CATEGORY_LABELS", "MAX_REPORT_CHARS", "MAX_SENTENCE_CHARS", "MAX_STATEMENTS",
           "RULES_VERSION", "Finding", "Match", "RuleError", "RulesResult", "Scanner", "clear_caches",
           "judge_pair", "not_a_report", "parse_report", "render_green", "rules_crimson", "score_pair", "screen_pair", "spec_for"]
