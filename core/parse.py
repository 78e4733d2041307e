"""Judge output text -> structured error counts, texts and scores.

Reads the answer format of the GREEN prompt (GREEN Appendix A.1; VERT paper
Appendix D.1) and its VERT / Formula / Rubric extensions (VERT Appendix
D.2-D.4), which add an ``[Overall Accuracy Score]`` section::

    [Explanation]:
    <Explanation>

    [Clinically Significant Errors]:
    (a) <Error Type>: <count>. <Error 1>; <Error 2>; ...
    ...
    (f) <Error Type>: <count>. <Error 1>; ...

    [Clinically Insignificant Errors]:
    (a) ... (f) ...

    [Matched Findings]:
    <count>. <Finding 1>; <Finding 2>; ...

    [Overall Accuracy Score]:
    <score in [0.00, 1.00]>

Entry point: :func:`parse_output`.  It never raises; every outcome is a
:class:`ParseResult` with ``status`` ``"ok"``, ``"partial"`` or ``"failed"``
and a human-readable ``reason``.

Agreement with GREEN's reference implementation
-----------------------------------------------
On GREEN's own output format (sections separated by blank lines, one
``(x) <type>: <n>. ...`` line per listed category, ``None.`` for an empty
section, ``<n>. ...`` for matched findings) the counts and the GREEN score are
those of the reference parser (Stanford-AIMI/GREEN ``green_score/green.py``):
listed categories take the first ``: <n>`` after the label, unlisted
categories of a complete section are 0, a section starting with "No" is all
zeros, the matched count is the number opening the section, and GREEN is
``M / (M + S)`` or 0 when ``M == 0`` (GREEN Sec. 3.2, Eq. (1)).

Where the reference would read non-GREEN layouts in surprising ways this parser
deliberately differs: a section runs to the next section header rather than to
the first blank line; a *missing* or empty section, an unreadable count or a
cut-off category is reported as unknown (``None``) instead of 0; a count
without its trailing period is still read; an ``N.``-numbered list of matched
findings counts its items.  None of these arise in GREEN's own output.

Beyond GREEN's format
---------------------
Markdown bold/italics/headers/bullets/tables and code fences, numbered section
headers, ``(1)``-``(6)`` / ``1)`` / ``a)`` / ``a.`` category markers, category
labels without markers, only non-zero categories listed, "None"/"No
errors"/"N/A", counts in words ("two"), missing periods, CRLF, reasoning
before the answer (``<think>...</think>``, a lone ``</think>``, "Reasoning:
..." preambles; when drafts precede the answer the last answer block wins),
truncated output, and bare-number answers (a fine-tuned VERT model's "0.7",
VERT Sec. 4.1.4).

JSON answers (strict JSON, or with trailing commas / Python quoting)::

    {"explanation": "...",
     "clinically_significant_errors": {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0},
     "clinically_insignificant_errors": {"a": 0, ...},
     "matched_findings": 3,
     "overall_score": 0.7}

Keys are matched case- and punctuation-insensitively with aliases
("significant_errors", "matched", "score", ...); a category may be keyed
``a``/``(a)``/``1`` or by its label and valued by a number, a word,
``{"count": n, "errors": [...]}`` or a list of error strings; an error section
may instead be a list of ``{"category": ..., "text": ...}`` objects (see
:func:`_parse_json_answer`).

Limitation: a number that ends the text (``[Overall Accuracy Score]: 0.7``) is taken as
written; a cut inside that very number cannot be told from a complete one.

Unknown values and status
-------------------------
* A count is never invented.  A category whose line was cut off or whose count
  cannot be read is ``None``.  Categories *not listed* are 0 only in a
  well-formed section (another section follows it and every listed line was
  read); in a section that was cut off or has an unreadable line they are
  ``None``.  A section that is missing altogether is ``None`` throughout.
* ``status == "ok"``: both error sections (all six categories each) and the
  matched count were read, and an overall score, if a score section exists, is
  valid.  ``"partial"``: something usable was read but something is unknown or
  invalid (the reason names it).  ``"failed"``: no count or score at all.
* Metrics come from :func:`core.scores.metrics_from_counts`: each metric is
  ``None`` when one of its inputs is unknown (e.g. ``formula`` needs the
  insignificant counts, ``green`` does not).
* The overall score (VERT D.2: "a continuous number in [0.00, 1.00] with two
  decimals") is accepted as a plain number in [0, 1] (or ``x/1``).  Anything
  else -- 7, 85%, 8/10, -0.1 -- is never rescaled: ``overall_score`` is
  ``None``, the status is at most ``"partial"`` and the reason quotes it.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field

from core import scores

__all__ = ["ErrorItem", "ParseResult", "parse_output", "CATEGORIES", "MAX_INPUT_CHARS"]

CATEGORIES: tuple[str, ...] = scores.CATEGORIES

#: Longer inputs are cut to their last ``MAX_INPUT_CHARS`` characters (the
#: answer follows any reasoning) before parsing.
MAX_INPUT_CHARS = 400_000

#: Counts above this are treated as unreadable rather than stored.
MAX_COUNT = 1000

_SECTION_ORDER = ("explanation", "sig", "insig", "matched", "overall")
_SECTION_LABEL = {
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


def _unknown_counts() -> dict[str, int | None]:
    return {c: None for c in CATEGORIES}


@dataclass
class ParseResult:
    """Structured content of one judge output.

    ``sig`` / ``insig`` map every category ``"a"``-``"f"`` to a count, or to
    ``None`` when it could not be read.  ``to_json()`` is the CLI/store shape.
    """

    sig: dict[str, int | None] = field(default_factory=_unknown_counts)
    insig: dict[str, int | None] = field(default_factory=_unknown_counts)
    matched: int | None = None
    overall_score: float | None = None
    status: str = "failed"
    reason: str = ""
    errors: list[ErrorItem] = field(default_factory=list)
    matched_findings: list[str] = field(default_factory=list)
    explanation: str = ""
    metrics: dict[str, float | int | None] = field(default_factory=dict)
    #: Which answer layout was read: "text", "json", "score_only" or "none".
    format: str = "none"

    def to_json(self) -> dict:
        """The documented JSON shape (DESIGN.md, ``parse --json``)."""
        metrics = {name: self.metrics.get(name) for name in scores.COUNT_METRICS}
        return {
            "sig": {c: self.sig.get(c) for c in CATEGORIES},
            "insig": {c: self.insig.get(c) for c in CATEGORIES},
            "matched": self.matched,
            "overall_score": self.overall_score,
            "status": self.status,
            "reason": self.reason,
            "metrics": metrics,
        }


# --------------------------------------------------------------------------
# text normalisation
# --------------------------------------------------------------------------

_SPECIAL_TOKENS = re.compile(
    r"</s>|<s>|<unk>|<\|(?:im_end|im_start|eot_id|end|endoftext|end_of_text|assistant|user)\|>"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning|thought)>", re.I)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning|thought)>", re.I)


def _to_text(raw: object) -> tuple[str | None, list[str]]:
    notes: list[str] = []
    if raw is None:
        return None, ["no input (None)"]
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raw = bytes(raw).decode("utf-8", errors="replace")
        notes.append("decoded bytes as UTF-8")
    if not isinstance(raw, str):
        return None, [f"unsupported input type {type(raw).__name__}"]
    text = raw
    if len(text) > MAX_INPUT_CHARS:
        notes.append(f"input of {len(text)} chars cut to its last {MAX_INPUT_CHARS}")
        text = text[-MAX_INPUT_CHARS:]
    # GREEN's own post-processing keeps what follows the last assistant tag.
    if "<|assistant|>" in text:
        text = text.rsplit("<|assistant|>", 1)[-1]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\ufeff", "").replace("\u00a0", " ").replace("\uff1a", ":")
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    text = _SPECIAL_TOKENS.sub("", text)
    text = _CONTROL.sub("", text)
    return text, notes


def _strip_reasoning(text: str) -> tuple[str, list[str], bool]:
    """Remove ``<think>`` blocks.  Returns (text, notes, unclosed_block)."""
    notes: list[str] = []
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        # Everything up to the last closing tag is reasoning (the opening tag
        # is sometimes part of the prompt template and absent from the output).
        text = text[closes[-1].end():]
        notes.append("reasoning block removed")
    opened = _THINK_OPEN.search(text)
    if opened:
        before = text[: opened.start()]
        inside = text[opened.end():]
        notes.append("reasoning block never closed (output cut off while thinking?)")
        if before.strip():
            return before, notes, True
        return inside, notes, True
    return text, notes, False


# --------------------------------------------------------------------------
# line cleaning and section headers
# --------------------------------------------------------------------------

_EMPHASIS = re.compile(r"(?<![\w*])[*_](?=\S)([^*_\n]+?)(?<=\S)[*_](?![\w*])")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")


def _clean_line(line: str) -> tuple[str, bool]:
    """Strip markdown decoration.  Returns (line, was_markdown_heading)."""
    s = line.strip()
    s = re.sub(r"^(?:>\s*)+", "", s)
    heading = bool(re.match(r"#{1,6}\s", s)) or bool(re.fullmatch(r"#{1,6}", s))
    s = re.sub(r"^#{1,6}\s*", "", s)
    s = s.replace("**", "").replace("__", "").replace("`", "")
    s = _EMPHASIS.sub(r"\1", s)
    s = re.sub(r"^(?:[-*+\u2022\u25cf\u25aa]\s+)+", "", s)
    if s.startswith("|") and s.count("|") >= 2:
        if _TABLE_SEP.match(s):
            return "", heading
        cells = [c.strip() for c in s.strip("|").split("|")]
        cells = [c for c in cells if c]
        if len(cells) >= 2:
            s = f"{cells[0]}: {cells[1]}" + (". " + "; ".join(cells[2:]) if cells[2:] else "")
        else:
            s = cells[0] if cells else ""
    return s.strip(), heading


_HEADER_NAMES = {
    "explanation": r"explanations?",
    "insig": r"(?:clinically\s+)?(?:in|non[-\s]?)significant\s+errors?",
    "sig": r"(?:clinically\s+)?significant\s+errors?",
    "matched": r"matched\s+findings?",
    "overall": (
        r"overall\s+(?:accuracy\s+)?score|(?:final\s+)?accuracy\s+score|final\s+score"
        r"|vert\s+score|score"
    ),
}
_ANY_HEADER = "|".join(f"(?P<{k}>{v})" for k, v in _HEADER_NAMES.items())
_HEADER_RE = re.compile(
    r"^(?:\d{1,2}[.)]\s*)?(?P<open>\[)?\s*(?:" + _ANY_HEADER + r")\s*(?(open)\])\s*"
    r"(?:\((?P<paren>[^)\n]{0,40})\))?\s*"
    r"(?P<sep>[:=\-\u2013\u2014])?\s*(?P<rest>.*)$",
    re.I,
)
# Bracketed headers are distinctive enough to be found mid-line (flattened text).
_INLINE_BRACKET_HEADER = re.compile(
    r"(?<=[^\s*])[ \t]*(?=\*{0,2}\[\s*(?:" + "|".join(_HEADER_NAMES.values()) + r")\s*\])",
    re.I,
)


def _match_header(line: str, heading: bool) -> tuple[str, str, int | None] | None:
    """Recognise a section header line: (kind, text after it, count in parentheses)."""
    m = _HEADER_RE.match(line)
    if not m:
        return None
    kind = next(k for k in _HEADER_NAMES if m.group(k))
    rest = m.group("rest")
    bracketed = bool(m.group("open"))
    if not (bracketed or m.group("sep") or heading or not rest):
        return None
    if kind == "overall" and not bracketed and m.group("overall").lower() == "score":
        # bare "Score" only with an explicit separator or as a heading
        if not (m.group("sep") or heading):
            return None
    paren = (m.group("paren") or "").strip()
    return kind, rest.strip(), int(paren) if paren.isdigit() and len(paren) <= 4 else None


@dataclass
class _Section:
    kind: str
    lines: list[str]
    index: int  # order of appearance
    closed: bool = False  # another header follows it
    header_count: int | None = None  # "Matched Findings (3):"


def _split_sections(text: str) -> tuple[str, list[_Section]]:
    text = _INLINE_BRACKET_HEADER.sub("\n", text)
    preamble: list[str] = []
    sections: list[_Section] = []
    in_fence = False
    after_fence = False  # chatter after a closing fence belongs to no section
    for raw in text.split("\n"):
        if re.match(r"^\s*(```|~~~)", raw):
            in_fence = not in_fence
            if not in_fence and sections:
                sections[-1].closed = True
                after_fence = True
            continue
        line, heading = _clean_line(raw)
        hdr = _match_header(line, heading) if line else None
        if hdr and sections and sections[-1].kind == hdr[0]:
            # "Score = ..." inside a score section is content, not a new section
            sections[-1].lines.append(line)
        elif hdr:
            kind, rest, paren = hdr
            if sections:
                sections[-1].closed = True
            sections.append(_Section(kind, [rest] if rest else [], len(sections), False, paren))
            after_fence = False
        elif sections and not after_fence:
            sections[-1].lines.append(line)
        else:
            preamble.append(line)
    return "\n".join(preamble).strip(), sections


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
_NONE_PHRASE = re.compile(
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


def _read_count(s: str) -> tuple[int | None, str, str | None]:
    """Read a count at the start of ``s``.

    Returns (count, rest_after_count, problem).  ``count`` None = not a count.
    """
    s = s.strip()
    if _NONE_PHRASE.match(s):
        m = _NONE_PHRASE.match(s)
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


def _label_category(label: str) -> str | None:
    for cat, pattern in _LABELS:
        if re.search(pattern, label, re.I):
            return cat
    return None


_ITEM_RE = re.compile(
    r"^(?:\d+[.)]\s+(?=\(?[a-fA-F]\)))?"  # "1. (a) ..." list numbering
    r"(?:\(\s*(?P<pl>[a-fA-F])\s*\)|(?P<l>[a-fA-F])\s*\)|(?P<ld>[a-f])\.(?=\s)"
    r"|\(\s*(?P<pd>[1-6])\s*\)|(?P<d>[1-6])\s*[.)](?!\d))\s*(?P<body>.*)$"
)
_INLINE_ITEM = re.compile(r"(?<=\s)(?=\([a-f1-6]\)\s[^\n:]{3,120}:)")


@dataclass
class _Item:
    category: str
    count: int | None
    texts: list[str]
    problem: str | None = None


def _split_texts(s: str) -> list[str]:
    """Split "<Error 1>; <Error 2>." into items (trailing period dropped)."""
    items = (t.strip().removesuffix(".").strip() for t in s.split(";"))
    return [t for t in items if re.search(r"\w", t)]


def _parse_item(line: str) -> tuple[str | None, str]:
    """Return (category, body) if ``line`` starts a category item."""
    m = _ITEM_RE.match(line)
    if m:
        body = m.group("body")
        letter = m.group("pl") or m.group("l") or m.group("ld")
        if letter:
            return letter.lower(), body
        label_cat = _label_category(body.split(":", 1)[0])
        if m.group("pd"):
            return "abcdef"[int(m.group("pd")) - 1], body
        # "1." / "1)" numbering: a category only if the body reads
        # "<label>: ..."; otherwise it is a numbered list of error texts.
        if label_cat and ":" in body:
            return label_cat, body
        return None, line
    # no marker: "False report of a finding: 1." (label, separator, count)
    parts = re.split(r"([:=])", line, maxsplit=1)
    head, sep, after = parts if len(parts) == 3 else (line, "", "")
    if sep and len(head) <= 90 and _read_count(after)[0] is not None:
        cat = _label_category(head)
        if cat:
            return cat, line
    return None, line


def _item_count(body: str) -> tuple[int | None, list[str], str | None]:
    """Count and error texts of one category line body."""
    if _NONE_PHRASE.match(body.strip()):
        return 0, [], None
    # "(a) 1. text" or "(a) 0" - count straight after the marker
    count, rest, problem = _read_count(body)
    if count is not None and not re.match(r"[A-Za-z]", body.strip()[:1] or "x"):
        return count, _split_texts(rest), problem
    label, sep, after = body.partition(":")
    if not sep:
        label, sep, after = body.partition("=")
    if not sep:
        m = re.match(r"^(.*?)\s+[-\u2013\u2014]\s+(.*)$", body)
        if m:
            label, sep, after = m.group(1), "-", m.group(2)
    if sep:
        count, rest, problem = _read_count(after)
        if count is not None or problem:
            return count, _split_texts(rest) if count else [], problem
        # the label itself contained a colon: take the first ": <n>"
        m = re.search(r":\s*(\d+)\b(?![.,]\d)", after)
        if m and int(m.group(1)) <= MAX_COUNT:
            return int(m.group(1)), _split_texts(after[m.end():].lstrip(".:) ")), None
    m = re.search(r"\((\d+)\)\s*$", label.strip())
    if m and int(m.group(1)) <= MAX_COUNT:
        return int(m.group(1)), _split_texts(after), None
    return None, [], problem


def _split_inline_items(line: str) -> list[str]:
    """Split "(a) <type>: 0. (b) <type>: 1. ..." written on one line (flattened text).

    Only splits where every later piece opens with a marker whose label names
    that same category, so "(c)" inside an error description is left alone.
    """
    pieces = [p.strip() for p in _INLINE_ITEM.split(line) if p.strip()]
    if len(pieces) < 2:
        return [line] if line else []
    for piece in pieces[1:]:
        marker = piece[1]
        cat = marker if marker.isalpha() else "abcdef"[int(marker) - 1]
        label = piece[3:].split(":", 1)[0]
        if _label_category(label) != cat:
            return [line]
    return pieces


def _parse_error_section(
    sec: _Section, significant: bool
) -> tuple[dict[str, int | None], list[ErrorItem], list[str], bool]:
    """Counts of one error section.

    Returns (counts, error_items, problems, any_information).
    """
    name = "sig" if significant else "insig"
    lines = []
    for line in sec.lines:
        lines.extend(_split_inline_items(line))
    items: dict[str, _Item] = {}
    order: list[str] = []
    problems: list[str] = []
    current: _Item | None = None
    said_none = False
    duplicates: list[str] = []
    for line in lines:
        cat, body = _parse_item(line)
        if cat is not None:
            count, texts, problem = _item_count(body)
            if cat in items:
                duplicates.append(cat)
                current = None
                continue
            current = _Item(cat, count, texts, problem)
            items[cat] = current
            order.append(cat)
            continue
        if not items and _NONE_PHRASE.match(line):
            said_none = True
            continue
        if current is not None and current.count and not re.match(
            r"(?:total|sum|overall)\b", line, re.I
        ):
            # continuation: a bullet / numbered error under the current category
            text = re.sub(r"^\d+[.)]\s+", "", line).strip()
            current.texts.extend(_split_texts(text))
    if duplicates:
        problems.append(
            f"{name}: categories listed twice {sorted(set(duplicates))}, first kept"
        )

    counts: dict[str, int | None] = {c: None for c in CATEGORIES}
    errors: list[ErrorItem] = []
    unreadable = [c for c in order if items[c].count is None]
    for c in order:
        it = items[c]
        counts[c] = it.count
        if it.count:
            errors.extend(ErrorItem(c, significant, t) for t in it.texts)
    last_line_item = order[-1] if order and lines and _parse_item(lines[-1])[0] else None
    for c in unreadable:
        if c == last_line_item and not sec.closed and not items[c].problem:
            problems.append(f"{name} ({c}): line cut off")
        else:
            problems.append(f"{name} ({c}): {items[c].problem or 'count not readable'}")

    if not items:
        if said_none:
            return {c: 0 for c in CATEGORIES}, [], [], True
        if not sec.closed and not any(lines):
            problems.append(f"{name}: cut off right after its header")
        elif not any(lines):
            problems.append(f"{name}: section is empty")
        else:
            problems.append(f"{name}: no category lines could be read")
        return counts, [], problems, False

    well_formed = sec.closed and not unreadable
    if well_formed:
        for c in CATEGORIES:
            if counts[c] is None:
                counts[c] = 0
    else:
        # not well-formed (cut off or unreadable line): unlisted categories
        # are unknown -- they may be absent or may have been cut away
        missing = [c for c in CATEGORIES if counts[c] is None and c not in unreadable]
        if missing and not sec.closed:
            problems.append(f"{name}: cut off, ({')('.join(missing)}) unknown")
        elif missing:
            problems.append(f"{name}: ({')('.join(missing)}) unknown")
    return counts, errors, problems, any(v is not None for v in counts.values())


def _parse_matched_section(sec: _Section) -> tuple[int | None, list[str], list[str]]:
    """Matched findings: ``<count>. <Finding 1>; <Finding 2>; ...`` (GREEN A.1).

    Returns (count, findings, problems).  A blank line ends the findings list
    (what follows is closing chatter); "1. X / 2. Y / 3. Z" is a numbered list
    of three findings, not a count of 1.
    """
    stripped = [ln.strip() for ln in sec.lines]
    lines = [ln for ln in stripped if ln]
    if sec.header_count is not None and sec.header_count <= MAX_COUNT:
        if not lines or _read_count(lines[0])[0] is None:
            # "Matched Findings (3): A; B; C"
            findings = [t for ln in lines for t in _split_texts(re.sub(r"^\d+[.)]\s+", "", ln))]
            return sec.header_count, findings if sec.header_count else [], []
    if not lines:
        where = "cut off right after its header" if not sec.closed else "section is empty"
        return None, [], [f"matched findings: {where}"]
    first = re.sub(r"^(?:matched\s+findings?|count)\s*[:=]\s*", "", lines[0], flags=re.I)
    count, rest, problem = _read_count(first)
    if count is None:
        if problem:
            return None, [], [f"matched findings: {problem}"]
        return None, [], [
            f"matched findings: count not stated ({len(lines)} line(s) of text, not counted)"
        ]
    findings = _split_texts(rest)
    numbered = [re.match(r"^(\d+)[.)]\s+(.*)$", ln) for ln in lines[1:]]
    if count == 1 and numbered and numbered[0] and numbered[0].group(1) == "2":
        n = 1
        for m in numbered:
            if not (m and int(m.group(1)) == n + 1):
                break
            n += 1
            findings.extend(_split_texts(m.group(2)))
        return n, findings, [f"matched findings: count taken from a numbered list of {n}"]
    after_first = stripped[stripped.index(lines[0]) + 1:]
    for ln in after_first:
        if not ln:
            break
        findings.extend(_split_texts(re.sub(r"^\d+[.)]\s+", "", ln)))
    return count, (findings if count else []), []


# --------------------------------------------------------------------------
# overall score (VERT D.2 / Formula D.3 / Rubric D.4)
# --------------------------------------------------------------------------

_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")


def _parse_score_value(s: str) -> tuple[float | None, str | None]:
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


_PROSE_SCORE = re.compile(
    r"\b(?:overall\s+(?:accuracy\s+)?score|accuracy\s+score|final\s+score)\b"
    r"[^\n\d]{0,25}?(?P<v>[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:\s*(?:%|/\s*\d+(?:\.\d+)?))?)",
    re.I,
)


# --------------------------------------------------------------------------
# text answers
# --------------------------------------------------------------------------


@dataclass
class _Draft:
    """Intermediate result of one reading (text or JSON)."""

    sig: dict[str, int | None] = field(default_factory=_unknown_counts)
    insig: dict[str, int | None] = field(default_factory=_unknown_counts)
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


def _select_block(sections: list[_Section]) -> tuple[dict[str, _Section], bool]:
    """Pick the final answer block when drafts (e.g. in reasoning) precede it."""
    sig_positions = [s.index for s in sections if s.kind == "sig"]
    start = 0
    multiple = len(sig_positions) > 1
    if multiple:
        start = sig_positions[-1]
        prev = [s for s in sections[:start] if s.kind == "explanation"]
        if prev and prev[-1].index > sig_positions[-2]:
            start = prev[-1].index
    chosen: dict[str, _Section] = {}
    for sec in sections[start:]:
        chosen.setdefault(sec.kind, sec)
    for sec in reversed(sections[:start]):
        chosen.setdefault(sec.kind, sec)
    return chosen, multiple


def _parse_text_answer(text: str) -> _Draft:
    d = _Draft(fmt="text")
    preamble, sections = _split_sections(text)
    counted = [s for s in sections if s.kind != "explanation"]
    if not counted:
        d.explanation = preamble
        return d
    chosen, multiple = _select_block(sections)
    if multiple:
        d.notes.append("several answer blocks; the last one was read")

    if "explanation" in chosen:
        d.explanation = "\n".join(chosen["explanation"].lines).strip()
    else:
        d.explanation = re.sub(r"^\s*:\s*", "", preamble).strip()

    present = set(chosen)
    last_kind = sections[-1].kind
    for kind, significant in (("sig", True), ("insig", False)):
        if kind not in chosen:
            continue
        counts, errs, problems, info = _parse_error_section(chosen[kind], significant)
        setattr(d, kind, counts)
        d.errors.extend(errs)
        d.problems.extend(problems)
        d.found_any = d.found_any or info

    if "matched" in chosen:
        m, findings, problems = _parse_matched_section(chosen["matched"])
        d.matched, d.matched_findings = m, findings
        if problems and m is not None and problems[0].startswith("matched findings: count taken"):
            d.notes.extend(problems)
        else:
            d.problems.extend(problems)
        d.found_any = d.found_any or m is not None

    if "overall" in chosen:
        sec = chosen["overall"]
        value_line = next((ln for ln in sec.lines if ln.strip()), "")
        value, problem = _parse_score_value(value_line)
        if problem and not value_line and not sec.closed:
            problem = "overall score: cut off right after its header"
        d.overall = value
        if problem:
            d.problems.append(problem)
        d.found_any = d.found_any or value is not None
    else:
        # no score section: accept "overall score ... 0.8" in prose, only if valid
        m = _PROSE_SCORE.search(text)
        value = _parse_score_value(m.group("v"))[0] if m else None
        if value is not None:
            d.overall = value
            d.notes.append("overall score read from prose")
            d.found_any = True

    missing = [k for k in ("sig", "insig", "matched") if k not in present]
    if missing:
        order = {k: i for i, k in enumerate(_SECTION_ORDER)}
        truncated = all(order[k] > order[last_kind] for k in missing)
        names = ", ".join(_SECTION_LABEL[k] for k in missing)
        if truncated:
            d.problems.append(
                f"answer ends after {_SECTION_LABEL[last_kind]}: missing {names}"
            )
        else:
            d.problems.append(f"missing section(s): {names}")
    return d


# --------------------------------------------------------------------------
# JSON answers
# --------------------------------------------------------------------------


def _norm_key(key: object) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(key).lower()).strip("_")


_JSON_KEYS = {
    "sig": {
        "clinically_significant_errors", "significant_errors", "significant",
        "clinically_significant", "sig", "sig_errors",
    },
    "insig": {
        "clinically_insignificant_errors", "insignificant_errors", "insignificant",
        "clinically_insignificant", "insig", "insig_errors", "non_significant_errors",
    },
    "matched": {
        "matched_findings", "matched", "matched_findings_count", "n_matched",
        "num_matched_findings", "number_of_matched_findings",
    },
    "overall": {
        "overall_score", "overall_accuracy_score", "accuracy_score", "score",
        "vert_score", "final_score", "overall",
    },
    "explanation": {"explanation", "rationale", "reasoning", "summary"},
}


def _json_kind(key: object) -> str | None:
    k = _norm_key(key)
    for kind, names in _JSON_KEYS.items():
        if k in names:
            return kind
    return None


def _json_count(value: object) -> tuple[int | None, list[str], str | None]:
    """Count from a JSON value: int, numeric/word string, list, or {"count": n}."""
    if isinstance(value, bool):
        return None, [], f"boolean {value} is not a count"
    if isinstance(value, int):
        if 0 <= value <= MAX_COUNT:
            return value, [], None
        return None, [], f"implausible count {value}"
    if isinstance(value, float):
        if value.is_integer() and 0 <= value <= MAX_COUNT:
            return int(value), [], None
        return None, [], f"count {value} is not a non-negative integer"
    if value is None:
        return None, [], "null count"
    if isinstance(value, str):
        count, rest, problem = _read_count(value)
        if count is not None and not rest:
            return count, [], None
        if count is not None:
            return count, _split_texts(rest), None
        return None, [], problem or f"count {value[:30]!r} not readable"
    if isinstance(value, list):
        texts = [str(_json_text(v)) for v in value]
        return len(value), [t for t in texts if t], None
    if isinstance(value, dict):
        count_value = None
        texts: list[str] = []
        for k, v in value.items():
            nk = _norm_key(k)
            if nk in {"count", "n", "number", "total", "num"}:
                count_value = v
            elif isinstance(v, list):
                texts.extend(str(_json_text(x)) for x in v)
            elif isinstance(v, str) and nk not in {"type", "name", "label", "category"}:
                texts.extend(_split_texts(v))
        if count_value is None:
            if texts:
                return len(texts), texts, None
            return None, [], "no count in object"
        count, _, problem = _json_count(count_value)
        return count, (texts if count else []), problem
    return None, [], f"unsupported value {type(value).__name__}"


def _json_text(v: object) -> str:
    if isinstance(v, dict):
        for k in ("text", "error", "description", "finding", "explanation"):
            if k in v:
                return str(v[k]).strip()
        return json.dumps(v, sort_keys=True)
    return str(v).strip()


def _json_category(key: object) -> str | None:
    k = _norm_key(key)
    if re.fullmatch(r"[a-f]", k):
        return k
    if re.fullmatch(r"[1-6]", k):
        return "abcdef"[int(k) - 1]
    m = re.match(r"^([a-f])_", k)
    if m and _label_category(k.replace("_", " ")) in (None, m.group(1)):
        return m.group(1)
    return _label_category(k.replace("_", " "))


def _json_error_section(
    value: object, significant: bool, cut_depth: int
) -> tuple[dict[str, int | None], list[ErrorItem], list[str]]:
    """Counts of one JSON error section.

    ``cut_depth`` > 0 when the answer was cut off inside this section: 2 means
    inside its object (later categories unknown), 3+ means inside the value of
    its last category (that count is unknown too).
    """
    name = "sig" if significant else "insig"
    cut = cut_depth > 0
    counts: dict[str, int | None] = {c: None for c in CATEGORIES}
    errors: list[ErrorItem] = []
    problems: list[str] = []
    if isinstance(value, str) and _NONE_PHRASE.match(value.strip()):
        return {c: 0 for c in CATEGORIES}, [], []
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        # a list of error objects: [{"category": "a", "text": "..."}]
        if cut:
            return counts, [], [f"{name}: cut off inside its list of errors"]
        tallies = {c: 0 for c in CATEGORIES}
        for v in value:
            cat = None
            for k in ("category", "type", "error_type", "cat"):
                if k in v:
                    cat = _json_category(v[k])
                    break
            if cat is None:
                problems.append(f"{name}: error object without a category")
                return counts, [], problems
            tallies[cat] += 1
            errors.append(ErrorItem(cat, significant, _json_text(v)))
        return dict(tallies), errors, problems
    if not isinstance(value, dict):
        problems.append(f"{name}: expected an object per category, got {type(value).__name__}")
        return counts, [], problems
    listed: list[str] = []
    for k, v in value.items():
        cat = _json_category(k)
        if cat is None:
            if _norm_key(k) in {"total", "count", "sum"}:
                continue
            problems.append(f"{name}: unknown category key {str(k)[:30]!r}")
            continue
        count, texts, problem = _json_count(v)
        counts[cat] = count
        listed.append(cat)
        if cut_depth > 2 and k == list(value)[-1] and isinstance(v, (list, dict)):
            counts[cat], texts, problem = None, [], "cut off"
        if problem or count is None:
            problems.append(f"{name} ({cat}): {problem or 'count not readable'}")
        elif count:
            errors.extend(ErrorItem(cat, significant, t) for t in texts)
    unreadable = [c for c in listed if counts[c] is None]
    if not cut and not unreadable and listed:
        for c in CATEGORIES:
            if counts[c] is None:
                counts[c] = 0
    elif listed:
        missing = [c for c in CATEGORIES if counts[c] is None and c not in unreadable]
        if missing:
            problems.append(f"{name}: cut off, ({')('.join(missing)}) unknown")
    elif not listed and not problems:
        if cut:
            problems.append(f"{name}: cut off")
        else:
            return {c: 0 for c in CATEGORIES}, [], []
    return counts, errors, problems


def _find_json_objects(text: str) -> list[dict]:
    """Outermost JSON objects holding answer keys, in order of appearance."""
    decoder = json.JSONDecoder()
    found: list[dict] = []
    attempts = 0
    skip_until = 0
    for m in re.finditer(r"\{\s*[\"}]", text):
        if m.start() < skip_until:
            continue  # inside an answer object already taken
        attempts += 1
        if attempts > 100:
            break
        try:
            obj, end = decoder.raw_decode(text, m.start())
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and _has_answer_keys(obj):
            found.append(obj)
            skip_until = end
    return found


def _has_answer_keys(obj: dict) -> bool:
    kinds = {_json_kind(k) for k in obj}
    if {"sig", "insig", "matched", "overall"} & kinds:
        return True
    nested = obj.get("errors")
    return isinstance(nested, dict) and bool({"sig", "insig"} & {_json_kind(k) for k in nested})


def _repair_truncated_json(s: str) -> tuple[dict | None, int]:
    """Close a JSON object cut off mid-way.  Returns (object, depth_at_cut)."""
    stack: list[str] = []
    in_str = esc = False
    cuts: list[tuple[int, tuple[str, ...]]] = []
    for i, ch in enumerate(s):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
                cuts.append((i + 1, tuple(stack)))
            continue
        if ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append(ch)
            cuts.append((i + 1, tuple(stack)))
        elif ch in "}]":
            if stack:
                stack.pop()
            cuts.append((i + 1, tuple(stack)))
            if not stack:
                return None, 0  # not truncated after all
        elif ch == ",":
            cuts.append((i, tuple(stack)))
        elif ch not in " \t\n" and i + 1 < len(s) and s[i + 1] in ",}] \t\n":
            cuts.append((i + 1, tuple(stack)))
    for pos, st in reversed(cuts[-300:]):
        if not st:
            continue
        candidate = s[:pos].rstrip().rstrip(",")
        closing = "".join("}" if c == "{" else "]" for c in reversed(st))
        try:
            obj = json.loads(candidate + closing)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            return obj, len(st)
    return None, 0


_ANSWER_KEY_HINT = re.compile(
    r"[\"']\s*[^\"'\n]*(?:significant|matched|score)[^\"'\n]*[\"']\s*:", re.I
)


def _lenient_object(window: str) -> dict | None:
    """A complete object with trailing commas or Python-style quoting."""
    end = window.rfind("}")
    if end < 0:
        return None
    candidate = window[: end + 1]
    attempts = (
        lambda: json.loads(re.sub(r",\s*([}\]])", r"\1", candidate)),
        lambda: ast.literal_eval(candidate),
    )
    for attempt in attempts:
        try:
            obj = attempt()
        except Exception:  # noqa: BLE001 - any failure just means "not this form"
            continue
        if isinstance(obj, dict) and _has_answer_keys(obj):
            return obj
    return None


def _parse_json_answer(text: str) -> _Draft | None:
    """Read a JSON answer.

    Accepted shape (keys case/punctuation-insensitive; aliases in
    ``_JSON_KEYS``)::

        {
          "explanation": "...",
          "clinically_significant_errors": {"a": 1, "b": 0, ..., "f": 0},
          "clinically_insignificant_errors": {"a": 0, ...},
          "matched_findings": 3,
          "overall_score": 0.7
        }

    A category value may also be ``{"count": n, "errors": [...]}``, a list of
    error strings (counted), a numeric or word string; categories may be keyed
    ``"a"``, ``"(a)"``, ``"1"`` or by their label.  An error section may be a
    list of ``{"category": ..., "text": ...}`` objects.  ``matched_findings``
    may be a number, a list of findings, or ``{"count": n, "findings": [...]}``.
    Both error sections may sit under an ``"errors"`` object.  A JSON answer
    that was cut off is closed at its last complete value and read as partial.
    """
    objs = _find_json_objects(text)
    cut = False
    depth = 0
    lenient = False
    if objs:
        obj = objs[-1]
    else:
        start = None
        for k, m in enumerate(re.finditer(r"\{", text)):
            if k >= 200:
                break
            head = text[m.start(): m.start() + 400]
            if _ANSWER_KEY_HINT.search(head):
                start = m.start()
                break
        if start is None:
            return None
        # a judge answer is short; bound the work spent on junk input
        window = text[start: start + 50_000]
        obj = _lenient_object(window)
        if obj is not None:
            lenient = True
        else:
            obj, depth = _repair_truncated_json(window)
            if obj is None or not _has_answer_keys(obj):
                return None
            cut = True
    d = _Draft(fmt="json")
    if isinstance(obj.get("errors"), dict):
        obj = {**obj["errors"], **{k: v for k, v in obj.items() if k != "errors"}}
    keys = list(obj)
    cut_key = keys[-1] if cut and depth > 1 and keys else None
    seen: set[str] = set()
    for k, v in obj.items():
        kind = _json_kind(k)
        if kind is None or kind in seen:
            continue
        seen.add(kind)
        this_cut = k == cut_key
        if kind in ("sig", "insig"):
            counts, errs, problems = _json_error_section(
                v, kind == "sig", depth if this_cut else 0
            )
            setattr(d, kind, counts)
            d.errors.extend(errs)
            d.problems.extend(problems)
            d.found_any = d.found_any or any(x is not None for x in counts.values())
        elif kind == "matched":
            count, texts, problem = _json_count(v)
            if this_cut and isinstance(v, (list, dict)):
                count, problem = None, "cut off"
            d.matched = count
            d.matched_findings = texts if count else []
            if problem or count is None:
                d.problems.append(f"matched findings: {problem or 'not readable'}")
            d.found_any = d.found_any or count is not None
        elif kind == "overall":
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                d.problems.append(f"overall score: unreadable value {str(v)[:30]!r}")
                continue
            value, problem = _parse_score_value(str(v))
            d.overall = value
            if problem:
                d.problems.append(problem)
            d.found_any = d.found_any or value is not None
        elif kind == "explanation":
            d.explanation = v.strip() if isinstance(v, str) else json.dumps(v)
    missing = [k for k in ("sig", "insig", "matched") if k not in seen]
    if missing:
        names = ", ".join(_SECTION_LABEL[k] for k in missing)
        d.problems.append(f"{'cut off: ' if cut else ''}missing {names}")
    if cut:
        d.problems.insert(0, "JSON answer cut off")
    if lenient:
        d.notes.append("non-strict JSON (trailing commas or Python quoting) accepted")
    return d


# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------

_BARE_SCORE = re.compile(
    r"^\s*(?:(?:overall\s+)?(?:accuracy\s+)?score\s*[:=]?\s*)?"
    r"(?P<v>[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:\s*(?:%|/\s*\d+(?:\.\d+)?))?)\s*\.?\s*$",
    re.I,
)


def _known_values(d: _Draft) -> int:
    values = [*d.sig.values(), *d.insig.values(), d.matched, d.overall]
    return sum(v is not None for v in values)


def _finish(d: _Draft, notes: list[str], force_partial: bool) -> ParseResult:
    result = ParseResult(
        sig=d.sig,
        insig=d.insig,
        matched=d.matched,
        overall_score=d.overall,
        errors=d.errors,
        matched_findings=d.matched_findings,
        explanation=d.explanation,
        format=d.fmt,
    )
    if not d.found_any:
        result.status = "failed"
        result.format = "none" if d.fmt == "text" else d.fmt
    elif d.complete() and not force_partial:
        result.status = "ok"
    else:
        result.status = "partial"
    if result.status == "failed":
        detail = "; ".join(d.problems) if d.problems else ""
        head = "no error counts, matched findings or score found"
        result.reason = head + (f" ({detail})" if detail else "")
    elif result.status == "ok":
        result.reason = f"parsed {d.fmt} answer"
    else:
        result.reason = "; ".join(d.problems) or f"incomplete {d.fmt} answer"
    all_notes = notes + d.notes
    if all_notes:
        result.reason += " [" + "; ".join(all_notes) + "]"
    result.metrics = scores.metrics_from_counts(
        result.sig, result.insig, result.matched, result.overall_score
    )
    return result


def _parse(raw: object) -> ParseResult:
    text, notes = _to_text(raw)
    if text is None:
        r = ParseResult(status="failed", reason=notes[0])
        r.metrics = scores.metrics_from_counts(r.sig, r.insig, None, None)
        return r
    answer, think_notes, unclosed = _strip_reasoning(text)
    notes += think_notes
    if not answer.strip():
        d = _Draft()
        d.problems.append("empty answer")
        return _finish(d, notes, unclosed)

    text_draft = _parse_text_answer(answer)
    json_draft = _parse_json_answer(answer) if "{" in answer else None
    drafts = [x for x in (text_draft, json_draft) if x is not None and x.found_any]
    if drafts:
        # prefer a complete reading, then the one with more known values, then text
        best = max(drafts, key=lambda x: (x.complete(), _known_values(x), x.fmt == "text"))
        return _finish(best, notes, unclosed)

    bare = _BARE_SCORE.match(answer) or _PROSE_SCORE.search(answer)
    if bare:
        d = _Draft(fmt="score_only")
        d.overall, problem = _parse_score_value(bare.group("v"))
        d.found_any = d.overall is not None
        d.problems.append("score-only answer: no error counts or matched findings")
        if problem:
            d.problems.append(problem)
        return _finish(d, notes, True)
    if json_draft is not None:
        return _finish(json_draft, notes, unclosed)
    return _finish(text_draft, notes, unclosed)


def parse_output(text: object) -> ParseResult:
    """Parse one judge output into counts, texts, scores and metrics.

    Parameters
    ----------
    text : str
        Raw model output (GREEN / VERT / Formula / Rubric format, VERT paper
        App. D.1-D.4, or a JSON answer).  ``None``, bytes and other junk are
        accepted and reported as ``failed``.

    Returns
    -------
    ParseResult
        Never raises.  ``status`` is ``"ok"``, ``"partial"`` or ``"failed"``;
        ``reason`` explains anything unknown or invalid.  ``metrics`` holds
        ``green`` (GREEN Sec. 3.2 Eq. (1)), ``green_f1``, ``formula`` (VERT App.
        B.3/B.4), ``ec_sig``, ``ec_total`` and ``vert`` (D.2 overall score),
        each ``None`` when an input it needs is unknown.
    """
    try:
        return _parse(text)
    except Exception as exc:  # pragma: no cover - defensive: never raise
        r = ParseResult(status="failed", reason=f"internal parser error: {type(exc).__name__}")
        r.metrics = {name: None for name in scores.COUNT_METRICS}
        return r
