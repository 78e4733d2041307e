"""Compiled regular expressions of the rules judge, built once from :mod:`.vocab`.

Observation terms are found by :class:`Scanner`, which dispatches each word
start to the few terms beginning with its letter (rather than one 400-way
alternation); the same scanner reads anatomic sites and the cue phrases of
negation, hedging and comparison (and the locale packs of :mod:`core.checks`
use it for their finding vocabularies).  ``bench/bench_rules.py`` measures the
judge's speed.
"""

from __future__ import annotations

import re

from core.judges.rules import vocab as V

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


class Scanner:
    """Finds terms, leftmost first, the earlier item winning at a position.

    Equivalent to ``finditer`` of one ``\\b(?:term|term|...)\\b`` alternation
    over every term in priority order, but Python's regex engine would try
    all ~400 alternatives at every word start.  Here each word start only
    tries the terms that can begin with its first character.
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
SCANNER = Scanner([(c, c.terms) for c in _ORDERED])
NORMAL_RES = [(re.compile(r"\b(?:" + anat + r")\s+" + r"(?:" + V.NORMAL_PREDICATE + r")\b", _I), keys)
               for anat, keys in V.NORMAL_ANATOMY]
NORMAL_PREFIX_RES = [(re.compile(V.NORMAL_PREFIX + r"(?:" + anat + r")\b", _I), keys)
                      for anat, keys in V.NORMAL_ANATOMY]
NORMAL_HINT = re.compile(r"\b(?:normal|unremarkable|intact|clear|sharp|not\s+(?:enlarged|dilated))\b", _I)
ABNORMAL = re.compile(r"\babnormal", _I)
# Cue phrases, earlier kinds winning at a position (see _analyse_sentence).
CUE_SCANNER = Scanner(
    [(("change", name), (f"(?:{p})",)) for name, p in V.CHANGES]
    + [(("hedge", (name, direction)), (f"(?:{p})",)) for name, direction, p in V.HEDGES]
    + [(("limit_post", ""), (f"(?:{V.LIMIT_POST})",)), (("limit_pre", ""), (f"(?:{V.LIMIT_PRE})",)),
       (("history", ""), (f"(?:{V.HISTORY})",)), (("post_normal", ""), (f"(?:{V.POST_NORMAL})",))]
    + [(("prior", ""), (f"(?:{V.PRIOR_OBJECT})",)), (("post", ""), (f"(?:{V.POST_NEGATION})",)),
       (("pre", ""), (f"(?:{V.PRE_NEGATION})",)), (("stop", ""), (f"(?:{V.NEGATION_STOP})",)),
       (("temporal", ""), (f"(?:{V.TEMPORAL})",))])
SIDE_RE = re.compile(
    r"\b(?:(?P<para>(?:left|right)\s+paracentral)|(?P<central>paracentral|central)"
    r"|(?P<bi>bilateral(?:ly)?|both\s+(?:sides|lungs?|(?:lung\s+)?bases|apices|hila|hemithoraces|(?:peri)?hilar|lower|"
    r"upper|mid|costophrenic)|bibasilar|bilaterally)|(?P<lr>left|right)(?:-sided)?)\b", _I)
SIDE_HINT = re.compile(r"left|right|bilat|central|both|bibasilar")
DIGIT = re.compile(r"\d")
SIDE_WORD = re.compile(r"\b(?:left|right|bilateral(?:ly)?)\b", _I)


def _site_alt(cls: str, pat: str) -> str:
    if cls == "spine level":
        # upper-case only: "T2 hyperintense" is an MRI sequence, not a vertebra
        return f"(?-i:{pat})" + r"\b(?!\s*-?\s*(?:weighted|hyper|hypo|signal|flair|\*|star))"
    return pat


# At a given position the earlier class wins ("right upper lobe" is a lung
# lobe, not a thyroid "right lobe").
SITE_SCANNER = Scanner([(cls, (_site_alt(cls, pat),)) for cls, pat in V.SITE_CLASSES])
SITE_ORDER = {cls: i for i, (cls, _) in enumerate(V.SITE_CLASSES)}
SCALE_RES = {
    name: re.compile("|".join(f"(?P<l{i}>{_alt(p)})" for i, (p, _) in enumerate(levels)), _I)
    for name, levels in V.SCALES.items()
}
SCALE_LEVELS = {name: [lvl for _, lvl in levels] for name, levels in V.SCALES.items()}
TIRADS_RE = re.compile(r"\b(?:ACR\s+)?(?:TI-?\s?RADS|TR)\s*-?\s*(?:category\s+)?(\d)\b", _I)
GRADE_RE = re.compile(r"\bgrade\s+(\d|IV|III|II|I)\b(?!-)", _I)
PCT_RE = re.compile(
    r"(?P<lt>\b(?:less\s+than|under|below)\s+|<\s*)?(?P<gt>\b(?:greater\s+than|more\s+than|over|above)\s+|>\s*)?"
    r"(?P<a>\d{1,3})(?:\s*%?\s*(?:-|to|–)\s*(?P<b>\d{1,3}))?\s*%", _I)
OCCLUSION = re.compile(r"\b(?:occlu(?:ded|sion)|occlusive)\b", _I)
SIZE_RE = re.compile(
    r"(?<![\w.])(?P<n>\d+(?:\.\d+)?(?:\s*(?:x|×|by)\s*\d+(?:\.\d+)?){0,2})\s*-?\s*"
    r"(?P<u>mm|cm|millimet(?:er|re)s?|centimet(?:er|re)s?)\b", _I)
NUM_RE = re.compile(r"\d+(?:\.\d+)?")
DATE_RE = re.compile(
    r"\b(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{1,2}-\d{1,2}|" + V.MONTHS +
    r"\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}\s+" + V.MONTHS + r"\.?,?\s+\d{4}|" + V.MONTHS +
    r"\.?\s+\d{4})\b", _I)
BLOCK_TAG_RE = re.compile(r"<\s*/?\s*(?:p|br|div|li|ul|ol|tr|td|th|table|h[1-6]|section|article|pre)\b[^>]{0,500}>",
                           _I)
TAG_RE = re.compile(r"<[^>]{0,500}>")
SCRIPT_RE = re.compile(r"<\s*(script|style)\b.*?<\s*/\s*\1\s*>", _I | re.S)
CTRL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u2028\u2029\ufeff]")
_ALL_HEADERS = sorted(set(V.FINDING_SECTIONS) | set(V.OTHER_SECTIONS), key=len, reverse=True)
HEADER_RE = re.compile(
    r"(?:^|(?<=[\s.]))(?P<h>" + "|".join(h.replace(" ", r"\s+") for h in _ALL_HEADERS) + r")\s*:", _I | re.M)
BARE_HEADER_RE = re.compile(r"^[ \t]*(?P<h>FINDINGS|IMPRESSION|CONCLUSIONS?|EXAMINATION|COMPARISON|INDICATION|"
                             r"HISTORY|TECHNIQUE|CLINICAL HISTORY|RECOMMENDATIONS?)[ \t]*$", re.M)
SENT_RE = re.compile(r"(?<=[.!?])\s+(?=\S)|\s*;\s+|\n\s*(?=(?:\d{1,2}[.)]\s|[-*•]\s|[A-Z0-9]))|\n\s*\n")
# "IMPRESSION: 1. A. 2. B." -- list numbers after a header or a full stop
INLINE_LIST = re.compile(r"(?:^|(?<=\n)|(?<=[.:]\s)|(?<=[.:]))[ \t]*\d{1,2}[.)]\s+(?=[A-Za-z0-9])")
LIST_MARK = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•·])\s+")
ABBREV_END = re.compile(r"\b(?:dr|vs|approx|e\.g|i\.e|cf|mr|mrs|ms|fig|st|resp|incl|pt|pts|hx|sq|ca|etc)\.$", _I)
# evidence chains ("volume loss, evidenced by elevation of the right hemidiaphragm") separate findings too
SEP_RE = re.compile(r"\s*(?:,\s*(?:and|or|with|but)?|;)\s*|\s+(?:and|or|nor|with|as\s+well\s+as|but|while|"
                     r"whereas|plus|along\s+with|(?:as\s+)?(?:evidenced|demonstrated|manifested|characterized|"
                     r"indicated)\s+by|in\s+keeping\s+with|consistent\s+with|due\s+to|secondary\s+to|related\s+to|"
                     r"reflecting|representing)\s+", _I)
OR_SEP = re.compile(r"^\s*(?:,\s*(?:or|nor)?|(?:or|nor))\s*$", _I)
#: A history cue read as the image's finding ("consistent with the known COPD")
#: ("the density corresponds to the patient's known hernia": the reading of what is seen, possessive or not)
READING_BEFORE = re.compile(r"(?:(?:consistent|compatible|in\s+keeping)\s+with|suggest(?:ive\s+of|ing|s)|"
                            r"correspond(?:s|ing)?\s+to|represent(?:s|ing)?|reflect(?:s|ing)?|(?:due|secondary)\s+to)"
                            r"\s+(?:the\s+|a\s+|his\s+|her\s+|their\s+)?(?:patient'?s\s+)?(?:(?:history\s+of|known)\s+)?$", _I)
#: Words that join a density word to its reading ("opacity, likely atelectasis": one finding)
READING = re.compile(r"\b(?:(?:most\s+)?likely|probably|possibly|presumably|suspicious\s+for|concerning\s+for|suggestive\s+of|"
                     r"suggesting|suggests?|compatible\s+with|consistent\s+with|in\s+keeping\s+with|(?:may|might|could)\s+"
                     r"(?:represent|reflect|be)|representing|reflecting|favou?r(?:ing|s)?|due\s+to|related\s+to|"
                     r"secondary\s+to|which\s+(?:is|are|may\s+be)|represents?|reflects?|indicat(?:es?|ing)|versus|vs|"
                     r"(?:which\s+(?:xxxx\s+)?)?correspond(?:s|ing)?\s+to)\b", _I)
#: Words of a density or a sign described rather than named ("airspace opacities", "hilar prominence", "patchy
#: airspace disease")
DESCRIPTOR = re.compile(r"opacit|opacif|densit|lucen|haz[ey]|prominen|fullness|enlarg|blunt|markings|shadow|"
                        r"nodular|round|circular|air\s*space", _I)
#: Alternatives offered for one observation ("atelectasis versus scarring", "effusion or pleural thickening")
VERSUS = re.compile(r"\b(?:versus|vs)\b", _I)
#: "are stable as are calcified nodes": the comparison covers the next finding too
AS_ARE = re.compile(r"\s*,?\s*as\s+(?:are|is|were|was)\b", _I)
#: "volumes are mildly decreased": a predicate that describes, not a comparison (without a temporal cue)
COPULA_BEFORE = re.compile(r"\b(?:is|are|appears?|remains?)\s+(?:\w+ly\s+)?$", _I)
WEAK_CHANGE_RE = re.compile(V.WEAK_CHANGE, _I)
#: a change word used as an adjective of the noun after it ("with increased interstitial opacities",
#: "increased retrosternal airspace"): a description, not a comparison, unless the sentence names the past
ADJECTIVE_AFTER = re.compile(r"\s+(?!(?:in|on|since|from|compared|than|and|or|to|at|over|when|relative|with|by|"
                             r"but|of|further|somewhat|\w+ly)\b)[a-z]", _I)
#: a comparison word followed by the anatomy it describes ("unchanged cardiomediastinal silhouette")
CHANGE_OF_ANATOMY = re.compile(r"\s+(?![A-Z])(?!(?i:in|of|from|since)\b)(?:\w+\s+)?(?i:appearance\s+of\s+the\s+)?"
                               r"(?i:cardiomediastinal|silhouettes?|"
                               r"mediastin\w*|heart|lungs?|contours?|chest)\b")
#: The anatomy a comparison is stated on, described with a finding ("stable contours with a tortuous aorta")
MEDIASTINUM = re.compile(r"mediastin|silhouette|contour", _I)
NEXT_WORDS = re.compile(r"\s+(?:[a-z]+\s+){0,2}", _I)  # "with a mildly tortuous aorta", not past a comma
WITH_AFTER = re.compile(r"(?:\s+(?:contours?|silhouettes?|structures|size))?\s+with\b", _I)
#: Alternatives offered for one observation: "A or B", "A versus B", "A/B" (the dictated slash)
ALTERNATIVE = re.compile(r"^\s*(?:(?:,\s*)?(?:or|versus|vs\.?)\s+|\s*/\s*)(?:[a-z-]+\s+){0,2}$", _I)
SLASH = re.compile(r"^\s*/")
CLAUSE_WORD = re.compile(r"\b(?:is|are|was|were|be|been|has|have|shows?|demonstrates?|noted|seen|there)\b", _I)
AND_OR_SEP = re.compile(r"^\s*(?:,\s*(?:or|nor|and)?|(?:or|nor|and))\s*$", _I)
#: A negation limited to other places ("no infiltrate elsewhere", "no other nodule", "otherwise no opacity") says
#: nothing of the finding just stated.
ELSEWHERE = re.compile(r"\b(?:elsewhere|otherwise|no\s+(?:other|additional|further)|nor\s+(?:other|additional))\b", _I)
#: "lungs are clear airspace disease": the dictation of "clear of airspace disease", a negation.
CLEAR_BEFORE = re.compile(r"\bclear\s+(?:of\s+)?(?:(?:any|focal|acute|active)\s+)?$", _I)
#: A comparison inside a condition is advice, not a change since a prior study ("CT if symptoms persist").
CONDITIONAL = re.compile(r"\b(?:if|should|unless|until|in\s+case)\s+(?:[\w-]+\s+){0,4}$", _I)
#: A sentence whose subject points back at the sentence before ("These are also unchanged.").
ANAPHOR = re.compile(r"(?:these|this|it|they|both|all|the\s+(?:(?:above\s+)?findings?|appearances?|abnormalit(?:y|ies)|"
                     r"changes?|opacit(?:y|ies)|lesions?))\b", _I)
#: A post-position cue with a plural verb ("are not seen", "were absent", "cannot be assessed" is not plural)
PLURAL_CUE = re.compile(r"(?:are|were|have)\b", _I)
WORD_RE = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOP = frozenset("""a an the is are was were be been of in on at to for with and or no not there this that these
those it its as by from seen noted identified present evidence which has have had also again""".split())
ADJ = {"mildly": "mild", "moderately": "moderate", "severely": "severe", "markedly": "marked",
        "minimally": "minimal", "slightly": "slight"}
ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8}
#: A heading naming a body part outside the chest ("Right knee:", "Pelvis:") opens the report of another study,
#: whose findings are not the chest's; a chest heading ("Chest:", "Chest X-ray:") goes back to the chest
OTHER_PART = re.compile(r"(?:(?:right|left|bilateral)\s+)?(?:knees?|hips?|ankles?|feet|foot|hands?|wrists?|elbows?|"
                        r"forearms?|femurs?|tibias?|fibulas?|tibia\s+and\s+fibula|pelvis|skull|head|sinuses|"
                        r"lumbar\s+spine|sacrum|(?:upper|lower)\s+(?:limbs?|extremit(?:y|ies)))"
                        r"(?:\s+(?:x-?rays?|radiographs?|series|views?))?\s*:", _I)
CHEST_PART = re.compile(r"(?:chest|thorax)(?:\s+(?:x-?rays?|radiographs?|film|views?))?\s*:", _I)
#: A change word that compares the two sides of this study ("more extensive on the left than on the right",
#: "worse on the right than the left", "larger than the contralateral one") is no comparison with a prior study
SIDE_COMPARISON = re.compile(r"\s+(?:(?:on|in|at|within)\s+the\s+(?:right|left)(?:\s+(?:side|lung|base|hemithorax|apex))?\s+)?"
                             r"than\s+(?:on\s+|in\s+|at\s+|within\s+)?(?:the\s+|that\s+on\s+the\s+)?(?:right|left|"
                             r"contralateral|other\s+side|opposite)\b", _I)
#: ... and so is one that places the change at a side with nothing temporal in the sentence ("worse on the left")
SIDE_PLACED = re.compile(r"\s+(?:on|in|at)\s+the\s+(?:right|left)(?:\s+(?:side|lung|base|hemithorax))?\s*(?:[,.;)]|$)", _I)
#: A contrast word: a limit after it has a subject of its own ("X, although the abdomen is not well evaluated")
CONTRAST = re.compile(r"(?:but|however|although|though|whereas|while|yet)\b", _I)
#: The exception a normal statement makes ("clear bilaterally apart from X at the right base"): what the normal
#: statement before it says (its side, its grade) is not said of X
EXCEPTION = re.compile(r"\b(?:apart\s+from|aside\s+from|except(?:\s+for)?|other\s+than|save\s+for|"
                       r"with\s+the\s+exception\s+of)\b", _I)
