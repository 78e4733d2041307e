"""Fine-tuning export (VERT Sec. 4.1.4): chat-template JSONL, 90/10 split by group, score with one decimal."""

from __future__ import annotations

import json

import pytest

from core.distill.export import export_finetune, one_decimal, val_path
from core.targets import dataset_targets

VERT_FIRST_TWO = ("Objective: Evaluate the accuracy of a candidate radiology report in\n"
                  "comparison to a reference radiology report composed by expert radiologists.")


def test_export_follows_vert_4_1_4(demo_store, tmp_path):
    out = tmp_path / "ft.jsonl"
    report = export_finetune(demo_store, "demo", out, seed=3)
    train = [json.loads(ln) for ln in out.read_text(encoding="utf-8").splitlines()]
    val = [json.loads(ln) for ln in val_path(out).read_text(encoding="utf-8").splitlines()]
    assert report["n_train"] == len(train) and report["n_val"] == len(val)
    n = len(train) + len(val)
    assert n == demo_store.query_one("SELECT count(*) FROM pairs WHERE dataset = 'demo'")
    assert 0.07 <= len(val) / n <= 0.16  # 10% by whole groups
    pairs = demo_store.query_df("SELECT pair_id, group_id, reference, candidate FROM pairs WHERE dataset = 'demo'")
    targets = dataset_targets(demo_store, "demo")
    scores = targets[targets["target"] == "score"]
    score = dict(zip(scores["pair_id"], scores["value"], strict=True))
    by_user = {}
    for row in pairs.itertuples():
        text = (f"{VERT_FIRST_TWO}\n\nReference Report:\n{row.reference}\n\nCandidate Report:\n{row.candidate}")
        by_user[text] = row
    seen_groups = {"train": set(), "val": set()}
    for split, records in (("train", train), ("val", val)):
        for rec in records:
            user, assistant = rec["messages"]
            assert user["role"] == "user" and assistant["role"] == "assistant"
            row = by_user[user["content"]]  # exact user turn: VERT's first two lines, then the two reports
            assert assistant["content"] == one_decimal(score[row.pair_id])
            assert len(assistant["content"]) == 3 and 0.0 <= float(assistant["content"]) <= 1.0
            seen_groups[split].add(row.group_id)
    assert not seen_groups["train"] & seen_groups["val"]  # a study never straddles
    # Seeded: the same seed gives the same files, another seed another split.
    first = out.read_bytes()
    export_finetune(demo_store, "demo", out, seed=3)
    assert out.read_bytes() == first
    export_finetune(demo_store, "demo", tmp_path / "other.jsonl", seed=4)
    assert (tmp_path / "other.jsonl").read_bytes() != first


def test_one_decimal_rounds_half_up():
    assert one_decimal(0.25) == "0.3"
    assert one_decimal(0.04999) == "0.0"
    assert one_decimal(1.0) == "1.0"
    assert one_decimal(2 / 3) == "0.7"


def test_export_refuses_unscored_or_missing_dataset(tmp_store, tmp_path):
    with pytest.raises(ValueError, match="dataset 'nope' not found"):
        export_finetune(tmp_store, "nope", tmp_path / "x.jsonl")
    with pytest.raises(ValueError, match="does not exist"):
        export_finetune(tmp_store, "nope", tmp_path / "missing" / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()
