"""Seeded synthetic demo corpus of radiology report pairs with known error labels.

A fresh install has no data, so the dashboard ships with a generated corpus:
each *pair* is a reference report and a candidate report (as if written by a
report generator), annotated with ReXVal-style error counts whose labels are
known **by construction**. Nothing here comes from real patients.

How a pair is built
-------------------
1. An *exam* (modality + anatomy, e.g. ``CT`` / ``chest``) is drawn. Each exam
   owns a pool of *findings* in anatomic reading order (pneumothorax, pleural
   effusion, ...). A finding is structured data: laterality, location, severity
   grade, size in millimetres, comparison with a prior study, hedging.
2. The reference keeps a few findings as positive statements and states the
   absence of a few others ("No pneumothorax.", "The heart size is normal.").
3. For every candidate the *structured* finding list is copied and the
   simulated system's errors are applied to it (drop a finding, move it to the
   other side, change its grade or size, invent a finding or a comparison,
   drop a comparison). Every applied change is recorded as one error.
4. Reference and candidate are then rendered to text **independently**:
   phrasing templates, synonyms ("pleural effusion" / "pleural fluid
   collection"), negation forms ("No X." / "X is not seen."), hedges,
   mm versus cm, sentence order and section layout are all drawn afresh, so an
   error-free candidate is a paraphrase rather than a copy and an error is not
   a one-token edit of a fixed template. A small fraction of candidates is an
   exact copy of the reference.

Because the errors are applied to structure and the text is rendered from the
structure, the labels and the text cannot drift apart; ``tests/ingest/test_synth.py``
checks this for every pair from the details recorded in ``meta``. At most one
error touches a finding, so every label has a single unambiguous cause.

Benign variation (never labelled): rewording, reordering, merging negatives
("No pleural effusion or pneumothorax."), leaving out *negative* statements,
dropping the impression section, and mm/cm or "L4-5"/"L4-L5" spellings. About
3% of candidates are verbatim copies (the analysis can filter identical pairs).

``meta`` (JSON) of a pair::

    {"synthetic": true, "generator": "core.ingest.synth", "seed": 7, "exam": "CT chest with contrast",
     "prior_date": "03/14/2022" | null, "identical": false,
     "ref_findings": ["pleural_effusion", ...], "cand_findings": [...],
     "errors": [{"category": "c", "significant": true,
                 "detail": "laterality of pleural effusion: left -> right",
                 "finding": "pleural_effusion", "attr": "side", "from": "left", "to": "right",
                 "ref": "<reference sentence>", "cand": "<candidate sentence>"}, ...]}

``attr`` is side/site/grade/size/cmp (null for a and b); sizes are in mm;
``ref`` is null for a false finding and ``cand`` null for a missing one.

Error categories (ReXVal)
-------------------------
a  false finding: a finding absent from the reference (possibly one the
   reference explicitly called normal) is reported.
b  missing finding: a positive reference finding is not reported.
c  wrong location: same finding, other side or other site.
d  wrong severity: same finding, other grade or a different size.
e  added comparison: a change versus a prior study the reference did not state.
f  omitted comparison: a comparison the reference made is dropped.

Significance is decided by clinical weight, not at random. Each finding says
when its presence matters (always: pneumothorax; from a grade: a moderate
effusion; from a size: a 6 mm nodule; never: a calcified granuloma). Missing or
inventing it (a, b), misplacing it (c), or adding/dropping a stated *change*
versus the prior (e, f; "unchanged" is minor) is significant exactly when the
finding matters. A grade error (d) is significant for a finding that can
matter when it jumps two steps, crosses the threshold, or concerns an
always-serious finding; a size error when the ratio is large (1.5x, 1.2x for
aneurysms) or crosses the size threshold. See
:func:`~core.ingest.synth.findings.presence_significant` and
:func:`~core.ingest.synth.errors.propose_error`.

Annotators and score
--------------------
``expert_1`` reports exactly the constructed counts. ``expert_2`` is a seeded
second rater: on a minority of pairs it miscounts by one in a category or
calls a significant error insignificant (or, rarely, the reverse); identical
pairs are never perturbed. Each annotator's overall score on a 0-5 scale
(5 = perfect) is derived from its own counts::

    score = clip(round_half_up(5 - 1.0 * n_significant - 0.3 * n_insignificant), 0, 5)

computed in exact integer arithmetic as ``clip((55 - 10*sig - 3*insig) // 10, 0, 5)``.

Modules
-------
vocabulary   error categories, grade/side/site scales, ``FindingSpec``
findings     the finding catalogue ``FINDINGS`` and presence significance
exams        the exam types ``EXAMS`` and their site scales
render       structured findings -> report text
errors       finding states and the errors applied to them
cases        reference reports and the simulated systems' candidates
annotations  the simulated annotators and their scores
generate     ``generate_demo``, the entry point
"""

from core.ingest.synth.cases import SYSTEMS
from core.ingest.synth.exams import EXAMS, Exam
from core.ingest.synth.findings import FINDINGS
from core.ingest.synth.generate import DemoCorpus, generate_demo
from core.ingest.synth.vocabulary import (
    COMPARISON_CUES,
    FindingSpec,
    grade_forms,
    location_forms,
)
from core.taxonomy import CATEGORIES, CATEGORY_NAMES  # re-exported: the package's public words

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "COMPARISON_CUES",
    "EXAMS",
    "FINDINGS",
    "SYSTEMS",
    "DemoCorpus",
    "Exam",
    "FindingSpec",
    "generate_demo",
    "grade_forms",
    "location_forms",
]
