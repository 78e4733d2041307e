"""Reading a report for the checks: sections, sentences, findings, measurements, levels, sides.

Locale-dependent words come from a :class:`~core.checks.locale.CompiledLocale`;
the rest (numbers, spinal levels) is the same in every locale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from core.checks.locale import CompiledLocale

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_MEASURE = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)?)(?:\s*(?:x|×|by)\s*(\d+(?:[.,]\d+)?))?(?:\s*(?:x|×|by)\s*(\d+(?:[.,]\d+)?))?"
    r"\s*(mm|cm|ml|cc)(?!\w)", re.I)
_LEVEL_PAIR = re.compile(r"(?<![A-Za-z0-9])([CTLS])\s?(\d{1,2})\s*[-–/]\s*([CTLS])?\s?(\d{1,2})(?!\d)")
_LEVEL_ONE = re.compile(r"(?<![A-Za-z0-9])(?:([CLS])(\d{1,2})|T(\d{1,2})(?=\s+(?:vertebra|vertebral|level|"
                        r"v[ée]rtebra|n[íi]vel)))(?![\w-])")
_LEVEL_MAX = {"C": 8, "T": 12, "L": 5, "S": 5}
_TAG = re.compile(r"<[^>]*>")


@dataclass
class Report:
    """A report split for the checks."""

    text: str
    sections: list[tuple[str, str]]  # (role, content) in order; role "body" when there are no headers
    has_headers: bool
    roles: list[str] = field(default_factory=list)  # roles in order of appearance (technique, analysis, ...)

    def section(self, role: str) -> str:
        return "\n".join(content for r, content in self.sections if r == role)


def split_sections(text: str, loc: CompiledLocale) -> Report:
    """Sections by header lines (``FINDINGS:``, ``<b>Análise</b>``); text before the first header is ``preamble``."""
    plain = _TAG.sub("\n", text) if "<" in text else text
    heads = list(loc.header.finditer(plain))
    if not heads:
        return Report(text, [("body", plain)], False, [])
    sections = []
    if plain[:heads[0].start()].strip():
        sections.append(("preamble", plain[:heads[0].start()]))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(plain)
        role = next((r for r, pat in loc.header_roles if pat.fullmatch(m.group("head").strip())), "other")
        sections.append((role, plain[m.end():end]))
    roles = [r for r, _ in sections if r not in ("preamble",)]
    return Report(text, sections, True, roles)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip(" .;\t")]


def _number(s: str, decimal_comma: bool) -> float | None:
    if "," in s:
        if not decimal_comma:
            return None  # "1,6" in an en-US report is not a measurement we can read safely
        s = s.replace(",", ".")
    return float(s)


def measurements(text: str, decimal_comma: bool) -> set[tuple[float, str]]:
    """Every measured value as (value in mm or ml, unit kind), rounded to 0.1: "1.6 cm" == "16 mm"."""
    out = set()
    for m in _MEASURE.finditer(text):
        unit = m.group(4).lower()
        scale, kind = {"mm": (1.0, "mm"), "cm": (10.0, "mm"), "ml": (1.0, "ml"), "cc": (1.0, "ml")}[unit]
        for g in (1, 2, 3):
            if m.group(g):
                value = _number(m.group(g), decimal_comma)
                if value is not None:
                    out.add((round(value * scale, 1), kind))
    return out


def _level(letter: str, number: str) -> str | None:
    n = int(number)
    if not 1 <= n <= _LEVEL_MAX[letter]:
        return None
    return f"{letter}{n}"


def spinal_levels(text: str) -> set[str]:
    """Spinal levels as written: "L4-5", "L4/L5" and "L4-L5" are all ``L4-L5``; single "S1", "C2"."""
    out = set()
    spans = []
    for m in _LEVEL_PAIR.finditer(text):
        a = _level(m.group(1), m.group(2))
        b = _level(m.group(3) or m.group(1), m.group(4))
        if a and b:
            out.add(f"{a}-{b}")
            spans.append(m.span())
    for m in _LEVEL_ONE.finditer(text):
        if any(s <= m.start() < e for s, e in spans):
            continue
        level = _level(m.group(1), m.group(2)) if m.group(1) else _level("T", m.group(3))
        if level:
            out.add(level)
    return out


@dataclass(frozen=True)
class Mention:
    key: str
    negated: bool
    sentence: int
    sides: frozenset[str]


def findings(text: str, loc: CompiledLocale) -> list[Mention]:
    """Finding mentions with negation (a cue before it in the same clause, or right after it) and sides.

    Cached per (locale, text): a reference is usually judged against several candidates.
    """
    return list(_findings(loc.spec.code, text))


@lru_cache(maxsize=4096)
def _findings(code: str, text: str) -> tuple[Mention, ...]:
    from core.checks.locale import compiled

    loc = compiled(code)
    out = []
    for i, sent in enumerate(sentences(text)):
        sides = frozenset(side for side, pat in loc.sides if pat.search(sent))
        for key, start, end in loc.findings.scan(sent):
            before = sent[:start]
            stops = [s.end() for s in loc.neg_stop.finditer(before)]
            scope = before[stops[-1]:] if stops else before
            negated = bool(loc.neg_pre.search(scope)) or bool(loc.neg_post.match(sent[end:end + 60]))
            out.append(Mention(key, negated, i, sides))
    return tuple(out)


def positive_keys(mentions: list[Mention]) -> set[str]:
    return {m.key for m in mentions if not m.negated}


def sides_by_finding(mentions: list[Mention]) -> dict[str, set[str]]:
    """Sides named in the sentences of each positive finding (only sentences that name exactly one finding)."""
    per_sentence: dict[int, set[str]] = {}
    for m in mentions:
        per_sentence.setdefault(m.sentence, set()).add(m.key)
    out: dict[str, set[str]] = {}
    for m in mentions:
        if not m.negated and m.sides and len(per_sentence[m.sentence]) == 1:
            out.setdefault(m.key, set()).update(m.sides)
    return out
