"""Importers: files (CSV/TSV/JSONL/Parquet) -> validated frames -> one store transaction.

Every importer works in three stages: read the file, validate every row and
collect *all* problems (so the user fixes them in one pass), then write in a
single transaction. A file with any problem writes nothing
(``ImportValidationError`` lists the problems). Re-importing the same file adds
nothing: rows already in the store with the same content are counted as
``skipped``; rows whose key exists with different content are a problem.

Row numbers in messages count data rows from 1 (the header is not a row), so
"row 3" is the third record of the file.

Modules: ``common`` (shared types and limits), ``reading`` (files -> bytes -> text -> frames, for all),
``validation`` (cells, ids, datasets), ``pairs``, ``annotations`` and ``outputs``
(one importer each), ``wide`` (annotation counts laid out one column per category x significance). Everything public is importable from this package.
"""

from core.ingest.importers.annotations import import_annotations, prepare_annotations, write_annotations
from core.ingest.importers.common import (
    DATASET_KINDS,
    MAX_ERROR_COUNT,
    MAX_PROBLEMS_SHOWN,
    ImportProgress,
    ImportReport,
    ImportValidationError,
    PairColumns,
    limit_problems,
    tick_progress,
)
from core.ingest.importers.outputs import import_crimson_outputs, import_outputs, imported_run_id
from core.ingest.importers.pairs import (
    import_counted_pairs,
    import_pairs,
    import_scored_pairs,
    parse_context_cols,
    prepare_pairs,
    write_pairs,
)
from core.ingest.importers.reading import (
    check_scalar_cells,
    decode_text,
    read_bytes,
    read_table,
    require_columns,
)
from core.ingest.importers.validation import (
    SignificanceRule,
    cell_bool,
    cell_category,
    cell_number,
    cell_text,
    check_dataset_name,
    check_duplicates,
    column_ids,
    match_ids,
    pair_lookup,
    require_dataset,
    source_label,
)
from core.ingest.importers.wide import (
    WIDE_CELLS,
    detect_wide_columns,
    parse_wide_cols,
    prepare_wide_annotations,
    resolve_wide_columns,
    wide_problems,
)
from core.taxonomy import CATEGORIES  # re-exported: the package's public words

__all__ = [
    "CATEGORIES",
    "DATASET_KINDS",
    "MAX_ERROR_COUNT",
    "MAX_PROBLEMS_SHOWN",
    "ImportReport",
    "ImportValidationError",
    "PairColumns",
    "ImportProgress",
    "SignificanceRule",
    "WIDE_CELLS",
    "cell_bool",
    "cell_category",
    "cell_number",
    "cell_text",
    "check_dataset_name",
    "check_duplicates",
    "check_scalar_cells",
    "column_ids",
    "decode_text",
    "detect_wide_columns",
    "import_annotations",
    "import_counted_pairs",
    "import_crimson_outputs",
    "import_outputs",
    "import_pairs",
    "import_scored_pairs",
    "imported_run_id",
    "limit_problems",
    "match_ids",
    "pair_lookup",
    "parse_context_cols",
    "parse_wide_cols",
    "prepare_annotations",
    "prepare_pairs",
    "prepare_wide_annotations",
    "read_bytes",
    "read_table",
    "require_columns",
    "require_dataset",
    "resolve_wide_columns",
    "source_label",
    "tick_progress",
    "wide_problems",
    "write_annotations",
    "write_pairs",
]
