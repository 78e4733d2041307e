"""Issue 21: generated training pairs, the token budget from the data, length-sorted batches, int8 scoring,
and the side-by-side table (student, teacher, LLM judge) on the held-out pairs.

One small tiny-encoder student (240 demo pairs + 300 generated, 3 epochs) is
trained per module; everything else is unit-sized.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.store.db import Store

NAME = "gen-tiny"
N_GEN = 300


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[Store, dict]:
    from core.distill.train import train_student
    from core.ingest.demo import build_demo
    from core.judges import run_judge

    store = Store(tmp_path_factory.mktemp("distill-fast") / "demo.duckdb")
    build_demo(store, n_pairs=240, seed=7)
    run_judge(store, dataset="demo", judge="rules")
    card = train_student(store, dataset="demo", teacher="rules", name=NAME, encoder="tiny", epochs=3,
                         generated=N_GEN, seed=4)
    return store, card


def test_generated_pairs_train_only_and_never_share_a_study_with_held_out_pairs(trained):
    from core.distill.data import pair_text_hash

    store, card = trained
    pairs = store.query_df("SELECT pair_id, group_id, reference, candidate FROM pairs WHERE dataset = 'demo'")
    assert card["n_generated"] + card["n_generated_dropped"] == N_GEN and card["n_generated"] > 250
    assert card["n_train"] + card["n_val"] + card["n_test"] == 240  # the dataset's pairs only
    ids = set(pairs["pair_id"])
    for split in ("val", "test"):
        assert set(card["splits"][split]) <= ids  # no generated pair is held out
    held = pairs[pairs["pair_id"].isin(card["splits"]["test"] + card["splits"]["val"])]
    trained_hashes = set(card["trained_text_hashes"])
    # The training hashes hold the generated pairs too, and no test pair.
    assert len(trained_hashes) >= card["n_train"] + card["n_val"] + card["n_generated"] - 5
    test = pairs[pairs["pair_id"].isin(card["splits"]["test"])]
    assert not {pair_text_hash(r, c) for r, c in zip(test["reference"], test["candidate"], strict=True)} \
        & trained_hashes
    # Regenerate what training added: none of its references is a validation or test reference.
    from core.ingest.synth import generate_demo

    gen = generate_demo(n_pairs=N_GEN, seed=card["generated_source"]["seed"]).pairs
    kept = gen[[pair_text_hash(r, c) in trained_hashes for r, c in zip(gen["reference"], gen["candidate"],
                                                                      strict=True)]]
    assert len(kept) == card["n_generated"]
    assert not set(kept["reference"]) & set(held["reference"])


def test_generated_pairs_drop_copies_and_held_out_references():
    from core.distill.generate import SEED_OFFSET, generated_pairs
    from core.ingest.synth import generate_demo

    teacher = {"kind": "run", "label": "rules", "run_id": "r", "judge_kind": "rules"}
    corpus = generate_demo(n_pairs=40, seed=SEED_OFFSET).pairs  # exactly what seed 0 generates
    dataset = corpus.iloc[:5][["reference", "candidate"]]  # five copies already in the dataset
    held_ref = corpus["reference"].iloc[20]
    frame, dropped = generated_pairs(teacher, 40, 0, dataset, {held_ref})
    n_held = int((corpus["reference"].iloc[5:] == held_ref).sum())
    assert dropped == 5 + n_held and len(frame) == 40 - dropped
    assert held_ref not in set(frame["reference"])
    assert frame["pair_id"].str.startswith("generated-").all() and frame["group"].str.startswith("generated-").all()


def test_generated_labels_are_the_teachers_stored_counts(trained):
    """Labelling by running the rules judge gives exactly the counts its stored run holds."""
    from core.distill.data import LABELS, resolve_teacher, teacher_labels
    from core.distill.generate import label_offline
    from core.reads.context import context_dict

    store, _ = trained
    teacher = resolve_teacher(store, "demo", "rules")
    stored = teacher_labels(store, "demo", teacher).set_index("pair_id").sort_index()
    pairs = store.query_df("SELECT * FROM pairs WHERE dataset = 'demo' "
                           "ORDER BY pair_id").set_index("pair_id").loc[stored.index]
    contexts = [context_dict(row) for _, row in pairs.iterrows()]  # as the stored run read them (rules-18)
    ran = label_offline(teacher, pairs["reference"].tolist(), pairs["candidate"].tolist(), contexts)
    assert np.array_equal(ran[list(LABELS)].to_numpy(), stored[list(LABELS)].to_numpy())
    assert ran.to_numpy().sum() > 50  # the demo has errors: not an all-zero comparison


def test_generated_pairs_need_an_offline_teacher():
    from core.distill.generate import check_generated

    llm = {"kind": "run", "label": "gpt-4o-mini · green", "run_id": "x", "judge_kind": "llm"}
    with pytest.raises(ValueError, match="would need a judge run on them"):
        check_generated(llm, 100)
    check_generated(llm, 0)  # no generated pairs: any teacher
    with pytest.raises(ValueError, match="no expert labels"):
        check_generated({"kind": "expert", "label": "expert", "run_id": None, "judge_kind": None}, 10)
    with pytest.raises(ValueError, match="between 0 and"):
        check_generated({"kind": "run", "label": "rules", "judge_kind": "rules"}, -1)


def test_default_adds_generated_pairs_only_for_an_offline_teacher():
    from core.cli.main import build_parser
    from core.distill.generate import AUTO_GENERATED, resolve_generated

    args = build_parser().parse_args(["distill", "--dataset", "d", "--teacher", "rules", "--name", "x"])
    assert args.generated is None and args.encoder == "tiny" and args.max_length is None
    assert resolve_generated({"kind": "run", "judge_kind": "rules"}, None) == AUTO_GENERATED > 0
    assert resolve_generated({"kind": "run", "judge_kind": "llm"}, None) == 0
    assert resolve_generated({"kind": "expert", "judge_kind": None}, None) == 0
    assert resolve_generated({"kind": "run", "judge_kind": "llm"}, 0) == 0


def test_token_budget_comes_from_the_data_and_batches_pad_dynamically(trained):
    import torch

    from core.distill.fast import auto_max_length, length_batches
    from core.distill.model import PairTokenizer

    assert auto_max_length(list(range(1, 101)), "minilm") == 96  # 95th percentile 95.05 -> multiple of 8
    assert auto_max_length([400] * 50, "minilm") == 256  # capped for transformers
    assert auto_max_length([400] * 50, "minilm", model_limit=128) == 128
    assert auto_max_length([400] * 50, "tiny") == 400  # the bag of words may be longer
    _, card = trained
    # tiny: the 99th percentile of the training pairs' lengths, rounded up to a multiple of 8
    assert card["train_tokens"]["p95"] <= card["max_length_used"] <= card["train_tokens"]["max"] + 7
    assert card["max_length_used"] % 8 == 0 and card["max_length_used"] < 2048
    tok = PairTokenizer("tiny", 40)
    short = tok(["no effusion."], ["no effusion."])
    assert short["input_ids"].shape[1] == 3 + 2 * 5  # 3 words + 2 word pairs a side: not padded to 40
    long = tok(["word " * 100, "a b"], ["other " * 100, "a"])
    assert long["input_ids"].shape[1] == 40 and int(long["attention_mask"][1].sum()) < 40
    lengths = np.random.default_rng(0).integers(5, 300, size=1000)
    batches = length_batches(lengths, 16, torch.Generator().manual_seed(1))
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(1000))  # every pair once per epoch
    assert batches == length_batches(lengths, 16, torch.Generator().manual_seed(1))
    spread = np.mean([np.ptp(lengths[b]) for b in batches])
    assert spread < 0.2 * np.ptp(lengths)  # similar lengths together: little padding


def test_int8_scoring_agrees_with_float_and_both_are_recorded(trained):
    import copy

    from core.distill.data import model_dir
    from core.distill.fast import choose_int8, quantize
    from core.distill.model import predict
    from core.distill.train import load_student

    store, card = trained
    q = card["quantization"]
    assert q["fp32"]["ms_per_pair"] > 0 and q["int8"]["ms_per_pair"] > 0
    assert q["int8_used"] == choose_int8(q["fp32"], q["int8"])
    assert card["ms_per_pair"] == q["int8" if q["int8_used"] else "fp32"]["ms_per_pair"]
    card_fp = copy.deepcopy(card)
    card_fp["quantization"]["int8_used"] = False
    model, tok = load_student(card_fp, model_dir(store, NAME))
    pairs = store.query_df("SELECT reference, candidate FROM pairs WHERE pair_id IN "
                           "(SELECT unnest(?::VARCHAR[]))", [card["splits"]["test"]])
    refs, cands = pairs["reference"].tolist(), pairs["candidate"].tolist()
    a = predict(model, tok, refs, cands)
    b = predict(quantize(copy.deepcopy(model)), tok, refs, cands)
    assert not np.array_equal(a, b)  # really a different (quantized) model
    assert np.abs(a - b).max() < 0.25 and np.corrcoef(a.sum(1), b.sum(1))[0, 1] > 0.98
    assert choose_int8({"ms_per_pair": 2.0, "tau": 0.60}, {"ms_per_pair": 1.0, "tau": 0.595})
    assert not choose_int8({"ms_per_pair": 2.0, "tau": 0.60}, {"ms_per_pair": 1.0, "tau": 0.58})
    assert not choose_int8({"ms_per_pair": 1.0, "tau": 0.60}, {"ms_per_pair": 1.5, "tau": 0.62})


def test_side_by_side_student_teacher_and_llm_on_the_same_held_out_pairs(trained, tmp_path):
    from core.distill.compare import side_by_side
    from core.judges.runs import OutputRecord, RunSpec, ensure_run, finish_run, write_outputs
    from tests.conftest import copy_store

    store, card = trained
    table, note = side_by_side(store, card)
    assert list(table["role"]) == ["student", "teacher"] and "no LLM judge run" in note
    m = card["metrics"]["all"]
    assert table["tau_vs_experts"].iloc[0] == m["vs_expert"]["tau"]
    assert table["tau_vs_experts"].iloc[1] == m["teacher_vs_expert"]["tau"]
    assert table["tau_vs_teacher"].iloc[0] == m["vs_teacher"]["tau"]
    # An LLM run that scored every pair (its ec_sig = the experts' count on test pairs, its score inverted
    # elsewhere, 2,600 ms each): only the test pairs count, so its tau is 1 and its latency 2,600.
    store = copy_store(store, tmp_path / "llm.duckdb")
    from core.reads.targets import dataset_targets

    t = dataset_targets(store, "demo")
    sig = t[t["target"] == "sig_errors"].set_index("pair_id")["value"]
    test = set(card["splits"]["test"])
    run_id = ensure_run(store, RunSpec("llm", "fake-llm", "demo", model="fake-llm", prompt_id="green"), len(sig))
    recs = [OutputRecord(pair_id=pid, raw_text="x", latency_ms=2600.0 if pid in test else 5.0,
                         metrics={"ec_sig": float(v) if pid in test else -float(v)}) for pid, v in sig.items()]
    write_outputs(store, run_id, recs, None)
    finish_run(store, run_id, "done")
    table, note = side_by_side(store, card)
    assert note is None and list(table["role"]) == ["student", "teacher", "LLM judge"]
    llm = table.iloc[2]
    assert llm["tau_vs_experts"] == pytest.approx(1.0) and llm["ms_per_pair"] == pytest.approx(2600.0)
    assert llm["n"] == len(test) and llm["metric"] == "ec_sig"


def test_card_and_cli_report_the_new_fields(trained):
    from core.distill.train import summary

    store, card = trained
    out = summary(card)
    assert out["n_generated"] == card["n_generated"] and out["max_length_used"] == card["max_length_used"]
    assert out["threads"] >= 1 and set(out["quantization"]) == {"fp32", "int8", "int8_used"}
    saved = json.loads((Path(store.path).parent / "models" / NAME / "card.json").read_text())
    assert saved["generated"] == N_GEN and saved["generated_source"]["generator"] == "core.ingest.synth"
    assert len(pd.DataFrame(saved["history"])) == saved["epochs_run"]
