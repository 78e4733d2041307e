"""The three RADAR labels (section 3 and 4.3 of the paper) and their codes.

Labels are stored as numbers (annotation ``value``, judge metric value): the
index of the label in its tuple below. The order is fixed for good: changing
it would change the meaning of stored rows.
"""

from __future__ import annotations

import math
import re

AGREEMENT = ("agree", "partially agree", "disagree")
SEVERITY = ("critical", "moderate", "negligible")
EDIT_TYPE = ("correction", "addition", "clarification")
LABELS: dict[str, tuple[str, ...]] = {"agreement": AGREEMENT, "severity": SEVERITY, "edit_type": EDIT_TYPE}
SUBSETS = ("natural", "synthetic")

# Spellings seen in answers and files (the released RADAR evaluation accepts the first three too).
_ALIASES = {
    "partial": "partially agree", "partially_agree": "partially agree", "partially-agree": "partially agree",
    "partly agree": "partially agree", "agrees": "agree", "disagrees": "disagree",
    "add": "addition", "correct": "correction", "clarify": "clarification",
}


def metric_name(label: str) -> str:
    """The metric a judge's predicted label is stored under (``review_agreement``, ...)."""
    return f"review_{label}"


def normalize_label(label: str, value: object) -> str | None:
    """A label's canonical spelling, or None when ``value`` is not one of ``label``'s classes.

    Case, surrounding punctuation, ``_``/``-`` and the aliases above are
    forgiven; anything else (including another label's class) is not.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = re.sub(r"[\s_\-]+", " ", str(value)).strip(" .,:;\"'*`").lower()
    classes = LABELS[label]
    if text in classes:
        return text
    alias = _ALIASES.get(text) or _ALIASES.get(text.replace(" ", "_"))
    return alias if alias in classes else None


def label_code(label: str, value: object) -> int | None:
    name = normalize_label(label, value)
    return None if name is None else LABELS[label].index(name)


def label_name(label: str, code: object) -> str | None:
    """Stored code -> label name; None for missing or out-of-range codes."""
    if code is None or (isinstance(code, float) and math.isnan(code)):
        return None
    i = int(code)
    classes = LABELS[label]
    return classes[i] if 0 <= i < len(classes) and float(code) == i else None
