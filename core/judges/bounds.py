"""How much text an offline judge reads: one cap per report, shared by every offline judge, ``score`` and Live
scoring.

A radiology report is a few thousand characters at most. A pair with a report longer than
:data:`MAX_REPORT_CHARS` is not scored by an offline judge (rules, lexical, length, ``distilled:NAME``): the run
records a failure with the reason (:func:`too_long`), as it records a report in another language, and the job
ends as usual. ``score`` and the Live scoring page give the same reason.

Below the cap the lexical judge's work grows at most with the product of the two reports' word counts over the
integer digit size (ROUGE-L's longest common subsequence, bit-parallel: ``core.judges.lexical``); the rules
judge bounds its own work (sentence and statement limits, linear-time patterns). Two report-like texts of
100,000 characters each took 0.12 s (lexical), 0.30 s (rules) and 0.01 s (length) of CPU in one process; the
docs/offline-judges.md and docs/reliability.md have the whole-process figures and commands. Longer text is refused before any of it is read (no
language detection, no tokenizing): a 10 MB report costs the time to measure its length.
"""

from __future__ import annotations

#: The longest report (in characters) an offline judge scores; a longer one makes the pair a recorded failure.
MAX_REPORT_CHARS = 100_000


def too_long(judge: str, reference: object, candidate: object) -> str | None:
    """The failure to record when either report of the pair is longer than :data:`MAX_REPORT_CHARS`, else None."""
    for role, text in (("reference", reference), ("candidate", candidate)):
        n = 0 if text is None else len(text) if isinstance(text, str) else len(str(text))
        if n > MAX_REPORT_CHARS:
            return (f"too long to judge: the {role} report has {n:,} characters; the {judge} judge reads reports "
                    f"of at most {MAX_REPORT_CHARS:,} characters (core.judges.bounds.MAX_REPORT_CHARS)")
    return None
