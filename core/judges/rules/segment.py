"""A report's text cleaned and cut for the rule-based judge's parser (:mod:`core.judges.rules.extract`,
which re-exports :func:`clean_text` and the caps): markup, entities and Unicode forms normalised, dates and
British spellings rewritten, then the findings sections and their sentences (run-ons cut to
:data:`MAX_SENTENCE_CHARS`).
"""

from __future__ import annotations

import html
import unicodedata

from core.judges.bounds import MAX_REPORT_CHARS
from core.judges.rules import vocab as V
from core.judges.rules.patterns import (
    ABBREV_END,
    BARE_HEADER_RE,
    BLOCK_TAG_RE,
    CTRL_RE,
    DATE_RE,
    HEADER_RE,
    INLINE_LIST,
    LIST_MARK,
    SCRIPT_RE,
    SENT_RE,
    TAG_RE,
)
from core.judges.rules.rewrite import rewrite
from core.judges.rules.spelling import normalise

__all__ = ["MAX_REPORT_CHARS", "MAX_SENTENCE_CHARS", "clean_text", "finding_sections", "sentences"]

#: Longer sentences are cut (a report is a few KB; this bounds the work per pair).
MAX_SENTENCE_CHARS = 600


def clean_text(text: object) -> str:
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        text = str(text)
    text = text[:MAX_REPORT_CHARS]
    if "<" in text:
        text = SCRIPT_RE.sub(" ", text)
        text = TAG_RE.sub(" ", BLOCK_TAG_RE.sub("\n", text))
    if "&" in text:
        text = html.unescape(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'").replace("\u00d7", "x")
    text = CTRL_RE.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " "))
    # British spelling, UK abbreviations (spelling.py); organ headings, findings no longer seen (rewrite.py)
    return rewrite(normalise(DATE_RE.sub("DATE", text)))


def finding_sections(text: str) -> list[tuple[str, str]]:
    """[(section name, body)] of the sections that hold findings."""
    if "\n" in text:
        text = BARE_HEADER_RE.sub(lambda m: m.group("h") + ":", text)
    out: list[tuple[str, str]] = []
    pos = 0
    current = "findings"
    for m in HEADER_RE.finditer(text):
        h = m.group("h")
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[line_start:m.start()].rstrip()
        # a header starts a line, is in capitals, or is capitalised after a full stop ("History: cough.
        # Findings: ..." on one line, as a flattened export writes it); "the findings: ..." in prose is none
        if not (not before or h.isupper() or (h[0].isupper() and before.endswith((".", ";")))):
            continue
        if current is not None:
            out.append((current, text[pos:m.start()]))
        name = " ".join(h.lower().split())
        current = "impression" if name in ("impression", "conclusion", "conclusions", "opinion", "summary",
                                           "interpretation", "diagnosis", "assessment") else \
            ("findings" if name in V.FINDING_SECTIONS else None)
        pos = m.end()
    if current is not None:
        out.append((current, text[pos:]))
    return [(n, b) for n, b in out if b.strip()]


def _chunks(sentence: str) -> list[str]:
    """A run-on "sentence" longer than MAX_SENTENCE_CHARS, cut at commas or spaces."""
    out = []
    while len(sentence) > MAX_SENTENCE_CHARS:
        cut = sentence.rfind(", ", 0, MAX_SENTENCE_CHARS)
        if cut < MAX_SENTENCE_CHARS // 2:
            cut = sentence.rfind(" ", 0, MAX_SENTENCE_CHARS)
        if cut < MAX_SENTENCE_CHARS // 2:
            cut = MAX_SENTENCE_CHARS
        out.append(sentence[:cut])
        sentence = sentence[cut:].lstrip(" ,")
    if sentence:
        out.append(sentence)
    return out


def sentences(body: str) -> list[str]:
    body = INLINE_LIST.sub("\n", body.strip())
    parts = [p for p in SENT_RE.split(body) if p and p.strip()]
    merged: list[str] = []
    for p in parts:
        p = LIST_MARK.sub("", " ".join(p.split()))
        if not p:
            continue
        if merged and ABBREV_END.search(merged[-1]):
            merged[-1] += " " + p
        else:
            merged.append(p)
    if any(len(p) > MAX_SENTENCE_CHARS for p in merged):
        merged = [c for p in merged for c in _chunks(p)]
    return merged
