"""core.store.export: CSV that spreadsheets never evaluate, and Parquet round trips."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest

from core.store.export import FORMULA_PREFIXES, neutralize_cell, to_parquet_bytes, to_safe_csv


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_every_formula_prefix_gets_an_apostrophe(prefix):
    cell = prefix + "HYPERLINK(\"http://x\",\"y\")"
    rows = _rows(to_safe_csv(pd.DataFrame({"text": [cell]})))
    assert rows == [["text"], ["'" + cell]]


def test_text_cells_without_a_prefix_and_numbers_are_untouched():
    df = pd.DataFrame({
        "judge": ["rules", "a=b", " =not first", "ünïcode †"],
        "tau": [-0.5, 0.25, np.nan, 1.0],
        "n": [10, -3, 0, 7],
        "ok": [True, False, True, False],
    })
    rows = _rows(to_safe_csv(df))
    assert rows[0] == ["judge", "tau", "n", "ok"]
    assert [r[0] for r in rows[1:]] == ["rules", "a=b", "' =not first", "ünïcode †"]  # after a space: a formula too
    # negative numbers stay numbers (no apostrophe), NaN is an empty cell
    assert [r[1] for r in rows[1:]] == ["-0.5", "0.25", "", "1.0"]
    assert [r[2] for r in rows[1:]] == ["10", "-3", "0", "7"]
    back = pd.read_csv(io.BytesIO(to_safe_csv(df)))
    assert back["tau"].tolist()[:2] == [-0.5, 0.25]
    assert back["n"].tolist() == [10, -3, 0, 7]


def test_mixed_object_column_changes_only_strings_and_column_names():
    df = pd.DataFrame({"-col": ["-1", 5, None, "@x"], "@": [1, 2, 3, 4]})
    rows = _rows(to_safe_csv(df))
    assert rows[0] == ["'-col", "'@"]
    assert [r[0] for r in rows[1:]] == ["'-1", "5", "", "'@x"]
    # the input is not modified
    assert df["-col"].tolist()[0] == "-1"


def test_multiline_text_and_quotes_survive_and_cr_cells_are_neutralized():
    df = pd.DataFrame({"t": ["line 1\nline 2, \"quoted\"", "\rcmd", "\tTAB"]})
    rows = _rows(to_safe_csv(df))
    assert rows[1] == ["line 1\nline 2, \"quoted\""]
    assert rows[2] == ["'\rcmd"] and rows[3] == ["'\tTAB"]


def test_category_and_pandas_string_columns_are_escaped():
    df = pd.DataFrame({"c": pd.Categorical(["=1+1", "ok"]), "s": pd.array(["+x", None], dtype="string")})
    rows = _rows(to_safe_csv(df))
    assert rows[1] == ["'=1+1", "'+x"]
    assert rows[2] == ["ok", ""]


def test_index_is_written_only_when_asked():
    df = pd.DataFrame({"v": [1, 2]}, index=pd.Index(["=a", "b"], name="judge"))
    assert _rows(to_safe_csv(df)) == [["v"], ["1"], ["2"]]
    assert _rows(to_safe_csv(df, index=True)) == [["judge", "v"], ["'=a", "1"], ["b", "2"]]


def test_neutralize_cell_leaves_non_strings_alone():
    assert neutralize_cell(-1) == -1
    assert neutralize_cell(None) is None
    assert neutralize_cell("=x") == "'=x"


def test_parquet_round_trip_keeps_types_and_text():
    df = pd.DataFrame({"judge": ["=rules", "lexical"], "tau": [0.5, -0.25], "n": [10, 20], 3: ["a", "b"]})
    back = pd.read_parquet(io.BytesIO(to_parquet_bytes(df)))
    assert list(back.columns) == ["judge", "tau", "n", "3"]
    assert back["judge"].tolist() == ["=rules", "lexical"]  # Parquet is data, not a spreadsheet
    assert back["tau"].tolist() == [0.5, -0.25]
    assert back["n"].dtype.kind == "i"
