"""Write the made-up RadEval example: radeval_per_sample.json and radeval_ids.txt (beside this file).

The numbers are NOT RadEval output: no RadEval metric was run here (its models come from a hub this
machine cannot reach). They are drawn, with a fixed seed, so that the file has RadEval's per-sample
layout (``RadEval(metrics=[...], per_sample=True)``: metric -> one number per report, in the order of
the references) and values in each metric's usual range, loosely following the demo's expert scores
(the first 20 pairs of ``python -m core demo``: seed 7). ``radcliq_v1`` holds raw RadCliQ-v1 values, as
RadEval's per-sample output does: lower is better.

Run from the repository root: ``PYTHONPATH=. .venv/bin/python docs/examples/radeval_make_example.py``
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from core.ingest.synth import generate_demo

HERE = Path(__file__).resolve().parent
N_PAIRS, DEMO_SEED, SEED = 20, 7, 33


def made_up_values(quality: np.ndarray, rng: np.random.Generator) -> dict[str, list[float]]:
    """Per metric, one value per pair from a pair's quality in [0, 1] plus noise, within the metric's range."""
    n = len(quality)
    seen = np.clip(quality + rng.normal(0, 0.15, n), 0, 1)  # what every metric sees of the pair, shared

    def unit(a: float, b: float, sd: float) -> np.ndarray:
        return np.clip(a + b * seen + rng.normal(0, sd, n), 0, 1)

    green_matched = rng.integers(1, 5, n)
    green_errors = rng.poisson((1 - seen) * 2.5)
    out = {
        "bleu": unit(0.02, 0.45, 0.08),
        "rouge1": unit(0.25, 0.5, 0.08),
        "rouge2": unit(0.08, 0.45, 0.08),
        "rougeL": unit(0.2, 0.5, 0.08),
        "bertscore": unit(0.55, 0.35, 0.05),
        "radgraph_simple": unit(0.15, 0.65, 0.1),
        "radgraph_partial": unit(0.12, 0.62, 0.1),
        "radgraph_complete": unit(0.08, 0.6, 0.1),
        "f1chexbert_sample_acc_5": np.round(unit(0.4, 0.6, 0.15) * 5) / 5,
        "f1chexbert_sample_acc_all": np.round(unit(0.6, 0.4, 0.1) * 14) / 14,
        "ratescore": unit(0.4, 0.5, 0.06),
        "radcliq_v1": 1.2 - 2.2 * seen + rng.normal(0, 0.2, n),  # raw RadCliQ-v1: lower is better
        "srrbert_weighted_f1": unit(0.2, 0.7, 0.12),
        "temporal_f1": np.where(rng.random(n) < seen, 1.0, np.where(rng.random(n) < 0.5, 0.5, 0.0)),
        "green": green_matched / (green_matched + green_errors),
        "crimson": np.clip(-0.3 + 1.2 * seen + rng.normal(0, 0.15, n), -0.95, 1.0),
    }
    return {name: [round(float(v), 4) for v in values] for name, values in out.items()}


def main() -> None:
    corpus = generate_demo(n_pairs=N_PAIRS, seed=DEMO_SEED)
    ann = corpus.annotations
    score = ann[ann["field"] == "score"].groupby("ext_id")["value"].mean()
    ids = list(corpus.pairs["ext_id"])
    quality = (score.reindex(ids).to_numpy(dtype=float) - 1) / 4
    values = made_up_values(quality, np.random.default_rng(SEED))
    lines = [f"  {json.dumps(name)}: {json.dumps(vals)}" for name, vals in values.items()]
    (HERE / "radeval_per_sample.json").write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    (HERE / "radeval_ids.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
