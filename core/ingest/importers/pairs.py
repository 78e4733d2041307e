"""Importing reference/candidate pairs: validate a pairs table, then write it to the store."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from core.ingest.importers import common, validation, wide
from core.ingest.importers.annotations import prepare_annotations, write_annotations
from core.ingest.importers.common import (
    DATASET_KINDS,
    ImportProgress,
    ImportReport,
    ImportValidationError,
    PairColumns,
)
from core.ingest.importers.reading import check_scalar_cells, read_table, require_columns
from core.store.db import Store, content_hash_for, new_pair_numbers, pair_id_for
from core.store.texts import same_text_sql
from core.taxonomy import CONTEXT_FIELDS


def import_pairs(store: Store, data, *, dataset: str, columns: PairColumns, kind: str = "score",
                 source: str | None = None, synthetic: bool = False, license: str | None = None,
                 name: str | None = None, progress: ImportProgress | None = None) -> ImportReport:
    """Import reference/candidate pairs into ``dataset`` (created if new).

    The pair id is a stable hash of (dataset, external id), so the same file
    imported twice maps onto the same rows. ``columns.context`` maps patient context fields to columns
    (see :func:`prepare_pairs`; :func:`parse_context_cols` reads the CLI's ``--context-cols``).
    """
    dataset = validation.check_dataset_name(dataset)
    common.tick_progress(progress, 0, 3, "reading")
    df = read_table(data, name)
    common.tick_progress(progress, 1, 3, "validating")
    frame = prepare_pairs(df, dataset, columns)
    common.tick_progress(progress, 2, 3, "writing")
    notes: list[str] = long_report_notes(frame)
    with store.write() as conn:
        added = write_pairs(conn, frame, dataset=dataset, kind=kind,
                            source=source or name or validation.source_label(data), license=license,
                            synthetic=synthetic, warnings=notes)
    common.tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added, warnings=notes)


def import_scored_pairs(store: Store, data, *, dataset: str, columns: PairColumns, score_col: str,
                        scale_max: float = 5.0, annotator: str = "expert", kind: str = "score",
                        source: str | None = None, name: str | None = None,
                        progress: ImportProgress | None = None, scale_min: float = 0.0) -> ImportReport:
    """Pairs and one expert score per pair from the same file, in one transaction: every problem of either
    is reported before anything is written (as the ``rate-eval`` preset does for its own layout)."""
    dataset = validation.check_dataset_name(dataset)
    common.tick_progress(progress, 0, 3, "reading")
    df = read_table(data, name)
    common.tick_progress(progress, 1, 3, "validating")
    frame = prepare_pairs(df, dataset, columns)
    lookup = dict(zip(frame["ext_id"], frame["pair_id"], strict=True))
    label = source or name or validation.source_label(data)
    ann = prepare_annotations(df, dataset, lookup, id_col=columns.id, score_col=score_col, scale_max=scale_max,
                              scale_min=scale_min, annotator=annotator, source=label)
    common.tick_progress(progress, 2, 3, "writing")
    notes: list[str] = long_report_notes(frame)
    with store.write() as conn:
        added = write_pairs(conn, frame, dataset=dataset, kind=kind, source=label, warnings=notes)
        write_annotations(conn, ann)
    common.tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added, warnings=notes)


def long_report_notes(frame: pd.DataFrame) -> list[str]:
    """A note when reports are longer than the offline judges read (core.judges.bounds): imported as they are,
    and each such pair will be a recorded failure of the rules, lexical, length and distilled judges."""
    from core.judges.bounds import MAX_REPORT_CHARS

    long = [ext for ext, r, c in zip(frame["ext_id"], frame["reference"], frame["candidate"], strict=True)
            if max(len(r or ""), len(c or "")) > MAX_REPORT_CHARS]
    if not long:
        return []
    shown = ", ".join(map(str, long[:5])) + (", ..." if len(long) > 5 else "")
    return [f"{len(long):,} pair(s) have a report longer than {MAX_REPORT_CHARS:,} characters ({shown}): imported, "
            "but the offline judges (rules, lexical, length, distilled) will record them as failures, not score them"]


def import_counted_pairs(store: Store, data, *, dataset: str, columns: PairColumns, wide_cols: Mapping[str, str],
                         annotator_col: str | None = None, annotator: str = "expert", source: str | None = None,
                         name: str | None = None, progress: ImportProgress | None = None) -> ImportReport:
    """Pairs and their wide error counts (:mod:`.wide`) from one file, one row per pair per rater, in one
    transaction (dataset kind ``error_counts``). A pair's rows after its first must repeat its texts and
    facets; every problem names the file's row. ``wide_cols`` ``{}``: every count column found by name."""
    dataset = validation.check_dataset_name(dataset)
    common.tick_progress(progress, 0, 3, "reading")
    df = read_table(data, name)
    common.tick_progress(progress, 1, 3, "validating")
    cells = wide.resolve_wide_columns(list(df.columns), wide_cols)
    frame, problems = _first_rows(df, dataset, columns)
    lookup = {e: pair_id_for(dataset, e) for e in frame["ext_id"]} if frame is not None else {}
    label = source or name or validation.source_label(data)
    try:
        ann = wide.prepare_wide_annotations(df, dataset, lookup, id_col=columns.id, cells=cells,
                                            annotator_col=annotator_col, annotator=annotator, source=label)
    except ImportValidationError as exc:  # with no valid pairs every id would read "not a pair": left out
        problems += [p for p in exc.problems if frame is not None or not re.search(r"not (a pair|pairs) of", p)]
    if problems:
        raise ImportValidationError(common.limit_problems(list(dict.fromkeys(problems))))
    common.tick_progress(progress, 2, 3, "writing")
    notes: list[str] = long_report_notes(frame)
    with store.write() as conn:
        added = write_pairs(conn, frame, dataset=dataset, kind="error_counts", source=label, warnings=notes)
        write_annotations(conn, ann)
    common.tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added, warnings=notes)


def _first_rows(df: pd.DataFrame, dataset: str, columns: PairColumns) -> tuple[pd.DataFrame | None, list[str]]:
    """The pairs of a file with a row per pair per rater: each id's first row, validated (problems name the
    file's rows); a later row of an id whose pair columns differ from its first is a problem."""
    require_columns(df, {"id": columns.id})
    pair_cols = [c for c in (columns.reference, columns.candidate, columns.group, columns.system,
                             columns.modality, columns.anatomy, columns.split, *columns.context.values())
                 if c is not None and c in df.columns]
    ids = [validation.cell_text(v) for v in df[columns.id].tolist()]
    first: dict[str, int] = {}
    problems = []
    for i, key in enumerate(ids):
        if key is None:
            continue
        j = first.setdefault(key, i)
        if j == i:
            continue
        differ = [c for c in pair_cols if validation.cell_text(df[c].iloc[i]) != validation.cell_text(df[c].iloc[j])]
        if differ:
            problems.append(f"row {i + 1}: id '{key}' repeats row {j + 1} with a different {', '.join(differ)}")
    keep = sorted(set(first.values()) | {i for i, key in enumerate(ids) if key is None})
    try:
        frame = prepare_pairs(df.iloc[keep].reset_index(drop=True), dataset, columns)
    except ImportValidationError as exc:  # its rows count the kept rows: name the file's
        def to_file_row(m: re.Match) -> str:
            return f"{m.group(1)}{keep[int(m.group(2)) - 1] + 1}"
        problems += [re.sub(r"^(rows? )(\d+)", to_file_row, p) for p in exc.problems]
        return None, problems
    return frame, problems


def parse_context_cols(text: str | None) -> dict[str, str]:
    """``age=COL,sex=COL,...`` (the ``--context-cols`` option) -> {context field: file column}.

    Any subset of ``CONTEXT_FIELDS``; an unknown field, a part without ``=``, an empty column or a field
    given twice is refused in one :class:`ImportValidationError` naming the valid fields. A column name
    cannot hold a comma here (rename it, or use the import wizard).
    """
    if text is None or not text.strip():
        return {}
    mapping: dict[str, str] = {}
    problems: list[str] = []
    for part in text.split(","):
        key, sep, col = part.partition("=")
        key, col = key.strip().lower(), col.strip()
        if not sep or not key or not col:
            problems.append(f"'{part.strip()}' is not FIELD=COLUMN")
        elif key in mapping:
            problems.append(f"context field '{key}' given twice")
        else:
            mapping[key] = col
    problems += [f"unknown context field '{k}'" for k in mapping if k not in CONTEXT_FIELDS]
    if problems:
        raise ImportValidationError([f"--context-cols: {'; '.join(problems)}; the fields are: "
                                     f"{', '.join(CONTEXT_FIELDS)} (e.g. age=patient_age,indication=reason)"])
    return mapping


def _check_context_fields(context: dict[str, str]) -> None:
    unknown = [k for k in context if k not in CONTEXT_FIELDS]
    if unknown:
        raise ImportValidationError([f"unknown context field(s) {', '.join(map(repr, unknown))}; the fields are: "
                                     f"{', '.join(CONTEXT_FIELDS)}"])


def prepare_pairs(df: pd.DataFrame, dataset: str, columns: PairColumns) -> pd.DataFrame:
    """Validate a pairs table and shape it as rows of the ``pairs`` table.

    Patient context columns (``columns.context``) become the ``age``, ``sex``, ``indication`` and
    ``history`` columns, each cell stripped, an empty one NULL; unmapped fields are NULL.
    """
    c = columns
    context = dict(c.context or {})
    _check_context_fields(context)
    require_columns(df, {"id": c.id, "reference": c.reference, "candidate": c.candidate, "group": c.group,
                          "system": c.system, "modality": c.modality, "anatomy": c.anatomy, "split": c.split,
                          **{f"patient context: {k}": col for k, col in context.items()}})
    problems: list[str] = []
    check_scalar_cells(df, [c.id, c.reference, c.candidate, c.group, c.system, c.modality, c.anatomy, c.split,
                            *context.values()], problems)
    if problems:
        raise ImportValidationError(common.limit_problems(problems))
    ids = validation.column_ids(df, c.id, problems)
    validation.check_duplicates(ids, "id", problems)
    raw_refs = df[c.reference].tolist()
    raw_cands = df[c.candidate].tolist()
    for i, (r, k) in enumerate(zip(raw_refs, raw_cands, strict=True), start=1):
        if validation.cell_text(r) is None:
            problems.append(f"row {i}: empty reference in column '{c.reference}'")
        if validation.cell_text(k) is None:
            problems.append(f"row {i}: empty candidate in column '{c.candidate}'")
    if problems:
        raise ImportValidationError(common.limit_problems(problems))

    def optional(col):
        return [None] * len(df) if col is None else [validation.cell_text(v) for v in df[col].tolist()]

    # Report text is kept exactly as given; only ids and facet cells are trimmed.
    refs = [str(v) for v in raw_refs]
    cands = [str(v) for v in raw_cands]
    frame = pd.DataFrame({
        "pair_id": [pair_id_for(dataset, v) for v in ids],
        "dataset": dataset,
        "ext_id": ids,
        "reference": refs,
        "candidate": cands,
        "group_id": optional(c.group),
        "system": optional(c.system),
        "modality": optional(c.modality),
        "anatomy": optional(c.anatomy),
        "split": optional(c.split),
        **{f: optional(context.get(f)) for f in CONTEXT_FIELDS},
    })
    used = {c.id, c.reference, c.candidate, c.group, c.system, c.modality, c.anatomy, c.split,
            *context.values()} - {None}
    extra_cols = [col for col in df.columns if col not in used]
    if extra_cols:
        frame["meta"] = [json.dumps({k: validation.cell_text(v) for k, v in row.items()}, ensure_ascii=False)
                         for row in df[extra_cols].to_dict("records")]
    else:
        frame["meta"] = None
    frame["content_hash"] = [content_hash_for(r, k) for r, k in zip(refs, cands, strict=True)]
    return frame


def _existing_dataset(conn, dataset: str):
    return conn.execute("SELECT kind, synthetic FROM datasets WHERE name = ?", [dataset]).fetchone()


def write_pairs(conn, frame: pd.DataFrame, *, dataset: str, kind: str, source: str | None = None,
                license: str | None = None, synthetic: bool = False, warnings: list[str] | None = None) -> int:
    """Inside an open write transaction: create the dataset if new, add new pairs.

    Returns the number of pairs added. Pairs already stored with the same text
    are skipped; the same id with different text is refused. Patient context
    (``age``, ``sex``, ``indication``, ``history``; a frame without those columns has none) fills the
    empty fields of a pair already stored, never overwrites one: a stored value that differs from the
    file's is refused like different text. How many stored pairs gained context is appended to
    ``warnings`` (when given).
    """
    if kind not in DATASET_KINDS:
        raise ImportValidationError([f"dataset kind '{kind}' unknown; kinds are: {', '.join(DATASET_KINDS)}"])
    existing = _existing_dataset(conn, dataset)
    if existing is not None and existing[0] != kind:
        raise ImportValidationError([f"dataset '{dataset}' exists with kind '{existing[0]}', not '{kind}'"])
    if existing is None:
        conn.execute(
            "INSERT INTO datasets (name, kind, source, license, synthetic) VALUES (?, ?, ?, ?, ?)",
            [dataset, kind, source, license, synthetic],
        )
    # _seq: the file's row order, kept by the insert (the pair browser lists pairs in import order)
    incoming = frame.assign(_seq=np.arange(len(frame), dtype=np.int64))
    for f in CONTEXT_FIELDS:
        if f not in incoming.columns:
            incoming[f] = None
        incoming[f] = incoming[f].astype(object)  # all-None columns must still be text to DuckDB
    conn.register("incoming_pairs", incoming)
    try:
        conflicts = conn.execute(
            "SELECT i.ext_id FROM incoming_pairs i JOIN pairs p USING (pair_id) "
            "WHERE p.content_hash <> i.content_hash ORDER BY i.ext_id LIMIT 21"
        ).fetchall()
        if conflicts:
            shown = ", ".join(f"'{r[0]}'" for r in conflicts[:20])
            raise ImportValidationError(
                [f"id(s) {shown} already in dataset '{dataset}' with different report text; "
                 "import under a new dataset name or remove the dataset first"])
        filled = _merge_context(conn, dataset) if incoming[list(CONTEXT_FIELDS)].notna().any(axis=None) else 0
        before = conn.execute("SELECT count(*) FROM pairs WHERE dataset = ?", [dataset]).fetchone()[0]
        conn.execute(
            "INSERT INTO pairs (pair_id, dataset, ext_id, reference, candidate, group_id, system, "
            f"modality, anatomy, split, meta, content_hash, identical, pair_no, {_CONTEXT_LIST}) "
            "SELECT i.pair_id, i.dataset, i.ext_id, i.reference, i.candidate, i.group_id, i.system, "
            f"i.modality, i.anatomy, i.split, i.meta, i.content_hash, {same_text_sql('i.reference', 'i.candidate')}, "
            f"{new_pair_numbers('i._seq')}, {', '.join(f'CAST(i.{f} AS VARCHAR)' for f in CONTEXT_FIELDS)} "
            "FROM incoming_pairs i ANTI JOIN pairs p ON p.pair_id = i.pair_id"
        )
        after = conn.execute("SELECT count(*) FROM pairs WHERE dataset = ?", [dataset]).fetchone()[0]
    finally:
        conn.unregister("incoming_pairs")
    if filled and warnings is not None:
        warnings.append(f"patient context added to {filled:,} pair(s) already stored (their report text "
                        "is unchanged; no stored context was replaced)")
    return after - before


_CONTEXT_LIST = ", ".join(CONTEXT_FIELDS)  # fixed column names (core.taxonomy), never user input


def _merge_context(conn, dataset: str) -> int:
    """Fill the empty context fields of stored pairs from ``incoming_pairs``; refuse a stored value the file
    contradicts. Returns how many stored pairs gained a field."""
    differs = " OR ".join(f"(p.{f} IS NOT NULL AND i.{f} IS NOT NULL AND p.{f} <> CAST(i.{f} AS VARCHAR))"
                          for f in CONTEXT_FIELDS)
    clash = conn.execute(
        f"SELECT i.ext_id, {', '.join(f'p.{f}, CAST(i.{f} AS VARCHAR)' for f in CONTEXT_FIELDS)} "
        f"FROM incoming_pairs i JOIN pairs p USING (pair_id) WHERE {differs} ORDER BY i.ext_id LIMIT 21").fetchall()
    if clash:
        problems = []
        for row in clash[:20]:
            fields = [f"{f} '{row[1 + 2 * k]}' stored, '{row[2 + 2 * k]}' in the file"
                      for k, f in enumerate(CONTEXT_FIELDS)
                      if row[1 + 2 * k] is not None and row[2 + 2 * k] is not None and row[1 + 2 * k] != row[2 + 2 * k]]
            problems.append(f"id '{row[0]}' already in dataset '{dataset}' with different patient context: "
                            + "; ".join(fields))
        if len(clash) > 20:
            problems.append("... and more ids with different patient context")
        raise ImportValidationError(problems + ["stored context is never replaced: import under a new dataset "
                                                "name or remove the dataset first"])
    gains = " OR ".join(f"(p.{f} IS NULL AND i.{f} IS NOT NULL)" for f in CONTEXT_FIELDS)
    ids = [r[0] for r in conn.execute(
        f"SELECT p.pair_id FROM incoming_pairs i JOIN pairs p USING (pair_id) WHERE {gains}").fetchall()]
    if not ids:
        return 0
    sets = ", ".join(f"{f} = coalesce(pairs.{f}, CAST(i.{f} AS VARCHAR))" for f in CONTEXT_FIELDS)
    conn.execute(f"UPDATE pairs SET {sets} FROM incoming_pairs i WHERE pairs.pair_id = i.pair_id "
                 "AND pairs.pair_id IN (SELECT unnest(?::VARCHAR[]))", [ids])
    return len(ids)
