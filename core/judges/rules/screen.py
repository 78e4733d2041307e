"""What the rules judge refuses to score: text it cannot read, and a candidate that is not a report.

Scoring either would give a perfect or near-perfect report for free: the
judge finds none of its findings in a French report or in "I cannot assess
this image", so it counts no error. :func:`screen_pair` returns the failure to
record instead (no score), in this order, for the reference then the candidate:

1. **not a report: empty** -- no letters at all (an empty string, "...", "1.");
2. **unsupported language** -- not English by :func:`core.judges.language.detect`
   (the rules judge's vocabulary, negation cues and patterns are English);
3. **not a report: a refusal** -- a model's refusal or disclaimer
   (:data:`REFUSAL`: "I cannot assess this image", "As an AI, I can't provide a
   diagnosis", "I'm sorry", "unable to interpret", "consult a radiologist")
   in a text in which the judge finds no finding at all. A real report that
   says "I cannot exclude a small pneumothorax" has a finding and is scored.
4. **not a report: not a radiograph report** -- a text that says the image is
   not a radiograph (:data:`NOT_A_RADIOGRAPH`: "this image does not appear to
   be a chest radiograph", "this is not an X-ray", "the image appears to be a
   photograph") and states no finding as present. Findings it names as not
   assessable ("pneumonia, pneumothorax, effusion or fractures cannot be
   assessed") are neither present nor absent (:mod:`.extract`), so such a
   text is refused, not read as four findings.
"""

from __future__ import annotations

import re

from core.judges.language import unsupported
from core.judges.rules.extract import parse_report

__all__ = ["NOT_A_RADIOGRAPH", "NOT_READABLE", "PLACEHOLDER", "REFUSAL", "not_a_report", "screen_pair"]

REFUSAL = re.compile(
    r"\b(?:I|we)\s*(?:cannot|can\s*not|can't|can’t|am\s+unable|are\s+unable|am\s+not\s+able|'m\s+unable|"
    r"'m\s+not\s+able|do\s+not\s+have|don't\s+have)\b"
    r"|\bas\s+an?\s+(?:AI|artificial\s+intelligence|(?:large\s+)?language\s+model|assistant)\b"
    r"|\b(?:I'?m|I\s+am)\s+sorry\b|\bI\s+apologi[sz]e\b"
    r"|\bunable\s+to\s+(?:assess|provide|interpret|evaluate|view|see|analy[sz]e|access|determine|generate)\b"
    r"|\bno\s+(?:image|images|study|radiograph)\s+(?:was|were|is|are|has\s+been|have\s+been)\s+(?:provided|attached|"
    r"uploaded|shared)\b"
    r"|\bconsult\s+(?:a|your|with\s+a)\s+(?:qualified\s+)?(?:radiologist|doctor|physician|healthcare|medical)\b",
    re.IGNORECASE)


_IMAGE = r"(?:image|images|picture|study|film|radiograph|x-?ray|scan)"
_RADIOGRAPH = r"(?:\w+\s+){0,2}(?:radiograph|x-?ray|film|radiologic(?:al)?\s+(?:image|study)|medical\s+image)"
NOT_A_RADIOGRAPH = re.compile(
    r"\b(?:does|do)\s*(?:not|n't|n’t)\s+(?:appear|seem|look)\s+(?:to\s+be|like)\s+(?:an?\s+)?" + _RADIOGRAPH
    + r"|\b(?:is|are)\s*(?:not|n't|n’t)\s+(?:an?\s+)?" + _RADIOGRAPH + r"\b"
    r"|\b(?:this|the)\s+(?:provided\s+|uploaded\s+|attached\s+)?" + _IMAGE + r"\s+(?:appears|seems)\s+to\s+be\s+"
    r"(?:an?\s+)?(?:\w+\s+){0,3}(?:photograph|photo|picture|diagram|drawing|illustration|screenshot|document|"
    r"CT|MRI|ultrasound|sonogram)\b"
    r"|\b" + _IMAGE + r"\s+(?:is|are)\s+(?:blank|corrupted|uninterpretable|unreadable|not\s+interpretable)\b"
    r"|(?:,|\bis|\bare)\s+not\s+an?\s+(?:chest\s+)?(?:radiograph|x-?ray|chest\s+film)\b"
    r"|\brather\s+than\s+an?\s+(?:chest\s+)?(?:radiograph|x-?ray|chest\s+film)\b"
    r"|\breport\s+cannot\s+be\s+(?:generated|provided|produced|written|given|made)\b"
    r"|\b(?:radiograph|x-?ray|image|film|view)s?\s+of\s+(?:the\s+|a\s+)?(?:left\s+|right\s+)?(?:hand|wrist|finger|knee|foot|"
    r"ankle|shoulder|elbow|pelvis|hip|abdomen|skull|cervical\s+spine|lumbar\s+spine|head|brain|leg|arm)\b"
    # another body part or another modality
    r"|\b(?:appears?\s+to\s+be|is|shows?|depicts?)\s+an?\s+(?:\w+\s+){0,2}?(?:hand|wrist|finger|knee|foot|ankle|shoulder|"
    r"elbow|pelvi[cs]|hip|abdomen|abdominal|skull|spine|cervical|lumbar|dental|head|brain|leg|arm|femur|tibia)\b"
    r"[^.;]{0,30}?\b(?:radiograph|x-?ray|film|image|view|study|scan|ct|mri)\b"
    r"|\b(?:this|the)\s+(?:\w+\s+){0,2}(?:image|study|scan)\s+(?:is|appears\s+to\s+be|seems\s+to\s+be)\s+an?\s+"
    r"(?:\w+\s+){0,2}(?:CT|MRI|MR|ultrasound|sonogram|photograph|photo)\b"
    r"|\b(?:image|images|file)\s+(?:could\s+not|cannot|can\s*not|did\s+not)\s+(?:be\s+)?(?:loaded|opened|viewed|displayed|"
    r"read|load|open|display)\b",
    re.IGNORECASE)
#: A study the text says cannot be read at all; refused when the text states no finding, present or absent.
NOT_READABLE = re.compile(
    r"\b(?:lungs|heart|chest|study|examination|exam|image|images|radiograph|mediastinum)\b[^.;]{0,60}?\b(?:cannot|"
    r"can\s*not|could\s+not)\s+be\s+(?:reliably\s+|adequately\s+|properly\s+)?(?:assessed|evaluated|interpreted)\b"
    r"|\b(?:non-?diagnostic|uninterpretable)\b|\b(?:please\s+)?repeat\s+(?:the\s+)?(?:examination|study|radiograph|"
    r"image|exam)\b|\b(?:insufficient|inadequate|too\s+poor|poor)\s+(?:image\s+)?quality\b"
    r"|\bimage\s+quality\s+(?:is\s+)?(?:insufficient|inadequate|too\s+poor)\b", re.IGNORECASE)
#: What a template's placeholders look like ("[insert findings]", "___", "N/A", "<impression>")
PLACEHOLDER = re.compile(r"\[[^\]]*\]|<[^>]*>|\{[^}]*\}|_{2,}|\.{3,}|\b(?:N/?A|TBD|null|pending|XXX+)\b|"
                         r"\b(?:findings|impression|conclusion|technique|comparison|indication|history|examination|"
                         r"report|chest|radiograph|x-?ray)\b\s*:?", re.IGNORECASE)
SLOT = re.compile(r"\[[^\]]*\]|<[^>]*>|\{[^}]*\}|_{2,}|\.{3,}|\b(?:N/?A|TBD|null|pending|XXX+)\b", re.IGNORECASE)


def not_a_report(text: str) -> str | None:
    """Why ``text`` is not a report (``"empty"``, ``"a refusal ..."``, ``"not a radiograph report ..."``), else
    None."""
    text = str(text or "")
    if not any(ch.isalpha() for ch in text):
        return "empty" if not text.strip() else f"no words ({text.strip()[:40]!r})"
    hit = REFUSAL.search(text)
    if hit and not any(f.kind == "finding" for f in parse_report(text)):
        return f"a refusal, with no finding ({hit.group(0)!r})"
    hit = NOT_A_RADIOGRAPH.search(text)
    found = parse_report(text)
    if hit and not any(f.kind == "finding" and f.present for f in found):
        return f"not a radiograph report, with no finding present ({' '.join(hit.group(0).split())!r})"
    hit = NOT_READABLE.search(text)
    if hit and not any(f.kind == "finding" for f in found):
        return f"a study it says it cannot read, with no finding ({' '.join(hit.group(0).split())!r})"
    # a template left unfilled ("FINDINGS: [insert findings]"); headers alone ("FINDINGS:") are scored as a
    # report that states nothing, as before
    if not any(ch.isalpha() for ch in PLACEHOLDER.sub(" ", text)) and SLOT.search(text):
        return "an empty template (headers and placeholders only)"
    sentences = [" ".join(s.lower().split()) for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]
    if len(sentences) >= 2 and len(set(sentences)) == 1 and not any(f.kind == "finding" for f in found):
        return f"one sentence repeated, with no finding ({sentences[0][:40]!r})"
    return None


def screen_pair(reference: str, candidate: str) -> str | None:
    """The failure the rules judge records for this pair instead of a score, or None to score it."""
    texts = (("reference", reference), ("candidate", candidate))
    for role, text in texts:
        if not any(ch.isalpha() for ch in str(text or "")):
            return f"not a report: the {role} is {not_a_report(text)}"
    language = unsupported("rules", reference, candidate)
    if language:
        return language
    for role, text in texts:
        why = not_a_report(text)
        if why:
            return f"not a report: the {role} is {why}"
    return None
