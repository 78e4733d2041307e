"""Rule-based judge (``--judge rules``): GREEN-style error counts without a model.

Deterministic, offline, standard library only.  It reads the two report texts
(never any label or metadata), turns each into a list of normalised findings,
matches them and writes its verdict in GREEN's own answer format, so the
standard parser (:func:`core.parse.parse_output`) computes its metrics exactly
as for an LLM judge.

Pipeline
--------
1. **Segmentation.**  HTML and control characters are removed and dates masked.
   Section headers are recognised (FINDINGS / IMPRESSION / CONCLUSION are read;
   EXAMINATION, COMPARISON, INDICATION, TECHNIQUE ... are skipped; text before
   any header is read as findings).  Sections are split into sentences (not on
   decimals such as ``2.7 cm``; numbered lists and bullets are unwrapped) and
   at semicolons.
2. **Observations.**  Each sentence is scanned for the observations of
   :mod:`core.judges.rules_vocab` (synonyms: "pleural effusion" / "fluid in the
   pleural space", "consolidation" / "airspace opacity", ...).  A sentence with
   several observations is cut into one segment per observation at the
   separators between them (``,`` ``and`` ``or`` ``with`` ``;``).
3. **Attributes** of each observation, read from its segment with the
   observation's own words masked: polarity (pre-negations "no", "without",
   "negative for", "free of", "no evidence of" scope over a list until "but",
   "however", ...; post-negations "is not seen", "is absent", "has resolved"
   cover the observation and the ones joined to it by "or"), certainty
   ("possible", "cannot be excluded", "probable", "suspicious for", ...),
   laterality (left / right / bilateral, paracentral / central), anatomic
   sites by class (lung lobe, spine level, rib, liver segment, kidney pole,
   nodal station, clock face, ...), severity on the observation's ordinal
   scale (trace < mild/small < moderate < severe/large; TI-RADS; tear
   thickness; fracture displacement; stenosis percent), the largest
   measurement in mm (``2.7 cm`` = ``27 mm``), and a comparison with a prior
   study (new / unchanged / increased / decreased / resolved; "increased" and
   "decreased" only count after the observation -- "effusion, increased" --
   or with a temporal cue such as "since", "prior", "compared", "interval":
   "increased opacity" is a description).  Earlier measurements ("previously
   3.2 cm") are not read as sizes.  Normal-anatomy statements ("the heart size is
   normal", "the menisci are intact") state the absence of the matching
   observation.  Sentences with no known observation are kept as plain
   statements.
4. **Deduplication** within a report: an observation restated in the
   impression is merged into the findings' one (missing attributes filled
   in); a conflicting restatement in a later section is dropped; two
   incompatible instances in one section (a nodule in each lung) are kept.
5. **Matching** across reports: positive findings of the same observation
   (then a generic "effusion" with a specific one of its family), pairing the
   most compatible instances first; absent-vs-absent statements of the same
   observation; plain statements with the same words (Jaccard >= 0.6).

Errors (GREEN / ReXVal categories)
----------------------------------
(a) a positive candidate finding with no positive counterpart in the reference
    (the explanation says when the reference states it is absent);
(b) a positive reference finding with no positive counterpart in the candidate;
(c) a matched finding with another side, or another site of the same class;
(d) a matched finding with another severity level (>= 1 step on the same
    scale) or another size (ratio >= 1.1 and >= 1 mm apart);
(e) a candidate comparison with a prior study that the reference does not make
    for that finding (or a different change);
(f) a reference comparison the candidate omits for a matched finding
    ("resolved" counts: "interval resolution of the pneumothorax" vs "no
    pneumothorax").
At most one error per category per matched finding.

Significance rule
-----------------
A finding *matters* when its observation is critical or actionable whatever
its grade (``sig="always"``: pneumothorax, embolism, fractures, acute
infarcts, suspicious masses, acute inflammation, ...), or when it reaches the
observation's severity or size threshold (moderate pleural effusion, severe
canal stenosis, 6 mm lung nodule, TI-RADS 4, full-thickness cuff tear; an
ungraded or unmeasured such finding is taken to matter).  Degenerative,
chronic and incidental observations never matter.  Then:

* (a) / (b) / (c): significant when the finding matters (the candidate's for
  (a), the reference's for (b), either for (c)); a wrong side of a finding
  that matters is significant; a line or tube whose tip is placed elsewhere
  (superior vena cava vs right atrium, carina vs right mainstem bronchus) is
  significant, because a malpositioned device is acted on.
* (d): significant when the finding matters at either severity/size and the
  difference changes management: it crosses the threshold, spans two steps,
  concerns an always-critical finding, or a size ratio >= 1.5 (1.2 for aortic
  aneurysms).
* (e) / (f): significant when the finding matters and the stated change is
  not "unchanged" (a dropped or invented "stable" is minor); two different
  changes ("increased" vs "unchanged") are significant when the finding
  matters.

Matched findings (GREEN's M) are positive pairs without a location or
severity error, absent-vs-absent pairs and shared plain statements.

Speed
-----
Pure-Python regular expressions, about 1 ms per pair on one core.  Observation
terms are found by a scanner that dispatches each word start to the few terms
beginning with its letter (rather than one 400-way alternation); parsed
sentences and reports are cached (``lru_cache``), which pays off because
report language is repetitive ("No pneumothorax.") and a reference is judged
against several candidates.  ``bench/bench_rules.py`` measures it.

API: :func:`judge_pair` (structured :class:`RulesResult`), :func:`render_green`,
:func:`score_pair` (``OutputRecord`` for the offline runner), :func:`spec_for`.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache

from core.judges import rules_vocab as V
from core.judges.runs import OutputRecord, RunSpec

__all__ = ["RULES_VERSION", "Finding", "Match", "RuleError", "RulesResult", "clear_caches", "judge_pair",
           "parse_report", "render_green", "score_pair", "spec_for"]

RULES_VERSION = "rules-4"  # 2: pelvic free fluid, not ascites; 3: granulomatous disease, mid lung; 4: IU wordings,
#                             device tips

CATEGORY_LABELS: dict[str, str] = {
    "a": "False report of a finding in the candidate",
    "b": "Missing a finding present in the reference",
    "c": "Misidentification of a finding's anatomic location/position",
    "d": "Misassessment of the severity of a finding",
    "e": "Mentioning a comparison that isn't in the reference",
    "f": "Omitting a comparison detailing a change from a prior study",
}
CATEGORIES = tuple(CATEGORY_LABELS)

#: Longer inputs are cut (a report is a few KB; these bound the work per pair).
MAX_REPORT_CHARS = 100_000
MAX_SENTENCE_CHARS = 600
MAX_STATEMENTS = 300

# --------------------------------------------------------------------------- #
# Data                                                                          #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Finding:
    """One normalised statement of a report.

    ``kind`` is ``"finding"`` (a known observation, present or absent) or
    ``"statement"`` (a sentence with no known observation; ``tokens`` holds
    its content words).  ``sites`` maps a site class ("lung lobe", "spine
    level", ...) to its normalised values.  ``grade`` is ``(scale, level)``.
    """

    kind: str
    concept: str
    name: str
    present: bool
    section: str
    text: str
    certainty: str = "definite"
    side: str | None = None
    sites: tuple[tuple[str, tuple[str, ...]], ...] = ()
    grade: tuple[str, float] | None = None
    grade_text: str | None = None
    size_mm: float | None = None
    size_text: str | None = None
    change: str | None = None
    change_text: str | None = None
    tokens: frozenset[str] = frozenset()

    @property
    def site_map(self) -> dict[str, tuple[str, ...]]:
        return dict(self.sites)

    def describe(self) -> str:
        """Short normalised description: "moderate left pleural effusion in the right upper lobe"."""
        if self.kind == "statement":
            return _clip(self.text, 90)
        bits = []
        device = _family(self.concept) == "device"
        if self.size_mm is not None and not device:
            bits.append(_fmt_mm(self.size_mm))
        if self.grade_text:
            bits.append(self.grade_text)
        side = self.side
        sites = _site_phrase(self)
        if side and not (sites and side in sites):
            bits.append(side)
        bits.append(self.name)
        if sites:
            bits.append(sites)
        text = " ".join(bits)
        if device and self.size_mm is not None:
            text += f", {self.size_text}"
        if not self.present:
            return f"no {text}"
        if self.certainty != "definite":
            text = f"{self.certainty} {text}"
        if self.change:
            text += f" ({_CHANGE_WORDS[self.change]})"
        return text


@dataclass(frozen=True)
class Match:
    """A reference statement matched with a candidate statement."""

    reference: Finding
    candidate: Finding
    kind: str  # "positive" | "negative" | "statement"
    counted: bool  # counts as a matched finding (no location/severity error)


@dataclass(frozen=True)
class RuleError:
    """One error found by the rules."""

    category: str
    significant: bool
    explanation: str
    reference: Finding | None = None
    candidate: Finding | None = None


@dataclass
class RulesResult:
    """Everything the rules found for one pair."""

    reference_findings: list[Finding] = field(default_factory=list)
    candidate_findings: list[Finding] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    errors: list[RuleError] = field(default_factory=list)
    explanation: str = ""

    @property
    def matched(self) -> int:
        return sum(1 for m in self.matches if m.counted)

    @property
    def sig(self) -> dict[str, int]:
        return {c: sum(1 for e in self.errors if e.category == c and e.significant) for c in CATEGORIES}

    @property
    def insig(self) -> dict[str, int]:
        return {c: sum(1 for e in self.errors if e.category == c and not e.significant) for c in CATEGORIES}

    @property
    def ec_sig(self) -> int:
        return sum(1 for e in self.errors if e.significant)

    def to_dict(self) -> dict:
        return {
            "version": RULES_VERSION,
            "sig": self.sig,
            "insig": self.insig,
            "matched": self.matched,
            "errors": [{"category": e.category, "significant": e.significant, "text": e.explanation}
                       for e in self.errors],
            "matched_findings": [m.reference.describe() for m in self.matches if m.counted],
            "explanation": self.explanation,
        }


# --------------------------------------------------------------------------- #
# Compiled patterns                                                             #
# --------------------------------------------------------------------------- #

_I = re.IGNORECASE


def _alt(pattern: str) -> str:
    return r"\b(?:" + pattern + r")\b"


def _first_chars(pattern: str) -> frozenset[str] | None:
    """Lower-case characters a match of ``pattern`` can start with (None: unknown)."""
    try:
        from re import _constants as K
        from re import _parser as P

        def seq(items) -> tuple[set[str] | None, bool]:
            out: set[str] = set()
            for op, av in items:
                chars, nullable = item(op, av)
                if chars is None:
                    return None, False
                out |= chars
                if not nullable:
                    return out, False
            return out, True

        def item(op, av) -> tuple[set[str] | None, bool]:
            if op is K.LITERAL:
                return {chr(av).lower()}, False
            if op is K.IN:
                chars: set[str] = set()
                for o, a in av:
                    if o is K.LITERAL:
                        chars.add(chr(a).lower())
                    elif o is K.RANGE:
                        chars |= {chr(x).lower() for x in range(a[0], a[1] + 1)}
                    elif o is K.CATEGORY and a is K.CATEGORY_DIGIT:
                        chars |= set("0123456789")
                    else:
                        return None, False
                return chars, False
            if op is K.BRANCH:
                chars, nullable = set(), False
                for alt in av[1]:
                    c, n = seq(alt)
                    if c is None:
                        return None, False
                    chars |= c
                    nullable = nullable or n
                return chars, nullable
            if op is K.SUBPATTERN:
                return seq(av[-1])
            if op in (K.MAX_REPEAT, K.MIN_REPEAT):
                c, n = seq(av[2])
                return c, n or av[0] == 0
            if op in (K.AT, K.ASSERT, K.ASSERT_NOT):
                return set(), True
            return None, False

        chars, nullable = seq(P.parse(pattern, re.IGNORECASE))
        return None if chars is None or nullable or not chars else frozenset(chars)
    except Exception:  # pragma: no cover - internal parser API changed: no dispatch
        return None


class _Scanner:
    """Finds terms, leftmost first, the earlier item winning at a position.

    Equivalent to ``finditer`` of one ``\\b(?:term|term|...)\\b`` alternation
    over every term in priority order, but Python's regex engine would try
    all ~400 alternatives at every word start.  Here each word start only
    tries the terms that can begin with its first character (4x faster).
    """

    _WORD_START = re.compile(r"\b\w")

    def __init__(self, items: list[tuple[object, tuple[str, ...]]]):
        concepts = [label for label, _ in items]
        terms = [(i, t) for i, (_, ts) in enumerate(items) for t in ts]
        firsts = [_first_chars(t) for _, t in terms]
        self.dispatch: dict[str, tuple[re.Pattern, dict[str, object]]] | None = None
        if any(f is None for f in firsts):  # pragma: no cover - fallback: one plain alternation
            body = "|".join(f"(?P<c{i}>" + "|".join(ts) + ")" for i, (_, ts) in enumerate(items))
            self.regex = re.compile(r"\b(?:" + body + r")\b", _I)
            self.groups = {f"c{i}": c for i, c in enumerate(concepts)}
            return
        buckets: dict[str, list[tuple[int, str]]] = {}
        for (i, t), chars in zip(terms, firsts, strict=True):
            for ch in sorted(chars):
                buckets.setdefault(ch, []).append((i, t))
        self.dispatch = {}
        for ch, items in buckets.items():
            names = {f"g{k}": concepts[i] for k, (i, _) in enumerate(items)}
            rx = re.compile("(?:" + "|".join(f"(?P<g{k}>{t})" for k, (_, t) in enumerate(items)) + r")\b", _I)
            self.dispatch[ch] = self.dispatch[ch.upper()] = (rx, names)

    def scan(self, text: str) -> list[tuple[object, int, int]]:
        if self.dispatch is None:  # pragma: no cover
            return [(self.groups[m.lastgroup], m.start(), m.end()) for m in self.regex.finditer(text)]
        out = []
        end = 0
        dispatch = self.dispatch
        for w in self._WORD_START.finditer(text):
            pos = w.start()
            if pos < end:
                continue
            entry = dispatch.get(text[pos])
            if entry is None:
                continue
            m = entry[0].match(text, pos)
            if m:
                out.append((entry[1][m.lastgroup], pos, m.end()))
                end = m.end()
        return out


_ORDERED = [c for c in V.CONCEPTS if not c.generic] + [c for c in V.CONCEPTS if c.generic]
_SCANNER = _Scanner([(c, c.terms) for c in _ORDERED])

_NORMAL_RES = [(re.compile(r"\b(?:" + anat + r")\s+" + r"(?:" + V.NORMAL_PREDICATE + r")\b", _I), keys)
               for anat, keys in V.NORMAL_ANATOMY]
_NORMAL_PREFIX_RES = [(re.compile(V.NORMAL_PREFIX + r"(?:" + anat + r")\b", _I), keys)
                      for anat, keys in V.NORMAL_ANATOMY]
_NORMAL_HINT = re.compile(r"\b(?:normal|unremarkable|intact|clear|not\s+(?:enlarged|dilated))\b", _I)
_ABNORMAL = re.compile(r"\babnormal", _I)

# Cue phrases, earlier kinds winning at a position (see _analyse_sentence).
_CUE_SCANNER = _Scanner(
    [(("change", name), (f"(?:{p})",)) for name, p in V.CHANGES]
    + [(("hedge", name), (f"(?:{p})",)) for name, p in V.HEDGES]
    + [(("prior", ""), (f"(?:{V.PRIOR_OBJECT})",)), (("post", ""), (f"(?:{V.POST_NEGATION})",)),
       (("pre", ""), (f"(?:{V.PRE_NEGATION})",)), (("stop", ""), (f"(?:{V.NEGATION_STOP})",)),
       (("temporal", ""), (f"(?:{V.TEMPORAL})",))])

_SIDE_RE = re.compile(
    r"\b(?:(?P<para>(?:left|right)\s+paracentral)|(?P<central>paracentral|central)"
    r"|(?P<bi>bilateral(?:ly)?|both\s+sides|bibasilar|bilaterally)|(?P<lr>left|right)(?:-sided)?)\b", _I)
_SIDE_HINT = re.compile(r"left|right|bilat|central|both|bibasilar")
_DIGIT = re.compile(r"\d")
_SIDE_WORD = re.compile(r"\b(?:left|right|bilateral(?:ly)?)\b", _I)

def _site_alt(cls: str, pat: str) -> str:
    if cls == "spine level":
        # upper-case only: "T2 hyperintense" is an MRI sequence, not a vertebra
        return f"(?-i:{pat})" + r"\b(?!\s*-?\s*(?:weighted|hyper|hypo|signal|flair|\*|star))"
    return pat


# At a given position the earlier class wins ("right upper lobe" is a lung
# lobe, not a thyroid "right lobe").
_SITE_SCANNER = _Scanner([(cls, (_site_alt(cls, pat),)) for cls, pat in V.SITE_CLASSES])
_SITE_ORDER = {cls: i for i, (cls, _) in enumerate(V.SITE_CLASSES)}

_SCALE_RES = {
    name: re.compile("|".join(f"(?P<l{i}>{_alt(p)})" for i, (p, _) in enumerate(levels)), _I)
    for name, levels in V.SCALES.items()
}
_SCALE_LEVELS = {name: [lvl for _, lvl in levels] for name, levels in V.SCALES.items()}
_TIRADS_RE = re.compile(r"\b(?:ACR\s+)?(?:TI-?\s?RADS|TR)\s*-?\s*(?:category\s+)?(\d)\b", _I)
_GRADE_RE = re.compile(r"\bgrade\s+(\d|IV|III|II|I)\b(?!-)", _I)
_PCT_RE = re.compile(
    r"(?P<lt>\b(?:less\s+than|under|below)\s+|<\s*)?(?P<gt>\b(?:greater\s+than|more\s+than|over|above)\s+|>\s*)?"
    r"(?P<a>\d{1,3})(?:\s*%?\s*(?:-|to|–)\s*(?P<b>\d{1,3}))?\s*%", _I)
_OCCLUSION = re.compile(r"\b(?:occlu(?:ded|sion)|occlusive)\b", _I)
_SIZE_RE = re.compile(
    r"(?<![\w.])(?P<n>\d+(?:\.\d+)?(?:\s*(?:x|×|by)\s*\d+(?:\.\d+)?){0,2})\s*-?\s*"
    r"(?P<u>mm|cm|millimet(?:er|re)s?|centimet(?:er|re)s?)\b", _I)
_NUM_RE = re.compile(r"\d+(?:\.\d+)?")

_DATE_RE = re.compile(
    r"\b(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{1,2}-\d{1,2}|" + V.MONTHS +
    r"\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}\s+" + V.MONTHS + r"\.?,?\s+\d{4}|" + V.MONTHS +
    r"\.?\s+\d{4})\b", _I)
_BLOCK_TAG_RE = re.compile(r"<\s*/?\s*(?:p|br|div|li|ul|ol|tr|td|th|table|h[1-6]|section|article|pre)\b[^>]{0,500}>",
                           _I)
_TAG_RE = re.compile(r"<[^>]{0,500}>")
_SCRIPT_RE = re.compile(r"<\s*(script|style)\b.*?<\s*/\s*\1\s*>", _I | re.S)
_CTRL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u2028\u2029\ufeff]")
_ALL_HEADERS = sorted(set(V.FINDING_SECTIONS) | set(V.OTHER_SECTIONS), key=len, reverse=True)
_HEADER_RE = re.compile(
    r"(?:^|(?<=[\s.]))(?P<h>" + "|".join(h.replace(" ", r"\s+") for h in _ALL_HEADERS) + r")\s*:", _I | re.M)
_BARE_HEADER_RE = re.compile(r"^[ \t]*(?P<h>FINDINGS|IMPRESSION|CONCLUSIONS?|EXAMINATION|COMPARISON|INDICATION|"
                             r"HISTORY|TECHNIQUE|CLINICAL HISTORY|RECOMMENDATIONS?)[ \t]*$", re.M)
_SENT_RE = re.compile(r"(?<=[.!?])\s+(?=\S)|\s*;\s+|\n\s*(?=(?:\d{1,2}[.)]\s|[-*•]\s|[A-Z0-9]))|\n\s*\n")
# "IMPRESSION: 1. A. 2. B." -- list numbers after a header or a full stop
_INLINE_LIST = re.compile(r"(?:^|(?<=\n)|(?<=[.:]\s)|(?<=[.:]))[ \t]*\d{1,2}[.)]\s+(?=[A-Za-z0-9])")
_LIST_MARK = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•·])\s+")
_ABBREV_END = re.compile(r"\b(?:dr|vs|approx|e\.g|i\.e|cf|mr|mrs|ms|fig|st|resp|incl|pt|pts|hx|sq|ca|etc)\.$", _I)
_SEP_RE = re.compile(r"\s*(?:,\s*(?:and|or|with|but)?|;)\s*|\s+(?:and|or|nor|with|as\s+well\s+as|but|while|"
                     r"whereas|plus|along\s+with)\s+", _I)
_OR_SEP = re.compile(r"^\s*(?:,\s*(?:or|nor)?|(?:or|nor))\s*$", _I)
_WORD_RE = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_STOP = frozenset("""a an the is are was were be been of in on at to for with and or no not there this that these
those it its as by from seen noted identified present evidence which has have had also again""".split())

_CHANGE_WORDS = {"new": "new", "unchanged": "unchanged", "increased": "increased", "decreased": "decreased",
                 "resolved": "resolved"}
_ADJ = {"mildly": "mild", "moderately": "moderate", "severely": "severe", "markedly": "marked",
        "minimally": "minimal", "slightly": "slight"}
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8}

# --------------------------------------------------------------------------- #
# Small helpers                                                                 #
# --------------------------------------------------------------------------- #


def _clip(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3].rstrip() + "..."


def _fmt_mm(mm: float) -> str:
    return f"{mm:g} mm" if mm < 10 else (f"{mm / 10:.1f} cm" if mm % 1 else f"{int(mm)} mm")


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _site_phrase(f: Finding) -> str:
    parts = []
    for cls, values in f.sites:
        v = " and ".join(values)
        if cls in ("spine level", "clock face", "liver segment"):
            parts.append(("at " if cls != "liver segment" else "in ") + (v + " o'clock" if cls == "clock face" else v))
        elif cls == "rib":
            parts.append(f"(rib {v})")
        elif cls in ("medial/lateral", "position", "uterine layer", "curve", "tendon", "lung zone", "meniscal horn"):
            parts.append(f"({v})")
        else:
            parts.append(f"in the {v}")
    return " ".join(parts)


def _singular(phrase: str) -> str:
    head, _, last = phrase.rpartition(" ")
    if last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith(("uses", "xes")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us", "is", "pons", "ceps")) and len(last) > 3:
        last = last[:-1]
    return f"{head} {last}" if head else last


def _norm_site(cls: str, raw: str) -> str:
    s = " ".join(raw.split())
    low = _singular(s.lower())
    if cls == "spine level":
        m = re.match(r"([CTLS])(\d{1,2})(?:\s*-\s*([CTLS])?(\d{1,2})|\s+on\s+([CTLS])(\d{1,2}))?", s)
        if not m:
            return s
        a = f"{m.group(1)}{m.group(2)}"
        if m.group(4):
            return f"{a}-{m.group(3) or m.group(1)}{m.group(4)}"
        if m.group(6):
            return f"{a}-{m.group(5)}{m.group(6)}"
        return a
    if cls == "liver segment":
        tok = s.split()[-1].rstrip("abAB")
        return f"segment {_ROMAN.get(tok.upper(), tok)}"
    if cls == "rib":
        nums = re.findall(r"\d+", s)
        return "-".join(nums)
    if cls == "clock face":
        return re.match(r"\d+", s).group(0)
    if cls == "nodal station" and low.startswith("level"):
        tok = low.split()[-1].rstrip("ab").upper()
        return f"level {_ROMAN.get(tok, tok)}"
    if cls == "lung lobe":
        abbr = {"rul": "right upper lobe", "rml": "right middle lobe", "rll": "right lower lobe",
                "lul": "left upper lobe", "lll": "left lower lobe"}
        return abbr.get(low, low.removesuffix("s") if low.endswith("lobes") else low)
    if cls == "vessel":
        low = low.replace("carotid bifurcation", "carotid bulb").replace("acom", "anterior communicating artery")
        return low.replace("pcom", "posterior communicating artery").replace("middle cerebral artery", "mca")
    if cls == "kidney pole":
        if low.startswith("interpolar") or low.startswith("mid"):
            return "interpolar region"
        return low.removesuffix("s")
    if cls == "lung zone":
        return "apex" if low.startswith("ap") else "mid lung" if low.startswith("mid") else "base"
    if cls == "hip region":
        return low.removesuffix(" region")
    if cls == "breast region":
        return "retroareolar region" if ("areolar" in low) else low
    if cls == "curve":
        return "dextroconvex" if low.startswith("dextro") else "levoconvex"
    if cls == "brain region":
        return low.replace("lobes", "lobe").replace("convexities", "convexity").replace("thalami", "thalamus")
    if cls == "device tip":
        low = re.sub(r"main-?\s?stem(?: bronchus)?", "mainstem bronchus", low)
        return {"svc": "superior vena cava", "cavo-atrial junction": "cavoatrial junction"}.get(low, low)
    return low


# --------------------------------------------------------------------------- #
# Report parsing                                                                #
# --------------------------------------------------------------------------- #


def _clean(text: object) -> str:
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        text = str(text)
    text = text[:MAX_REPORT_CHARS]
    if "<" in text:
        text = _SCRIPT_RE.sub(" ", text)
        text = _TAG_RE.sub(" ", _BLOCK_TAG_RE.sub("\n", text))
    if "&" in text:
        text = html.unescape(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'").replace("\u00d7", "x")
    text = _CTRL_RE.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " "))
    return _DATE_RE.sub("DATE", text)


def _sections(text: str) -> list[tuple[str, str]]:
    """[(section name, body)] of the sections that hold findings."""
    if "\n" in text:
        text = _BARE_HEADER_RE.sub(lambda m: m.group("h") + ":", text)
    out: list[tuple[str, str]] = []
    pos = 0
    current = "findings"
    for m in _HEADER_RE.finditer(text):
        h = m.group("h")
        line_start = text.rfind("\n", 0, m.start()) + 1
        at_line_start = not text[line_start:m.start()].strip()
        if not (at_line_start or h.isupper()):
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


def _sentences(body: str) -> list[str]:
    body = _INLINE_LIST.sub("\n", body.strip())
    parts = [p for p in _SENT_RE.split(body) if p and p.strip()]
    merged: list[str] = []
    for p in parts:
        p = _LIST_MARK.sub("", " ".join(p.split()))
        if not p:
            continue
        if merged and _ABBREV_END.search(merged[-1]):
            merged[-1] += " " + p
        else:
            merged.append(p)
    if any(len(p) > MAX_SENTENCE_CHARS for p in merged):
        merged = [c for p in merged for c in _chunks(p)]
    return merged


@dataclass
class _Mention:
    concept: V.Concept
    start: int
    end: int
    seg_start: int = 0
    seg_end: int = 0
    negated: bool = False


def _grade_of(concept: V.Concept, text: str) -> tuple[tuple[str, float] | None, str | None]:
    for scale in concept.scales:
        if scale == "tirads":
            m = _TIRADS_RE.search(text)
            if m:
                return ("tirads", float(m.group(1))), f"TI-RADS {m.group(1)}"
        elif scale == "grade":
            m = _GRADE_RE.search(text)
            if m:
                tok = m.group(1).upper()
                n = _ROMAN.get(tok) or int(tok)
                return ("grade", float(n)), f"grade {n}"
        elif scale == "pct":
            m = _PCT_RE.search(text)
            if m:
                a = int(m.group("a"))
                b = int(m.group("b")) if m.group("b") else a
                v = (a + b) / 2
                if m.group("lt"):
                    v = a - 1
                elif m.group("gt"):
                    v = a + 1
                lvl = 0 if v < 50 else 1 if v < 70 else 2 if v < 100 else 3
                return ("pct", float(lvl)), " ".join(m.group(0).split())
            if _OCCLUSION.search(text):
                return ("pct", 3.0), "occluded"
        else:
            levels = _SCALE_LEVELS[scale]
            found = [(levels[int(m.lastgroup[1:])], m.group(0)) for m in _SCALE_RES[scale].finditer(text)]
            if found:
                lvl = sum(x for x, _ in found) / len(found)
                words = " to ".join(dict.fromkeys(_ADJ.get(w.lower(), w.lower()) for _, w in found))
                return (scale, lvl), words
    return None, None


def _size_of(text: str) -> tuple[float | None, str | None]:
    best: float | None = None
    best_text = None
    for m in _SIZE_RE.finditer(text):
        unit = m.group("u").lower()
        factor = 10.0 if unit.startswith("c") else 1.0
        try:
            v = max(float(x) for x in _NUM_RE.findall(m.group("n"))) * factor
        except ValueError:
            continue
        if best is None or v > best:
            best, best_text = round(v, 1), " ".join(m.group(0).split())
    return best, best_text


def _side_of(text: str) -> str | None:
    found = set()
    for m in _SIDE_RE.finditer(text):
        if m.group("para"):
            found.add(" ".join(m.group("para").lower().split()))
        elif m.group("central"):
            found.add(m.group("central").lower())
        elif m.group("bi"):
            found.add("bilateral")
        else:
            found.add(m.group("lr").lower())
    if not found:
        return None
    if "bilateral" in found or {"left", "right"} <= found:
        return "bilateral"
    if len(found) == 1:
        return found.pop()
    for pref in ("left paracentral", "right paracentral", "left", "right", "central", "paracentral"):
        if pref in found:
            return pref
    return None


def _sites_of(text: str) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], str]:
    """Anatomic sites by class, and ``text`` with them blanked."""
    found: dict[str, list[str]] = {}
    spans = []
    for cls, a, b in _SITE_SCANNER.scan(text):
        v = _norm_site(cls, text[a:b])
        vals = found.setdefault(cls, [])
        if v and v not in vals:
            vals.append(v)
        spans.append((a, b))
    if not spans:
        return (), text
    for a, b in spans:
        text = _blank(text, a, b)
    sites = tuple((cls, tuple(sorted(vals))) for cls, vals in sorted(found.items(), key=lambda kv: _SITE_ORDER[kv[0]])
                  if vals)
    return sites, text


@lru_cache(maxsize=4096)
def _mask_term(piece: str) -> str:
    """An observation's words blanked, its side and site words kept."""
    chars = [" "] * len(piece)
    keep = [(m.start(), m.end()) for m in _SIDE_WORD.finditer(piece)]
    keep += [(a, b) for _, a, b in _SITE_SCANNER.scan(piece)]
    for a, b in keep:
        chars[a:b] = piece[a:b]
    return "".join(chars)


@lru_cache(maxsize=32768)
def _analyse_sentence(sent: str, section: str) -> tuple[Finding, ...]:
    """The statements of one sentence (cached: report sentences repeat a lot, "No pneumothorax.")."""
    return tuple(_analyse_sentence_uncached(sent, section))


def _analyse_sentence_uncached(sent: str, section: str) -> list[Finding]:
    mentions = [_Mention(c, a, b) for c, a, b in _SCANNER.scan(sent)]
    if not mentions:
        return _normal_or_statement(sent, section)

    # text with the observations' own words blanked; side and site words inside
    # them are kept ("infraspinatus tear", "femoral neck fracture")
    chars = list(sent)
    for mn in mentions:
        chars[mn.start:mn.end] = _mask_term(sent[mn.start:mn.end])
    masked = "".join(chars)

    # segments: cut between consecutive observations at the last separator
    seps_between: list[str] = []
    mentions[0].seg_start = 0
    for a, b in zip(mentions, mentions[1:], strict=False):
        gap = sent[a.end:b.start]
        seps = list(_SEP_RE.finditer(gap))
        last = seps[-1] if seps else None
        if last is not None:
            a.seg_end = a.end + last.start()
            b.seg_start = a.end + last.end()
            seps_between.append(last.group(0))
        else:
            a.seg_end = b.start
            b.seg_start = b.start
            seps_between.append("")
    mentions[-1].seg_end = len(sent)

    # cues, in one leftmost scan where comparison > hedge > prior-study phrase >
    # negation > scope stop: "no significant change" is a comparison, not a negation
    temporal = False
    changes: list[tuple[int, int, str]] = []
    hedges: list[tuple[int, int, str]] = []
    pre: list[int] = []
    post: list[int] = []
    stops: list[int] = []
    blanked: list[tuple[int, int]] = []
    for (kind, name), a, b in _CUE_SCANNER.scan(masked):
        if kind == "change":
            changes.append((a, b, name))
        elif kind == "hedge":
            hedges.append((a, b, name))
            blanked.append((a, b))
        elif kind == "prior":
            temporal = True
            blanked.append((a, b))
        elif kind == "temporal":
            temporal = True
        elif kind == "pre":
            pre.append(b)
        elif kind == "post":
            post.append(a)
        else:
            stops.append(a)
    if not temporal:
        # "increased opacity" is a description; "the effusion, increased" or a
        # change stated with "since", "prior", "interval" ... is a comparison
        first_end = mentions[0].end
        changes = [c for c in changes if c[2] not in V.NEEDS_TEMPORAL or c[0] >= first_end]
    blanked += [(a, b) for a, b, _ in changes]
    if blanked:
        chars = list(masked)
        for a, b in blanked:
            chars[a:b] = " " * (b - a)
        neg_text = "".join(chars)
    else:
        neg_text = masked

    # negation: pre-negation scopes forward over a list, post-negation backwards over "or"
    for p in pre:
        end = next((st for st in stops if st >= p), len(sent))
        for mn in mentions:
            if p <= mn.start < end:
                mn.negated = True
    for p in post:
        idx = None
        for i, mn in enumerate(mentions):
            if mn.end <= p and mn.seg_end >= p:
                idx = i
        if idx is None:
            continue
        mentions[idx].negated = True
        while idx > 0 and _OR_SEP.match(seps_between[idx - 1] or "x"):
            idx -= 1
            mentions[idx].negated = True

    out: list[Finding] = []
    for mn in mentions:
        s0, s1 = mn.seg_start, mn.seg_end
        seg = neg_text[s0:s1]
        change = change_text = None
        for cs, ce, kind in changes:
            if s0 <= cs < s1 or (mn is mentions[0] and cs < s0):
                change, change_text = kind, " ".join(masked[cs:ce].split())
                break
        certainty = "definite"
        for hs, _he, name in hedges:
            if s0 <= hs < s1 or (mn is mentions[0] and hs < s0):
                certainty = name
                break
        present = not mn.negated
        if change == "resolved":
            present = False
        low = seg.lower()
        sites, rest = _sites_of(seg)
        if mn.concept.family == "device":  # "tip in the right atrium" is where it ends, not its side
            side = _side_of(rest) if _SIDE_HINT.search(rest.lower()) else None
        else:
            side = _side_of(seg) if _SIDE_HINT.search(low) else None
        grade, grade_text = _grade_of(mn.concept, rest)
        size, size_text = _size_of(rest) if ("m" in low and _DIGIT.search(low)) else (None, None)
        out.append(Finding(
            kind="finding", concept=mn.concept.key, name=mn.concept.name, present=present, section=section,
            text=sent[s0:s1].strip(" ,;"), certainty=certainty if present else "definite", side=side,
            sites=sites, grade=grade, grade_text=grade_text, size_mm=size, size_text=size_text,
            change=change if present or change == "resolved" else None,
            change_text=change_text if present or change == "resolved" else None))
    return out


def _normal_or_statement(sent: str, section: str) -> list[Finding]:
    if _NORMAL_HINT.search(sent) and not _ABNORMAL.search(sent):
        keys: list[str] = []
        for rx, ks in _NORMAL_RES:
            if rx.search(sent):
                keys.extend(k for k in ks if k not in keys)
        for rx, ks in _NORMAL_PREFIX_RES:
            if rx.search(sent):
                keys.extend(k for k in ks if k not in keys)
        if keys:
            return [Finding(kind="finding", concept=k, name=V.CONCEPT_BY_KEY[k].name, present=False,
                            section=section, text=sent) for k in keys]
    tokens = frozenset(w for w in _WORD_RE.findall(sent.lower()) if w not in _STOP and w != "date")
    if not tokens:
        return []
    return [Finding(kind="statement", concept="", name="statement", present=True, section=section, text=sent,
                    tokens=tokens)]


def _family(key: str) -> str | None:
    c = V.CONCEPT_BY_KEY.get(key)
    return c.family if c else None


def _is_generic(key: str) -> bool:
    c = V.CONCEPT_BY_KEY.get(key)
    return bool(c and c.generic)


def _related(a: str, b: str) -> bool:
    """Same observation, or a generic observation and one of its family."""
    if a == b:
        return True
    fa, fb = _family(a), _family(b)
    return fa is not None and fa == fb and (_is_generic(a) or _is_generic(b))


def _compatible(a: Finding, b: Finding) -> bool:
    if a.side and b.side and a.side != b.side:
        return False
    sa = a.site_map
    for cls, vals in b.sites:
        if cls in sa and not set(vals) & set(sa[cls]):
            return False
    if a.grade and b.grade and a.grade[0] == b.grade[0] and abs(a.grade[1] - b.grade[1]) >= 1:
        return False
    return not (a.size_mm and b.size_mm and _size_differs(a.size_mm, b.size_mm))


def _merge(a: Finding, b: Finding) -> Finding:
    """``a`` with the attributes only ``b`` states."""
    sa = a.site_map
    extra = tuple((c, v) for c, v in b.sites if c not in sa)
    concept, name = (b.concept, b.name) if _is_generic(a.concept) and not _is_generic(b.concept) else \
        (a.concept, a.name)
    return replace(
        a, concept=concept, name=name, side=a.side or b.side, sites=a.sites + extra,
        grade=a.grade or b.grade, grade_text=a.grade_text if a.grade else b.grade_text,
        size_mm=a.size_mm if a.size_mm is not None else b.size_mm,
        size_text=a.size_text if a.size_mm is not None else b.size_text,
        change=a.change or b.change, change_text=a.change_text if a.change else b.change_text,
        certainty=a.certainty if a.certainty != "definite" else b.certainty)


def _dedupe(raw: list[Finding]) -> list[Finding]:
    positives: list[Finding] = []
    negatives: list[Finding] = []
    statements: list[Finding] = []
    for f in raw:
        if f.kind == "statement":
            if not any(s.tokens == f.tokens for s in statements):
                statements.append(f)
            continue
        if not f.present:
            if not any(n.concept == f.concept for n in negatives):
                negatives.append(f)
            continue
        related = [i for i, p in enumerate(positives) if _related(p.concept, f.concept)]
        compat = [i for i in related if _compatible(positives[i], f)]
        if compat:
            positives[compat[0]] = _merge(positives[compat[0]], f)
        elif related and any(positives[i].section != f.section for i in related):
            continue  # a conflicting restatement in the impression: the findings section wins
        else:
            positives.append(f)
    negatives = [n for n in negatives if not any(_related(p.concept, n.concept) for p in positives)]
    return positives + negatives + statements


@lru_cache(maxsize=8192)
def parse_report(text: str) -> tuple[Finding, ...]:
    """Normalised, deduplicated statements of one report (positives, then negatives, then others)."""
    cleaned = _clean(text)
    if not cleaned.strip():
        return ()
    raw: list[Finding] = []
    sections = _sections(cleaned)
    # the findings section is read first so that it wins over the impression
    sections.sort(key=lambda s: s[0] != "findings")
    for name, body in sections:
        for sent in _sentences(body):
            raw.extend(_analyse_sentence(sent, name))
            if len(raw) >= MAX_STATEMENTS:
                return tuple(_dedupe(raw[:MAX_STATEMENTS]))
    return tuple(_dedupe(raw))


# --------------------------------------------------------------------------- #
# Significance                                                                  #
# --------------------------------------------------------------------------- #


def _threshold(c: V.Concept, scale: str) -> float | None:
    if c.level is None:
        return None
    if c.scales and scale == c.scales[0]:
        return c.level
    return c.alt_level if c.alt_level is not None else c.level


def _matters(f: Finding, grade: tuple[str, float] | None = None, size: float | None = None,
             use_own: bool = True) -> bool:
    """Does this finding (optionally at another grade/size) matter clinically?"""
    c = V.CONCEPT_BY_KEY.get(f.concept)
    if c is None or c.sig == "never":
        return False
    if c.sig == "always":
        return True
    if use_own:
        grade = grade or f.grade
        size = size if size is not None else f.size_mm
    known = False
    if grade is not None and (thr := _threshold(c, grade[0])) is not None:
        known = True
        if grade[1] >= thr:
            return True
    if c.size_mm is not None and size is not None:
        known = True
        if size >= c.size_mm:
            return True
    return not known


def _size_differs(a: float, b: float) -> bool:
    lo, hi = min(a, b), max(a, b)
    return hi - lo >= 1.0 and hi / max(lo, 0.1) >= 1.1


# --------------------------------------------------------------------------- #
# Matching and errors                                                           #
# --------------------------------------------------------------------------- #


def _affinity(r: Finding, c: Finding) -> float:
    s = 0.0
    if r.concept == c.concept:
        s += 4
    if r.side and c.side:
        s += 3 if r.side == c.side else -3
    cm = c.site_map
    for cls, vals in r.sites:
        if cls in cm:
            s += 2 if set(vals) & set(cm[cls]) else -2
    if r.grade and c.grade and r.grade[0] == c.grade[0]:
        s += 1 if abs(r.grade[1] - c.grade[1]) < 1 else -1
    if r.size_mm and c.size_mm:
        s += 1 if not _size_differs(r.size_mm, c.size_mm) else -1
    return s


def _pair(refs: list[Finding], cands: list[Finding], strict: bool) -> list[tuple[int, int]]:
    """Greedy pairing of related findings, most compatible first."""
    scored = []
    for i, r in enumerate(refs):
        for j, c in enumerate(cands):
            ok = r.concept == c.concept if strict else _related(r.concept, c.concept)
            if ok:
                scored.append((-_affinity(r, c), i, j))
    scored.sort()
    used_r: set[int] = set()
    used_c: set[int] = set()
    pairs = []
    for _, i, j in scored:
        if i in used_r or j in used_c:
            continue
        used_r.add(i)
        used_c.add(j)
        pairs.append((i, j))
    return pairs


def _where(f: Finding, cls: str | None) -> str:
    if cls is None:
        return {"bilateral": "bilaterally", "central": "centrally"}.get(f.side or "", f"on the {f.side}")
    vals = " and ".join(f.site_map[cls])
    if cls == "spine level":
        return f"at {vals}"
    if cls == "clock face":
        return f"at {vals} o'clock"
    if cls == "rib":
        return f"at rib {vals}"
    if cls == "device tip":
        return f"with its tip at the {vals}"
    if cls in ("liver segment",):
        return f"in {vals}"
    if cls in ("medial/lateral", "position", "uterine layer", "curve", "tendon", "lung zone", "meniscal horn"):
        return f"at the {vals} position" if cls == "position" else f"({vals})"
    return f"in the {vals}"


def _location_error(r: Finding, c: Finding) -> str | None:
    side_diff = bool(r.side and c.side and r.side != c.side)
    cm = c.site_map
    site_diff = [cls for cls, vals in r.sites if cls in cm and not set(vals) & set(cm[cls])]
    if not side_diff and not site_diff:
        return None
    parts_c, parts_r = [], []
    for cls in site_diff:
        parts_c.append(_where(c, cls))
        parts_r.append(_where(r, cls))
    if side_diff and not any(c.side in p for p in parts_c):
        parts_c.insert(0, _where(c, None))
        parts_r.insert(0, _where(r, None))
    return (f"candidate places the {r.name} {' '.join(parts_c)}, the reference {' '.join(parts_r)}")


def _severity_error(r: Finding, c: Finding) -> tuple[str, bool] | None:
    concept = V.CONCEPT_BY_KEY[r.concept]
    texts, sig = [], False
    if r.grade and c.grade and r.grade[0] == c.grade[0] and abs(r.grade[1] - c.grade[1]) >= 1:
        texts.append(f"grades the {r.name} as {c.grade_text}, the reference as {r.grade_text}")
        if concept.sig == "always":
            sig = True
        elif concept.sig == "graded":
            before = _matters(r, grade=r.grade, size=None, use_own=False)
            after = _matters(r, grade=c.grade, size=None, use_own=False)
            thr = _threshold(concept, r.grade[0])
            crosses = thr is not None and ((r.grade[1] >= thr) != (c.grade[1] >= thr))
            sig = sig or crosses or (abs(r.grade[1] - c.grade[1]) >= 2 and (before or after or thr is not None))
    if r.size_mm and c.size_mm and _size_differs(r.size_mm, c.size_mm):
        texts.append(f"measures the {r.name} at {_fmt_mm(c.size_mm)}, the reference at {_fmt_mm(r.size_mm)}")
        ratio = max(r.size_mm, c.size_mm) / max(min(r.size_mm, c.size_mm), 0.1)
        before = _matters(r, size=r.size_mm)
        after = _matters(r, size=c.size_mm)
        crosses = concept.size_mm is not None and concept.sig == "graded" and (
            (r.size_mm >= concept.size_mm) != (c.size_mm >= concept.size_mm))
        sig = sig or ((before or after) and (ratio >= concept.d_ratio or crosses))
    if not texts:
        return None
    return "candidate " + " and ".join(texts), sig


def _error(cat: str, sig: bool, text: str, r: Finding | None = None, c: Finding | None = None) -> RuleError:
    return RuleError(cat, bool(sig), text, r, c)


def _judge(ref: tuple[Finding, ...], cand: tuple[Finding, ...]) -> RulesResult:
    res = RulesResult(list(ref), list(cand))
    r_pos = [f for f in ref if f.kind == "finding" and f.present]
    c_pos = [f for f in cand if f.kind == "finding" and f.present]
    r_neg = [f for f in ref if f.kind == "finding" and not f.present]
    c_neg = [f for f in cand if f.kind == "finding" and not f.present]

    pairs = _pair(r_pos, c_pos, strict=True)
    left_r = [i for i in range(len(r_pos)) if i not in {p[0] for p in pairs}]
    left_c = [j for j in range(len(c_pos)) if j not in {p[1] for p in pairs}]
    more = _pair([r_pos[i] for i in left_r], [c_pos[j] for j in left_c], strict=False)
    pairs += [(left_r[i], left_c[j]) for i, j in more]
    pairs.sort()
    matched_r = {i for i, _ in pairs}
    matched_c = {j for _, j in pairs}

    errors: list[RuleError] = []
    for i, j in pairs:
        r, c = r_pos[i], c_pos[j]
        loc = _location_error(r, c)
        sev = _severity_error(r, c)
        if loc:  # a line or tube ending elsewhere is acted on: always significant
            errors.append(_error("c", _matters(r) or _matters(c) or _family(r.concept) == "device", loc, r, c))
        if sev:
            errors.append(_error("d", sev[1], sev[0], r, c))
        if c.change and c.change != r.change:
            if r.change:
                text = (f"candidate describes the {r.name} as {_CHANGE_WORDS[c.change]} compared with the prior "
                        f"study, the reference as {_CHANGE_WORDS[r.change]}")
                sig = _matters(r)  # one side states a real change the other contradicts
            else:
                text = (f"candidate describes the {r.name} as {_CHANGE_WORDS[c.change]} compared with the prior "
                        f"study, the reference makes no comparison for it")
                sig = _matters(c) and c.change != "unchanged"
            errors.append(_error("e", sig, text, r, c))
        elif r.change and not c.change:
            errors.append(_error(
                "f", _matters(r) and r.change != "unchanged",
                f"candidate omits the reference's comparison with the prior study: {r.name} "
                f"{_CHANGE_WORDS[r.change]}", r, c))
        res.matches.append(Match(r, c, "positive", counted=not (loc or sev)))

    for j, c in enumerate(c_pos):
        if j in matched_c:
            continue
        denied = any(_related(n.concept, c.concept) for n in r_neg)
        text = f"candidate reports {c.describe()}, " + (
            "which the reference states is absent" if denied else "which is not in the reference")
        errors.append(_error("a", _matters(c), text, None, c))
    for i, r in enumerate(r_pos):
        if i in matched_r:
            continue
        denied = any(_related(n.concept, r.concept) for n in c_neg)
        text = (f"candidate states there is no {r.name}, the reference reports {r.describe()}" if denied
                else f"candidate omits the reference's {r.describe()}")
        errors.append(_error("b", _matters(r), text, r, None))

    # absent-vs-absent statements of the same observation ("resolved" is a comparison too)
    for r, c in _pair_simple(r_neg, c_neg):
        if c.change == "resolved" and r.change != "resolved":
            errors.append(_error("e", _matters(c), f"candidate states the {r.name} has resolved since the prior "
                                 f"study, the reference only that there is none", r, c))
        elif r.change == "resolved" and c.change != "resolved":
            errors.append(_error("f", _matters(r), f"candidate omits the reference's comparison with the prior "
                                 f"study: {r.name} resolved", r, c))
        res.matches.append(Match(r, c, "negative", counted=True))
    # plain statements with the same words
    r_st = [f for f in ref if f.kind == "statement"]
    c_st = [f for f in cand if f.kind == "statement"]
    used: set[int] = set()
    for r in r_st:
        best, best_j = 0.0, None
        for j, c in enumerate(c_st):
            if j in used:
                continue
            inter = len(r.tokens & c.tokens)
            if not inter:
                continue
            jac = inter / len(r.tokens | c.tokens)
            if jac > best:
                best, best_j = jac, j
        if best_j is not None and best >= 0.6:
            used.add(best_j)
            res.matches.append(Match(r, c_st[best_j], "statement", counted=True))

    order = {c: k for k, c in enumerate(CATEGORIES)}
    errors.sort(key=lambda e: order[e.category])
    res.errors = errors
    n_sig = sum(e.significant for e in errors)
    res.explanation = (
        f"Rules judge {RULES_VERSION}: the reference states {len(r_pos)} positive finding(s) and "
        f"{len(r_neg)} absent finding(s), the candidate {len(c_pos)} and {len(c_neg)}. "
        f"{res.matched} finding(s) matched, {n_sig} clinically significant and {len(errors) - n_sig} "
        f"clinically insignificant error(s). Errors are significant for critical or actionable findings "
        f"(or above their severity or size threshold) and for changes that alter management.")
    return res


def _pair_simple(refs: list[Finding], cands: list[Finding]) -> list[tuple[Finding, Finding]]:
    out, used = [], set()
    for r in refs:
        for j, c in enumerate(cands):
            if j not in used and _related(r.concept, c.concept):
                used.add(j)
                out.append((r, c))
                break
    return out


# --------------------------------------------------------------------------- #
# Public API                                                                    #
# --------------------------------------------------------------------------- #


def clear_caches() -> None:
    """Forget cached report and sentence parses (for benchmarks)."""
    parse_report.cache_clear()
    _analyse_sentence.cache_clear()
    _mask_term.cache_clear()


def judge_pair(reference: str, candidate: str) -> RulesResult:
    """Compare a candidate report with its reference.  Never raises on text input."""
    try:
        ref = parse_report(reference if isinstance(reference, str) else _clean(reference))
        cand = parse_report(candidate if isinstance(candidate, str) else _clean(candidate))
        return _judge(ref, cand)
    except Exception as exc:  # pragma: no cover - defensive: a judge never crashes a run
        return RulesResult(explanation=f"Rules judge {RULES_VERSION}: internal error {type(exc).__name__}")


_UNSAFE = re.compile(r"[;\[\]\n\r]+")


def _safe(text: str) -> str:
    """Error / finding text that cannot be misread by the parser (';' separates items)."""
    text = _UNSAFE.sub(", ", text)
    text = re.sub(r"\(([a-f1-6])\)", r"\1", text)
    return " ".join(text.split()).rstrip(".")


def render_green(result: RulesResult) -> str:
    """The result in GREEN's answer format (GREEN App. A.1), readable by core.parse."""
    lines = ["[Explanation]:", _safe(result.explanation) + ".", ""]
    for title, significant in (("[Clinically Significant Errors]:", True),
                               ("[Clinically Insignificant Errors]:", False)):
        lines.append(title)
        for cat in CATEGORIES:
            texts = [_safe(e.explanation) for e in result.errors
                     if e.category == cat and e.significant == significant]
            line = f"({cat}) {CATEGORY_LABELS[cat]}: {len(texts)}."
            if texts:
                line += " " + "; ".join(texts) + "."
            lines.append(line)
        lines.append("")
    matched = [_safe(m.reference.describe()) for m in result.matches if m.counted]
    lines.append("[Matched Findings]:")
    lines.append(f"{len(matched)}." + (" " + "; ".join(matched) + "." if matched else ""))
    return "\n".join(lines)


def score_pair(reference: str, candidate: str) -> OutputRecord:
    """One offline-runner record: GREEN-format text; metrics are parsed from it."""
    return OutputRecord(pair_id="", raw_text=render_green(judge_pair(reference, candidate)), metrics=None)


def spec_for(dataset: str) -> RunSpec:
    return RunSpec("rules", "rules", dataset, params={"version": RULES_VERSION})
