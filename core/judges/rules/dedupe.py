"""Deduplication of one report's statements (step 4 of :mod:`.extract`).

:func:`dedupe` keeps one finding per observation: an observation restated in the impression, or restated at
the same place with the readings offered for it, is merged into the first statement (missing attributes filled
in); a conflicting restatement in a later section is dropped (its comparison kept); two incompatible instances
in one section (a nodule in each lung) are kept; a negation of what the report states as present elsewhere is
dropped.
"""

from __future__ import annotations

from dataclasses import replace

from core.judges.rules.findings import (
    Finding,
    concepts_related,
    family_of,
    findings_related,
    is_generic,
    sizes_differ,
)

__all__ = ["dedupe"]


def _compatible(a: Finding, b: Finding) -> bool:
    if a.side and b.side and a.side != b.side:
        return False
    sa = a.site_map
    for cls, vals in b.sites:
        if cls in sa and not set(vals) & set(sa[cls]):
            return False
    if a.grade and b.grade and a.grade[0] == b.grade[0] and abs(a.grade[1] - b.grade[1]) >= 1:
        return False
    return not (a.size_mm and b.size_mm and sizes_differ(a.size_mm, b.size_mm))


def _same_place(a: Finding, b: Finding) -> bool:
    """Both statements name the same side, or share a site on no other side; or one is a differential with no
    place of its own ("... atelectasis versus infiltrate": the observation the other places)."""
    if a.side and b.side:
        return a.side == b.side
    sa = a.site_map
    placeless = any(not x.side and not x.sites and x.alternatives for x in (a, b))
    return placeless or any(set(v) & set(sa.get(c, ())) for c, v in b.sites)


#: Site classes that place a density in the lung: a reading at the same lobe or zone is the density's reading
LUNG_SITES = ("lung lobe", "lung zone")
#: Readings that are not of a lung density (devices, surgery, bones): never joined to one
NOT_READING = frozenset({"device", "postsurgical", "fracture", "degenerative", "granulomatous", "calcification"})


def _density_read(a: Finding, b: Finding) -> bool:
    """A density stated at a place in one section and a reading stated at that place in the other ("opacity in
    the right middle lobe" ... "right middle lobe atelectasis") are one observation: both name a lung lobe or
    zone, and no side differs."""
    if a.section == b.section or a.side != b.side and a.side and b.side:
        return False
    density, reading = (a, b) if _is_density(a) else (b, a)
    if not _is_density(density) or _is_density(reading) or is_generic(reading.concept) \
            or family_of(reading.concept) in NOT_READING:
        return False
    sd, sr = density.site_map, reading.site_map
    return any(set(sd.get(c, ())) & set(sr.get(c, ())) for c in LUNG_SITES)


def _placed_material(a: Finding, b: Finding) -> bool:
    """Surgical material placed apart in the same section is another operation's, not the sternotomy's
    ("sternotomy wires. Clips in the left axilla."); unplaced, or summed up in the other section ("post-surgical
    changes"), it is the procedure's."""
    if a.concept == b.concept:
        return False
    if family_of(a.concept) == family_of(b.concept) == "postsurgical" and a.side and b.side and a.side != b.side:
        return True  # two kinds of material on two sides, in any section: two operations ("a screw in the right
        # shoulder" ... "clips over both apices")
    if a.section != b.section:
        return False
    generic, other = (a, b) if is_generic(a.concept) else (b, a)
    return family_of(generic.concept) == "postsurgical" != family_of(other.concept) and bool(generic.side or
                                                                                              generic.sites)


def _is_density(f: Finding) -> bool:
    return is_generic(f.concept) and family_of(f.concept) == "opacity"


def _merge(a: Finding, b: Finding) -> Finding:
    """``a`` with the attributes only ``b`` states."""
    sa = a.site_map
    extra = tuple((c, v) for c, v in b.sites if c not in sa)
    concept, name = (b.concept, b.name) if is_generic(a.concept) and not is_generic(b.concept) else \
        (a.concept, a.name)
    readings = [k for k in (a.concept, b.concept) if not concepts_related(k, concept)]  # offered for it
    alternatives = tuple(dict.fromkeys(k for k in (*a.alternatives, *readings, *b.alternatives) if k != concept))
    return replace(
        a, concept=concept, name=name, side=a.side or b.side, sites=a.sites + extra, alternatives=alternatives,
        grade=a.grade or b.grade, grade_text=a.grade_text if a.grade else b.grade_text,
        size_mm=a.size_mm if a.size_mm is not None else b.size_mm,
        size_text=a.size_text if a.size_mm is not None else b.size_text,
        change=a.change or b.change, change_text=a.change_text if a.change else b.change_text,
        change_at=a.change_at if a.change else b.change_at,
        certainty="definite" if "definite" in (a.certainty, b.certainty) else a.certainty)


def dedupe(raw: list[Finding]) -> list[Finding]:
    positives: list[Finding] = []
    negatives: list[Finding] = []
    statements: list[Finding] = []
    others: list[Finding] = []  # history and findings not assessed: kept, never matched or counted
    for f in raw:
        if f.kind == "statement":
            if not any(s.tokens == f.tokens for s in statements):
                statements.append(f)
            continue
        if f.kind != "finding":
            if not any(o.kind == f.kind and o.concept == f.concept for o in others):
                others.append(f)
            continue
        if not f.present:
            # an absence stated twice is one; the statement that it has resolved since the prior study carries
            # the comparison ("no effusion" ... "interval resolution of the effusion"), whichever comes first
            same = next((i for i, n in enumerate(negatives) if n.concept == f.concept), None)
            if same is None:
                negatives.append(f)
            elif f.change == "resolved" and negatives[same].change != "resolved":
                negatives[same] = f
            continue
        # an observation restated at the same place with the readings offered for it is one finding ("left
        # upper lung airspace opacity" ... "left upper lung opacity which may represent atelectasis or pneumonia"),
        # as is a density and the reading another section gives it at its place
        related = [i for i, p in enumerate(positives) if (concepts_related(p.concept, f.concept)
                   and not _placed_material(p, f)) or (findings_related(p, f) and _same_place(p, f))]
        read = not related
        if read:
            related = [i for i, p in enumerate(positives) if _density_read(p, f)]
        compat = [i for i in related if _compatible(positives[i], f)]
        if compat:
            positives[compat[0]] = _merge(positives[compat[0]], f)
        elif related and not read and any(positives[i].section != f.section for i in related):
            # a conflicting restatement in the impression: the findings section wins, with the comparison
            # only the impression states ("borderline heart" ... "mild stable cardiomegaly")
            i = next(i for i in related if positives[i].section != f.section)
            if f.change and not positives[i].change:
                positives[i] = replace(positives[i], change=f.change, change_text=f.change_text,
                                       change_at=f.change_at)
            continue
        else:
            positives.append(f)
    negatives = [n for n in negatives if not any(concepts_related(p.concept, n.concept) for p in positives)]
    return positives + negatives + statements + others
