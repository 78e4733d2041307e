"""The worked answers behind the plan's assumed output tokens (``core.models.assumed_output_tokens``).

    .venv/bin/python bench/output_tokens.py [--show]

One chest X-ray pair, four findings a side (reference: small left pleural effusion, left basilar atelectasis,
mild cardiomegaly, an 8 mm right upper lobe nodule; candidate: the effusion on the right, bibasilar
atelectasis, moderate cardiomegaly, a possible right lower lobe consolidation): three matched, one missed,
one added, three attribute differences. Its answer is written out in each prompt family's own output format
(CRIMSON's JSON as the prompt lays it out, GREEN's sections, VERT's with the score line, RadFact's and
FineRadScore's JSON) and counted with ``litellm.token_counter`` for ``openai/gpt-4o-mini`` (its bundled
tokenizer; no download) and at about 4 characters a token. No call is made.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REF = [("small left pleural effusion", "actionable_not_urgent"), ("left basilar atelectasis", "not_actionable_not_urgent"),
       ("mild cardiomegaly", "actionable_not_urgent"), ("right upper lobe nodule measuring 8 mm", "actionable_not_urgent")]
CAND = [("small right pleural effusion", "actionable_not_urgent"), ("bibasilar atelectasis", "not_actionable_not_urgent"),
        ("moderate cardiomegaly", "actionable_not_urgent"),
        ("possible right lower lobe consolidation", "actionable_not_urgent")]
ATTRS = [("R1", "P1", "significant", "location", "The reference effusion is on the left; the candidate places it on "
          "the right."), ("R2", "P2", "negligible", "location", "Left basilar in the reference, bibasilar in the "
          "candidate."), ("R3", "P3", "significant", "severity", "Mild cardiomegaly in the reference, moderate in the "
          "candidate.")]


def crimson() -> str:
    """The answer laid out as CRIMSON's Output Format shows it: one object a line, four-space indents."""
    i = "    "

    def objects(items, indent):
        return [indent + json.dumps(x) + ("," if k < len(items) - 1 else "") for k, x in enumerate(items)]

    refs = [{"id": f"R{k + 1}", "finding": f, "clinical_significance": s} for k, (f, s) in enumerate(REF)]
    preds = [{"id": f"P{k + 1}", "finding": f, "clinical_significance": s} for k, (f, s) in enumerate(CAND)]
    matched = [{"ref_id": f"R{k}", "pred_id": f"P{k}"} for k in (1, 2, 3)]
    attrs = [{"ref_id": r, "pred_id": p, "severity": s, "error_types": [t], "explanation": e}
             for r, p, s, t, e in ATTRS]
    lines = ["{", i + '"reference_findings": [', *objects(refs, i * 2), i + "],", i + '"predicted_findings": [',
             *objects(preds, i * 2), i + "],", i + '"matched_findings": [', *objects(matched, i * 2), i + "],",
             i + '"errors": {', i * 2 + '"false_findings": [', i * 3 + '"P4"', i * 2 + "],",
             i * 2 + '"missing_findings": [', i * 3 + '"R4"', i * 2 + "],", i * 2 + '"attribute_errors": [',
             *objects(attrs, i * 3), i * 2 + "]", i + "}", "}"]
    return "\n".join(lines)


GREEN = """[Explanation]:
The candidate report places the pleural effusion on the right instead of the left, describes the cardiomegaly as \
moderate rather than mild, calls the left basilar atelectasis bibasilar, misses the 8 mm right upper lobe nodule and \
adds a possible right lower lobe consolidation that the reference does not mention.

[Clinically Significant Errors]:
(a) False report of a finding in the candidate: 1. Possible right lower lobe consolidation.
(b) Missing a finding present in the reference: 1. Right upper lobe nodule measuring 8 mm.
(c) Misidentification of a finding's anatomic location/position: 1. Pleural effusion on the right instead of the left.
(d) Misassessment of the severity of a finding: 1. Moderate instead of mild cardiomegaly.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.

[Clinically Insignificant Errors]:
(a) False report of a finding in the candidate: 0.
(b) Missing a finding present in the reference: 0.
(c) Misidentification of a finding's anatomic location/position: 1. Bibasilar instead of left basilar atelectasis.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.

[Matched Findings]:
3. Pleural effusion; atelectasis; cardiomegaly."""


def radfact() -> str:
    ref = [f[0].capitalize() + "." for f in REF]
    cand = [f[0].capitalize() + "." for f in CAND]
    return json.dumps({
        "candidate_phrases": [{"phrase": c, "entailed": k == 1, "evidence": [ref[k]] if k < 3 else []}
                              for k, c in enumerate(cand)],
        "reference_phrases": [{"phrase": r, "entailed": k == 1, "evidence": [cand[k]] if k < 3 else []}
                              for k, r in enumerate(ref)]}, indent=2)


def fineradscore() -> str:
    return json.dumps({
        "lines": [
            {"line": 1, "needs_correction": True, "correction": "Small left pleural effusion.",
             "severity": "Actionable nonurgent", "category": "c", "comment": "Wrong side."},
            {"line": 2, "needs_correction": True, "correction": "Left basilar atelectasis.",
             "severity": "Not actionable", "category": "c", "comment": "Only the left base."},
            {"line": 3, "needs_correction": True, "correction": "Mild cardiomegaly.",
             "severity": "Actionable nonurgent", "category": "d", "comment": "Overstated severity."},
            {"line": 4, "needs_correction": True, "correction": "[delete]", "severity": "Urgent", "category": "a",
             "comment": "Not in the reference."}],
        "missing": [{"insertion": "Right upper lobe nodule measuring 8 mm.", "severity": "Actionable nonurgent",
                     "category": "b", "comment": "Needs follow-up imaging."}]}, indent=2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", action="store_true", help="print each answer too")
    args = ap.parse_args()
    import core  # noqa: F401  (the offline defaults: litellm reads its bundled tables)
    from core.judges.llm import litellm_module
    from core.models import assumed_output_tokens

    litellm = litellm_module()
    answers = {"crimson": crimson(), "green": GREEN, "vert": GREEN + "\n\n[Overall Accuracy Score]:\n0.4",
               "radfact": radfact(), "fineradscore": fineradscore()}
    print("| prompt | characters | tokens (gpt-4o-mini) | ~4 characters a token | the plan assumes |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for prompt, text in answers.items():
        tokens = litellm.token_counter(model="openai/gpt-4o-mini", text=text)
        print(f"| `{prompt}` | {len(text):,} | {tokens:,} | {len(text) // 4:,} | {assumed_output_tokens(prompt):,} |")
    if args.show:
        for prompt, text in answers.items():
            print(f"\n--- {prompt}\n{text}")


if __name__ == "__main__":
    main()
