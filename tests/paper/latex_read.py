"""Reading the paper tables' LaTeX back: every cell by its row label and column header, whatever the layout
(transposed, CI stacked under the number, split into parts, headers wrapped)."""

from __future__ import annotations

import re

STACKED = re.compile(r"\\begin\{tabular\}\[[tb]\]\{@\{\}[lc]@\{\}\}(.*?)\\end\{tabular\}")


def unstack(text: str) -> str:
    """Stacked lines of one cell joined by a space (none after a "/"), as the unstacked layout writes them."""
    return STACKED.sub(lambda m: m[1].replace("/" + r"\\{}", "/").replace(r"\\{}", " "), text)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)&", line.strip().removesuffix(r"\\").strip())]


def read_cells(tex: str) -> dict[tuple[str, str], str]:
    """(row label, column header) -> the cell's LaTeX, over every tabular of ``tex``."""
    out = {}
    for body in re.findall(r"\\begin\{tabular\}\{l c*\}(.*?)\\bottomrule".replace(" ", ""), tex, re.S):
        head, rows = unstack(body).split(r"\toprule")[1].split(r"\midrule")
        headers = _cells(head)[1:]
        for line in rows.strip().splitlines():
            label, *cells = _cells(line)
            for header, cell in zip(headers, cells, strict=True):
                assert (label, header) not in out, (label, header)
                out[label, header] = cell
    return out


def cell_at(cells: dict[tuple[str, str], str], row: str, column: str) -> str:
    """The cell of ``row`` and ``column`` in the table or in its transpose."""
    return cells[row, column] if (row, column) in cells else cells[column, row]
