"""Reading rewrites of a cleaned report text, applied once before it is split into sentences.

Two wordings that say in other words what the judge's patterns already read:

* an organ heading followed by the state of that organ ("Heart: borderline enlarged.", "- Trachea: mildly
  deviated to the right.", "Lungs: hyperinflated, with ...") is the sentence "the heart is borderline
  enlarged": the heading is the subject of the state after it;
* a finding introduced as seen before and said not to be seen now ("the previously noted nodule is not
  well seen on today's study", "previously described opacity, not visualized") is a finding that has gone
  since the prior study: "no longer seen", which reads as absent with a resolution (a comparison). A
  finding not well seen that was not introduced as a previous one stays a hedged finding ("an aneurysm,
  not well seen on this film");
* a device whose "tip is not visualized" is there, its tip out of view (not a negated device).
"""

from __future__ import annotations

import re

__all__ = ["rewrite"]

_ORGANS = {"heart": "is", "cardiac silhouette": "is", "trachea": "is", "aorta": "is", "thoracic aorta": "is",
           "mediastinum": "is", "lungs": "are", "hila": "are", "hemidiaphragms": "are", "diaphragm": "is",
           "diaphragms": "are", "lung volumes": "are"}
#: the state words a heading can be followed by (after grade adverbs): participles and the adjectives of a state
_STATE = (r"(?:(?:\w+ly|borderline|mild|moderate|severe|slight|minimal|marked)\s+){0,2}"
          r"(?:\w+ed|prominent|tortuous|ectatic|low|small|large|normal|clear|unremarkable|midline)\b")
_HEADING = re.compile(r"^(?P<pre>[ \t]*(?:[-*\u2022]\s+|\d{1,2}[.)]\s+)?)(?:\*\*)?(?P<organ>"
                      + "|".join(sorted(_ORGANS, key=len, reverse=True)).replace(" ", r"\s+")
                      + r")(?:\*\*)?\s*:(?:\*\*)?[ \t]*(?=" + _STATE + ")", re.I | re.M)
#: "(the) previously noted <noun phrase> (is) not seen": the participle directly before the noun phrase, not "as
#: previously noted" (which speaks of another clause), and no comma inside the phrase but one before "not"
_NOT_SEEN_NOW = re.compile(
    r"(?<!\bas\s)\b(?P<head>previously\s+(?:noted|seen|visualized|described|reported|identified|demonstrated|"
    r"mentioned)\s+(?!(?:and|or|but|is|are|was|were|has|have|on|in|at|with|by|to)\b)\w"
    r"[^.;:,\n]{0,80}?(?:,\s*)?)(?:\b(?:is|are|was|were)\s+)?\bnot\s+(?:(?:well|clearly|definitely)[-\s]+)?"
    r"(?:seen|visualized|identified|appreciated|demonstrated|evident|visible)\b", re.I)
#: "tip not visualized" says where the device ends is out of view, not that the device is absent
_TIP_NOT_SEEN = re.compile(r"\btip\s+(?:is\s+)?not\s+(?:well\s+|clearly\s+)?(?:seen|visualized|identified|imaged)\b", re.I)


def _heading(m: re.Match) -> str:
    organ = " ".join(m.group("organ").lower().split())
    return f"{m.group('pre')}The {organ} {_ORGANS[organ]} "


def rewrite(text: str) -> str:
    """``text`` with organ headings read as the subject of the state after them and findings seen before but
    not now read as no longer seen."""
    if ":" in text:
        text = _HEADING.sub(_heading, text)
    if "tip" in text:
        text = _TIP_NOT_SEEN.sub("tip out of view", text)
    if "reviously" in text:
        text = _NOT_SEEN_NOW.sub(lambda m: m.group("head") + "no longer seen", text)
    return text
