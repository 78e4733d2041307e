"""docs/PERFORMANCE.md sections: each benchmark replaces its own section (``--write``)."""

from __future__ import annotations

import platform
import shlex
import sys
from datetime import UTC, datetime
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


def command(script: str) -> str:
    """The command line that ran this benchmark, as a section header quotes it."""
    args = " " + shlex.join(sys.argv[1:]) if sys.argv[1:] else ""
    return f".venv/bin/python bench/{Path(script).name}{args}"


def stamp(extra: str = "") -> str:
    """When and where: ``2026-11-25 06:58 UTC, x86_64, Python 3.11.7`` plus ``extra``."""
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, Python {platform.python_version()}{extra}"


def publish(title: str, table: str, write: bool, path: Path = DOC) -> None:
    """Print the section, and with ``write`` put it in place of its old one."""
    print()
    print(table)
    if write:
        write_section(title, table, path)
        print(f"wrote the section to {path}")


def show(lines: list[str]) -> str:
    """Print the section's lines and return them as one text."""
    text = "\n".join(lines)
    print(text)
    return text


def finish(title: str, lines: list[str], write: bool, path: Path = DOC) -> None:
    """Print the section, and with ``write`` put it in place of its old one (as ``publish``, no blank line first)."""
    text = show(lines)
    if write:
        write_section(title, text, path)
        print(f"\nwritten to {path}")
