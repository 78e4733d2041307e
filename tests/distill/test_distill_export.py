"""Fine-tuning export (VERT Sec. 4.1.4): chat-template JSONL, the dataset's split respected, score with one decimal."""

from __future__ import annotations

import json

import pytest

from core.distill.export import export_finetune, one_decimal, val_path
from core.reads.targets import dataset_targets

VERT_FIRST_TWO = ("Objective: Evaluate the accuracy of a candidate radiology report in\n"
                  "comparison to a reference radiology report composed by expert radiologists.")


def test_export_follows_vert_4_1_4(demo_store, tmp_path):
    out = tmp_path / "ft.jsonl"
    report = export_finetune(demo_store, "demo", out, seed=3)
    train = [json.loads(ln) for ln in out.read_text(encoding="utf-8").splitlines()]
    val = [json.loads(ln) for ln in val_path(out).read_text(encoding="utf-8").splitlines()]
    assert report["n_train"] == len(train) and report["n_val"] == len(val)
    pairs = demo_store.query_df("SELECT pair_id, group_id, split, reference, candidate FROM pairs "
                                "WHERE dataset = 'demo'")
    test_groups = set(pairs.loc[pairs["split"] == "test", "group_id"])
    assert test_groups and report["n_test_excluded"] == pairs["group_id"].isin(test_groups).sum()
    assert len(train) + len(val) + report["n_test_excluded"] == len(pairs)
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
            assert row.group_id not in test_groups  # never a test study, in training or in validation
            assert (row.split == "val") == (split == "val")  # the dataset's own validation split
    assert not seen_groups["train"] & seen_groups["val"]  # a study never straddles
    assert report["validation_from"] == "the dataset's own val split"
    # Seeded: the same seed gives the same files, another seed another split.
    first = out.read_bytes()
    export_finetune(demo_store, "demo", out, seed=3, force=True)
    assert out.read_bytes() == first


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


def test_without_a_val_split_validation_is_drawn_from_training_groups_only(demo_store_copy, tmp_path):
    demo_store = demo_store_copy
    demo_store.execute("UPDATE pairs SET split = CASE WHEN split = 'test' THEN 'test' ELSE 'train' END "
                       "WHERE dataset = 'demo'")
    a = export_finetune(demo_store, "demo", tmp_path / "a.jsonl", seed=3)
    b = export_finetune(demo_store, "demo", tmp_path / "b.jsonl", seed=4)
    assert a["validation_from"].startswith("a seeded 10%")
    assert b["n_test_excluded"] == a["n_test_excluded"]  # the test split does not depend on the seed
    n_usable = a["n_train"] + a["n_val"]
    assert 0.07 <= a["n_val"] / n_usable <= 0.16 and a["n_test_excluded"] > 0
    assert (tmp_path / "a.val.jsonl").read_bytes() != (tmp_path / "b.val.jsonl").read_bytes()  # seeded


def test_out_folder_missing_or_present_gets_train_and_val_files_and_nothing_else(demo_store, tmp_path):
    from core.cli.main import main

    store = str(demo_store.path)
    missing = tmp_path / "finetune"
    assert main(["--store", store, "export-finetune", "--dataset", "demo", "--out", f"{missing}/"]) == 0
    assert sorted(p.name for p in missing.iterdir()) == ["train.jsonl", "val.jsonl"]
    existing = tmp_path / "there"
    existing.mkdir()
    assert main(["--store", store, "export-finetune", "--dataset", "demo", "--out", str(existing)]) == 0
    assert sorted(p.name for p in existing.iterdir()) == ["train.jsonl", "val.jsonl"]
    before = (existing / "train.jsonl").read_bytes()
    # Again without --force: refused, files untouched, no temporary file left behind.
    assert main(["--store", store, "export-finetune", "--dataset", "demo", "--out", str(existing)]) == 1
    assert (existing / "train.jsonl").read_bytes() == before
    assert sorted(p.name for p in existing.iterdir()) == ["train.jsonl", "val.jsonl"]
    assert main(["--store", store, "export-finetune", "--dataset", "demo", "--out", str(existing), "--force"]) == 0
