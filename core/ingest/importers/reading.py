"""Reading a file: its bytes and their text (:func:`read_bytes`, :func:`decode_text`, used by every importer),
and a CSV/TSV/JSONL/Parquet table as a frame, refusing what no store can hold; column checks."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from core.ingest.importers.common import ImportValidationError, limit_problems

_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".json": "jsonl", ".parquet": "parquet", ".pq": "parquet"}


def _format_of(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix not in _FORMATS:
        raise ImportValidationError(
            [f"cannot tell the format of '{name}': use one of {', '.join(sorted(_FORMATS))}"]
        )
    return _FORMATS[suffix]


def read_bytes(source: str | os.PathLike | bytes | bytearray | BinaryIO, name: str | None = None,
               what: str = "file") -> tuple[bytes, str | None]:
    """The bytes of a file and its name: every importer reads its input through this one function.

    ``source``: a path, bytes, or a binary file (an upload); ``name`` overrides the file's own name (it
    tells the format and names the file in messages). ``what`` names the file when it is not found
    (``"ids file"``). Returns ``(data, name)``; ``name`` is ``None`` for bytes given without one.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ImportValidationError([f"{what} not found: {path}"])
        return path.read_bytes(), name or path.name
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), name
    return source.read(), name or getattr(source, "name", None)


def decode_text(data: bytes, name: str | None = None) -> str:
    """Bytes -> text: UTF-8 (with or without its BOM) or UTF-16 with a BOM; nothing guessed.

    UTF-32, invalid UTF-8 and NUL bytes (UTF-16 without a BOM, binary data) are refused with the reason,
    naming the file when ``name`` is given.
    """
    label = f"'{name}'" if name else "file"
    if data.startswith(b"\xff\xfe\x00\x00") or data.startswith(b"\x00\x00\xfe\xff"):
        raise ImportValidationError([f"{label} is UTF-32 text; save it as UTF-8 (or UTF-16 with a BOM) and "
                                     "import again"])
    if data.startswith(b"\xff\xfe") or data.startswith(b"\xfe\xff"):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ImportValidationError([f"{label} has a UTF-16 mark but is not valid UTF-16: {exc}"]) from exc
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ImportValidationError(
                [f"{label} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                 "save it as UTF-8 and import again"]
            ) from exc
    if "\x00" in text:
        raise ImportValidationError([f"{label} contains a NUL byte at character {text.index(chr(0))} (UTF-16 "
                                     "without a byte-order mark? save it as UTF-8 and import again)"])
    return text


def read_table(source: str | os.PathLike | bytes | BinaryIO | pd.DataFrame, name: str | None = None) -> pd.DataFrame:
    """Read a CSV, TSV, JSONL or Parquet file into a DataFrame.

    Text formats are read with every column as text (no type guessing: ids such
    as ``007`` stay as written); empty cells become ``None``.
    """
    if isinstance(source, pd.DataFrame):
        return _check_cells(source.copy())
    data, name = read_bytes(source, name)
    if not name:
        raise ImportValidationError(["give the file name so its format is known"])
    fmt = _format_of(name)
    if not data.strip():
        raise ImportValidationError([f"'{name}' is empty"])
    if fmt == "parquet":
        try:
            df = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # pyarrow raises many types; all mean "not a parquet file"
            raise ImportValidationError([f"'{name}' is not a readable Parquet file: {exc}"]) from exc
        return _check_cells(_clean_frame(df))
    text = decode_text(data, name)
    if fmt == "jsonl":  # JSON escapes can spell a NUL or half a surrogate pair; CSV text cannot
        return _check_cells(_clean_frame(_read_jsonl(text, name)))
    sep = "\t" if fmt == "tsv" else ","
    try:
        df = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False,
                         na_values=[], engine="python" if sep == "\t" else "c")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise ImportValidationError([f"'{name}' is not a readable {fmt.upper()} file: {exc}"]) from exc
    df = df.replace({"": None})
    return _clean_frame(df)


_TOO_DEEP = "JSON nested too deeply to read (a record is one flat object of fields)"


def _read_jsonl(text: str, name: str) -> pd.DataFrame:
    stripped = text.lstrip()
    if stripped.startswith("["):  # a JSON array of records is accepted too
        try:
            records = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ImportValidationError([f"'{name}': invalid JSON: {exc}"]) from exc
        except RecursionError as exc:
            raise ImportValidationError([f"'{name}': {_TOO_DEEP}"]) from exc
        if not isinstance(records, list):
            raise ImportValidationError([f"'{name}': expected a JSON array of objects"])
        wrong = [f"record {i}: expected a JSON object, got {type(r).__name__}"
                 for i, r in enumerate(records, start=1) if not isinstance(r, dict)]
        if wrong:
            raise ImportValidationError(limit_problems(wrong))
    else:
        records = []
        problems = []
        for lineno, line in enumerate(text.split("\n"), start=1):  # not splitlines: U+2028 is text in JSON
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"line {lineno}: invalid JSON ({exc.msg})")
                continue
            except RecursionError:
                problems.append(f"line {lineno}: {_TOO_DEEP}")
                continue
            if not isinstance(rec, dict):
                problems.append(f"line {lineno}: expected a JSON object, got {type(rec).__name__}")
                continue
            records.append(rec)
        if problems:
            raise ImportValidationError(problems)
    if not records:
        raise ImportValidationError([f"'{name}' holds no records"])
    bad = [f"record {i}: field '{_printable(k)}' holds {why}" for i, rec in enumerate(records, start=1)
           for k, v in rec.items() if (why := _bad_text(str(k)) or (_bad_text(v) if isinstance(v, str) else None))]
    if bad:  # checked before pandas sees them: its string arrays refuse half surrogates with a crash
        raise ImportValidationError(limit_problems(bad))
    return pd.DataFrame.from_records(records)


def _clean_frame(df: pd.DataFrame) -> pd.DataFrame:
    df.columns = [str(c).strip() for c in df.columns]
    dupes = sorted({c for c in df.columns if list(df.columns).count(c) > 1})
    if dupes:
        raise ImportValidationError([f"column name(s) repeated in the header: {', '.join(dupes)}"])
    if df.empty:
        raise ImportValidationError(["the file has a header but no rows"])
    return df.reset_index(drop=True)


def _bad_text(value: str) -> str | None:
    if "\x00" in value:
        return "a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "an invalid character (half of a UTF-16 surrogate pair)"
    return None


def _check_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Refuse text no store can hold faithfully: NUL characters and lone surrogates (cells and names)."""
    problems = [f"column name {c!r} holds {why}" for c in df.columns if (why := _bad_text(str(c)))]
    for col in df.columns:
        if pd.api.types.is_numeric_dtype(df[col]) or pd.api.types.is_bool_dtype(df[col]):
            continue
        for i, v in enumerate(df[col].tolist(), start=1):
            if isinstance(v, str) and (why := _bad_text(v)):
                problems.append(f"row {i}: column '{_printable(col)}' holds {why}")
    if problems:
        raise ImportValidationError(limit_problems(problems))
    return df


def _printable(name: object) -> str:
    return str(name).encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")


_CONTAINERS = (list, tuple, dict, set, bytes, bytearray)


def check_scalar_cells(df: pd.DataFrame, cols: list[str | None], problems: list[str]) -> None:
    """A cell holding a list, an object or raw bytes is not an id, a text or a number: say so."""
    for col in cols:
        if col is None:
            continue
        for i, v in enumerate(df[col].tolist(), start=1):
            if isinstance(v, _CONTAINERS) or (hasattr(v, "ndim") and getattr(v, "ndim", 0) > 0):
                kind = "bytes" if isinstance(v, (bytes, bytearray)) else type(v).__name__
                problems.append(f"row {i}: column '{col}' holds a {kind}, expected text or a number")


def require_columns(df: pd.DataFrame, needed: dict[str, str | None]) -> None:
    """Refuse a table missing any named column (``needed``: role -> column, None: not asked for).

    Every missing column is named with its role; the file's columns are listed once, after them.
    """
    missing = [f"column '{col}' ({role}) not found" for role, col in needed.items()
               if col is not None and col not in df.columns]
    if missing:
        raise ImportValidationError([*missing, f"the file's columns are: {', '.join(map(str, df.columns))}"])
