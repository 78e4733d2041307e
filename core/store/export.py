"""Table exports for downloads: CSV that spreadsheets cannot execute, and Parquet.

A CSV cell that starts with ``=``, ``+``, ``-`` or ``@`` is read by Excel,
LibreOffice and Google Sheets as a formula, and a leading tab or carriage
return can smuggle one past a naive check ("CSV injection", OWASP); so can
leading spaces or line breaks (``" =1+1"``, ``"\n=1+1"``), which some
spreadsheets trim before they look. Report text, judge names and imported ids
are user data, so every exported text cell (and every column name) that
starts with a tab or carriage return, or, after any leading whitespace, with
one of those characters gets a leading apostrophe, which spreadsheets show as
text. Numbers are written as numbers: a negative tau stays ``-0.12``.

Pure functions, no Streamlit; pages call them inside ``st.download_button``.
"""

from __future__ import annotations

import io

import pandas as pd

__all__ = ["FORMULA_PREFIXES", "neutralize_cell", "safe_frame", "to_parquet_bytes", "to_safe_csv"]

#: First characters that make a spreadsheet evaluate (or hide) a cell.
FORMULA_PREFIXES: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_STARTS = ("=", "+", "-", "@")


def neutralize_cell(value: object) -> object:
    """``'`` + value for a string starting with a formula character, also after leading whitespace or
    line breaks (``" =1+1"``, ``"\n=1+1"``); anything else unchanged."""
    if isinstance(value, str) and (value.startswith(FORMULA_PREFIXES) or value.lstrip().startswith(_FORMULA_STARTS)):
        return "'" + value
    return value


def _is_text(series: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)
                or pd.api.types.is_datetime64_any_dtype(series) or pd.api.types.is_timedelta64_dtype(series))


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells and column names are neutralized (numbers untouched)."""
    out = df.copy()
    for col in out.columns:
        if _is_text(out[col]):
            # object/str/category columns: only the string cells change, numbers in them stay numbers
            out[col] = out[col].astype(object).map(neutralize_cell)
    out.columns = [neutralize_cell(str(c)) for c in out.columns]
    return out


def to_safe_csv(df: pd.DataFrame, *, index: bool = False) -> bytes:
    """UTF-8 CSV bytes of ``df`` with spreadsheet formulas neutralized.

    Parameters
    ----------
    df : DataFrame
        The table as shown. Text cells (and column names) starting with a
        tab or a carriage return, or with ``= + - @`` after any leading
        whitespace, are prefixed with ``'``; numeric, boolean and datetime
        columns are written as they are.
    index : bool
        Write the index as the first column (default False: reset it first
        when it carries data, e.g. ``table.reset_index()``).

    Returns
    -------
    bytes
        UTF-8 without a byte-order mark, CRLF line ends (RFC 4180; a
        field holding a CR or LF is then always quoted), quoting as needed.
    """
    frame = df.reset_index() if index else df
    return safe_frame(frame).to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def to_parquet_bytes(df: pd.DataFrame, *, index: bool = False) -> bytes:
    """Parquet bytes of ``df`` (pyarrow), types kept; no formula escaping (not a spreadsheet format)."""
    buf = io.BytesIO()
    frame = df.reset_index() if index else df
    # Parquet wants string column names.
    frame = frame.rename(columns={c: str(c) for c in frame.columns if not isinstance(c, str)})
    frame.to_parquet(buf, index=False, engine="pyarrow")
    return buf.getvalue()
