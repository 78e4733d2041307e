"""CSV formulas hidden behind leading whitespace or line breaks are neutralised too (issue 31, item 8):
``" =1+1"`` and ``"\\n=1+1"`` get the apostrophe, read back through a real CSV parser."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from core.store.export import neutralize_cell, to_safe_csv

HIDDEN_FORMULAS = [" =1+1", "\n=1+1", "\r\n=1+1", "  \t+SUM(A1:A9)", "\u00a0-2+3", "\u3000@cmd", " \n @x",
                   "\n\n=HYPERLINK(\"http://x\",\"y\")", "\v=1", "\f-1"]
TEXT = ["1 = 1", " a=b", "\nline one\n=not first", "  rules", "x-ray", "", " ", "\n"]


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


@pytest.mark.parametrize("cell", HIDDEN_FORMULAS)
def test_a_formula_after_leading_whitespace_or_line_breaks_is_neutralised(cell):
    assert neutralize_cell(cell) == "'" + cell
    rows = _rows(to_safe_csv(pd.DataFrame({"report": [cell], "tau": [-0.25]})))
    assert rows[1] == ["'" + cell, "-0.25"]  # the cell survives verbatim behind the apostrophe; numbers stay numbers


@pytest.mark.parametrize("cell", TEXT)
def test_text_that_is_no_formula_is_left_alone(cell):
    assert neutralize_cell(cell) == cell
    assert _rows(to_safe_csv(pd.DataFrame({"report": [cell, "x"]})))[1] == [cell]


def test_column_names_with_a_hidden_formula_are_neutralised():
    rows = _rows(to_safe_csv(pd.DataFrame({" =1+1": ["a"], "\n-x": ["b"], "ok": ["c"]})))
    assert rows[0] == ["' =1+1", "'\n-x", "ok"]
