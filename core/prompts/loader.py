"""Prompt template files: loading, hashing and placeholder substitution.

Each ``templates/<id>.txt`` file starts with a header block (lines beginning
with ``#``, up to the first blank line) of ``# key: value`` lines: id, title,
source, status, role, placeholders, syntax, and any number of
reconstruction/fix/note lines. Everything after that blank line is the body,
minus the file's final newline.

Placeholders are written ``{{name}}`` (lower-case letters, digits, ``_``).
Substitution is a single regex pass over the *template body*: an inserted
value is never scanned again, so report text containing ``{``, ``}`` or
``{{reference}}`` ends up in the prompt verbatim, and braces that belong to
the prompt itself (JSON examples) need no escaping.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

__all__ = [
    "PLACEHOLDER_RE",
    "PromptTemplate",
    "TEMPLATE_DIR",
    "body_hash",
    "get_template",
    "list_templates",
    "parse_file",
    "substitute",
]

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
PLACEHOLDER_RE = re.compile(r"\{\{([a-z][a-z0-9_]*)\}\}")
_MULTI_KEYS = ("reconstruction", "fix", "note")


def body_hash(body: str) -> str:
    """First 16 hex characters of the SHA-256 of the UTF-8 body text."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class PromptTemplate:
    """One template file.

    ``placeholders`` is the tuple declared in the header (in that order);
    ``hash`` identifies the body exactly, so a run that records
    ``(id, hash)`` can tell whether the prompt text changed since.
    """

    id: str
    source: str
    body: str
    hash: str
    placeholders: tuple[str, ...]
    title: str = ""
    status: str = ""
    role: str = "user"
    notes: tuple[str, ...] = field(default=(), compare=False)

    def render(self, **values: str) -> str:
        """Body with every placeholder replaced by its value (see ``substitute``)."""
        return substitute(self.body, values, template_id=self.id)

    @property
    def designed(self) -> bool:
        """True for prompts written for this project rather than taken from a paper."""
        return self.status.startswith("designed")


def substitute(body: str, values: dict[str, str], *, template_id: str = "?") -> str:
    """Replace each ``{{name}}`` in *body* with ``values[name]`` in one pass.

    Raises ``ValueError`` when a placeholder has no value, a value is not a
    string, or a value is given for a name the body does not use.
    """
    used = set(PLACEHOLDER_RE.findall(body))
    missing = sorted(used - values.keys())
    extra = sorted(values.keys() - used)
    if missing or extra:
        raise ValueError(
            f"template {template_id!r}: missing values for {missing}, unknown names {extra}"
        )
    for name, value in values.items():
        if not isinstance(value, str):
            raise ValueError(
                f"template {template_id!r}: value for {name!r} must be str, "
                f"got {type(value).__name__}"
            )
    return PLACEHOLDER_RE.sub(lambda m: values[m.group(1)], body)


def parse_file(path: Path) -> PromptTemplate:
    """One template file (header lines, then the body) as a :class:`PromptTemplate`; ValueError if malformed."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    header: dict[str, str] = {}
    multi: dict[str, list[str]] = {k: [] for k in _MULTI_KEYS}
    i = 0
    while i < len(lines) and lines[i] != "":
        line = lines[i]
        if not line.startswith("#"):
            raise ValueError(f"{path.name}: header line {i + 1} does not start with '#'")
        key, sep, value = line[1:].strip().partition(":")
        if not sep:
            raise ValueError(f"{path.name}: header line {i + 1} is not '# key: value'")
        key, value = key.strip(), value.strip()
        if key in multi:
            multi[key].append(value)
        else:
            header[key] = value
        i += 1
    if i >= len(lines):
        raise ValueError(f"{path.name}: no blank line after the header")
    body = "\n".join(lines[i + 1 :])
    if body.endswith("\n"):
        body = body[:-1]
    if not body.strip():
        raise ValueError(f"{path.name}: empty body")
    for key in ("id", "source", "placeholders", "role", "status"):
        if key not in header:
            raise ValueError(f"{path.name}: header lacks '{key}'")
    if header["id"] != path.stem:
        raise ValueError(f"{path.name}: header id {header['id']!r} != file name")
    declared = tuple(p.strip() for p in header["placeholders"].split(",") if p.strip())
    return PromptTemplate(
        id=header["id"],
        source=header["source"],
        body=body,
        hash=body_hash(body),
        placeholders=declared,
        title=header.get("title", ""),
        status=header["status"],
        role=header["role"].split()[0],
        notes=tuple(f"{k}: {v}" for k in _MULTI_KEYS for v in multi[k]),
    )


@lru_cache(maxsize=1)
def _load_all() -> dict[str, PromptTemplate]:
    return {p.stem: parse_file(p) for p in sorted(TEMPLATE_DIR.glob("*.txt"))}


def list_templates() -> list[str]:
    """Sorted ids of every template file."""
    return sorted(_load_all())


def get_template(prompt_id: str) -> PromptTemplate:
    """The template with this id; ``ValueError`` listing the valid ids otherwise."""
    templates = _load_all()
    try:
        return templates[prompt_id]
    except KeyError:
        raise ValueError(
            f"unknown template id {prompt_id!r}; valid ids: {', '.join(sorted(templates))}"
        ) from None
