"""Per-pair aggregates of several raters, as published files carry them (e.g. ReXVal's mean over six).

A file may hold, per pair, the mean number of errors over N raters
(``mean_total_errors`` = 1.6666...) instead of each rater's counts. Such a mean
is an aggregate, not a rater: it is stored apart (``field = 'error_count_mean'``)
and never enters inter-rater agreement (core.reads.targets.annotator_values reads
single raters' counts only).

Exactness: a mean of N whole counts is k / N for a whole k. The importer
recovers k = round(mean x N) (refusing, with its row, a value whose mean x N is
not within 0.01 of a whole number), stores k and N (``value`` and ``scale_max``), and the
target is the one division k / N, so two pairs with equal means tie exactly
whatever rounding the file used (1.6666667 and 1.666666666 are both 10/6).

Used as the expert target when chosen (``--raters mean_of_6``) or when the
dataset has no single raters' counts; where single raters' counts exist for a
pair and both are selected, the single raters win (never both at once).
"""

from __future__ import annotations

import math

import pandas as pd

from core.ingest.importers import (
    MAX_ERROR_COUNT,
    ImportProgress,
    ImportReport,
    ImportValidationError,
    cell_number,
    check_dataset_name,
    check_scalar_cells,
    column_ids,
    limit_problems,
    match_ids,
    pair_lookup,
    read_table,
    require_columns,
    require_dataset,
    source_label,
    tick_progress,
    write_annotations,
)
from core.store.db import Store
from core.taxonomy import MEAN_FIELD

# How far mean x N may be from a whole number: files print 1.6667 or 1.666666667 (off by 0.0002 and
# 2e-9 after x 6), while neighbouring means k / N differ by a whole count; 0.01 takes any printed
# rounding to 3 or more decimals and nothing that is not a mean of N counts.
TOLERANCE = 0.01


def whole_total(mean: float, n_raters: int) -> int | None:
    """k with k / n_raters == mean (up to the file's rounding), or None when there is no such k."""
    k = round(mean * n_raters)
    return k if k >= 0 and abs(mean * n_raters - k) <= TOLERANCE else None


def import_aggregates(store: Store, data, *, dataset: str, id_col: str, n_raters: int,
                      total_col: str | None = None, sig_col: str | None = None, annotator: str | None = None,
                      name: str | None = None, progress: ImportProgress | None = None) -> ImportReport:
    """Import per-pair means over ``n_raters`` raters: total errors and/or clinically significant errors."""
    dataset = check_dataset_name(dataset)
    if not isinstance(n_raters, int) or n_raters < 1:
        raise ImportValidationError([f"--aggregate-of needs the number of raters averaged (1 or more), got {n_raters!r}"])
    if total_col is None and sig_col is None:
        raise ImportValidationError(["give a column of mean total errors (--total-col) and/or of mean significant "
                                     "errors (--sig-col)"])
    annotator = (annotator or f"mean_of_{n_raters}").strip()
    tick_progress(progress, 0, 3, "reading")
    require_dataset(store, dataset)
    df = read_table(data, name)
    tick_progress(progress, 1, 3, "validating")
    require_columns(df, {"id": id_col, "total": total_col, "sig": sig_col})
    problems: list[str] = []
    check_scalar_cells(df, [id_col, total_col, sig_col], problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    ids = column_ids(df, id_col, problems)
    pair_ids = match_ids(ids, pair_lookup(store, dataset), dataset, problems)
    rows = []
    for col, significant in ((sig_col, True), (total_col, None)):
        if col is None:
            continue
        for i, (pid, raw) in enumerate(zip(pair_ids, df[col].tolist(), strict=True), start=1):
            v = cell_number(raw)
            if v is None or math.isnan(v) or math.isinf(v) or v < 0:
                problems.append(f"row {i}: {col} {raw!r} is not a number >= 0")
                continue
            k = whole_total(v, n_raters)
            if k is None:
                problems.append(f"row {i}: {col} {raw!r} is not a mean of {n_raters} whole counts "
                                f"(x {n_raters} = {v * n_raters:.6g})")
            elif k > MAX_ERROR_COUNT * n_raters:
                problems.append(f"row {i}: {col} {raw!r} is above {MAX_ERROR_COUNT} errors per report")
            elif pid is not None:
                rows.append((pid, annotator, MEAN_FIELD, None, significant, float(k), float(n_raters),
                             name or source_label(data)))
    if problems:
        raise ImportValidationError(limit_problems(problems))
    frame = pd.DataFrame(rows, columns=["pair_id", "annotator", "field", "category", "significant", "value",
                                        "scale_max", "source"])
    frame["significant"] = frame["significant"].astype(object)
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_annotations(conn, frame)
    tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)
