"""Store integrity check and Parquet export (``python -m core check-store`` / ``export-store``).

:func:`check_store` opens the file read-only (it never writes) and verifies:

- every block in use carries its checksum (the 8-byte checksum DuckDB writes at the head of each
  block, recomputed here over the block: data, indexes and catalog alike; a failing block is named with
  the tables whose rows it holds). A free block (on the header's free list) or a tail past the header's
  block count holds nothing DuckDB reads: a failing checksum there is a note, not damage;
- every column of every table reads in full (DuckDB verifies each block's checksum as it reads it), so
  a damaged or truncated file fails here, naming the table, instead of in an analysis;
- DuckDB opens it and every table of the schema is there;
- the schema version is this RadConcord's (migrations 1..n, no gaps);
- primary keys are unique (DuckDB enforces them; a damaged file might not);
- no orphan rows (pairs without their dataset, annotations without their pair,
  outputs without their run or pair, metric values and error texts without
  their output, clinician ratings, queues and adjudications without their
  pair or dataset);
- every stored ``identical`` flag (migration 004) agrees with its pair's texts;
- pair numbers (migration 005) are unique, and each metric value carries its pair's;
- patient context (migration 009) is stored as the importer writes it: NULL or stripped, non-empty text
  (other text, written outside RadConcord, is a note);
- every closed run's counters (``n_ok``, ``n_failed``) equal a recount of its
  outputs. A run still marked ``running`` is listed as a note: it is either
  running now or was killed, and a re-run finishes it.

:func:`export_store` writes one Parquet file per table plus ``manifest.json``
(row counts, SHA-256 of each file, schema and data version) from one read-only
snapshot, into a fresh folder that appears only when complete.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from core.store import handles
from core.store.copies import folder_written_whole, sha256_file, write_manifest  # noqa: F401 (re-exported)
from core.store.db import Store, StoreError, is_damage, latest_schema_version
from core.store.forensics import FIRST_BLOCK, block_owners, check_blocks, truncation, unreadable_tables
from core.store.texts import same_text_sql
from core.taxonomy import CONTEXT_FIELDS

__all__ = ["IntegrityReport", "check_store", "export_store", "EXPORT_FORMAT"]

EXPORT_FORMAT = "radjudge-parquet-export/1"

#: Tables every store holds, with their primary key columns (None: no key).
TABLES: dict[str, tuple[str, ...] | None] = {
    "schema_version": ("version",),
    "store_meta": ("key",),
    "datasets": ("name",),
    "pairs": ("pair_id",),
    "annotations": None,
    "judge_runs": ("run_id",),
    "judge_outputs": ("run_id", "pair_id"),
    "judge_errors": None,
    "metric_values": ("run_id", "pair_id", "metric"),
    "rating_queues": ("queue_id",),  # migration 003: clinician ratings
    "rating_queue_pairs": ("queue_id", "position"),
    "ratings": ("pair_id", "rater", "revision"),
    "adjudications": ("pair_id", "field", "revision"),
    "preferences": ("dataset", "comparison_id"),  # migration 006: pairwise expert preferences
    "jobs": ("job_id",),  # migration 007: durable judge jobs (core/jobs)
    "job_leases": ("cache_key",),
    "job_batches": ("input_file_id",),  # migration 010: provider batches of judge --batch (core/judges/batch.py)
    "results_cache": ("key",),  # migration 012: computed results of the pages (core/reads/results.py)
}

# Tables a later migration creates: a store of an older schema lacks them (and says so by its version).
INTRODUCED_IN: dict[str, int] = {"rating_queues": 3, "rating_queue_pairs": 3, "ratings": 3, "adjudications": 3,
                                 "preferences": 6, "jobs": 7, "job_leases": 7,
                                 "job_batches": 10, "results_cache": 12}

# (what, SQL counting the offending rows). Fixed text only: nothing here is built from data.
_ORPHANS: tuple[tuple[str, str], ...] = (
    ("pairs without their dataset",
     "SELECT count(*) FROM pairs p ANTI JOIN datasets d ON d.name = p.dataset"),
    ("annotations without their pair",
     "SELECT count(*) FROM annotations a ANTI JOIN pairs p ON p.pair_id = a.pair_id"),
    ("judge runs without their dataset",
     "SELECT count(*) FROM judge_runs r ANTI JOIN datasets d ON d.name = r.dataset"),
    ("judge outputs without their run",
     "SELECT count(*) FROM judge_outputs o ANTI JOIN judge_runs r ON r.run_id = o.run_id"),
    ("judge outputs without their pair",
     "SELECT count(*) FROM judge_outputs o ANTI JOIN pairs p ON p.pair_id = o.pair_id"),
    ("metric values without their output",
     "SELECT count(*) FROM metric_values m ANTI JOIN judge_outputs o "
     "ON o.run_id = m.run_id AND o.pair_id = m.pair_id"),
    ("error texts without their output",
     "SELECT count(*) FROM judge_errors e ANTI JOIN judge_outputs o "
     "ON o.run_id = e.run_id AND o.pair_id = e.pair_id"),
    ("rating queues without their dataset",
     "SELECT count(*) FROM rating_queues q ANTI JOIN datasets d ON d.name = q.dataset"),
    ("queue entries without their queue",
     "SELECT count(*) FROM rating_queue_pairs e ANTI JOIN rating_queues q ON q.queue_id = e.queue_id"),
    ("queue entries without their pair",
     "SELECT count(*) FROM rating_queue_pairs e ANTI JOIN pairs p ON p.pair_id = e.pair_id"),
    ("ratings without their pair",
     "SELECT count(*) FROM ratings r ANTI JOIN pairs p ON p.pair_id = r.pair_id"),
    ("adjudications without their pair",
     "SELECT count(*) FROM adjudications a ANTI JOIN pairs p ON p.pair_id = a.pair_id"),
    ("preferences without one of their pairs",
     "SELECT count(*) FROM preferences c WHERE c.pair_id_a NOT IN (SELECT pair_id FROM pairs) "
     "OR c.pair_id_b NOT IN (SELECT pair_id FROM pairs)"),
    ("metric values of a failed call",
     "SELECT count(*) FROM metric_values m JOIN judge_outputs o "
     "ON o.run_id = m.run_id AND o.pair_id = m.pair_id WHERE o.error IS NOT NULL"),
)

# The run-count rule: whether output ``o`` (of run ``r``, its judge_runs row) counts in the run's n_ok, else
# in n_failed. Imported runs count a failed parse as a failure (core/ingest/importers/); every other kind
# counts failed calls. check-store recounts by it, and merge recounts a run both stores held.
OUTPUT_COUNTS_AS_OK = ("CASE WHEN r.judge_kind = 'imported' THEN o.parse_status IS DISTINCT FROM 'failed' "
                       "ELSE o.error IS NULL END")

# Closed runs whose counters disagree with a recount of their outputs.
_COUNTERS = (
    "SELECT k.run_id, k.status, k.n_ok, k.n_failed, coalesce(c.ok, 0), coalesce(c.failed, 0) "
    "FROM judge_runs k LEFT JOIN ("
    f"  SELECT o.run_id, count(*) FILTER (WHERE {OUTPUT_COUNTS_AS_OK}) AS ok,"
    f"    count(*) FILTER (WHERE NOT ({OUTPUT_COUNTS_AS_OK})) AS failed"
    "  FROM judge_outputs o JOIN judge_runs r USING (run_id) GROUP BY o.run_id) c USING (run_id) "
    "WHERE k.status <> 'running' AND (k.n_ok <> coalesce(c.ok, 0) OR k.n_failed <> coalesce(c.failed, 0)) "
    "ORDER BY k.run_id LIMIT 20"
)


@dataclass
class IntegrityReport:
    path: str
    ok: bool = True
    schema_version: int | None = None
    data_version: int | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    damaged_tables: list[str] = field(default_factory=list)
    blocks_checked: int = 0
    bytes: int = 0
    seconds: float = 0.0

    def problem(self, text: str) -> None:
        self.ok = False
        self.problems.append(text)

    def to_json(self) -> dict:
        return asdict(self)


def check_store(path: str | os.PathLike) -> IntegrityReport:
    """Verify the store file at ``path`` (read-only; see the module docstring)."""
    t0 = time.monotonic()
    path = Path(path)
    report = IntegrityReport(path=str(path))
    if not path.exists():
        report.problem(f"store {path} does not exist")
        return report
    report.bytes = path.stat().st_size
    try:
        conn = handles.connect(path, read_only=True)
    except duckdb.Error as exc:
        report.problem(f"DuckDB cannot open {path}: {exc}")
        report.seconds = round(time.monotonic() - t0, 3)
        return report
    try:
        short = truncation(path, conn)
        if short:
            report.problem(short)
        _check_blocks(path, conn, report)
        _read_every_table(conn, report)
        if not report.damaged_tables:
            _check(conn, report)
    except duckdb.Error as exc:
        report.problem(f"{'the file is damaged' if is_damage(exc) else 'query failed'} while checking: {exc}")
    finally:
        handles.close(conn, path)
        handles.release_fd(path)  # the check's connection is closed: its descriptor may go (when no other is open)
    report.seconds = round(time.monotonic() - t0, 3)
    return report


def _check_blocks(path: Path, conn, report: IntegrityReport) -> None:
    """Recompute every block's checksum (see above); a failing block in use is a problem, named by its
    tables; a failing free block, or one past the header's count, is a note."""
    bad, n, size, unused = check_blocks(path, conn)
    if size is None:
        report.notes.append("block checksums not recomputed: a DuckDB file layout this check does not know "
                            "(every table is still read in full)")
        return
    report.blocks_checked = n
    if unused:
        where = ", ".join(f"{b:,}" for b in unused[:5]) + (f" and {len(unused) - 5} more" if len(unused) > 5 else "")
        many = len(unused) > 1
        report.notes.append(f"unused block{'s' if many else ''} {where} (free, or past the header's block "
                            f"count) fail{'' if many else 's'} {'their' if many else 'its'} checksum: DuckDB "
                            f"never reads {'them' if many else 'it'}; not damage")
    if not bad:
        return
    try:
        owners = block_owners(conn)
    except duckdb.Error:
        owners = {}  # the catalog itself is unreadable: the blocks are still reported, without their tables
    for b in bad[:20]:
        where = f"block {b} (bytes {FIRST_BLOCK + b * size:,}-{FIRST_BLOCK + (b + 1) * size - 1:,})"
        tables = sorted(owners.get(b, ()))
        if tables:
            report.problem(f"{where} fails its checksum: it holds rows of {', '.join(tables)}")
            for t in tables:
                if t not in report.damaged_tables:
                    report.damaged_tables.append(t)
        else:
            report.problem(f"{where} fails its checksum: it holds no table's rows (an index or the catalog)")
    if len(bad) > 20:
        report.problem(f"{len(bad) - 20} more block(s) fail their checksum")


def _read_every_table(conn, report: IntegrityReport) -> None:
    """Read every column of every table in full; DuckDB verifies each block it reads."""
    for table, first in unreadable_tables(conn):
        if table not in report.damaged_tables:
            report.damaged_tables.append(table)
        report.problem(f"table {table} is damaged: reading it fails: {first}")


def _check(conn, report: IntegrityReport) -> None:
    present = {r[0] for r in conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
    versions = ([r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version").fetchall()]
                if "schema_version" in present else [])
    version = max(versions) if versions else 0
    missing = [t for t in TABLES if t not in present and version >= INTRODUCED_IN.get(t, 0)]
    if missing:
        report.problem(f"tables missing: {', '.join(missing)}")
        return
    absent = {t for t in TABLES if t not in present}  # from a migration this older store has not had
    report.schema_version = max(versions) if versions else 0
    latest = latest_schema_version()
    if versions != list(range(1, len(versions) + 1)):
        report.problem(f"schema_version rows are not 1..n: {versions}")
    if report.schema_version != latest:
        report.problem(f"schema v{report.schema_version}, this RadConcord expects v{latest}")
    raw_version = conn.execute("SELECT value FROM store_meta WHERE key = 'data_version'").fetchone()
    try:
        report.data_version = int(raw_version[0]) if raw_version else None
    except ValueError:
        report.data_version = None
    if report.data_version is None:
        report.problem(f"store_meta.data_version is missing or not a number: {raw_version!r}")
    for table, key in TABLES.items():
        if table in absent:
            continue
        report.rows[table] = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]  # fixed names
        if key:
            cols = ", ".join(key)
            dupes = conn.execute(
                f'SELECT count(*) FROM (SELECT {cols} FROM "{table}" GROUP BY {cols} HAVING count(*) > 1)'
            ).fetchone()[0]
            if dupes:
                report.problem(f"{table}: {dupes} duplicated primary key(s) ({cols})")
    dupes = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM annotations GROUP BY pair_id, annotator, field, category, "
        "significant HAVING count(*) > 1)").fetchone()[0]
    if dupes:
        report.problem(f"annotations: {dupes} key(s) stored more than once")
    for what, sql in _ORPHANS:
        if any(f" {t} " in f" {sql} " for t in absent):
            continue
        n = conn.execute(sql).fetchone()[0]
        if n:
            report.problem(f"{n} {what}")
    stale = _has_column(conn, "pairs", "identical") and conn.execute(  # migration 004
        f"SELECT count(*) FROM pairs WHERE identical IS NOT NULL AND identical <> "
        f"{same_text_sql('reference', 'candidate')}").fetchone()[0]
    if stale:
        report.problem(f"{stale} pair(s) whose stored identical flag disagrees with their texts")
    if _has_column(conn, "metric_values", "pair_no"):  # migration 005
        _check_pair_numbers(conn, report)
    if _has_column(conn, "pairs", CONTEXT_FIELDS[0]):  # migration 009
        _check_context(conn, report)
    for run_id, status, n_ok, n_failed, ok, failed in conn.execute(_COUNTERS).fetchall():
        report.problem(f"run {run_id} ({status}): counters say {n_ok} ok / {n_failed} failed, "
                       f"its outputs say {ok} / {failed}")
    running = [r[0] for r in conn.execute(
        "SELECT run_id FROM judge_runs WHERE status = 'running' ORDER BY run_id").fetchall()]
    if running:
        report.notes.append(f"{len(running)} run(s) marked running (in progress, or killed: a re-run "
                            f"finishes them): {', '.join(running[:10])}")


def _has_column(conn, table: str, column: str) -> bool:
    """Whether the store's schema has this column yet (a store from before its migration has not)."""
    return bool(conn.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = ? "
                             "AND column_name = ?", [table, column]).fetchone()[0])


def _check_context(conn, report: IntegrityReport) -> None:
    """Patient context (migration 009): the importer stores stripped, non-empty text or NULL."""
    untidy = " OR ".join(f"regexp_matches({f}, '^\\s|\\s$') OR {f} = ''" for f in CONTEXT_FIELDS)  # fixed names
    n = conn.execute(f"SELECT count(*) FROM pairs WHERE {untidy}").fetchone()[0]
    if n:
        report.notes.append(f"{n} pair(s) whose patient context is empty text or starts or ends with whitespace "
                            "(written outside RadConcord's importer): shown as stored")


def _check_pair_numbers(conn, report: IntegrityReport) -> None:
    """Integer pair keys (migration 005): unique per pair, repeated exactly on its metric values."""
    shared = conn.execute("SELECT count(*) FROM (SELECT pair_no FROM (SELECT pair_no FROM pairs UNION ALL "
                          "SELECT pair_no FROM trash_pairs) WHERE pair_no IS NOT NULL GROUP BY pair_no "
                          "HAVING count(*) > 1)").fetchone()[0]
    if shared:
        report.problem(f"{shared} pair number(s) (pair_no) held by more than one pair")
    wrong = conn.execute("SELECT count(*) FROM metric_values m JOIN pairs p USING (pair_id) "
                         "WHERE m.pair_no IS DISTINCT FROM p.pair_no").fetchone()[0]
    if wrong:
        report.problem(f"{wrong} metric value(s) whose pair_no is not their pair's")
    unnumbered = conn.execute("SELECT count(*) FROM pairs WHERE pair_no IS NULL").fetchone()[0]
    if unnumbered:
        report.notes.append(f"{unnumbered} pair(s) without a pair_no (written outside RadConcord's importer): "
                            "their values are read by pair_id, more slowly")


# -- export ----------------------------------------------------------------------------------


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def export_store(store: Store, out: str | os.PathLike) -> dict:
    """Write every table of ``store`` as ``OUT/<table>.parquet`` plus ``OUT/manifest.json``.

    One read-only connection: the files are one consistent snapshot (a writer
    cannot commit while it is open). ``out`` must not exist or be empty; the
    files are written to a new uniquely named hidden folder beside ``OUT``
    (``.OUT.XXXX.partial``, made by ``tempfile.mkdtemp``, so it can never be a
    folder the user already has) and renamed when all are complete: an
    interrupted export leaves no half folder under the final name, and only
    the folder this call made is ever removed.
    Returns the manifest.
    """
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise StoreError(f"{out} exists and is not an empty folder; choose a new folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    tables: dict[str, dict] = {}
    with folder_written_whole(out) as partial:
        with store.read() as conn:
            names = [r[0] for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
                "AND table_type = 'BASE TABLE' ORDER BY table_name").fetchall()]
            schema = _schema_version_of(conn)
            data_version = conn.execute("SELECT value FROM store_meta WHERE key = 'data_version'").fetchone()[0]
            for name in names:
                target = partial / f"{name}.parquet"
                quoted = '"' + name.replace('"', '""') + '"'
                rows = conn.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0]
                conn.execute(f"COPY (SELECT * FROM {quoted}) TO {_sql_string(str(target))} "
                             "(FORMAT parquet, COMPRESSION zstd)")
                tables[name] = {"file": target.name, "rows": int(rows), "bytes": target.stat().st_size,
                                "sha256": sha256_file(target)}
        manifest = {"format": EXPORT_FORMAT, "source": store.path.name, "schema_version": schema,
                    "data_version": int(data_version),
                    "exported_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "tables": tables}
        write_manifest(partial, manifest)
    return manifest


def _schema_version_of(conn) -> int:
    return int(conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0)
