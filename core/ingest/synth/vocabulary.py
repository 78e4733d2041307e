"""Clinical vocabulary of the synthetic demo: error categories, severity/side/site scales, finding specs."""

from __future__ import annotations

from dataclasses import dataclass

# Words that only ever appear in comparison wording. Finding templates never use
# them, so "does this statement compare with a prior study" is decidable from text
# (the tests rely on it, and so can a rule-based judge -- only per sentence, though).
COMPARISON_CUES: tuple[str, ...] = (
    "prior", "previous", "previously", "since", "compared", "comparison", "unchanged", "stable",
    "interval", "new",
)

# --------------------------------------------------------------------------- #
# Clinical vocabulary: scales                                                  #
# --------------------------------------------------------------------------- #

# Ordered severity scales; a finding's grade is an index into one of them.
GRADES: dict[str, tuple[str, ...]] = {
    "sev": ("mild", "moderate", "severe"),
    "amt": ("small", "moderate", "large"),
    "amt4": ("trace", "small", "moderate", "large"),
    "min": ("minimal", "mild", "moderate"),
    "pe": ("subsegmental", "segmental", "lobar"),
    "cuff": ("low-grade partial-thickness", "high-grade partial-thickness", "full-thickness"),
    "acl": ("partial", "complete"),
    "disp": ("nondisplaced", "minimally displaced", "markedly displaced"),
    "sbo": ("partial", "high-grade"),
    "tirads": ("TI-RADS 3", "TI-RADS 4", "TI-RADS 5"),
    "ica": ("less than 50%", "50-69%", "70-99%"),
    "listh": ("grade 1", "grade 2"),
    "mcl": ("grade 1", "grade 2", "grade 3"),
}
# Surface synonyms of a grade word (paraphrase; the meaning is the same).
_GRADE_FORMS: dict[str, tuple[str, ...]] = {
    "severe": ("severe", "marked"),
    "TI-RADS 3": ("TI-RADS 3", "TR3"),
    "TI-RADS 4": ("TI-RADS 4", "TR4"),
    "TI-RADS 5": ("TI-RADS 5", "TR5"),
}

SIDES: dict[str, tuple[str, ...]] = {
    "lr": ("left", "right"),
    "lrb": ("left", "right", "bilateral"),
    "para": ("left paracentral", "right paracentral", "central"),
}
SIDE_ADJ: dict[str, tuple[str, ...]] = {
    "left": ("left", "left-sided"),
    "right": ("right", "right-sided"),
    "bilateral": ("bilateral",),
}
SIDE_PP: dict[str, tuple[str, ...]] = {
    "left": ("on the left",),
    "right": ("on the right",),
    "bilateral": ("bilaterally", "on both sides"),
}

_LUMBAR = ("L1-L2", "L2-L3", "L3-L4", "L4-L5", "L5-S1")
_CERVICAL = ("C3-C4", "C4-C5", "C5-C6", "C6-C7")
SITES: dict[str, tuple[str, ...]] = {
    "lobe": ("right upper lobe", "right middle lobe", "right lower lobe", "left upper lobe", "left lower lobe"),
    "lumbar": _LUMBAR,
    "cervical": _CERVICAL,
    "vbody_l": ("T12", "L1", "L2", "L3", "L4"),
    "listh_l": ("L3 on L4", "L4 on L5", "L5 on S1"),
    "listh_c": ("C3 on C4", "C4 on C5", "C5 on C6"),
    "pole": ("upper pole", "interpolar region", "lower pole"),
    "liverseg": tuple(f"segment {i}" for i in range(2, 9)),
    "brainlobe": ("frontal lobe", "parietal lobe", "temporal lobe", "occipital lobe", "basal ganglia"),
    "lacune": ("basal ganglia", "thalamus", "corona radiata"),
    "convexity": ("frontal convexity", "parietal convexity", "sphenoid wing"),
    "skull": ("frontal bone", "parietal bone", "temporal bone", "occipital bone"),
    "rib": ("4th", "5th", "6th", "7th", "8th", "9th"),
    "mediastinal": ("right paratracheal", "left paratracheal", "subcarinal", "prevascular"),
    "aorta": ("ascending aorta", "aortic arch", "descending thoracic aorta"),
    "colon": ("sigmoid colon", "descending colon"),
    "fibroid": ("intramural", "subserosal", "submucosal"),
    "medlat": ("medial", "lateral"),
    "compartment": ("medial", "lateral", "patellofemoral"),
    "condyle": ("lateral femoral condyle", "medial femoral condyle", "lateral tibial plateau",
                "medial tibial plateau"),
    "cuff": ("supraspinatus", "infraspinatus", "subscapularis"),
    "calcific": ("supraspinatus", "infraspinatus"),
    "labrum": ("superior", "anterior", "posterior"),
    "antpost": ("anterior", "posterior"),
    "hip": ("femoral neck", "intertrochanteric region", "subtrochanteric region"),
    "quadrant": ("upper outer quadrant", "upper inner quadrant", "lower outer quadrant", "lower inner quadrant",
                 "retroareolar region"),
    "clock": ("12 o'clock", "2 o'clock", "3 o'clock", "6 o'clock", "9 o'clock", "10 o'clock"),
    "thyroid": ("right lobe", "left lobe", "isthmus"),
    "necklevel": ("level II", "level III", "level IV"),
    "aneurysm": ("anterior communicating artery", "left MCA bifurcation", "right MCA bifurcation",
                 "left posterior communicating artery", "basilar tip"),
    "convex": ("dextroconvex", "levoconvex"),
}
_ROMAN = {2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII"}
# Alternative spellings of a site ("L4-5" for "L4-L5", Couinaud numerals).
SITE_FORMS: dict[str, tuple[str, ...]] = {
    **{lv: (lv, lv[:3] + lv[4:]) for lv in _LUMBAR + _CERVICAL if lv != "L5-S1"},
    **{f"segment {i}": (f"segment {i}", f"segment {r}") for i, r in _ROMAN.items()},
}


def grade_forms(grade: str) -> tuple[str, ...]:
    """All surface forms used for a grade word (e.g. ``severe`` -> severe, marked)."""
    return _GRADE_FORMS.get(grade, (grade,))


def location_forms(value: str) -> tuple[str, ...]:
    """All surface forms used for a side or site value (e.g. ``bilateral`` -> bilateral, bilaterally, ...)."""
    if value in SIDE_ADJ:
        return SIDE_ADJ[value] + SIDE_PP[value]
    return SITE_FORMS.get(value, (value,))

# --------------------------------------------------------------------------- #
# Clinical vocabulary: findings                                                #
# --------------------------------------------------------------------------- #
Term = tuple[str, str, str]  # (singular, plural, kind) with kind c=count, m=mass, p=plural-only


@dataclass(frozen=True)
class FindingSpec:
    """One kind of finding and how to write about it.

    Attributes
    ----------
    key : str
        Stable identifier recorded in ``meta``.
    terms : tuple of Term
        Synonymous names; every positive statement contains one of them.
    nps : tuple of str
        Noun-phrase templates. Slots: ``{t}`` term, ``{g}`` grade, ``{side}`` /
        ``{sidex}`` / ``{sidep}`` laterality (plain / "left-sided" / "on the
        left"), ``{site}``, ``{z}`` size, ``{s}`` / ``{es}`` plural suffix when
        bilateral. A leading ``1:`` means the head noun is singular whatever
        the term ("a small amount of free fluid").
    neg : tuple of str
        Nouns for negative statements ("No {neg}."). Empty: never negated.
    normal : tuple of str
        Stand-alone normal statements implying absence ("The heart size is normal.").
    side, site, grade : str or None
        Scale names (``SIDES``, ``SITES``, ``GRADES``); a site may be an exam
        placeholder (``LEVEL``, ``VBODY``, ``LISTH``).
    size : (int, int) or None
        Plausible size range in millimetres.
    sig : int or None
        Presence significance: None never, 0 always, k when grade index >= k.
    sig_size : int or None
        Also significant when the size is at least this many millimetres.
    d_ratio : float
        Size ratio from which a size discrepancy counts as significant.
    hedge : bool
        May be reported with a hedge ("Possible ...", "Probable ...").
    cmp : bool
        May be compared with a prior study.
    changes : tuple of str
        Which changes versus the prior make sense (a fracture is new or
        unchanged; it does not "increase").
    markers : tuple of str
        Extra strings identifying the finding (used by the tests).
    """

    key: str
    terms: tuple[Term, ...]
    nps: tuple[str, ...]
    neg: tuple[str, ...] = ()
    normal: tuple[str, ...] = ()
    side: str | None = None
    site: str | None = None
    grade: str | None = None
    size: tuple[int, int] | None = None
    sig: int | None = None
    sig_size: int | None = None
    d_ratio: float = 1.5
    hedge: bool = False
    cmp: bool = True
    markers: tuple[str, ...] = ()
    changes: tuple[str, ...] = ("unchanged", "increased", "decreased", "new")

    @property
    def all_terms(self) -> tuple[str, ...]:
        """Every lower-cased string that names this finding (terms, plurals, negation nouns, markers)."""
        out = {t for term in self.terms for t in term[:2]} | set(self.neg) | set(self.markers)
        return tuple(sorted(s.lower() for s in out))

