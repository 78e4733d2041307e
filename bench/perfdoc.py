"""docs/PERFORMANCE.md sections: each benchmark replaces its own section (``--write``)."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "PERFORMANCE.md"


def write_section(title: str, text: str, path: Path = DOC) -> None:
    """Replace the section that starts with ``title`` (up to the next ``### ``), or append it."""
    old = path.read_text() if path.exists() else "# Performance\n"
    start = old.find(title)
    if start < 0:
        new = old.rstrip() + "\n\n" + text.rstrip() + "\n"
    else:
        end = old.find("\n### ", start + len(title))
        new = old[:start] + text.rstrip() + "\n" + (old[end:] if end >= 0 else "")
    path.write_text(new)
