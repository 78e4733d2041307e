"""Importing an ``edit_review`` dataset from one file (CSV, TSV, JSONL or Parquet).

The layout (column names are the defaults; each can be renamed, see
:class:`ReviewColumns` and ``python -m core import-review --help``), one row
per candidate edit:

=============  ========  ===============================================================
column         required  meaning
=============  ========  ===============================================================
id             yes       the edit's id, unique in the file
preliminary    yes       the preliminary report (becomes ``pairs.reference``)
edit           yes       the proposed edit (becomes ``pairs.candidate``)
agreement      [1]_      agree / partially agree / disagree
severity       [1]_      critical / moderate / negligible
edit_type      [1]_      correction / addition / clarification
subset         no        natural (default) / synthetic: Natural and Mixed are reported apart
case           no        the study id; edits of one case must share one preliminary report
final          no        the final (attending) report: kept, never shown to a judge
indication     no        the clinical indication: shown to the LLM judge when present
images         no        image slices of the study, in order: PNG/JPEG/DICOM paths separated by ``;``,
                         relative to the file's folder (or ``base_dir``)
split          no        e.g. eval / test
=============  ========  ===============================================================

.. [1] the three gold label columns come together or not at all; when present,
   every row needs all three (stored as annotations of ``--annotator``).

Like :mod:`core.ingest.importers`: every row is checked and all problems are
reported together; a file with any problem writes nothing; pairs and labels
are written in one transaction; importing the same file again adds nothing
and a changed label is refused (annotations are never overwritten).
DICOM slices (``.dcm``) are read with pydicom and windowed into PNG at call time
(core/review/dicom.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from core.ingest.importers import (
    ImportProgress,
    ImportReport,
    ImportValidationError,
    PairColumns,
    cell_text,
    check_dataset_name,
    check_duplicates,
    column_ids,
    limit_problems,
    prepare_pairs,
    read_table,
    require_columns,
    source_label,
    tick_progress,
    write_annotations,
    write_pairs,
)
from core.review.dicom import DICOM_SUFFIXES
from core.review.labels import LABELS, SUBSETS, label_code
from core.store.db import Store

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", *DICOM_SUFFIXES)
IMAGE_SEPARATOR = ";"


@dataclass(frozen=True)
class ReviewColumns:
    """Which file column holds each field (None: not in the file)."""

    id: str = "id"
    preliminary: str = "preliminary"
    edit: str = "edit"
    agreement: str | None = "agreement"
    severity: str | None = "severity"
    edit_type: str | None = "edit_type"
    subset: str | None = "subset"
    case: str | None = "case"
    final: str | None = "final"
    indication: str | None = "indication"
    images: str | None = "images"
    split: str | None = "split"


_OPTIONAL = ("agreement", "severity", "edit_type", "subset", "case", "final", "indication", "images", "split")


def _present(df: pd.DataFrame, columns: ReviewColumns) -> ReviewColumns:
    """Default-named optional columns that the file lacks are treated as absent; renamed ones must exist."""
    defaults = ReviewColumns()
    changes = {}
    for name in _OPTIONAL:
        col = getattr(columns, name)
        if col is not None and col == getattr(defaults, name) and col not in df.columns:
            changes[name] = None
    return ReviewColumns(**{**columns.__dict__, **changes})


def _images(cell, row: int, base: Path, problems: list[str]) -> list[str]:
    text = cell_text(cell)
    if text is None:
        return []
    paths = []
    for part in (p.strip() for p in text.split(IMAGE_SEPARATOR)):
        if not part:
            continue
        path = Path(part)
        path = path if path.is_absolute() else base / path
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            problems.append(f"row {row}: image '{part}' is not a PNG, JPEG or DICOM (.dcm) file")
        elif not path.is_file():
            problems.append(f"row {row}: image '{part}' not found (looked at {path})")
        paths.append(str(path.resolve()))
    return paths


def prepare_review(df: pd.DataFrame, dataset: str, columns: ReviewColumns, *, annotator: str = "expert",
                   base_dir: Path | None = None, source: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Validate a review table: (rows of ``pairs``, rows of ``annotations``). Raises with every problem."""
    c = _present(df, columns)
    labels = [c.agreement, c.severity, c.edit_type]
    if any(labels) and not all(labels):
        raise ImportValidationError(["gold labels need all three columns (agreement, severity, edit type) or none"])
    require_columns(df, {name: getattr(c, name) for name in ("id", "preliminary", "edit", *_OPTIONAL)})
    problems: list[str] = []
    ids = column_ids(df, c.id, problems)
    check_duplicates(ids, "id", problems)
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    n = len(df)
    subsets = ["natural"] * n
    if c.subset:
        for i, v in enumerate(df[c.subset].tolist(), start=1):
            s = (cell_text(v) or "").lower()
            if s not in SUBSETS:
                problems.append(f"row {i}: subset {v!r} is not one of {', '.join(SUBSETS)}")
            subsets[i - 1] = s
    codes: dict[str, list[int | None]] = {}
    if c.agreement:
        for label, col in zip(LABELS, labels, strict=True):
            codes[label] = [label_code(label, v) for v in df[col].tolist()]
            for i, (v, code) in enumerate(zip(df[col].tolist(), codes[label], strict=True), start=1):
                if code is None:
                    problems.append(f"row {i}: {label} {v!r} is not one of {', '.join(LABELS[label])}")
    images = [_images(v, i, base, problems) for i, v in enumerate(df[c.images].tolist(), start=1)] if c.images \
        else [[] for _ in range(n)]
    cases = [cell_text(v) for v in df[c.case].tolist()] if c.case else [None] * n
    first_row: dict[str, tuple[int, str]] = {}
    for i, (case, prelim) in enumerate(zip(cases, df[c.preliminary].tolist(), strict=True), start=1):
        if case is None or prelim is None:
            continue
        if case in first_row and first_row[case][1] != str(prelim):
            problems.append(f"case '{case}': rows {first_row[case][0]} and {i} have different preliminary reports")
        first_row.setdefault(case, (i, str(prelim)))
    shaped = pd.DataFrame({"id": df[c.id], "preliminary": df[c.preliminary], "edit": df[c.edit],
                           "case": cases, "split": df[c.split] if c.split else None})
    try:
        pairs = prepare_pairs(shaped, dataset, PairColumns(id="id", reference="preliminary", candidate="edit",
                                                           group="case", split="split"))
    except ImportValidationError as exc:
        problems.extend(exc.problems)
        pairs = None
    if problems:
        raise ImportValidationError(limit_problems(problems))

    def cell(col, i):
        return cell_text(df[col].iloc[i]) if col else None

    pairs["meta"] = [json.dumps({"subset": subsets[i], "final_report": None if not c.final else (
        None if df[c.final].iloc[i] is None else str(df[c.final].iloc[i])), "indication": cell(c.indication, i),
        "images": images[i]}, ensure_ascii=False) for i in range(n)]
    rows = []
    if codes:
        for i, pid in enumerate(pairs["pair_id"]):
            for label in LABELS:
                rows.append((pid, annotator, label, float(codes[label][i])))
    ann = pd.DataFrame(rows, columns=["pair_id", "annotator", "field", "value"])
    ann.insert(3, "category", None)
    ann.insert(4, "significant", pd.array([None] * len(ann), dtype="boolean"))
    ann["scale_max"] = pd.array([None] * len(ann), dtype="Float64")
    ann["source"] = source
    return pairs, ann


def import_review(store: Store, data, *, dataset: str, columns: ReviewColumns | None = None,
                  annotator: str = "expert", synthetic: bool = False, license: str | None = None,
                  base_dir: str | Path | None = None, name: str | None = None,
                  progress: ImportProgress | None = None) -> ImportReport:
    """Import edits (and their gold labels) as an ``edit_review`` dataset; see the module docstring."""
    dataset = check_dataset_name(dataset)
    annotator = (annotator or "").strip()
    if not annotator:
        raise ImportValidationError(["give the annotator's name (--annotator)"])
    if base_dir is None and isinstance(data, (str, Path)):
        base_dir = Path(data).resolve().parent
    tick_progress(progress, 0, 3, "reading")
    df = read_table(data, name)
    tick_progress(progress, 1, 3, "validating")
    label = name or source_label(data)
    pairs, ann = prepare_review(df, dataset, columns or ReviewColumns(), annotator=annotator,
                                base_dir=Path(base_dir) if base_dir else None, source=label)
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_pairs(conn, pairs, dataset=dataset, kind="edit_review", source=label, license=license,
                            synthetic=synthetic)
        labels_added = write_annotations(conn, ann) if len(ann) else 0
    tick_progress(progress, 3, 3, "done")
    report = ImportReport(dataset=dataset, rows=len(pairs), added=added, skipped=len(pairs) - added)
    if len(ann) and labels_added == 0 and added == 0:
        report.warnings.append("nothing new: every edit and label was already stored")
    return report

