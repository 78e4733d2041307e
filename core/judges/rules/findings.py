"""What the rules judge works with: normalised findings, matches, errors and the result for a pair.

Also the few relations between findings that parsing (:mod:`.extract`) and
matching (:mod:`.match`) share: same observation or family, sizes that differ,
and the short description of a finding used in explanations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.judges.rules import vocab as V
from core.taxonomy import CATEGORIES

RULES_VERSION = "rules-18"  # 2: pelvic free fluid, not ascites; 3: granulomatous disease, mid lung; 4: IU wordings;
# 5: a pair in another language, or a candidate that is not a report, is a recorded failure (rules/screen.py);
# 6: descriptive chest wordings and surgical material (vocab_chest.py), findings not assessed and history
# findings set apart, lists negated after a plural verb, evidence chains, "not a radiograph" text refused
# 7: a comparison carried over when a repeated finding is merged (one phrase, one error); issue 32 generalisation
# 8: benign paraphrase (tests/judges/test_rules_paraphrase.py): granulomatous disease stands for calcified
# granulomas or nodes, degenerative changes for disc degeneration, "and a" ends a negation, more synonyms
# 9: paraphrases of real IU references: "the aorta is calcified and tortuous" is both findings, heart size "at the
# upper limits of normal" is a borderline heart, "could obscure" is a limit, an impression's comparison is kept
# when its restatement conflicts with the findings section
# 10: a second IU paraphrase probe (tests/judges/test_rules_paraphrase_iu.py): "there is again", "has developed",
# "continued" are comparisons (an explicit one in the sentence wins), "increased" before its noun describes
# 11: an observation restated at the same place with the readings offered for it is one finding ("airspace disease"
# is a density awaiting its reading); the candidate's restatement at another place is a location error, and a
# comparison its restatement keeps is not omitted
# 12: reading rules from the dev2 split (tests/judges/test_rules_generalise.py): "clear airspace disease" is "clear
# of"; "no X elsewhere" leaves the stated X; advice on what radiographs can miss is a limit, a comparison word in a
# condition none; "These are unchanged" is the previous sentence's comparison; plaque in the aorta is aortic
# atherosclerosis; "A/B" offers alternatives, matched either way; minimal vs mild is one grade
# 13: the not-a-report screen by family (screen.py, f60918b); reading rules from dev2 and dev3
# (tests/judges/test_rules_generalise_dev3.py): a density and its reading in the other section at the same place
# are one finding, a bare density read at the end of a long description too; a sternotomy (or CABG) is a
# post-surgical change, which a summary in the other section or unplaced material beside it restates
# 14: reading rules from dev3 and dev4 (tests/judges/test_rules_generalise_dev4.py): a de-identified gap fixed by
# its phrase (a tip in a central vein: a venous catheter; "calcified hilar XXXX": nodes), lines named by their
# vein; "interval placement" is new; a mediastinal comparison carries to the finding it is "with"; a known
# condition read as what a density corresponds to is seen; "screening" names no finding; synonym families
# (lateral spinal curvature, old rib deformities, increase in heart size, chronic lung disease for COPD/fibrosis)
# 15: dev5 (tests/judges/test_rules_generalise_dev5.py; British spelling in rules/spelling.py): a heart at the
# upper limit of normal matches a borderline heart but alone is no finding to invent or omit; findings under
# a heading of another body part ("Right knee:") belong to another study
# 16: dev6 (tests/judges/test_rules_generalise_dev6.py; rules/rewrite.py): "resolution of X" is a comparison; an
# organ heading is the subject of the state after it ("Heart: enlarged"); a finding seen before and not seen now
# has resolved; what an exam is "for evaluation of" is no finding; a device whose tip is not seen is there;
# a limit after a contrast word ("although the abdomen is not well evaluated") has its own subject; synonym
# families (senescent changes, deviated trachea, retained bullets, linear atelectasis, aortic XXXX calcification)
# 17: review fixes: an internal error is a recorded failure; an American "ICD ... no pneumothorax" stays a cardiac
# device; "as previously noted" does not make the next finding resolved; real reports with "concerns regarding X"
# are scored; hostile text is read in linear time; a capitalised header after a full stop starts its section
# 18: issue 44: significance on CRIMSON's four levels from the finding and the patient's context (rules/significance.py,
# tests/judges/test_rules_significance.py); partial matches for a vaguer or different reading (rules/precision.py)
CATEGORY_LABELS: dict[str, str] = {
    "a": "False report of a finding in the candidate",
    "b": "Missing a finding present in the reference",
    "c": "Misidentification of a finding's anatomic location/position",
    "d": "Misassessment of the severity of a finding",
    "e": "Mentioning a comparison that isn't in the reference",
    "f": "Omitting a comparison detailing a change from a prior study",
}


@dataclass(frozen=True)
class Finding:
    """One normalised statement of a report.

    ``kind`` is ``"finding"`` (a known observation, present or absent),
    ``"statement"`` (a sentence with no known observation; ``tokens`` holds
    its content words), ``"limit"`` (an observation the text says it could not
    assess: "pneumothorax cannot be assessed") or ``"history"`` (one of the
    patient's history: "known lung cancer"); the last two are never matched
    or counted as errors.  ``sites`` maps a site class ("lung lobe", "spine
    level", ...) to its normalised values.  ``grade`` is ``(scale, level)``.
    """

    kind: str
    concept: str
    name: str
    present: bool
    section: str
    text: str
    certainty: str = "definite"
    side: str | None = None
    sites: tuple[tuple[str, tuple[str, ...]], ...] = ()
    grade: tuple[str, float] | None = None
    grade_text: str | None = None
    size_mm: float | None = None
    size_text: str | None = None
    change: str | None = None
    change_text: str | None = None
    tokens: frozenset[str] = frozenset()
    alternatives: tuple[str, ...] = ()  # other readings offered for this observation ("versus scarring")
    change_at: str | None = None  # where the comparison is stated: one phrase over a list is one comparison

    @property
    def site_map(self) -> dict[str, tuple[str, ...]]:
        return dict(self.sites)

    def describe(self) -> str:
        """Short normalised description: "moderate left pleural effusion in the right upper lobe"."""
        if self.kind == "statement":
            return clip(self.text, 90)
        bits = []
        device = family_of(self.concept) == "device"
        if self.size_mm is not None and not device:
            bits.append(fmt_mm(self.size_mm))
        if self.grade_text:
            bits.append(self.grade_text)
        side = self.side
        sites = _site_phrase(self)
        if side and not (sites and side in sites):
            bits.append(side)
        bits.append(self.name)
        if sites:
            bits.append(sites)
        text = " ".join(bits)
        if self.alternatives:
            text += " or " + " or ".join(V.CONCEPT_BY_KEY[k].name for k in self.alternatives)
        if device and self.size_mm is not None:
            text += f", {self.size_text}"
        if self.kind == "limit":
            return f"{text} (not assessed)"
        if self.kind == "history":
            return f"history of {text}"
        if not self.present:
            return f"no {text}"
        if self.certainty != "definite":
            text = f"{self.certainty} {text}"
        if self.change:
            text += f" ({CHANGE_WORDS[self.change]})"
        return text


@dataclass(frozen=True)
class Match:
    """A reference statement matched with a candidate statement."""

    reference: Finding
    candidate: Finding
    kind: str  # "positive" | "negative" | "statement"
    counted: bool  # counts as a matched finding (no location/severity error)


@dataclass(frozen=True)
class RuleError:
    """One error found by the rules."""

    category: str
    significant: bool
    explanation: str
    reference: Finding | None = None
    candidate: Finding | None = None


@dataclass
class RulesResult:
    """Everything the rules found for one pair."""

    reference_findings: list[Finding] = field(default_factory=list)
    candidate_findings: list[Finding] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    errors: list[RuleError] = field(default_factory=list)
    explanation: str = ""
    failure: str | None = None  # the judge could not read the pair: a recorded failure, never a score
    context: object = None  # the patient context the levels were read with (significance.Context)

    @property
    def matched(self) -> int:
        return sum(1 for m in self.matches if m.counted)

    @property
    def sig(self) -> dict[str, int]:
        return {c: sum(1 for e in self.errors if e.category == c and e.significant) for c in CATEGORIES}

    @property
    def insig(self) -> dict[str, int]:
        return {c: sum(1 for e in self.errors if e.category == c and not e.significant) for c in CATEGORIES}

    @property
    def ec_sig(self) -> int:
        return sum(1 for e in self.errors if e.significant)

    def to_dict(self) -> dict:
        return {
            "version": RULES_VERSION,
            "sig": self.sig,
            "insig": self.insig,
            "matched": self.matched,
            "errors": [{"category": e.category, "significant": e.significant, "text": e.explanation}
                       for e in self.errors],
            "matched_findings": [m.reference.describe() for m in self.matches if m.counted],
            "explanation": self.explanation,
        }


CHANGE_WORDS = {"new": "new", "unchanged": "unchanged", "increased": "increased", "decreased": "decreased",
                 "resolved": "resolved"}


def clip(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3].rstrip() + "..."


def fmt_mm(mm: float) -> str:
    return f"{mm:g} mm" if mm < 10 else (f"{mm / 10:.1f} cm" if mm % 1 else f"{int(mm)} mm")


def _site_phrase(f: Finding) -> str:
    parts = []
    for cls, values in f.sites:
        v = " and ".join(values)
        if cls in ("spine level", "clock face", "liver segment"):
            parts.append(("at " if cls != "liver segment" else "in ") + (v + " o'clock" if cls == "clock face" else v))
        elif cls == "rib":
            parts.append(f"(rib {v})")
        elif cls in ("medial/lateral", "position", "uterine layer", "curve", "tendon", "lung zone", "meniscal horn"):
            parts.append(f"({v})")
        else:
            parts.append(f"in the {v}")
    return " ".join(parts)


def family_of(key: str) -> str | None:
    c = V.CONCEPT_BY_KEY.get(key)
    return c.family if c else None


def is_generic(key: str) -> bool:
    c = V.CONCEPT_BY_KEY.get(key)
    return bool(c and c.generic)


def _families(key: str) -> set[str]:
    c = V.CONCEPT_BY_KEY.get(key)
    return {f for f in (c.family, *c.also) if f} if c else set()


def concepts_related(a: str, b: str) -> bool:
    """Same observation, or a generic observation and one of its family (or of the families it also
    belongs to: a "nodule" and a calcified granuloma)."""
    if a == b:
        return True
    fa, fb = family_of(a), family_of(b)
    if fa is not None and fa == fb and (is_generic(a) or is_generic(b)):
        return True
    return bool((is_generic(a) and fa in _families(b)) or (is_generic(b) and fb in _families(a)))


def findings_related(a: Finding, b: Finding, strict: bool = False) -> bool:
    """Two findings of one observation: the same (``strict``) or related concepts, an alternative offered for
    one being the other ("atelectasis versus scarring" and "scarring")."""
    same = (lambda x, y: x == y) if strict else concepts_related
    return any(same(x, y) for x in (a.concept, *a.alternatives) for y in (b.concept, *b.alternatives))


def sizes_differ(a: float, b: float) -> bool:
    lo, hi = min(a, b), max(a, b)
    return hi - lo >= 1.0 and hi / max(lo, 0.1) >= 1.1
