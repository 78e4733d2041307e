"""Locale packs: everything language-specific the checks need, as data.

A pack is a :class:`~core.checks.localespec.LocaleSpec` (word lists and
regular-expression fragments, no logic) in a module of its own; the table
:data:`LOCALES` below lists the built-in packs by code (a new locale: its pack
module and one entry there), and :func:`register_locale` adds one at run time.
The checks and the scoring never name a language. This is LAIas Bench's *LocaleSpec* (Sec. 5):
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
from dataclasses import dataclass
from functools import lru_cache

from core.checks.localespec import LocaleSpec
from core.checks.pack_en_us import EN_US
from core.checks.pack_pt_br import PT_BR

#: The locales by code: the built-in packs, plus any added with :func:`register_locale`.
LOCALES: dict[str, LocaleSpec] = {spec.code: spec for spec in (EN_US, PT_BR)}


def register_locale(spec: LocaleSpec) -> LocaleSpec:
    """Add a pack at run time (a built-in one is an entry of :data:`LOCALES`)."""
    if spec.code in LOCALES and LOCALES[spec.code] != spec:
        raise ValueError(f"locale '{spec.code}' is already registered with different data")
    LOCALES[spec.code] = spec
    compiled.cache_clear()
    return spec


def locales() -> list[str]:
    return sorted(LOCALES)


def get_locale(code: str) -> LocaleSpec:
    try:
        return LOCALES[code]
    except KeyError:
        raise ValueError(f"unknown locale '{code}'; locales: {', '.join(sorted(LOCALES))}") from None


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
