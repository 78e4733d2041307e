"""``python -m core merge --from STORE_OR_EXPORT_DIR``: bring another store's data into this one.

Several machines may each judge a part of a study (``judge --shard K/N``) into their own stores; merging
them gives one store, with one run per judge, as if one machine had judged everything. What comes over:
datasets, pairs, annotations, judge runs, outputs, error texts, metric values, rating queues, ratings,
adjudications and preferences (:data:`core.store.mergesource.MERGED_TABLES`). What does not: jobs and
leases (a job belongs to the machine that ran it), the trash (each store's own undo), ``store_meta``.

Rows are matched on their keys, which are content-derived (a pair id hashes its dataset and external id,
a run id its judge, prompt and parameters), so the same row from two machines is one row here:

- a key only in the source is added (a pair gets a pair number of this store; metric values get it too);
- a key in both whose content agrees adds nothing, so a second merge of the same source adds nothing;
- a key in both whose content differs is a conflict (:data:`TABLES` names the columns that must agree;
  the others, such as ``created_at`` or an import's ``source`` file name, are this store's);
- an output: an answer replaces a recorded failure (as a re-run would); a failure never replaces an
  answer; two answers must be the same text with the same metric values;
- a run both stores hold is recounted from its outputs here once outputs were added to it;
- a rater's annotations mirror their latest rating (core.reads.ratings): they are taken from the store
  whose ratings of that pair go further, as the ratings themselves are merged, never compared.

Every conflict is found before anything is written, one line each, and any conflict refuses the whole
merge. The merge is one write transaction: it commits whole or not at all. The source is opened read-only
(:mod:`core.store.mergesource`).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb

from core.store.db import Store, StoreError, insert_metric_values, is_damage, new_pair_numbers
from core.store.integrity import OUTPUT_COUNTS_AS_OK
from core.store.mergesource import MERGED_TABLES, MergeRefused, open_source
from core.taxonomy import CONTEXT_FIELDS

__all__ = ["NOT_MERGED", "TABLES", "MergeConflict", "MergeRefused", "MergeReport", "Table", "merge_store"]

#: Tables a merge leaves alone (with the trash_* tables): per machine, not per study.
NOT_MERGED = ("jobs", "job_leases", "job_batches", "results_cache", "store_meta", "schema_version")
#: Conflict lines kept per check (the count is always exact).
SHOWN = 1000


@dataclass(frozen=True)
class Table:
    """A merged table: its key, the columns that must agree when a key is in both stores (values of ``shown``
    ones are printed in a conflict line; report text never is), and what a conflict line calls a row."""

    name: str
    keys: tuple[str, ...]
    compare: tuple[str, ...]
    label: str  # SQL over the source row ``s``
    shown: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # columns this store keeps as they are (not compared)
    rows: str = "TRUE"  # SQL over ``s``: the source rows merged by key (others are merged apart)
    filled: tuple[str, ...] = ()  # compared only where both stores hold a value; an empty one here is filled


_COUNTS = tuple(f"{p}_{c}" for p in ("sig", "insig") for c in "abcdef")
# A rater's latest rating mirrored into annotations (core.reads.ratings: SOURCE, RATER_PREFIX; a test checks)
MIRROR_SOURCE, MIRROR_PREFIX = "radjudge-annotate", "rater:"
_MIRROR = f"(s.source = '{MIRROR_SOURCE}' AND starts_with(s.annotator, '{MIRROR_PREFIX}'))"
TABLES: tuple[Table, ...] = (
    Table("datasets", ("name",), ("kind", "synthetic"), "printf('dataset %s', s.name)", ("kind", "synthetic"),
          ("source", "license", "version", "description", "created_at")),
    Table("pairs", ("pair_id",), ("dataset", "ext_id", "reference", "candidate", "group_id", "system", "modality",
                                  "anatomy", "split", "meta"),
          "printf('pair %s (dataset %s, id %s)', s.pair_id, s.dataset, s.ext_id)", ("dataset", "ext_id"),
          ("content_hash", "identical", "pair_no"), filled=CONTEXT_FIELDS),
    Table("annotations", ("pair_id", "annotator", "field", "category", "significant"),
          ("value", "scale_max", "scale_min"),
          "printf('annotation of pair %s by %s (%s%s)', s.pair_id, s.annotator, s.field, "
          "CASE WHEN s.category IS NULL THEN '' ELSE printf(', %s%s', CASE WHEN s.significant THEN 'significant ' "
          "WHEN NOT s.significant THEN 'insignificant ' ELSE '' END, s.category) END)",
          ("value", "scale_max", "scale_min"), ("source", "created_at"), f"NOT {_MIRROR}"),
    Table("judge_runs", ("run_id",), ("judge_kind", "judge_name", "dataset", "model", "prompt_id", "prompt_hash",
                                      "params"),
          "printf('run %s (%s on %s)', s.run_id, s.judge_name, s.dataset)",
          ("judge_kind", "judge_name", "dataset", "model", "prompt_id", "prompt_hash"),
          ("status", "n_requested", "n_ok", "n_failed", "cost_usd", "started_at", "finished_at")),
    Table("rating_queues", ("queue_id",), ("name", "dataset", "method", "params", "scheme"),
          "printf('rating queue %s (%s)', s.queue_id, s.name)", ("dataset", "method", "scheme"),
          ("blinded", "created_by", "created_at")),
    Table("rating_queue_pairs", ("queue_id", "position"), ("pair_id",),
          "printf('position %d of rating queue %s', s.position, s.queue_id)", ("pair_id",)),
    Table("ratings", ("pair_id", "rater", "revision"),
          ("queue_id", "content_hash", "skipped", "score", *_COUNTS, "note"),
          "printf('rating %d of pair %s by %s', s.revision, s.pair_id, s.rater)",
          ("queue_id", "content_hash", "skipped", "score", *_COUNTS), ("created_at",)),
    Table("adjudications", ("pair_id", "field", "revision"), ("value", "adjudicator", "note"),
          "printf('adjudication %d of %s of pair %s', s.revision, s.field, s.pair_id)", ("value", "adjudicator"),
          ("created_at",)),
    Table("preferences", ("dataset", "comparison_id"),
          ("pair_id_a", "pair_id_b", "preferred", "confidence", "annotator"),
          "printf('preference %s of dataset %s', s.comparison_id, s.dataset)",
          ("pair_id_a", "pair_id_b", "preferred", "confidence", "annotator"), ("source", "created_at")),
)
# judge_outputs, judge_errors and metric_values are merged by (run, pair): see _merge_outputs.

# Which status a run recounted from both stores gets: the one that says more is left to do.
_STATUS_RANK = "CASE {} WHEN 'done' THEN 0 WHEN 'cancelled' THEN 1 WHEN 'failed' THEN 2 ELSE 3 END"


class MergeConflict(StoreError):
    """The source disagrees with this store; ``conflicts`` holds one line per conflict (at most SHOWN per check)."""

    def __init__(self, source: Path, conflicts: list[str], total: int):
        self.conflicts, self.total = conflicts, total
        super().__init__(f"{total:,} conflict(s) between {source} and this store; nothing was merged")


class _NothingNew(Exception):
    """Raised inside the write transaction when the source adds nothing, to roll back (no version bump)."""


@dataclass
class MergeReport:
    source: str
    kind: str  # store | export
    schema_version: int
    migrated: bool  # the source was at an older schema (merged from a migrated temporary copy)
    added: dict[str, int] = field(default_factory=dict)
    failures_replaced: int = 0  # recorded failures here that the source's answers replaced
    context_filled: int = 0  # pairs here whose empty patient context the source's filled (never a stored value)
    runs_recounted: list[str] = field(default_factory=list)
    nothing_new: bool = False
    not_merged: tuple[str, ...] = (*NOT_MERGED, "trash_*")
    seconds: float = 0.0

    def to_json(self) -> dict:
        return asdict(self)


def merge_store(store: Store, source: str | Path) -> MergeReport:
    """Merge the store file or export-store folder ``source`` into ``store`` (see the module docstring).

    Raises :class:`MergeConflict` (nothing written) when the two disagree, :class:`MergeRefused` when the
    source cannot be read as a store of this schema or older.
    """
    t0 = time.monotonic()
    source = Path(source)
    if source.is_file() and store.path.exists() and source.resolve() == store.path.resolve():
        raise MergeRefused(f"{source} is this store itself; nothing to merge")
    with open_source(source, store.path.parent) as src:
        report = MergeReport(str(source), src.kind, src.schema_version, src.migrated)
        try:
            with store.write(attach={"src": src.path}) as conn:
                conflicts, total = find_conflicts(conn)
                if total:
                    raise MergeConflict(source, conflicts, total)
                _merge(conn, report)
                if not any(report.added.values()) and not report.failures_replaced and not report.context_filled:
                    raise _NothingNew
        except _NothingNew:
            report.nothing_new = True
        except duckdb.Error as exc:  # e.g. a source value this store's column cannot hold
            if is_damage(exc):
                raise
            raise MergeRefused(f"the merge of {source} failed and was rolled back, nothing was merged: "
                               f"{str(exc).splitlines()[0]}") from exc
    report.seconds = round(time.monotonic() - t0, 3)
    return report


def _on(keys, left="s", right="t") -> str:
    return " AND ".join(f"{left}.{k} IS NOT DISTINCT FROM {right}.{k}" for k in keys)


def _lines(conn, sql: str) -> tuple[list[str], int]:
    rows = conn.execute(f"SELECT coalesce(line, 'a row (its name is empty) differs from this store'), "
                        f"count(*) OVER () FROM ({sql}) ORDER BY 1 LIMIT {SHOWN}").fetchall()
    return [r[0] for r in rows], (rows[0][1] if rows else 0)


def _value(side: str, col: str) -> str:
    return f"coalesce(CAST({side}.{col} AS VARCHAR), 'none')"


def _differs(t: Table, col: str) -> str:
    """SQL: the source row ``s`` and this store's ``t`` disagree on ``col`` (a filled column: both hold a value)."""
    if col in t.filled:
        return f"(s.{col} IS NOT NULL AND t.{col} IS NOT NULL AND s.{col} <> t.{col})"
    return f"s.{col} IS DISTINCT FROM t.{col}"


def find_conflicts(conn) -> tuple[list[str], int]:
    """Every disagreement between the attached ``src`` and this store, one line each, and their number."""
    found: list[str] = []
    total = 0
    for t in TABLES:
        parts = ", ".join(
            f"CASE WHEN {_differs(t, c)} THEN "
            + (f"'{c} ' || {_value('t', c)} || ' here, ' || {_value('s', c)} || ' in the source'"
               if c in t.shown else f"'{c}'") + " END" for c in (*t.compare, *t.filled))
        differs = " OR ".join(_differs(t, c) for c in (*t.compare, *t.filled))
        lines, n = _lines(conn, f"SELECT {t.label} || ': differs from this store (' || concat_ws('; ', {parts}) || ')' "
                                f"AS line FROM src.{t.name} s JOIN {t.name} t ON {_on(t.keys)} "
                                f"WHERE ({differs}) AND {t.rows}")
        found += lines
        total += n
    conn.execute("CREATE TEMP TABLE m_both AS SELECT run_id, pair_id FROM src.judge_outputs s "
                 "JOIN judge_outputs t USING (run_id, pair_id) WHERE s.error IS NULL AND t.error IS NULL")
    for sql in (
        "SELECT printf('answer of run %s for pair %s: its text differs from this store''s', s.run_id, s.pair_id) "
        "AS line FROM src.judge_outputs s JOIN judge_outputs t USING (run_id, pair_id) "
        "WHERE s.error IS NULL AND t.error IS NULL AND s.raw_text IS DISTINCT FROM t.raw_text",
        "SELECT printf('metric %s of run %s for pair %s: %s here, %s in the source', coalesce(s.metric, t.metric), "
        "coalesce(s.run_id, t.run_id), coalesce(s.pair_id, t.pair_id), " + _value("t", "value") + ", "
        + _value("s", "value") + ") AS line "
        "FROM (SELECT m.* FROM src.metric_values m SEMI JOIN m_both b USING (run_id, pair_id)) s "
        "FULL JOIN (SELECT m.* FROM metric_values m SEMI JOIN m_both b USING (run_id, pair_id)) t "
        "ON s.run_id = t.run_id AND s.pair_id = t.pair_id AND s.metric = t.metric "
        "WHERE s.run_id IS NULL OR t.run_id IS NULL OR s.value IS DISTINCT FROM t.value",
    ):
        lines, n = _lines(conn, sql)
        found += lines
        total += n
    return found, total


def _count(conn, sql: str, params=None) -> int:
    row = conn.execute(sql, params or []).fetchone()
    return int(row[0]) if row else 0


def _merge(conn, report: MergeReport) -> None:
    """Insert what the source adds (conflicts were ruled out before), in MERGED_TABLES order."""
    added = report.added
    conn.execute("CREATE TEMP TABLE m_shared_runs AS SELECT run_id FROM src.judge_runs SEMI JOIN judge_runs USING "
                 "(run_id)")
    # (pair, rater) whose ratings go further in the source: their mirrored annotations come from there
    conn.execute("CREATE TEMP TABLE m_mirrors AS SELECT s.pair_id, s.rater FROM "
                 "(SELECT pair_id, rater, max(revision) AS rev FROM src.ratings GROUP BY ALL) s LEFT JOIN "
                 "(SELECT pair_id, rater, max(revision) AS rev FROM ratings GROUP BY ALL) t USING (pair_id, rater) "
                 "WHERE t.rev IS NULL OR s.rev > t.rev")
    for t in TABLES:
        if t.name == "pairs":  # new pairs are numbered after every pair of this store (migration 005)
            select = (f"SELECT s.* EXCLUDE (pair_no), {new_pair_numbers('s.pair_no, s.pair_id')} AS pair_no "
                      "FROM src.pairs s")
        else:
            select = f"SELECT s.* FROM src.{t.name} s"
        added[t.name] = _count(conn, f"INSERT INTO {t.name} BY NAME {select} ANTI JOIN {t.name} t ON {_on(t.keys)} "
                                     f"WHERE {t.rows}")
        if t.filled:
            report.context_filled += _fill(conn, t)
        if t.name == "judge_runs":
            _merge_outputs(conn, report)
        if t.name == "ratings":
            added["annotations"] += _merge_mirrors(conn)
    report.added = {name: added.get(name, 0) for name in MERGED_TABLES}


def _fill(conn, t: Table) -> int:
    """Fill this store's empty ``t.filled`` columns from the source's rows of the same key (a store from before
    migration 009 has no patient context, a later import may add it); the number of rows filled."""
    empty = " OR ".join(f"(x.{c} IS NULL AND s.{c} IS NOT NULL)" for c in t.filled)
    keys = " AND ".join(f"x.{k} = s.{k}" for k in t.keys)
    sets = ", ".join(f"{c} = coalesce(x.{c}, s.{c})" for c in t.filled)
    return _count(conn, f"UPDATE {t.name} x SET {sets} FROM src.{t.name} s WHERE {keys} AND ({empty})")


def _merge_mirrors(conn) -> int:
    """Replace this store's mirrored annotations of each (pair, rater) in ``m_mirrors`` by the source's;
    the change in the number of annotation rows."""
    before = _count(conn, "SELECT count(*) FROM annotations")
    conn.execute(f"DELETE FROM annotations a USING m_mirrors m WHERE a.pair_id = m.pair_id AND a.annotator = "
                 f"'{MIRROR_PREFIX}' || m.rater AND a.source = '{MIRROR_SOURCE}'")
    conn.execute(f"INSERT INTO annotations BY NAME SELECT s.* FROM src.annotations s JOIN m_mirrors m "
                 f"ON s.pair_id = m.pair_id AND s.annotator = '{MIRROR_PREFIX}' || m.rater WHERE {_MIRROR}")
    return _count(conn, "SELECT count(*) FROM annotations") - before


def _merge_outputs(conn, report: MergeReport) -> None:
    """Outputs with their error texts and metric values, by (run, pair): see the module docstring."""
    conn.execute("CREATE TEMP TABLE m_replace AS SELECT run_id, pair_id FROM src.judge_outputs s "
                 "JOIN judge_outputs t USING (run_id, pair_id) WHERE s.error IS NULL AND t.error IS NOT NULL")
    report.failures_replaced = _count(conn, "SELECT count(*) FROM m_replace")
    for table in ("judge_outputs", "metric_values", "judge_errors"):  # fixed names
        conn.execute(f"DELETE FROM {table} x USING m_replace r WHERE x.run_id = r.run_id AND x.pair_id = r.pair_id")
    conn.execute("CREATE TEMP TABLE m_new AS SELECT run_id, pair_id FROM src.judge_outputs s "
                 "ANTI JOIN judge_outputs t USING (run_id, pair_id)")
    report.added["judge_outputs"] = _count(
        conn, "INSERT INTO judge_outputs BY NAME SELECT s.* FROM src.judge_outputs s SEMI JOIN m_new USING "
              "(run_id, pair_id)") - report.failures_replaced
    report.added["judge_errors"] = _count(
        conn, "INSERT INTO judge_errors BY NAME SELECT e.* FROM src.judge_errors e SEMI JOIN m_new USING "
              "(run_id, pair_id)")
    before = _count(conn, "SELECT count(*) FROM metric_values")
    insert_metric_values(conn, "SELECT m.run_id, m.pair_id, m.metric, m.value FROM src.metric_values m "
                               "SEMI JOIN m_new USING (run_id, pair_id)")
    report.added["metric_values"] = _count(conn, "SELECT count(*) FROM metric_values") - before
    report.runs_recounted = [r[0] for r in conn.execute(
        "SELECT DISTINCT run_id FROM m_new SEMI JOIN m_shared_runs USING (run_id) ORDER BY run_id").fetchall()]
    if report.runs_recounted:
        _recount(conn)


def _recount(conn) -> None:
    """A run both stores held, with outputs added: its counters from its outputs here (the rule of check-store
    and of a finished run: an imported run counts an unreadable answer as failed), requested at least what it
    holds, the earlier start, the later finish, and the status that says more is left to do."""
    conn.execute(
        "UPDATE judge_runs SET n_ok = c.ok, n_failed = c.failed, "
        "cost_usd = CASE WHEN judge_runs.judge_kind = 'imported' THEN judge_runs.cost_usd ELSE c.cost END, "
        "n_requested = greatest(judge_runs.n_requested, s.n_requested, c.ok + c.failed), "
        "started_at = least(judge_runs.started_at, s.started_at), "
        "finished_at = greatest(judge_runs.finished_at, s.finished_at), "
        f"status = CASE WHEN {_STATUS_RANK.format('s.status')} > {_STATUS_RANK.format('judge_runs.status')} "
        "THEN s.status ELSE judge_runs.status END "
        "FROM (SELECT o.run_id, count(*) FILTER (WHERE " + OUTPUT_COUNTS_AS_OK + ") AS ok, "
        "count(*) FILTER (WHERE NOT (" + OUTPUT_COUNTS_AS_OK + ")) AS failed, "
        "CASE WHEN count(*) FILTER (WHERE o.error IS NULL AND o.cost_usd IS NULL) > 0 THEN NULL "
        "ELSE coalesce(sum(o.cost_usd), 0) END AS cost "
        "FROM judge_outputs o JOIN judge_runs r USING (run_id) "
        "WHERE o.run_id IN (SELECT DISTINCT run_id FROM m_new SEMI JOIN m_shared_runs USING (run_id)) "
        "GROUP BY o.run_id) c, src.judge_runs s "
        "WHERE judge_runs.run_id = c.run_id AND s.run_id = c.run_id")
