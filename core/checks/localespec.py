"""What a locale pack is: :class:`LocaleSpec`, a record of word lists and regular-expression fragments.

A leaf: the packs (:mod:`core.checks.pack_en_us`, :mod:`core.checks.pack_pt_br`) build one each, and
:mod:`core.checks.locale` lists them in its table of locales and compiles them. See that module for what
each list is for (LAIas Bench's *LocaleSpec*, Sec. 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field

MODALITY_FAMILIES = ("CT", "MR", "US", "XR", "MG")
REGIONS = ("head", "neck", "chest", "abdomen", "pelvis", "spine", "breast", "vascular", "msk", "other")


@dataclass(frozen=True)
class LocaleSpec:
    """One locale's evaluation data (LAIas Bench Sec. 5). Fragments are regex source text."""

    code: str
    name: str
    language: str  # for the judge prompt ("American English")
    sections: dict[str, str]  # role (technique | analysis | conclusion | other) -> header fragment
    contrast_terms: tuple[str, ...]  # C01
    exam_with_contrast: str  # exam descriptor says contrast was given
    exam_without_contrast: str
    umbrella_terms: tuple[str, ...]  # C02, in the conclusion
    banned_phrases: tuple[str, ...]  # C03
    placeholders: tuple[str, ...]  # Q07
    normal_conclusion: str  # C06: a conclusion that opens as a normal study
    forbidden_terms: tuple[tuple[str, str], ...]  # T01: (fragment, preferred wording)
    forbidden_openers: tuple[str, ...]  # T02: sentence openers
    modality_vocabulary: dict[str, tuple[tuple[str, str], ...]]  # T03: family -> (fragment, why) not allowed
    coverage: dict[tuple[str, str], tuple[tuple[str, str], ...]]  # GUIDE: (family, region) -> (label, fragment)
    findings: tuple[tuple[str, str], ...]  # (key, fragment) finding vocabulary (C07, C08, R02, R05)
    negation_pre: str  # cue before a finding that negates it ("no", "sem")
    negation_post: str  # cue after it ("is not seen", "não caracterizado")
    negation_stop: str  # words that end a negation's scope
    laterality: dict[str, str]  # side -> fragment
    modality_aliases: dict[str, str]  # family -> fragment matching a modality or exam name
    regions: tuple[tuple[str, str], ...]  # (region, fragment) matched on the anatomy/exam text, first wins
    decimal_comma: bool = False  # "1,6 cm" is one point six
    measurements_in_conclusion: bool = True  # False: C05 applies (no measurements in the conclusion)
    us_technique_forbidden: bool = False  # True: Q09 applies (ultrasound reports carry no technique section)
    judge_instructions: str = ""  # locale part of the LLM judge's prompt (adversarial phase)
    notes: tuple[str, ...] = field(default=(), compare=False)  # where the lists come from
