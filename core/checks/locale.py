"""Locale packs: everything language-specific the checks need, as data.

A pack is a :class:`LocaleSpec` (word lists and regular-expression fragments,
no logic), registered by code with :func:`register_locale`; the checks and the
scoring never name a language. This is LAIas Bench's *LocaleSpec* (Sec. 5):
section name patterns, forbidden terms with corrections, forbidden sentence
openers, contrast terminology, umbrella terms, banned phrases, normal-study
patterns, modality vocabulary rules, coverage matrices, finding patterns and a
region classification, plus the judge's locale instructions.

Every fragment is matched case-insensitively on word boundaries unless it says
otherwise. :func:`compiled` turns a pack into precompiled regular expressions
once per process (one alternation per list, so a check is one scan of the text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

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


_LOCALES: dict[str, LocaleSpec] = {}


def register_locale(spec: LocaleSpec) -> LocaleSpec:
    """Add a pack (a new locale needs only this call; nothing else changes)."""
    if spec.code in _LOCALES and _LOCALES[spec.code] != spec:
        raise ValueError(f"locale '{spec.code}' is already registered with different data")
    _LOCALES[spec.code] = spec
    compiled.cache_clear()
    return spec


def _load_builtin() -> None:
    from core.checks import pack_en_us, pack_pt_br  # noqa: F401  (each registers itself)


def locales() -> list[str]:
    _load_builtin()
    return sorted(_LOCALES)


def get_locale(code: str) -> LocaleSpec:
    _load_builtin()
    try:
        return _LOCALES[code]
    except KeyError:
        raise ValueError(f"unknown locale '{code}'; locales: {', '.join(sorted(_LOCALES))}") from None


def _alt(fragments, flags=re.I) -> re.Pattern | None:
    fragments = [f for f in fragments if f]
    if not fragments:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(f"(?:{f})" for f in fragments) + r")(?!\w)", flags)


def _one(fragment: str, flags=re.I) -> re.Pattern:
    return re.compile(r"(?<!\w)(?:" + fragment + r")(?!\w)", flags)


@dataclass(frozen=True)
class CompiledLocale:
    """A pack's fragments as compiled patterns (built once per process by :func:`compiled`)."""

    spec: LocaleSpec
    header: re.Pattern  # a section header line; group "role" names which
    header_roles: tuple[tuple[str, re.Pattern], ...]
    contrast: re.Pattern
    exam_with: re.Pattern
    exam_without: re.Pattern
    umbrella: re.Pattern | None
    banned: re.Pattern | None
    placeholder: re.Pattern | None
    normal_conclusion: re.Pattern
    forbidden_terms: tuple[tuple[re.Pattern, str, str], ...]  # (pattern, source, preferred)
    openers: tuple[tuple[re.Pattern, str], ...]
    modality_vocabulary: dict[str, tuple[tuple[re.Pattern, str, str], ...]]
    coverage: dict[tuple[str, str], tuple[tuple[str, re.Pattern], ...]]
    findings: object  # core.judges.rules.Scanner over the finding vocabulary: scan(text) -> [(key, start, end)]
    neg_pre: re.Pattern
    neg_post: re.Pattern
    neg_stop: re.Pattern
    sides: tuple[tuple[str, re.Pattern], ...]
    modality_aliases: tuple[tuple[str, re.Pattern], ...]
    regions: tuple[tuple[str, re.Pattern], ...]


@lru_cache(maxsize=16)
def compiled(code: str) -> CompiledLocale:
    spec = get_locale(code)
    roles = tuple((role, re.compile(frag, re.I)) for role, frag in spec.sections.items())
    header = re.compile(
        r"^[ \t]*(?:<b>|\*\*)?[ \t]*(?P<head>" + "|".join(f"(?:{f})" for f in spec.sections.values())
        + r")[ \t]*(?:</b>|\*\*)?[ \t]*(?::|$)", re.I | re.M)
    # The rules judge's scanner: each word start tries only the terms that can begin with its first
    # character, instead of one alternation over every term at every position (several times faster).
    from core.judges.rules import Scanner

    findings = Scanner([(key, (frag,)) for key, frag in spec.findings])
    return CompiledLocale(
        spec=spec, header=header, header_roles=roles,
        contrast=_alt(spec.contrast_terms), exam_with=_one(spec.exam_with_contrast),
        exam_without=_one(spec.exam_without_contrast), umbrella=_alt(spec.umbrella_terms),
        banned=_alt(spec.banned_phrases), placeholder=_alt(spec.placeholders),
        normal_conclusion=re.compile(r"^\s*(?:\d+[.)]\s*)?(?:" + spec.normal_conclusion + r")", re.I),
        forbidden_terms=tuple((_one(f), f, p) for f, p in spec.forbidden_terms),
        openers=tuple((re.compile(r"^\s*(?:\d+[.)]\s*)?(?:" + f + r")(?!\w)", re.I), f)
                      for f in spec.forbidden_openers),
        modality_vocabulary={fam: tuple((_one(f), f, why) for f, why in rules)
                             for fam, rules in spec.modality_vocabulary.items()},
        coverage={k: tuple((label, _one(f)) for label, f in v) for k, v in spec.coverage.items()},
        findings=findings,
        neg_pre=_one(spec.negation_pre), neg_post=re.compile(r"^\W*(?:" + spec.negation_post + r")(?!\w)", re.I),
        neg_stop=_one(spec.negation_stop),
        sides=tuple((side, _one(f)) for side, f in spec.laterality.items()),
        modality_aliases=tuple((fam, _one(f)) for fam, f in spec.modality_aliases.items()),
        regions=tuple((region, re.compile(f, re.I)) for region, f in spec.regions),
    )


def pack_signature(code: str) -> str:
    """A stable text of the pack's data: part of the checks run's hash (edit a list, get a new run)."""
    spec = get_locale(code)
    return repr({k: v for k, v in spec.__dict__.items() if k != "notes"})
