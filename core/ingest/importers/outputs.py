"""Importing judge outputs produced elsewhere as an ``imported`` run: GREEN-format text or one score per pair
(:func:`import_outputs`), or CRIMSON's JSON answers (:func:`import_crimson_outputs`)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from core.ingest.importers import validation
from core.ingest.importers.common import (
    ImportProgress,
    ImportReport,
    ImportValidationError,
    limit_problems,
    tick_progress,
)
from core.ingest.importers.reading import (
    check_scalar_cells,
    decode_text,
    read_bytes,
    read_table,
    require_columns,
)
from core.store.db import Store, insert_metric_values, stable_hash


def imported_run_id(dataset: str, judge: str) -> str:
    return "imp-" + stable_hash("imported", dataset, judge, length=16)


def import_outputs(store: Store, data, *, dataset: str, judge: str, id_col: str,
                   text_col: str | None = None, score_col: str | None = None, metric: str | None = None,
                   name: str | None = None, progress: ImportProgress | None = None,
                   higher_is_better: bool | None = None) -> ImportReport:
    """Store judge outputs produced elsewhere as an ``imported`` run.

    Text mode keeps the raw judge text and parses it (GREEN format) into
    counts, error texts and metrics. Score mode stores one numeric metric;
    ``higher_is_better`` records its orientation in the run's params (the
    sign check of every correlation uses it; a built-in metric's is fixed).
    Without it a metric outside :data:`core.analysis.scores.METRICS` is assumed
    higher-is-better, and the tables say the orientation was assumed.
    """
    dataset = validation.check_dataset_name(dataset)
    judge = (judge or "").strip()
    if not judge:
        raise ImportValidationError(["give the judge's name (--judge)"])
    if (text_col is None) == (score_col is None):
        raise ImportValidationError(["give either a text column or a score column (not both)"])
    if score_col is not None:
        metric = (metric or judge).strip()
        from core.analysis.scores import METRICS

        spec = METRICS.get(metric)
        if spec is not None and higher_is_better is not None and higher_is_better != spec.higher_is_better:
            raise ImportValidationError([f"'{metric}' is a built-in metric: "
                                         f"{'higher' if spec.higher_is_better else 'lower'} is better, always; "
                                         "import your score under another metric name"])
    elif higher_is_better is not None:
        raise ImportValidationError(["an orientation (lower/higher is better) applies to a score column only"])
    tick_progress(progress, 0, 3, "reading")
    validation.require_dataset(store, dataset)
    df = read_table(data, name)
    require_columns(df, {"id": id_col, "text": text_col, "score": score_col})
    tick_progress(progress, 1, 3, "validating")
    problems: list[str] = []
    check_scalar_cells(df, [id_col, text_col, score_col], problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    ids = validation.column_ids(df, id_col, problems)
    validation.check_duplicates(ids, "id", problems)
    pair_ids = validation.match_ids(ids, validation.pair_lookup(store, dataset), dataset, problems)
    run_id = imported_run_id(dataset, judge)
    outputs, metrics, errors = [], [], []
    if score_col is not None:
        for i, (pid, raw) in enumerate(zip(pair_ids, df[score_col].tolist(), strict=True), start=1):
            v = validation.cell_number(raw)
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
        raise ImportValidationError(limit_problems(problems))
    params = {"source": name or validation.source_label(data), "mode": "score" if score_col else "text",
              "metric": metric, "higher_is_better": higher_is_better}
    return _store_imported(store, run_id, judge, dataset, params, outputs, metrics, errors, progress)


#: What a run holds, by the kind of import that made it (params["mode"]); text and score columns are one kind.
_KIND_WORDS = {"green": "GREEN-format text or scores", "crimson": "CRIMSON answers",
               "radeval": "RadEval per-sample results"}


def import_kind(mode: str | None) -> str | None:
    """The kind of import a run's ``params["mode"]`` stands for: one judge name holds one kind."""
    return "green" if mode in ("text", "score") else mode


def _store_imported(store: Store, run_id: str, judge: str, dataset: str, params: dict, outputs: list,
                    metrics: list, errors: list, progress: ImportProgress | None, warnings: list[str] | None = None,
                    ) -> ImportReport:
    """Write an imported run's rows in one transaction; pairs the run already holds are kept (skipped)."""
    higher_is_better = params.get("higher_is_better")
    out_df = pd.DataFrame(outputs, columns=["run_id", "pair_id", "cache_key", "raw_text", "parse_status",
                                            "parse_reason"])
    met_df = pd.DataFrame(metrics, columns=["run_id", "pair_id", "metric", "value"])
    err_df = pd.DataFrame(errors, columns=["run_id", "pair_id", "significant", "category", "text"])
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        run = conn.execute("SELECT judge_kind, params FROM judge_runs WHERE run_id = ?", [run_id]).fetchone()
        held = json.loads(run[1] or "{}") if run is not None else {}
        if run is not None and import_kind(held.get("mode")) != import_kind(params["mode"]):
            what = _KIND_WORDS.get(import_kind(held.get("mode")), f"outputs of mode {held.get('mode')!r}")
            raise ImportValidationError([f"judge '{judge}' already holds imported {what} on dataset '{dataset}': "
                                         "import these under another --judge name"])
        if run is not None and held.get("crimson_map") != params.get("crimson_map"):
            raise ImportValidationError([f"judge '{judge}' holds CRIMSON answers categorised with another "
                                         f"--crimson-map ({held.get('crimson_map') or 'the default'}): import "
                                         "these under another --judge name"])
        if run is not None and higher_is_better is not None:  # a later import may declare the orientation
            conn.execute("UPDATE judge_runs SET params = ? WHERE run_id = ?",
                         [json.dumps(held | {"higher_is_better": higher_is_better}), run_id])
        if run is None:
            conn.execute(
                "INSERT INTO judge_runs (run_id, judge_kind, judge_name, model, params, dataset, status, "
                "finished_at) VALUES (?, 'imported', ?, ?, ?, ?, 'done', current_timestamp)",
                [run_id, judge, judge, json.dumps(params), dataset],
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
    tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(out_df), added=len(new_ids),
                        skipped=len(out_df) - len(new_ids), run_id=run_id, warnings=list(warnings or []))


def _crimson_table(data, name: str | None) -> tuple[pd.DataFrame, str | None]:
    """The rows of a file of CRIMSON answers: any table read_table reads, or the JSON that CRIMSON's
    evaluate_reports.py writes (``{"average": ..., "results": [{"id": ..., "raw_evaluation": {...}}, ...]}``).

    Both are read and decoded as every import is (UTF-8 with or without its BOM, UTF-16 with a BOM)."""
    if isinstance(data, pd.DataFrame):
        return read_table(data, name), name
    raw, label = read_bytes(data, name)
    if label is None or Path(label).suffix.lower() == ".json":
        try:
            text = decode_text(raw, label)
        except ImportValidationError:
            text = ""  # read_table below says what is wrong with the bytes
        obj = None
        if text.lstrip()[:1] == "{":
            try:
                obj = json.loads(text)
            except (ValueError, RecursionError):
                obj = None
        if isinstance(obj, dict) and isinstance(obj.get("results"), list):
            label = label or validation.source_label(data)
            return read_table(json.dumps(obj["results"]).encode("utf-8"), f"{label}.json"), label
    return read_table(raw, label), label


def _answer_text(value: object) -> str:
    """A cell of the answers column as the raw answer: text as given, a JSON object or list written back."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def import_crimson_outputs(store: Store, data, *, dataset: str, judge: str, id_col: str, text_col: str,
                           score_col: str | None = None, crimson_map: str | None = None, name: str | None = None,
                           progress: ImportProgress | None = None) -> ImportReport:
    """Store CRIMSON answers produced elsewhere (e.g. by the CRIMSON package) as an ``imported`` run.

    Each answer (a JSON string, or an object in a JSON file) is parsed and scored exactly as a CRIMSON run's
    (:func:`core.parse.crimson.parse_crimson`): the score, the counts, the weighted counts, the ReXVal
    categories under ``crimson_map`` and the error texts. An answer that cannot be read is stored as a failed
    output with its reason, never as zeros, as GREEN text imports do. Ids that do not match the dataset,
    repeated ids and unreadable cells refuse the whole file, every bad row named. With ``score_col`` (the
    file's own CRIMSON score) every row whose score differs from the recomputed one is named in a warning.
    """
    from core.judges.runs import parsed_metrics
    from core.parse.crimson import DEFAULT_MAP, parse_category_map, parse_crimson

    dataset = validation.check_dataset_name(dataset)
    judge = (judge or "").strip()
    missing = [flag for flag, v in (("--judge", judge), ("--id-col", id_col), ("--text-col", text_col)) if not v]
    if missing:
        raise ImportValidationError([f"give {', '.join(missing)}: CRIMSON answers are a table (or CRIMSON's results "
                                     "JSON) with an id column and a column of JSON answers, under a judge's name"])
    try:
        mapping = parse_category_map(crimson_map)
    except ValueError as exc:
        raise ImportValidationError([str(exc)]) from None
    tick_progress(progress, 0, 3, "reading")
    validation.require_dataset(store, dataset)
    df, label = _crimson_table(data, name)
    require_columns(df, {"id": id_col, "answer": text_col, "score": score_col})
    tick_progress(progress, 1, 3, "validating")
    problems: list[str] = []
    check_scalar_cells(df, [id_col, score_col], problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    ids = validation.column_ids(df, id_col, problems)
    validation.check_duplicates(ids, "id", problems)
    pair_ids = validation.match_ids(ids, validation.pair_lookup(store, dataset), dataset, problems)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    run_id = imported_run_id(dataset, judge)
    outputs, metrics, errors, warnings = [], [], [], []
    given = df[score_col].tolist() if score_col else [None] * len(df)
    for i, (pid, cell, stated) in enumerate(zip(pair_ids, df[text_col].tolist(), given, strict=True), start=1):
        text = _answer_text(cell)
        result = parse_crimson(text, mapping)
        outputs.append((run_id, pid, None, text, result.status, result.reason))
        metrics.extend((run_id, pid, k, v) for k, v in parsed_metrics(result).items())
        errors.extend((run_id, pid, e.significant, e.category, e.text) for e in result.errors)
        number = validation.cell_number(stated) if stated is not None else None
        if result.status == "failed":
            warnings.append(f"row {i} (id {ids[i - 1]}): not scored: {result.reason}")
        elif number is not None and not math.isnan(number) and abs(number - result.metrics["crimson"]) > 5e-5:
            warnings.append(f"row {i} (id {ids[i - 1]}): the file's score {number:g} differs from the score "
                            f"recomputed from its evaluation, {result.metrics['crimson']:g}")
    spec = mapping.spec()
    params = {"source": label or validation.source_label(data), "mode": "crimson", "metric": "crimson",
              "higher_is_better": None, "crimson_map": None if spec == DEFAULT_MAP.spec() else spec}
    return _store_imported(store, run_id, judge, dataset, params, outputs, metrics, errors, progress,
                           limit_problems(warnings) if warnings else None)
