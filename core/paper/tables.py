"""The table model every format is written from: cells as printed, with their marks, and a caption.

A :class:`PaperTable` is neutral: :mod:`core.paper.latex` and :mod:`core.paper.formats` write it as
LaTeX (booktabs), Markdown or CSV. Numbers are printed by :func:`fmt` only, so every format shows the
same digits.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MISSING = "–"  # a cell without a value (the judge has no such metric)


def fmt(value: float, decimals: int) -> str:
    """``value`` to ``decimals`` places; a value that rounds to zero prints without a minus sign."""
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


@dataclass(frozen=True)
class Cell:
    """One printed cell: ``text`` is the number as printed (or ``–``, or ``(n=7)`` when too few pairs),
    ``value`` the exact number behind it (NaN when none), ``ci`` the printed bounds and ``ci_value`` the exact
    ones, ``n`` its pairs (or reports, comparisons: the table's unit)."""

    text: str
    value: float = math.nan
    bold: bool = False
    underline: bool = False
    dagger: bool = False
    wrong_sign: bool = False
    ci: tuple[str, str] | None = None
    ci_value: tuple[float, float] | None = None
    n: int | None = None


@dataclass(frozen=True)
class PaperTable:
    """A table in the papers' shape.

    ``name`` is the file stem (``correlations-score``); ``corner`` heads the row labels; ``columns`` are the
    printed headers and ``column_keys`` the names behind them (metric ids, categories); ``rows`` pairs a row
    label with its cells; ``caption`` is plain Unicode text (:func:`core.paper.latex.escape` turns its
    symbols into LaTeX); ``label`` is the LaTeX label; ``with_ci`` / ``with_n`` say whether cells print
    their CI and n. ``across`` names what the columns are (``Metric``) when they are all of one kind: such a
    matrix may be transposed or split by :mod:`core.paper.layout` to fit the page; empty for a table of
    records (a leaderboard), whose columns differ.
    """

    name: str
    corner: str
    columns: tuple[str, ...]
    column_keys: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Cell, ...]], ...]
    caption: str
    label: str
    with_ci: bool = False
    with_n: bool = False
    across: str = ""

    def cell(self, row: str, column_key: str) -> Cell:
        """The cell of row label ``row`` under the column named ``column_key``."""
        j = self.column_keys.index(column_key)
        for label, cells in self.rows:
            if label == row:
                return cells[j]
        raise KeyError(row)


def slug(text: str) -> str:
    """A file- and label-safe form of ``text`` (letters, digits, ``-``)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-").lower() or "x"


def count_words(n: int, one: str, many: str | None = None) -> str:
    """``1 pair`` / ``2,000 pairs``."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"
