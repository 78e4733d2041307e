"""The import wizard's plain part: what it can import, column guesses, and the import itself.

``guess_mapping`` and ``run_import`` take plain values (a DataFrame and a role -> column mapping) and
call ``core.ingest.importers``; no widgets (ui/import_wizard.py draws them), so the import is
testable without a browser.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from core.ingest import importers, presets
from core.ingest.comparisons import import_preferences
from core.store.db import Store
from core.taxonomy import CONTEXT_FIELDS

# What the wizard can import -> label shown to the user.
WHAT_LABELS: dict[str, str] = {
    "pairs": "Report pairs (reference + candidate)",
    "annotations": "Expert annotations",
    "outputs": "Judge outputs",
    "preferences": "Pairwise preferences",
    "preset": "A known dataset format (preset)",
}
# What an annotation file holds -> words (the wizard's radio; run_import's options["mode"]).
ANNOTATION_MODES: dict[str, str] = {
    "score": "an overall score per pair",
    "counts": "error counts per category",
    "errors": "a list of errors (one row per error)",
    "wide": "error counts in columns (a row per pair per rater)",
}
# The wide layout's twelve cells (core/ingest/importers/wide.py): mapping keys sig_a .. insig_f.
WIDE_CELLS = tuple(importers.WIDE_CELLS)
FILE_TYPES = ["csv", "tsv", "jsonl", "ndjson", "parquet"]
NEW_DATASET = "(new dataset)"  # plain text: no emoji font is assumed
NONE = "(none)"

# Column names people use for each role, best first; matched after normalizing
# case and punctuation, first exactly, then as a whole word inside the name
# ("reference_text" -> reference).
ROLE_HINTS: dict[str, tuple[str, ...]] = {
    "id": ("id", "pair_id", "ext_id", "uid", "sample_id", "row_id", "case_id", "idx", "study_id"),
    "reference": ("reference", "ref", "reference_report", "ref_report", "ground_truth", "gt",
                  "gt_report", "target", "report"),
    "candidate": ("candidate", "cand", "candidate_report", "generated", "generated_report",
                  "prediction", "pred", "predicted", "hypothesis", "hyp", "model_report", "output"),
    "group": ("group_id", "group", "study_id", "study", "reference_id", "ref_id"),
    "system": ("system", "model", "generator", "system_name", "source_model"),
    "modality": ("modality",),
    "anatomy": ("anatomy", "body_part", "bodypart", "region", "organ"),
    "split": ("split", "fold", "subset", "partition"),
    "score": ("score", "rating", "expert_score", "overall_score", "overall", "value", "label"),
    "category": ("category", "error_category", "error_type", "cat", "type"),
    "significant": ("significant", "clinically_significant", "is_significant", "significance", "sig"),
    "count": ("count", "n_errors", "num_errors", "error_count", "errors", "n", "value"),
    "annotator": ("annotator", "rater", "radiologist", "reader", "expert", "annotator_id", "rater_id", "user"),
    "a": ("a", "candidate_a", "pair_a", "id_a", "report_a", "left", "first"),
    "b": ("b", "candidate_b", "pair_b", "id_b", "report_b", "right", "second"),
    "preferred": ("preferred", "preference", "winner", "better", "choice", "chosen"),
    "confidence": ("confidence", "certainty", "conf"),
    "comparison": ("comparison_id", "comparison", "pair_key", "task_id"),
    "text": ("text", "judge_output", "output", "response", "raw_text", "completion", "generation"),
    # patient context (issue 33)
    "age": ("age", "patient_age", "age_years", "age_at_exam"),
    "sex": ("sex", "gender", "patient_sex", "patient_gender"),
    "indication": ("indication", "clinical_indication", "indications", "reason_for_exam", "reason_for_study"),
    "history": ("history", "clinical_history", "comparison", "comparisons", "prior", "priors", "prior_studies"),
}
ROLE_LABELS: dict[str, str] = {
    "id": "ID column",
    "reference": "Reference report column",
    "candidate": "Candidate report column",
    "group": "Group / study column",
    "system": "System (generator) column",
    "modality": "Modality column",
    "anatomy": "Anatomy column",
    "split": "Split column",
    "score": "Score column",
    "category": "Error category column (a-f or 1-6)",
    "significant": "Clinically significant column (true/false)",
    "count": "Error count column",
    "annotator": "Annotator column",
    "text": "Judge output text column",
    "a": "Candidate A column (a pair id)",
    "b": "Candidate B column (a pair id)",
    "preferred": "Preferred column (a / b / the preferred id / empty or tie)",
    "confidence": "Confidence column (1-10)",
    "comparison": "Comparison id column",
    "age": "Patient age column",
    "sex": "Patient sex column",
    "indication": "Indication column",
    "history": "Comparison / history column",
    **{key: f"{cat} · {'significant' if sig else 'not significant'}"
       for key, (cat, sig) in importers.WIDE_CELLS.items()},
}
PREFERENCE_ROLES_REQUIRED = ("a", "b", "preferred")
PREFERENCE_ROLES_OPTIONAL = ("confidence", "comparison", "annotator")
PAIR_ROLES_REQUIRED = ("id", "reference", "candidate")
PAIR_ROLES_OPTIONAL = ("group", "system", "modality", "anatomy", "split")
PAIR_ROLES_CONTEXT = CONTEXT_FIELDS  # patient context: optional, free text each


def _normalize(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


def guess_column(columns: Sequence[str], role: str, taken: Iterable[str] = ()) -> str | None:
    """The column most likely to hold ``role``, or None; never one in ``taken``."""
    hints = ROLE_HINTS.get(role, (role,))
    free = [c for c in columns if c not in set(taken)]
    normal = {c: _normalize(c) for c in free}
    for hint in hints:
        for col in free:
            if normal[col] == hint:
                return col
    for hint in hints:
        if len(hint) < 3:  # "n", "gt", "id" inside longer names match too much
            continue
        for col in free:
            if hint in normal[col].split("_") or normal[col].startswith(hint + "_"):
                return col
    return None


def guess_mapping(columns: Sequence[str], roles: Sequence[str]) -> dict[str, str | None]:
    """Guess a column for every role in order; a column is used at most once."""
    mapping: dict[str, str | None] = {}
    for role in roles:
        mapping[role] = guess_column(columns, role, taken=[c for c in mapping.values() if c])
    return mapping


# The wizard's choice for an imported score's orientation -> import_outputs(higher_is_better=).
ORIENTATIONS = {"not stated": None, "higher": True, "lower (e.g. an error count)": False}


@dataclass
class ImportRequest:
    """Everything the wizard collected, as plain values.

    ``mapping`` is role -> column (None: not in the file). ``options`` holds
    the extra settings: ``kind`` (pairs), ``scale_max`` and ``annotator``
    (annotations), ``judge`` and ``metric`` (outputs), ``preset`` (preset).
    """

    what: str
    dataset: str
    mapping: dict[str, str | None] = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    filename: str | None = None


def missing_inputs(request: ImportRequest) -> list[str]:
    """What the user still has to choose before an import can be tried."""
    missing = []
    if not request.dataset:
        missing.append("a dataset name")
    m = request.mapping
    if request.what == "pairs":
        missing += [ROLE_LABELS[r].lower() for r in PAIR_ROLES_REQUIRED if not m.get(r)]
    if request.what in ("pairs", "annotations") and (
            request.options.get("mode") == "wide" or request.options.get("counts_in_file")):
        cells = [k for k in WIDE_CELLS if not m.get(k)]
        if cells:
            missing.append(f"a count column for each of the 12 cells (still open: {', '.join(cells)})")
    if request.what == "annotations":
        if not m.get("id"):
            missing.append("the id column")
        mode = request.options.get("mode")
        if mode == "wide":
            pass
        elif mode in ("counts", "errors"):
            roles = ("category", "significant", "count") if mode == "counts" else ("category", "significant")
            missing += [ROLE_LABELS[r].lower() for r in roles if not m.get(r)]
        elif not m.get("score"):
            missing.append("the score column")
    elif request.what == "preferences":
        missing += [ROLE_LABELS[r].lower() for r in PREFERENCE_ROLES_REQUIRED if not m.get(r)]
    elif request.what == "outputs":
        if not m.get("id"):
            missing.append("the id column")
        if not (request.options.get("judge") or "").strip():
            missing.append("the judge's name")
        if request.options.get("mode") == "score":
            if not m.get("score"):
                missing.append("the score column")
        elif not m.get("text"):
            missing.append("the judge output text column")
    elif request.what == "preset" and not request.options.get("preset"):
        missing.append("a preset")
    chosen = [c for c in m.values() if c]
    dupes = sorted({c for c in chosen if chosen.count(c) > 1})
    if dupes:
        missing.append("a different column for each role (used twice: " + ", ".join(dupes) + ")")
    return missing


def run_import(
    store: Store,
    request: ImportRequest,
    table: pd.DataFrame,
    *,
    progress: Callable[[int, int, str], None] | None = None,
) -> importers.ImportReport:
    """Import ``table`` (the file as read) as the request says.

    Raises ``ImportValidationError`` listing every problem; then nothing is written.
    """
    m, o = request.mapping, request.options
    if request.what == "pairs":
        columns = importers.PairColumns(
            id=m["id"], reference=m["reference"], candidate=m["candidate"],
            group=m.get("group"), system=m.get("system"), modality=m.get("modality"),
            anatomy=m.get("anatomy"), split=m.get("split"),
            context={f: m[f] for f in PAIR_ROLES_CONTEXT if m.get(f)},
        )
        if o.get("counts_in_file"):  # wide error counts, a row per pair per rater: pairs and counts together
            return importers.import_counted_pairs(
                store, table, dataset=request.dataset, columns=columns, wide_cols={k: m[k] for k in WIDE_CELLS},
                annotator_col=m.get("annotator"), annotator=o.get("annotator") or "expert",
                source=request.filename, progress=progress)
        if m.get("score"):  # an expert score in the same file: pairs and scores in one transaction
            return importers.import_scored_pairs(
                store, table, dataset=request.dataset, columns=columns, score_col=m["score"],
                scale_max=float(o.get("scale_max", 5.0)), scale_min=float(o.get("scale_min", 0.0)),
                annotator=o.get("annotator") or "expert", kind="score", source=request.filename, progress=progress,
            )
        return importers.import_pairs(
            store, table, dataset=request.dataset, columns=columns, kind=o.get("kind", "score"),
            source=request.filename, progress=progress,
        )
    if request.what == "annotations":
        mode = o.get("mode", "score")
        if mode == "wide":
            return importers.import_annotations(
                store, table, dataset=request.dataset, id_col=m["id"], wide_cols={k: m[k] for k in WIDE_CELLS},
                annotator_col=m.get("annotator"), annotator=o.get("annotator") or "expert", name=request.filename,
                progress=progress)
        counted = mode in ("counts", "errors")
        levels = o.get("significant_levels"), o.get("insignificant_levels")
        rule = (importers.SignificanceRule.from_lists(*[(v or "").strip() or None for v in levels])
                if counted and any((v or "").strip() for v in levels) else None)
        return importers.import_annotations(
            store, table, dataset=request.dataset, id_col=m["id"],
            score_col=None if counted else m.get("score"),
            scale_max=float(o.get("scale_max", 5.0)), scale_min=float(o.get("scale_min", 0.0)),
            category_col=m.get("category") if counted else None,
            significant_col=m.get("significant") if counted else None,
            count_col=m.get("count") if mode == "counts" else None,
            error_list=mode == "errors", significance=rule,
            annotator_col=m.get("annotator"), annotator=o.get("annotator") or "expert",
            name=request.filename, progress=progress,
        )
    if request.what == "preferences":
        return import_preferences(
            store, table, dataset=request.dataset, a_col=m["a"], b_col=m["b"], preferred_col=m["preferred"],
            confidence_col=m.get("confidence"), id_col=m.get("comparison"), annotator_col=m.get("annotator"),
            annotator=o.get("annotator") or "expert", name=request.filename, progress=progress,
        )
    if request.what == "outputs":
        by_score = o.get("mode") == "score"
        return importers.import_outputs(
            store, table, dataset=request.dataset, judge=o.get("judge", ""), id_col=m["id"],
            text_col=None if by_score else m.get("text"),
            score_col=m.get("score") if by_score else None,
            metric=(o.get("metric") or None) if by_score else None,
            higher_is_better=ORIENTATIONS.get(o.get("orientation")) if by_score else None,
            progress=progress,
        )
    if request.what == "preset":
        return presets.import_preset(
            store, o["preset"], table, dataset=request.dataset, name=request.filename, progress=progress
        )
    raise ValueError(f"unknown import kind {request.what!r}; kinds are: {', '.join(WHAT_LABELS)}")


def upload_size_problem(size_bytes: int, limit_mb: float) -> str | None:
    """The message for an upload over the limit (Streamlit's uploader stops most; this catches the rest)."""
    if size_bytes <= limit_mb * 1024 * 1024:
        return None
    return (f"This file is {size_bytes / 1024 / 1024:,.1f} MB; the upload limit is {limit_mb:g} MB "
            "(server.maxUploadSize in .streamlit/config.toml). Import it with "
            "`python -m core import-pairs FILE ...` instead: the command line has no size limit.")


def dataset_name_from_file(filename: str) -> str:
    """A readable default dataset name from an upload's file name."""
    stem = Path(filename).stem
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-").lower() or "imported"
