"""CPU-sensible training and scoring: threads, a token budget from the data, length-sorted batches, int8.

- :func:`set_threads`: torch uses as many threads as the cores this process
  may run on (``os.sched_getaffinity``), not a library default.
- :func:`auto_max_length`: the token budget of ``[CLS] ref [SEP] cand [SEP]``
  is a percentile of the training pairs' tokenized lengths (95th for
  transformers, capped at 256 and at the model's own limit; 99th for the
  tiny bag of words, capped at 2,048), so a padded batch is not 256 tokens
  wide when most pairs are 140.
- :func:`length_batches`: batches of similar lengths (dynamic padding pads
  each batch only to its own longest pair), shuffled with the seed: pairs
  are sorted by length inside windows of ``50 x batch`` of a seeded
  permutation, cut into batches, and the batches shuffled.
- :func:`quantize`: int8 dynamic quantization of every ``nn.Linear``
  (``torch.ao.quantization.quantize_dynamic``) for scoring on CPU; training
  measures it against the float model on the test pairs and keeps it only if
  it is faster and its tau vs the teacher is within :data:`INT8_TAU_SLACK`.

ONNX Runtime is not in the venv nor in requirements-ml.txt, so no ONNX
export is offered (docs/DISTILL.md, "CPU defaults").
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from core.distill.model import torch

INT8_TAU_SLACK = 0.01
LENGTH_RULE = {"tiny": (99, 2048)}  # every other encoder: (95, 256)
TRANSFORMER_RULE = (95, 256)


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def set_threads() -> int:
    """torch intra-op threads = the cores available to this process; returns the number."""
    n = cores()
    torch.set_num_threads(n)
    return n


def auto_max_length(lengths, encoder: str, model_limit: int | None = None) -> int:
    """A percentile of the tokenized pair lengths, rounded up to a multiple of 8, capped."""
    pct, cap = LENGTH_RULE.get(encoder, TRANSFORMER_RULE)
    if model_limit:
        cap = min(cap, model_limit)
    if len(lengths) == 0:
        return cap
    want = int(np.ceil(np.percentile(np.asarray(lengths, dtype=float), pct) / 8) * 8)
    return int(max(16, min(cap, want)))


def length_batches(lengths, batch_size: int, generator) -> list[list[int]]:
    """Index batches of similar lengths, in a seeded random order (``generator``: a torch.Generator)."""
    n = len(lengths)
    lengths = np.asarray(lengths)
    order = torch.randperm(n, generator=generator).numpy()
    window = batch_size * 50
    batches = []
    for start in range(0, n, window):
        chunk = order[start:start + window]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches += [chunk[i:i + batch_size].tolist() for i in range(0, len(chunk), batch_size)]
    perm = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in perm]


def quantize(model):
    """An int8 copy of the model for CPU scoring (nn.Linear weights quantized; activations quantized on the fly)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch 2.x announces the move of this API to torchao
        return torch.ao.quantization.quantize_dynamic(model.cpu(), {torch.nn.Linear}, dtype=torch.qint8)


def choose_int8(fp32: dict, int8: dict) -> bool:
    """Keep int8 only if it is faster and agrees with the teacher as well as the float model (within slack)."""
    if fp32.get("tau") is None or int8.get("tau") is None:
        return False
    return int8["ms_per_pair"] < fp32["ms_per_pair"] and int8["tau"] >= fp32["tau"] - INT8_TAU_SLACK
