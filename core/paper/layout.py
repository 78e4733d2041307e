"""How a :class:`~core.paper.tables.PaperTable` is laid out in LaTeX so that it fits the page, chosen from
its content (the cells as printed), never by changing a number.

Widths are estimated from the metrics of Computer Modern at ``\\small`` (9 pt, as pdflatex sets the tables;
measured with ``\\settowidth``) against :data:`TEXT_WIDTH_PT`, 16 cm: A4 with 2.5 cm margins, the width of
the standalone ``tables.tex``. The rule, in order:

1. Headers wrap at spaces (and after ``/``) to their column's widest cell, at least :data:`HEADER_MIN_PT`;
   row labels wrap past :data:`LABEL_MAX_PT`. A long metric or judge name makes a taller header, not a
   wider table.
2. The first of these that fits: the table as built; transposed (a matrix table, whose columns are all
   of one kind: metrics, categories, judges); with each cell's CI and n stacked under its number;
   transposed and stacked. Failing that, the first that fits once shrunk to :data:`MIN_SCALE`.
3. Still too wide, a matrix table is split into parts of whole column families (columns with a value
   on the same rows: one judge's metrics), as many per part as fit, a family wider than the page in
   the fewest parts of about equal size; a part leaves out the rows it has no value for. The parts stack in one float under
   one caption and label. A table of records (the leaderboards) is never split.
4. Every tabular sits in a ``\\resizebox`` that only shrinks (``\\ifdim\\width>\\linewidth``): a table
   still wider than the line (a name of 100 letters, a narrower paper) is scaled to it, never cut or
   overfull.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from core.paper.tables import MISSING, Cell, PaperTable

TEXT_WIDTH_PT = 455.0   # 16 cm
TABCOLSEP_PT = 6.0      # LaTeX's \tabcolsep, both sides of every column
HEADER_MIN_PT = 36.0    # 4 em at \small: a header wraps no narrower than this
LABEL_MAX_PT = TEXT_WIDTH_PT / 4
TEXT_HEIGHT_PT = 700.0  # A4 with 2.5 cm margins: 24.7 cm; a float taller than this does not fit the page
LINE_PT = 11.0          # one line at \\small (its baselineskip)
RULES_PT = 12.0         # booktabs' three rules with their separation
CONTINUED_PT = 24.0     # the "Table N, continued" line of a later float, with its skip
MIN_SCALE = 0.85        # a layout this much wider than the page is shrunk rather than split (as papers do)
_BOLD = 1.17            # bold Computer Modern is about this much wider (measured over ASCII)
_WIDTHS = {ch: w for chars, w in (
    ("!',.:;<[]`il", 2.57), ("fj", 2.83), (" -", 3.08), ("I", 3.34), ("()t", 3.6), ("r", 3.62), ("s", 3.65),
    ("cez", 4.11), (">?", 4.37), ("\"*/0123456789ago–", 4.62), ("J", 4.75), ("kqvxy", 4.88), ("Sbdhnpu", 5.14),
    ("Z", 5.65), ("L", 5.78), ("F", 6.04), ("EP", 6.29), ("B", 6.55), ("CTw", 6.68), ("R", 6.81),
    ("AHNUVXY", 6.94), ("D", 7.07), ("+=@KOQ", 7.19), ("G", 7.26), ("m", 7.71), ("M", 8.48), ("|W—", 9.3))
    for ch in chars}
_OTHER = 5.5            # any other character (τ, ·, †, accented letters): a little wide, to be safe


def text_pt(text: str, bold: bool = False) -> float:
    """The width of ``text`` set in Computer Modern at ``\\small``, in points (an estimate)."""
    return sum(_WIDTHS.get(ch, _OTHER) for ch in text) * (_BOLD if bold else 1.0)


def wrap(text: str, width: float) -> tuple[str, ...]:
    """``text`` broken at spaces and after ``/`` into lines no wider than ``width`` where it can be (a word
    wider than ``width`` keeps its own line)."""
    pieces = []
    for i, word in enumerate(text.split()):
        for j, part in enumerate(re.split(r"(?<=/)(?=.)", word)):
            pieces.append((" " if i and not j else "", part))
    lines, line = [], ""
    for sep, part in pieces:
        joined = line + sep + part if line else part
        if line and text_pt(joined) > width:
            lines.append(line)
            line = part
        else:
            line = joined
    return (*lines, line) if line or not lines else tuple(lines)


def cell_parts(cell: Cell, with_ci: bool, with_n: bool) -> list[str]:
    """A cell as plain text pieces: the number with its marks, then the CI, then n (those asked for)."""
    parts = [cell.text + ("†" if cell.dagger else "") + ("‡" if cell.wrong_sign else "")]
    if with_ci and cell.ci is not None:
        parts.append(f"[{cell.ci[0]}, {cell.ci[1]}]")
    if with_n and cell.n is not None and cell.value == cell.value:  # a value, not a dash
        parts.append(f"(n={cell.n})")
    return parts


def is_empty(cell: Cell) -> bool:
    return cell.text == MISSING and math.isnan(cell.value)


@dataclass(frozen=True)
class Grid:
    """What one tabular shows: the corner, the column headers, and labelled rows of cells."""

    corner: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[Cell, ...]], ...]

    def select(self, columns: list[int], drop_empty: bool) -> Grid:
        rows = tuple((label, tuple(cells[j] for j in columns)) for label, cells in self.rows)
        if drop_empty:
            rows = tuple(r for r in rows if not all(is_empty(c) for c in r[1]))
        return Grid(self.corner, tuple(self.columns[j] for j in columns), rows)


@dataclass(frozen=True)
class Layout:
    """How :func:`core.paper.latex.to_latex` writes a table: transposed or not, CI and n stacked under the
    number or beside it, and the parts (one tabular each)."""

    transposed: bool
    stacked: bool
    parts: tuple[Grid, ...]
    floats: tuple[tuple[Grid, ...], ...] = ()


def grid_of(table: PaperTable, transposed: bool) -> Grid:
    if not transposed:
        return Grid(table.corner, table.columns, table.rows)
    rows = tuple((column, tuple(cells[j] for _, cells in table.rows)) for j, column in enumerate(table.columns))
    return Grid(table.across, tuple(label for label, _ in table.rows), rows)


def cell_widths(cell: Cell, with_ci: bool, with_n: bool, stacked: bool) -> list[float]:
    """The width of each line of a cell (only the number is bold)."""
    parts = cell_parts(cell, with_ci, with_n)
    widths = [text_pt(parts[0], cell.bold), *(text_pt(p) for p in parts[1:])]
    return widths if stacked else [sum(widths) + text_pt(" ") * (len(widths) - 1)]


def label_lines(label: str) -> tuple[str, ...]:
    return wrap(label, LABEL_MAX_PT)


def column_widths(grid: Grid, with_ci: bool, with_n: bool, stacked: bool) -> list[float]:
    """The content width of each column, the row labels' first, in points (without \\tabcolsep)."""
    labels = [text_pt(line) for label, _ in grid.rows for line in label_lines(label)]
    widths = [max([*labels, *(text_pt(x) for x in label_lines(grid.corner))])]
    for j, header in enumerate(grid.columns):
        body = max([w for _, cells in grid.rows for w in cell_widths(cells[j], with_ci, with_n, stacked)],
                   default=0.0)
        head = max(text_pt(line) for line in header_lines(header, body))
        widths.append(max(body, head))
    return widths


def header_lines(header: str, body_pt: float) -> tuple[str, ...]:
    """A header wrapped to its column's widest cell (at least :data:`HEADER_MIN_PT`)."""
    return wrap(header, max(body_pt, HEADER_MIN_PT))


def width_pt(grid: Grid, with_ci: bool, with_n: bool, stacked: bool) -> float:
    widths = column_widths(grid, with_ci, with_n, stacked)
    return sum(widths) + 2 * TABCOLSEP_PT * len(widths)


def height_pt(grid: Grid, with_ci: bool, with_n: bool, stacked: bool) -> float:
    """The height of a part's tabular: a line is :data:`LINE_PT`, the three booktabs rules :data:`RULES_PT`."""
    widths = column_widths(grid, with_ci, with_n, stacked)
    head = max([len(label_lines(grid.corner)), *(len(header_lines(h, w)) for h, w in zip(grid.columns, widths[1:],
                                                                                        strict=True))])
    body = sum(max(len(label_lines(label)), *((len(cell_parts(c, with_ci, with_n)) for c in cells) if stacked
                                                 else [1])) for label, cells in grid.rows)
    return (head + body) * LINE_PT + RULES_PT


def caption_pt(caption: str) -> float:
    """The height of a caption set across :data:`TEXT_WIDTH_PT`, with its skip."""
    return (math.ceil(text_pt(caption) / (TEXT_WIDTH_PT - 20)) + 1) * LINE_PT + 10


def pages(parts: tuple[Grid, ...], caption: str, fits_height) -> tuple[tuple[Grid, ...], ...]:
    """Parts grouped into floats no taller than the page: a part taller than a page in row chunks under its
    header, then as many parts per float as fit (the first float also holds the caption)."""
    chunks: list[Grid] = []
    for part in parts:
        rows: list = []
        for row in part.rows:
            if rows and not fits_height(Grid(part.corner, part.columns, (*rows, row)), caption_pt(caption)):
                chunks.append(Grid(part.corner, part.columns, tuple(rows)))
                rows = []
            rows.append(row)
        chunks.append(Grid(part.corner, part.columns, tuple(rows)))
    floats: list[list[Grid]] = []
    for chunk in chunks:
        room = caption_pt(caption) if len(floats) <= 1 else CONTINUED_PT
        if floats and fits_height(floats[-1] + [chunk], room):
            floats[-1].append(chunk)
        else:
            floats.append([chunk])
    return tuple(tuple(f) for f in floats)


def _families(grid: Grid) -> list[list[int]]:
    """Columns grouped by the rows they have a value on, in the order of their first column."""
    groups: dict[tuple[bool, ...], list[int]] = {}
    for j in range(len(grid.columns)):
        groups.setdefault(tuple(not is_empty(cells[j]) for _, cells in grid.rows), []).append(j)
    return sorted(groups.values(), key=lambda g: g[0])


def split(grid: Grid, fits) -> tuple[Grid, ...]:
    """``grid`` in parts of whole column families, as many per part as ``fits``; a family too wide for one
    part goes into the fewest parts of about equal size that fit, alone."""
    parts: list[list[int]] = []
    for family in _families(grid):
        if parts and fits(grid.select(parts[-1] + family, True)):
            parts[-1] = parts[-1] + family
            continue
        for k in range(1, len(family) + 1):
            size = -(-len(family) // k)
            chunks = [family[i:i + size] for i in range(0, len(family), size)]
            if all(fits(grid.select(c, True)) for c in chunks) or size == 1:
                break
        parts += chunks if len(chunks) == 1 else [*chunks, []]  # [] closes a family cut in parts
    return tuple(grid.select(p, True) for p in parts if p)


def choose_layout(table: PaperTable) -> Layout:
    """The layout of ``table`` by the rule in this module's docstring."""
    ci, n = table.with_ci, table.with_n
    layout = _columns_layout(table)

    def fits_height(grids, room: float) -> bool:
        if isinstance(grids, Grid):
            grids = [grids]
        return room + sum(height_pt(g, ci, n, layout.stacked) + LINE_PT for g in grids) <= TEXT_HEIGHT_PT

    return Layout(layout.transposed, layout.stacked, layout.parts, pages(layout.parts, table.caption, fits_height))


def _columns_layout(table: PaperTable) -> Layout:
    """Orientation, stacking and column parts: the width half of the rule."""
    ci, n = table.with_ci, table.with_n
    options = [(t, s) for s in (False, True) for t in (False, True)
               if (not t or table.across) and (not s or ci or n)]
    widths = {o: width_pt(grid_of(table, o[0]), ci, n, o[1]) for o in options}
    for limit in (TEXT_WIDTH_PT, TEXT_WIDTH_PT / MIN_SCALE):
        for o in options:
            if widths[o] <= limit:
                return Layout(o[0], o[1], (grid_of(table, o[0]),))
    if not table.across:  # records: the narrowest, shrunk to the line
        t, s = min(options, key=widths.__getitem__)
        return Layout(t, s, (grid_of(table, t),))
    best = None
    for t, s in options:
        parts = split(grid_of(table, t), lambda g, s=s: width_pt(g, ci, n, s) <= TEXT_WIDTH_PT)
        if best is None or len(parts) < len(best.parts):
            best = Layout(t, s, parts)
    return best
