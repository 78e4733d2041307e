"""The en-US locale pack (American English radiology reports): data only.

LAIas Bench implements en-US "equivalent rules for American radiology
conventions" (Sec. 5) without listing them; these lists are written for
RadConcord. The finding vocabulary and the negation cues are the offline rules
judge's (:mod:`core.judges.rules.vocab`), so both read findings the same way.
Forbidden terms follow common US style guidance: the Fleischner Society
glossary advises against "infiltrate"; informal abbreviations (w/o, s/p, c/w,
b/l, r/o) do not belong in a signed report.
"""

from __future__ import annotations

from core.checks.localespec import LocaleSpec
from core.judges.rules.vocab import CONCEPTS, NEGATION_STOP, POST_NEGATION, PRE_NEGATION

_LIVER = r"liver|hepatic"
_KIDNEY = r"kidneys?|renal"
_NODES = r"lymph\s+nodes?|lymphadenopathy|adenopathy|nodal"
_LUNGS = r"lungs?|pulmonary"
_PLEURA = r"pleura|pleural|costophrenic"
_HEART = r"heart|cardiac|cardiomediastinal|pericardial|pericardium|cardiomegaly"
_MEDIASTINUM = r"mediastinum|mediastinal|hilar|hila|hilum"

EN_US = LocaleSpec(
    code="en-US",
    name="English (United States)",
    language="American English",
    sections={
        "technique": r"technique|procedure|protocol",
        "analysis": r"findings|description|analysis",
        "conclusion": r"impressions?|conclusions?|opinion|diagnosis",
        "other": r"indications?|clinical\s+history|history|comparisons?|exam(?:ination)?|clinical\s+information|"
                 r"reason\s+for\s+(?:exam|examination|study)|recommendations?",
    },
    contrast_terms=(
        r"(?<!non-)(?<!non)(?<!un)enhanc(?:ement|ing|es|ed)", r"(?:late\s+)?arterial\s+phase",
        r"portal\s+venous\s+phase", r"venous\s+phase", r"delayed\s+phase", r"nephrographic\s+phase",
        r"wash-?out", r"post-?contrast", r"after\s+(?:the\s+)?(?:intravenous\s+|iv\s+)?contrast",
        r"contrast[-\s]enhanced", r"hyperenhanc\w*", r"hypoenhanc\w*"),
    exam_with_contrast=(r"with(?:\s+(?:iv|intravenous|oral))?\s+contrast|with\s+and\s+without(?:\s+\w+)?\s+contrast|"
                        r"contrast[-\s]enhanced|post-?contrast|cta|mra|angiograph\w*|angiogram|w/\s*contrast"),
    exam_without_contrast=(r"without(?:\s+(?:iv|intravenous))?\s+contrast|non-?contrast|unenhanced|non-?enhanced|"
                           r"w/o(?:\s+contrast)?|noncontrast"),
    umbrella_terms=(
        r"otherwise\s+(?:unremarkable|normal|negative)",
        r"(?:the\s+)?(?:remaining|other|rest\s+of\s+the)\s+(?:structures|organs|findings|study|exam(?:ination)?)"
        r"\s+(?:are|is)\s+(?:unremarkable|normal|within\s+normal\s+limits)",
        r"no\s+other\s+(?:abnormalit(?:y|ies)|findings)", r"everything\s+else\s+is\s+(?:normal|unremarkable)"),
    banned_phrases=(
        r"as\s+an\s+ai", r"(?:large\s+)?language\s+model", r"i\s+(?:cannot|can't|am\s+unable\s+to)",
        r"i'm\s+sorry", r"consult\s+(?:your|a)\s+(?:doctor|physician|healthcare\s+provider)",
        r"this\s+(?:report|text)\s+(?:is|was)\s+(?:generated|written)\s+by", r"not\s+(?:intended\s+as\s+)?medical\s+advice",
        r"disclaimer"),
    placeholders=(
        r"\[[^\]\n]{0,40}\]", r"_{3,}", r"X{2,}", r"\?{2,}", r"\{\{?[^}\n]{0,40}\}?\}", r"TBD",
        r"(?:insert|fill\s+in)\s+(?:here|\w+)", r"lorem\s+ipsum", r"[xX](?:[.,][xX])?\s*(?:mm|cm)"),
    normal_conclusion=(r"no\s+acute\s+(?:abnormalit(?:y|ies)|findings?|process|disease|\w+\s+(?:abnormality|process))|"
                       r"normal\s+(?:study|exam(?:ination)?|\w+\s+(?:ct|mri|radiograph|ultrasound|study))|"
                       r"unremarkable\s+(?:study|exam(?:ination)?)|negative\s+(?:study|exam(?:ination)?)|"
                       r"no\s+(?:significant\s+)?abnormalit(?:y|ies)"),
    forbidden_terms=(
        (r"infiltrates?", "opacity (Fleischner glossary)"), (r"w/o", "without"), (r"w/", "with"),
        (r"s/p", "status post"), (r"c/w", "consistent with"), (r"b/l", "bilateral"), (r"r/o", "rule out"),
        (r"ground[-\s]glass\s+densit(?:y|ies)", "ground-glass opacity"),
    ),
    forbidden_openers=(r"noted\s+is", r"seen\s+is", r"visualized\s+is", r"it\s+is\s+noted\s+that",
                       r"note\s+is\s+made\s+of", r"there\s+appears\s+to\s+be"),
    modality_vocabulary={
        "US": ((r"hyperintens\w*|hypointens\w*|T[12][-\s]weighted", "MRI signal terms in an ultrasound report"),
               (r"hyperdens\w*|hypodens\w*|hounsfield|HU", "CT density terms in an ultrasound report")),
        "MR": ((r"hyperechoic|hypoechoic|anechoic|echogenic\w*|echogenicity", "ultrasound terms in an MRI report"),
               (r"hyperdens\w*|hypodens\w*|hounsfield", "CT density terms in an MRI report")),
        "CT": ((r"hyperechoic|hypoechoic|anechoic|echogenic\w*|echogenicity", "ultrasound terms in a CT report"),
               (r"hyperintens\w*|hypointens\w*|T[12][-\s]weighted", "MRI signal terms in a CT report")),
        "XR": ((r"hyperechoic|hypoechoic|anechoic|echogenic\w*", "ultrasound terms in a radiograph report"),
               (r"hyperintens\w*|hypointens\w*", "MRI signal terms in a radiograph report"),
               (r"hounsfield", "CT attenuation values in a radiograph report")),
    },
    coverage={
        ("CT", "abdomen"): (("liver", _LIVER), ("gallbladder", r"gallbladder|cholecyst\w*"),
                            ("pancreas", r"pancreas|pancreatic|pancreatitis"), ("spleen", r"spleen|splenic"),
                            ("kidneys", _KIDNEY), ("adrenals", r"adrenals?"), ("aorta", r"aorta|aortic"),
                            ("lymph nodes", _NODES)),
        ("CT", "chest"): (("lungs", _LUNGS), ("pleura", _PLEURA), ("heart", _HEART), ("mediastinum", _MEDIASTINUM)),
        ("XR", "chest"): (("lungs", _LUNGS), ("pleura", _PLEURA + r"|pneumothorax"), ("heart", _HEART)),
        ("CT", "head"): (("hemorrhage", r"hemorrhage|hemorrhagic|hematoma|bleed"),
                         ("ventricles", r"ventricles?|ventricular|hydrocephalus"),
                         ("midline", r"midline(?:\s+shift)?|mass\s+effect"),
                         ("extra-axial spaces", r"extra-?axial|subdural|epidural")),
        ("MR", "head"): (("brain parenchyma", r"parenchyma|parenchymal|white\s+matter|gray\s+matter|infarcts?"),
                         ("ventricles", r"ventricles?|ventricular|hydrocephalus"),
                         ("midline", r"midline(?:\s+shift)?|mass\s+effect")),
        ("MR", "spine"): (("alignment", r"alignment|listhesis|lordosis|kyphosis"),
                          ("vertebral bodies", r"vertebral\s+bod(?:y|ies)|marrow|fractures?"),
                          ("discs", r"discs?|disks?"), ("canal", r"canal|stenosis|foramina|foraminal"),
                          ("cord or conus", r"cord|conus|cauda\s+equina")),
        ("US", "abdomen"): (("liver", _LIVER), ("gallbladder", r"gallbladder|cholecyst\w*|gallstones?"),
                            ("bile ducts", r"bile\s+ducts?|biliary|common\s+duct|CBD"), ("kidneys", _KIDNEY)),
        ("US", "pelvis"): (("uterus", r"uterus|uterine|endometri\w*"), ("ovaries", r"ovar(?:y|ies|ian)|adnex\w*")),
    },
    findings=tuple((c.key, "|".join(c.terms)) for c in CONCEPTS),
    negation_pre=PRE_NEGATION,
    negation_post=POST_NEGATION,
    negation_stop=NEGATION_STOP,
    laterality={"right": r"right", "left": r"left", "bilateral": r"bilateral(?:ly)?|both"},
    modality_aliases={"CT": r"ct|cta|computed\s+tomography|ct\s+angiography", "MR": r"mri?|mra|magnetic\s+resonance",
                      "US": r"us|ultrasound|sonograph\w*|doppler", "XR": r"xr|x-?ray|radiograph\w*|cr|dx",
                      "MG": r"mg|mammogra\w*"},
    regions=(
        ("spine", r"spine|spinal|cervical\s+spine|thoracic\s+spine|lumbar|sacr"),
        ("head", r"head|brain|skull|cranial|intracranial|orbits?|sinus"),
        ("neck", r"neck|thyroid"),
        ("breast", r"breasts?|mammo"),
        ("chest", r"chest|thorax|thoracic|lungs?|pulmonary|cardiac|heart"),
        ("pelvis", r"pelvis|pelvic|uterus|ovar|prostate|bladder"),
        ("abdomen", r"abdomen|abdominal|liver|hepat|kidneys?|renal|gallbladder|biliary|pancrea|spleen"),
        ("vascular", r"aorta|aortic|carotid|vascular|venous|arterial"),
        ("msk", r"shoulder|knee|hip|ankle|wrist|elbow|hand|foot|femur|humerus|joint"),
    ),
    measurements_in_conclusion=True,
    us_technique_forbidden=False,
    judge_instructions=(
        "The reports are written in American English. Judge terminology by American radiology usage (ACR "
        "lexicons, Fleischner Society glossary): no informal abbreviations, modality-appropriate words "
        "(signal for MRI, attenuation/density for CT, echogenicity for ultrasound)."),
    notes=("Lists written for RadConcord; LAIas Bench names the en-US rule kinds but does not list them.",),
)
