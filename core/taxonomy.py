"""What every layer shares: the six error categories, the facets pairs are filtered by, the chart colours.

Error categories are GREEN's (Section 3.1.1) and VERT's Appendix D.1, in that order, with ReXVal's
numbering 1-6. Category names here are the dashboard's; prompts keep the exact wording of their paper.
"""

from __future__ import annotations

#: Error categories, in order (ReXVal's 1-6).
CATEGORIES: tuple[str, ...] = ("a", "b", "c", "d", "e", "f")

#: The six clinically significant error types of ReXVal / GREEN / VERT (GREEN section 2, VERT appendix
#: D), as the dashboard names them; the letters are what the store keeps.
CATEGORY_NAMES: dict[str, str] = {
    "a": "False report of a finding",
    "b": "Missing a finding",
    "c": "Misidentification of a finding's anatomic location/position",
    "d": "Misassessment of the severity of a finding",
    "e": "Mentioning a comparison that isn't in the reference",
    "f": "Omitting a comparison detailing a change from a prior study",
}

#: ``annotations.field`` of error counts in a category outside ReXVal's six: RadEval's expert set counts a seventh,
#: grammar/readability, stored as category "g" under this field, never as ``error_count``, so no a-f total, target,
#: agreement or few-shot count ever includes it (every reader of counts selects ``field = 'error_count'``).
EXTRA_COUNT_FIELD = "error_count_extra"
EXTRA_CATEGORY_NAMES: dict[str, str] = {"g": "Grammar/readability (RadEval's seventh category; not one of a-f)"}

#: The fewest complete pairs any number of one comparison rests on: each judge's correlation (``correlate``,
#: the Correlations page's cells, the report), the experts' ceiling (leave-one-out and pairwise agreement,
#: Krippendorff's alpha) and the paired test. Below it a figure is not computed and shows its n instead, so a
#: ceiling is never quoted beside judge cells that say "(n=5)". ``--min-n`` overrides it where a command has it.
MIN_N = 10

#: Pair metadata the pages and the CLI filter and break results down by.
FACETS: tuple[str, ...] = ("modality", "anatomy", "system", "split")

#: Optional patient context of a pair (issue 33), free text each, NULL when unknown: the columns of
#: ``pairs`` (migration 009) and the keys of a context dict passed to context-aware prompts.
CONTEXT_FIELDS: tuple[str, ...] = ("age", "sex", "indication", "history")

#: ``annotations.field`` of a per-pair mean over several raters as a published file carries it (e.g. ReXVal's
#: mean errors over six): an aggregate, not a rater; it never enters inter-rater agreement.
MEAN_FIELD = "error_count_mean"

#: The colour-blind-safe Okabe-Ito palette, in its standard order: every chart of the pages and the report.
OKABE_ITO: tuple[str, ...] = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")

#: A missing value in text meant for people (issue 43): an em dash where a table cell or a number stands,
#: :data:`NOT_RECORDED` or "none" where a sentence needs words; never "nan", "NaN", "None", "null" or "<NA>".
#: Data meant for machines (``--json``, the CSV/Parquet exports, the bundle's data) keep their empty
#: cells and nulls.
MISSING = "—"
NOT_RECORDED = "not recorded"


def is_missing(value: object) -> bool:
    """None, NaN, pandas' NA and NaT, or an empty string."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return True
    try:
        return bool(value != value)  # NaN and NaT are the values not equal to themselves
    except TypeError:  # pandas.NA refuses to be a bool
        return True
    except ValueError:  # an array: not one missing value
        return False


def shown(value: object, missing: str = MISSING, fmt: str | None = None) -> str:
    """``value`` as text people read (formatted with ``fmt`` when given), ``missing`` when it has none."""
    if is_missing(value):
        return missing
    return format(value, fmt) if fmt else str(value)


def readable_json(value: object) -> object:
    """A JSON object or list held as text (run params, dataset versions, queue filters) in words:
    ``{"seed": 7, "n": 3}`` -> ``seed 7 · n 3`` (null, empty and missing entries left out); anything else
    unchanged."""
    if not isinstance(value, str) or not value.strip().startswith(("{", "[")):
        return value
    import json

    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return _words(parsed)


def _words(value: object) -> str:
    if isinstance(value, dict):
        parts = [f"{k.replace('_', ' ')} {_words(v)}" for k, v in value.items() if v not in (None, "", [], {})]
        return " · ".join(parts) if parts else MISSING
    if isinstance(value, list):
        return ", ".join(_words(v) for v in value) if value else MISSING
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
