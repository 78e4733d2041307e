"""The rules judge's CRIMSON-style score (metric ``rules_crimson``): CRIMSON's formula over the rules' findings.

CRIMSON (Baharoon et al. 2026) weighs each finding by its clinical significance (urgent 1, actionable 0.5,
not actionable 0.25, benign 0) and each attribute error by its severity (significant 0.5, negligible 0),
then scores (weighted correct findings - weighted false findings) / weighted reference findings, with
partial credit ``w * w / (w + attribute weights)`` for a matched finding with attribute errors.

Here the findings, matches and errors are the rules judge's own (no model), the levels those of
:mod:`.significance` (with the pair's patient context), and the arithmetic is exactly the CRIMSON model's
(:func:`core.parse.crimson.score_evaluation`, upstream's ``_calculate_crimson`` rewritten): the evaluation is
built in CRIMSON's JSON shape and scored by the same function. The metric is stored as ``rules_crimson``,
never ``crimson``, so it cannot be read as the CRIMSON model's score (a name starting with ``crimson`` is
what the analysis code treats as the CRIMSON judge's).

What the rules give CRIMSON's evaluation: reference and candidate findings are the positive findings the
rules matched, missed (b) or invented (a); a matched pair is a match; its location (c), severity or
precision (d) and comparison (e, f) errors are attribute errors, significant or negligible as the rules
judged them.
"""

from __future__ import annotations

from core.judges.rules import significance as S
from core.judges.rules.findings import Finding, RulesResult
from core.parse.crimson import score_evaluation

__all__ = ["METRIC", "evaluation", "rules_crimson"]

METRIC = "rules_crimson"
_ATTRIBUTE_TYPE = {"c": "location", "d": "severity", "e": "temporal", "f": "temporal"}


def evaluation(result: RulesResult) -> dict:
    """The rules' verdict as a CRIMSON evaluation (the JSON shape of CRIMSON's answer, with the ids, levels and
    links the score reads; the finding texts are in the GREEN-format answer beside it)."""
    ctx = result.context if isinstance(result.context, S.Context) else S.NO_CONTEXT
    ref_ids: dict[int, str] = {}
    pred_ids: dict[int, str] = {}
    refs: list[dict] = []
    preds: list[dict] = []

    def ref_id(f: Finding) -> str:
        if id(f) not in ref_ids:
            ref_ids[id(f)] = f"R{len(refs) + 1}"
            refs.append({"id": ref_ids[id(f)], "clinical_significance": S.level_name(S.level(f, ctx))})
        return ref_ids[id(f)]

    def pred_id(f: Finding) -> str:
        if id(f) not in pred_ids:
            pred_ids[id(f)] = f"P{len(preds) + 1}"
            preds.append({"id": pred_ids[id(f)], "clinical_significance": S.level_name(S.level(f, ctx))})
        return pred_ids[id(f)]

    matched = [{"ref_id": ref_id(m.reference), "pred_id": pred_id(m.candidate)}
               for m in result.matches if m.kind == "positive"]
    false_ids, missing_ids, attrs = [], [], []
    for e in result.errors:
        if e.category == "a" and e.candidate is not None:
            false_ids.append(pred_id(e.candidate))
        elif e.category == "b" and e.reference is not None:
            missing_ids.append(ref_id(e.reference))
        elif e.category in _ATTRIBUTE_TYPE and e.reference is not None and e.candidate is not None \
                and e.reference.kind == "finding" and e.reference.present:
            attrs.append({"ref_id": ref_id(e.reference), "pred_id": pred_id(e.candidate),
                          "severity": "significant" if e.significant else "negligible",
                          "error_types": [_ATTRIBUTE_TYPE[e.category]]})
    return {"reference_findings": refs, "predicted_findings": preds, "matched_findings": matched,
            "errors": {"false_findings": false_ids, "missing_findings": missing_ids, "attribute_errors": attrs}}


def rules_crimson(result: RulesResult) -> float:
    """CRIMSON's score of the rules' verdict on one pair, in (-1, 1] (1: every finding right)."""
    return score_evaluation(evaluation(result)).crimson
