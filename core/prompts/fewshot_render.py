"""The few-shot examples as the VERT prompt shows them (VERT paper, Appendix D.5-D.9): the :class:`Shot`
record, the five variants (:data:`FEWSHOT_VARIANTS`) and the text of a few-shot section. Choosing the
shots from a pool is core.prompts.fewshot, which re-exports everything here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.taxonomy import CATEGORIES

from .loader import get_template

# Category names exactly as the D.1 prompt prints them (without the final period);
# used for the expanded "(x) <name>: <count>." lines of D.6-D.9.
CATEGORY_NAMES: dict[str, str] = {
    "a": "False report of a finding in the candidate",
    "b": "Missing a finding present in the reference",
    "c": "Misidentification of a finding’s anatomic location/position",
    "d": "Misassessment of the severity of a finding",
    "e": "Mentioning a comparison that isn’t in the reference",
    "f": "Omitting a comparison detailing a change from a prior study",
}
ALLOWED_K = (3, 5, 10)  # section 4.1.3: "3-, 5-, 10- shots"
RAD_ERR_PENALTY = 0.15  # D.6 / D.8: score = max(0, 1 - 0.15 x sig errors)
EXAMPLE_SEPARATOR = "\n\n"
SIG_COLS = tuple(f"sig_{c}" for c in CATEGORIES)
INSIG_COLS = tuple(f"insig_{c}" for c in CATEGORIES)


@dataclass(frozen=True)
class Shot:
    """One worked example shown to the judge.

    ``sig`` / ``insig`` map category letters a-f to counts; ``category`` is the
    error type the example illustrates (D.6, D.7); ``matched_findings`` is the
    [Matched Findings] text of a stored assessment (D.9).
    """

    reference: str
    candidate: str
    score: float | None = None
    sig: Mapping[str, float] | None = None
    insig: Mapping[str, float] | None = None
    explanation: str | None = None
    matched_findings: str | None = None
    category: str | None = None
    ext_id: str | None = None

    @property
    def sig_total(self) -> float:
        return float(sum((self.sig or {}).values()))


@dataclass(frozen=True)
class FewShotVariant:
    name: str
    prompt_id: str  # composite prompt id: vert + this section
    section_template: str
    example_template: str
    paper_section: str
    needs: tuple[str, ...]  # Shot fields every example must have


FEWSHOT_VARIANTS: dict[str, FewShotVariant] = {
    v.name: v
    for v in (
        FewShotVariant("random", "vert_random", "fewshot_section_examples",
                       "fewshot_example_random", "D.5", ("score",)),
        FewShotVariant("rad_err", "vert_rad_err", "fewshot_section_examples",
                       "fewshot_example_rad_err", "D.6", ("score", "sig", "insig", "category")),
        FewShotVariant("rate_err", "vert_rate_err", "fewshot_section_examples",
                       "fewshot_example_rate_err", "D.7",
                       ("score", "sig", "insig", "category", "explanation")),
        FewShotVariant("rad_err_10", "vert_rad_err_10", "fewshot_section_rad_err_10",
                       "fewshot_example_rad_err_10", "D.8", ("score", "sig", "insig")),
        FewShotVariant("rate_err_10", "vert_rate_err_10", "fewshot_section_rate_err_10",
                       "fewshot_example_rate_err_10", "D.9",
                       ("score", "sig", "insig", "explanation", "matched_findings")),
    )
}


# ---------------------------------------------------------------- formatting


def rad_err_score(significant_errors: float) -> float:
    """D.6/D.8 shot score: ``max(0, 1 - 0.15 x significant errors)``.

    ``significant_errors`` is the total over categories (a)-(f). Rounded to 10
    decimals so that 1 - 0.15 x 1 is 0.85, not 0.8500000000000001.
    """
    if significant_errors < 0:
        raise ValueError(f"significant error count must be >= 0, got {significant_errors}")
    return round(max(0.0, 1.0 - RAD_ERR_PENALTY * float(significant_errors)), 10)


def format_score(score: float) -> str:
    """Two decimals, as VERT asks for ("[0.00, 1.00] with two decimals")."""
    return f"{float(score):.2f}"


def format_count(count: float) -> str:
    """Integer counts as integers; a non-integer (mean over annotators) with up to 2 decimals."""
    value = float(count)
    if value.is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def format_counts(counts: Mapping[str, float] | None) -> str:
    """Six lines ``(x) <D.1 category name>: <count>.``, categories a-f, missing = 0."""
    counts = counts or {}
    unknown = set(counts) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"unknown error categories {sorted(unknown)}; use {CATEGORIES}")
    return "\n".join(
        f"({c}) {CATEGORY_NAMES[c]}: {format_count(counts.get(c, 0))}." for c in CATEGORIES
    )


def render_fewshot_section(variant: str, shots: list[Shot]) -> str:
    """The text appended to the vert prompt for *variant* with these shots."""
    try:
        spec = FEWSHOT_VARIANTS[variant]
    except KeyError:
        raise ValueError(
            f"unknown few-shot variant {variant!r}; valid: {', '.join(FEWSHOT_VARIANTS)}"
        ) from None
    if not shots:
        raise ValueError(f"few-shot variant {variant!r} needs at least one shot")
    example = get_template(spec.example_template)
    blocks = []
    for n, shot in enumerate(shots, start=1):
        if not isinstance(shot, Shot):
            raise ValueError(f"shot {n} is a {type(shot).__name__}, expected Shot")
        lacking = [f for f in spec.needs if getattr(shot, f) is None]
        if lacking:
            raise ValueError(
                f"shot {n} lacks {lacking}, needed by {variant} ({spec.paper_section})"
            )
        values = {
            "n": str(n),
            "reference": shot.reference,
            "candidate": shot.candidate,
            "score": format_score(shot.score) if shot.score is not None else "",
            "category": shot.category or "",
            "significant_errors": format_counts(shot.sig),
            "insignificant_errors": format_counts(shot.insig),
            "explanation": shot.explanation or "",
            "matched_findings": shot.matched_findings or "",
        }
        blocks.append(example.render(**{k: values[k] for k in example.placeholders}))
    return get_template(spec.section_template).render(examples=EXAMPLE_SEPARATOR.join(blocks))
