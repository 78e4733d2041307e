"""Judge answers as text: clean-up, sections and the lines of each section.

Input clean-up is core.parse.cleaning (:func:`to_text`, :func:`strip_reasoning`, re-exported here); then
markdown decoration, section headers (``[Clinically
Significant Errors]:`` and variants), category lines (``(a) <Error Type>: <count>. <Error 1>; ...``) and the
matched findings, read into a :class:`core.parse.values.Draft` by :func:`parse_text_answer`. The answer
format and the rules for unknown values are described in :mod:`core.parse.result`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.parse.cleaning import MAX_INPUT_CHARS, strip_reasoning, to_text  # noqa: F401 (re-exported)
from core.parse.values import (
    CATEGORIES,
    MAX_COUNT,
    NONE_PHRASE,
    SECTION_LABEL,
    Draft,
    ErrorItem,
    label_category,
    parse_score_value,
    read_count,
    split_texts,
)

_SECTION_ORDER = ("explanation", "sig", "insig", "matched", "overall")


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
# category lines and sections
# --------------------------------------------------------------------------

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



def _parse_item(line: str) -> tuple[str | None, str]:
    """Return (category, body) if ``line`` starts a category item."""
    m = _ITEM_RE.match(line)
    if m:
        body = m.group("body")
        letter = m.group("pl") or m.group("l") or m.group("ld")
        if letter:
            return letter.lower(), body
        label_cat = label_category(body.split(":", 1)[0])
        if m.group("pd"):
            return CATEGORIES[int(m.group("pd")) - 1], body
        # "1." / "1)" numbering: a category only if the body reads
        # "<label>: ..."; otherwise it is a numbered list of error texts.
        if label_cat and ":" in body:
            return label_cat, body
        return None, line
    # no marker: "False report of a finding: 1." (label, separator, count)
    parts = re.split(r"([:=])", line, maxsplit=1)
    head, sep, after = parts if len(parts) == 3 else (line, "", "")
    if sep and len(head) <= 90 and read_count(after)[0] is not None:
        cat = label_category(head)
        if cat:
            return cat, line
    return None, line


def _item_count(body: str) -> tuple[int | None, list[str], str | None]:
    """Count and error texts of one category line body."""
    if NONE_PHRASE.match(body.strip()):
        return 0, [], None
    # "(a) 1. text" or "(a) 0" - count straight after the marker
    count, rest, problem = read_count(body)
    if count is not None and not re.match(r"[A-Za-z]", body.strip()[:1] or "x"):
        return count, split_texts(rest), problem
    label, sep, after = body.partition(":")
    if not sep:
        label, sep, after = body.partition("=")
    if not sep:
        m = re.match(r"^(.*?)\s+[-\u2013\u2014]\s+(.*)$", body)
        if m:
            label, sep, after = m.group(1), "-", m.group(2)
    if sep:
        count, rest, problem = read_count(after)
        if count is not None or problem:
            return count, split_texts(rest) if count else [], problem
        # the label itself contained a colon: take the first ": <n>"
        m = re.search(r":\s*(\d+)\b(?![.,]\d)", after)
        if m and int(m.group(1)) <= MAX_COUNT:
            return int(m.group(1)), split_texts(after[m.end():].lstrip(".:) ")), None
    m = re.search(r"\((\d+)\)\s*$", label.strip())
    if m and int(m.group(1)) <= MAX_COUNT:
        return int(m.group(1)), split_texts(after), None
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
        cat = marker if marker.isalpha() else CATEGORIES[int(marker) - 1]
        label = piece[3:].split(":", 1)[0]
        if label_category(label) != cat:
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
        if not items and NONE_PHRASE.match(line):
            said_none = True
            continue
        if current is not None and current.count and not re.match(
            r"(?:total|sum|overall)\b", line, re.I
        ):
            # continuation: a bullet / numbered error under the current category
            text = re.sub(r"^\d+[.)]\s+", "", line).strip()
            current.texts.extend(split_texts(text))
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
        if not lines or read_count(lines[0])[0] is None:
            # "Matched Findings (3): A; B; C"
            findings = [t for ln in lines for t in split_texts(re.sub(r"^\d+[.)]\s+", "", ln))]
            return sec.header_count, findings if sec.header_count else [], []
    if not lines:
        where = "cut off right after its header" if not sec.closed else "section is empty"
        return None, [], [f"matched findings: {where}"]
    first = re.sub(r"^(?:matched\s+findings?|count)\s*[:=]\s*", "", lines[0], flags=re.I)
    count, rest, problem = read_count(first)
    if count is None:
        if problem:
            return None, [], [f"matched findings: {problem}"]
        return None, [], [
            f"matched findings: count not stated ({len(lines)} line(s) of text, not counted)"
        ]
    findings = split_texts(rest)
    numbered = [re.match(r"^(\d+)[.)]\s+(.*)$", ln) for ln in lines[1:]]
    if count == 1 and numbered and numbered[0] and numbered[0].group(1) == "2":
        n = 1
        for m in numbered:
            if not (m and int(m.group(1)) == n + 1):
                break
            n += 1
            findings.extend(split_texts(m.group(2)))
        return n, findings, [f"matched findings: count taken from a numbered list of {n}"]
    after_first = stripped[stripped.index(lines[0]) + 1:]
    for ln in after_first:
        if not ln:
            break
        findings.extend(split_texts(re.sub(r"^\d+[.)]\s+", "", ln)))
    return count, (findings if count else []), []


#: "overall score ... 0.8" in prose (the value in group ``v``), for answers without a score section.
PROSE_SCORE = re.compile(
    r"\b(?:overall\s+(?:accuracy\s+)?score|accuracy\s+score|final\s+score)\b"
    r"[^\n\d]{0,25}?(?P<v>[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:\s*(?:%|/\s*\d+(?:\.\d+)?))?)",
    re.I,
)


# --------------------------------------------------------------------------
# text answers
# --------------------------------------------------------------------------


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


def parse_text_answer(text: str) -> Draft:
    """Read a text answer (sections with headers) into a draft; the last answer block wins."""
    d = Draft(fmt="text")
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
        value, problem = parse_score_value(value_line)
        if problem and not value_line and not sec.closed:
            problem = "overall score: cut off right after its header"
        d.overall = value
        if problem:
            d.problems.append(problem)
        d.found_any = d.found_any or value is not None
    else:
        # no score section: accept "overall score ... 0.8" in prose, only if valid
        m = PROSE_SCORE.search(text)
        value = parse_score_value(m.group("v"))[0] if m else None
        if value is not None:
            d.overall = value
            d.notes.append("overall score read from prose")
            d.found_any = True

    missing = [k for k in ("sig", "insig", "matched") if k not in present]
    if missing:
        order = {k: i for i, k in enumerate(_SECTION_ORDER)}
        truncated = all(order[k] > order[last_kind] for k in missing)
        names = ", ".join(SECTION_LABEL[k] for k in missing)
        if truncated:
            d.problems.append(
                f"answer ends after {SECTION_LABEL[last_kind]}: missing {names}"
            )
        else:
            d.problems.append(f"missing section(s): {names}")
    return d
