"""Run bookkeeping shared by every judge: the run row, outputs, parsed metrics.

An output is written together with what is parsed from it (metric values and
error texts) in one transaction, so the store never holds an output without
its metrics or metrics without their output. ``(run_id, pair_id)`` is unique,
and every write reconciles with what the run already holds *inside its own
transaction*: a pair with a stored answer keeps it (the first answer wins), a
recorded failure is replaced, anything else is inserted. So a writer never
relies on what it read before it took the write lock: a resume after a kill at
any instant, or two processes running the same run at once, skip what the
other stored instead of colliding on the key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd

from core.judges.answers import answer_reader, parsed_metrics, read_result, read_values
from core.prompts.specs import prompt_spec
from core.store.db import Store, insert_metric_values, stable_hash
from core.taxonomy import CONTEXT_FIELDS


@dataclass
class OutputRecord:
    """One judge answer (or one failure) for one pair."""

    pair_id: str
    raw_text: str | None = None
    cache_key: str | None = None
    latency_ms: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    error: str | None = None
    metrics: dict[str, float] | None = None  # precomputed (lexical); else parsed from raw_text
    extra_metrics: dict[str, float] | None = None  # stored beside those parsed from raw_text (rules: rules_crimson)
    errors: list[tuple[bool, str, str]] | None = None  # with metrics: error rows (significant, category, text)


@dataclass
class RunSpec:
    judge_kind: str
    judge_name: str
    dataset: str
    model: str | None = None
    prompt_id: str | None = None
    prompt_hash: str | None = None
    params: dict = field(default_factory=dict)

    def run_id(self) -> str:
        """Deterministic: the same judge, prompt and params on a dataset resume one run."""
        key = json.dumps([self.judge_kind, self.judge_name, self.dataset, self.model, self.prompt_id,
                          self.prompt_hash, self.params], sort_keys=True, default=str)
        return f"{self.judge_kind}-" + stable_hash("run", key, length=16)


def ensure_run(store: Store, spec: RunSpec, n_requested: int) -> str:
    run_id = spec.run_id()
    with store.write() as conn:
        row = conn.execute("SELECT run_id FROM judge_runs WHERE run_id = ?", [run_id]).fetchone()
        if row is None:
            conn.execute(
                "INSERT INTO judge_runs (run_id, judge_kind, judge_name, model, prompt_id, prompt_hash, params, "
                "dataset, status, n_requested) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)",
                [run_id, spec.judge_kind, spec.judge_name, spec.model, spec.prompt_id, spec.prompt_hash,
                 json.dumps(spec.params, sort_keys=True, default=str), spec.dataset, n_requested])
        else:
            # finished_at stays: it moves only when this invocation stores something (see _FINISH_SQL)
            conn.execute("UPDATE judge_runs SET status = 'running', "
                         "n_requested = greatest(n_requested, ?) WHERE run_id = ?", [n_requested, run_id])
    return run_id


def crimson_map_param(prompt_id: str | None, text: str | None) -> str | None:
    """The run parameter recording a CRIMSON category map (``--crimson-map``): its full spec, or None for the
    default map (so a default run keeps its id). ValueError for a bad map or a prompt that is not CRIMSON's."""
    if not text or not text.strip():
        return None
    spec = prompt_spec(prompt_id)
    if spec is None or "crimson_map" not in spec.options:
        raise ValueError(f"--crimson-map applies to the CRIMSON prompts only, not to {prompt_id!r}")
    from core.parse.crimson import DEFAULT_MAP, parse_category_map

    spec = parse_category_map(text).spec()
    return None if spec == DEFAULT_MAP.spec() else spec


_RUN_OPTIONS: dict[tuple[str, str], dict] = {}


def run_parse_options(store: Store, run_id: str) -> dict:
    """The params of a run, read once per process: a run id is a hash of its params, so they never change."""
    key = (str(store.path), run_id)
    if key not in _RUN_OPTIONS:
        raw = store.query_one("SELECT params FROM judge_runs WHERE run_id = ?", [run_id])
        _RUN_OPTIONS[key] = json.loads(raw) if raw else {}
    return _RUN_OPTIONS[key]


def parsed_rows(run_id: str, rec: OutputRecord, prompt_id: str | None, options: dict | None = None):
    """(output row, metric rows, error rows) for one record (``options``: the run's params, for a reader)."""
    status = reason = None
    metrics: list[tuple] = []
    errors: list[tuple] = []
    if rec.error is None and rec.metrics is not None:
        status = "ok"
        metrics = [(run_id, rec.pair_id, k, float(v)) for k, v in rec.metrics.items() if v is not None]
        errors = [(run_id, rec.pair_id, sig, category, text) for sig, category, text in rec.errors or ()]
    elif rec.error is None and (read := read_values(prompt_id, rec.raw_text or "")) is not None:
        status, reason, values = read  # a prompt answering in its own JSON (core.prompts.specs: "values")
        metrics = [(run_id, rec.pair_id, k, float(v)) for k, v in values.items() if v is not None]
    elif rec.error is None:
        result = read_result(prompt_id, rec.raw_text or "", options)
        status, reason = result.status, result.reason
        metrics = [(run_id, rec.pair_id, k, v) for k, v in parsed_metrics(result, prompt_id).items()]
        if status == "ok" and rec.extra_metrics:
            metrics += [(run_id, rec.pair_id, k, float(v)) for k, v in rec.extra_metrics.items() if v is not None]
        errors = [(run_id, rec.pair_id, e.significant, e.category, e.text) for e in result.errors]
    out = (run_id, rec.pair_id, rec.cache_key, rec.raw_text, status, reason, rec.latency_ms, rec.tokens_in,
           rec.tokens_out, rec.cost_usd, rec.error)
    return out, metrics, errors


_OUT_COLS = ["run_id", "pair_id", "cache_key", "raw_text", "parse_status", "parse_reason", "latency_ms",
             "tokens_in", "tokens_out", "cost_usd", "error"]


def _dedupe(records: list[OutputRecord]) -> list[OutputRecord]:
    """One record per pair: an answer beats a failure, else the first one."""
    best: dict[str, OutputRecord] = {}
    for rec in records:
        have = best.get(rec.pair_id)
        if have is None or (have.error is not None and rec.error is None):
            best[rec.pair_id] = rec
    return list(best.values())


def _reconcile(conn, run_id: str, pair_ids: list[str]) -> tuple[set[str], list[str]]:
    """(pairs of ``pair_ids`` already answered in the run, pairs holding a recorded failure).

    Read inside the caller's write transaction, which holds the file: no other
    process can store a row between this read and the caller's insert.
    """
    rows = conn.execute("SELECT pair_id, error IS NULL FROM judge_outputs WHERE run_id = ? "
                        "AND pair_id IN (SELECT unnest(?::VARCHAR[]))", [run_id, pair_ids]).fetchall()
    return {p for p, ok in rows if ok}, [p for p, ok in rows if not ok]


def _delete_rows(conn, run_id: str, pair_ids: list[str]) -> None:
    """Remove the pairs' output, metric and error rows from the run (a failure being replaced)."""
    if pair_ids:
        for table in ("judge_outputs", "metric_values", "judge_errors"):
            conn.execute(f"DELETE FROM {table} WHERE run_id = ? AND pair_id IN (SELECT unnest(?::VARCHAR[]))",
                         [run_id, pair_ids])  # table: one of three fixed names


def answered_pair_ids(store: Store, run_id: str) -> set[str]:
    """The pairs the run holds an answer for (a recorded failure is not one)."""
    return set(store.query_df("SELECT pair_id FROM judge_outputs WHERE run_id = ? AND error IS NULL",
                              [run_id])["pair_id"])


def answered_keys(store: Store, keys: list[str]) -> set[str]:
    """The cache keys among ``keys`` that a stored successful answer holds, in any run (a recorded failure
    holds none): a run reuses those answers instead of sending their prompts."""
    if not keys:
        return set()
    return set(store.query_df("SELECT DISTINCT cache_key FROM judge_outputs WHERE error IS NULL "
                              "AND cache_key IN (SELECT unnest(?::VARCHAR[]))", [sorted(set(keys))])["cache_key"])


def unanswered_pairs(store: Store, run_id: str, pairs: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``pairs`` the run holds no answer for yet (recorded failures are tried again)."""
    return pairs[~pairs["pair_id"].isin(answered_pair_ids(store, run_id))]


def resume_run(store: Store, spec: RunSpec, pairs: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    """Open (or reopen) the run of ``spec`` over ``pairs``: its run id and the pairs still to answer."""
    run_id = ensure_run(store, spec, len(pairs))
    return run_id, unanswered_pairs(store, run_id, pairs)


def insert_output_frames(conn, tag: str, out_df: pd.DataFrame, met_df: pd.DataFrame,
                         err_df: pd.DataFrame) -> None:
    """Insert output rows (``out_df``'s columns of judge_outputs), metric values and error texts on ``conn``.

    The frames are registered as ``{tag}_out``, ``{tag}_met`` and ``{tag}_err`` for the statements only.
    """
    conn.register(f"{tag}_out", out_df)
    conn.execute(f"INSERT INTO judge_outputs ({', '.join(out_df.columns)}) SELECT * FROM {tag}_out")
    conn.unregister(f"{tag}_out")
    if len(met_df):
        conn.register(f"{tag}_met", met_df)
        insert_metric_values(conn, f"SELECT * FROM {tag}_met")
        conn.unregister(f"{tag}_met")
    if len(err_df):
        conn.register(f"{tag}_err", err_df)
        conn.execute(f"INSERT INTO judge_errors SELECT * FROM {tag}_err")
        conn.unregister(f"{tag}_err")


def write_outputs(store: Store, run_id: str, records: list[OutputRecord], prompt_id: str | None = None,
                  finish: str | None = None) -> dict | None:
    """Commit a batch of outputs with their parsed metrics and errors, atomically.

    Reconciled with the run in the same transaction (see the module
    docstring): records for pairs already answered are dropped, recorded
    failures are replaced. With ``finish`` (a final status) the run is closed
    in the same transaction and its totals returned.
    """
    records = _dedupe(records)
    if not records:
        return finish_run(store, run_id, finish) if finish else None
    options = run_parse_options(store, run_id) if answer_reader(prompt_id) else None
    parsed = {rec.pair_id: parsed_rows(run_id, rec, prompt_id, options) for rec in records}  # outside the lock
    with store.write() as conn:
        answered, failed = _reconcile(conn, run_id, list(parsed))
        rows = [v for k, v in parsed.items() if k not in answered]
        _delete_rows(conn, run_id, failed)
        if rows:
            out_df = pd.DataFrame([o for o, _, _ in rows], columns=_OUT_COLS).astype(
                {"latency_ms": "Float64", "cost_usd": "Float64", "tokens_in": "Int64", "tokens_out": "Int64"})
            met_df = pd.DataFrame([m for _, ms, _ in rows for m in ms], columns=["run_id", "pair_id", "metric",
                                                                                 "value"])
            err_df = pd.DataFrame([e for _, _, es in rows for e in es],
                                  columns=["run_id", "pair_id", "significant", "category", "text"])
            insert_output_frames(conn, "batch", out_df, met_df, err_df)
        return _finish(conn, run_id, finish) if finish else None


def copy_cached_outputs(store: Store, run_id: str, prompt_id: str, hits: list[tuple[str, str]]) -> set[str]:
    """Answer pairs from stored answers with the same cache key, copying what was parsed from them.

    ``hits`` holds ``(pair_id, cache_key)``. A stored answer qualifies when it
    is not a failure and its run used the same ``prompt_id`` (what the answer
    is parsed as); its output row, metric values and error texts are copied
    under ``run_id`` in one transaction (latency and cost 0: no call was made),
    so a cache hit costs a few SQL statements instead of parsing every answer
    again. Reconciled with the run like :func:`write_outputs`. Returns the
    pairs of ``hits`` that hold an answer in the run afterwards (copied now, or
    stored meanwhile by another writer); the caller handles the rest.
    """
    if not hits:
        return set()
    frame = pd.DataFrame(hits, columns=["pair_id", "cache_key"]).drop_duplicates("pair_id")
    # one source answer per cache key: the first by (run, pair), so the choice is reproducible
    src_sql = ("SELECT DISTINCT ON (o.cache_key) o.cache_key, o.run_id AS src_run, o.pair_id AS src_pair, "
               "o.raw_text, o.parse_status, o.parse_reason FROM judge_outputs o JOIN judge_runs r USING (run_id) "
               "WHERE o.error IS NULL AND r.prompt_id = ? AND o.cache_key IN (SELECT cache_key FROM cc_hits) "
               "{same_map}ORDER BY o.cache_key, o.run_id, o.pair_id")
    # a CRIMSON answer's categories depend on the run's category map: copied only from runs with the same one
    own_map = run_parse_options(store, run_id).get("crimson_map") if answer_reader(prompt_id) else None
    with store.write() as conn:
        answered, failed = _reconcile(conn, run_id, list(frame["pair_id"]))
        frame = frame[~frame["pair_id"].isin(answered)]
        args: list = [prompt_id]
        if answer_reader(prompt_id):
            runs = conn.execute("SELECT run_id, params FROM judge_runs WHERE prompt_id = ?", [prompt_id]).fetchall()
            args.append([r for r, p in runs if json.loads(p or "{}").get("crimson_map") == own_map])
        src_sql = src_sql.format(same_map="AND o.run_id IN (SELECT unnest(?::VARCHAR[])) " if len(args) > 1 else "")
        conn.register("cc_hits", frame)
        conn.execute(f"CREATE TEMP TABLE cc_src AS SELECT h.pair_id, s.* FROM cc_hits h JOIN ({src_sql}) s "
                     "USING (cache_key)", args)
        conn.unregister("cc_hits")
        copied = set(conn.execute("SELECT pair_id FROM cc_src").df()["pair_id"])
        _delete_rows(conn, run_id, [p for p in failed if p in copied])
        conn.execute("INSERT INTO judge_outputs (run_id, pair_id, cache_key, raw_text, parse_status, parse_reason, "
                     "latency_ms, cost_usd) SELECT ?, pair_id, cache_key, raw_text, parse_status, parse_reason, "
                     "0.0, 0.0 FROM cc_src", [run_id])
        insert_metric_values(conn, "SELECT ? AS run_id, c.pair_id, m.metric, m.value FROM cc_src c "
                             "JOIN metric_values m ON m.run_id = c.src_run AND m.pair_id = c.src_pair", [run_id])
        conn.execute("INSERT INTO judge_errors SELECT ?, c.pair_id, e.significant, e.category, e.text FROM cc_src c "
                     "JOIN judge_errors e ON e.run_id = c.src_run AND e.pair_id = c.src_pair", [run_id])
        conn.execute("DROP TABLE cc_src")
    return copied | answered


# finished_at: the last time the run stored something, so a re-run that sends nothing leaves it alone
_FINISH_SQL = (
    "UPDATE judge_runs SET status = ?, "
    "finished_at = CASE WHEN judge_runs.finished_at IS NULL OR c.last > judge_runs.finished_at "
    "                   THEN current_timestamp ELSE judge_runs.finished_at END, "
    "n_ok = c.ok, n_failed = c.failed, cost_usd = c.cost "
    "FROM (SELECT max(created_at) AS last, count(*) FILTER (WHERE error IS NULL) AS ok, "
    "             count(*) FILTER (WHERE error IS NOT NULL) AS failed, "
    # one answer with an unknown price makes the run's cost unknown, never an undercount
    "             CASE WHEN count(*) FILTER (WHERE error IS NULL AND cost_usd IS NULL) > 0 THEN NULL "
    "                  ELSE coalesce(sum(cost_usd), 0) END AS cost "
    "      FROM judge_outputs WHERE run_id = ?) c "
    "WHERE judge_runs.run_id = ?")


def _finish(conn, run_id: str, status: str) -> dict:
    conn.execute(_FINISH_SQL, [status, run_id, run_id])
    row = conn.execute("SELECT n_ok, n_failed, cost_usd FROM judge_runs WHERE run_id = ?", [run_id]).fetchone()
    unparsed = conn.execute(UNPARSED_SQL, [run_id]).fetchone()[0]
    return {"ok_total": row[0], "failed_total": row[1], "cost_total": row[2], "unparsed_total": unparsed}


# Answers that came back but could not be read as the prompt's format (stored, counted apart from n_ok).
UNPARSED_SQL = "SELECT count(*) FROM judge_outputs WHERE run_id = ? AND error IS NULL AND parse_status = 'failed'"


def finish_run(store: Store, run_id: str, status: str) -> dict:
    """Recount the run from its outputs and set its final status."""
    with store.write() as conn:
        return _finish(conn, run_id, status)


def load_pairs(store: Store, dataset: str, pair_ids: list[str] | None = None, limit: int | None = None,
               ) -> pd.DataFrame:
    """The pairs a run covers, in a stable order (by ext_id), with their patient context (``age``, ``sex``,
    ``indication``, ``history``: NULL when unknown; ``core.reads.context.context_dict(row)`` gives a row's
    context as the dict context-aware prompts take)."""
    sql = f"SELECT pair_id, ext_id, reference, candidate, {', '.join(CONTEXT_FIELDS)} FROM pairs WHERE dataset = ?"
    params: list = [dataset]
    if pair_ids is not None:
        sql += " AND pair_id IN (SELECT unnest(?::VARCHAR[]))"
        params.append(list(pair_ids))
    sql += " ORDER BY ext_id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(int(limit))
    df = store.query_df(sql, params)
    if df.empty and store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]) == 0:
        raise ValueError(f"dataset '{dataset}' not found")
    return df
