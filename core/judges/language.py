"""Which language a report is written in, and which languages each judge can read.

A judge that cannot read a report must say so instead of scoring it: the rules
judge finds nothing it knows in a French report, and "nothing found" looks
like a perfect report. So each offline judge declares the languages it reads
(:data:`SUPPORTED`, :func:`languages_of`), and :func:`unsupported` gives the
reason to record as a failure (no score) when a reference or candidate is in
another language. Model judges read any language: they are not checked.

Detection (:func:`detect`), in this order, on the text with IU-style
de-identification runs (``XXXX``) removed:

1. no letters at all: no language (nothing to read; the rules judge calls it
   "not a report");
2. most letters outside the Latin alphabet (Chinese, Cyrillic, Arabic, ...):
   the language the detector names;
3. only ASCII letters and at least one English word of :data:`ENGLISH_WORDS`
   (function words, and report words other languages spell differently):
   English, without asking the detector (the common case, and fast);
4. otherwise the detector (``lingua-language-detector``, high-accuracy mode,
   limited to :data:`DETECTED`): English if it says English; the language it
   names if the text has accented Latin letters (English reports have none);
   English if the text has a word of :data:`ENGLISH_WORDS`; the language it
   names if it is at least :data:`MIN_CONFIDENCE` sure and the text has at
   least :data:`MIN_WORDS` words; else English.

The last rule is the documented limit: on one or two unaccented words
("Pneumothorax droit.", "Kein Pneumothorax.") no detector is reliable, and
medical English looks Latin or French to a detector (on the IU reports with all
75 languages, lingua calls 130 of 3,425 whole English reports Latin), so such
text is read as English. Short English reports ("No acute disease.",
"Cardiomegaly.", "Negative chest x-XXXX.") are therefore never refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from core.judges.runs import OutputRecord

__all__ = ["DETECTED", "DETECTOR", "ENGLISH_WORDS", "MIN_CONFIDENCE", "MIN_WORDS", "MODELS", "SUPPORTED",
           "Detection", "Support", "detect", "language_name", "languages_of", "support_of", "unsupported"]

DETECTOR = "lingua-language-detector 2.1.1"
MIN_CONFIDENCE = 0.6
MIN_WORDS = 3

# The languages the detector chooses among: English and the languages radiology reports are most often
# written in besides it. Fewer languages load faster and confuse medical English less (no Latin).
DETECTED = ("en", "fr", "de", "es", "pt", "it", "nl", "ru", "el", "zh", "ja", "ko", "ar", "he", "th")
_NAMES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish", "pt": "Portuguese",
          "it": "Italian", "nl": "Dutch", "ru": "Russian", "el": "Greek", "zh": "Chinese", "ja": "Japanese",
          "ko": "Korean", "ar": "Arabic", "he": "Hebrew", "th": "Thai"}

# English words that French, German, Spanish, Portuguese and Italian reports do not use ("no", "a", "in"
# and "normal" are left out: those languages use them too). Dutch also writes "is" and "of".
ENGLISH_WORDS = frozenset((
    "the is are was were be been there this these those of and with without or to for at by from which not "
    "any seen noted identified evidence left right lung lungs heart chest size clear small large mild acute "
    "disease findings impression unchanged within limits negative effusion effusions opacity opacities "
    "airspace air calcified atelectasis cardiomegaly granulomatous enlarged bony osseous "
    # report words the other detected languages spell otherwise (fr "hilaire", de "Wirbelsäule", "Kontur"),
    # so that medical English without function words ("stable hilar contours. no pneumothorax.") is not
    # taken for French by the detector (it said French, 0.63, there)
    "hilar contours spine changes lower upper").split())

_DEIDENTIFIED = re.compile(r"\bX{2,}\b")
_WORD = re.compile(r"[^\W\d_]+")


def language_name(code: str | None) -> str:
    return _NAMES.get(code or "", code or "no language")


@dataclass(frozen=True)
class Detection:
    code: str | None  # ISO 639-1, None: no letters
    confidence: float | None  # the detector's, None when it was not asked
    how: str  # which rule decided (see the module docstring)

    @property
    def name(self) -> str:
        return language_name(self.code)


@lru_cache(maxsize=1)
def _detector():
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    codes = [getattr(IsoCode639_1, c.upper()) for c in DETECTED]
    return LanguageDetectorBuilder.from_iso_codes_639_1(*codes).build()


def _ask(text: str) -> tuple[str, float]:
    values = _detector().compute_language_confidence_values(text)
    if not values:
        return "en", 0.0
    top = values[0]
    return top.language.iso_code_639_1.name.lower(), float(top.value)


def _latin(ch: str) -> bool:
    return ch.isascii() or "\u00c0" <= ch <= "\u024f" or "\u1e00" <= ch <= "\u1eff"


@lru_cache(maxsize=8192)
def detect(text: str) -> Detection:
    """The language of ``text`` by the rules of the module docstring (cached per text)."""
    text = _DEIDENTIFIED.sub(" ", str(text or ""))
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return Detection(None, None, "no letters")
    words = _WORD.findall(text.lower())
    english_word = any(w in ENGLISH_WORDS for w in words)
    if sum(not _latin(ch) for ch in letters) * 2 > len(letters):
        code, conf = _ask(text)
        return Detection(code, conf, "script")
    accented = any(not ch.isascii() for ch in letters)
    if not accented and english_word:
        return Detection("en", None, "English words")
    code, conf = _ask(text)
    if code == "en":
        return Detection("en", conf, "detector")
    if accented:
        return Detection(code, conf, "detector, accented letters")
    if english_word:
        return Detection("en", conf, "English words")
    if conf >= MIN_CONFIDENCE and len(words) >= MIN_WORDS:
        return Detection(code, conf, "detector")
    return Detection("en", conf, "too short to tell")


# -- what each judge reads -----------------------------------------------------------


@dataclass(frozen=True)
class Support:
    """The languages a judge reads: ``languages`` (None: any) minus ``excluded``."""

    languages: tuple[str, ...] | None
    excluded: tuple[str, ...] = ()
    why: str = ""

    def reads(self, code: str | None) -> bool:
        if code is None:  # no letters: no language to refuse
            return True
        return (self.languages is None or code in self.languages) and code not in self.excluded

    def describe(self) -> str:
        if self.languages is None and not self.excluded:
            return "any language (not checked)"
        if self.languages is None:
            return "any language written with spaces between words (not " + \
                ", ".join(language_name(c) for c in self.excluded) + ")"
        return " and ".join(language_name(c) for c in self.languages) + " only"


SUPPORTED: dict[str, Support] = {
    "rules": Support(("en",), why="its vocabulary, negation cues and patterns are English"),
    "lexical": Support(("en",), why="ROUGE-L's tokenizer keeps only a-z and 0-9 (accented words are cut, "
                                     "Chinese or Cyrillic text has no token), and the published lexical "
                                     "baselines are English"),
    "length": Support(None, ("zh", "ja", "th"), why="it counts words as runs between spaces; Chinese, Japanese "
                                                     "and Thai put no spaces between words"),
}
#: Model judges (any litellm model): multilingual; reports are sent as they are, nothing is checked.
MODELS = Support(None, why="model judges read the reports themselves; RadConcord does not check their language")


def support_of(judge: str) -> Support:
    """The languages ``judge`` reads (a name of :data:`SUPPORTED`, else a model judge)."""
    return SUPPORTED.get(judge, MODELS)


def languages_of(judge: str) -> str:
    """One line for a judge picker: e.g. ``rules: English only``."""
    return f"{judge}: {support_of(judge).describe()}"


def unsupported(judge: str, reference: str, candidate: str) -> str | None:
    """The failure to record when ``judge`` cannot read the pair's language, else None."""
    support = support_of(judge)
    if support is MODELS:
        return None
    for role, text in (("reference", reference), ("candidate", candidate)):
        found = detect(text)
        if not support.reads(found.code):
            sure = "" if found.confidence is None else f", detector confidence {found.confidence:.2f}"
            return (f"unsupported language: the {role} report is {found.name} ({DETECTOR}{sure}); the {judge} "
                    f"judge reads {support.describe()}")
    return None


def score_if_read(judge: str, scores: Callable[[str, str], dict], reference: str, candidate: str) -> OutputRecord:
    """An offline judge's answer for one pair: ``scores(reference, candidate)`` as its metrics, or the
    failure :func:`unsupported` records when ``judge`` cannot read the pair's language."""
    refused = unsupported(judge, reference, candidate)
    if refused:
        return OutputRecord(pair_id="", error=refused)
    return OutputRecord(pair_id="", metrics=scores(reference, candidate))
