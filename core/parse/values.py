"""Single values as a judge writes them, and the draft both answer readers fill in.

A count ("2", "two", "None", "no errors"), a category label ("False report of a finding" -> ``"a"``), a
list of error texts ("<Error 1>; <Error 2>."), an overall score in [0, 1]; :class:`ErrorItem`, one error
explanation; :class:`Draft`, one reading of an answer (:mod:`core.parse.text` or
:mod:`core.parse.jsonanswer`) before :func:`core.parse.result.parse_output` turns the better one into a
:class:`core.parse.result.ParseResult`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from core.analysis import scores

CATEGORIES: tuple[str, ...] = scores.CATEGORIES

#: Counts above this are treated as unreadable rather than stored.
MAX_COUNT = 1000

#: Section kind -> its name in a reason.
SECTION_LABEL = {
    "explanation": "explanation",
    "sig": "clinically significant errors",
    "insig": "clinically insignificant errors",
    "matched": "matched findings",
    "overall": "overall score",
}


@dataclass(frozen=True)
class ErrorItem:
    """One error explanation written by the judge.

    Attributes
    ----------
    category : str
        ``"a"``-``"f"``.
    significant : bool
        ``True`` for a clinically significant error.
    text : str
        The judge's description of the error.
    """

    category: str
    significant: bool
    text: str


def unknown_counts() -> dict[str, int | None]:
    """Every category ``"a"``-``"f"`` mapped to ``None`` (not read)."""
    return {c: None for c in CATEGORIES}


# --------------------------------------------------------------------------
# counts
# --------------------------------------------------------------------------

_WORD_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_WORD_NUMBERS.update({"single": 1, "a single": 1})
NONE_PHRASE = re.compile(
    r"^(?:(?:none|nil|n/?a|not\s+applicable"
    r"|no(?:\s+(?:clinically\s+)?(?:in)?significant|\s+matched)?"
    r"(?:\s+(?:errors?|findings?|discrepanc(?:y|ies)))?)"
    r"(?:\s+(?:(?:were|was)\s+)?(?:found|identified|noted|detected|present))?"
    r"|there\s+(?:are|were)\s+no\b.*|0(?![.,]?\d))\s*(?:[.;,!:)\-\u2013]|$)",
    re.I,
)
_COUNT_TOKEN = re.compile(
    r"^\(?\s*(?P<n>\d+|"
    + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True))
    + r")\b(?![.,]\d)\s*\)?(?:\s+(?:errors?|findings?|items?|matched(?:\s+findings?)?))?"
    r"\s*(?P<sep>[.:;,)\-\u2013\u2014]|$)?",
    re.I,
)


def read_count(s: str) -> tuple[int | None, str, str | None]:
    """Read a count at the start of ``s``.

    Returns (count, rest_after_count, problem).  ``count`` None = not a count.
    """
    s = s.strip()
    if NONE_PHRASE.match(s):
        m = NONE_PHRASE.match(s)
        return 0, s[m.end():].strip(), None
    m = _COUNT_TOKEN.match(s)
    if not m:
        return None, s, None
    token = m.group("n").lower()
    after = s[m.end():]
    # A count is followed by punctuation, the end, or text after a space.
    if m.group("sep") is None and after and not s[m.end() - 1].isspace() and not after[0].isspace():
        return None, s, None
    if not token.isdigit() and m.group("sep") is None and after.strip():
        return None, s, None  # "One 5 mm nodule ..." is text, not a count
    n = int(token) if token.isdigit() else _WORD_NUMBERS[token]
    if n > MAX_COUNT:
        return None, after.strip(), f"implausible count {n}"
    return n, after.strip(), None


_LABELS = (
    ("f", r"omit\w*\s+(?:of\s+)?(?:a\s+|the\s+)?comparison|missing\s+(?:a\s+)?comparison"
          r"|omission\s+of\s+(?:a\s+)?(?:comparison|change)|change\s+from\s+(?:a\s+)?prior"),
    ("e", r"mention\w*\s+(?:of\s+)?(?:a\s+)?comparison|false\s+comparison"
          r"|comparison\s+(?:that\s+)?(?:is\s*n[o']t|not|absent)"),
    ("a", r"false\s+(?:report|finding|prediction|positive)|hallucinat"),
    ("b", r"missing\s+(?:a\s+)?finding|omi\w*\s+(?:of\s+)?(?:a\s+)?finding|false\s+negative"),
    ("c", r"mis-?identification|anatomic|location|laterality|position"),
    ("d", r"mis-?assessment|severity"),
)


def label_category(label: str) -> str | None:
    for cat, pattern in _LABELS:
        if re.search(pattern, label, re.I):
            return cat
    return None

def split_texts(s: str) -> list[str]:
    """Split "<Error 1>; <Error 2>." into items (trailing period dropped)."""
    items = (t.strip().removesuffix(".").strip() for t in s.split(";"))
    return [t for t in items if re.search(r"\w", t)]


# --------------------------------------------------------------------------
# overall score (VERT D.2 / Formula D.3 / Rubric D.4)
# --------------------------------------------------------------------------

_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")


def parse_score_value(s: str) -> tuple[float | None, str | None]:
    """Read an overall score.  Returns (valid_score, problem)."""
    s = s.strip()
    if not s:
        return None, "overall score: no value"
    segment = s.rsplit("=", 1)[-1] if "=" in s else s
    numbers = list(_NUMBER.finditer(segment))
    if not numbers:
        return None, f"overall score: no number in {s[:40]!r}"
    dotted = [m for m in numbers if "." in m.group(0) and re.search(r"\d", m.group(0))]
    m = numbers[0] if _NUMBER.match(segment.lstrip("*( ")) else (dotted or numbers)[0]
    token = m.group(0)
    after = segment[m.end():]
    try:
        value = float(token)
    except ValueError:
        return None, f"overall score: unreadable {token!r}"
    if re.match(r"\s*%", after):
        return None, f"overall score {token}% is a percentage, expected [0, 1]; not rescaled"
    scale = re.match(r"\s*(?:/|out\s+of)\s*(\d+(?:\.\d+)?)", after, re.I)
    if scale and float(scale.group(1)) != 1.0:
        return None, (
            f"overall score {token}/{scale.group(1)} is not on the [0, 1] scale; not rescaled"
        )
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        return None, f"overall score {token} out of range [0, 1]"
    return value, None


# --------------------------------------------------------------------------
# one reading of an answer
# --------------------------------------------------------------------------


@dataclass
class Draft:
    """Intermediate result of one reading (text or JSON)."""

    sig: dict[str, int | None] = field(default_factory=unknown_counts)
    insig: dict[str, int | None] = field(default_factory=unknown_counts)
    matched: int | None = None
    overall: float | None = None
    errors: list[ErrorItem] = field(default_factory=list)
    matched_findings: list[str] = field(default_factory=list)
    explanation: str = ""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    found_any: bool = False
    fmt: str = "none"

    def complete(self) -> bool:
        return (
            all(v is not None for v in self.sig.values())
            and all(v is not None for v in self.insig.values())
            and self.matched is not None
            and not self.problems
        )
