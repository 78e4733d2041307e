"""Validating cells (ids, numbers, flags, categories) and the dataset an import goes into."""

from __future__ import annotations

import math
import os
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from core.ingest.importers.common import ImportValidationError
from core.store.db import Store
from core.taxonomy import CATEGORIES


def cell_text(value) -> str | None:
    """A cell as text, or None when empty/missing."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def column_ids(df: pd.DataFrame, col: str, problems: list[str]) -> list[str | None]:
    """The ids in column ``col`` as text; an empty id is a problem."""
    ids = [cell_text(v) for v in df[col].tolist()]
    for i, v in enumerate(ids, start=1):
        if v is None:
            problems.append(f"row {i}: empty id in column '{col}'")
    return ids


def row_annotators(df: pd.DataFrame, annotator_col: str | None, annotator: str, problems: list[str]) -> list:
    """Each row's annotator: its cell in ``annotator_col`` (an empty one is a problem), else ``annotator``."""
    if not annotator_col:
        return [annotator] * len(df)
    annotators = [cell_text(v) for v in df[annotator_col].tolist()]
    problems += [f"row {i}: empty annotator in column '{annotator_col}'"
                 for i, a in enumerate(annotators, start=1) if a is None]
    return annotators


def check_duplicates(keys: list, label: str, problems: list[str]) -> None:
    """Add a problem for every key that occurs on more than one row (each key reported once)."""
    first: dict = {}
    reported: set = set()
    for i, key in enumerate(keys, start=1):
        if key is None:
            continue
        if key in first and key not in reported:
            shown = key if isinstance(key, str) else " / ".join(str(k) for k in key)
            problems.append(f"duplicate {label} '{shown}' on rows {first[key]} and {i}")
            reported.add(key)
        first.setdefault(key, i)


def cell_number(value) -> float | None:
    """A cell as a number: None when empty, NaN when not a number."""
    text = cell_text(value)
    if text is None:
        return None
    try:
        number = float(text)
    except ValueError:
        return math.nan
    return number


_TRUE = {"1", "true", "t", "yes", "y", "significant", "sig", "clinically significant"}
_FALSE = {"0", "false", "f", "no", "n", "insignificant", "insig", "not significant",
          "clinically insignificant"}


def cell_bool(value) -> bool | None:
    """A yes/no cell (true/false, 1/0, significant/insignificant, ...) as a bool; None when empty or unknown."""
    if isinstance(value, bool):
        return value
    text = cell_text(value)
    if text is None:
        return None
    low = text.lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    return None


def cell_category(value) -> str | None:
    """'a'..'f', 'A', '(b)', '3', 3.0 -> a letter; anything else -> None."""
    text = cell_text(value)
    if text is None:
        return None
    text = text.strip("() .").lower()
    if text in CATEGORIES:
        return text
    if text.isdigit() and 1 <= int(text) <= 6:
        return CATEGORIES[int(text) - 1]
    return None


#: Unicode categories a dataset name may not hold: controls (Cc), format characters such as bidi
#: overrides and zero-width spaces (Cf), surrogates, private-use and unassigned code points, and line or
#: paragraph separators: each is invisible or changes how the rest of the name displays.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def hidden_character(text: str) -> str | None:
    """The first invisible or display-changing character of ``text``, described (``U+202E RIGHT-TO-LEFT
    OVERRIDE``), or None when every character shows as itself."""
    for ch in text:
        category = unicodedata.category(ch)
        if category in _HIDDEN_CATEGORIES:
            return f"U+{ord(ch):04X} {unicodedata.name(ch, 'control character' if category == 'Cc' else category)}"
    return None


def check_dataset_name(dataset: str) -> str:
    """The dataset name trimmed; an empty or over-long name, or one with an invisible or display-changing
    character (a right-to-left override shows ``rtl\u202esd`` as "rtlds"), is refused."""
    name = (dataset or "").strip()
    if not name:
        raise ImportValidationError(["give a dataset name"])
    if len(name) > 200:
        raise ImportValidationError(["dataset name longer than 200 characters"])
    hidden = hidden_character(name)
    if hidden:
        raise ImportValidationError([f"dataset name holds {hidden}, an invisible or display-changing character; "
                                     "use visible characters only"])
    return name


def require_dataset(store: Store, dataset: str) -> None:
    """Refuse an import into a dataset that does not exist yet."""
    if store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]) == 0:
        known = store.query_df("SELECT name FROM datasets ORDER BY name")["name"].tolist()
        raise ImportValidationError(
            [f"dataset '{dataset}' not found; import its pairs first (datasets: {', '.join(known) or 'none'})"]
        )


def pair_lookup(store: Store, dataset: str) -> dict[str, str]:
    """ext_id -> pair_id for one dataset."""
    df = store.query_df("SELECT ext_id, pair_id FROM pairs WHERE dataset = ?", [dataset])
    return dict(zip(df["ext_id"], df["pair_id"], strict=True))


def match_ids(ids: list[str | None], lookup: dict[str, str], dataset: str, problems: list[str]) -> list:
    """The pair id of every external id (None where empty); an id not in the dataset is a problem."""
    missing = [(i, v) for i, v in enumerate(ids, start=1) if v is not None and v not in lookup]
    if missing:
        file_examples = list(dict.fromkeys(v for _, v in missing))[:3]
        stored = sorted(lookup)[:3]
        given = ", ".join(repr(v) for v in file_examples)
        problems.append(
            f"{len(missing):,} of {len(ids):,} ids are not pairs of dataset '{dataset}': the file's ids look like "
            f"{given}; the dataset's look like {', '.join(repr(v) for v in stored) or '(it has no pairs)'}")
        problems.extend(f"row {i}: id '{v}' is not a pair of dataset '{dataset}'" for i, v in missing[:4])
    return [lookup.get(v) if v is not None else None for v in ids]


def source_label(source) -> str | None:
    """A short name for where the data came from (the file name), if it has one."""
    if isinstance(source, (str, os.PathLike)):
        return Path(source).name
    return getattr(source, "name", None)


# Significance given as levels (CRIMSON-style clinical significance: urgent / actionable / not actionable /
# expected) -> significant or not. The default rule: urgent and actionable errors are clinically
# significant, not-actionable and expected ones are not; yes/no words (cell_bool) keep their meaning.
# Override with ``significant_levels`` (and ``insignificant_levels``); any other level is refused with its row.
SIGNIFICANT_LEVELS = ("urgent", "actionable")
INSIGNIFICANT_LEVELS = ("not actionable", "non-actionable", "expected")


def _level_key(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


@dataclass(frozen=True)
class SignificanceRule:
    """Which cells of a significance column mean clinically significant (see the comment above)."""

    significant: tuple[str, ...] = SIGNIFICANT_LEVELS
    insignificant: tuple[str, ...] = INSIGNIFICANT_LEVELS

    @classmethod
    def from_lists(cls, significant: str | Sequence[str] | None = None,
                   insignificant: str | Sequence[str] | None = None) -> SignificanceRule:
        """A rule from comma-separated (or listed) levels; a level left out of the insignificant list
        keeps the default's side unless it is named significant. Overlapping lists are refused."""
        def split(v):
            items = v.split(",") if isinstance(v, str) else list(v or [])
            return tuple(dict.fromkeys(t for t in (" ".join(str(x).split()) for x in items) if t))
        sig = split(significant) if significant is not None else SIGNIFICANT_LEVELS
        named_sig = {_level_key(s) for s in sig}
        if insignificant is not None:
            insig = split(insignificant)
        else:
            insig = tuple(s for s in INSIGNIFICANT_LEVELS + SIGNIFICANT_LEVELS
                          if _level_key(s) not in named_sig)
        both = sorted(named_sig & {_level_key(s) for s in insig})
        if both:
            raise ImportValidationError([f"level(s) {', '.join(both)} named both significant and not significant"])
        if not sig and not insig:
            raise ImportValidationError(["give at least one significance level"])
        return cls(sig, insig)

    def __call__(self, value) -> bool | None:
        flag = cell_bool(value)
        if flag is not None:
            return flag
        text = cell_text(value)
        if text is None:
            return None
        key = _level_key(text)
        if key in {_level_key(s) for s in self.significant}:
            return True
        if key in {_level_key(s) for s in self.insignificant}:
            return False
        return None

    def describe(self) -> str:
        return (f"significant: {', '.join(self.significant) or '-'} (or true/yes/1); "
                f"not significant: {', '.join(self.insignificant) or '-'} (or false/no/0)")
