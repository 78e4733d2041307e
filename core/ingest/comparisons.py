"""Pairwise expert preferences in the store: import, derive, read, and score the judges on them.

GREEN's preference study (seeds/green.txt, Sec. 3.4.2 and 4.3.2, Fig. 6): for two candidate
reports of one case an expert picks the better one and gives a confidence of 1-10; a judge is
accurate on a comparison when its score prefers the same candidate. core/analysis/preference.py holds the
statistic (ties, Wilson intervals, per confidence level); this module brings comparisons into the
``preferences`` table (migration 006) and out again.

Two ways in:

- a file (:func:`import_preferences`): one row per comparison with the two candidates' pair ids
  (the dataset's external ids), which one was preferred (``a``/``b``, or the preferred pair's own
  id; empty, ``tie``, ``equal`` or ``none`` for no preference), an optional confidence 1-10 and an
  optional comparison id. Both candidates must share their reference (one case). All or nothing,
  every problem with its row. Several raters in one file: ``annotator_col`` names the rater of each
  row (one row per rater per comparison); each rater's row is its own comparison (stored id: the
  file's comparison id and the rater, ``ID:RATER``, or a hash of the two pair ids and the rater), and
  a rater who judges the same two candidates twice is refused with both rows;
- the dataset's own annotations (:func:`derive_preferences`): every two candidates of one
  reference whose expert target differs become a comparison; the candidate with fewer expert errors
  (or the higher expert score) is preferred, and the confidence is the size of that difference,
  rounded up and capped at 10 (1 = a difference of one error or less). This confidence is a
  property of the annotations, not a rater's own statement: the Fig. 6 reading is "accuracy rises
  with how clearly the experts separate the two candidates", and outputs say which source was used.
"""

from __future__ import annotations

import math

import pandas as pd

from core.ingest.importers import (
    ImportProgress,
    ImportReport,
    ImportValidationError,
    check_scalar_cells,
    limit_problems,
    read_table,
    require_columns,
    tick_progress,
    validation,
)
from core.store.db import Store, stable_hash

NO_PREFERENCE = {"", "tie", "equal", "none"}
DERIVED_ANNOTATOR = "derived-from-annotations"
COLUMNS = ["comparison_id", "dataset", "pair_id_a", "pair_id_b", "preferred", "confidence", "annotator", "source"]


def _write(store: Store, frame: pd.DataFrame) -> int:
    """Add new comparisons in one transaction; a stored comparison with other values is refused."""
    with store.write() as conn:
        conn.register("incoming_pref", frame)
        try:
            changed = conn.execute(
                "SELECT i.comparison_id FROM incoming_pref i JOIN preferences p USING (dataset, comparison_id) "
                "WHERE p.pair_id_a <> i.pair_id_a OR p.pair_id_b <> i.pair_id_b "
                "OR p.preferred IS DISTINCT FROM i.preferred OR p.confidence IS DISTINCT FROM i.confidence "
                "LIMIT 5").fetchall()
            if changed:
                raise ImportValidationError([f"comparison '{c}' is already stored with other values (comparisons "
                                             "are never overwritten)" for (c,) in changed])
            before = conn.execute("SELECT count(*) FROM preferences").fetchone()[0]
            conn.execute(f"INSERT INTO preferences ({', '.join(COLUMNS)}) SELECT {', '.join('i.' + c for c in COLUMNS)} "
                         "FROM incoming_pref i ANTI JOIN preferences p USING (dataset, comparison_id)")
            return conn.execute("SELECT count(*) FROM preferences").fetchone()[0] - before
        finally:
            conn.unregister("incoming_pref")


def import_preferences(store: Store, data, *, dataset: str, a_col: str, b_col: str, preferred_col: str,
                       confidence_col: str | None = None, id_col: str | None = None, annotator: str = "expert",
                       annotator_col: str | None = None, name: str | None = None,
                       progress: ImportProgress | None = None) -> ImportReport:
    """Import a file of pairwise comparisons into ``dataset`` (see the module docstring)."""
    dataset = validation.check_dataset_name(dataset)
    tick_progress(progress, 0, 3, "reading")
    validation.require_dataset(store, dataset)
    df = read_table(data, name)
    tick_progress(progress, 1, 3, "validating")
    require_columns(df, {"a": a_col, "b": b_col, "preferred": preferred_col, "confidence": confidence_col,
                          "id": id_col, "annotator": annotator_col})
    problems: list[str] = []
    check_scalar_cells(df, [a_col, b_col, preferred_col, confidence_col, id_col, annotator_col], problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    lookup = validation.pair_lookup(store, dataset)
    ext_a = [validation.cell_text(v) for v in df[a_col]]
    ext_b = [validation.cell_text(v) for v in df[b_col]]
    pid_a = validation.match_ids(ext_a, lookup, dataset, problems)
    pid_b = validation.match_ids(ext_b, lookup, dataset, problems)
    refs = dict(store.query_df("SELECT pair_id, coalesce(group_id, reference) AS case_key FROM pairs "
                               "WHERE dataset = ?", [dataset]).itertuples(index=False, name=None))
    rows, seen, seen_pairs = [], {}, {}
    for i in range(len(df)):
        row = i + 1
        a, b = ext_a[i], ext_b[i]
        rater = annotator
        if annotator_col is not None:
            rater = validation.cell_text(df[annotator_col].iloc[i])
            if rater is None:
                problems.append(f"row {row}: empty annotator in column '{annotator_col}'")
                continue
        if a is None or b is None:
            problems.append(f"row {row}: both candidates are needed ('{a_col}' and '{b_col}')")
            continue
        if a == b:
            problems.append(f"row {row}: a candidate is compared with itself ('{a}')")
        raw = validation.cell_text(df[preferred_col].iloc[i]) or ""
        choice = raw.strip().lower()
        preferred = "a" if choice == "a" or raw.strip() == a else "b" if choice == "b" or raw.strip() == b else (
            None if choice in NO_PREFERENCE else "?")
        if preferred == "?":
            problems.append(f"row {row}: preferred '{raw}' is not a, b, one of the two ids, or empty/tie/none")
        confidence = None
        if confidence_col is not None:
            c = validation.cell_text(df[confidence_col].iloc[i])
            try:
                confidence = None if c is None else float(c)
            except ValueError:
                problems.append(f"row {row}: confidence '{c}' is not a number")
            else:
                if confidence is not None and not (math.isfinite(confidence) and 1 <= confidence <= 10):
                    problems.append(f"row {row}: confidence {c} outside 1-10")
        if pid_a[i] and pid_b[i] and refs.get(pid_a[i]) != refs.get(pid_b[i]):
            problems.append(f"row {row}: '{a}' and '{b}' are candidates of different cases (their references or "
                            "groups differ); a preference compares two candidates of one case")
        cid = (validation.cell_text(df[id_col].iloc[i]) if id_col
               else stable_hash("pref", a, b, rater, length=16))
        if cid is not None and id_col and annotator_col is not None:
            cid = f"{cid}:{rater}"  # one comparison per rater
        if cid is None:
            problems.append(f"row {row}: empty comparison id in '{id_col}'")
        elif cid in seen:
            problems.append(f"row {row}: comparison '{cid}' repeats row {seen[cid]}"
                            + ("" if id_col or annotator_col is None else f" (annotator '{rater}', '{a}' vs '{b}')"))
        else:
            seen[cid] = row
            both = (frozenset((a, b)), rater)
            if not id_col and both in seen_pairs:  # the same two candidates, in the other order
                problems.append(f"row {row}: annotator '{rater}' compares '{a}' and '{b}' again (row "
                                f"{seen_pairs[both]})")
            seen_pairs.setdefault(both, row)
        rows.append((cid, dataset, pid_a[i], pid_b[i], preferred, confidence, rater,
                     name or validation.source_label(data)))
    if problems:
        raise ImportValidationError(limit_problems(problems))
    tick_progress(progress, 2, 3, "writing")
    added = _write(store, pd.DataFrame(rows, columns=COLUMNS))
    tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(rows), added=added, skipped=len(rows) - added)


def derive_preferences(store: Store, dataset: str, *, target: str = "sig_errors",
                       annotators: list[str] | None = None) -> ImportReport:
    """Comparisons from the dataset's expert annotations (see the module docstring); stored, idempotent."""
    from core.reads.targets import HIGHER_IS_BETTER, dataset_targets

    if target not in ("score", "sig_errors", "total_errors"):
        raise ValueError(f"derive preferences from score, sig_errors or total_errors, not '{target}'")
    t = dataset_targets(store, dataset, annotators)
    t = t[t["target"] == target][["pair_id", "value"]]
    if t.empty:
        raise ValueError(f"dataset '{dataset}' has no '{target}' annotations to derive preferences from")
    pairs = store.query_df("SELECT pair_id, coalesce(group_id, reference) AS case_key FROM pairs WHERE dataset = ?",
                           [dataset]).merge(t, on="pair_id")
    up = HIGHER_IS_BETTER[target]
    scale = 5.0 if target == "score" else 1.0  # score targets are 0-1: a difference of 0.2 is one point of 0-5
    rows = []
    for _, case in pairs.groupby("case_key", sort=True):
        case = case.sort_values("pair_id")
        items = list(case.itertuples(index=False))
        for i, x in enumerate(items):
            for y in items[i + 1:]:
                if x.value == y.value:
                    continue
                better_x = (x.value > y.value) == up
                gap = abs(x.value - y.value) * scale
                rows.append((stable_hash("derived", target, x.pair_id, y.pair_id, length=16), dataset, x.pair_id,
                             y.pair_id, "a" if better_x else "b", float(min(10, max(1, math.ceil(gap - 1e-9)))),
                             DERIVED_ANNOTATOR, f"derived from {target}"))
    if not rows:
        raise ValueError(f"no two candidates of one case in '{dataset}' differ in '{target}'")
    added = _write(store, pd.DataFrame(rows, columns=COLUMNS))
    return ImportReport(dataset=dataset, rows=len(rows), added=added, skipped=len(rows) - added)
