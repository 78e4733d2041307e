"""Import presets for published dataset layouts.

Each preset reshapes a file in a published layout into the generic pairs and
annotations frames, then writes both in ONE transaction (so a preset import is
atomic too). No real file of these datasets is available on this machine; the
layouts follow the datasets' documentation and are described in docs/importing.md
("Import presets"). Column names are matched case-insensitively and the first
of several documented spellings found is used.

- ``rexval-pairs``: ReXVal's pairs file as released (PhysioNet, 50 rows:
  ``study_id,gt_report,radgraph,bertscore,s_emb,bleu``): one row per study
  with the reference (``gt_report``) and one column per candidate generator.
  The released errors file refers to a study by its 0-based row number in
  this file (``study_number``), not by ``study_id`` (the MIMIC-CXR study
  number, e.g. 53780576), so each (row, generator) becomes a pair with
  ext_id ``"{row}:{generator}"``; ``study_id`` is the group (the four
  candidates of a study share its reference), so the MIMIC number stays visible.
  A file that carries its own ``study_number`` column is keyed by it.
- ``rexval-errors``: ReXVal's per-rater long error file as released (14,400
  rows: ``study_number,candidate_type,error_category,rater_index,
  clinically_significant,num_errors``; categories 1-6, significance
  True/False, raters 0-5) -> error_count annotations of the pairs above,
  annotator ``rater_{index}``.
- ``rate-eval``: RaTE-Eval paragraph level (``Task2_paragraph_rate/rate_test.csv``
  as public code reads it: ``gt_report, similar_report, Score``): an expert
  score from 0 to 4.5 in 0.25 steps, stored with scale_max 4.5 (the analyses
  normalise by it). NOT checked against the real file.
- ``radeval-counts``: RadEval's expert set in its published layout
  (``core.ingest.radeval_expert``: ``prediction1..3`` / ``annotation1..3`` per
  ``ground_truth``, seven categories, the seventh stored apart), or wide
  counts: id, reference, candidate, optional annotator, ``sig_a``..``sig_f``
  and ``insig_a``..``insig_f`` (or ``_1``..``_6``, and the other spellings of
  ``core.ingest.importers.wide``): ``import_counted_pairs``. The published
  layout is NOT checked against the real file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from core.ingest import radeval_expert
from core.ingest.importers import (
    ImportProgress,
    ImportReport,
    ImportValidationError,
    PairColumns,
    cell_text,
    check_dataset_name,
    import_counted_pairs,
    pair_lookup,
    prepare_annotations,
    prepare_pairs,
    read_table,
    require_dataset,
    source_label,
    tick_progress,
    write_annotations,
    write_pairs,
)
from core.store.db import Store


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    kind: str
    run: Callable[..., ImportReport]


def _col(df: pd.DataFrame, *names: str, required: bool = True) -> str | None:
    lower = {str(c).lower(): c for c in df.columns}
    for n in names:
        if n in lower:
            return lower[n]
    if required:
        raise ImportValidationError(
            [f"none of the columns {', '.join(repr(n) for n in names)} found; "
             f"columns are: {', '.join(map(str, df.columns))}"])
    return None


def _write_pairs(store: Store, progress: ImportProgress | None, frame, *, dataset: str, kind: str, source: str | None,
                 annotations=None) -> ImportReport:
    """Write a preset's pairs, with their annotations when given, in one transaction."""
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_pairs(conn, frame, dataset=dataset, kind=kind, source=source)
        if annotations is not None:
            write_annotations(conn, annotations)
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)


REXVAL_GENERATORS = ("radgraph", "bertscore", "s_emb", "bleu")


def _rexval_pairs(store: Store, data, *, dataset: str, name: str | None, progress: ImportProgress | None):
    df = read_table(data, name)
    tick_progress(progress, 1, 3, "validating")
    number = _col(df, "study_number", required=False)
    label = _col(df, "study_id", "study", required=False)
    ref = _col(df, "gt_report", "ground_truth", "reference")
    systems = [c for c in df.columns if c not in (number, label, ref)]
    known = [c for c in systems if str(c).lower() in REXVAL_GENERATORS]
    systems = known or systems
    if not systems:
        raise ImportValidationError(["no candidate columns found next to the study and reference columns"])
    # The errors file's study_number is the 0-based row of this file (unless the file numbers its rows).
    df = df.assign(_key=[cell_text(v) for v in df[number]] if number else [str(i) for i in range(len(df))])
    df["_study"] = [cell_text(v) for v in df[label]] if label else df["_key"]
    long = df.melt(id_vars=["_key", "_study", ref], value_vars=systems, var_name="system", value_name="candidate")
    long["ext_id"] = [f"{k}:{g}" for k, g in zip(long["_key"], long["system"], strict=True)]
    long["modality"] = "XR"
    long["anatomy"] = "chest"
    long = long.rename(columns={"_study": "study_id"}) if label else long.drop(columns="_study")
    group = "study_id" if label else "_key"
    cols = PairColumns(id="ext_id", reference=ref, candidate="candidate", group=group, system="system",
                       modality="modality", anatomy="anatomy")
    keep = ["ext_id", ref, "candidate", "system", "modality", "anatomy"] + (["study_id"] if label else ["_key"])
    frame = prepare_pairs(long[keep], dataset, cols)
    return _write_pairs(store, progress, frame, dataset=dataset, kind="error_counts",
                        source=name or source_label(data) or "ReXVal")


def _rexval_errors(store: Store, data, *, dataset: str, name: str | None, progress: ImportProgress | None):
    require_dataset(store, dataset)
    df = read_table(data, name)
    tick_progress(progress, 1, 3, "validating")
    study = _col(df, "study_number", "study_id", "study")
    ctype = _col(df, "candidate_type", "system")
    rater = _col(df, "rater_index", "rater", "annotator")
    df = df.assign(
        _id=[f"{cell_text(s)}:{cell_text(c)}" for s, c in zip(df[study], df[ctype], strict=True)],
        _rater=[f"rater_{cell_text(r)}" if cell_text(r) is not None else None for r in df[rater]],
    )
    frame = prepare_annotations(
        df, dataset, pair_lookup(store, dataset), id_col="_id", annotator_col="_rater",
        category_col=_col(df, "error_category", "category"),
        significant_col=_col(df, "clinically_significant", "significant"),
        count_col=_col(df, "num_errors", "count"), source=name or source_label(data))
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_annotations(conn, frame)
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)


#: RaTE-Eval's paragraph scores run 0-4.5 in 0.25 steps as public code reads rate_test.csv (docs/importing.md,
#: "Import presets"); stored with this scale_max, so 4.5 normalises to 1 in the analyses.
RATE_EVAL_MAX = 4.5


def _rate_eval(store: Store, data, *, dataset: str, name: str | None, progress: ImportProgress | None):
    df = read_table(data, name)
    tick_progress(progress, 1, 3, "validating")
    ref = _col(df, "gt_report", "reference", "ref", "ground_truth")
    cand = _col(df, "similar_report", "pred_report", "candidate", "generated")
    score = _col(df, "score", "human_score", "expert_score", "rate_score")
    idc = _col(df, "id", "index", "pair_id", required=False)
    if idc is None:
        df = df.assign(_id=[str(i) for i in range(1, len(df) + 1)])
        idc = "_id"
    frame = prepare_pairs(df, dataset, PairColumns(id=idc, reference=ref, candidate=cand))
    lookup = dict(zip(frame["ext_id"], frame["pair_id"], strict=True))
    ann = prepare_annotations(df, dataset, lookup, id_col=idc, score_col=score, scale_max=RATE_EVAL_MAX,
                              annotator="rate_eval_experts", source=name or source_label(data))
    return _write_pairs(store, progress, frame, dataset=dataset, kind="score",
                        source=name or source_label(data) or "RaTE-Eval", annotations=ann)


def _radeval_counts(store: Store, data, *, dataset: str, name: str | None, progress: ImportProgress | None):
    df = read_table(data, name)
    if radeval_expert.is_expert_layout(df.columns):  # the published expert set: core/ingest/radeval_expert.py
        tick_progress(progress, 1, 3, "validating")
        source = name or source_label(data) or "RadEval expert set"
        frame, ann, warnings = radeval_expert.expert_frames(df, dataset, source)
        report = _write_pairs(store, progress, frame, dataset=dataset, kind="error_counts", source=source,
                              annotations=ann)
        report.warnings += warnings
        return report
    cols = PairColumns(id=_col(df, "id", "pair_id", "study_id"), reference=_col(df, "reference", "gt_report", "ref"),
                       candidate=_col(df, "candidate", "pred_report", "hypothesis", "generated"))
    # one row per pair per annotator: the pair from its first row, the counts wide (core/ingest/importers/wide.py)
    return import_counted_pairs(store, df, dataset=dataset, columns=cols, wide_cols={},
                                annotator_col=_col(df, "annotator", "rater", required=False),
                                source=name or source_label(data) or "RadEval counts", progress=progress)


PRESETS: dict[str, Preset] = {
    p.name: p for p in (
        Preset("rexval-pairs", "ReXVal pairs file: study, gt_report, one column per candidate generator",
               "error_counts", _rexval_pairs),
        Preset("rexval-errors", "ReXVal per-rater error file: study, candidate_type, rater, category 1-6, "
               "significant, count", "error_counts", _rexval_errors),
        Preset("rate-eval", "RaTE-Eval paragraph level (Task2_paragraph_rate/rate_test.csv as public code reads "
               "it): gt_report, similar_report, Score 0-4.5 (normalised by 4.5). NOT checked against the real "
               "file", "score", _rate_eval),
        Preset("radeval-counts", "RadEval expert set (reader_study_final_with_annotationsv3.csv as public code "
               "reads it): ground_truth, prediction1..3, annotation1..3 with seven categories, the seventh "
               "(grammar/readability) kept out of the a-f totals; or wide counts id, reference, candidate, "
               "sig_a..f, insig_a..f. NOT checked against the real file", "error_counts", _radeval_counts),
    )
}


def import_preset(store: Store, preset: str, data, *, dataset: str, name: str | None = None,
                  progress: ImportProgress | None = None) -> ImportReport:
    """Import ``data`` laid out as the named published preset."""
    if preset not in PRESETS:
        raise ImportValidationError([f"unknown preset '{preset}'; presets are: {', '.join(PRESETS)}"])
    dataset = check_dataset_name(dataset)  # empty, over-long, invisible characters
    tick_progress(progress, 0, 3, "reading")
    report = PRESETS[preset].run(store, data, dataset=dataset, name=name, progress=progress)
    tick_progress(progress, 3, 3, "done")
    return report
