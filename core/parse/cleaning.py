"""A judge's raw answer made text before it is read: :func:`to_text` (bytes, line ends, special tokens,
control characters, the length cut) and :func:`strip_reasoning` (``<think>`` blocks). Read by
core.parse.text, which re-exports both."""

from __future__ import annotations

import re

#: Longer inputs are cut to their last ``MAX_INPUT_CHARS`` characters (the
#: answer follows any reasoning) before parsing.
MAX_INPUT_CHARS = 400_000


# --------------------------------------------------------------------------
# text normalisation
# --------------------------------------------------------------------------

_SPECIAL_TOKENS = re.compile(
    r"</s>|<s>|<unk>|<\|(?:im_end|im_start|eot_id|end|endoftext|end_of_text|assistant|user)\|>"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning|thought)>", re.I)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning|thought)>", re.I)


def to_text(raw: object) -> tuple[str | None, list[str]]:
    """The input as clean text (``None`` when it is no text at all) and notes on what was changed."""
    notes: list[str] = []
    if raw is None:
        return None, ["no input (None)"]
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raw = bytes(raw).decode("utf-8", errors="replace")
        notes.append("decoded bytes as UTF-8")
    if not isinstance(raw, str):
        return None, [f"unsupported input type {type(raw).__name__}"]
    text = raw
    if len(text) > MAX_INPUT_CHARS:
        notes.append(f"input of {len(text)} chars cut to its last {MAX_INPUT_CHARS}")
        text = text[-MAX_INPUT_CHARS:]
    # GREEN's own post-processing keeps what follows the last assistant tag.
    if "<|assistant|>" in text:
        text = text.rsplit("<|assistant|>", 1)[-1]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\ufeff", "").replace("\u00a0", " ").replace("\uff1a", ":")
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    text = _SPECIAL_TOKENS.sub("", text)
    text = _CONTROL.sub("", text)
    return text, notes


def strip_reasoning(text: str) -> tuple[str, list[str], bool]:
    """Remove ``<think>`` blocks.  Returns (text, notes, unclosed_block)."""
    notes: list[str] = []
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        # Everything up to the last closing tag is reasoning (the opening tag
        # is sometimes part of the prompt template and absent from the output).
        text = text[closes[-1].end():]
        notes.append("reasoning block removed")
    opened = _THINK_OPEN.search(text)
    if opened:
        before = text[: opened.start()]
        inside = text[opened.end():]
        notes.append("reasoning block never closed (output cut off while thinking?)")
        if before.strip():
            return before, notes, True
        return inside, notes, True
    return text, notes, False


# --------------------------------------------------------------------------
# line cleaning and section headers
# --------------------------------------------------------------------------
