"""Seeded synthetic demo corpus of radiology report pairs with known error labels.

A fresh install has no data, so the dashboard ships with a generated corpus:
each *pair* is a reference report and a candidate report (as if written by a
report generator), annotated with ReXVal-style error counts whose labels are
known **by construction**. Nothing here comes from real patients.

How a pair is built
-------------------
1. An *exam* (modality + anatomy, e.g. ``CT`` / ``chest``) is drawn. Each exam
   owns a pool of *findings* in anatomic reading order (pneumothorax, pleural
   effusion, ...). A finding is structured data: laterality, location, severity
   grade, size in millimetres, comparison with a prior study, hedging.
2. The reference keeps a few findings as positive statements and states the
   absence of a few others ("No pneumothorax.", "The heart size is normal.").
3. For every candidate the *structured* finding list is copied and the
   simulated system's errors are applied to it (drop a finding, move it to the
   other side, change its grade or size, invent a finding or a comparison,
   drop a comparison). Every applied change is recorded as one error.
4. Reference and candidate are then rendered to text **independently**:
   phrasing templates, synonyms ("pleural effusion" / "pleural fluid
   collection"), negation forms ("No X." / "X is not seen."), hedges,
   mm versus cm, sentence order and section layout are all drawn afresh, so an
   error-free candidate is a paraphrase rather than a copy and an error is not
   a one-token edit of a fixed template. A small fraction of candidates is an
   exact copy of the reference.

Because the errors are applied to structure and the text is rendered from the
structure, the labels and the text cannot drift apart; ``tests/test_synth.py``
checks this for every pair from the details recorded in ``meta``. At most one
error touches a finding, so every label has a single unambiguous cause.

Benign variation (never labelled): rewording, reordering, merging negatives
("No pleural effusion or pneumothorax."), leaving out *negative* statements,
dropping the impression section, and mm/cm or "L4-5"/"L4-L5" spellings. About
3% of candidates are verbatim copies (the analysis can filter identical pairs).

``meta`` (JSON) of a pair::

    {"synthetic": true, "generator": "core.synth", "seed": 7, "exam": "CT chest with contrast",
     "prior_date": "03/14/2022" | null, "identical": false,
     "ref_findings": ["pleural_effusion", ...], "cand_findings": [...],
     "errors": [{"category": "c", "significant": true,
                 "detail": "laterality of pleural effusion: left -> right",
                 "finding": "pleural_effusion", "attr": "side", "from": "left", "to": "right",
                 "ref": "<reference sentence>", "cand": "<candidate sentence>"}, ...]}

``attr`` is side/site/grade/size/cmp (null for a and b); sizes are in mm;
``ref`` is null for a false finding and ``cand`` null for a missing one.

Error categories (ReXVal)
-------------------------
a  false finding: a finding absent from the reference (possibly one the
   reference explicitly called normal) is reported.
b  missing finding: a positive reference finding is not reported.
c  wrong location: same finding, other side or other site.
d  wrong severity: same finding, other grade or a different size.
e  added comparison: a change versus a prior study the reference did not state.
f  omitted comparison: a comparison the reference made is dropped.

Significance is decided by clinical weight, not at random. Each finding says
when its presence matters (always: pneumothorax; from a grade: a moderate
effusion; from a size: a 6 mm nodule; never: a calcified granuloma). Missing or
inventing it (a, b), misplacing it (c), or adding/dropping a stated *change*
versus the prior (e, f; "unchanged" is minor) is significant exactly when the
finding matters. A grade error (d) is significant for a finding that can
matter when it jumps two steps, crosses the threshold, or concerns an
always-serious finding; a size error when the ratio is large (1.5x, 1.2x for
aneurysms) or crosses the size threshold. See :func:`_presence_significant`
and :func:`_propose`.

Annotators and score
--------------------
``expert_1`` reports exactly the constructed counts. ``expert_2`` is a seeded
second rater: on a minority of pairs it miscounts by one in a category or
calls a significant error insignificant (or, rarely, the reverse); identical
pairs are never perturbed. Each annotator's overall score on a 0-5 scale
(5 = perfect) is derived from its own counts::

    score = clip(round_half_up(5 - 1.0 * n_significant - 0.3 * n_insignificant), 0, 5)

computed in exact integer arithmetic as ``clip((55 - 10*sig - 3*insig) // 10, 0, 5)``.
"""

from __future__ import annotations

import json
import math
import random
import string
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "COMPARISON_CUES",
    "EXAMS",
    "FINDINGS",
    "SYSTEMS",
    "DemoCorpus",
    "Exam",
    "FindingSpec",
    "generate_demo",
    "grade_forms",
    "location_forms",
]

CATEGORIES: tuple[str, ...] = ("a", "b", "c", "d", "e", "f")
CATEGORY_NAMES: dict[str, str] = {
    "a": "False report of a finding",
    "b": "Missing a finding",
    "c": "Misidentification of a finding's anatomic location/position",
    "d": "Misassessment of the severity of a finding",
    "e": "Mentioning a comparison that isn't in the reference",
    "f": "Omitting a comparison detailing a change from a prior study",
}
SYSTEMS: tuple[str, ...] = ("sys-careful", "sys-terse", "sys-hallucinating", "sys-sloppy")

PAIR_COLUMNS = ("ext_id", "reference", "candidate", "group_id", "system", "modality", "anatomy", "split", "meta")
ANNOTATION_COLUMNS = ("ext_id", "annotator", "field", "category", "significant", "value", "scale_max")
ANNOTATORS = ("expert_1", "expert_2")
SCALE_MAX = 5.0

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
_SIDE_ADJ: dict[str, tuple[str, ...]] = {
    "left": ("left", "left-sided"),
    "right": ("right", "right-sided"),
    "bilateral": ("bilateral",),
}
_SIDE_PP: dict[str, tuple[str, ...]] = {
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
_SITE_FORMS: dict[str, tuple[str, ...]] = {
    **{lv: (lv, lv[:3] + lv[4:]) for lv in _LUMBAR + _CERVICAL if lv != "L5-S1"},
    **{f"segment {i}": (f"segment {i}", f"segment {r}") for i, r in _ROMAN.items()},
}


def grade_forms(grade: str) -> tuple[str, ...]:
    """All surface forms used for a grade word (e.g. ``severe`` -> severe, marked)."""
    return _GRADE_FORMS.get(grade, (grade,))


def location_forms(value: str) -> tuple[str, ...]:
    """All surface forms used for a side or site value (e.g. ``bilateral`` -> bilateral, bilaterally, ...)."""
    if value in _SIDE_ADJ:
        return _SIDE_ADJ[value] + _SIDE_PP[value]
    return _SITE_FORMS.get(value, (value,))


# --------------------------------------------------------------------------- #
# Clinical vocabulary: findings                                                #
# --------------------------------------------------------------------------- #

Term = tuple[str, str, str]  # (singular, plural, kind) with kind c=count, m=mass, p=plural-only


def _c(singular: str, plural: str | None = None) -> Term:
    return (singular, plural or singular + "s", "c")


def _m(text: str) -> Term:
    return (text, text, "m")


def _p(text: str) -> Term:
    return (text, text, "p")


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


_F = FindingSpec
_NEW_OR_SAME = ("unchanged", "new")
_FINDING_LIST: tuple[FindingSpec, ...] = (
    # ---- chest -------------------------------------------------------------
    _F("pneumothorax", (_c("pneumothorax", "pneumothoraces"),),
       ("{g} {side} {t}", "{g} {t} {sidep}", "{g} {sidex} {t}"),
       neg=("pneumothorax",), side="lrb", grade="amt", sig=0),
    _F("pleural_effusion", (_c("pleural effusion"), _c("pleural fluid collection")),
       ("{g} {side} {t}", "{g} {t} {sidep}", "{g} {sidex} {t}",
        "1:{g} amount of fluid in the {side} pleural space{s}"),
       neg=("pleural effusion", "pleural fluid"), side="lrb", grade="amt", sig=1, markers=("pleural space",)),
    _F("consolidation", (_m("consolidation"), _c("airspace opacity", "airspace opacities"), _m("airspace disease")),
       ("{site} {t}", "{t} in the {site}", "{t} involving the {site}"),
       neg=("focal consolidation", "focal airspace disease"), site="lobe", sig=0, hedge=True),
    _F("pulmonary_edema", (_m("pulmonary edema"), _m("interstitial edema")), ("{g} {t}",),
       neg=("pulmonary edema",), normal=("The pulmonary vasculature is within normal limits.",),
       grade="sev", sig=1),
    _F("cardiomegaly", (_m("cardiomegaly"), _m("enlargement of the cardiac silhouette")), ("{g} {t}",),
       neg=("cardiomegaly",),
       normal=("The heart size is normal.", "Heart size is within normal limits.",
               "The cardiac silhouette is normal in size."),
       grade="sev", sig=2),
    _F("atelectasis", (_m("atelectasis"),),
       ("{g} {side} basilar {t}", "{g} {t} at the {side} lung base{s}"),
       side="lrb", grade="min"),
    _F("pulmonary_nodule", (_c("pulmonary nodule"), _c("lung nodule"), _c("noncalcified nodule")),
       ("{z} {t} in the {site}", "{z} {site} {t}", "{t} in the {site} measuring {z}"),
       neg=("suspicious pulmonary nodule",), site="lobe", size=(3, 25), sig_size=6),
    _F("rib_fracture", (_c("rib fracture"),), ("{side} {site} {t}", "{sidex} {site} {t}"),
       neg=("displaced rib fracture", "acute rib fracture"), side="lr", site="rib", sig=0, changes=_NEW_OR_SAME),
    _F("granuloma", (_c("calcified granuloma"),), ("{t} in the {site}", "{site} {t}"), site="lobe", changes=_NEW_OR_SAME),
    _F("hiatal_hernia", (_c("hiatal hernia"),), ("{g} {t}",), neg=("hiatal hernia",), grade="amt"),
    _F("emphysema", (_m("emphysema"), _m("centrilobular emphysema")), ("{g} {t}", "{g} upper lobe predominant {t}"),
       neg=("emphysema",), grade="sev", sig=2),
    _F("lymphadenopathy", (_c("enlarged lymph node"), _c("enlarged mediastinal lymph node")),
       ("{z} {t} in the {site} station", "{t} in the {site} station measuring {z} in short axis"),
       neg=("mediastinal lymphadenopathy", "hilar lymphadenopathy"), site="mediastinal", size=(11, 30), sig=0),
    _F("pericardial_effusion", (_c("pericardial effusion"),), ("{g} {t}",),
       neg=("pericardial effusion",), grade="amt", sig=1),
    _F("coronary_calcification", (_m("coronary artery calcification"), _m("coronary atherosclerotic calcification")),
       ("{g} {t}",), grade="sev"),
    _F("pulmonary_embolism", (_c("pulmonary embolus", "pulmonary emboli"), _m("pulmonary embolism")),
       ("{side} {g} {t}", "{g} {t} {sidep}"),
       neg=("pulmonary embolism",), normal=("The pulmonary arteries are well opacified.",),
       side="lrb", grade="pe", sig=0),
    _F("aortic_dissection", (_c("aortic dissection"), _c("dissection flap")),
       ("{t} involving the {site}", "{t} in the {site}"),
       neg=("aortic dissection",), site="aorta", sig=0, changes=_NEW_OR_SAME),
    # ---- abdomen / liver / kidney -------------------------------------------
    _F("liver_lesion", (_c("hepatic lesion"), _c("liver lesion"), _c("hepatic hypodensity", "hepatic hypodensities")),
       ("{z} {t} in {site}", "{z} {t} in hepatic {site}", "{t} in {site} measuring {z}"),
       neg=("focal hepatic lesion", "focal liver lesion"), site="liverseg", size=(4, 45), sig_size=10),
    _F("liver_lesion_us", (_c("hepatic lesion"), _c("liver lesion"), _c("echogenic hepatic lesion")),
       ("{z} {t} in {site}", "{t} in {site} measuring {z}"),
       neg=("focal hepatic lesion", "focal liver lesion"), site="liverseg", size=(4, 45), sig_size=10),
    _F("hepatic_steatosis", (_m("hepatic steatosis"), _m("fatty infiltration of the liver")),
       ("{g} {t}", "{g} diffuse {t}"), neg=("hepatic steatosis",), grade="sev"),
    _F("cirrhosis", (_m("cirrhosis"), _m("cirrhotic liver morphology")), ("{t}", "{t} with a nodular contour"),
       sig=0, hedge=True),
    _F("splenomegaly", (_m("splenomegaly"),), ("{g} {t}",),
       normal=("The spleen is normal in size.",), grade="sev", sig=2),
    _F("gallstones", (_p("gallstones"), _m("cholelithiasis")), ("{t}",), neg=("gallstones", "cholelithiasis")),
    _F("gb_wall_thickening", (_m("gallbladder wall thickening"),), ("{t} measuring {z}", "{t} to {z}"),
       neg=("gallbladder wall thickening",), size=(4, 10), sig_size=6),
    _F("cholecystitis", (_m("acute cholecystitis"),), ("{t}", "{t} with a positive sonographic Murphy sign"),
       neg=("cholecystitis",), sig=0, hedge=True, cmp=False),
    _F("cbd_dilation", (_m("common bile duct dilation"), _m("biliary ductal dilation")),
       ("{t} with the duct measuring {z}", "{t} to {z}"),
       neg=("biliary ductal dilation",), normal=("The common bile duct is normal in caliber.",),
       size=(7, 15), sig=0),
    _F("appendicitis", (_m("acute appendicitis"),), ("{t}", "{t} with periappendiceal fat stranding"),
       neg=("appendicitis",), normal=("The appendix is normal.", "A normal appendix is visualized."),
       sig=0, hedge=True, cmp=False),
    _F("pancreatitis", (_m("acute pancreatitis"),), ("{g} {t}",), neg=("pancreatitis",),
       grade="sev", sig=0, hedge=True),
    _F("adrenal_nodule", (_c("adrenal nodule"), _c("adrenal adenoma")), ("{z} {side} {t}", "{z} {sidex} {t}"),
       neg=("adrenal nodule",), side="lr", size=(8, 35)),
    _F("kidney_stone", (_c("renal calculus", "renal calculi"), _c("kidney stone")),
       ("{z} nonobstructing {t} in the {site} of the {side} kidney", "{z} {t} in the {side} kidney ({site})"),
       neg=("nephrolithiasis",), side="lr", site="pole", size=(2, 14), sig_size=8),
    _F("hydronephrosis", (_m("hydronephrosis"), _m("pelvicaliectasis")),
       ("{g} {side} {t}", "{g} {t} {sidep}", "{g} {sidex} {t}"),
       neg=("hydronephrosis",), side="lrb", grade="sev", sig=1),
    _F("renal_cyst", (_c("simple renal cyst"), _c("renal cyst")),
       ("{z} {t} in the {site} of the {side} kidney", "{t} arising from the {site} of the {side} kidney measuring {z}"),
       side="lr", site="pole", size=(5, 60)),
    _F("renal_mass", (_c("solid renal mass", "solid renal masses"), _c("solid renal lesion")),
       ("{z} {t} in the {site} of the {side} kidney", "{t} in the {site} of the {side} kidney measuring {z}"),
       neg=("solid renal mass",), side="lr", site="pole", size=(12, 70), sig=0, hedge=True),
    _F("renal_cortical_thinning", (_m("renal cortical thinning"),), ("{g} {side} {t}", "{g} {t} {sidep}"),
       side="lrb", grade="sev"),
    _F("bladder_wall_thickening", (_m("bladder wall thickening"),), ("{g} {t}", "{g} diffuse {t}"),
       neg=("bladder wall thickening",), grade="sev"),
    _F("ascites", (_m("ascites"), _m("free intraperitoneal fluid")), ("{g} {t}", "1:{g} amount of {t}"),
       neg=("ascites",), grade="amt4", sig=2),
    _F("sbo", (_m("small bowel obstruction"),), ("{g} {t}",),
       neg=("bowel obstruction",), normal=("The bowel is normal in caliber.",), grade="sbo", sig=0, hedge=True),
    _F("diverticulitis", (_m("acute diverticulitis"),), ("{t} of the {site}", "{site} {t}"),
       neg=("diverticulitis",), site="colon", sig=0, hedge=True),
    _F("diverticulosis", (_m("diverticulosis"),), ("{site} {t}", "{t} of the {site}"), site="colon"),
    _F("umbilical_hernia", (_c("fat-containing umbilical hernia"), _c("umbilical hernia")), ("{g} {t}",),
       grade="amt"),
    # ---- vessels ---------------------------------------------------------------
    _F("aaa", (_c("abdominal aortic aneurysm"), _c("infrarenal aortic aneurysm")),
       ("{z} {t}", "{t} measuring {z} in maximal diameter", "{t} with a maximal diameter of {z}"),
       neg=("abdominal aortic aneurysm",), size=(30, 65), sig=0, d_ratio=1.2),
    _F("iliac_aneurysm", (_c("common iliac artery aneurysm"),), ("{z} {side} {t}", "{side} {t} measuring {z}"),
       side="lr", size=(15, 40), sig=0),
    _F("renal_artery_stenosis", (_m("renal artery stenosis"),), ("{g} {side} {t}", "{g} {t} {sidep}"),
       neg=("renal artery stenosis",), side="lrb", grade="sev", sig=1),
    _F("aortic_atherosclerosis", (_m("aortic atherosclerosis"), _m("atherosclerotic calcification of the aorta")),
       ("{g} {t}",), grade="sev"),
    _F("ica_stenosis", (_m("internal carotid artery stenosis"), _m("ICA stenosis")),
       ("{g} {side} {t}", "{side} {t} of {g}"),
       neg=("hemodynamically significant stenosis",), side="lrb", grade="ica", sig=1),
    _F("carotid_plaque", (_m("atherosclerotic plaque"), _m("calcified plaque")),
       ("{g} {t} at the {side} carotid bifurcation{s}", "{g} {side} carotid bulb {t}"), side="lrb", grade="sev"),
    _F("vertebral_reversal", (_m("reversal of flow"),), ("{t} in the {side} vertebral artery",),
       side="lr", sig=0, cmp=False),
    _F("intracranial_aneurysm", (_c("saccular aneurysm"), _c("intracranial aneurysm")),
       ("{z} {t} arising from the {site}", "{z} {t} at the {site}", "{t} at the {site} measuring {z}"),
       neg=("intracranial aneurysm",), site="aneurysm", size=(2, 12), sig=0),
    _F("mca_stenosis", (_m("middle cerebral artery stenosis"), _m("MCA stenosis")),
       ("{g} {side} {t}", "{g} {t} {sidep}"),
       neg=("flow-limiting stenosis",), side="lrb", grade="sev", sig=1),
    _F("fetal_pca", (_c("fetal-type posterior cerebral artery", "fetal-type posterior cerebral arteries"),),
       ("{side} {t}", "{t} {sidep}"), side="lrb", cmp=False),
    # ---- pelvis ------------------------------------------------------------------
    _F("ovarian_cyst", (_c("ovarian cyst"), _c("simple ovarian cyst"), _c("adnexal cyst")),
       ("{z} {side} {t}", "{z} {t} in the {side} adnexa", "{side} {t} measuring {z}"),
       neg=("adnexal mass",), side="lr", size=(10, 70), sig_size=50),
    _F("fibroid", (_c("uterine fibroid"), _c("leiomyoma")), ("{z} {site} {t}", "{site} {t} measuring {z}"),
       site="fibroid", size=(8, 80)),
    _F("pelvic_free_fluid", (_m("free fluid"), _m("pelvic free fluid")),
       ("1:{g} amount of {t} in the pelvis", "1:{g} amount of {t} in the cul-de-sac"),
       neg=("free fluid",), grade="amt4", sig=2),
    _F("endometrial_thickening", (_m("endometrial thickening"),),
       ("{t} measuring {z}", "{t} with the endometrium measuring {z}"), size=(8, 25), sig_size=15),
    _F("adenomyosis", (_m("adenomyosis"),), ("{g} {t}",), grade="sev", hedge=True),
    # ---- brain ---------------------------------------------------------------------
    _F("ich", (_c("intraparenchymal hemorrhage"), _c("intraparenchymal hematoma")),
       ("{z} {t} in the {side} {site}", "{t} in the {side} {site} measuring {z}"),
       neg=("intraparenchymal hemorrhage",), side="lr", site="brainlobe", size=(8, 45), sig=0),
    _F("sdh", (_c("subdural hematoma"), _c("subdural hemorrhage")),
       ("{side} {t} measuring {z} in thickness", "{z} {side} {t}"),
       neg=("extra-axial collection", "subdural collection"), side="lrb", size=(3, 18), sig=0),
    _F("acute_infarct", (_c("acute infarct"), _c("acute ischemic infarct")),
       ("{t} in the {side} {site}", "{side} {site} {t}", "{t} involving the {side} {site}"),
       neg=("acute infarct",), side="lr", site="brainlobe", sig=0, hedge=True),
    _F("chronic_infarct", (_c("chronic lacunar infarct"), _c("old lacunar infarct")),
       ("{t} in the {side} {site}", "{side} {site} {t}"), side="lr", site="lacune", changes=_NEW_OR_SAME),
    _F("small_vessel", (_m("chronic small vessel ischemic disease"), _p("white matter hyperintensities")),
       ("{g} {t}",), grade="sev"),
    _F("hydrocephalus", (_m("hydrocephalus"), _m("ventriculomegaly")), ("{g} {t}",),
       neg=("hydrocephalus",),
       normal=("The ventricles are normal in size.", "Ventricular size is within normal limits."),
       grade="sev", sig=1),
    _F("midline_shift", (_m("midline shift"),), ("{z} of {t}", "{t} measuring {z}"),
       neg=("midline shift",), size=(2, 12), sig=0),
    _F("skull_fracture", (_c("skull fracture"), _c("calvarial fracture")),
       ("nondisplaced {t} involving the {side} {site}", "{t} of the {side} {site}"),
       neg=("skull fracture", "calvarial fracture"), side="lr", site="skull", sig=0, changes=_NEW_OR_SAME),
    _F("sinus_disease", (_m("mucosal thickening"),),
       ("{g} {t} in the {side} maxillary sinus{es}", "{g} {side} maxillary sinus {t}"), side="lrb", grade="sev"),
    _F("volume_loss", (_m("generalized volume loss"), _m("cerebral atrophy")), ("{g} {t}",), grade="sev"),
    _F("brain_mass", (_c("enhancing mass", "enhancing masses"), _c("enhancing lesion")),
       ("{z} {t} in the {side} {site}", "{t} in the {side} {site} measuring {z}"),
       neg=("intra-axial mass",), side="lr", site="brainlobe", size=(8, 50), sig=0),
    _F("meningioma", (_c("meningioma"), _c("extra-axial mass", "extra-axial masses")),
       ("{z} {t} along the {side} {site}", "{z} {side} {site} {t}"),
       side="lr", site="convexity", size=(5, 40), sig_size=30, hedge=True),
    # ---- spine -----------------------------------------------------------------------
    _F("disc_herniation", (_c("disc herniation"), _c("herniated disc")),
       ("{g} {side} {t} at {site}", "{g} {site} {side} {t}"),
       neg=("disc herniation",), side="para", site="LEVEL", grade="amt", sig=1),
    _F("canal_stenosis", (_m("spinal canal stenosis"), _m("central canal stenosis")),
       ("{g} {t} at {site}", "{g} {site} {t}"),
       neg=("spinal canal stenosis",), site="LEVEL", grade="sev", sig=2),
    _F("foraminal_narrowing", (_m("neural foraminal narrowing"), _m("foraminal stenosis")),
       ("{g} {side} {t} at {site}", "{g} {site} {side} {t}"),
       neg=("neural foraminal narrowing",), side="lrb", site="LEVEL", grade="sev", sig=2),
    _F("facet_arthropathy", (_m("facet arthropathy"),), ("{g} {t} at {site}", "{g} {site} {t}"),
       site="LEVEL", grade="sev"),
    _F("disc_degeneration", (_m("degenerative disc disease"), _m("disc space narrowing")),
       ("{g} {t} at {site}", "{g} {site} {t}"), site="LEVEL", grade="sev"),
    _F("compression_fracture", (_c("compression fracture"), _c("compression deformity", "compression deformities")),
       ("{g} {site} {t}", "{g} {t} of {site}", "{g} {t} of the {site} vertebral body"),
       neg=("compression fracture",), site="vbody_l", grade="sev", sig=0),
    _F("spondylolisthesis", (_c("anterolisthesis", "anterolistheses"),), ("{g} {t} of {site}",),
       site="LISTH", grade="listh", sig=1),
    _F("cord_signal", (_m("cord signal abnormality"), _m("abnormal cord signal")),
       ("{t} at {site}", "{t} at the {site} level"),
       neg=("cord signal abnormality",), normal=("The spinal cord is normal in caliber and signal.",),
       site="LEVEL", sig=0, hedge=True),
    _F("scoliosis", (_m("scoliosis"),), ("{g} {site} {t}", "{g} {site} lumbar {t}"), site="convex", grade="sev"),
    # ---- knee ------------------------------------------------------------------------
    _F("acl_tear", (_c("anterior cruciate ligament tear"), _c("ACL tear")), ("{g} {t}",),
       normal=("The anterior cruciate ligament is intact.", "The ACL is intact."), grade="acl", sig=0, changes=_NEW_OR_SAME),
    _F("meniscal_tear", (_c("meniscal tear"), _c("meniscus tear")),
       ("{site} {t}", "{t} of the posterior horn of the {site} meniscus", "{site} {t} involving the posterior horn"),
       normal=("The menisci are intact.",), site="medlat", sig=0, changes=_NEW_OR_SAME),
    _F("joint_effusion", (_c("joint effusion"),), ("{g} {t}",), neg=("joint effusion",), grade="amt"),
    _F("bone_contusion", (_c("bone contusion"), _m("bone marrow edema")),
       ("{t} in the {site}", "{t} involving the {site}"), site="condyle"),
    _F("chondral_loss", (_m("chondral thinning"), _m("cartilage loss")),
       ("{g} {t} in the {site} compartment", "{g} {site} compartment {t}"), site="compartment", grade="sev"),
    _F("baker_cyst", (_c("Baker cyst"), _c("popliteal cyst")), ("{z} {t}", "{t} measuring {z}"), size=(10, 60)),
    _F("mcl_sprain", (_m("MCL sprain"), _m("medial collateral ligament sprain")), ("{g} {t}",),
       grade="mcl", sig=2),
    _F("knee_oa", (_m("osteoarthritis"), _m("degenerative joint disease")),
       ("{g} {site} compartment {t}", "{g} {t} most pronounced in the {site} compartment"),
       site="compartment", grade="sev"),
    _F("tibial_plateau_fracture", (_c("tibial plateau fracture"),),
       ("{g} {site} {t}", "{g} {t} involving the {site} plateau"),
       neg=("acute fracture",), site="medlat", grade="disp", sig=0, changes=_NEW_OR_SAME),
    _F("chondrocalcinosis", (_m("chondrocalcinosis"),), ("{t}", "{t} of the menisci"), cmp=False, changes=_NEW_OR_SAME),
    # ---- shoulder --------------------------------------------------------------------
    _F("rotator_cuff_tear", (_c("rotator cuff tear"), _c("tear of the rotator cuff")),
       ("{g} {t} involving the {site} tendon", "{g} {site} {t}"),
       normal=("The rotator cuff is intact.",), site="cuff", grade="cuff", sig=2),
    _F("cuff_tendinosis", (_m("rotator cuff tendinosis"), _m("tendinopathy of the rotator cuff")), ("{g} {t}",),
       grade="sev"),
    _F("labral_tear", (_c("labral tear"), _c("tear of the labrum")), ("{site} {t}", "{t} involving the {site} labrum"),
       neg=("labral tear",), site="labrum", sig=0, changes=_NEW_OR_SAME),
    _F("ac_arthropathy", (_m("acromioclavicular joint arthropathy"), _m("AC joint arthropathy")), ("{g} {t}",),
       grade="sev"),
    _F("bursitis", (_m("subacromial-subdeltoid bursitis"), _m("subacromial bursitis")), ("{g} {t}",), grade="sev"),
    _F("shoulder_dislocation", (_c("glenohumeral dislocation"),), ("{site} {t}",),
       neg=("dislocation",), site="antpost", sig=0, cmp=False),
    _F("humeral_fracture", (_c("proximal humeral fracture"), _c("fracture of the proximal humerus")),
       ("{g} {t}",), neg=("acute fracture",), grade="disp", sig=0, changes=_NEW_OR_SAME),
    _F("calcific_tendinitis", (_m("calcific tendinitis"), _m("calcific tendinopathy")),
       ("{t} of the {site} tendon",), site="calcific"),
    # ---- hip -------------------------------------------------------------------------
    _F("hip_fracture", (_c("hip fracture"), _c("proximal femur fracture")),
       ("{g} {side} {t} involving the {site}", "{g} {sidex} {t} through the {site}"),
       neg=("acute fracture",), side="lr", site="hip", grade="disp", sig=0, changes=_NEW_OR_SAME),
    _F("hip_oa", (_m("osteoarthritis"), _m("degenerative joint disease")),
       ("{g} {side} hip {t}", "{g} {t} of the {side} hip{s}"), side="lrb", grade="sev"),
    _F("avn", (_m("avascular necrosis"), _m("osteonecrosis")),
       ("{side} femoral head {t}", "{t} of the {side} femoral head{s}"), side="lrb", sig=0, hedge=True, changes=_NEW_OR_SAME),
    # ---- breast ----------------------------------------------------------------------
    _F("breast_mass", (_c("irregular mass", "irregular masses"), _c("suspicious mass", "suspicious masses")),
       ("{z} {t} in the {site} of the {side} breast", "{t} measuring {z} in the {site} of the {side} breast"),
       neg=("suspicious mass",), side="lr", site="quadrant", size=(5, 35), sig=0),
    _F("microcalcifications", (_p("grouped microcalcifications"), _p("clustered microcalcifications")),
       ("{t} in the {site} of the {side} breast spanning {z}", "{t} spanning {z} in the {site} of the {side} breast"),
       neg=("suspicious calcifications",), side="lr", site="quadrant", size=(4, 30), sig=0),
    _F("benign_calcifications", (_p("benign-appearing calcifications"), _p("scattered benign calcifications")),
       ("{t} in the {side} breast{s}", "{t} {sidep}"), side="lrb"),
    _F("focal_asymmetry", (_c("focal asymmetry", "focal asymmetries"),),
       ("{t} in the {site} of the {side} breast", "{side} breast {t} in the {site}"),
       side="lr", site="quadrant", sig=0),
    _F("architectural_distortion", (_m("architectural distortion"),), ("{t} in the {site} of the {side} breast",),
       neg=("architectural distortion",), side="lr", site="quadrant", sig=0),
    _F("axillary_node", (_c("enlarged axillary lymph node"), _c("abnormal axillary lymph node")),
       ("{z} {t} {sidep}", "{t} in the {side} axilla measuring {z}"),
       neg=("axillary lymphadenopathy",), side="lr", size=(10, 35), sig=0),
    _F("breast_cyst", (_c("simple cyst"), _c("anechoic cyst")),
       ("{z} {t} in the {side} breast at {site}", "{z} {side} breast {t} at {site}"),
       side="lr", site="clock", size=(3, 30)),
    _F("oval_mass", (_c("circumscribed oval mass", "circumscribed oval masses"),),
       ("{z} {t} in the {side} breast at {site}", "{z} {side} breast {t} at {site}"),
       side="lr", site="clock", size=(5, 30)),
    # ---- thyroid / neck --------------------------------------------------------------
    _F("thyroid_nodule", (_c("thyroid nodule"), _c("solid thyroid nodule")),
       ("{z} {g} {t} in the {site}", "{z} {t} in the {site} ({g})", "{t} in the {site} measuring {z} ({g})"),
       site="thyroid", grade="tirads", size=(5, 35), sig=1),
    _F("goiter", (_m("thyromegaly"), _m("diffuse thyroid enlargement")), ("{g} {t}",),
       normal=("The thyroid gland is normal in size.",), grade="sev"),
    _F("cervical_node", (_c("abnormal cervical lymph node"), _c("suspicious cervical lymph node")),
       ("{z} {t} in {side} {site}", "{side} {site} {t} measuring {z}"),
       neg=("cervical lymphadenopathy",), side="lr", site="necklevel", size=(8, 30), sig=0),
    _F("thyroiditis", (_m("heterogeneous thyroid echotexture"),), ("{t}", "diffusely {t}"), cmp=False),
)
FINDINGS: dict[str, FindingSpec] = {f.key: f for f in _FINDING_LIST}


@dataclass(frozen=True)
class Exam:
    """An imaging exam type: modality, anatomy, its finding pool and report conventions.

    ``pool`` is in anatomic reading order; the reference report follows it.
    ``scales`` maps site placeholders (``LEVEL`` ...) to concrete site scales.
    ``normal_impression`` is used when no finding warrants the impression.
    ``tail_abnormal`` / ``tail_normal`` close the impression (BI-RADS lines).
    """

    modality: str
    anatomy: str
    title: str
    pool: tuple[str, ...]
    normal_impression: tuple[str, ...]
    weight: float = 1.0
    scales: tuple[tuple[str, str], ...] = ()
    tail_abnormal: tuple[str, ...] = ()
    tail_normal: tuple[str, ...] = ()


_NO_ACUTE = ("No acute abnormality.", "No acute findings.")
_BIRADS_ABN = ("BI-RADS 4: Suspicious abnormality. Tissue sampling is recommended.",
               "BI-RADS 0: Incomplete. Additional imaging evaluation is needed.")
_BIRADS_OK = ("BI-RADS 1: Negative.", "BI-RADS 2: Benign.")
_LUMBAR_SCALES = (("LEVEL", "lumbar"), ("LISTH", "listh_l"))
EXAMS: tuple[Exam, ...] = (
    Exam("XR", "chest", "Chest radiograph, PA and lateral",
         ("pneumothorax", "pleural_effusion", "consolidation", "pulmonary_edema", "pulmonary_nodule", "granuloma",
          "atelectasis", "cardiomegaly", "hiatal_hernia", "rib_fracture"),
         ("No acute cardiopulmonary process.", "No acute cardiopulmonary abnormality."), weight=6),
    Exam("CT", "chest", "CT chest with contrast",
         ("pulmonary_nodule", "consolidation", "emphysema", "atelectasis", "pleural_effusion", "pneumothorax",
          "lymphadenopathy", "pericardial_effusion", "coronary_calcification", "hiatal_hernia", "rib_fracture"),
         ("No acute intrathoracic abnormality.",), weight=3),
    Exam("CTA", "chest", "CT angiography of the chest",
         ("pulmonary_embolism", "aortic_dissection", "consolidation", "pulmonary_nodule", "atelectasis",
          "pleural_effusion", "pericardial_effusion", "lymphadenopathy"),
         ("No acute abnormality in the chest.",), weight=2),
    Exam("CT", "abdomen", "CT abdomen and pelvis with contrast",
         ("liver_lesion", "hepatic_steatosis", "gallstones", "splenomegaly", "pancreatitis", "adrenal_nodule",
          "kidney_stone", "hydronephrosis", "renal_cyst", "sbo", "appendicitis", "diverticulitis", "diverticulosis",
          "ascites", "umbilical_hernia"),
         ("No acute abnormality in the abdomen or pelvis.",), weight=4),
    Exam("US", "kidney", "Renal ultrasound",
         ("hydronephrosis", "kidney_stone", "renal_cyst", "renal_mass", "renal_cortical_thinning",
          "bladder_wall_thickening"), _NO_ACUTE, weight=1.5),
    Exam("US", "liver", "Right upper quadrant ultrasound",
         ("hepatic_steatosis", "liver_lesion_us", "gallstones", "gb_wall_thickening", "cholecystitis",
          "cbd_dilation", "ascites"), _NO_ACUTE, weight=1.5),
    Exam("MRI", "liver", "MRI abdomen, liver protocol",
         ("cirrhosis", "liver_lesion", "hepatic_steatosis", "splenomegaly", "ascites", "cbd_dilation"), _NO_ACUTE),
    Exam("US", "pelvis", "Pelvic ultrasound, transabdominal and transvaginal",
         ("fibroid", "endometrial_thickening", "ovarian_cyst", "pelvic_free_fluid"), _NO_ACUTE),
    Exam("MRI", "pelvis", "MRI pelvis with and without contrast",
         ("fibroid", "adenomyosis", "endometrial_thickening", "ovarian_cyst", "pelvic_free_fluid"), _NO_ACUTE, 0.7),
    Exam("CT", "brain", "CT head without contrast",
         ("ich", "sdh", "acute_infarct", "midline_shift", "hydrocephalus", "small_vessel", "volume_loss",
          "skull_fracture", "sinus_disease"),
         ("No acute intracranial abnormality.", "No acute intracranial process."), weight=3),
    Exam("MRI", "brain", "MRI brain with and without contrast",
         ("acute_infarct", "chronic_infarct", "brain_mass", "meningioma", "small_vessel", "hydrocephalus",
          "volume_loss", "sinus_disease"),
         ("No acute intracranial abnormality.",), weight=2),
    Exam("MRA", "brain", "MR angiography of the head",
         ("intracranial_aneurysm", "mca_stenosis", "fetal_pca"), ("No intracranial vascular abnormality.",), 0.8),
    Exam("MRI", "lumbar spine", "MRI lumbar spine without contrast",
         ("compression_fracture", "spondylolisthesis", "disc_herniation", "canal_stenosis", "foraminal_narrowing",
          "facet_arthropathy", "disc_degeneration"), _NO_ACUTE, 1.5, _LUMBAR_SCALES),
    Exam("XR", "lumbar spine", "Lumbar spine radiographs, 3 views",
         ("scoliosis", "compression_fracture", "spondylolisthesis", "disc_degeneration", "facet_arthropathy"),
         ("No acute osseous abnormality.",), 1.0, _LUMBAR_SCALES),
    Exam("MRI", "cervical spine", "MRI cervical spine without contrast",
         ("spondylolisthesis", "cord_signal", "disc_herniation", "canal_stenosis", "foraminal_narrowing",
          "disc_degeneration"), _NO_ACUTE, 1.0, (("LEVEL", "cervical"), ("LISTH", "listh_c"))),
    Exam("MRI", "knee", "MRI knee without contrast",
         ("acl_tear", "mcl_sprain", "meniscal_tear", "joint_effusion", "bone_contusion", "chondral_loss",
          "baker_cyst"), ("No internal derangement.",), weight=1.5),
    Exam("XR", "knee", "Knee radiographs, 3 views",
         ("tibial_plateau_fracture", "knee_oa", "joint_effusion", "chondrocalcinosis"),
         ("No acute osseous abnormality.",)),
    Exam("MRI", "shoulder", "MRI shoulder without contrast",
         ("rotator_cuff_tear", "cuff_tendinosis", "labral_tear", "bursitis", "ac_arthropathy", "joint_effusion"),
         _NO_ACUTE),
    Exam("XR", "shoulder", "Shoulder radiographs, 3 views",
         ("shoulder_dislocation", "humeral_fracture", "ac_arthropathy", "calcific_tendinitis"),
         ("No acute osseous abnormality.",)),
    Exam("XR", "hip", "Hip and pelvis radiographs",
         ("hip_fracture", "avn", "hip_oa"), ("No acute osseous abnormality.",)),
    Exam("MG", "breast", "Bilateral screening mammogram",
         ("breast_mass", "microcalcifications", "focal_asymmetry", "architectural_distortion",
          "benign_calcifications", "axillary_node"),
         ("No mammographic evidence of malignancy.",), 1.5, (), _BIRADS_ABN, _BIRADS_OK),
    Exam("US", "breast", "Targeted breast ultrasound",
         ("breast_mass", "breast_cyst", "oval_mass", "axillary_node"),
         ("No sonographic evidence of malignancy.",), 1.0, (), _BIRADS_ABN, _BIRADS_OK),
    Exam("US", "thyroid", "Thyroid ultrasound",
         ("thyroid_nodule", "goiter", "thyroiditis", "cervical_node"), _NO_ACUTE),
    Exam("US", "carotid", "Carotid duplex ultrasound",
         ("carotid_plaque", "ica_stenosis", "vertebral_reversal"), ("No hemodynamically significant abnormality.",)),
    Exam("CTA", "aorta", "CT angiography of the abdominal aorta and iliac arteries",
         ("aaa", "aortic_dissection", "iliac_aneurysm", "renal_artery_stenosis", "aortic_atherosclerosis",
          "renal_cyst"), ("No acute aortic abnormality.",)),
    Exam("US", "aorta", "Abdominal aorta ultrasound",
         ("aaa", "iliac_aneurysm", "aortic_atherosclerosis"), ("No acute abnormality.",), 0.7),
)
_EXAM_CUM_WEIGHTS = tuple(np.cumsum([e.weight for e in EXAMS]).tolist())
# Capabilities that do not depend on the drawn state (a state has an attribute iff its spec does).
_HAS_LOCATION = frozenset(f.key for f in _FINDING_LIST if f.side or f.site)
_HAS_DEGREE = frozenset(f.key for f in _FINDING_LIST if f.grade or f.size)
_COMPARABLE = frozenset(f.key for f in _FINDING_LIST if f.cmp)
_POOL_ORDER: dict[str, dict[str, int]] = {e.title: {k: i for i, k in enumerate(e.pool)} for e in EXAMS}
_SITE_SCALES: dict[tuple[str, str], tuple[str, ...]] = {
    (e.title, FINDINGS[k].site): SITES[dict(e.scales).get(FINDINGS[k].site, FINDINGS[k].site)]
    for e in EXAMS for k in e.pool if FINDINGS[k].site
}

# --------------------------------------------------------------------------- #
# Sentence frames                                                              #
# --------------------------------------------------------------------------- #

# (frame, wants_article). "{NP}" is the noun phrase; "{is}" agrees with it.
_POS_FRAMES: tuple[tuple[str, bool], ...] = (
    ("{NP}.", False), ("{NP}.", False), ("There {is} {NP}.", True), ("{NP} {is} present.", True),
    ("{NP} {is} seen.", True), ("{NP} {is} noted.", True), ("{NP} {is} identified.", True),
)
# Hedges come in two certainty tiers; a paraphrase keeps the tier ("possible" is
# not rewritten as "probable"), so hedging never silently changes the meaning.
_HEDGE_FRAMES: dict[str, tuple[tuple[str, bool], ...]] = {
    "possible": (("Possible {NP}.", False), ("{NP} cannot be excluded.", True),
                 ("There {is} questionable {NP}.", False), ("Findings may represent {NP}.", True)),
    "probable": (("Probable {NP}.", False), ("Findings are suspicious for {NP}.", True),
                 ("Findings are concerning for {NP}.", True)),
}
_HEDGE_IMPRESSION: dict[str, tuple[tuple[str, bool], ...]] = {
    "possible": (("Possible {NP}", False), ("{NP} cannot be excluded", True)),
    "probable": (("Probable {NP}", False), ("Findings suspicious for {NP}", True)),
}
_CMP_WEIGHTS = (("unchanged", 0.4), ("increased", 0.25), ("decreased", 0.2), ("new", 0.15))
# Comparison wording. Anything can increase or decrease; only measurable things
# get "larger/smaller" and only processes "worse/improved" (see _CLAUSES).
_CMP_CLAUSES: dict[str, tuple[str, ...]] = {
    "increased": ("increased since {prior}", "increased compared with {prior}",
                  "which {has} increased since {prior}", "increased in the interval"),
    "decreased": ("decreased since {prior}", "decreased compared with {prior}", "which {has} decreased since {prior}"),
    "unchanged": ("unchanged from {prior}", "unchanged since {prior}", "stable compared with {prior}",
                  "not significantly changed since {prior}"),
    "new": ("new since {prior}", "new compared with {prior}", "not present on {prior}"),
}
_CMP_MEASURED = {"increased": ("larger than on {prior}",), "decreased": ("smaller than on {prior}",)}
_CMP_PROCESS = {"increased": ("worse than on {prior}",), "decreased": ("improved since {prior}",)}
_CLAUSES: dict[str, dict[str, tuple[str, ...]]] = {
    f.key: {
        change: clauses + (_CMP_MEASURED if f.size or f.grade in ("amt", "amt4") else _CMP_PROCESS).get(change, ())
        for change, clauses in _CMP_CLAUSES.items()
    }
    for f in _FINDING_LIST
}
_CMP_PREFIX: dict[str, tuple[str, ...]] = {"unchanged": ("Unchanged", "Stable"), "new": ("New",)}
_PRIOR_PLAIN = ("the prior study", "the previous examination", "the prior exam")
_PRIOR_DATED = ("the prior study of {date}", "the previous study dated {date}", "the prior examination from {date}")

_NEG_ONE = ("No {n}.", "No {n}.", "There is no {n}.", "No evidence of {n}.", "{N} is not seen.",
            "{N} is not identified.", "No {n} is seen.")
_PLURAL_NEG = frozenset({"gallstones", "suspicious calcifications"})  # "No gallstones are seen."
_NEG_MULTI = ("No {n}.", "There is no {n}.", "No evidence of {n}.")

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_SPLITS = ("train", "val", "test")
_to_json = json.JSONEncoder(separators=(",", ":")).encode


@dataclass(frozen=True)
class _Profile:
    """Error profile and writing style of a simulated report generator.

    ``weights`` are relative rates of categories a-f; ``sig_pref`` is the chance
    of picking a clinically significant target when one is available. The
    ``p_*`` style knobs are benign: reordering sentences, merging or leaving
    out *negative* statements ("No pneumothorax.") and skipping the impression
    are not errors in the ReXVal scheme, which counts positive findings and
    comparisons only -- a judge that flags them is wrong.
    """

    mean_errors: float
    burst_p: float
    weights: tuple[float, float, float, float, float, float]
    sig_pref: float
    p_identical: float
    p_reorder: float
    p_merge_neg: float
    p_drop_neg: float
    p_impression: float


_PROFILES: dict[str, _Profile] = {
    # Few, mostly insignificant slips; often copies or lightly rewords.
    "sys-careful": _Profile(mean_errors=0.55, burst_p=0.0, weights=(1.0, 2.0, 1.0, 2.0, 0.5, 1.0), sig_pref=0.2,
                            p_identical=0.06, p_reorder=0.25, p_merge_neg=0.4, p_drop_neg=0.03, p_impression=0.9),
    # Short reports: drops findings and comparisons (and some negatives).
    "sys-terse": _Profile(mean_errors=1.5, burst_p=0.04, weights=(0.3, 5.0, 0.5, 1.0, 0.2, 4.0), sig_pref=0.5,
                          p_identical=0.03, p_reorder=0.5, p_merge_neg=0.8, p_drop_neg=0.35, p_impression=0.6),
    # Invents findings and comparisons, with a long tail of very bad reports.
    "sys-hallucinating": _Profile(mean_errors=2.0, burst_p=0.15, weights=(5.0, 0.5, 1.0, 1.0, 4.0, 0.5),
                                  sig_pref=0.6, p_identical=0.01, p_reorder=0.4, p_merge_neg=0.3, p_drop_neg=0.1,
                                  p_impression=0.95),
    # Gets sides, sites, grades and sizes wrong.
    "sys-sloppy": _Profile(mean_errors=1.5, burst_p=0.05, weights=(1.0, 1.0, 4.0, 4.0, 1.0, 1.0), sig_pref=0.5,
                           p_identical=0.02, p_reorder=0.6, p_merge_neg=0.5, p_drop_neg=0.1, p_impression=0.85),
}
_N_POS_CUM = (0.12, 0.36, 0.63, 0.83, 0.94, 1.0)  # cumulative P(n positives = 0..5)

# --------------------------------------------------------------------------- #
# Rendering                                                                    #
# --------------------------------------------------------------------------- #

State = dict[str, Any]  # side, site, grade (index), size (mm), cmp, hedge (False/"possible"/"probable")


def _article(text: str) -> str:
    """'a' or 'an' for the phrase ``text`` (spoken-form rules for digits and initialisms)."""
    c = text[0]
    if c in "aeiouAEIOU" or c == "8":
        return "an"
    if text[:2] in ("11", "18") and (len(text) == 2 or not text[2].isdigit()):
        return "an"
    if c in "FHLMNRSX" and len(text) > 1 and (text[1].isdigit() or text[1].isupper()):
        return "an"
    return "a"


def _fmt_size(mm: int, rng: random.Random) -> str:
    # Radiologists write small things in mm and larger ones in cm, but not consistently.
    if mm < 10:
        return f"{mm} mm" if rng.random() < 0.75 else f"0.{mm} cm"
    return f"{mm / 10:.1f} cm" if rng.random() < 0.7 else f"{mm} mm"


def _pick(seq, rng: random.Random):
    return seq[0] if len(seq) == 1 else seq[int(rng.random() * len(seq))]


_NpPlan = tuple[str, bool, bool, bool, bool, bool, bool, bool, bool, bool]


def _np_plan(template: str) -> _NpPlan:
    """Pre-parse an NP template into (format string, singular-head flag, slot flags).

    The flags say which slots the template uses (s, es, side, sidex, sidep, site,
    g, z), so rendering computes nothing it will not print.
    """
    head1 = template.startswith("1:")
    if head1:
        template = template[2:]
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    flags = tuple(slot in names for slot in ("s", "es", "side", "sidex", "sidep", "site", "g", "z"))
    return (template, head1, *flags)


# Parsed once; rendering is the hot loop of the generator.
_NP_PLANS: dict[str, tuple[_NpPlan, ...]] = {f.key: tuple(_np_plan(t) for t in f.nps) for f in _FINDING_LIST}
_GRADE_FORM_TABLE: dict[str, tuple[tuple[str, ...], ...]] = {
    name: tuple(grade_forms(word) for word in words) for name, words in GRADES.items()
}


def _render_np(f: FindingSpec, st: State, rng: random.Random, article: bool) -> tuple[str, bool]:
    """Noun phrase for a positive finding; returns (text, plural)."""
    rand = rng.random
    terms = f.terms
    sing, plur, kind = terms[int(rand() * len(terms))]
    plans = _NP_PLANS[f.key]
    tpl, head1, n_s, n_es, n_side, n_sidex, n_sidep, n_site, n_g, n_z = plans[int(rand() * len(plans))]
    side = st["side"]
    both = side == "bilateral"
    if head1:
        plural, count = False, True
    else:
        plural = kind == "p" or (kind == "c" and both)
        count = kind == "c"
    slots = {"t": plur if plural else sing}
    if n_s:
        slots["s"] = "s" if both else ""
    if n_es:
        slots["es"] = "es" if both else ""
    if n_side:
        slots["side"] = side
    if n_sidex:
        forms = _SIDE_ADJ.get(side, (side,))
        slots["sidex"] = forms[int(rand() * len(forms))]
    if n_sidep:
        forms = _SIDE_PP.get(side, (side,))
        slots["sidep"] = forms[int(rand() * len(forms))]
    if n_site:
        site = st["site"]
        forms = _SITE_FORMS.get(site, (site,))
        slots["site"] = forms[int(rand() * len(forms))]
    if n_g:
        forms = _GRADE_FORM_TABLE[f.grade][st["grade"]]
        slots["g"] = forms[int(rand() * len(forms))]
    if n_z:
        slots["z"] = _fmt_size(st["size"], rng)
    text = tpl.format_map(slots)
    if article and count and not plural:
        text = f"{_article(text)} {text}"
    return text, plural


def _cmp_clause(f: FindingSpec, change: str, plural: bool, priors: tuple[str, ...], rng: random.Random) -> str:
    rand = rng.random
    clauses = _CLAUSES[f.key][change]
    clause = clauses[int(rand() * len(clauses))]
    if "{has}" in clause:
        clause = clause.replace("{has}", "have" if plural else "has")
    return clause.replace("{prior}", priors[int(rand() * len(priors))])


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


def _render_statement(f: FindingSpec, st: State, rng: random.Random, priors: tuple[str, ...]) -> str:
    """One findings-section sentence for a positive finding, comparison included."""
    rand = rng.random
    change = st["cmp"]
    if change in _CMP_PREFIX and not st["hedge"] and rand() < 0.35:
        np_text, _ = _render_np(f, st, rng, article=False)
        return f"{_pick(_CMP_PREFIX[change], rng)} {np_text}."
    frames = _HEDGE_FRAMES[st["hedge"]] if st["hedge"] else _POS_FRAMES
    frame, article = frames[int(rand() * len(frames))]
    np_text, plural = _render_np(f, st, rng, article)
    s = frame.replace("{NP}", np_text).replace("{is}", "are" if plural else "is")
    if change is not None:
        s = f"{s[:-1]}, {_cmp_clause(f, change, plural, priors, rng)}."
    return s[0].upper() + s[1:]


def _render_impression_item(f: FindingSpec, st: State, rng: random.Random, priors: tuple[str, ...]) -> str:
    if st["hedge"]:
        frame, article = _pick(_HEDGE_IMPRESSION[st["hedge"]], rng)
        np_text, plural = _render_np(f, st, rng, article)
        s = frame.replace("{NP}", np_text)
    else:
        s, plural = _render_np(f, st, rng, article=False)
    if st["cmp"] is not None:
        s = f"{s}, {_cmp_clause(f, st['cmp'], plural, priors, rng)}"
    return f"{s[0].upper()}{s[1:]}."


def _render_negatives(keys: list[str], rng: random.Random, merge: bool) -> list[str]:
    """Sentences stating the absence of ``keys`` (adjacent generic negatives may be merged)."""
    out: list[str] = []
    nouns: list[str] = []

    def flush() -> None:
        if not nouns:
            return
        if len(nouns) == 1:
            n = nouns[0]
            s = _pick(_NEG_ONE, rng).replace("{n}", n).replace("{N}", n)
            if n in _PLURAL_NEG:
                s = s.replace(" is ", " are ")
            out.append(_cap(s))
        else:
            joined = f"{nouns[0]} or {nouns[1]}" if len(nouns) == 2 else ", ".join(nouns[:-1]) + f", or {nouns[-1]}"
            out.append(_cap(_pick(_NEG_MULTI, rng).replace("{n}", joined)))
        nouns.clear()

    for key in keys:
        f = FINDINGS[key]
        if f.normal and (not f.neg or rng.random() < 0.5):
            flush()
            out.append(_pick(f.normal, rng))
            continue
        nouns.append(_pick(f.neg, rng))
        if not merge or len(nouns) == 3:
            flush()
    flush()
    return out


@dataclass
class _Report:
    text: str
    statements: dict[str, str]  # finding key -> its findings-section sentence


def _render_report(exam: Exam, pos: list[tuple[str, State]], negs: list[str], rng: random.Random, *,
                   priors: tuple[str, ...], header: str | None, impression: bool, reorder: float,
                   merge_neg: float) -> _Report:
    """Render FINDINGS (and optionally IMPRESSION) from structured findings."""
    order = _POOL_ORDER[exam.title]
    items: list[tuple[int, int, str]] = [(order[k], 0, k) for k, _ in pos] + [(order[k], 1, k) for k in negs]
    items.sort()
    r = rng.random()
    if r < reorder / 2:
        rng.shuffle(items)  # free order
    elif r < reorder:
        items.sort(key=lambda it: it[1])  # positives first, the way many generators write
    states = dict(pos)
    merge = rng.random() < merge_neg
    sentences: list[str] = []
    statements: dict[str, str] = {}
    run: list[str] = []
    for _, is_neg, key in items:
        if is_neg:
            run.append(key)
            continue
        if run:
            sentences.extend(_render_negatives(run, rng, merge))
            run = []
        s = _render_statement(FINDINGS[key], states[key], rng, priors)
        statements[key] = s
        sentences.append(s)
    if run:
        sentences.extend(_render_negatives(run, rng, merge))

    sep = "\n" if rng.random() < 0.25 else " "
    parts = [header] if header else []
    parts.append("FINDINGS:" + ("\n" if rng.random() < 0.6 else " ") + sep.join(sentences))
    if impression:
        parts.append("IMPRESSION:\n" + _render_impression(exam, pos, rng, priors))
    return _Report("\n\n".join(parts), statements)


def _render_impression(exam: Exam, pos: list[tuple[str, State]], rng: random.Random, priors: tuple[str, ...]) -> str:
    # Significant findings always make the impression; others sometimes do.
    flags = [_presence_significant(FINDINGS[k], st) for k, st in pos]
    major = [item for item, flag in zip(pos, flags, strict=True) if flag]
    minor = [item for item, flag in zip(pos, flags, strict=True) if not flag and rng.random() < 0.35]
    lines = [_render_impression_item(FINDINGS[k], st, rng, priors) for k, st in major + minor]
    if not major:
        lines.insert(0, _pick(exam.normal_impression, rng))
    if exam.tail_abnormal:
        lines.append(_pick(exam.tail_abnormal if major else exam.tail_normal, rng))
    if len(lines) > 1 and rng.random() < 0.5:
        return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))
    return " ".join(lines)


# --------------------------------------------------------------------------- #
# Structure: states, significance, errors                                      #
# --------------------------------------------------------------------------- #


def _site_scale(f: FindingSpec, exam: Exam) -> tuple[str, ...]:
    return _SITE_SCALES[exam.title, f.site]


def _random_state(f: FindingSpec, exam: Exam, rng: random.Random) -> State:
    st: State = {"side": None, "site": None, "grade": None, "size": None, "cmp": None, "hedge": False}
    if f.side:
        sides = SIDES[f.side]
        # Bilateral disease is less common than unilateral.
        st["side"] = sides[2] if len(sides) == 3 and rng.random() < 0.2 else sides[int(rng.random() * 2)]
    if f.site:
        st["site"] = _pick(_site_scale(f, exam), rng)
    if f.grade:
        n = len(GRADES[f.grade])
        st["grade"] = min(int(rng.random() ** 1.4 * n), n - 1)  # milder grades are more common
    if f.size:
        lo, hi = f.size
        st["size"] = lo + int(rng.random() ** 1.5 * (hi - lo + 1))
    if f.hedge and rng.random() < 0.25:
        st["hedge"] = "possible" if rng.random() < 0.5 else "probable"
    return st


def _presence_significant(f: FindingSpec, st: State) -> bool:
    """Is reporting/missing this finding (in this state) clinically significant?"""
    if f.sig is not None and (f.grade is None or f.sig == 0 or st["grade"] >= f.sig):
        return True
    return f.sig_size is not None and st["size"] >= f.sig_size


def _random_change(f: FindingSpec, rng: random.Random) -> str:
    """A plausible change versus the prior for ``f`` (weighted towards "unchanged")."""
    options = [(c, w) for c, w in _CMP_WEIGHTS if c in f.changes]
    r = rng.random() * sum(w for _, w in options)
    for change, w in options:
        if r < w:
            return change
        r -= w
    return options[-1][0]


def _describe(f: FindingSpec, st: State) -> str:
    """Canonical short description used in ``detail`` strings, e.g. "small pleural effusion (left)"."""
    bits = []
    if st["size"] is not None:
        bits.append(f"{st['size']} mm")
    if st["grade"] is not None:
        bits.append(GRADES[f.grade][st["grade"]])
    bits.append(f.terms[0][0])
    where = [v for v in (st["side"], st["site"]) if v is not None]
    if where:
        bits.append(f"({', '.join(where)})")
    return " ".join(bits)


def _propose(cat: str, f: FindingSpec, st: State, exam: Exam, rng: random.Random) -> tuple[bool, str | None, Any, Any]:
    """Draw one concrete error of category ``cat`` on a finding in state ``st``.

    Returns ``(significant, attribute, old, new)``; grades are indices. The
    significance rules encode clinical weight rather than chance.
    """
    if cat == "a" or cat == "b":
        # Inventing or missing a finding matters exactly when the finding matters.
        return _presence_significant(f, st), None, None, None
    if cat == "c":
        attr = "side" if st["site"] is None or (st["side"] is not None and rng.random() < 0.5) else "site"
        scale = SIDES[f.side] if attr == "side" else _site_scale(f, exam)
        old = st[attr]
        new = _pick([v for v in scale if v != old], rng)
        # A wrong side/site matters exactly when the finding itself matters.
        return _presence_significant(f, st), attr, old, new
    if cat == "d":
        if st["size"] is None or (st["grade"] is not None and rng.random() < 0.5):
            n = len(GRADES[f.grade])
            old = st["grade"]
            new = _pick([i for i in range(n) if i != old], rng)
            # Grading a finding that never matters (mild vs marked atherosclerosis) is
            # insignificant. Otherwise two steps (mild vs severe) always matter, and one
            # step matters when it crosses the clinical threshold or the finding is
            # always serious.
            before, after = _presence_significant(f, st), _presence_significant(f, dict(st, grade=new))
            sig = f.sig is not None and (abs(new - old) >= 2 or f.sig == 0 or before != after)
            return sig, "grade", old, new
        old = st["size"]
        factor = 0.45 + 0.3 * rng.random() if rng.random() < 0.4 else 1.25 + 1.0 * rng.random()
        new = max(2, round(old * factor))
        if new == old:
            new = old + 1
        ratio = max(new, old) / min(new, old)
        before, after = _presence_significant(f, st), _presence_significant(f, dict(st, size=new))
        # A measurement slip matters for a finding that matters, when the ratio is
        # large or it moves the finding across its size threshold.
        return (before or after) and (ratio >= f.d_ratio or before != after), "size", old, new
    if cat == "e":
        change = _random_change(f, rng)
        return _presence_significant(f, st) and change != "unchanged", "cmp", None, change
    # f: a stated change from the prior matters for a significant finding; "unchanged" is minor.
    return _presence_significant(f, st) and st["cmp"] != "unchanged", "cmp", st["cmp"], None


def _detail(cat: str, f: FindingSpec, st: State, attr: str | None, old: Any, new: Any) -> str:
    """Human-readable description of an error (``st`` is the state before the error)."""
    name = f.terms[0][0]
    if cat == "a":
        return f"false finding: {_describe(f, st)}"
    if cat == "b":
        return f"missing finding: {_describe(f, st)}"
    if cat == "c":
        return f"{'laterality' if attr == 'side' else 'location'} of {name}: {old} -> {new}"
    if cat == "d":
        if attr == "grade":
            scale = GRADES[f.grade]
            return f"severity of {name}: {scale[old]} -> {scale[new]}"
        return f"size of {name}: {old} mm -> {new} mm"
    if cat == "e":
        return f"comparison added for {name}: {new}"
    return f"comparison omitted for {name}: {old}"


def _poisson(lam: float, rng: random.Random) -> int:
    limit, k, p = math.exp(-lam), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


@dataclass
class _RefCase:
    exam: Exam
    pos: list[tuple[str, State]]
    negs: list[str]
    date: str | None
    report: _Report


def _make_reference(rng: random.Random) -> _RefCase:
    exam = rng.choices(EXAMS, cum_weights=_EXAM_CUM_WEIGHTS)[0]
    pool = exam.pool
    r = rng.random()
    n_pos = next(i for i, c in enumerate(_N_POS_CUM) if r < c)
    n_pos = min(n_pos, len(pool) - 1)
    pos_keys = set(rng.sample(pool, n_pos))
    date = None
    if rng.random() < 0.55:
        y, m, d = 2015 + int(rng.random() * 10), 1 + int(rng.random() * 12), 1 + int(rng.random() * 28)
        style = rng.random()
        date = (f"{m:02d}/{d:02d}/{y}" if style < 0.4 else f"{y}-{m:02d}-{d:02d}" if style < 0.7
                else f"{_MONTHS[m - 1]} {d}, {y}")
    pos: list[tuple[str, State]] = []
    for key in pool:
        if key not in pos_keys:
            continue
        f = FINDINGS[key]
        st = _random_state(f, exam, rng)
        if date and f.cmp and rng.random() < 0.45:
            st["cmp"] = _random_change(f, rng)
        pos.append((key, st))
    negatable = [k for k in pool if k not in pos_keys and (FINDINGS[k].neg or FINDINGS[k].normal)]
    # Reports with few positive findings say more about what is normal.
    n_neg = min(len(negatable), 1 + int(rng.random() * 3) + max(0, 3 - n_pos))
    neg_set = set(rng.sample(negatable, n_neg))
    negs = [k for k in pool if k in neg_set]
    header = None
    if rng.random() < 0.4:
        header = f"EXAMINATION: {exam.title}.\nCOMPARISON: {date or 'None'}."
    priors = _priors(date)
    report = _render_report(exam, pos, negs, rng, priors=priors, header=header,
                            impression=rng.random() < 0.85, reorder=0.0, merge_neg=0.5)
    return _RefCase(exam, pos, negs, date, report)


def _priors(date: str | None) -> tuple[str, ...]:
    if date is None:
        return _PRIOR_PLAIN
    return _PRIOR_PLAIN + tuple(p.replace("{date}", date) for p in _PRIOR_DATED)


def _make_candidate(ref: _RefCase, prof: _Profile, rng: random.Random) -> tuple[str, list[dict], list[str], bool]:
    """Apply a system's errors to the reference structure and render the candidate.

    Returns (candidate text, error records, candidate positive keys, identical flag).
    """
    exam = ref.exam
    ref_keys = [k for k, _ in ref.pos]
    if rng.random() < prof.p_identical:
        return ref.report.text, [], ref_keys, True

    cand: dict[str, State] = {k: dict(st) for k, st in ref.pos}
    negs = list(ref.negs)
    errors: list[tuple] = []
    n_err = _poisson(prof.mean_errors, rng)
    if prof.burst_p and rng.random() < prof.burst_p:
        n_err += 3 + int(rng.random() * 3)
    rand = rng.random
    # One error per finding keeps every label unambiguous: a finding leaves these
    # pools once it has been touched.
    untouched = list(ref_keys)
    inventable = [k for k in exam.pool if k not in cand]
    w_a, w_b, w_c, w_d, w_e, w_f = prof.weights
    for _ in range(n_err):
        options = (
            inventable,
            untouched,
            [k for k in untouched if k in _HAS_LOCATION],
            [k for k in untouched if k in _HAS_DEGREE],
            [k for k in untouched if k in _COMPARABLE and cand[k]["cmp"] is None],
            [k for k in untouched if cand[k]["cmp"] is not None],
        )
        weights = (w_a if inventable else 0.0, w_b if untouched else 0.0, w_c if options[2] else 0.0,
                   w_d if options[3] else 0.0, w_e if options[4] else 0.0, w_f if options[5] else 0.0)
        r = rand() * sum(weights)
        if r == 0:
            break
        ci = 5
        for j, w in enumerate(weights):
            if r < w:
                ci = j
                break
            r -= w
        cat = CATEGORIES[ci]
        # Propose on up to two targets and keep the first of the preferred
        # significance (systems differ in how often they err where it matters).
        keys = options[ci]
        if len(keys) > 2:
            i1 = int(rand() * len(keys))
            i2 = int(rand() * (len(keys) - 1))
            keys = (keys[i1], keys[i2 + (i2 >= i1)])
        want = rand() < prof.sig_pref
        for key in keys:
            f = FINDINGS[key]
            st = _random_state(f, exam, rng) if ci == 0 else cand[key]
            sig, attr, old, new = _propose(cat, f, st, exam, rng)
            if sig == want:
                break
        detail = _detail(cat, f, st, attr, old, new)
        if ci == 0:
            inventable.remove(key)
            cand[key] = st
            if key in negs:  # the reference called it normal: the candidate contradicts it
                negs.remove(key)
                detail += " (reference states it is absent)"
        else:
            untouched.remove(key)
            if ci == 1:
                del cand[key]
            else:
                st[attr] = new  # c, d, e set the new value; f sets the comparison to None
        if attr == "grade":  # record grade words, not indices
            old, new = GRADES[f.grade][old], GRADES[f.grade][new]
        errors.append((cat, bool(sig), detail, key, attr, old, new))

    pos = [(k, cand[k]) for k in exam.pool if k in cand]
    if prof.p_drop_neg:
        negs = [k for k in negs if rand() >= prof.p_drop_neg]
    # A generator only knows "the prior study" unless the reference gave a date.
    priors = _priors(ref.date) if ref.date and rng.random() < 0.5 else _PRIOR_PLAIN
    # Only the deliberate copies may equal the reference (the "identical pairs"
    # filter relies on it); a very short report can paraphrase back to itself.
    for _attempt in range(8):
        report = _render_report(exam, pos, negs, rng, priors=priors, header=None,
                                impression=rng.random() < prof.p_impression, reorder=prof.p_reorder,
                                merge_neg=prof.p_merge_neg)
        if report.text != ref.report.text:
            break
    records = [
        {"category": cat, "significant": sig, "detail": detail, "finding": key, "attr": attr, "from": old,
         "to": new, "ref": ref.report.statements.get(key) if cat != "a" else None,
         "cand": report.statements.get(key) if cat != "b" else None}
        for cat, sig, detail, key, attr, old, new in errors
    ]
    return report.text, records, [k for k, _ in pos], False


# --------------------------------------------------------------------------- #
# Public entry point                                                           #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True, eq=False)
class DemoCorpus:
    """A generated corpus: ``pairs`` (one row per pair), ``annotations`` (long form), and its ``seed``."""

    pairs: pd.DataFrame
    annotations: pd.DataFrame
    seed: int


def _score(counts: np.ndarray) -> np.ndarray:
    """0-5 score per row of (n, 12) counts laid out as [a_sig, a_insig, b_sig, ...]."""
    sig = counts[:, 0::2].sum(axis=1)
    insig = counts[:, 1::2].sum(axis=1)
    return np.clip((55 - 10 * sig - 3 * insig) // 10, 0, 5)


def _second_rater(counts: np.ndarray, identical: np.ndarray, seed: int) -> np.ndarray:
    """Seeded noisy copy of the construction counts (the simulated ``expert_2``)."""
    rng = np.random.default_rng([seed, 2])
    n = counts.shape[0]
    noisy = counts.copy()
    u = rng.random((n, 6))
    for i in np.flatnonzero(((u[:, 0] < 0.12) | (u[:, 1] < 0.10) | (u[:, 2] < 0.03)) & ~identical):
        row = noisy[i]
        if u[i, 0] < 0.12:  # miscount by one in one cell
            nonzero = np.flatnonzero(row)
            if nonzero.size and u[i, 3] < 0.5:
                row[nonzero[int(u[i, 4] * nonzero.size)]] -= 1
            else:
                row[int(u[i, 5] * 12)] += 1
        if u[i, 1] < 0.10:  # judges one significant error as insignificant
            sig_cats = np.flatnonzero(row[0::2])
            if sig_cats.size:
                c = sig_cats[int(u[i, 4] * sig_cats.size)]
                row[2 * c] -= 1
                row[2 * c + 1] += 1
        if u[i, 2] < 0.03:  # or, rarely, the reverse
            insig_cats = np.flatnonzero(row[1::2])
            if insig_cats.size:
                c = insig_cats[int(u[i, 5] * insig_cats.size)]
                row[2 * c + 1] -= 1
                row[2 * c] += 1
    return noisy


def _annotations(ext_ids: list[str], counts1: np.ndarray, counts2: np.ndarray) -> pd.DataFrame:
    """Long-form annotations, built column-wise (no per-pair pandas work)."""
    n = len(ext_ids)
    block = 13  # 12 error_count rows + 1 score row per annotator
    values = np.empty((n, 2 * block), dtype=np.float64)
    values[:, 0:12] = counts1
    values[:, 12] = _score(counts1)
    values[:, 13:25] = counts2
    values[:, 25] = _score(counts2)
    cats = [c for c in CATEGORIES for _ in (0, 1)] + [None]
    sigs = [True, False] * 6 + [None]
    fields = ["error_count"] * 12 + ["score"]
    scales = [math.nan] * 12 + [SCALE_MAX]
    # Repeating a small string array with ``take`` avoids converting millions of
    # Python strings one by one (this is most of the cost at 100k pairs).
    within = np.tile(np.arange(2 * block), n)
    return pd.DataFrame({
        "ext_id": pd.array(ext_ids, dtype="str").take(np.repeat(np.arange(n), 2 * block)),
        "annotator": pd.array(list(ANNOTATORS), dtype="str").take(within // block),
        "field": pd.array(fields * 2, dtype="str").take(within),
        # category / significant keep real None on score rows (object dtype, as documented).
        "category": pd.Series(np.array(cats * 2, dtype=object)[within], dtype=object),
        "significant": pd.Series(np.array(sigs * 2, dtype=object)[within], dtype=object),
        "value": values.ravel(),
        "scale_max": np.array(scales * 2, dtype=np.float64)[within],
    }, columns=list(ANNOTATION_COLUMNS))


def generate_demo(n_pairs: int = 400, seed: int = 7) -> DemoCorpus:
    """Generate the seeded synthetic demo corpus.

    Parameters
    ----------
    n_pairs : int
        Exact number of pairs. References get candidates from 3 or 4 systems
        each; the last reference may get fewer so that the total is exact.
    seed : int
        Same ``(n_pairs, seed)`` gives identical DataFrames, and a smaller
        corpus is a prefix of a larger one with the same seed (row for row).
        Only this seed is used: global ``random`` / ``numpy`` state is untouched.

    Returns
    -------
    DemoCorpus
        ``pairs`` columns: ext_id, reference, candidate, group_id, system,
        modality, anatomy, split, meta (JSON with ``synthetic``, ``errors`` and
        the findings present in each report). ``annotations`` columns: ext_id,
        annotator, field, category, significant, value, scale_max; per pair and
        annotator 12 ``error_count`` rows (categories a-f x significant
        True/False) and one ``score`` row on 0-5 (formula in the module doc).
    """
    if n_pairs < 0:
        raise ValueError("n_pairs must be >= 0")
    rng = random.Random(seed)
    width = max(6, len(str(max(n_pairs - 1, 0))))
    cols: dict[str, list] = {c: [] for c in PAIR_COLUMNS}
    # Plain lists and bound appends: this loop runs once per pair (100k in load tests).
    (ext_ids, references, candidates, group_ids, systems_col, modalities, anatomies, splits,
     metas) = (cols[c] for c in PAIR_COLUMNS)
    cells: list[int] = []  # flat (pair, category, significance) indices of constructed errors
    identical = np.zeros(n_pairs, dtype=bool)
    cell_of = {(c, sig): 2 * j + (0 if sig else 1) for j, c in enumerate(CATEGORIES) for sig in (True, False)}
    i = 0
    g = 0
    while i < n_pairs:
        ref = _make_reference(rng)
        exam = ref.exam
        group_id = f"demo-study-{g:0{width}d}"
        r = rng.random()
        split = _SPLITS[0] if r < 0.6 else _SPLITS[1] if r < 0.8 else _SPLITS[2]
        systems = rng.sample(SYSTEMS, 3 if rng.random() < 0.5 else 4)
        ref_keys = [k for k, _ in ref.pos]
        for system in systems:
            if i >= n_pairs:
                break
            text, errors, cand_keys, same = _make_candidate(ref, _PROFILES[system], rng)
            for err in errors:
                cells.append(12 * i + cell_of[err["category"], err["significant"]])
            identical[i] = same
            meta = {
                "synthetic": True, "generator": "core.synth", "seed": seed,
                "exam": exam.title, "prior_date": ref.date, "identical": same,
                "ref_findings": ref_keys, "cand_findings": cand_keys, "errors": errors,
            }
            ext_ids.append(f"demo-{i:0{width}d}")
            references.append(ref.report.text)
            candidates.append(text)
            group_ids.append(group_id)
            systems_col.append(system)
            modalities.append(exam.modality)
            anatomies.append(exam.anatomy)
            splits.append(split)
            metas.append(_to_json(meta))
            i += 1
        g += 1
    pairs = pd.DataFrame(cols, columns=list(PAIR_COLUMNS))
    counts1 = np.bincount(np.array(cells, dtype=np.int64), minlength=12 * n_pairs).reshape(n_pairs, 12)
    counts2 = _second_rater(counts1, identical, seed)
    annotations = _annotations(ext_ids, counts1, counts2)
    return DemoCorpus(pairs=pairs, annotations=annotations, seed=seed)
