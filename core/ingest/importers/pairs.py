"""Importing reference/candidate pairs: validate a pairs table, then write it to the store."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from core.ingest.importers import common, validation
from core.ingest.importers.annotations import prepare_annotations, write_annotations
from core.ingest.importers.common import (
    DATASET_KINDS,
    ImportReport,
    ImportValidationError,
    PairColumns,
    Progress,
)
from core.ingest.importers.reading import check_scalar_cells, read_table, require_columns
from core.store.db import Store, content_hash_for, new_pair_numbers, pair_id_for
from core.store.texts import same_text_sql


def import_pairs(store: Store, data, *, dataset: str, columns: PairColumns, kind: str = "score",
                 source: str | None = None, synthetic: bool = False, license: str | None = None,
                 name: str | None = None, progress: Progress | None = None) -> ImportReport:
    """Import reference/candidate pairs into ``dataset`` (created if new).

    The pair id is a stable hash of (dataset, external id), so the same file
    imported twice maps onto the same rows.
    """
    dataset = validation.check_dataset_name(dataset)
    common.tick_progress(progress, 0, 3, "reading")
    df = read_table(data, name)
    common.tick_progress(progress, 1, 3, "validating")
    frame = prepare_pairs(df, dataset, columns)
    common.tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_pairs(conn, frame, dataset=dataset, kind=kind,
                            source=source or name or validation.source_label(data), license=license,
                            synthetic=synthetic)
    common.tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)


def import_scored_pairs(store: Store, data, *, dataset: str, columns: PairColumns, score_col: str,
                        scale_max: float = 5.0, annotator: str = "expert", kind: str = "score",
                        source: str | None = None, name: str | None = None,
                        progress: Progress | None = None, scale_min: float = 0.0) -> ImportReport:
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
    with store.write() as conn:
        added = write_pairs(conn, frame, dataset=dataset, kind=kind, source=label)
        write_annotations(conn, ann)
    common.tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)


def prepare_pairs(df: pd.DataFrame, dataset: str, columns: PairColumns) -> pd.DataFrame:
    """Validate a pairs table and shape it as rows of the ``pairs`` table."""
    c = columns
    require_columns(df, {"id": c.id, "reference": c.reference, "candidate": c.candidate, "group": c.group,
                          "system": c.system, "modality": c.modality, "anatomy": c.anatomy, "split": c.split})
    problems: list[str] = []
    check_scalar_cells(df, [c.id, c.reference, c.candidate, c.group, c.system, c.modality, c.anatomy, c.split],
                  problems)
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
    })
    used = {v for v in vars(c).values() if v}
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
                license: str | None = None, synthetic: bool = False) -> int:
    """Inside an open write transaction: create the dataset if new, add new pairs.

    Returns the number of pairs added. Pairs already stored with the same text
    are skipped; the same id with different text is refused.
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
    conn.register("incoming_pairs", frame.assign(_seq=np.arange(len(frame), dtype=np.int64)))
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
        before = conn.execute("SELECT count(*) FROM pairs WHERE dataset = ?", [dataset]).fetchone()[0]
        conn.execute(
            "INSERT INTO pairs (pair_id, dataset, ext_id, reference, candidate, group_id, system, "
            "modality, anatomy, split, meta, content_hash, identical, pair_no) "
            "SELECT i.pair_id, i.dataset, i.ext_id, i.reference, i.candidate, i.group_id, i.system, "
            f"i.modality, i.anatomy, i.split, i.meta, i.content_hash, {same_text_sql('i.reference', 'i.candidate')}, "
            f"{new_pair_numbers('i._seq')} "
            "FROM incoming_pairs i ANTI JOIN pairs p ON p.pair_id = i.pair_id"
        )
        after = conn.execute("SELECT count(*) FROM pairs WHERE dataset = ?", [dataset]).fetchone()[0]
    finally:
        conn.unregister("incoming_pairs")
    return after - before

