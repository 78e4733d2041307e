"""Importing expert annotations (overall scores or error counts): validate, then write to the store."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from core.ingest.importers import validation, wide
from core.ingest.importers.common import (
    MAX_ERROR_COUNT,
    ImportProgress,
    ImportReport,
    ImportValidationError,
    limit_problems,
    tick_progress,
)
from core.ingest.importers.reading import check_scalar_cells, read_table, require_columns
from core.store.db import Store
from core.taxonomy import CATEGORIES


def import_annotations(store: Store, data, *, dataset: str, id_col: str, score_col: str | None = None,
                       scale_max: float = 5.0, category_col: str | None = None,
                       significant_col: str | None = None, count_col: str | None = None,
                       annotator_col: str | None = None, annotator: str = "expert",
                       name: str | None = None, progress: ImportProgress | None = None, scale_min: float = 0.0,
                       error_list: bool = False, significance: validation.SignificanceRule | None = None,
                       wide_cols: Mapping[str, str] | None = None) -> ImportReport:
    """Import expert annotations in long form: overall scores, error counts, or a list of errors.

    Score mode: one row per (pair, annotator) with a score in [scale_min, scale_max].
    Count mode: one row per (pair, annotator, category a-f or 1-6, significant)
    with a non-negative integer count.
    Error-list mode (``error_list``): one row per error (pair, annotator, category,
    significance), counted; a row with an empty category says the annotator annotated the
    pair (0 errors if it has no other rows). See :func:`count_error_rows`.
    Significance cells are read by ``significance`` (default: :class:`validation.SignificanceRule`).
    Wide mode (``wide_cols``, a dict: ``{}`` finds every column from its name): one row per (pair,
    annotator) with a count column per category x significance (:mod:`.wide`).
    """
    dataset = validation.check_dataset_name(dataset)
    if wide_cols is not None:
        if any(c is not None for c in (score_col, category_col, significant_col, count_col)) or error_list:
            raise ImportValidationError(["the wide layout takes an id, an annotator and the twelve count columns, "
                                         "not score, category, significance or count columns"])
    else:
        _check_mode(score_col, category_col, significant_col, count_col, error_list)
    if score_col is not None:
        _check_scale(scale_min, scale_max)
    tick_progress(progress, 0, 3, "reading")
    validation.require_dataset(store, dataset)
    df = read_table(data, name)
    tick_progress(progress, 1, 3, "validating")
    lookup, source = validation.pair_lookup(store, dataset), name or validation.source_label(data)
    if wide_cols is not None:
        cells = wide.resolve_wide_columns(list(df.columns), wide_cols)
        frame = wide.prepare_wide_annotations(df, dataset, lookup, id_col=id_col, cells=cells,
                                              annotator_col=annotator_col, annotator=annotator, source=source)
    else:
        frame = prepare_annotations(
            df, dataset, lookup, id_col=id_col, score_col=score_col,
            scale_max=scale_max, category_col=category_col, significant_col=significant_col, count_col=count_col,
            annotator_col=annotator_col, annotator=annotator, source=source,
            scale_min=scale_min, error_list=error_list, significance=significance)
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_annotations(conn, frame)
    tick_progress(progress, 3, 3, "done")
    report = ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)
    report.warnings += kind_warnings(store, dataset, frame)
    return report


def kind_warnings(store: Store, dataset: str, frame: pd.DataFrame) -> list[str]:
    """A warning when annotations of one kind went into a dataset declared as the other (error counts into
    a ``score`` dataset, scores into an ``error_counts`` one): the analyses read the dataset's kind."""
    kind = store.query_one("SELECT kind FROM datasets WHERE name = ?", [dataset])
    fields = set(frame["field"])
    if kind == "score" and "error_count" in fields:
        return [f"dataset '{dataset}' is a score dataset, and these annotations are error counts: if the dataset "
                "holds error counts, import its pairs with kind error_counts (a new dataset)"]
    if kind == "error_counts" and "score" in fields:
        return [f"dataset '{dataset}' is an error-counts dataset, and these annotations are overall scores"]
    return []


def _check_mode(score_col, category_col, significant_col, count_col, error_list: bool) -> None:
    score_mode = score_col is not None
    if error_list:
        if score_mode or count_col is not None:
            raise ImportValidationError(["an error list (one row per error) takes category and significance "
                                         "columns, not a score or count column: its rows are counted"])
        if category_col is None or significant_col is None:
            raise ImportValidationError(["an error list (one row per error) needs a category and a significance "
                                         "column"])
        return
    count_mode = any(c is not None for c in (category_col, significant_col, count_col))
    if score_mode == count_mode:
        raise ImportValidationError(
            ["give either a score column, or category + significant + count columns (not both)"])
    if count_mode and None in (category_col, significant_col, count_col):
        raise ImportValidationError(["error counts need all three: category, significant and count columns "
                                     "(a file with one row per error is an error list: count its rows instead)"])


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _check_scale(scale_min: float, scale_max: float) -> None:
    if not _finite(scale_max):
        raise ImportValidationError([f"scale maximum must be a number, got {scale_max!r}"])
    if not _finite(scale_min):
        raise ImportValidationError([f"scale minimum must be a number, got {scale_min!r}"])
    if not scale_max > scale_min:
        raise ImportValidationError([f"scale maximum ({_fmt(scale_max)}) must be above the scale minimum "
                                     f"({_fmt(scale_min)})"])


def prepare_annotations(df: pd.DataFrame, dataset: str, lookup: dict[str, str], *, id_col: str,
                        score_col: str | None = None, scale_max: float = 5.0,
                        category_col: str | None = None, significant_col: str | None = None,
                        count_col: str | None = None, annotator_col: str | None = None,
                        annotator: str = "expert", source: str | None = None, scale_min: float = 0.0,
                        error_list: bool = False,
                        significance: validation.SignificanceRule | None = None) -> pd.DataFrame:
    """Validate long-form annotations against ``lookup`` (ext_id -> pair_id).

    A score is stored on a scale from 0 (migration 008): value = score - scale_min out of
    scale_max - scale_min, with ``scale_min`` kept so tables can show the rater's own scale.
    """
    _check_mode(score_col, category_col, significant_col, count_col, error_list)
    score_mode = score_col is not None
    if score_mode:
        _check_scale(scale_min, scale_max)
    rule = significance or validation.SignificanceRule()
    require_columns(df, {"id": id_col, "score": score_col, "category": category_col,
                          "significant": significant_col, "count": count_col, "annotator": annotator_col})
    problems: list[str] = []
    check_scalar_cells(df, [id_col, score_col, category_col, significant_col, count_col, annotator_col], problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    ids = validation.column_ids(df, id_col, problems)
    pair_ids = validation.match_ids(ids, lookup, dataset, problems)
    annotators = validation.row_annotators(df, annotator_col, annotator, problems)
    if error_list:
        return count_error_rows(df, pair_ids, annotators, category_col=category_col,
                                significant_col=significant_col, rule=rule, source=source, problems=problems)

    mins = None
    if score_mode:
        values = [validation.cell_number(v) for v in df[score_col].tolist()]
        for i, v in enumerate(values, start=1):
            raw = df[score_col].iloc[i - 1]
            if v is None:
                problems.append(f"row {i}: empty score")
            elif math.isnan(v) or math.isinf(v):
                problems.append(f"row {i}: score {raw!r} is not a number")
            elif not scale_min <= v <= scale_max:
                problems.append(f"row {i}: score {_fmt(v)} outside {_fmt(scale_min)}-{_fmt(scale_max)}")
        values = [v - scale_min if v is not None else v for v in values]
        categories = [None] * len(df)
        significant = [None] * len(df)
        fields = ["score"] * len(df)
        scales = [float(scale_max - scale_min)] * len(df)
        mins = [float(scale_min)] * len(df)
    else:
        categories = [validation.cell_category(v) for v in df[category_col].tolist()]
        significant = [rule(v) for v in df[significant_col].tolist()]
        values = [validation.cell_number(v) for v in df[count_col].tolist()]
        for i in range(1, len(df) + 1):
            if categories[i - 1] is None:
                problems.append(f"row {i}: category {df[category_col].iloc[i - 1]!r} is not a-f or 1-6")
            if significant[i - 1] is None:
                problems.append(f"row {i}: significant flag {df[significant_col].iloc[i - 1]!r} is not "
                                f"one of the levels ({rule.describe()})")
            problem = wide.count_problem(df[count_col].iloc[i - 1], values[i - 1], f"row {i}")
            if problem:
                problems.append(problem)
        fields = ["error_count"] * len(df)
        scales = [None] * len(df)

    keys = list(zip(ids, annotators, categories, significant, strict=True))
    validation.check_duplicates(keys, "annotation (id / annotator / category / significant)", problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    return pd.DataFrame({
        "pair_id": pair_ids, "annotator": annotators, "field": fields, "category": categories,
        "significant": pd.array(significant, dtype="boolean"), "value": [float(v) for v in values],
        "scale_max": pd.array(scales, dtype="Float64"), "source": source,
        "scale_min": pd.array(mins if mins is not None else [None] * len(df), dtype="Float64"),
    })


def count_error_rows(df: pd.DataFrame, pair_ids: list, annotators: list, *, category_col: str,
                     significant_col: str, rule: validation.SignificanceRule, source: str | None,
                     problems: list[str]) -> pd.DataFrame:
    """An error list (one row per error) -> error counts: for every (pair, annotator) in the file,
    all twelve cells (category a-f x significant or not), each the number of its rows (0 when none).

    A row with an empty category and an empty significance records that the annotator annotated the
    pair without adding an error: a pair annotated with no errors is such a row alone, and counts 0
    in every cell (never missing). A significance without a category is refused with its row.
    """
    counts: dict[tuple, dict[tuple, int]] = {}
    first_row: dict[tuple, int] = {}
    for i in range(len(df)):
        row = i + 1
        raw_cat, raw_sig = df[category_col].iloc[i], df[significant_col].iloc[i]
        cat_text, sig_text = validation.cell_text(raw_cat), validation.cell_text(raw_sig)
        cells = None
        if cat_text is None:
            if sig_text is not None:
                problems.append(f"row {row}: significance {sig_text!r} but no category (an empty category marks a "
                                "pair annotated with no errors, and then the significance is empty too)")
        else:
            category, significant = validation.cell_category(raw_cat), rule(raw_sig)
            if category is None:
                problems.append(f"row {row}: category {cat_text!r} is not a-f or 1-6")
            if significant is None:
                problems.append(f"row {row}: significance {sig_text!r} is not one of the levels ({rule.describe()})"
                                if sig_text is not None else f"row {row}: an error with no significance")
            if category is not None and significant is not None:
                cells = (category, significant)
        if pair_ids[i] is None or annotators[i] is None:
            continue
        first_row.setdefault((pair_ids[i], annotators[i]), row)
        tally = counts.setdefault((pair_ids[i], annotators[i]), {})
        if cells is not None:
            tally[cells] = tally.get(cells, 0) + 1
    for key, tally in counts.items():
        for (cat, sig), n in tally.items():
            if n > MAX_ERROR_COUNT:
                problems.append(f"rows from {first_row[key]}: annotator '{key[1]}' lists {n} errors of category {cat} "
                                f"({'significant' if sig else 'not significant'}) for one pair, above "
                                f"{MAX_ERROR_COUNT}, the most RadConcord accepts")
    if problems:
        raise ImportValidationError(limit_problems(problems))
    rows = [(pid, who, "error_count", cat, sig, float(tally.get((cat, sig), 0)))
            for (pid, who), tally in counts.items() for cat in CATEGORIES for sig in (True, False)]
    return wide.count_frame(rows, source)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _shown(field: str, value, scale_max, scale_min) -> str:
    """A stored value as its rater gave it: a score on its own scale ("4 of 1-5"), a count as is."""
    if scale_max is None or (isinstance(scale_max, float) and math.isnan(scale_max)):
        return _fmt(value)
    if field != "score":  # a published mean: whole total k over N raters
        return f"{_fmt(value)}/{_fmt(scale_max)}"
    low = 0.0 if scale_min is None or (isinstance(scale_min, float) and math.isnan(scale_min)) else scale_min
    return f"{_fmt(value + low)} of {_fmt(low)}-{_fmt(scale_max + low)}"


_ANNOTATION_KEY = ("a.pair_id = i.pair_id AND a.annotator = i.annotator AND a.field = i.field "
                   "AND a.category IS NOT DISTINCT FROM i.category "
                   "AND a.significant IS NOT DISTINCT FROM i.significant")


def write_annotations(conn, frame: pd.DataFrame) -> int:
    """Inside an open write transaction: add new annotation rows.

    Identical rows already stored are skipped; a stored row whose value
    differs is refused (annotations are never silently overwritten).
    """
    if "scale_min" not in frame.columns:  # frames built before migration 008, and counts: no scale minimum
        frame = frame.assign(scale_min=pd.array([None] * len(frame), dtype="Float64"))
    conn.register("incoming_ann", frame)
    try:
        changed = conn.execute(
            f"SELECT i.pair_id, i.annotator, i.category, i.significant, a.value, i.value, "
            f"a.scale_max, i.scale_max, a.scale_min, i.scale_min, i.field "
            f"FROM incoming_ann i JOIN annotations a ON {_ANNOTATION_KEY} "
            f"WHERE a.value <> i.value OR a.scale_max IS DISTINCT FROM i.scale_max "
            f"OR coalesce(a.scale_min, 0) <> coalesce(i.scale_min, 0) LIMIT 5"
        ).fetchall()
        if changed:
            ext = dict(conn.execute(
                "SELECT pair_id, ext_id FROM pairs WHERE pair_id IN (SELECT pair_id FROM incoming_ann)"
            ).fetchall())
            raise ImportValidationError([
                f"pair '{ext.get(p, p)}', annotator '{a}'"
                + (f", category {c}, {'significant' if s else 'insignificant'}" if c else "")
                + f": already stored as {_shown(f, old, old_max, old_min)}, file says {_shown(f, new, new_max, new_min)} "
                "(annotations are never overwritten)"
                for p, a, c, s, old, new, old_max, new_max, old_min, new_min, f in changed
            ])
        before = conn.execute("SELECT count(*) FROM annotations").fetchone()[0]
        conn.execute(
            "INSERT INTO annotations (pair_id, annotator, field, category, significant, value, scale_max, source, "
            "scale_min) SELECT i.pair_id, i.annotator, i.field, i.category, i.significant, i.value, i.scale_max, "
            "i.source, i.scale_min "
            f"FROM incoming_ann i WHERE NOT EXISTS (SELECT 1 FROM annotations a WHERE {_ANNOTATION_KEY})"
        )
        after = conn.execute("SELECT count(*) FROM annotations").fetchone()[0]
    finally:
        conn.unregister("incoming_ann")
    return after - before
