"""Importers: files (CSV/TSV/JSONL/Parquet) -> validated frames -> one store transaction.

Every importer works in three stages: read the file, validate every row and
collect *all* problems (so the user fixes them in one pass), then write in a
single transaction. A file with any problem writes nothing
(``ImportValidationError`` lists the problems). Re-importing the same file adds
nothing: rows already in the store with the same content are counted as
``skipped``; rows whose key exists with different content are a problem.

Row numbers in messages count data rows from 1 (the header is not a row), so
"row 3" is the third record of the file.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd

from core.analysis import same_text_sql
from core.store import (
    Store,
    content_hash_for,
    insert_metric_values,
    new_pair_numbers,
    pair_id_for,
    stable_hash,
)

Progress = Callable[[int, int, str], None]
CATEGORIES = ("a", "b", "c", "d", "e", "f")
# No report has a thousand errors of one kind and significance: a larger count is a typo or a
# column mix-up (an id, a timestamp), and would dominate every mean and plot it entered.
MAX_ERROR_COUNT = 1000
DATASET_KINDS = ("score", "error_counts", "preference", "edit_review")
MAX_PROBLEMS_SHOWN = 50
_CHUNK = 20_000  # rows per progress tick when writing large files


class ImportValidationError(ValueError):
    """The input cannot be imported; ``problems`` says every reason found."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        shown = self.problems[:5]
        more = len(self.problems) - len(shown)
        text = "; ".join(shown) + (f"; and {more} more problem(s)" if more > 0 else "")
        super().__init__(text)


@dataclass
class ImportReport:
    dataset: str
    rows: int
    added: int
    skipped: int
    warnings: list[str] = field(default_factory=list)
    run_id: str | None = None

    def to_json(self) -> dict:
        return {
            "dataset": self.dataset,
            "rows": self.rows,
            "added": self.added,
            "skipped": self.skipped,
            "warnings": self.warnings,
            "run_id": self.run_id,
        }


@dataclass(frozen=True)
class PairColumns:
    """Which file column holds each pair field (None: not in the file)."""

    id: str
    reference: str
    candidate: str
    group: str | None = None
    system: str | None = None
    modality: str | None = None
    anatomy: str | None = None
    split: str | None = None


# -- reading -----------------------------------------------------------------

_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".json": "jsonl", ".parquet": "parquet", ".pq": "parquet"}


def _format_of(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix not in _FORMATS:
        raise ImportValidationError(
            [f"cannot tell the format of '{name}': use one of {', '.join(sorted(_FORMATS))}"]
        )
    return _FORMATS[suffix]


def _decode(data: bytes) -> str:
    """Bytes -> text. UTF-8 (with or without BOM) or UTF-16 with a BOM; nothing guessed."""
    if data.startswith(b"\xff\xfe\x00\x00") or data.startswith(b"\x00\x00\xfe\xff"):
        raise ImportValidationError(["file is UTF-32 text; save it as UTF-8 (or UTF-16 with a BOM) and import again"])
    if data.startswith(b"\xff\xfe") or data.startswith(b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ImportValidationError([f"file has a UTF-16 mark but is not valid UTF-16: {exc}"]) from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportValidationError(
            [f"file is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
             "save it as UTF-8 and import again"]
        ) from exc
    if "\x00" in text:
        raise ImportValidationError([f"file contains a NUL byte at character {text.index(chr(0))} (UTF-16 without "
                                     "a byte-order mark? save it as UTF-8 and import again)"])
    return text


def read_table(source: str | os.PathLike | bytes | BinaryIO | pd.DataFrame, name: str | None = None) -> pd.DataFrame:
    """Read a CSV, TSV, JSONL or Parquet file into a DataFrame.

    Text formats are read with every column as text (no type guessing: ids such
    as ``007`` stay as written); empty cells become ``None``.
    """
    if isinstance(source, pd.DataFrame):
        return _check_cells(source.copy())
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        name = name or path.name
        if not path.exists():
            raise ImportValidationError([f"file not found: {path}"])
        data = path.read_bytes()
    elif isinstance(source, bytes):
        data = source
    else:
        data = source.read()
        name = name or getattr(source, "name", None)
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
    text = _decode(data)
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
            raise ImportValidationError(_limit(wrong))
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
        raise ImportValidationError(_limit(bad))
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
        raise ImportValidationError(_limit(problems))
    return df


def _printable(name: object) -> str:
    return str(name).encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")


_CONTAINERS = (list, tuple, dict, set, bytes, bytearray)


def _scalar_cells(df: pd.DataFrame, cols: list[str | None], problems: list[str]) -> None:
    """A cell holding a list, an object or raw bytes is not an id, a text or a number: say so."""
    for col in cols:
        if col is None:
            continue
        for i, v in enumerate(df[col].tolist(), start=1):
            if isinstance(v, _CONTAINERS) or (hasattr(v, "ndim") and getattr(v, "ndim", 0) > 0):
                kind = "bytes" if isinstance(v, (bytes, bytearray)) else type(v).__name__
                problems.append(f"row {i}: column '{col}' holds a {kind}, expected text or a number")


def _require_columns(df: pd.DataFrame, needed: dict[str, str | None]) -> None:
    problems = []
    for role, col in needed.items():
        if col is None:
            continue
        if col not in df.columns:
            problems.append(
                f"column '{col}' ({role}) not found; columns are: {', '.join(map(str, df.columns))}"
            )
    if problems:
        raise ImportValidationError(problems)


# -- cell helpers -------------------------------------------------------------

def _text(value) -> str | None:
    """A cell as text, or None when empty/missing."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def _ids(df: pd.DataFrame, col: str, problems: list[str]) -> list[str | None]:
    ids = [_text(v) for v in df[col].tolist()]
    for i, v in enumerate(ids, start=1):
        if v is None:
            problems.append(f"row {i}: empty id in column '{col}'")
    return ids


def _duplicates(keys: list, label: str, problems: list[str]) -> None:
    first: dict = {}
    reported: set = set()
    for i, key in enumerate(keys, start=1):
        if key is None:
            continue
        if key in first and key not in reported:
            shown = key if isinstance(key, str) else " / ".join(str(k) for k in key)
            problems.append(f"duplicate {label} '{shown}' on rows {first[key]} and {i}")
            reported.add(key)
        first.setdefault(key, i)


def _number(value) -> float | None:
    text = _text(value)
    if text is None:
        return None
    try:
        number = float(text)
    except ValueError:
        return math.nan
    return number


_TRUE = {"1", "true", "t", "yes", "y", "significant", "sig", "clinically significant"}
_FALSE = {"0", "false", "f", "no", "n", "insignificant", "insig", "not significant",
          "clinically insignificant"}


def _bool(value) -> bool | None:
    if isinstance(value, bool):
        return value
    text = _text(value)
    if text is None:
        return None
    low = text.lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    return None


def _category(value) -> str | None:
    """'a'..'f', 'A', '(b)', '3', 3.0 -> a letter; anything else -> None."""
    text = _text(value)
    if text is None:
        return None
    text = text.strip("() .").lower()
    if text in CATEGORIES:
        return text
    if text.isdigit() and 1 <= int(text) <= 6:
        return CATEGORIES[int(text) - 1]
    return None


def _tick(progress: Progress | None, done: int, total: int, stage: str) -> None:
    if progress is not None:
        progress(done, total, stage)


def _limit(problems: list[str]) -> list[str]:
    if len(problems) > MAX_PROBLEMS_SHOWN:
        extra = len(problems) - MAX_PROBLEMS_SHOWN
        return problems[:MAX_PROBLEMS_SHOWN] + [f"... {extra} more problem(s) not shown"]
    return problems


# -- datasets ----------------------------------------------------------------

def _check_dataset_name(dataset: str) -> str:
    name = (dataset or "").strip()
    if not name:
        raise ImportValidationError(["give a dataset name"])
    if len(name) > 200:
        raise ImportValidationError(["dataset name longer than 200 characters"])
    return name


def _existing_dataset(conn, dataset: str):
    return conn.execute("SELECT kind, synthetic FROM datasets WHERE name = ?", [dataset]).fetchone()


def _require_dataset(store: Store, dataset: str) -> None:
    if store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]) == 0:
        known = store.query_df("SELECT name FROM datasets ORDER BY name")["name"].tolist()
        raise ImportValidationError(
            [f"dataset '{dataset}' not found; import its pairs first (datasets: {', '.join(known) or 'none'})"]
        )


def _pair_lookup(store: Store, dataset: str) -> dict[str, str]:
    """ext_id -> pair_id for one dataset."""
    df = store.query_df("SELECT ext_id, pair_id FROM pairs WHERE dataset = ?", [dataset])
    return dict(zip(df["ext_id"], df["pair_id"], strict=True))


def _match_ids(ids: list[str | None], lookup: dict[str, str], dataset: str, problems: list[str]) -> list:
    missing = [(i, v) for i, v in enumerate(ids, start=1) if v is not None and v not in lookup]
    if missing:
        file_examples = list(dict.fromkeys(v for _, v in missing))[:3]
        stored = sorted(lookup)[:3]
        given = ", ".join(repr(v) for v in file_examples)
        problems.append(
            f"{len(missing):,} of {len(ids):,} ids are not pairs of dataset '{dataset}': the file's ids look like "
            f"{given}; the dataset's look like {', '.join(repr(v) for v in stored) or '(it has no pairs)'}")
        problems.extend(f"row {i}: id '{v}' is not a pair of dataset '{dataset}'" for i, v in missing[:4])
    return [lookup.get(v) if v is not None else None for v in ids]


# -- pairs -------------------------------------------------------------------

def import_pairs(store: Store, data, *, dataset: str, columns: PairColumns, kind: str = "score",
                 source: str | None = None, synthetic: bool = False, license: str | None = None,
                 name: str | None = None, progress: Progress | None = None) -> ImportReport:
    """Import reference/candidate pairs into ``dataset`` (created if new).

    The pair id is a stable hash of (dataset, external id), so the same file
    imported twice maps onto the same rows.
    """
    dataset = _check_dataset_name(dataset)
    _tick(progress, 0, 3, "reading")
    df = read_table(data, name)
    _tick(progress, 1, 3, "validating")
    frame = prepare_pairs(df, dataset, columns)
    _tick(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_pairs(conn, frame, dataset=dataset, kind=kind,
                            source=source or name or _source_label(data), license=license,
                            synthetic=synthetic)
    _tick(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)


def import_scored_pairs(store: Store, data, *, dataset: str, columns: PairColumns, score_col: str,
                        scale_max: float = 5.0, annotator: str = "expert", kind: str = "score",
                        source: str | None = None, name: str | None = None,
                        progress: Progress | None = None) -> ImportReport:
    """Pairs and one expert score per pair from the same file, in one transaction: every problem of either
    is reported before anything is written (as the ``rate-eval`` preset does for its own layout)."""
    dataset = _check_dataset_name(dataset)
    _tick(progress, 0, 3, "reading")
    df = read_table(data, name)
    _tick(progress, 1, 3, "validating")
    frame = prepare_pairs(df, dataset, columns)
    lookup = dict(zip(frame["ext_id"], frame["pair_id"], strict=True))
    label = source or name or _source_label(data)
    ann = prepare_annotations(df, dataset, lookup, id_col=columns.id, score_col=score_col, scale_max=scale_max,
                              annotator=annotator, source=label)
    _tick(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_pairs(conn, frame, dataset=dataset, kind=kind, source=label)
        write_annotations(conn, ann)
    _tick(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)


def prepare_pairs(df: pd.DataFrame, dataset: str, columns: PairColumns) -> pd.DataFrame:
    """Validate a pairs table and shape it as rows of the ``pairs`` table."""
    c = columns
    _require_columns(df, {"id": c.id, "reference": c.reference, "candidate": c.candidate, "group": c.group,
                          "system": c.system, "modality": c.modality, "anatomy": c.anatomy, "split": c.split})
    problems: list[str] = []
    _scalar_cells(df, [c.id, c.reference, c.candidate, c.group, c.system, c.modality, c.anatomy, c.split],
                  problems)
    if problems:
        raise ImportValidationError(_limit(problems))
    ids = _ids(df, c.id, problems)
    _duplicates(ids, "id", problems)
    raw_refs = df[c.reference].tolist()
    raw_cands = df[c.candidate].tolist()
    for i, (r, k) in enumerate(zip(raw_refs, raw_cands, strict=True), start=1):
        if _text(r) is None:
            problems.append(f"row {i}: empty reference in column '{c.reference}'")
        if _text(k) is None:
            problems.append(f"row {i}: empty candidate in column '{c.candidate}'")
    if problems:
        raise ImportValidationError(_limit(problems))

    def optional(col):
        return [None] * len(df) if col is None else [_text(v) for v in df[col].tolist()]

    # Report text is kept exactly as given; only ids and facet cells are trimmed.
    refs = [str(v) for v in raw_refs]
    cands = [str(v) for v in raw_cands]
    frame = pd.DataFrame({
        "pair_id": [pair_id_for(dataset, v) for v in ids],
        "dataset": dataset,
        "ext_id": ids,
        "reference": refs,
        "candidate": cands,
        "group_id": optional(c.group),
        "system": optional(c.system),
        "modality": optional(c.modality),
        "anatomy": optional(c.anatomy),
        "split": optional(c.split),
    })
    used = {v for v in vars(c).values() if v}
    extra_cols = [col for col in df.columns if col not in used]
    if extra_cols:
        frame["meta"] = [json.dumps({k: _text(v) for k, v in row.items()}, ensure_ascii=False)
                         for row in df[extra_cols].to_dict("records")]
    else:
        frame["meta"] = None
    frame["content_hash"] = [content_hash_for(r, k) for r, k in zip(refs, cands, strict=True)]
    return frame


def write_pairs(conn, frame: pd.DataFrame, *, dataset: str, kind: str, source: str | None = None,
                license: str | None = None, synthetic: bool = False) -> int:
    """Inside an open write transaction: create the dataset if new, add new pairs.

    Returns the number of pairs added. Pairs already stored with the same text
    are skipped; the same id with different text is refused.
    """
    if kind not in DATASET_KINDS:
        raise ImportValidationError([f"dataset kind '{kind}' unknown; kinds are: {', '.join(DATASET_KINDS)}"])
    existing = _existing_dataset(conn, dataset)
    if existing is not None and existing[0] != kind:
        raise ImportValidationError([f"dataset '{dataset}' exists with kind '{existing[0]}', not '{kind}'"])
    if existing is None:
        conn.execute(
            "INSERT INTO datasets (name, kind, source, license, synthetic) VALUES (?, ?, ?, ?, ?)",
            [dataset, kind, source, license, synthetic],
        )
    # _seq: the file's row order, kept by the insert (the pair browser lists pairs in import order)
    conn.register("incoming_pairs", frame.assign(_seq=np.arange(len(frame), dtype=np.int64)))
    try:
        conflicts = conn.execute(
            "SELECT i.ext_id FROM incoming_pairs i JOIN pairs p USING (pair_id) "
            "WHERE p.content_hash <> i.content_hash ORDER BY i.ext_id LIMIT 21"
        ).fetchall()
        if conflicts:
            shown = ", ".join(f"'{r[0]}'" for r in conflicts[:20])
            raise ImportValidationError(
                [f"id(s) {shown} already in dataset '{dataset}' with different report text; "
                 "import under a new dataset name or remove the dataset first"])
        before = conn.execute("SELECT count(*) FROM pairs WHERE dataset = ?", [dataset]).fetchone()[0]
        conn.execute(
            "INSERT INTO pairs (pair_id, dataset, ext_id, reference, candidate, group_id, system, "
            "modality, anatomy, split, meta, content_hash, identical, pair_no) "
            "SELECT i.pair_id, i.dataset, i.ext_id, i.reference, i.candidate, i.group_id, i.system, "
            f"i.modality, i.anatomy, i.split, i.meta, i.content_hash, {same_text_sql('i.reference', 'i.candidate')}, "
            f"{new_pair_numbers('i._seq')} "
            "FROM incoming_pairs i ANTI JOIN pairs p ON p.pair_id = i.pair_id"
        )
        after = conn.execute("SELECT count(*) FROM pairs WHERE dataset = ?", [dataset]).fetchone()[0]
    finally:
        conn.unregister("incoming_pairs")
    return after - before


# -- annotations -------------------------------------------------------------

def import_annotations(store: Store, data, *, dataset: str, id_col: str, score_col: str | None = None,
                       scale_max: float = 5.0, category_col: str | None = None,
                       significant_col: str | None = None, count_col: str | None = None,
                       annotator_col: str | None = None, annotator: str = "expert",
                       name: str | None = None, progress: Progress | None = None) -> ImportReport:
    """Import expert annotations in long form: either overall scores or error counts.

    Score mode: one row per (pair, annotator) with a score in [0, scale_max].
    Count mode: one row per (pair, annotator, category a-f or 1-6, significant)
    with a non-negative integer count.
    """
    dataset = _check_dataset_name(dataset)
    score_mode = score_col is not None
    count_mode = any(c is not None for c in (category_col, significant_col, count_col))
    if score_mode == count_mode:
        raise ImportValidationError(
            ["give either a score column, or category + significant + count columns (not both)"])
    if count_mode and None in (category_col, significant_col, count_col):
        raise ImportValidationError(["error counts need all three: category, significant and count columns"])
    if score_mode and not (isinstance(scale_max, (int, float)) and math.isfinite(scale_max) and scale_max > 0):
        raise ImportValidationError([f"scale maximum must be a positive number, got {scale_max!r}"])
    _tick(progress, 0, 3, "reading")
    _require_dataset(store, dataset)
    df = read_table(data, name)
    _tick(progress, 1, 3, "validating")
    frame = prepare_annotations(
        df, dataset, _pair_lookup(store, dataset), id_col=id_col, score_col=score_col, scale_max=scale_max,
        category_col=category_col, significant_col=significant_col, count_col=count_col,
        annotator_col=annotator_col, annotator=annotator, source=name or _source_label(data))
    _tick(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_annotations(conn, frame)
    _tick(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(frame), added=added, skipped=len(frame) - added)


def prepare_annotations(df: pd.DataFrame, dataset: str, lookup: dict[str, str], *, id_col: str,
                        score_col: str | None = None, scale_max: float = 5.0,
                        category_col: str | None = None, significant_col: str | None = None,
                        count_col: str | None = None, annotator_col: str | None = None,
                        annotator: str = "expert", source: str | None = None) -> pd.DataFrame:
    """Validate long-form annotations against ``lookup`` (ext_id -> pair_id)."""
    score_mode = score_col is not None
    _require_columns(df, {"id": id_col, "score": score_col, "category": category_col,
                          "significant": significant_col, "count": count_col, "annotator": annotator_col})
    problems: list[str] = []
    _scalar_cells(df, [id_col, score_col, category_col, significant_col, count_col, annotator_col], problems)
    if problems:
        raise ImportValidationError(_limit(problems))
    ids = _ids(df, id_col, problems)
    pair_ids = _match_ids(ids, lookup, dataset, problems)
    if annotator_col:
        annotators = [_text(v) for v in df[annotator_col].tolist()]
        for i, a in enumerate(annotators, start=1):
            if a is None:
                problems.append(f"row {i}: empty annotator in column '{annotator_col}'")
    else:
        annotators = [annotator] * len(df)

    if score_mode:
        values = [_number(v) for v in df[score_col].tolist()]
        for i, v in enumerate(values, start=1):
            raw = df[score_col].iloc[i - 1]
            if v is None:
                problems.append(f"row {i}: empty score")
            elif math.isnan(v) or math.isinf(v):
                problems.append(f"row {i}: score {raw!r} is not a number")
            elif not 0 <= v <= scale_max:
                problems.append(f"row {i}: score {_fmt(v)} outside 0-{_fmt(scale_max)}")
        categories = [None] * len(df)
        significant = [None] * len(df)
        fields = ["score"] * len(df)
        scales = [float(scale_max)] * len(df)
    else:
        categories = [_category(v) for v in df[category_col].tolist()]
        significant = [_bool(v) for v in df[significant_col].tolist()]
        values = [_number(v) for v in df[count_col].tolist()]
        for i in range(1, len(df) + 1):
            if categories[i - 1] is None:
                problems.append(f"row {i}: category {df[category_col].iloc[i - 1]!r} is not a-f or 1-6")
            if significant[i - 1] is None:
                problems.append(f"row {i}: significant flag {df[significant_col].iloc[i - 1]!r} "
                                "is not true/false/1/0/yes/no")
            v = values[i - 1]
            if v is None or math.isnan(v) or math.isinf(v) or v < 0 or not float(v).is_integer():
                problems.append(f"row {i}: count {df[count_col].iloc[i - 1]!r} is not a whole number >= 0")
            elif v > MAX_ERROR_COUNT:
                problems.append(f"row {i}: count {df[count_col].iloc[i - 1]!r} is above {MAX_ERROR_COUNT}, the "
                                "most errors of one kind RadJudge accepts for one report pair")
        fields = ["error_count"] * len(df)
        scales = [None] * len(df)

    keys = list(zip(ids, annotators, categories, significant, strict=True))
    _duplicates(keys, "annotation (id / annotator / category / significant)", problems)
    if problems:
        raise ImportValidationError(_limit(problems))
    return pd.DataFrame({
        "pair_id": pair_ids, "annotator": annotators, "field": fields, "category": categories,
        "significant": pd.array(significant, dtype="boolean"), "value": [float(v) for v in values],
        "scale_max": pd.array(scales, dtype="Float64"), "source": source,
    })


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _source_label(source) -> str | None:
    if isinstance(source, (str, os.PathLike)):
        return Path(source).name
    return getattr(source, "name", None)


_ANNOTATION_KEY = ("a.pair_id = i.pair_id AND a.annotator = i.annotator AND a.field = i.field "
                   "AND a.category IS NOT DISTINCT FROM i.category "
                   "AND a.significant IS NOT DISTINCT FROM i.significant")


def write_annotations(conn, frame: pd.DataFrame) -> int:
    """Inside an open write transaction: add new annotation rows.

    Identical rows already stored are skipped; a stored row whose value
    differs is refused (annotations are never silently overwritten).
    """
    conn.register("incoming_ann", frame)
    try:
        changed = conn.execute(
            f"SELECT i.pair_id, i.annotator, i.category, i.significant, a.value, i.value "
            f"FROM incoming_ann i JOIN annotations a ON {_ANNOTATION_KEY} "
            f"WHERE a.value <> i.value LIMIT 5"
        ).fetchall()
        if changed:
            ext = dict(conn.execute(
                "SELECT pair_id, ext_id FROM pairs WHERE pair_id IN (SELECT pair_id FROM incoming_ann)"
            ).fetchall())
            raise ImportValidationError([
                f"pair '{ext.get(p, p)}', annotator '{a}'"
                + (f", category {c}, {'significant' if s else 'insignificant'}" if c else "")
                + f": already stored as {_fmt(old)}, file says {_fmt(new)} (annotations are never overwritten)"
                for p, a, c, s, old, new in changed
            ])
        before = conn.execute("SELECT count(*) FROM annotations").fetchone()[0]
        conn.execute(
            "INSERT INTO annotations (pair_id, annotator, field, category, significant, value, scale_max, source) "
            "SELECT i.pair_id, i.annotator, i.field, i.category, i.significant, i.value, i.scale_max, i.source "
            f"FROM incoming_ann i WHERE NOT EXISTS (SELECT 1 FROM annotations a WHERE {_ANNOTATION_KEY})"
        )
        after = conn.execute("SELECT count(*) FROM annotations").fetchone()[0]
    finally:
        conn.unregister("incoming_ann")
    return after - before


# -- judge outputs produced elsewhere ----------------------------------------

def imported_run_id(dataset: str, judge: str) -> str:
    return "imp-" + stable_hash("imported", dataset, judge, length=16)


def import_outputs(store: Store, data, *, dataset: str, judge: str, id_col: str,
                   text_col: str | None = None, score_col: str | None = None, metric: str | None = None,
                   name: str | None = None, progress: Progress | None = None,
                   higher_is_better: bool | None = None) -> ImportReport:
    """Store judge outputs produced elsewhere as an ``imported`` run.

    Text mode keeps the raw judge text and parses it (GREEN format) into
    counts, error texts and metrics. Score mode stores one numeric metric;
    ``higher_is_better`` records its orientation in the run's params (the
    sign check of every correlation uses it; a built-in metric's is fixed).
    Without it a metric outside :data:`core.scores.METRICS` is assumed
    higher-is-better, and the tables say the orientation was assumed.
    """
    dataset = _check_dataset_name(dataset)
    judge = (judge or "").strip()
    if not judge:
        raise ImportValidationError(["give the judge's name (--judge)"])
    if (text_col is None) == (score_col is None):
        raise ImportValidationError(["give either a text column or a score column (not both)"])
    if score_col is not None:
        metric = (metric or judge).strip()
        from core.scores import METRICS

        spec = METRICS.get(metric)
        if spec is not None and higher_is_better is not None and higher_is_better != spec.higher_is_better:
            raise ImportValidationError([f"'{metric}' is a built-in metric: "
                                         f"{'higher' if spec.higher_is_better else 'lower'} is better, always; "
                                         "import your score under another metric name"])
    elif higher_is_better is not None:
        raise ImportValidationError(["an orientation (lower/higher is better) applies to a score column only"])
    _tick(progress, 0, 3, "reading")
    _require_dataset(store, dataset)
    df = read_table(data, name)
    _require_columns(df, {"id": id_col, "text": text_col, "score": score_col})
    _tick(progress, 1, 3, "validating")
    problems: list[str] = []
    _scalar_cells(df, [id_col, text_col, score_col], problems)
    if problems:
        raise ImportValidationError(_limit(problems))
    ids = _ids(df, id_col, problems)
    _duplicates(ids, "id", problems)
    pair_ids = _match_ids(ids, _pair_lookup(store, dataset), dataset, problems)
    run_id = imported_run_id(dataset, judge)
    outputs, metrics, errors = [], [], []
    if score_col is not None:
        for i, (pid, raw) in enumerate(zip(pair_ids, df[score_col].tolist(), strict=True), start=1):
            v = _number(raw)
            if v is None or math.isnan(v) or math.isinf(v):
                problems.append(f"row {i}: score {raw!r} is not a number")
                continue
            outputs.append((run_id, pid, None, None, "ok", None))
            metrics.append((run_id, pid, metric, v))
    else:
        from core.judges.runs import parsed_metrics
        from core.parse import parse_output  # parsing is only needed for text outputs

        for pid, raw in zip(pair_ids, df[text_col].tolist(), strict=True):
            text = "" if raw is None or (isinstance(raw, float) and math.isnan(raw)) else str(raw)
            result = parse_output(text)
            outputs.append((run_id, pid, None, text, result.status, result.reason))
            metrics.extend((run_id, pid, k, v) for k, v in parsed_metrics(result).items())
            for err in result.errors:
                errors.append((run_id, pid, err.significant, err.category, err.text))
    if problems:
        raise ImportValidationError(_limit(problems))
    out_df = pd.DataFrame(outputs, columns=["run_id", "pair_id", "cache_key", "raw_text", "parse_status",
                                            "parse_reason"])
    met_df = pd.DataFrame(metrics, columns=["run_id", "pair_id", "metric", "value"])
    err_df = pd.DataFrame(errors, columns=["run_id", "pair_id", "significant", "category", "text"])
    _tick(progress, 2, 3, "writing")
    with store.write() as conn:
        run = conn.execute("SELECT judge_kind, params FROM judge_runs WHERE run_id = ?", [run_id]).fetchone()
        if run is not None and higher_is_better is not None:  # a later import may declare the orientation
            params = json.loads(run[1] or "{}") | {"higher_is_better": higher_is_better}
            conn.execute("UPDATE judge_runs SET params = ? WHERE run_id = ?", [json.dumps(params), run_id])
        if run is None:
            conn.execute(
                "INSERT INTO judge_runs (run_id, judge_kind, judge_name, model, params, dataset, status, "
                "finished_at) VALUES (?, 'imported', ?, ?, ?, ?, 'done', current_timestamp)",
                [run_id, judge, judge, json.dumps({"source": name or _source_label(data),
                                                   "mode": "score" if score_col else "text",
                                                   "metric": metric, "higher_is_better": higher_is_better}),
                 dataset],
            )
        conn.register("incoming_out", out_df)
        new = conn.execute(
            "SELECT i.pair_id FROM incoming_out i ANTI JOIN judge_outputs o "
            "ON o.run_id = i.run_id AND o.pair_id = i.pair_id").df()["pair_id"]
        new_ids = set(new)
        conn.execute(
            "INSERT INTO judge_outputs (run_id, pair_id, cache_key, raw_text, parse_status, parse_reason) "
            "SELECT i.* FROM incoming_out i ANTI JOIN judge_outputs o "
            "ON o.run_id = i.run_id AND o.pair_id = i.pair_id")
        for frame, table in ((met_df[met_df["pair_id"].isin(new_ids)], "metric_values"),
                             (err_df[err_df["pair_id"].isin(new_ids)], "judge_errors")):
            if len(frame):
                conn.register("incoming_rows", frame)
                if table == "metric_values":
                    insert_metric_values(conn, "SELECT * FROM incoming_rows")
                else:
                    conn.execute(f"INSERT INTO {table} SELECT * FROM incoming_rows")  # table: fixed name above
                conn.unregister("incoming_rows")
        conn.execute(
            "UPDATE judge_runs SET n_requested = c.n, n_ok = c.ok, n_failed = c.n - c.ok "
            "FROM (SELECT count(*) AS n, count(*) FILTER (WHERE parse_status <> 'failed') AS ok "
            "      FROM judge_outputs WHERE run_id = ?) c WHERE run_id = ?", [run_id, run_id])
        conn.unregister("incoming_out")
    _tick(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(out_df), added=len(new_ids),
                        skipped=len(out_df) - len(new_ids), run_id=run_id)


# Presets live in core/presets.py (which imports this module); served from here
# lazily so ``from core.importers import PRESETS`` works without an import cycle.
_PRESET_NAMES = ("PRESETS", "Preset", "import_preset")


def __getattr__(attr: str):
    if attr in _PRESET_NAMES:
        from core import presets

        return getattr(presets, attr)
    raise AttributeError(f"module 'core.importers' has no attribute {attr!r}")
