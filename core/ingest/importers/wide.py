"""Wide annotation layouts: one row per pair per rater, one count column per category x significance.

Annotation tools and spreadsheets often export error counts this way (``a_significant .. f_minor``,
``sig_a .. insig_f``, ``A (sig)``, ``cat1_not_significant``). A cell of the layout is named by its
key, ``sig_a`` .. ``sig_f`` and ``insig_a`` .. ``insig_f``. :func:`detect_wide_columns` finds the twelve
columns from common spellings; :func:`parse_wide_cols` reads them given explicitly
(``sig_a=COL,insig_a=COL,...``); :func:`prepare_wide_annotations` validates the file with the long
form's checks (ids of the dataset, whole counts 0-1000, one row per pair and rater), naming each
problem by the file's row and column, and returns the long frame ``write_annotations`` stores.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from core.ingest.importers import validation
from core.ingest.importers.common import MAX_ERROR_COUNT, ImportValidationError, limit_problems
from core.ingest.importers.reading import check_scalar_cells, require_columns
from core.taxonomy import CATEGORIES

#: The twelve cells of the layout, in the order the analyses read them: key -> (category, significant).
WIDE_CELLS: dict[str, tuple[str, bool]] = {
    f"{'sig' if sig else 'insig'}_{cat}": (cat, sig) for sig in (True, False) for cat in CATEGORIES}

# Words of a column name that say significant / not significant (after lower-casing, "_" between words).
_SIGNIFICANT = {"sig", "significant", "clinically_significant", "clin_sig", "cs", "major", "s"}
_INSIGNIFICANT = {"insig", "insignificant", "not_significant", "non_significant", "nonsignificant", "not_sig",
                  "nonsig", "non_sig", "clinically_insignificant", "not_clinically_significant", "ns", "ncs",
                  "minor", "ins"}
# Words that only say "a count of errors" and are dropped before reading the rest.
_FILLER = {"cat", "category", "err", "error", "errors", "count", "counts", "n", "num", "number", "type"}


def _words(name: str) -> list[str]:
    text = re.sub(r"([a-z])([0-9])|([0-9])([a-z])", r"\1\3_\2\4", str(name).lower())  # cat1 -> cat_1
    return [w for w in re.sub(r"[^a-z0-9]+", "_", text).strip("_").split("_") if w]


def wide_cell(name: str) -> str | None:
    """The cell key (``sig_a`` ...) a column name spells, or None: one category (a-f or 1-6) and
    significance words, in either order (``a_significant``, ``sig_a``, ``A (minor)``, ``cat3_not_sig``)."""
    words = [w for w in _words(name) if w not in _FILLER]
    cats = [w for w in words if w in CATEGORIES or (w.isdigit() and 1 <= int(w) <= 6)]
    if len(cats) != 1:
        return None
    rest = "_".join(w for w in words if w != cats[0])
    cat = cats[0] if cats[0] in CATEGORIES else CATEGORIES[int(cats[0]) - 1]
    if rest in _SIGNIFICANT:
        return f"sig_{cat}"
    if rest in _INSIGNIFICANT:
        return f"insig_{cat}"
    return None


def detect_wide_columns(columns: Sequence[str]) -> dict[str, str]:
    """Cell key -> the column that spells it, for every cell found once; a cell two columns spell
    is left out (:func:`wide_problems` says which)."""
    found: dict[str, list[str]] = {}
    for col in columns:
        key = wide_cell(col)
        if key:
            found.setdefault(key, []).append(str(col))
    return {k: cols[0] for k, cols in found.items() if len(cols) == 1}


def wide_problems(columns: Sequence[str], cells: Mapping[str, str | None]) -> list[str]:
    """Why ``cells`` (key -> column) is not a complete layout over ``columns``: cells left without a
    column, columns given twice, columns not in the file, and cells spelled by two columns."""
    problems = []
    spelled: dict[str, list[str]] = {}
    for col in columns:
        if (key := wide_cell(col)) and not cells.get(key):
            spelled.setdefault(key, []).append(str(col))
    for key, cols in spelled.items():
        if len(cols) > 1:
            problems.append(f"cell {key} is spelled by {len(cols)} columns ({', '.join(cols)}): name the one to "
                            f"use ({key}=COLUMN)")
    missing = [k for k in WIDE_CELLS if not cells.get(k) and len(spelled.get(k, [])) < 2]
    if missing:
        problems.append(f"no column for {len(missing)} of the 12 cells ({', '.join(missing)}); the wide layout "
                        "needs a count column for each category a-f x significant / not (e.g. a_significant .. "
                        "f_minor or sig_a .. insig_f), or name them: sig_a=COLUMN,...")
    unknown = [k for k in cells if k not in WIDE_CELLS]
    if unknown:
        problems.append(f"unknown cell(s) {', '.join(unknown)}; cells are {', '.join(WIDE_CELLS)}")
    chosen = [c for c in cells.values() if c]
    twice = sorted({c for c in chosen if chosen.count(c) > 1})
    if twice:
        problems.append(f"column(s) {', '.join(twice)} given for more than one cell")
    absent = [c for c in dict.fromkeys(chosen) if c not in set(map(str, columns))]
    if absent:
        problems.append(f"column(s) {', '.join(absent)} not in the file; its columns are: "
                        f"{', '.join(map(str, columns))}")
    return problems


def parse_wide_cols(text: str | None) -> dict[str, str]:
    """``"sig_a=A sig,insig_a=A minor"`` -> ``{"sig_a": "A sig", ...}``; a cell may be spelled as a
    column would be (``a_significant=...``). A malformed entry is refused."""
    cells: dict[str, str] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, sep, col = item.partition("=")
        cell = key.strip().lower() if key.strip().lower() in WIDE_CELLS else wide_cell(key)
        if not sep or not col.strip() or cell is None:
            raise ImportValidationError([f"--wide-cols entry {item.strip()!r}: give CELL=COLUMN with CELL one of "
                                         f"{', '.join(WIDE_CELLS)}"])
        cells[cell] = col.strip()
    return cells


def resolve_wide_columns(columns: Sequence[str], given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The twelve cells' columns: ``given`` over what the column names spell; refused when incomplete."""
    cells = {**detect_wide_columns(columns), **dict(given or {})}
    problems = wide_problems(columns, cells)
    if problems:
        raise ImportValidationError(problems)
    return cells


def count_problem(raw, value: float | None, where: str) -> str | None:
    """The long form's check of one count cell: a whole number from 0 to MAX_ERROR_COUNT."""
    if value is None or math.isnan(value) or math.isinf(value) or value < 0 or not float(value).is_integer():
        return f"{where}: count {raw!r} is not a whole number >= 0"
    if value > MAX_ERROR_COUNT:
        return (f"{where}: count {raw!r} is above {MAX_ERROR_COUNT}, the most errors of one kind RadConcord "
                "accepts for one report pair")
    return None


def prepare_wide_annotations(df: pd.DataFrame, dataset: str, lookup: dict[str, str], *, id_col: str,
                             cells: Mapping[str, str], annotator_col: str | None = None,
                             annotator: str = "expert", source: str | None = None) -> pd.DataFrame:
    """Validate a wide layout (``cells``: key -> column, all twelve) against ``lookup`` (ext_id ->
    pair_id) and return it long: one error_count row per pair, annotator and cell."""
    problems = wide_problems(list(df.columns), cells)
    problems += [f"column '{c}' is the {role} column and cannot also be a count column"
                 for role, c in (("id", id_col), ("annotator", annotator_col)) if c and c in cells.values()]
    if problems:
        raise ImportValidationError(problems)
    require_columns(df, {"id": id_col, "annotator": annotator_col})
    check_scalar_cells(df, [id_col, annotator_col, *cells.values()], problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    ids = validation.column_ids(df, id_col, problems)
    pair_ids = validation.match_ids(ids, lookup, dataset, problems)
    annotators = validation.row_annotators(df, annotator_col, annotator, problems)
    rows = []
    for key, col in cells.items():
        cat, sig = WIDE_CELLS[key]
        for i, raw in enumerate(df[col].tolist()):
            value = validation.cell_number(raw)
            problem = count_problem(raw, value, f"row {i + 1}, column '{col}'")
            if problem:
                problems.append(problem)
            else:
                rows.append((pair_ids[i], annotators[i], "error_count", cat, sig, float(value)))
    keys = list(zip(ids, annotators, strict=True))
    validation.check_duplicates(keys, "annotation (id / annotator)", problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    return count_frame(rows, source)


def count_frame(rows: list[tuple], source: str | None) -> pd.DataFrame:
    """Error-count rows ``(pair_id, annotator, field, category, significant, value)`` as the frame
    ``write_annotations`` stores (no scale)."""
    frame = pd.DataFrame(rows, columns=["pair_id", "annotator", "field", "category", "significant", "value"])
    frame["significant"] = frame["significant"].astype("boolean")
    frame["scale_max"] = pd.array([None] * len(frame), dtype="Float64")
    frame["source"] = source
    frame["scale_min"] = pd.array([None] * len(frame), dtype="Float64")
    return frame
