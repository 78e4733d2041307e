"""Scope of the cue words within one sentence, and one finding per observation.

Used by :mod:`.extract`: which observations a negation, hedge, limit or history cue covers
(:func:`forward` to a scope stop, :func:`next_joined` the next one and its list, :func:`backward` the one
before and its list), and :func:`readings`, which folds alternatives offered for one observation and a
density joined to its reading into one finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from core.judges.rules import vocab as V
from core.judges.rules.findings import Finding, family_of, is_generic
from core.judges.rules.patterns import ALTERNATIVE, AND_OR_SEP, DESCRIPTOR, OR_SEP, READING, SLASH, VERSUS

__all__ = ["Mention", "backward", "forward", "next_joined", "readings"]

#: Families of generic findings that name an abnormality of their own, not a density awaiting its reading
NOT_DENSITY = frozenset({"degenerative", "granulomatous"})


@dataclass
class Mention:
    concept: V.Concept
    start: int
    end: int
    seg_start: int = 0
    seg_end: int = 0
    negated: bool = False
    certainty: str = "definite"
    unassessed: bool = False  # "pneumothorax cannot be assessed": neither present nor absent
    history: bool = False  # "known lung cancer": the patient's history, not read on this image


def forward(mentions: list[Mention], stops: list[int], p: int, end: int) -> list[Mention]:
    """The mentions a cue ending at ``p`` scopes over, forward to the next scope stop."""
    end = next((st for st in stops if st >= p), end)
    return [mn for mn in mentions if p <= mn.start < end]


def next_joined(mentions: list[Mention], seps_between: list[str], stops: list[int], p: int,
          joined: re.Pattern = OR_SEP) -> list[Mention]:
    """The mention right after a cue ending at ``p`` (none past a scope stop), and those ``joined`` to it (by "or")."""
    idx = next((i for i, mn in enumerate(mentions) if mn.start >= p), None)
    if idx is None or any(p <= st < mentions[idx].start for st in stops):
        return []
    out = [mentions[idx]]
    while idx + 1 < len(mentions) and joined.match(seps_between[idx] or "x"):
        idx += 1
        out.append(mentions[idx])
    return out


def backward(mentions: list[Mention], seps_between: list[str], p: int, plural: bool) -> list[Mention]:
    """The mentions a cue starting at ``p`` scopes over: the one it follows, and the ones joined to it by
    "or" (or by "and", after a plural verb)."""
    idx = None
    for i, mn in enumerate(mentions):
        if mn.end <= p and mn.seg_end >= p:
            idx = i
    if idx is None:
        return []
    out = [mentions[idx]]
    joined = AND_OR_SEP if plural else OR_SEP
    while idx > 0 and joined.match(seps_between[idx - 1] or "x"):
        idx -= 1
        out.append(mentions[idx])
    return out


def _near(gap: str, generic: bool) -> bool:
    """A density and its reading are one finding when close, or, for a bare density word, when the reading word
    comes right before the reading however long the description ("opacities are present in the right mid lung
    and the left lower lobe, which may represent atelectasis"); a named pattern ("interstitial opacities") read
    far away stays a finding of its own."""
    n = len(gap.split())
    if n <= 10:
        return True
    if not generic:
        return False
    ends = [m.end() for m in READING.finditer(gap)]
    return bool(ends) and n <= 24 and len(gap[ends[-1]:].split()) <= 4


def readings(sent: str, mentions: list[Mention], out: list[Finding]) -> list[Finding]:
    """One finding per observation: alternatives offered for it ("atelectasis versus scarring", "effusion or
    pleural thickening", "scarring/atelectasis") are kept as ``alternatives`` of the first; a density word joined to its reading
    ("opacity, likely atelectasis", "hilar prominence, which may represent lymphadenopathy") is that reading,
    with the density's side, sites and size."""
    keep = [True] * len(out)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if not (a.kind == b.kind == "finding" and a.present and b.present):
            continue
        gap = sent[mentions[i].end:mentions[i + 1].start]
        if ALTERNATIVE.match(gap) and (VERSUS.search(gap) or SLASH.match(gap) or "definite" not in (a.certainty, b.certainty)):
            head = next(k for k in range(i, -1, -1) if keep[k])
            h = out[head]  # the alternative's comparison is the observation's ("pacemaker/ICD, unchanged")
            out[head] = replace(h, alternatives=(*h.alternatives, b.concept, *b.alternatives),
                                change=h.change or b.change, change_text=h.change_text if h.change else b.change_text,
                                change_at=h.change_at if h.change else b.change_at)
            keep[i + 1] = False
    for i in range(len(out) - 1):
        if not keep[i]:
            continue
        j = next((k for k in range(i + 1, len(out)) if keep[k]), None)
        if j is None:
            continue
        a, b = out[i], out[j]
        if not (a.kind == b.kind == "finding" and a.present and b.present):
            continue
        words = sent[mentions[i].start:mentions[i].end]
        gap = sent[mentions[i].end:mentions[j].start]
        joined = READING.search(gap) or (b.alternatives and gap.strip() in (",", "-", ":"))  # "opacities, A versus B"
        # a generic finding that is not a density ("degenerative changes ... suggesting a fracture") stays
        density = (is_generic(a.concept) and family_of(a.concept) not in NOT_DENSITY) or DESCRIPTOR.search(words)
        if density and joined and _near(gap, is_generic(a.concept)):
            out[j] = replace(b, side=b.side or a.side, sites=b.sites + tuple(x for x in a.sites if x[0] not in
                                                                          dict(b.sites)),
                             size_mm=b.size_mm if b.size_mm is not None else a.size_mm,
                             size_text=b.size_text if b.size_mm is not None else a.size_text,
                             grade=b.grade or a.grade, grade_text=b.grade_text if b.grade else a.grade_text,
                             change=b.change or a.change, change_text=b.change_text if b.change else a.change_text,
                             change_at=b.change_at if b.change else a.change_at,
                             text=sent[mentions[i].seg_start:mentions[j].seg_end].strip(" ,;"))
            keep[i] = False
    out = [f for f, k in zip(out, keep, strict=True) if k]
    if "aort" in sent.lower():  # a plaque in a sentence on the aorta is its atherosclerosis ("aorta, tortuous with plaque")
        aorta = V.CONCEPT_BY_KEY["aortic_atherosclerosis"]
        out = [replace(f, concept=aorta.key, name=aorta.name) if f.concept == "plaque" else f for f in out]
    return out
