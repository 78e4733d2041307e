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

PREAMBLE = (r"\documentclass{article}", r"\usepackage[utf8]{inputenc}",
            r"\usepackage{booktabs}", r"\usepackage[margin=2cm,landscape]{geometry}")


def escape(text: str) -> str:
    """``text`` safe in LaTeX text mode: the ten special characters replaced, and the symbols the captions
    use (τ, ρ, α, †, ⚠ as the wrong-sign double dagger, ≥, ×, dashes) written as LaTeX."""
    return _SPECIAL_RE.sub(lambda m: _SPECIALS[m.group(0)], str(text))


def _number(text: str) -> str:
    """A printed number in text mode: a leading minus as a math minus."""
    return f"$-${text[1:]}" if text.startswith("-") else escape(text)


def cell_latex(cell: Cell, with_ci: bool, with_n: bool) -> str:
    out = _number(cell.text)
    if cell.bold:
        out = rf"\textbf{{{out}}}"
    elif cell.underline:
        out = rf"\underline{{{out}}}"
    if cell.dagger:
        out += r"$^{\dagger}$"
    if cell.wrong_sign:
        out += r"$^{\ddagger}$"
    if with_ci and cell.ci is not None:
        out += f" [{_number(cell.ci[0])}, {_number(cell.ci[1])}]"
    if with_n and cell.n is not None and cell.value == cell.value:  # a value, not a dash
        out += f" ($n={cell.n}$)"
    return out


def to_latex(table: PaperTable) -> str:
    """The ``table`` float: caption, label, then a booktabs tabular (one ``l`` column, one ``c`` per column)."""
    spec = "l" + "c" * len(table.columns)
    head = " & ".join([escape(table.corner), *(escape(c) for c in table.columns)]) + r" \\"
    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             rf"\caption{{{escape(table.caption)}}}", rf"\label{{{table.label}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule", head, r"\midrule"]
    for label, cells in table.rows:
        lines.append(" & ".join([escape(label), *(cell_latex(c, table.with_ci, table.with_n) for c in cells)])
                     + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def standalone(fragments: list[str]) -> str:
    """A whole document holding ``fragments`` (outputs of :func:`to_latex`): compiles with pdflatex."""
    return "\n".join([*PREAMBLE, r"\begin{document}", *fragments, r"\end{document}"]) + "\n"


def structure_problems(text: str) -> list[str]:
    """What is wrong with a LaTeX table's structure, checked without a compiler: balanced braces and
    environments, booktabs rules in order, every row with as many cells as the column spec, no unescaped
    ``_ % & # ~ ^`` outside commands. Empty when it looks right."""
    problems = []
    depth = 0
    for i, ch in enumerate(text):
        if ch in "{}" and (i == 0 or text[i - 1] != "\\"):
            depth += 1 if ch == "{" else -1
            if depth < 0:
                problems.append(f"unbalanced '}}' at character {i}")
                depth = 0
    if depth:
        problems.append(f"{depth} unclosed '{{'")
    begins, ends = re.findall(r"\\begin\{(\w+)\}", text), re.findall(r"\\end\{(\w+)\}", text)
    if sorted(begins) != sorted(ends):
        problems.append(f"environments begun {begins} but ended {ends}")
    rules = [m.group(1) for m in re.finditer(r"\\(toprule|midrule|bottomrule)", text)]
    if rules[:1] != ["toprule"] or rules[-1:] != ["bottomrule"]:
        problems.append(f"booktabs rules out of order: {rules}")
    for body in re.findall(r"\\begin\{tabular\}\{([^}]*)\}(.*?)\\end\{tabular\}", text, re.S):
        width = len(body[0])
        for line in body[1].splitlines():
            if line.endswith(r"\\"):
                cells = len(re.findall(r"(?<!\\)&", line)) + 1
                if cells != width:
                    problems.append(f"row with {cells} cells in a {width}-column tabular: {line[:60]}")
    stripped = re.sub(r"\\[A-Za-z]+|\\.", "", text)
    stripped = re.sub(r"\$[^$]*\$", "", stripped)
    for ch in "_%#~^":
        if ch in stripped:
            problems.append(f"unescaped '{ch}'")
    return problems
