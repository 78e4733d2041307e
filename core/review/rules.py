"""The offline baseline for edit review (``--judge rules`` on an ``edit_review`` dataset).

Designed for this project, not from the paper, and deliberately simple: it
reads only the preliminary report and the edit (never images or the final
report), so its agreement guesses are weak by construction. Its purpose is a
keyless, reproducible reference row on the Edit review page.

- **edit type**: clarification when the edit says so ("clarify", "specify",
  "more precisely", ...); correction when it negates or replaces ("not",
  "rather than", "instead of", "replace", ...); otherwise addition.
- **agreement**: partially agree when the edit is mostly already in the
  preliminary report (at least 80% of its content words appear there: a
  redundant edit, sec. 4.3); otherwise agree.
- **severity**: critical / moderate by the first matching term of the lists
  below (emergent findings, then findings needing follow-up), else negligible.
"""

from __future__ import annotations

import json
import re

from core.judges.runs import OutputRecord
from core.review.labels import LABELS, metric_name

VERSION = 1
CLARIFY = ("clarify", "specify", "more precisely", "to be precise", "measures", "characterize")
CORRECT = (" not ", "rather than", "instead of", "replace", "incorrect", "should read", "no evidence of",
           "was not", "is not", "are not")
CRITICAL = ("free air", "free intraperitoneal air", "pneumoperitoneum", "extravasation", "dissection",
            "transition point", "obstruct", "perforat", "portal venous gas", "appendicitis", "laceration",
            "hematoma", "ischemi", "torsion", "rupture", "pneumothorax", "abscess")
MODERATE = ("mass", "lesion", "stone", "hydronephrosis", "diverticulitis", "fracture", "effusion",
            "thickening", "cholecyst", "colitis", "nodule", "collection", "hernia contains")
STOPWORDS = {"the", "a", "an", "is", "are", "of", "in", "with", "and", "or", "to", "at", "on", "there",
             "that", "this", "be", "was", "were", "for", "by", "as", "it", "its", "no", "not"}
REDUNDANT = 0.8


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", text.lower()) if w not in STOPWORDS]


def predict(preliminary: str, edit: str) -> dict[str, str]:
    """The three labels for one edit (see the module docstring)."""
    low = f" {edit.lower()} "
    if any(t in low for t in CLARIFY):
        edit_type = "clarification"
    elif any(t in low for t in CORRECT):
        edit_type = "correction"
    else:
        edit_type = "addition"
    words = _words(edit)
    known = set(_words(preliminary))
    overlap = sum(w in known for w in words) / len(words) if words else 1.0
    agreement = "partially agree" if overlap >= REDUNDANT else "agree"
    severity = ("critical" if any(t in low for t in CRITICAL)
                else "moderate" if any(t in low for t in MODERATE) else "negligible")
    return {"agreement": agreement, "severity": severity, "edit_type": edit_type}


def score_pair(preliminary: str, edit: str) -> OutputRecord:
    """An output in the shared runner's form: the labels as JSON text and as metric codes."""
    labels = predict(preliminary, edit)
    metrics = {metric_name(k): float(LABELS[k].index(v)) for k, v in labels.items()}
    return OutputRecord(pair_id="", raw_text=json.dumps(labels), metrics=metrics)
