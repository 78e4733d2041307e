"""Importing expert annotations (overall scores or error counts): validate, then write to the store."""

from __future__ import annotations

import math

import pandas as pd

from core.ingest.importers import validation
from core.ingest.importers.common import (
    MAX_ERROR_COUNT,
    ImportReport,
    ImportValidationError,
    Progress,
    limit_problems,
    tick_progress,
)
from core.ingest.importers.reading import check_scalar_cells, read_table, require_columns
from core.store.db import Store


def import_annotations(store: Store, data, *, dataset: str, id_col: str, score_col: str | None = None,
                       scale_max: float = 5.0, category_col: str | None = None,
                       significant_col: str | None = None, count_col: str | None = None,
                       annotator_col: str | None = None, annotator: str = "expert",
                       name: str | None = None, progress: Progress | None = None) -> ImportReport:
    """Import expert annotations in long form: either overall scores or error counts.

    Score mode: one row per (pair, annotator) with a score in [0, scale_max].
    Count mode: one row per (pair, annotator, category a-f or 1-6, significant)
    with a non-negative integer count.
    """
    dataset = validation.check_dataset_name(dataset)
    score_mode = score_col is not None
    count_mode = any(c is not None for c in (category_col, significant_col, count_col))
    if score_mode == count_mode:
        raise ImportValidationError(
            ["give either a score column, or category + significant + count columns (not both)"])
    if count_mode and None in (category_col, significant_col, count_col):
        raise ImportValidationError(["error counts need all three: category, significant and count columns"])
    if score_mode and not (isinstance(scale_max, (int, float)) and math.isfinite(scale_max) and scale_max > 0):
        raise ImportValidationError([f"scale maximum must be a positive number, got {scale_max!r}"])
    tick_progress(progress, 0, 3, "reading")
    validation.require_dataset(store, dataset)
    df = read_table(data, name)
    tick_progress(progress, 1, 3, "validating")
    frame = prepare_annotations(
        df, dataset, validation.pair_lookup(store, dataset), id_col=id_col, score_col=score_col,
        scale_max=scale_max, category_col=category_col, significant_col=significant_col, count_col=count_col,
        annotator_col=annotator_col, annotator=annotator, source=name or validation.source_label(data))
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_annotations(conn, frame)
    tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)


def prepare_annotations(df: pd.DataFrame, dataset: str, lookup: dict[str, str], *, id_col: str,
                        score_col: str | None = None, scale_max: float = 5.0,
                        category_col: str | None = None, significant_col: str | None = None,
                        count_col: str | None = None, annotator_col: str | None = None,
                        annotator: str = "expert", source: str | None = None) -> pd.DataFrame:
    """Validate long-form annotations against ``lookup`` (ext_id -> pair_id)."""
    score_mode = score_col is not None
    require_columns(df, {"id": id_col, "score": score_col, "category": category_col,
                          "significant": significant_col, "count": count_col, "annotator": annotator_col})
    problems: list[str] = []
    check_scalar_cells(df, [id_col, score_col, category_col, significant_col, count_col, annotator_col], problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    ids = validation.column_ids(df, id_col, problems)
    pair_ids = validation.match_ids(ids, lookup, dataset, problems)
    if annotator_col:
        annotators = [validation.cell_text(v) for v in df[annotator_col].tolist()]
        for i, a in enumerate(annotators, start=1):
            if a is None:
                problems.append(f"row {i}: empty annotator in column '{annotator_col}'")
    else:
        annotators = [annotator] * len(df)

    if score_mode:
        values = [validation.cell_number(v) for v in df[score_col].tolist()]
        for i, v in enumerate(values, start=1):
            raw = df[score_col].iloc[i - 1]
            if v is None:
                problems.append(f"row {i}: empty score")
            elif math.isnan(v) or math.isinf(v):
                problems.append(f"row {i}: score {raw!r} is not a number")
            elif not 0 <= v <= scale_max:
                problems.append(f"row {i}: score {_fmt(v)} outside 0-{_fmt(scale_max)}")
        categories = [None] * len(df)
        significant = [None] * len(df)
        fields = ["score"] * len(df)
        scales = [float(scale_max)] * len(df)
    else:
        categories = [validation.cell_category(v) for v in df[category_col].tolist()]
        significant = [validation.cell_bool(v) for v in df[significant_col].tolist()]
        values = [validation.cell_number(v) for v in df[count_col].tolist()]
        for i in range(1, len(df) + 1):
            if categories[i - 1] is None:
                problems.append(f"row {i}: category {df[category_col].iloc[i - 1]!r} is not a-f or 1-6")
            if significant[i - 1] is None:
                problems.append(f"row {i}: significant flag {df[significant_col].iloc[i - 1]!r} "
                                "is not true/false/1/0/yes/no")
            v = values[i - 1]
            if v is None or math.isnan(v) or math.isinf(v) or v < 0 or not float(v).is_integer():
                problems.append(f"row {i}: count {df[count_col].iloc[i - 1]!r} is not a whole number >= 0")
            elif v > MAX_ERROR_COUNT:
                problems.append(f"row {i}: count {df[count_col].iloc[i - 1]!r} is above {MAX_ERROR_COUNT}, the "
                                "most errors of one kind RadJudge accepts for one report pair")
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
    })


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


_ANNOTATION_KEY = ("a.pair_id = i.pair_id AND a.annotator = i.annotator AND a.field = i.field "
                   "AND a.category IS NOT DISTINCT FROM i.category "
                   "AND a.significant IS NOT DISTINCT FROM i.significant")


def write_annotations(conn, frame: pd.DataFrame) -> int:
    """Inside an open write transaction: add new annotation rows.

    Identical rows already stored are skipped; a stored row whose value
    differs is refused (annotations are never silently overwritten).
    """
    conn.register("incoming_ann", frame)
    try:
        changed = conn.execute(
            f"SELECT i.pair_id, i.annotator, i.category, i.significant, a.value, i.value "
            f"FROM incoming_ann i JOIN annotations a ON {_ANNOTATION_KEY} "
            f"WHERE a.value <> i.value LIMIT 5"
        ).fetchall()
        if changed:
            ext = dict(conn.execute(
                "SELECT pair_id, ext_id FROM pairs WHERE pair_id IN (SELECT pair_id FROM incoming_ann)"
            ).fetchall())
            raise ImportValidationError([
                f"pair '{ext.get(p, p)}', annotator '{a}'"
                + (f", category {c}, {'significant' if s else 'insignificant'}" if c else "")
                + f": already stored as {_fmt(old)}, file says {_fmt(new)} (annotations are never overwritten)"
                for p, a, c, s, old, new in changed
            ])
        before = conn.execute("SELECT count(*) FROM annotations").fetchone()[0]
        conn.execute(
            "INSERT INTO annotations (pair_id, annotator, field, category, significant, value, scale_max, source) "
            "SELECT i.pair_id, i.annotator, i.field, i.category, i.significant, i.value, i.scale_max, i.source "
            f"FROM incoming_ann i WHERE NOT EXISTS (SELECT 1 FROM annotations a WHERE {_ANNOTATION_KEY})"
        )
        after = conn.execute("SELECT count(*) FROM annotations").fetchone()[0]
    finally:
        conn.unregister("incoming_ann")
    return after - before
