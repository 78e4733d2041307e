"""British and Commonwealth report wording, read in the judge's own (American) words.

Report generators trained on British, Australian or New Zealand reports write "oedema", "haemorrhage",
"calibre", "visualised", "tumour", "CP angles clear", "CTR < 0.5", "? infection" and zone and tube
abbreviations. The judge's vocabulary (:mod:`core.judges.rules.vocab` and its siblings) is written in American
spelling, so :func:`normalise` rewrites a report's text before it is parsed (it is called at the end of
:func:`core.judges.rules.extract.clean_text`). Two rule families:

* **Spelling.** A word written with a British digraph ("ae"/"oe" for the American "e": oedema, haem-,
  anaemia, paediatric, foetal, oesophagus), "-our" ("tumour"), "-tre"/"-bre" ("centre", "centred",
  "calibre", "fibre"), "-ise"/"-yse" ("visualised", "localisation", "analyse") or "grey" is rewritten when
  the American form, or a word it begins with, is a word the judge knows: the words of every pattern of the
  judge's vocabulary and cue lists, gathered once from those modules (so a term added there is covered
  without a list here), plus a short list of common words of reports the patterns do not spell out.
  A British word whose American form the judge does not know is left alone, as is every American word.
* **UK report abbreviations and idioms.** "CP angle(s)" (costophrenic), "CTR" (cardiothoracic ratio: a
  ratio above 0.5 states an enlarged heart, below it a normal heart size, unless the sentence already says
  what the heart is), zones ("RLZ", "left mid zone": a lower zone is the lung base, a mid zone the mid lung),
  lobes ("RUL"), "basal" (basilar), "CVC", an intercostal drain ("ICC", "chest drain", and "ICD" where the
  sentence speaks of a drain, an underwater seal or an empyema and not of leads, a generator or a chest-wall
  pocket) as a chest tube, and a question
  mark before a finding ("? small effusion") as a hedge: "possible small effusion".

The rewrite keeps the report's sentences and sections as they are; a word's case is kept (first letter or the
whole word in capitals).
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from functools import lru_cache

#: the modules whose patterns hold the judge's words (read once, on first use: they import the parser)
VOCAB_MODULES = ("vocab", "vocab_chest", "vocab_scales", "patterns", "scope", "screen")

#: American words of reports that the patterns do not spell out but the judge compares as statement words
COMMON_WORDS = frozenset("""
    anemia anemic anesthesia anesthetic center centered centers centimeter centimeters caliber calibers
    color colored edema edematous esophagus esophageal esophagectomy etiology fetal fetus fiber fibers
    gray grayish hematoma hemorrhage hemorrhagic hemothorax hemoptysis hemidiaphragm hemidiaphragms
    ischemia ischemic leukemia liter liters localized localization meter millimeter millimeters
    orthopedic pediatric recognized characterized visualized visualization minimized organized
    generalized hospitalized tumor tumors tumoral behavior favorable labor diarrhea dyspnea apnea
    hypoxemia septicemia oligemia hyperemia celiac cecum estrogen hemangioma analyze analyzed paralyzed
    neighboring
""".split())

#: where a British spelling may be (the word around each is looked up)
_MARKERS = ("ae", "oe", "our", "tre", "bre", "ise", "isi", "isa", "yse", "ysi", "ysa", "grey")
_TRE = re.compile(r"(.*[tb])re(s|d)?$")
_IZE_ENDINGS = ("e", "ed", "es", "ing", "ation", "ations")
#: letter runs longer than this are not words (no medical word is): they are left alone, since every reading of a
#: word costs memory in the square of its length
LONGEST_WORD = 40


def _strings(value: object, out: list[str], depth: int = 0) -> None:
    """Every string held by a module-level value: strings, compiled patterns, containers, dataclasses."""
    if depth > 4:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, re.Pattern):
        out.append(value.pattern)
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(k, out, depth + 1)
            _strings(v, out, depth + 1)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for v in value:
            _strings(v, out, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _strings(getattr(value, f.name), out, depth + 1)


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """The judge's own words (letter runs of four or more in its patterns), lower case, plus COMMON_WORDS.

    Module attributes with dunder names (``__doc__``, ``__file__`` ...) are skipped, so the list does not
    depend on docstrings or on where the checkout lives.
    """
    texts: list[str] = []
    for name in VOCAB_MODULES:
        module = importlib.import_module(f"core.judges.rules.{name}")
        for name_, value in vars(module).items():
            if not name_.startswith("__"):  # not the docstring, file path or module name
                _strings(value, texts)
    words = {w.lower() for t in texts for w in re.findall(r"[A-Za-z]{4,}", t)}
    return frozenset(words | COMMON_WORDS)


@lru_cache(maxsize=1)
def known_stems() -> frozenset[str]:
    """Every beginning of six letters or more of a known word ("esophag" of "esophagus")."""
    return frozenset(w[:k] for w in known_words() for k in range(6, len(w) + 1))


def _known(american: str, changed_at: int, words: frozenset[str]) -> bool:
    """Whether ``american`` is a known word, or begins as one does for four letters past the changed one
    ("esophagitis" as "esophagus")."""
    if american in words:
        return True
    k = max(changed_at + 4, 6)
    return len(american) >= k and american[:k] in known_stems()


def _edits(w: str) -> list[tuple[str, int]]:
    """American readings of the lower-case word ``w``, each with where it differs."""
    out: list[tuple[str, int]] = []
    if w.startswith("grey"):
        out.append(("gray" + w[4:], 2))
    for i in range(len(w) - 1):
        pair = w[i:i + 2]
        if pair in ("ae", "oe") and not (pair == "ae" and i == len(w) - 2):  # not a Latin plural ("spinae")
            out.append((w[:i] + w[i + 1:], i))
        elif pair in ("is", "ys") and w[i + 2:] in _IZE_ENDINGS:
            out.append((w[:i + 1] + "z" + w[i + 2:], i + 1))
        if w[i:i + 3] == "our" and i >= 2:
            out.append((w[:i + 1] + w[i + 2:], i + 1))
    m = _TRE.match(w)
    if m:
        stem, end = m.group(1), m.group(2) or ""
        out.append((stem + "er" + ("ed" if end == "d" else end), len(stem)))
    return out


def _cased(like: str, word: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def american(word: str) -> str:
    """``word`` in the judge's American spelling when it is a British spelling of a word the judge knows.

    A letter run longer than :data:`LONGEST_WORD` is returned as it is (and not cached).
    """
    if len(word) > LONGEST_WORD:
        return word
    return _american(word)


@lru_cache(maxsize=4096)
def _american(word: str) -> str:
    words = known_words()
    low = word.lower()
    if low in words:
        return word
    for _ in range(3):  # a word may carry two British spellings ("haemorrhagic tumour" has one each)
        for candidate, at in _edits(low):
            if _known(candidate, at, words):
                low = candidate
                break
        else:
            break
    return word if low == word.lower() else _cased(word, low)


# --------------------------------------------------------------------------- #
# UK report abbreviations and idioms                                           #
# --------------------------------------------------------------------------- #

_I = re.IGNORECASE
_CP = re.compile(r"\bCP\s+(angles?|recess(?:es)?|sulc(?:us|i))\b|\bCPA(s?)\b")
_SIDE = {"R": "right", "L": "left"}
_LEVEL = {"U": "upper", "M": "mid", "L": "lower"}
_ZONE_ABBREV = re.compile(r"\b([RL])?([ULM])Z\b")
_LOBE_ABBREV = re.compile(r"\b([RL])([UML])L\b")
_LOBE = {"U": "upper", "M": "middle", "L": "lower"}
# the British "right lower zone" is the lung base and "mid zone" the mid lung, as American reports name them; the
# upper zone is wider than the apex, so it is read as the upper lung, a place the judge does not compare
_ZONE = re.compile(r"\b(lower|mid|middle|upper)(?:\s+|-)zone(s?)\b", _I)  # not the American "lower lung zone"
_ZONE_AS = {"lower": "base", "mid": "mid lung", "middle": "mid lung", "upper": "upper lung"}
_BASAL = re.compile(r"\b(bi)?basal\b(?!\s+(?:ganglia|cells?|cisterns?|skull|metabolic|view))", _I)
_CVC = re.compile(r"\bCVCs?\b")
_DRAIN = re.compile(r"\b(?:ICC|intercostal\s+(?:chest\s+)?(?:drain|catheter|tube)|chest\s+drain|"
                    r"under\s*-?water\s+seal(?:ed)?\s+drain)(s?)\b", _I)
_ICD = re.compile(r"\bICD(s?)\b")
# "ICD" is a chest drain in British and Australian reports and a defibrillator in American ones: it is read as a
# chest tube only beside words of a drain; a pneumothorax, an effusion or a lung apex is said beside either
_DEVICE_CUES = re.compile(r"\blead|\bgenerator|\bpac(?:ing|er|emaker)|\bdefibrillat|\bventric|\batri(?:um|al)|"
                          r"\bcardiac\s+device|\bchest\s+wall|\bsubclavian|\bpectoral|\bpocket|\bchamber|"
                          r"\bbatter(?:y|ies)", _I)
_DRAIN_CUES = re.compile(r"\bdrain|\bintercostal|\bchest\s+tube|\bunder\s*-?water\s+seal|\bempyema", _I)
# a question mark before a finding, at the start of a clause: "? small effusion", "(?infection)", "? TB"
_QUERY = re.compile(r"(?:^|(?<=[\s(,:;*]))\?\s*(?=[A-Za-z])", re.M)
_CTR = re.compile(r"\b(?:CTR|cardiothoracic\s+ratio)\b(?:\s+(?:is|of|now|measures?|measuring|approximately|"
                  r"approx\.?|about|around|roughly|~|=|:))*\s*(?P<cmp><|>|≤|≥|<=|>=|less\s+than|greater\s+than|"
                  r"more\s+than|under|over|below|above)?\s*(?P<val>0?\.\d+|\d{2}(?:\.\d+)?\s*%)?", _I)
_HEART = re.compile(r"\b(?:heart|cardiac|cardiomegaly|cardiomediastinal|silhouette)\b", _I)
_CLAUSE_ENDS = ".;\n"
#: how far around a match its sentence is looked for, each way: a sentence is shorter, and a text with no
#: full stop must not make every match read the whole text
SENTENCE_REACH = 300


def _sentence_around(text: str, a: int, b: int) -> str:
    """The clause around ``text[a:b]`` (between ``.``, ``;`` or a line break), at most SENTENCE_REACH
    characters each side of it."""
    low, high = max(0, a - SENTENCE_REACH), min(len(text), b + SENTENCE_REACH)
    start = max(low, max(text.rfind(c, low, a) for c in _CLAUSE_ENDS) + 1)
    ends = [i for i in (text.find(c, b, high) for c in _CLAUSE_ENDS) if i >= 0]
    return text[start:min(ends, default=high)]


def _ctr(text: str) -> str:
    def read(m: re.Match) -> str:
        said = m.group(0)
        expanded = re.sub(r"\bCTR\b", "cardiothoracic ratio", said)
        value = m.group("val")
        if value is None or _HEART.search(_sentence_around(text, m.start(), m.end())):
            return expanded  # the sentence says what the heart is: the ratio measures that finding
        ratio = float(value.rstrip("% ")) / 100 if "%" in value else float(value)
        cmp = (m.group("cmp") or "").lower()
        if cmp[:1] in ("<", "≤", "l", "u", "b"):
            enlarged = False if ratio <= 0.5 else None
        elif cmp:
            enlarged = True if ratio >= 0.5 else None
        else:
            enlarged = None if ratio == 0.5 else ratio > 0.5
        if enlarged is None:
            return expanded
        return ("enlarged heart, " if enlarged else "heart size is normal, ") + expanded

    return _CTR.sub(read, text)


def _icd(text: str) -> str:
    def read(m: re.Match) -> str:
        around = _sentence_around(text, m.start(), m.end())
        if _DEVICE_CUES.search(around) or not _DRAIN_CUES.search(around):
            return m.group(0)  # a defibrillator, or nothing says otherwise
        return "chest tube" + m.group(1)

    return _ICD.sub(read, text)


def _abbreviations(text: str) -> str:
    low = text.lower()  # each rule runs only where its words are (most reports hold none)
    if "CP" in text:
        text = _CP.sub(lambda m: "costophrenic " + (m.group(1) or "angle" + m.group(2)), text)
    zones = "zone" in low
    if "Z" in text:
        zones = True
        text = _ZONE_ABBREV.sub(lambda m: (_SIDE[m.group(1)] + " " if m.group(1) else "") + _LEVEL[m.group(2)]
                                + " zone", text)
    if "UL" in text or "ML" in text or "LL" in text:
        text = _LOBE_ABBREV.sub(lambda m: f"{_SIDE[m.group(1)]} {_LOBE[m.group(2)]} lobe", text)
    if zones:
        text = _ZONE.sub(lambda m: _ZONE_AS[m.group(1).lower()] + ("s" if m.group(2) and m.group(1).lower() == "lower"
                                                                     else ""), text)
    if "basal" in low:
        text = _BASAL.sub(lambda m: ("bibasilar" if m.group(1) else "basilar"), text)
    if "CVC" in text:
        text = _CVC.sub(lambda m: "central venous catheter" + m.group(0)[3:], text)
    if "ICC" in text or "drain" in low:
        text = _DRAIN.sub(lambda m: "chest tube" + m.group(1), text)
    if "ICD" in text:
        text = _icd(text)
    if "?" in text:
        text = _QUERY.sub("possible ", text)
    if "CTR" in text or "ratio" in low:
        text = _ctr(text)
    return text


def _spelling(text: str) -> str:
    low = text.lower()
    words: set[tuple[int, int]] = set()
    for marker in _MARKERS:  # plain substring search: much faster than one regex over the text
        at = low.find(marker)
        while at >= 0:
            start, end = at, at + len(marker)
            while start > 0 and low[start - 1].isalpha():
                start -= 1
            while end < len(low) and low[end].isalpha():
                end += 1
            if end - start <= LONGEST_WORD:
                words.add((start, end))
            at = low.find(marker, end)
    out: list[str] = []
    last = 0
    for start, end in sorted(words):
        word = text[start:end]
        new = american(word)
        if new != word:
            out += (text[last:start], new)
            last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def clear_caches() -> None:
    """Forget the per-word spelling cache (the word list, built once from the vocabulary, is kept)."""
    _american.cache_clear()


def normalise(text: str) -> str:
    """``text`` with British spellings of known words and UK report abbreviations in the judge's wording."""
    if not text:
        return text
    return _abbreviations(_spelling(text))
