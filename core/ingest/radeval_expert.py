"""RadEval's expert set as public code reads it (``radeval-counts`` preset, the published layout).

``IAMJB/RadEvalExpertDataset``, ``reader_study_final_with_annotationsv3.csv``: 208 rows, columns ``annotator,
type, ground_truth, images_path, prediction1..3, annotation1..3``; each row is one reference with three
candidates, and each ``annotationN`` cell is the reader's counts for ``predictionN`` in seven categories, under a
"significant" and an "insignificant" heading: ReXVal's six (1-6 -> a-f) and grammar/readability (7 -> "g",
stored under :data:`core.taxonomy.EXTRA_COUNT_FIELD`, outside every a-f total). The cell grammar follows the
one third-party reader seen (docs/importing.md, "Import presets"): a heading line such as ``Clinically significant errors:``,
then numbered lines ``1. <name>: 2`` (or ``1. 2``). NOT checked against the real file (it is on a model hub).

A cell that does not give all seven counts under both headings, or gives one twice, leaves that candidate
without counts (never zero-filled) and is named in the warnings; so is an empty cell.
"""

from __future__ import annotations

import re

import pandas as pd

from core.ingest.importers import (
    ImportValidationError,
    PairColumns,
    cell_text,
    prepare_annotations,
    prepare_pairs,
)
from core.taxonomy import EXTRA_COUNT_FIELD

SLOTS = (1, 2, 3)
N_CATEGORIES = 7  # ReXVal's 1-6 and grammar/readability
_HEADING = re.compile(r"\s*(?:clinically\s+)?(insignificant|significant)(?:\s+errors)?\s*:\s*$", re.I)
_NUMBERED = re.compile(r"\s*([1-9])[.)]\s*(.*?)\s*$")
_COUNT = re.compile(r"(?:^|[:=])\s*([0-9]+)\s*[.;]?$")
_SHOWN = 5  # examples per warning


def is_expert_layout(columns) -> bool:
    """True when a table has the published layout's candidate and annotation columns."""
    names = {str(c).strip().lower() for c in columns}
    return all(f"prediction{s}" in names and f"annotation{s}" in names for s in SLOTS)


def parse_cell(text: str) -> tuple[dict[tuple[int, bool], int] | None, str | None]:
    """An annotation cell -> ({(category 1-7, significant): count}, None), or (None, why it is not read)."""
    counts: dict[tuple[int, bool], int] = {}
    significant: bool | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if heading := _HEADING.fullmatch(line):
            significant = heading.group(1).lower() == "significant"
            continue
        numbered = _NUMBERED.fullmatch(line)
        if not numbered:
            continue  # free text beside the counts
        category, rest = int(numbered.group(1)), numbered.group(2)
        if significant is None:
            return None, f"category line {line.strip()!r} before a significant/insignificant heading"
        if not 1 <= category <= N_CATEGORIES:
            return None, f"category {category} is not 1-{N_CATEGORIES}"
        count = _COUNT.search(rest)
        if not count:
            return None, f"no whole count in {line.strip()!r}"
        if (category, significant) in counts:
            return None, f"category {category} given twice under one heading"
        counts[(category, significant)] = int(count.group(1))
    missing = [f"{c} ({'significant' if s else 'insignificant'})" for s in (True, False)
               for c in range(1, N_CATEGORIES + 1) if (c, s) not in counts]
    if missing:
        return None, f"no count for category {', '.join(missing[:3])}" + (" ..." if len(missing) > 3 else "")
    return counts, None


def _column(df: pd.DataFrame, name: str) -> str | None:
    return {str(c).strip().lower(): c for c in df.columns}.get(name)


def expert_frames(df: pd.DataFrame, dataset: str, source: str | None) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """(pairs, annotations, warnings) of a file in the published layout: pair ``ROW:SLOT`` (ROW 0-based),
    group = ROW (the three candidates share a reference), system = ``predictionSLOT``."""
    ref = _column(df, "ground_truth")
    if ref is None:
        raise ImportValidationError(["no 'ground_truth' column next to prediction1..3 / annotation1..3; columns "
                                     f"are: {', '.join(map(str, df.columns))}"])
    who = _column(df, "annotator")
    pairs, cells, no_candidate, unread = [], [], [], []
    for i in range(len(df)):
        annotator = (cell_text(df[who].iloc[i]) if who is not None else None) or "expert"
        for slot in SLOTS:
            ext_id = f"{i}:{slot}"
            candidate = cell_text(df[_column(df, f"prediction{slot}")].iloc[i])
            note = cell_text(df[_column(df, f"annotation{slot}")].iloc[i])
            if candidate is None:
                no_candidate.append(ext_id)
                continue
            pairs.append({"ext_id": ext_id, "reference": df[ref].iloc[i], "candidate": candidate, "group": str(i),
                          "system": f"prediction{slot}", "modality": "XR", "anatomy": "chest"})
            counts, why = parse_cell(note) if note is not None else (None, "empty annotation")
            if counts is None:
                unread.append(f"{ext_id} (file row {i + 1}): {why}")
                continue
            cells += [(ext_id, annotator, c, s, n) for (c, s), n in sorted(counts.items())]
    if not pairs:
        raise ImportValidationError(["no row has a prediction1..3 text: nothing to import"])
    frame = prepare_pairs(pd.DataFrame(pairs), dataset, PairColumns(
        id="ext_id", reference="reference", candidate="candidate", group="group", system="system",
        modality="modality", anatomy="anatomy"))
    lookup = dict(zip(frame["ext_id"], frame["pair_id"], strict=True))
    long = pd.DataFrame(cells, columns=["id", "annotator", "category", "significant", "count"])
    six = long[long["category"] <= 6].astype({"category": str, "significant": str, "count": str})
    ann = prepare_annotations(six.reset_index(drop=True), dataset, lookup, id_col="id", annotator_col="annotator",
                              category_col="category", significant_col="significant", count_col="count",
                              source=source)
    seventh = long[long["category"] == N_CATEGORIES]
    extra = pd.DataFrame({
        "pair_id": [lookup[e] for e in seventh["id"]], "annotator": seventh["annotator"].tolist(),
        "field": EXTRA_COUNT_FIELD, "category": "g",
        "significant": pd.array(seventh["significant"].tolist(), dtype="boolean"),
        "value": [float(n) for n in seventh["count"]], "scale_max": pd.array([None] * len(seventh), dtype="Float64"),
        "source": source, "scale_min": pd.array([None] * len(seventh), dtype="Float64")})
    warnings = []
    if no_candidate:
        warnings.append(f"{len(no_candidate)} empty prediction cell(s) are no pair: {', '.join(no_candidate[:_SHOWN])}")
    if unread:
        warnings.append(f"{len(unread)} candidate(s) imported without counts (never read as zero): "
                        + "; ".join(unread[:_SHOWN]) + (" ..." if len(unread) > _SHOWN else ""))
    return frame, pd.concat([ann, extra], ignore_index=True), warnings
