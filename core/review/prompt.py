"""The edit-review prompt (``templates/radar_review.txt``): rendering, images, parsing.

Messages follow litellm's (OpenAI's) multimodal form: one user message whose
content is the prompt text, then one ``image_url`` part per slice carrying a
base64 ``data:`` URL (nothing is uploaded anywhere but to the endpoint the
user configured).
"""

from __future__ import annotations

import base64
import json
import re
from functools import lru_cache
from pathlib import Path

from core.prompts.loader import PromptTemplate, parse_file
from core.review.dicom import dicom_png, is_dicom_path
from core.review.labels import LABELS, label_code, metric_name, normalize_label

PROMPT_ID = "radar_review"
TEMPLATE = Path(__file__).with_name("templates") / f"{PROMPT_ID}.txt"
SLICE_CHOICES = (10, 20, 50)  # RADAR sec. 5.1: 10, 20 or 50 uniformly sampled slices
_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
_KEY_ALIASES = {"agreement": ("agreement",), "severity": ("severity",),
                "edit_type": ("edit_type", "suggested_edit_type", "edit type", "type")}


@lru_cache(maxsize=1)
def template() -> PromptTemplate:
    return parse_file(TEMPLATE)


def sample_slices(paths: list[str], k: int) -> list[str]:
    """``k`` slices spread uniformly over the series, first and last included (all when there are <= k).

    Index i of k: round(i * (n - 1) / (k - 1)), i = 0..k-1.
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    n = len(paths)
    if n <= k:
        return list(paths)
    if k == 1:
        return [paths[(n - 1) // 2]]
    return [paths[round(i * (n - 1) / (k - 1))] for i in range(k)]


def image_note(n_images: int) -> str:
    if n_images == 0:
        return "No images are attached: judge from the text alone."
    return (f"The {n_images} images attached after this text are slices of the CT series, sampled uniformly "
            "from its first to its last slice and given in order.")


def data_url(path: str) -> str:
    """A slice as a base64 data URL: PNG/JPEG as they are, DICOM windowed into a PNG (core.review.dicom)."""
    p = Path(path)
    if is_dicom_path(p):
        return "data:image/png;base64," + base64.b64encode(dicom_png(p)).decode("ascii")
    mime = _MIME.get(p.suffix.lower())
    if mime is None:
        raise ValueError(f"image '{path}' is not a PNG, JPEG or DICOM file")
    return f"data:{mime};base64," + base64.b64encode(p.read_bytes()).decode("ascii")


def render_review_messages(preliminary: str, edit: str, indication: str | None = None,
                           images: list[str] | None = None, to_url=data_url) -> list[dict]:
    """The chat messages for one edit; ``images`` are slice paths (already sampled).

    ``to_url`` turns a path into the part's url (default: a base64 data URL;
    the runner passes the path through and converts at call time).
    """
    images = list(images or [])
    text = template().render(image_note=image_note(len(images)), indication=indication or "not given",
                             preliminary=preliminary, edit=edit)
    if not images:
        return [{"role": "user", "content": text}]
    parts: list[dict] = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": to_url(p)}} for p in images]
    return [{"role": "user", "content": parts}]


def _json_objects(text: str):
    """Every top-level ``{...}`` span in ``text`` that parses as a JSON object, in order."""
    depth, start, in_str, escape = 0, None, False, False
    for i, ch in enumerate(text):
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0 and start is not None:
                try:
                    obj = json.loads(text[start:i + 1])
                except json.JSONDecodeError:
                    continue
                if isinstance(obj, dict):
                    yield obj


def parse_review_answer(text: str) -> dict[str, str | None]:
    """The three labels from an answer: the first JSON object with any of them, else ``key: value`` lines.

    Unknown spellings give None for that label (never a guess).
    """
    found: dict[str, str | None] = {k: None for k in LABELS}
    for obj in _json_objects(text or ""):
        lowered = {str(k).strip().lower(): v for k, v in obj.items()}
        hits = {}
        for label, keys in _KEY_ALIASES.items():
            for key in keys:
                if key in lowered:
                    hits[label] = normalize_label(label, lowered[key])
                    break
        if hits:
            found.update(hits)
            return found
    for label, keys in _KEY_ALIASES.items():  # no JSON: "Agreement: partially agree" lines
        for key in keys:
            m = re.search(rf"\b{re.escape(key).replace('_', '[ _]')}\b\W{{0,5}}([A-Za-z][A-Za-z _-]{{1,30}})",
                          text or "", re.I)
            if m:
                words = m.group(1).strip().split()
                value = None
                for n in (2, 1):  # "partially agree" before "agree"
                    value = normalize_label(label, " ".join(words[:n]))
                    if value:
                        break
                found[label] = value
                break
    return found


def parse_for_runs(text: str) -> tuple[str, str, dict[str, float]]:
    """(parse status, reason, metric values) in the shape core.judges.runs expects of a parser."""
    labels = parse_review_answer(text)
    values = {metric_name(k): float(label_code(k, v)) for k, v in labels.items() if v is not None}
    missing = [k for k, v in labels.items() if v is None]
    if not values:
        return "failed", "no agreement, severity or edit type found in the answer", {}
    if missing:
        return "partial", f"missing or unknown: {', '.join(missing)}", values
    return "ok", "", values
