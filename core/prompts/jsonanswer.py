"""Finding the JSON object inside a model's answer.

Models wrap JSON in code fences, add prose around it, copy the curly quotes of
a prompt's example (F.3 prints its JSON with ‘‘ ’’) or leave trailing commas.
``extract_json_object`` tries the text as given first and only then the
repaired variants, so valid JSON is never altered.
"""

from __future__ import annotations

import json
import re

__all__ = ["extract_json_object", "norm_key"]

_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _quote_fixed(text: str) -> str:
    for a, b in (("‘‘", '"'), ("’’", '"'), ("“", '"'), ("”", '"')):
        text = text.replace(a, b)
    return text


def _first_object(text: str) -> dict | None:
    decoder = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside strings
    for m in re.finditer(r"\{", text):
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def extract_json_object(text: str) -> dict:
    """The first JSON object in *text*; ``ValueError`` if there is none."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty answer: expected a JSON object")
    variants = [text]
    for fix in (_quote_fixed, lambda t: _TRAILING_COMMA.sub(r"\1", t)):
        fixed = fix(variants[-1])
        if fixed != variants[-1]:
            variants.append(fixed)
    for variant in variants:
        obj = _first_object(variant)
        if obj is not None:
            return obj
    raise ValueError("no valid JSON object found in the answer")


def norm_key(key: object) -> str:
    """Key spelling used for lookups: lower case, ``_``/``-`` as spaces, single spaces.

    ``"modified_report"``, ``"Modified Report"`` and ``"modified report"`` all
    become ``"modified report"``.
    """
    return " ".join(str(key).replace("_", " ").replace("-", " ").lower().split())
