"""A :class:`~core.paper.tables.PaperTable` as Markdown (the papers' shape, as the CLI's ``--table`` prints it)
or CSV (one row per cell, every mark and number behind it, spreadsheet formulas neutralised)."""

from __future__ import annotations

import math

import pandas as pd

from core.paper.tables import Cell, PaperTable
from core.store.export import to_safe_csv

FORMATS = ("latex", "markdown", "csv")
SUFFIX = {"latex": ".tex", "markdown": ".md", "csv": ".csv"}


def _md(text: str) -> str:
    return str(text).replace("|", "\\|")


def cell_markdown(cell: Cell, with_ci: bool, with_n: bool) -> str:
    out = cell.text
    if cell.bold:
        out = f"**{out}**"
    elif cell.underline:
        out = f"<u>{out}</u>"
    out += ("†" if cell.dagger else "") + (" ⚠" if cell.wrong_sign else "")
    if with_ci and cell.ci is not None:
        out += f" [{cell.ci[0]}, {cell.ci[1]}]"
    if with_n and cell.n is not None and not math.isnan(cell.value):
        out += f" (n={cell.n})"
    return _md(out)


def to_markdown(table: PaperTable) -> str:
    """A pipe table with **bold** best and <u>underlined</u> second best, then the caption as a paragraph."""
    lines = ["| " + " | ".join([_md(table.corner), *map(_md, table.columns)]) + " |",
             "|" + " --- |" * (len(table.columns) + 1)]
    for label, cells in table.rows:
        lines.append("| " + " | ".join([_md(label), *(cell_markdown(c, table.with_ci, table.with_n)
                                                      for c in cells)]) + " |")
    return "\n".join(lines) + f"\n\n{table.caption}\n"  # a paragraph: its pipes need no escape


def to_frame(table: PaperTable) -> pd.DataFrame:
    """One row per cell that holds something: row, column (its key and header), the printed text, the exact value, its marks,
    the CI as printed and its exact bounds, and n."""
    records = []
    for label, cells in table.rows:
        for key, header, cell in zip(table.column_keys, table.columns, cells, strict=True):
            if cell.text == "–" and cell.n is None:  # no value here (the judge has no such metric)
                continue
            records.append({"table": table.name, "row": label, "column": key, "header": header,
                            "printed": cell.text, "value": cell.value, "bold": cell.bold,
                            "underline": cell.underline, "dagger": cell.dagger, "wrong_sign": cell.wrong_sign,
                            "ci": f"[{cell.ci[0]}, {cell.ci[1]}]" if cell.ci else None,
                            "ci_low": cell.ci_value[0] if cell.ci_value else None,
                            "ci_high": cell.ci_value[1] if cell.ci_value else None, "n": cell.n})
    return pd.DataFrame.from_records(records, columns=["table", "row", "column", "header", "printed", "value",
                                                       "bold", "underline", "dagger", "wrong_sign", "ci",
                                                       "ci_low", "ci_high", "n"])


def to_csv(table: PaperTable) -> bytes:
    """:func:`to_frame` as CSV bytes (values to 15 significant digits, formulas neutralised)."""
    return to_safe_csv(to_frame(table))


def render(table: PaperTable, form: str) -> bytes:
    """``table`` in ``form`` (latex, markdown or csv) as UTF-8 bytes."""
    from core.paper.latex import to_latex

    if form == "latex":
        return to_latex(table).encode("utf-8")
    if form == "markdown":
        return to_markdown(table).encode("utf-8")
    if form == "csv":
        return to_csv(table)
    raise ValueError(f"unknown format {form!r}; valid: {', '.join(FORMATS)}")
