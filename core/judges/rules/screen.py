"""What the rules judge refuses to score: text it cannot read, and a candidate that is not a report.

Scoring either would give a perfect or near-perfect report for free: the
judge finds none of its findings in a French report or in "I cannot assess
this image", so it counts no error. :func:`screen_pair` returns the failure to
record instead (no score), in this order, for the reference then the candidate:

1. **not a report: empty** -- no letters at all (an empty string, "...", "1.");
2. **unsupported language** -- not English by :func:`core.judges.language.detect`
   (the rules judge's vocabulary, negation cues and patterns are English);
3. **not a report** (:func:`not_a_report`) -- a text that speaks about the
   request instead of the patient, and says nothing a report says.

How 3 decides. Models that write no report still write sentences; what they
write about is the family, not the wording:

- **Declines** (:data:`DECLINE`): the writer declines or cannot act -- "I
  can't interpret", "this assistant is not designed to", "a reading cannot be
  provided", "beyond my capabilities", "as an AI", "I'm not a doctor",
  apologies; the image cannot be opened, is blank, or was not attached; a
  question or request to the user ("could you upload ...?", "if you are
  worried about ..."); what the writer would need ("I would need the actual
  image"); template instructions and placeholders ("[insert findings]",
  "[normal/enlarged]", "{lungs}", "fill in the bracketed sections").
- **Another image** (:data:`OTHER_IMAGE`): the text says the image is not a
  chest radiograph (another body part, a CT slice, an ECG tracing, a
  photograph, a screenshot).
- **Asides** (:data:`ASIDE`): words real reports also carry -- safety
  disclaimers ("should be reviewed by a radiologist", "not a substitute for",
  "please consult"), a study it says it cannot read ("cannot be reliably
  assessed", "non-diagnostic"), chatty frames ("Sure! Here is a report:",
  "I hope this helps"), remarks on what the image is ("this is a chest
  X-ray").

A text with any of these is refused when the judge finds no report content in
it, read from one parse (:func:`~core.judges.rules.extract.parse_report`):
a finding, present or absent, that is not in a sentence that declines (a
finding named in "for questions about possible rib fractures, please consult
..." is not stated); or a plain statement in report words ("No acute
disease.", "Stable."; in a sentence with an aside, only normal-report words:
"normal", "clear", "no acute", ...). When the text says the image is another
kind of image, only a finding stated as present counts ("no report on
pneumonia, effusion ... can be given" names none). So a report with a
disclaimer appended, "I cannot exclude a small pneumothorax", "limited
evaluation ... No pneumothorax" or "Sure! Here is the report: ..." followed by
a report is scored.

Two shapes are refused without a cue: a template with nothing but headers and
placeholders ("FINDINGS: ____", "FINDINGS: N/A"), and one sentence repeated
with no finding.
"""

from __future__ import annotations

import re

from core.judges.language import unsupported
from core.judges.rules.extract import MAX_REPORT_CHARS, clean_text, parse_report

__all__ = ["ASIDE", "CUE_WORDS", "DECLINE", "NORMAL_WORDS", "OTHER_IMAGE", "PLACEHOLDER", "REPORT_WORDS", "SLOT",
           "may_hold_a_cue", "not_a_report", "screen_pair"]

_I = re.IGNORECASE
# who speaks when a model declines, and how it says it cannot
_SPEAKER = (r"(?:\bI|\bwe|\bthis\s+(?:AI\s+)?(?:assistant|model|tool|system|chatbot|service|program)"
            r"|\bthe\s+(?:AI\s+)?(?:assistant|model)|\bAI\s+(?:models|systems|assistants|tools))")
_CANNOT = (r"(?:cannot|can\s*not|can't|could\s+not|couldn't|will\s+not|won't|do\s+not|don't|does\s+not|doesn't|"
           r"must\s+not|should\s+not|(?:am|'m|are|'re|is)\s+(?:unable|not\s+(?:able|in\s+a\s+position|permitted|"
           r"allowed|designed|intended|equipped|trained|qualified|going|licensed))\s+to|must\s+decline\s+to|"
           r"have\s+to\s+decline\s+to)(?:\s+be\s+able\s+to)?")
_ACT = (r"(?:provide|give|offer|make|render|generate|produce|write|create|interpret|read|analy[sz]e|review|"
        r"diagnose|view|access|open|load|assess|evaluate|help|assist|comply|process|perform|comment|describe|"
        r"tell|say|share|replace|substitute|act|serve|practi[cs]e|have\s+(?:access|the\s+(?:ability|capability|"
        r"means))|(?:see|find|detect)\s+(?:an?\s+|the\s+|any\s+)?(?:attached\s+|uploaded\s+)?(?:image|picture|file|"
        r"attachment|x-?ray|radiograph)s?\b(?!\s*(?:evidence|findings?|signs?|abnormalit)))")
_DELIVERABLE = r"(?:report|diagnos[ie]s|interpretation|reading|read|opinion|assessment|analysis|evaluation|impression)"
_DELIVERED = (r"(?:provided|given|offered|generated|produced|made|rendered|written|issued|created|completed|"
              r"done)")
#: A writer declining, a request it cannot act on, or a question back to the user: findings in such a sentence are
#: not stated (see the module docstring).
DECLINE = re.compile(
    # first person and "this assistant": "I can't interpret", "this tool is not designed to interpret"
    _SPEAKER + r"\s*(?:really\s+|currently\s+|simply\s+|unfortunately\s+)?" + _CANNOT
    + r"\s+(?:\w+\s+){0,2}?" + _ACT + r"\b"
    # passive and impersonal: "a reading cannot be provided", "no report ... can be given"
    r"|\b" + _DELIVERABLE + r"s?\b[^.;?!]{0,60}?\b(?:cannot|can\s*not|can't|could\s+not|will\s+not|won't)\s+be\s+"
    + _DELIVERED + r"\b"
    r"|\bno\s+(?:\w+\s+)?" + _DELIVERABLE + r"s?\b[^.;?!]{0,80}?\b(?:can|could|will)\s+be\s+" + _DELIVERED + r"\b"
    r"|\bnot\s+(?:possible|feasible|appropriate)\s+(?:for\s+(?:me|us)\s+)?to\s+(?:provide|give|offer|generate|"
    r"produce|write|create|interpret|read|diagnose|render|analy[sz]e)\b"
    r"|\bnot\s+something\s+(?:I|we|this\s+\w+|the\s+\w+)\s+(?:\w+\s+)?(?:can|am\s+able|is\s+able)\b"
    r"|\b(?:beyond|outside(?:\s+of)?)\s+(?:my|our|the|what\s+I)\b[^.;?!]{0,30}?\b(?:scope|capabilit\w*|abilit\w*|"
    r"expertise|can\s+do)\b"
    r"|\bunable\s+to\s+(?:provide|interpret|analy[sz]e|access|view|open|generate|read|help|assist|comply|offer|"
    r"give|produce|render|process|load|display|write)\b"
    # who the writer says it is, and apologies
    r"|\bas\s+an?\s+(?:AI|artificial\s+intelligence|(?:large\s+)?language\s+model|(?:AI\s+)?assistant|chatbot)\b"
    r"|\bI(?:'m|\s+am)\s+(?:only\s+|just\s+)?(?:an?\s+)?(?:AI\b|artificial\s+intelligence|(?:large\s+)?language\s+"
    r"model|chatbot|virtual\s+assistant|text-based)"
    r"|\bI(?:'m|\s+am)\s+not\s+(?:a|an|your)\s+(?:\w+\s+)?(?:doctor|radiologist|physician|clinician|medical|"
    r"healthcare|health\s+care)\b"
    r"|\bsorry\b|\bapologi[sz]e\b|\bapologies\b"
    # the image is missing, blank or cannot be opened
    r"|\b(?:image|images|picture|file|attachment|upload)\s+(?:\w+\s+){0,2}?(?:failed\s+to|did\s+not|didn't|"
    r"could\s+not|couldn't|cannot|can't|does\s+not|doesn't|won't|will\s+not)\s+(?:be\s+)?(?:load|open|display|"
    r"render|come\s+through|upload|attach|show\s+up|loaded|opened|displayed|rendered|uploaded|attached|accessed)\b"
    r"|\bno\s+(?:image|images|picture|file|attachment|x-?ray|radiograph)\s+(?:was|were|is|are|has\s+been|have\s+"
    r"been|appears\s+to\s+(?:have\s+been|be))\s+(?:\w+\s+)?(?:provided|attached|uploaded|shared|included|received|"
    r"sent)\b(?![^.;]{0,20}\bcompar)"
    r"|\b(?:image|picture|file|screen|upload|scan|radiograph|x-?ray)\s+(?:\w+\s+){0,2}?(?:is|appears|seems|looks)\s+"
    r"(?:to\s+be\s+)?(?:\w+\s+)?(?:blank|black|empty|corrupted|corrupt|unreadable|uninterpretable|missing|"
    r"not\s+(?:interpretable|readable))\b"
    # the user addressed: questions, requests, hypotheticals
    r"|\b(?:could|can|would|will|do|did|have|are)\s+you\b[^.?!\n]{0,300}\?"
    r"|\bwould\s+you\s+like\b|\bif\s+you\b|\byou\s+(?:uploaded|shared|sent|attached|provided|asked)\b"
    r"|\byour\s+(?:message|upload|request|question|attachment)\b"
    r"|\b(?:questions?|concerns?|worries|worried|concerned)\s+(?:about|regarding|over)\b"
    r"|\bplease\s+(?:re-?)?(?:upload|provide|share|send|attach|resend|submit|supply)\b"
    r"|\bfor\s+me\s+to\b"
    # what the writer would need
    r"|\b(?:I|we)(?:'d|'ll|\s+would|\s+will|\s+do|\s+still|\s+first)?\s+(?:need|require)\b"
    r"|\b(?:I|this\s+\w+)\s+(?:can|am\s+able\s+to|is\s+able\s+to)\s+only\b|\bonly\s+(?:able\s+to\s+)?(?:process|read|"
    r"handle|analy[sz]e|understand|accept)\s+text\b"
    r"|\b(?:too|insufficient|not\s+enough)\b[^.;]{0,40}?\bto\s+(?:generate|provide|produce|write|make|give|offer)\s+"
    r"(?:an?\s+|the\s+|any\s+)?(?:\w+\s+)?(?:report|diagnosis|interpretation|reading|assessment|opinion)\b"
    # what an image type can show in general, and how the writer would go about it (no reading of this image)
    r"|\b(?:a\s+|chest\s+)(?:chest\s+)?(?:x-?rays?|radiographs?)\s+(?:can|may|might|could|typically|generally|"
    r"usually|often|is\s+used|are\s+used|helps?)\s+(?:\w+\s+)?(?:show|reveal|detect|identify|diagnose|used|help|"
    r"evaluate|assess|look)\b"
    r"|\b(?:radiologists?|doctors?|physicians?)\s+(?:typically|usually|generally|often|would|will)\s+(?:\w+\s+)?"
    r"(?:look|check|assess|evaluate|examine|review|compare)\b|\blook(?:s|ing)?\s+for\s+(?:signs|things|any)\b"
    r"|\b(?:I|we)(?:'d|\s+would|'ll|\s+will)\s+(?:first\s+)?(?:look|check|start|begin|examine|go\s+through)\b"
    # an echoed prompt, an error message
    r"|\byou\s+are\s+an?\b|^[^\w\n]{0,40}(?:write|generate|provide|produce|create)\s+(?:a|an|the)\b"
    r"|^[^\w\n]{0,40}(?:error|exception)\b|\b(?:request|generation|response)\s+(?:failed|timed\s+out|was\s+blocked)\b"
    r"|\bcontent\s+(?:filter|policy)\b|\btimed\s+out\b"
    # templates: instructions and placeholders
    r"|\b(?:template|placeholders?|bracketed|fill\s+(?:in|out)|replace\s+the)\b"
    r"|\[\s{0,40}(?:(?:insert|describe|enter|specify|add|fill|summari[sz]e|list|provide|state|include|type|write|"
    r"document|note|comment|mention|select|choose|findings?|impression|summary|conclusion|details?|description|text|"
    r"placeholder|option|options)\b[^\]]{0,200}|[^\]\d/]{0,80}/[^\]\d]{0,80}|[\s_.\-]{0,80})\]"
    r"|\{\s*\w*\s*\}"
    r"|<\s*(?:insert|describe|enter|specify|findings?|impression|summary|conclusion|details?|description|text|"
    r"placeholder)\b[^>]{0,200}>", _I | re.MULTILINE)

_OTHER = (r"(?:hand|wrist|fingers?|knee|foot|feet|ankle|elbow|skull|dental|panoramic|brain|CT|MRI|MR|ultrasound|"
          r"sonogram|echocardiogram|ECG|EKG|electrocardiogram|photograph|photo|selfie|screenshot|screen|document|"
          r"diagram|drawing|illustration|chart|graph|logo|cartoon|person|face|animal|landscape|painting|"
          r"(?:shoulder|hip|pelvi[cs]|abdomen|abdominal|spine|cervical|lumbar|thoracic\s+spine|leg|arm|femur|tibia|"
          r"head)\s+(?:\w+\s+)?(?:x-?ray|radiograph|film|image|view|study|scan|series))")
_RADIOGRAPH = r"(?:\w+\s+){0,2}(?:radiograph|x-?ray|film|radiologic(?:al)?\s+(?:image|study)|medical\s+image)"
#: The text says the image is not a chest radiograph: only a finding stated as present counts as report content.
OTHER_IMAGE = re.compile(
    r"\b(?:does|do)\s*(?:not|n't)\s+(?:appear|seem|look)\s+(?:to\s+be|like)\s+(?:an?\s+)?" + _RADIOGRAPH
    + r"|\b(?:is|are)\s*(?:not|n't)\s+(?:an?\s+)?" + _RADIOGRAPH + r"\b"
    r"|\b(?:not|rather\s+than|instead\s+of)\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,2}?(?:chest|thoracic)\s+(?:x-?ray|"
    r"radiograph|film|image|study)\b"
    r"|,\s*not\s+(?:of\s+)?the\s+chest\b"
    r"|\bnot\s+an?\s+(?:medical|radiolog\w*|diagnostic)\s+(?:image|study|scan)\b"
    r"|\b(?:this|it|(?:the|this)\s+(?:\w+\s+)?(?:image|picture|photo|file|upload|attachment|study|scan))\s+"
    r"(?:is|appears\s+to\s+be|seems\s+to\s+be|looks\s+like|shows|depicts|contains)\s+(?:only\s+)?(?:an?|the)\s+"
    r"(?:\w+\s+){0,3}?" + _OTHER + r"\b"
    r"|\b(?:radiograph|x-?ray|image|film|view)s?\s+of\s+(?:the\s+|a\s+)?(?:left\s+|right\s+)?(?:hand|wrist|finger|"
    r"knee|foot|ankle|shoulder|elbow|pelvis|hip|abdomen|skull|cervical\s+spine|lumbar\s+spine|head|brain|leg|"
    r"arm)\b"
    r"|\b(?:appears?\s+to\s+be|is|shows?|depicts?)\s+an?\s+(?:\w+\s+){0,2}?(?:hand|wrist|finger|knee|foot|ankle|"
    r"shoulder|elbow|pelvi[cs]|hip|abdomen|abdominal|skull|spine|cervical|lumbar|dental|head|brain|leg|arm|femur|"
    r"tibia)\b[^.;]{0,30}?\b(?:radiograph|x-?ray|film|image|view|study|scan|ct|mri)\b", _I)

#: Words that real reports share with non-reports: disclaimers, unreadable studies, chatty frames, image remarks.
ASIDE = re.compile(
    r"\bconsult(?:ation)?\b|\b(?:reviewed|confirmed|verified|interpreted|read|checked)\s+by\s+(?:a|an|your|the)\s+"
    r"(?:\w+\s+){0,2}?(?:radiologist|physician|doctor|clinician|professional|specialist|provider|expert)"
    r"|\bnot\s+(?:a\s+|intended\s+(?:as\s+a\s+|to\s+)?)?(?:substitute|replacement|replace)\b|\bmedical\s+advice\b"
    r"|\b(?:informational|educational|illustrative|research)\s+purposes\b|\bAI-generated\b"
    r"|\bgenerated\s+by\s+(?:an?\s+)?(?:AI|artificial|model|language)\b|\bseek\s+(?:\w+\s+)?(?:medical|professional)\b"
    r"|\b(?:talk|speak)\s+(?:to|with)\s+(?:a|your)\s+(?:\w+\s+)?(?:doctor|physician|healthcare|provider|radiologist)\b"
    r"|\b(?:healthcare|health\s+care|medical)\s+(?:professional|provider)s?\b"
    r"|\b(?:licensed|qualified|board-certified|trained)\s+(?:radiologist|physician|doctor|professional)"
    r"|\b(?:need|needs|required?s?)\s+(?:to\s+be\s+read\s+by\b|(?:\w+\s+){0,3}?(?:actual|original|full|diagnostic|"
    r"DICOM|full-resolution|high-resolution)\s+(?:image|images|DICOM|files?|study|studies)\b)"
    # a study the text says cannot be read at all
    r"|\b(?:lungs|heart|chest|study|examination|exam|image|images|radiograph|mediastinum)\b[^.;]{0,60}?\b(?:cannot|"
    r"can\s*not|could\s+not)\s+be\s+(?:reliably\s+|adequately\s+|properly\s+)?(?:assessed|evaluated|interpreted)\b"
    r"|\b(?:non-?diagnostic|uninterpretable)\b|\b(?:please\s+)?repeat\s+(?:the\s+)?(?:examination|study|radiograph|"
    r"image|exam)\b|\b(?:insufficient|inadequate|too\s+poor|poor)\s+(?:image\s+)?quality\b"
    r"|\bimage\s+quality\s+(?:is\s+)?(?:insufficient|inadequate|too\s+poor)\b|\btoo\s+(?:dark|small|blurry|blurred)\b"
    # chatty frames
    r"|^[^\w\n]{0,40}(?:sure|certainly|of\s+course|absolutely|okay|ok|great)\b"
    r"|\bhere\s+(?:is|are|'s)\s+(?:an?\s+|the\s+|your\s+|my\s+)?(?:\w+\s+){0,3}?(?:report|interpretation|reading|"
    r"draft|summary|analysis|description)\b|\bhope\s+(?:this|that|it)\s+helps\b|\blet\s+me\s+know\b|\bfeel\s+free\b"
    r"|\b(?:happy|glad)\s+to\s+help\b|\blet\s+me\b|\blet's\b|\bstep\s+by\s+step\b"
    # remarks on what the image is
    r"|\b(?:this|the)\s+(?:\w+\s+)?(?:image|picture|photo|upload|file)\s+(?:is|shows|depicts|appears|seems|contains)\b"
    r"|^[^\w\n]{0,40}this\s+is\s+an?\s+(?:\w+\s+){0,3}?(?:x-?ray|radiograph|film)\b", _I | re.MULTILINE)

#: Words of a plain statement that make it report content outside a cue's sentence ("Stable.", "Negative chest.").
REPORT_WORDS = re.compile(
    r"\b(?:normal|unremarkable|negative|clear|stable|unchanged|intact|none|acute|disease|abnormalit\w*|lungs?|heart|"
    r"cardiac|cardio\w+|mediastin\w*|pleura\w*|hil(?:um|a|ar)|pulmonary|thora\w+|osseous|bony|bones?|ribs?|"
    r"(?:hemi)?diaphragms?|costophrenic|aort\w+|trache\w*|spine|soft\s+tissues?|silhouette|vascular\w*|pneumo\w*|"
    r"effusions?|opacit\w+|wnl)\b", _I)
#: Normal-report words: report content even in a sentence with an aside ("Normal chest, please consult ...").
NORMAL_WORDS = re.compile(r"\b(?:normal|unremarkable|negative|clear|stable|unchanged|no\s+acute|wnl)\b", _I)

#: What a template's placeholders look like ("[insert findings]", "___", "N/A", "<impression>", "{lungs}", '"findings": ""')
PLACEHOLDER = re.compile(r"\[[^\]]{0,200}\]|<[^>]{0,200}>|\{\s*\w*\s*\}|_{2,}|\.{3,}|\b(?:N/?A|TBD|null|pending|XXX+)\b|"
                         r"\b(?:findings|impression|conclusion|technique|comparison|indication|history|examination|"
                         r"report|chest|radiograph|x-?ray)\b\s*:?", _I)
SLOT = re.compile(r"\[[^\]]{0,200}\]|<[^>]{0,200}>|\{\s*\w*\s*\}|_{2,}|\.{3,}|\b(?:N/?A|TBD|null|pending|XXX+)\b"
                  r'|:\s*(?:""|null)\s*[,}]', _I)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_RADIO = _words("radiograph radiographs ray rays xray xrays film films radiologic radiological medical image images "
                "study scan view views")
_XRAY = _words("radiograph radiographs ray rays xray xrays film films radiologic radiological medical")
_PART = _words("hand wrist finger fingers knee foot feet ankle elbow skull dental panoramic brain ct mri mr ultrasound "
               "sonogram echocardiogram ecg ekg electrocardiogram photograph photo selfie screenshot screen document "
               "diagram drawing illustration chart graph logo cartoon person face animal landscape painting shoulder "
               "hip pelvic pelvis abdomen abdominal spine cervical lumbar thoracic leg arm femur tibia head")
#: Words one of which every cue needs (each rule: a word from every set). A text with none of them, and no bracket,
#: brace or angle bracket, has no cue, and the cue patterns (slow on long text) are not run on it.
CUE_WORDS: tuple[tuple[frozenset[str], ...], ...] = (
    (_words("i we assistant model tool system chatbot service program ai artificial language something beyond "
            "outside unable sorry apologize apologise apologies you your question questions concern concerns worries "
            "worried concerned please me only too insufficient enough typically generally usually often "
            "radiologist radiologists doctor doctors physician physicians look looks looking error exception failed "
            "timed blocked filter policy template placeholder placeholders bracketed fill replace blank black empty "
            "corrupted corrupt unreadable uninterpretable missing interpretable readable image images picture file "
            "attachment upload attached uploaded shared included received sent provided given offered generated "
            "produced made rendered written issued created completed done provide give offer generate produce write "
            "create interpret read diagnose render analyze analyse consult consultation clinician professional "
            "professionals specialist provider providers expert substitute replacement advice purposes seek talk "
            "speak need needs require required requires assessed evaluated interpreted diagnostic nondiagnostic "
            "repeat quality sure certainly course absolutely okay ok great here hope let feel happy glad step photo"),),
    (_words("can may might could used help helps"), _XRAY),
    (_words("appear appears seem seems look looks"), _words("not n t")),
    (_words("not n t rather instead"), _XRAY),
    (_words("not n t rather instead"), _words("chest thoracic"), _RADIO),
    (_words("not"), _words("chest")),
    (_words("this it image picture photo file upload attachment study scan"), _PART),
    (_words("this"), _XRAY),
    (_RADIO, _PART),
)
_WORD = re.compile(r"[a-z]+")


def may_hold_a_cue(text: str) -> bool:
    """Whether ``text`` has the words (:data:`CUE_WORDS`) or characters a cue needs: a fast test before the
    patterns."""
    if "[" in text or "{" in text or "<" in text:
        return True
    words = frozenset(_WORD.findall(text.lower()))
    return any(all(not need.isdisjoint(words) for need in rule) for rule in CUE_WORDS)


_BOUNDARY = re.compile(r"[.!?;\n]")
_SENTENCE = re.compile(r"[^.!?;\n]+[.!?;\n]*")


def _sentence_of(segment: str, cleaned: str) -> str:
    """The sentence (or clause after a semicolon) of ``cleaned`` that holds a finding's segment: the parser cuts a
    sentence into one segment per observation ("... whether there is a fracture" / "or an effusion.")."""
    at = cleaned.find(segment)
    if at < 0:
        return segment
    start = at
    while start > 0 and not _BOUNDARY.match(cleaned[start - 1]):
        start -= 1
    hit = _BOUNDARY.search(cleaned, at + max(len(segment.rstrip(".!?;")), 1))
    return cleaned[start:hit.end() if hit else len(cleaned)]


def _has_content(text: str, found, other_image: bool) -> bool:
    """Whether the parsed text states something a report states, outside the sentences that decline."""
    cleaned = clean_text(text)
    declines: dict[str, bool] = {}

    def declined(segment: str) -> bool:
        if segment not in declines:
            declines[segment] = DECLINE.search(_sentence_of(segment, cleaned)) is not None
        return declines[segment]

    if _states_something(found, other_image, declined):
        return True
    # the parse keeps one finding per concept, so a finding named in a sentence that declines ("Clinical concerns
    # regarding pneumothorax.") can stand in for the report's own statement of it ("No pneumothorax."): read the
    # text again without those sentences
    sentences = _SENTENCE.findall(cleaned)
    kept = [s for s in sentences if not DECLINE.search(s)]
    if not kept or len(kept) == len(sentences):
        return False
    return _states_something(parse_report(" ".join(kept)), other_image, lambda segment: False)


def _states_something(found, other_image: bool, declined) -> bool:
    for f in found:
        if f.kind == "finding":
            if (f.present or not other_image) and not declined(f.text):
                return True
        elif f.kind == "statement" and not other_image and not declined(f.text):
            words = NORMAL_WORDS if ASIDE.search(f.text) else REPORT_WORDS
            if words.search(f.text):
                return True
    return False


def _quote(hit: re.Match) -> str:
    return repr(" ".join(hit.group(0).split())[:60])


def not_a_report(text: str) -> str | None:
    """Why ``text`` is not a report (``"empty"``, ``"a refusal ..."``, ``"not a radiograph report ..."``, ...),
    else None."""
    original = str(text or "")
    # the part the parser reads (clean_text cuts there too): the patterns never scan more than that
    text = original[:MAX_REPORT_CHARS].replace("\u2019", "'")
    if not any(ch.isalpha() for ch in text):
        return "empty" if not text.strip() else f"no words ({text.strip()[:40]!r})"
    # a template left unfilled ("FINDINGS: [insert findings]"); headers alone ("FINDINGS:") are scored as a
    # report that states nothing, as before
    if not any(ch.isalpha() for ch in PLACEHOLDER.sub(" ", text)) and SLOT.search(text):
        return "an empty template (headers and placeholders only)"
    cue = may_hold_a_cue(text)
    other = OTHER_IMAGE.search(text) if cue else None
    decline = None if other or not cue else DECLINE.search(text)
    aside = None if other or decline or not cue else ASIDE.search(text)
    found = None
    if other or decline or aside:
        found = parse_report(original)  # the text score_pair parses: one cached parse
        if not _has_content(text, found, other_image=other is not None):
            if other:
                return f"not a radiograph report, with no finding present ({_quote(other)})"
            if decline:
                return f"a refusal or a request, with no report content ({_quote(decline)})"
            return f"a disclaimer or remark, with no report content ({_quote(aside)})"
    sentences = [" ".join(s.lower().split()) for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]
    if len(sentences) >= 2 and len(set(sentences)) == 1:
        found = parse_report(original) if found is None else found
        if not any(f.kind == "finding" for f in found):
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
