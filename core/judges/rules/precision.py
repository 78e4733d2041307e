"""Diagnostic precision: a vaguer or a more specific reading of one finding is a partial match, not two errors.

CRIMSON's guideline (``core/prompts/templates/crimson.txt``, "Unspecific and Overinterpretation errors"):
when the candidate names the reference's finding at the same place in vaguer words ("opacity" for
"pneumonia", "nodule" for "calcified granuloma", "opacity" for "mass") or more specifically ("pneumonia"
for "opacity"), the finding is matched with an attribute error, not missed and invented; the error is
significant when the gap changes the work-up (one of the two readings is urgent or actionable and the
other is not the same diagnosis), negligible otherwise. Interchangeable words ("consolidation",
"pneumonia", "infiltrate", "airspace disease") are one observation in :mod:`.vocab` and stay a plain match.
A more serious *different* diagnosis at the place of a matched observation (scarring read as a malignant
mass, consolidation read as a mass) is not a precision gap: it stays a false finding, as the development
set's labelling rules count it (bench/machine_written/README.md).

The attribute error is category (d), as ``core.parse.crimson`` maps CRIMSON's ``unspecific`` and
``overinterpretation`` types.
"""

from __future__ import annotations

import re

from core.judges.rules import significance as S
from core.judges.rules.findings import Finding, family_of

__all__ = ["precision_error", "vaguer_pairs"]

#: Vague readings and the specific diagnoses each can stand for at the same place.
_VAGUE = {"any_opacity": "opacity", "any_nodule": "nodule"}
#: A consolidation is a diagnosis (a pneumonia) only when its sentence says so; "airspace opacity" is not one.
_PNEUMONIA = re.compile(r"\b(?:pneumonias?|infections?|infectious|bronchopneumonia)\b", re.I)
#: Specific readings of a nodule whose level differs from an unexplained nodule's (a granuloma is benign).
_NODULE_READINGS = frozenset({"granuloma", "calcified_nodes"})
_BENIGN_WORDS = re.compile(r"calcif|granulom|benign", re.I)
#: Masses a vaguer "opacity" at the same place stands for (pairing pass of :func:`vaguer_pairs`).
_MASSES = frozenset({"suspicious_mass", "any_mass", "malignancy"})


def _specific_name(f: Finding) -> str | None:
    """The diagnosis ``f`` names beyond a vague reading, or None when it is no more specific."""
    if f.concept == "consolidation":
        return "pneumonia" if _PNEUMONIA.search(f.text) else None
    if f.concept in _NODULE_READINGS or f.concept in _MASSES:
        return f.name
    return None


def _gap(vague: Finding, specific: Finding) -> str | None:
    if vague.concept not in _VAGUE or specific.concept in _VAGUE:
        return None
    name = _specific_name(specific)
    if name is None:
        return None
    if vague.concept == "any_nodule" and (specific.concept not in _NODULE_READINGS or _BENIGN_WORDS.search(vague.text)):
        return None  # a "calcified nodule" already says what a granuloma says
    if vague.concept == "any_opacity" and family_of(specific.concept) not in ("opacity", "mass"):
        return None
    return name


def precision_error(r: Finding, c: Finding, ctx: S.Context = S.NO_CONTEXT) -> tuple[str, bool] | None:
    """The attribute error of a matched pair whose readings differ in precision, with its significance."""
    if r.concept == c.concept or not _same_place(r, c):  # CRIMSON: a precision gap is read at the same place
        return None
    name = _gap(c, r)
    if name is not None:
        text = (f"candidate reads the reference's {name} only as {_VAGUE[c.concept]} (a vaguer reading of the "
                f"same finding)")
    else:
        name = _gap(r, c) if r.concept == "any_opacity" else None  # a nodule read as a granuloma is a reading, kept
        if name is None:
            return None
        text = f"candidate reads the reference's {_VAGUE[r.concept]} as {name} (a more specific diagnosis)"
    lr, lc = S.level(r, ctx), S.level(c, ctx)
    significant = max(lr, lc) >= S.ACTIONABLE
    return text, significant


def _same_place(r: Finding, c: Finding) -> bool:
    if r.side and c.side and r.side != c.side:
        return False
    cm = c.site_map
    shared = [cls for cls, _ in r.sites if cls in cm]
    if any(not set(r.site_map[cls]) & set(cm[cls]) for cls in shared):
        return False
    return bool(shared) or bool(r.side and r.side == c.side)


def vaguer_pairs(refs: list[Finding], cands: list[Finding]) -> list[tuple[int, int]]:
    """Pairs (reference index, candidate index) of a reference mass and a candidate "opacity" at the same place:
    one finding read vaguely, matched with an attribute error (the other direction stays a false finding)."""
    out: list[tuple[int, int]] = []
    used: set[int] = set()
    for i, r in enumerate(refs):
        if r.concept not in _MASSES:
            continue
        for j, c in enumerate(cands):
            if j not in used and c.concept == "any_opacity" and _same_place(r, c):
                used.add(j)
                out.append((i, j))
                break
    return out
