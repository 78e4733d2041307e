"""RADAR metrics on hand-made cases: accuracy, the composite score (sec. 5.2), Mixed vs Natural, confusion."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from core.review.labels import label_code, label_name, normalize_label
from core.review.metrics import (
    NO_ANSWER,
    accuracy_table,
    composite_flags,
    confusion,
    label_counts,
    radar_table,
)

COLS = ["gold_agreement", "gold_severity", "gold_edit_type", "pred_agreement", "pred_severity", "pred_edit_type"]

# (gold agreement, severity, type, predicted agreement, severity, type, subset) -> composite (paper), lenient
CASES = [
    (("agree", "critical", "addition", "agree", "critical", "addition", "natural"), 1, 1),  # all match
    (("agree", "critical", "addition", "disagree", "critical", "addition", "natural"), 0, 0),  # agreement wrong
    (("agree", "critical", "addition", "agree", "moderate", "addition", "natural"), 0, 0),  # severity wrong
    (("agree", "critical", "addition", "agree", "critical", "correction", "natural"), 0, 0),  # type wrong
    (("partially agree", "negligible", "clarification", "agree", "negligible", "clarification", "natural"), 0, 1),
    (("disagree", "moderate", "correction", "disagree", "moderate", "correction", "synthetic"), 1, 1),
    (("disagree", "critical", "addition", None, None, None, "synthetic"), 0, 0),  # no answer: wrong, still counted
    (("disagree", "critical", "addition", "partially agree", "critical", "addition", "synthetic"), 0, 0),
]


def _frame(cases=CASES) -> pd.DataFrame:
    rows = []
    for i, (values, _, _) in enumerate(cases):
        *labels, subset = values
        rows.append({"run_id": "r1", "judge": "j", "setting": "text only", "pair_id": f"p{i}", "subset": subset,
                     **dict(zip(COLS, labels, strict=True))})
    return pd.DataFrame(rows)


def test_composite_per_edit_follows_the_paper_and_the_lenient_variant_only_merges_agree_and_partial():
    frame = _frame()
    assert composite_flags(frame).tolist() == [c for _, c, _ in CASES]
    assert composite_flags(frame, lenient=True).tolist() == [c for _, _, c in CASES]


def test_accuracy_and_composite_for_mixed_and_natural_from_integer_counts():
    acc = accuracy_table(_frame()).set_index("eval_set")
    mixed, natural = acc.loc["Mixed"], acc.loc["Natural"]
    assert (mixed["n"], mixed["n_answered"], natural["n"], natural["n_answered"]) == (8, 7, 5, 5)
    # agreement matches: cases 0, 2, 3, 5 -> 4 of 8; natural: 0, 2, 3 -> 3 of 5
    assert (mixed["agreement_correct"], natural["agreement_correct"]) == (4, 3)
    assert mixed["agreement"] == 4 / 8 and natural["agreement"] == 3 / 5
    # severity matches: 0, 1, 3, 4, 5, 7 -> 6 of 8; natural 0, 1, 3, 4 -> 4 of 5
    assert (mixed["severity_correct"], natural["severity_correct"]) == (6, 4)
    # type matches: all but 3 and 6
    assert (mixed["edit_type_correct"], natural["edit_type_correct"]) == (6, 4)
    assert mixed["composite"] == 2 / 8 and natural["composite"] == 1 / 5
    assert mixed["composite_lenient"] == 3 / 8 and natural["composite_lenient"] == 2 / 5


def test_an_empty_natural_subset_is_undefined_not_zero():
    only_synthetic = [c for c in CASES if c[0][-1] == "synthetic"]
    acc = accuracy_table(_frame(only_synthetic)).set_index("eval_set")
    assert acc.loc["Natural", "n"] == 0 and math.isnan(acc.loc["Natural", "composite"])
    assert acc.loc["Mixed", "n"] == 3


def test_edits_without_gold_labels_are_left_out():
    frame = _frame()
    frame.loc[0, "gold_severity"] = None
    acc = accuracy_table(frame).set_index("eval_set")
    assert acc.loc["Mixed", "n"] == 7 and acc.loc["Mixed", "composite_correct"] == 1


def test_confusion_matrix_shows_every_class_and_unanswered_edits():
    table = confusion(_frame(), "agreement")
    assert list(table.index) == ["agree", "partially agree", "disagree"]
    assert list(table.columns) == ["agree", "partially agree", "disagree", NO_ANSWER]
    assert table.loc["agree", "agree"] == 3 and table.loc["agree", "disagree"] == 1
    assert table.loc["partially agree", "agree"] == 1
    assert table.loc["disagree", NO_ANSWER] == 1 and table.loc["disagree", "partially agree"] == 1
    assert table.to_numpy().sum() == len(CASES)


def test_radar_table_shape_and_runtime():
    acc = accuracy_table(_frame())
    table = radar_table(acc, pd.DataFrame({"run_id": ["r1"], "seconds": [12.5]}))
    assert list(table.columns) == ["Model", "Setting", "Mixed Agr", "Mixed Sev", "Mixed Typ", "Mixed Comp",
                                   "Natural Agr", "Natural Sev", "Natural Typ", "Natural Comp", "n Mixed",
                                   "n Natural", "Time (s)"]
    row = table.iloc[0]
    assert (row["Mixed Comp"], row["Natural Comp"], row["n Mixed"], row["n Natural"], row["Time (s)"]) == (
        0.25, 0.2, 8, 5, 12.5)
    assert radar_table(accuracy_table(_frame().iloc[0:0])).empty


def test_label_counts_in_table_1b_shape():
    counts = label_counts(_frame()).set_index(["label", "class"])
    assert counts.loc[("total", "edits")].tolist() == [8, 5]
    assert counts.loc[("agreement", "disagree")].tolist() == [3, 0]
    assert counts.loc[("agreement", "agree")].tolist() == [4, 4]


@pytest.mark.parametrize("label,raw,expected", [
    ("agreement", "Partially_Agree", "partially agree"), ("agreement", "partial", "partially agree"),
    ("agreement", " Disagree. ", "disagree"), ("severity", "CRITICAL", "critical"),
    ("edit_type", "Addition", "addition"), ("edit_type", "critical", None), ("severity", "major", None),
    ("agreement", None, None), ("agreement", float("nan"), None),
])
def test_label_spellings(label, raw, expected):
    assert normalize_label(label, raw) == expected


def test_codes_round_trip_and_reject_out_of_range():
    for label, classes in (("agreement", 3), ("severity", 3), ("edit_type", 3)):
        for i in range(classes):
            assert label_code(label, label_name(label, float(i))) == i
    assert label_name("agreement", 3.0) is None and label_name("agreement", 0.5) is None
