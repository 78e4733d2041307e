"""The metric registry: every score a judge can report, with its label, orientation, range, definition
and the paper section it comes from (:data:`METRICS`), and the per-category counts behind the scores.

Moved out of :mod:`core.analysis.scores` (which re-exports every name), so that module holds only the formulas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.taxonomy import CATEGORIES

__all__ = ["METRICS", "PER_CATEGORY_COUNTS", "MetricSpec", "metric_label", "orientation_sign"]


@dataclass(frozen=True)
class MetricSpec:
    """Description of one metric: orientation, range and provenance.

    Attributes
    ----------
    name : str
        Metric name as used in the store, the JSON output and the UI.
    label : str
        Short human-readable label.
    higher_is_better : bool
        Orientation.  ``False`` for error counts: a judge whose error count
        correlates *negatively* with an expert quality score is oriented right.
    range : tuple of float
        ``(low, high)``; ``high`` is ``math.inf`` for unbounded counts.
    description : str
        One-sentence definition.
    reference : str
        Paper and section defining it.
    """

    name: str
    label: str
    higher_is_better: bool
    range: tuple[float, float]
    description: str
    reference: str


METRICS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "green", "GREEN", True, (0.0, 1.0),
            "M / (M + S); 0 when M = 0.",
            "GREEN Sec. 3.2 Eq. (1); VERT App. B.2 Eq. (3)",
        ),
        MetricSpec(
            "green_f1", "GREEN-F1", True, (0.0, 1.0),
            "2M / (2M + S); 0 when M = 0 (so 0 when M = S = 0).",
            "VERT App. B.3 Eq. (4); zero denominators per App. C",
        ),
        MetricSpec(
            "formula", "Formula", True, (0.0, 1.0),
            "M / (M + 2S + 0.5I); 0 when M = 0.",
            "VERT App. B.4 Eq. (5) and prompt D.3 Step 6",
        ),
        MetricSpec(
            "ec_sig", "GREEN-EC (sig.)", False, (0.0, math.inf),
            "S: sum of clinically significant error counts over (a)-(f).",
            "GREEN Sec. 3.2; VERT Sec. 4.1.1 (GREEN-EC)",
        ),
        MetricSpec(
            "ec_total", "GREEN-EC (total)", False, (0.0, math.inf),
            "S + I: significant plus insignificant error counts.",
            "VERT App. B.1 Eq. (2)",
        ),
        MetricSpec(
            "vert", "VERT", True, (0.0, 1.0),
            "Overall accuracy score written by the judge, in [0, 1].",
            "VERT App. D.2",
        ),
        MetricSpec(
            "rubric", "Rubric", True, (0.0, 1.0),
            "Overall accuracy score from the rubric prompt, in [0, 1].",
            "VERT App. D.4",
        ),
        MetricSpec(
            "radfact", "RadFact F1", True, (0.0, 1.0),
            "Logical F1 of bidirectional phrase entailment (candidate vs reference).",
            "RadFact-style baseline, prompt designed in core/prompts/templates/radfact.txt",
        ),
        MetricSpec(
            "radfact_precision", "RadFact precision", True, (0.0, 1.0),
            "Share of candidate phrases entailed by the reference.",
            "RadFact-style baseline (logical precision)",
        ),
        MetricSpec(
            "radfact_recall", "RadFact recall", True, (0.0, 1.0),
            "Share of reference phrases entailed by the candidate.",
            "RadFact-style baseline (logical recall)",
        ),
        MetricSpec(
            "fineradscore", "FineRadScore", False, (0.0, math.inf),
            "Sum of severity weights (1-4) of the line corrections and missing lines.",
            "FineRadScore-style baseline, prompt designed in core/prompts/templates/fineradscore.txt",
        ),
        MetricSpec(
            "fineradscore_corrections", "FineRadScore corrections", False, (0.0, math.inf),
            "Number of corrected candidate lines plus missing lines.",
            "FineRadScore-style baseline",
        ),
        MetricSpec(
            "fineradscore_max", "FineRadScore max severity", False, (0.0, 4.0),
            "Most severe correction (0 when none is needed).",
            "FineRadScore-style baseline",
        ),
        MetricSpec(
            "bleu4", "BLEU-4", True, (0.0, 1.0),
            "Lexical n-gram overlap (up to 4-grams) with the reference.",
            "Papineni et al. 2002; baseline in GREEN Sec. 2",
        ),
        MetricSpec(
            "rouge_l", "ROUGE-L", True, (0.0, 1.0),
            "Longest-common-subsequence F-measure with the reference.",
            "Lin 2004; baseline in GREEN Sec. 2",
        ),
        MetricSpec(
            "bleu2", "BLEU-2 (ReXVal)", True, (0.0, 1.0),
            "Unigram and bigram overlap with the reference, computed as ReXVal's BLEU column was.",
            "CXR-Report-Metric (Yu et al. 2023) BLEU-2; core/judges/lexical.py",
        ),
        MetricSpec(
            "words_candidate", "Candidate words", False, (0.0, math.inf),
            "Number of words in the candidate report (longer reports have more room for errors).",
            "Word-count baseline; core/judges/length.py",
        ),
        MetricSpec(
            "words_reference", "Reference words", False, (0.0, math.inf),
            "Number of words in the reference report.",
            "Word-count baseline; core/judges/length.py",
        ),
        MetricSpec(
            "words_diff", "Word-count difference", False, (0.0, math.inf),
            "Absolute difference between the candidate's and the reference's word counts.",
            "Word-count baseline; core/judges/length.py",
        ),
        MetricSpec(
            "rules_crimson", "CRIMSON-style score (rules levels)", True, (-1.0, 1.0),
            "CRIMSON's formula over the rules judge's own findings, matches and errors, each finding weighed by "
            "the rules' clinical significance level (urgent 1, actionable 0.5, not actionable 0.25, benign 0) "
            "with the pair's patient context; no model (range (-1, 1]).",
            "core/judges/rules/crimson_style.py; levels: core/judges/rules/significance.py (docs/SIGNIFICANCE.md)",
        ),
        MetricSpec(
            "crimson", "CRIMSON", True, (-1.0, 1.0),
            "Weighted correct findings (partial credit for attribute errors) minus weighted false findings, over "
            "the weighted reference findings; 1 perfect, 0 no better than a normal template, below 0 more "
            "weighted errors than correct findings (range (-1, 1]).",
            "CRIMSON (Baharoon et al. 2026, arXiv:2603.06183); generate_score.py cb1f126, core/parse/crimson.py",
        ),
        *(MetricSpec(f"crimson_{kind}", f"CRIMSON {label}", False, (0.0, math.inf),
                     f"Number of {label} errors the CRIMSON judge listed.", "CRIMSON error taxonomy; core/parse/crimson.py")
          for kind, label in (("false", "false finding"), ("missing", "missing finding"),
                              ("attribute", "attribute"), ("location", "location"), ("severity", "severity"),
                              ("descriptor", "descriptor"), ("measurement", "measurement"),
                              ("certainty", "certainty"), ("unspecific", "unspecific"),
                              ("overinterpretation", "overinterpretation"), ("temporal", "temporal"))),
        *(MetricSpec(f"crimson_e_{kind}", f"CRIMSON {label} (weighted)", False, (0.0, math.inf),
                     f"Sum of the CRIMSON weights of the {label}: {weights}.",
                     "CRIMSON weighted error counts; core/parse/crimson.py")
          for kind, label, weights in (
              ("false", "false findings", "urgent 1, actionable 0.5, not actionable 0.25, benign 0"),
              ("miss", "missing findings", "urgent 1, actionable 0.5, not actionable 0.25, benign 0"),
              ("attr", "attribute errors", "significant 0.5, negligible 0"))),
    )
}

#: The counts behind the scores (per category, and matched findings): stored with every GREEN-format
#: answer for per-category analyses; in correlation tables only on request (``--all-metrics``).
PER_CATEGORY_COUNTS: frozenset[str] = frozenset(
    [f"sig_{c}" for c in CATEGORIES] + [f"insig_{c}" for c in CATEGORIES] + ["matched"]
    + [m for m in METRICS if m.startswith("crimson_")])  # CRIMSON's counts behind its score


def metric_label(name: str) -> str:
    """The label a table or figure shows for metric ``name`` (the name itself when it is not in :data:`METRICS`)."""
    spec = METRICS.get(name)
    return spec.label if spec else name


def orientation_sign(name: str) -> int:
    """Return +1 if higher values of metric ``name`` are better, else -1.

    Raises
    ------
    KeyError
        If ``name`` is not in :data:`METRICS` (the message lists valid names).
    """
    try:
        spec = METRICS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; valid: {', '.join(METRICS)}") from None
    return 1 if spec.higher_is_better else -1
