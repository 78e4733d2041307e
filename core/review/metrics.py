"""RADAR's evaluation (section 5.2 and Table 2 of ``seeds/radar.txt``), as pure functions.

Input: a tidy frame with one row per (run, edit): ``run_id``, ``judge``,
``setting``, ``subset`` (natural / synthetic), ``gold_<label>`` and
``pred_<label>`` for each label in :data:`core.review.LABELS` (label names;
``pred_*`` is None when the judge gave no usable answer).

- **Accuracy** per label = exact matches / n, where n counts every edit with
  gold labels in the evaluation set that the run tried (the frame from
  :func:`core.review.data.evaluation_frame` holds only those). An edit the
  judge did not answer (call failed, answer not parsed) counts as wrong,
  never as left out: the paper averages "across all instances".
  ``n_answered`` says how many were answered.
- **Composite score** (sec. 5.2): per edit 0 when the predicted agreement
  differs from the gold one; when it matches, 1 if severity *and* edit type
  both match exactly, else 0; averaged over the n edits. This is the paper's
  text. The released evaluation script (``eval/eval.py`` of the RADAR
  repository) counts "agree" and "partially agree" as matching each other
  for the composite; that variant is ``composite_lenient``, reported beside
  it and never in its place.
- **Evaluation sets**: *Mixed* = every edit (natural + synthetic disagree
  edits), *Natural* = the natural subset only.

Counts are summed as integers first and divided once.
"""

from __future__ import annotations

import math

import pandas as pd

from core.review.labels import LABELS

EVAL_SETS = ("Mixed", "Natural")
NO_ANSWER = "(no answer)"
LENIENT_AGREEMENT = {"agree", "partially agree"}
SHORT = {"agreement": "Agr", "severity": "Sev", "edit_type": "Typ", "composite": "Comp"}


def _eq(gold: pd.Series, pred: pd.Series) -> pd.Series:
    return (gold.notna() & pred.notna() & (gold.astype(object) == pred.astype(object))).astype(bool)


def composite_flags(frame: pd.DataFrame, *, lenient: bool = False) -> pd.Series:
    """Per edit: 1 when agreement matches and severity and edit type both match exactly, else 0."""
    agree = _eq(frame["gold_agreement"], frame["pred_agreement"])
    if lenient:
        both = frame["gold_agreement"].isin(LENIENT_AGREEMENT) & frame["pred_agreement"].isin(LENIENT_AGREEMENT)
        agree = agree | both
    ok = agree & _eq(frame["gold_severity"], frame["pred_severity"]) & _eq(frame["gold_edit_type"],
                                                                          frame["pred_edit_type"])
    return ok.astype(int)


def eval_subset(frame: pd.DataFrame, eval_set: str) -> pd.DataFrame:
    """The edits of one evaluation set: Mixed = all, Natural = subset natural."""
    if eval_set == "Mixed":
        return frame
    if eval_set == "Natural":
        return frame[frame["subset"] == "natural"]
    raise ValueError(f"evaluation set must be one of {', '.join(EVAL_SETS)}, not {eval_set!r}")


def _ratio(num: int, den: int) -> float:
    return num / den if den else math.nan


def accuracy_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, evaluation set): n, n_answered, correct counts, accuracies, composite scores."""
    keys = ["run_id", "judge", "setting"]
    rows = []
    gold_ok = frame[[f"gold_{k}" for k in LABELS]].notna().all(axis=1)
    labelled = frame[gold_ok]
    for key, part in labelled.groupby(keys, sort=True, dropna=False):
        for eval_set in EVAL_SETS:
            sub = eval_subset(part, eval_set)
            n = int(len(sub))
            answered = int(sub[[f"pred_{k}" for k in LABELS]].notna().any(axis=1).sum())
            row = dict(zip(keys, key, strict=True)) | {"eval_set": eval_set, "n": n, "n_answered": answered}
            for label in LABELS:
                correct = int(_eq(sub[f"gold_{label}"], sub[f"pred_{label}"]).sum())
                row[f"{label}_correct"] = correct
                row[label] = _ratio(correct, n)
            strict = int(composite_flags(sub).sum()) if n else 0
            lenient = int(composite_flags(sub, lenient=True).sum()) if n else 0
            row |= {"composite_correct": strict, "composite": _ratio(strict, n),
                    "composite_lenient_correct": lenient, "composite_lenient": _ratio(lenient, n)}
            rows.append(row)
    columns = keys + ["eval_set", "n", "n_answered"] + [c for k in LABELS for c in (f"{k}_correct", k)] + [
        "composite_correct", "composite", "composite_lenient_correct", "composite_lenient"]
    return pd.DataFrame(rows, columns=columns)


def radar_table(accuracy: pd.DataFrame, runtime: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 2's shape: one row per model and setting; Agr/Sev/Typ/Comp for Mixed, then Natural; n; time.

    ``runtime`` (optional): ``run_id`` -> ``seconds`` (wall time of the run).
    """
    cols = ["Model", "Setting"] + [f"{s} {SHORT[k]}" for s in EVAL_SETS for k in SHORT] + [
        "n Mixed", "n Natural", "Time (s)"]
    if accuracy.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (run_id, judge, setting), part in accuracy.groupby(["run_id", "judge", "setting"], sort=True):
        by_set = part.set_index("eval_set")
        row = {"Model": judge, "Setting": setting}
        for s in EVAL_SETS:
            for k, short in SHORT.items():
                row[f"{s} {short}"] = by_set.loc[s, k] if s in by_set.index else math.nan
            row[f"n {s}"] = int(by_set.loc[s, "n"]) if s in by_set.index else 0
        seconds = math.nan
        if runtime is not None and len(runtime):
            hit = runtime.loc[runtime["run_id"] == run_id, "seconds"]
            seconds = float(hit.iloc[0]) if len(hit) and pd.notna(hit.iloc[0]) else math.nan
        row["Time (s)"] = seconds
        rows.append(row)
    return pd.DataFrame(rows, columns=cols).sort_values(["Model", "Setting"], kind="stable").reset_index(drop=True)


def confusion(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    """Counts of gold (rows) x predicted (columns) for one label, every class shown, plus unanswered edits."""
    classes = list(LABELS[label])
    sub = frame[frame[f"gold_{label}"].notna()]
    pred = sub[f"pred_{label}"].where(sub[f"pred_{label}"].notna(), NO_ANSWER)
    table = pd.crosstab(pd.Categorical(sub[f"gold_{label}"], categories=classes),
                        pd.Categorical(pred, categories=classes + [NO_ANSWER]), dropna=False)
    table.index = pd.Index(classes, name="gold")
    table.columns = pd.Index(classes + [NO_ANSWER], name="predicted")
    return table.astype(int)


def label_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1(b)'s shape: gold label counts per subset (natural, synthetic) and evaluation set."""
    gold = frame.drop_duplicates("pair_id")
    rows = []
    for label, classes in LABELS.items():
        for cls in classes:
            row = {"label": label, "class": cls}
            for s in EVAL_SETS:
                row[s] = int((eval_subset(gold, s)[f"gold_{label}"] == cls).sum())
            rows.append(row)
    total = {"label": "total", "class": "edits"} | {s: int(eval_subset(gold, s)[
        [f"gold_{k}" for k in LABELS]].notna().all(axis=1).sum()) for s in EVAL_SETS}
    return pd.DataFrame([total] + rows, columns=["label", "class", *EVAL_SETS])
