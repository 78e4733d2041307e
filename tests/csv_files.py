"""Writing a test's CSV file as an annotation tool or a spreadsheet exports it."""

from __future__ import annotations

import csv
from pathlib import Path


def write_csv(path: Path, header: list[str], rows: list[list]) -> Path:
    """``header`` and ``rows`` as a UTF-8 CSV file at ``path`` (returned)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path
