"""How much a finding matters to the patient: CRIMSON's four levels, from the finding and the patient's context.

Every positive finding the rules judge reads gets a clinical significance level on CRIMSON's scale
(Baharoon et al. 2026; the guideline text of its prompt, ``core/prompts/templates/crimson.txt`` and
``crimson_context_guidelines.txt``):

* ``URGENT`` (1.0): needs action now (pneumothorax above a small one, embolism, dissection, free air,
  haemorrhage, a shifted mediastinum, ...);
* ``ACTIONABLE`` (0.5): changes the plan, not at once (effusion from small up, pneumonia, edema, a
  nodule that needs follow-up, masses, fractures, hydronephrosis, adenopathy, ...);
* ``MINOR`` (0.25): worth writing down, changes nothing (atelectasis, scarring, a trace effusion,
  degenerative change, a correctly placed line, osteopenia, a hiatal hernia, ...);
* ``BENIGN`` (0.0): benign or expected (calcified granulomas, post-surgical material, simple cysts, and
  age-appropriate changes in a patient 65 or older: aortic atherosclerosis, tortuosity, spine degeneration).

An error is clinically significant when its finding is urgent or actionable (level >= 0.5): a missing or
invented finding (b, a), a finding on the wrong side or at another site (c), a comparison that changes
(e, f). A severity step (d) is significant when it moves the finding across the actionable line, spans two
steps of a finding actionable at either grade (small -> large, mild -> severe), or concerns an urgent
finding, or crosses a line where management changes (an effusion from moderate is considered for drainage);
a one-step change of a finding actionable at both grades (mild -> moderate edema) is not.

Where the level comes from, in order:

1. the concept's clinical weight in :mod:`.vocab` (``always`` / ``graded`` / ``never``), with the grade and
   size thresholds there (Fleischner 2017: a solid lung nodule >= 6 mm is followed; ACR incidental-findings
   white papers: a liver lesion >= 1 cm is characterised, a simple renal cyst is not), adjusted by the
   tables below where the CRIMSON guideline grades the finding otherwise (an effusion is actionable from
   "small", edema and hydronephrosis at any grade, a small pneumothorax is actionable rather than urgent);
2. the patient's context, when the pair carries one (:func:`read_context`): age-appropriate changes at 65
   or older are benign unless the indication is about them; vascular calcification under 50 is actionable
   (premature atherosclerosis); a finding the indication asks about is at least actionable (a hiatal hernia
   for dysphagia, coronary calcification for chest pain); with a known malignancy a nodule or liver lesion
   of any size is followed (Fleischner's rules exclude patients with cancer); after a recent operation or
   procedure an expected small effusion, atelectasis or subcutaneous air is minor (CRIMSON's context
   guideline); in a child a fracture is urgent (non-accidental injury).

Without context the level depends on the finding alone, so a pair without context is judged as before
issue 44 except where the tables of step 1 changed a level. ReXVal's definition (Yu et al. 2023) is the
same line: a clinically significant error is one that could change the patient's management.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.judges.rules import vocab as V
from core.judges.rules.findings import Finding, family_of

__all__ = ["ACTIONABLE", "BENIGN", "MINOR", "URGENT", "Context", "level", "level_name", "matters", "read_context",
           "severity_significant"]

URGENT, ACTIONABLE, MINOR, BENIGN = 1.0, 0.5, 0.25, 0.0
LEVEL_NAMES = {URGENT: "urgent", ACTIONABLE: "actionable_not_urgent", MINOR: "not_actionable_not_urgent",
               BENIGN: "benign_expected"}

#: Urgent whatever their grade (CRIMSON's "urgent" examples and the neuro/abdominal emergencies).
URGENT_CONCEPTS = frozenset({
    "pulmonary_embolism", "aortic_dissection", "pneumoperitoneum", "pneumomediastinum", "mediastinal_shift",
    "mediastinal_widening", "ich", "sdh", "sah", "acute_infarct", "midline_shift", "brain_herniation",
    "cerebral_edema", "perforation", "hemoperitoneum", "bowel_obstruction", "cord_signal", "flow_reversal",
    "appendicitis"})
#: Urgent from this grade on the first scale (a small pneumothorax is actionable: CRIMSON "small non-tension").
URGENT_FROM_GRADE = {"pneumothorax": 2.0, "pericardial_effusion": 3.0}
#: Benign or expected whatever the patient (CRIMSON "benign_expected"; ACR: a simple renal cyst needs nothing).
BENIGN_CONCEPTS = frozenset({
    "granuloma", "granulomatous_disease", "calcified_nodes", "benign_calcifications", "renal_cyst",
    "azygos_fissure", "vertical_heart", "epicardial_fat", "external_leads", "postsurgical_changes",
    "surgical_clips", "cholecystectomy", "sternotomy", "arthroplasty", "spinal_fusion", "orthopedic_fixation",
    "breast_implants", "valve_replacement", "stent"})
#: Actionable from this level of the first scale, where CRIMSON's guideline grades lower than the vocabulary's
#: threshold: an effusion from small (a trace one is minor), edema and hydronephrosis at any grade, an enlarged
#: heart from mild (CRIMSON: "mild to moderate cardiomegaly" is actionable; a borderline heart is not).
ACTIONABLE_FROM_GRADE = {"pleural_effusion": 1.0, "any_effusion": 1.0, "pulmonary_edema": 0.5,
                         "hydronephrosis": 0.5, "cardiomegaly": 1.0}
#: A second line on the first scale where management changes although the finding is actionable on both sides of
#: it: an effusion from moderate is considered for drainage (small vs moderate is significant, trace vs small not).
MANAGEMENT_FROM_GRADE = {"pleural_effusion": 2.0, "any_effusion": 2.0}
#: Never actionable on the study that reports them, whatever the grade (chronic: follows lung function).
NEVER_ACTIONABLE = frozenset({"emphysema"})

#: Age-related changes: benign at 65 or older unless the indication is about them (CRIMSON context guideline).
AGE_EXPECTED = frozenset({
    "aortic_atherosclerosis", "aortic_tortuosity", "coronary_calcification", "plaque", "degenerative_changes",
    "disc_degeneration", "facet_arthropathy", "osteoarthritis", "osteopenia", "small_vessel", "volume_loss",
    "kyphosis", "chondrocalcinosis", "ac_arthropathy"})
#: Vascular calcification: actionable under 50 (premature atherosclerosis).
VASCULAR_CALCIFICATION = frozenset({"aortic_atherosclerosis", "coronary_calcification", "plaque"})
#: Indication words that make a finding the answer to the clinical question (at least actionable).
ASKED_ABOUT: dict[str, str] = {
    "coronary_calcification": r"chest\s+pain|angina|coronary|cardiac|ischemi|ischaemi",
    "aortic_atherosclerosis": r"chest\s+pain|vascular|claudication|aort",
    "hiatal_hernia": r"dysphagia|reflux|gerd|heartburn|epigastric|regurgitat",
    "osteopenia": r"osteopor|fragility|bone\s+density",
    "degenerative_changes": r"back\s+pain|neck\s+pain|radiculopath",
    "disc_degeneration": r"back\s+pain|neck\s+pain|radiculopath",
    "aortic_tortuosity": r"aort|widened\s+mediastinum",
}
_MALIGNANCY = re.compile(r"cancer|carcinoma|malignan|lymphoma|metasta|melanoma|sarcoma|oncolog|staging|tumou?r", re.I)
_FOLLOWED_IN_CANCER = frozenset({"lung_nodule", "any_nodule", "liver_lesion", "any_lesion", "adrenal_nodule"})
# a recent operation or procedure ("post-op day 2", "status post CABG", "after sternotomy", "line placement"),
# not a prior study ("Prior CT chest") and not a remote one ("remote surgery", "years ago")
_RECENT_PROCEDURE = re.compile(
    r"\b(?:post[-\s]?op(?:erative)?|status\s+post|s/p|after\s+(?:surgery|sternotomy|thoracotomy|cabg|"
    r"line\s+placement|intubation|chest\s+tube)|post[-\s]?(?:sternotomy|thoracotomy|cabg|surgery|procedure)|"
    r"(?:line|tube|catheter)\s+(?:placement|insertion))\b", re.I)
_REMOTE = re.compile(r"\b(?:remote|years?\s+ago|old)\b", re.I)
_EXPECTED_AFTER_PROCEDURE = frozenset({"atelectasis", "subcutaneous_emphysema", "postsurgical_changes"})
# "82", "82 years", "82y", "6 months", "3 wk", "10 days" ("82 M" and "82M" are 82 years, male)
_AGE = re.compile(r"(\d{1,3}(?:\.\d+)?)\s*(mo(?:nths?)?\b|w(?:ks?|eeks?)\b|days?\b)?", re.I)


@dataclass(frozen=True)
class Context:
    """What the rules read of a pair's patient context (None: not given)."""

    age: float | None = None
    sex: str | None = None
    clinical: str = ""  # indication and history, lower case

    @property
    def given(self) -> bool:
        return self.age is not None or bool(self.clinical) or self.sex is not None


NO_CONTEXT = Context()


def read_context(context: dict | None) -> Context:
    """A pair's context (keys of ``core.taxonomy.CONTEXT_FIELDS``: age, sex, indication, history) as the rules
    read it; unknown keys and blank values are ignored, an age that is not a number is not an age."""
    if not context:
        return NO_CONTEXT
    age = None
    m = _AGE.search(str(context.get("age") or ""))
    if m:
        n = float(m.group(1))
        unit = (m.group(2) or "y")[0].lower()
        age = n / 12 if unit == "m" else n / 52 if unit == "w" else n / 365 if unit == "d" else n
        if age > 130:
            age = None
    sex = str(context.get("sex") or "").strip().upper()[:1] or None
    clinical = " ".join(str(context.get(k) or "") for k in ("indication", "history")).strip().lower()
    return Context(age, sex, clinical)


def _threshold(c: V.Concept, scale: str) -> float | None:
    if c.key in ACTIONABLE_FROM_GRADE and c.scales and scale == c.scales[0]:
        return ACTIONABLE_FROM_GRADE[c.key]
    if c.level is None:
        return None
    if c.scales and scale == c.scales[0]:
        return c.level
    return c.alt_level if c.alt_level is not None else c.level


def _base_matters(f: Finding, grade: tuple[str, float] | None, size: float | None) -> bool:
    """The vocabulary's rule (``Concept.sig``) with this module's grade tables: an ungraded, unmeasured graded
    finding is taken to matter."""
    c = V.CONCEPT_BY_KEY.get(f.concept)
    if c is None or c.sig == "never" or c.key in NEVER_ACTIONABLE:
        return False
    if c.sig == "always":
        return True
    known = False
    if grade is not None and (thr := _threshold(c, grade[0])) is not None:
        known = True
        if grade[1] >= thr:
            return True
    if c.size_mm is not None and size is not None:
        known = True
        if size >= c.size_mm:
            return True
    return not known


def _base_level(f: Finding, grade: tuple[str, float] | None, size: float | None) -> float:
    key = f.concept
    if key in URGENT_CONCEPTS:
        return URGENT
    if key in URGENT_FROM_GRADE:
        c = V.CONCEPT_BY_KEY[key]
        if grade is None or (c.scales and grade[0] == c.scales[0] and grade[1] >= URGENT_FROM_GRADE[key]):
            return URGENT if grade is not None or c.sig == "always" else ACTIONABLE
    if key in BENIGN_CONCEPTS:
        return BENIGN
    return ACTIONABLE if _base_matters(f, grade, size) else MINOR


def level(f: Finding, ctx: Context = NO_CONTEXT, *, grade: tuple[str, float] | None = None,
          size: float | None = None, use_own: bool = True) -> float:
    """The finding's level (optionally at another grade or size) for a patient (module docstring)."""
    if use_own:
        grade = grade or f.grade
        size = size if size is not None else f.size_mm
    base = _base_level(f, grade, size)
    if not ctx.given:
        return base
    key = f.concept
    asked = key in ASKED_ABOUT and bool(ctx.clinical) and re.search(ASKED_ABOUT[key], ctx.clinical) is not None
    if asked:
        return max(base, ACTIONABLE)
    if ctx.age is not None:
        if ctx.age < 18 and family_of(key) == "fracture":
            return URGENT  # an unexplained fracture in a child: non-accidental injury is considered
        if key in VASCULAR_CALCIFICATION and ctx.age < 50:
            return max(base, ACTIONABLE)
        if key in AGE_EXPECTED and ctx.age >= 65:
            return BENIGN
    if ctx.clinical:
        if key in _FOLLOWED_IN_CANCER and _MALIGNANCY.search(ctx.clinical):
            return max(base, ACTIONABLE)
        if _RECENT_PROCEDURE.search(ctx.clinical) and not _REMOTE.search(ctx.clinical):
            small = grade is None or grade[1] <= 1
            if key in _EXPECTED_AFTER_PROCEDURE or (family_of(key) == "effusion" and small and grade is not None):
                return min(base, MINOR)
            if key == "pneumomediastinum":  # expected after sternotomy, but followed (CRIMSON context guideline)
                return ACTIONABLE
    return base


def matters(f: Finding, ctx: Context = NO_CONTEXT, **at) -> bool:
    """Is an error about this finding clinically significant (urgent or actionable)?"""
    return level(f, ctx, **at) >= ACTIONABLE


def level_name(value: float) -> str:
    """CRIMSON's label for a level (``core.parse.crimson.SIGNIFICANCE_WEIGHTS``' keys)."""
    return LEVEL_NAMES[value]


def severity_significant(r: Finding, c: Finding, ctx: Context = NO_CONTEXT) -> bool:
    """A grade difference of one finding (same scale, >= 1 step): significant when it changes management."""
    lr = level(r, ctx, grade=r.grade, use_own=False)
    lc = level(r, ctx, grade=c.grade, use_own=False)
    if max(lr, lc) >= URGENT:
        return True
    crosses = (lr >= ACTIONABLE) != (lc >= ACTIONABLE)
    line = MANAGEMENT_FROM_GRADE.get(r.concept)
    concept = V.CONCEPT_BY_KEY.get(r.concept)
    if line is not None and concept is not None and concept.scales and r.grade[0] == concept.scales[0]:
        crosses = crosses or ((r.grade[1] >= line) != (c.grade[1] >= line))
    two_steps = abs(r.grade[1] - c.grade[1]) >= 2 and max(lr, lc) >= ACTIONABLE
    return crosses or two_steps


def size_matters(f: Finding, size: float, ctx: Context = NO_CONTEXT) -> bool:
    return matters(f, ctx, size=size)


def is_device(f: Finding) -> bool:
    return family_of(f.concept) == "device"
