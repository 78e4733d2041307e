"""A :class:`~core.paper.tables.PaperTable` as LaTeX: a ``table`` float with ``booktabs`` rules, ready to
``\\input``, or a whole document that compiles on its own (:func:`standalone`).

Marks: best ``\\textbf``, second best ``\\underline``, a dagger for p >= 0.01 and a double dagger for a
correlation against the metric's orientation; every name from the data is escaped (:func:`escape`).
"""

from __future__ import annotations

import re

from core.paper.tables import Cell, PaperTable

_SPECIALS = {"|τ|": r"$|\tau|$", "|ρ|": r"$|\rho|$", "|r|": r"$|r|$", "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"$\$$", "#": r"\#", "_": r"\_",
             "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
             "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
             "–": "--", "—": "---", "†": r"$\dagger$", "±": r"$\pm$", "≥": r"$\geq$", "×": r"$\times$",
             "·": r"$\cdot$", "τ": r"$\tau$", "ρ": r"$\rho$", "α": r"$\alpha$", "⚠": r"$\ddagger$",
             "\n": " ", "\r": " ", "\t": " "}
_SPECIAL_RE = re.compile("|".join(re.escape(k) for k in _SPECIALS))

PREAMBLE = (r"\documentclass{article}", r"\usepackage[utf8]{inputenc}", r"\usepackage{booktabs}",
            r"\usepackage{graphicx}", r"\usepackage[a4paper,margin=2.5cm]{geometry}")  # 16 cm of text


def escape(text: str) -> str:
    """``text`` safe in LaTeX text mode: the ten special characters replaced, and the symbols the captions
    use (τ, ρ, α, †, ⚠ as the wrong-sign double dagger, ≥, ×, dashes) written as LaTeX."""
    return _SPECIAL_RE.sub(lambda m: _SPECIALS[m.group(0)], str(text))


def _number(text: str) -> str:
    """A printed number in text mode: a leading minus as a math minus."""
    return f"$-${text[1:]}" if text.startswith("-") else escape(text)


def cell_latex(cell: Cell, with_ci: bool, with_n: bool, stacked: bool = False) -> str:
    """One cell: the number with its marks, then its CI and n (asked for), beside it or ``stacked`` under it."""
    out = _number(cell.text)
    if cell.bold:
        out = rf"\textbf{{{out}}}"
    elif cell.underline:
        out = rf"\underline{{{out}}}"
    if cell.dagger:
        out += r"$^{\dagger}$"
    if cell.wrong_sign:
        out += r"$^{\ddagger}$"
    parts = [out]
    if with_ci and cell.ci is not None:
        parts.append(f"[{_number(cell.ci[0])}, {_number(cell.ci[1])}]")
    if with_n and cell.n is not None and cell.value == cell.value:  # a value, not a dash
        parts.append(f"($n={cell.n}$)")
    return _lines(parts, "c") if stacked else " ".join(parts)


def _lines(lines, align: str, where: str = "t") -> str:
    """Lines (already LaTeX) stacked in one cell: a one-column tabular without side space, on one line."""
    lines = list(lines)  # joined by \\{}: a line that opens with "[" is then no optional argument of \\
    if len(lines) == 1:
        return lines[0]
    return rf"\begin{{tabular}}[{where}]{{@{{}}{align}@{{}}}}" + r"\\{}".join(lines) + r"\end{tabular}"


def _tabular(grid, with_ci: bool, with_n: bool, stacked: bool) -> list[str]:
    """One part as a booktabs tabular, wrapped in a \\resizebox that only ever shrinks it to the line."""
    from core.paper.layout import column_widths, header_lines, label_lines

    widths = column_widths(grid, with_ci, with_n, stacked)
    corner = _lines(map(escape, label_lines(grid.corner)), "l", "b")
    heads = [_lines(map(escape, header_lines(h, w)), "c", "b") for h, w in zip(grid.columns, widths[1:], strict=True)]
    lines = [r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
             rf"\begin{{tabular}}{{{'l' + 'c' * len(grid.columns)}}}", r"\toprule",
             " & ".join([corner, *heads]) + r" \\", r"\midrule"]
    for label, cells in grid.rows:
        lines.append(" & ".join([_lines(map(escape, label_lines(label)), "l"),
                                 *(cell_latex(c, with_ci, with_n, stacked) for c in cells)]) + r" \\")
    return [*lines, r"\bottomrule", r"\end{tabular}}"]


def _swap_rows_columns(caption: str) -> str:
    """A transposed table's caption: "per column" reads "per row", "(rows; ..." reads "(columns; ...", and back."""
    other = {"column": "row", "row": "column", "columns": "rows", "rows": "columns"}
    return re.sub(r"(per |\()(columns?|rows?)\b", lambda m: m.group(1) + other[m.group(2)], caption)


def to_latex(table: PaperTable) -> str:
    """The ``table`` float: caption, label, then its booktabs tabulars, laid out to fit the page
    (:func:`core.paper.layout.choose_layout`: transposed, CI stacked, split into parts, shrunk)."""
    from core.paper.layout import choose_layout

    layout = choose_layout(table)
    caption = _swap_rows_columns(table.caption) if layout.transposed else table.caption
    n_parts = sum(len(f) for f in layout.floats)
    if n_parts > 1:
        caption += (f" In {n_parts} parts to fit the page" + (", each with the rows that have a value in its columns"
                                                              if len(layout.parts) > 1 else "") + ".")
    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             rf"\caption{{{escape(caption)}}}", rf"\label{{{table.label}}}"]
    for i, grids in enumerate(layout.floats):
        if i:  # a float of its own, so that none is taller than the page
            lines += [r"\end{table}", "", r"\begin{table}[t]", r"\centering", r"\small",
                      rf"\textit{{Table \ref{{{table.label}}}, continued.}}\par\medskip"]
        for j, grid in enumerate(grids):
            if j:
                lines.append(r"\par\medskip")
            lines += _tabular(grid, table.with_ci, table.with_n, layout.stacked)
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def standalone(fragments: list[str]) -> str:
    """A whole document holding ``fragments`` (outputs of :func:`to_latex`): compiles with pdflatex."""
    return "\n".join([*PREAMBLE, r"\begin{document}", *fragments, r"\end{document}"]) + "\n"


def structure_problems(text: str) -> list[str]:
    """What is wrong with a LaTeX table's structure, checked without a compiler: balanced braces and
    environments, booktabs rules in order, every row with as many cells as the column spec, no unescaped
    ``_ % & # ~ ^`` outside commands. Empty when it looks right."""
    problems = []
    depth = slashes = 0
    for i, ch in enumerate(text):
        if ch in "{}" and slashes % 2 == 0:  # \{ is escaped, \\{ (a line break, then a group) is not
            depth += 1 if ch == "{" else -1
            if depth < 0:
                problems.append(f"unbalanced '}}' at character {i}")
                depth = 0
        slashes = slashes + 1 if ch == "\\" else 0
    if depth:
        problems.append(f"{depth} unclosed '{{'")
    begins, ends = re.findall(r"\\begin\{(\w+)\}", text), re.findall(r"\\end\{(\w+)\}", text)
    if sorted(begins) != sorted(ends):
        problems.append(f"environments begun {begins} but ended {ends}")
    rules = [m.group(1) for m in re.finditer(r"\\(toprule|midrule|bottomrule)", text)]
    if rules[:1] != ["toprule"] or rules[-1:] != ["bottomrule"]:
        problems.append(f"booktabs rules out of order: {rules}")
    flat = re.sub(r"\\begin\{tabular\}\[[tb]\]\{@\{\}[lc]@\{\}\}.*?\\end\{tabular\}", "x", text)  # stacked lines
    for body in re.findall(r"\\begin\{tabular\}\{([^}]*)\}(.*?)\\end\{tabular\}", flat, re.S):
        width = len(body[0])
        for line in body[1].splitlines():
            if line.endswith(r"\\"):
                cells = len(re.findall(r"(?<!\\)&", line)) + 1
                if cells != width:
                    problems.append(f"row with {cells} cells in a {width}-column tabular: {line[:60]}")
    stripped = re.sub(r"\\[A-Za-z]+|\\.|%$", "", text, flags=re.M)  # a % ending a line: no space there
    stripped = re.sub(r"\$[^$]*\$", "", stripped)
    for ch in "_%#~^":
        if ch in stripped:
            problems.append(f"unescaped '{ch}'")
    return problems
