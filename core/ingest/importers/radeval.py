"""Importing RadEval's per-sample results as one ``imported`` run, every metric at once.

``RadEval(metrics=[...], per_sample=True)`` (jbdel/RadEval, ``radeval/radeval.py``) returns one flat JSON
object: metric name -> list of numbers, one per report, in the order of the references it was given.
It writes no ids, so the pair ids come beside it in that same order: a file with one id per line, or a
column of a CSV/TSV/JSONL/Parquet file (``id_col``). Nested values (RadEval's ``detailed`` breakdowns,
its default one-number-per-metric output) are refused with the reason, as are values that are not
numbers (null, NaN, text), lists of another length than the ids, repeated or unknown ids.

Each metric's orientation comes from :data:`RADEVAL_METRICS` and is recorded in the run's params
(``orientations``: metric -> higher_is_better), where :func:`core.reads.frames.declared_orientations`
reads it for every table's sign check. A name not in the table is imported, assumed higher-is-better
and flagged (``orientation_assumed``), as ``import-outputs`` flags an undeclared score column.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
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
from core.ingest.importers.outputs import import_kind, imported_run_id
from core.ingest.importers.reading import decode_text, read_bytes, read_table
from core.store.db import Store, insert_metric_values

__all__ = ["RADEVAL_METRICS", "RadEvalMetric", "RadEvalReport", "import_radeval", "read_ids",
           "read_radeval_results"]

MODE = "radeval"  # the run's params["mode"]: one judge name holds one kind of import
MAX_LISTED_PER_METRIC = 5  # bad values named per metric; the rest counted


@dataclass(frozen=True)
class RadEvalMetric:
    """One per-sample key RadEval writes: its orientation and what the value is."""

    higher_is_better: bool
    what: str


#: Every key RadEval 2.x writes with ``per_sample=True`` (its registry ``radeval/metrics/_registry.py`` and
#: each adapter's per-sample branch), with its orientation. ``radcliq_v1`` is the one that falls as reports
#: get better: RadEval's *aggregate* is 1/mean(RadCliQ-v1), higher is better, but its per-sample list holds
#: each report's raw RadCliQ-v1 (``RadCliQv1/adapter.py`` returns ``detail_scores`` as they come out of the
#: linear model), and lower raw RadCliQ means fewer errors.
RADEVAL_METRICS: dict[str, RadEvalMetric] = {
    "bleu": RadEvalMetric(True, "BLEU-4 of the report against its reference"),
    "rouge1": RadEvalMetric(True, "ROUGE-1 F-measure"),
    "rouge2": RadEvalMetric(True, "ROUGE-2 F-measure"),
    "rougeL": RadEvalMetric(True, "ROUGE-L F-measure"),
    "bertscore": RadEvalMetric(True, "BERTScore F1 (distilbert-base-uncased)"),
    "radeval_bertscore": RadEvalMetric(True, "BERTScore F1 with RadEval's radiology encoder (RadEvalModernBERT)"),
    "f1chexbert_sample_acc_5": RadEvalMetric(True, "share of the 5 main CheXpert conditions whose CheXbert labels agree"),
    "f1chexbert_sample_acc_all": RadEvalMetric(True, "share of the 14 CheXpert conditions whose CheXbert labels agree"),
    "f1radbert_ct_sample_acc": RadEvalMetric(True, "share of the CT findings whose RadBERT-CT labels agree"),
    "radgraph_simple": RadEvalMetric(True, "F1RadGraph, simple reward (entities)"),
    "radgraph_partial": RadEvalMetric(True, "F1RadGraph, partial reward (entities and relations)"),
    "radgraph_complete": RadEvalMetric(True, "F1RadGraph, complete reward (entities with all relations)"),
    "radgraph_radcliq": RadEvalMetric(True, "(entity F1 + relation F1) / 2, RadGraph as in RadCliQ-v1"),
    "ratescore": RadEvalMetric(True, "RaTEScore (entity-level, synonym-aware)"),
    "radcliq_v1": RadEvalMetric(False, "raw RadCliQ-v1 of the report (estimated errors; per sample, not inverted)"),
    "srrbert_weighted_f1": RadEvalMetric(True, "SRR-BERT weighted F1 over the report's finding/status labels"),
    "srrbert_weighted_precision": RadEvalMetric(True, "SRR-BERT weighted precision"),
    "srrbert_weighted_recall": RadEvalMetric(True, "SRR-BERT weighted recall"),
    "temporal_f1": RadEvalMetric(True, "F1 of the temporal entities (new, stable, worsening, ...)"),
    "green": RadEvalMetric(True, "GREEN: matched / (matched + significant errors)"),
    "mammo_green": RadEvalMetric(True, "MammoGREEN (mammography GREEN by an API model)"),
    "crimson": RadEvalMetric(True, "CRIMSON, in (-1, 1]: 1 a perfect report, below 0 more weighted errors than findings"),
    "radfact_ct_precision": RadEvalMetric(True, "RadFact-CT logical precision, in percent"),
    "radfact_ct_recall": RadEvalMetric(True, "RadFact-CT logical recall, in percent"),
    "radfact_ct_f1": RadEvalMetric(True, "RadFact-CT logical F1, in percent"),
}


@dataclass
class RadEvalReport(ImportReport):
    """An import's counts (``rows``, ``added``, ``skipped`` count metric values), its pairs, and each
    metric's orientation in words (``higher is better``, ``lower is better``, ``assumed higher is better``)."""

    pairs: int = 0
    metrics: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        return super().to_json() | {"pairs": self.pairs, "metrics": self.metrics}


class _Object(dict):
    """A JSON object that remembers the keys it saw twice (``json.loads`` keeps the last silently)."""

    def __init__(self, pairs):
        super().__init__()
        self.repeated = []
        for key, value in pairs:
            if key in self and key not in self.repeated:
                self.repeated.append(key)
            self[key] = value


def _read(source, name: str | None, what: str) -> tuple[str, str]:
    """A file's text and its name (``what`` when it has none), read as every importer reads its files."""
    data, name = read_bytes(source, name, f"{what} file")
    name = name or what
    return decode_text(data, name), name


def read_radeval_results(source, name: str | None = None) -> dict[str, list]:
    """RadEval's per-sample JSON object (a path, bytes, a binary file or an already-loaded dict).

    Returns metric -> list as written; refuses (``ImportValidationError``, every problem named) anything
    that is not a JSON object of lists: RadEval's default output (one number per metric), its detailed
    breakdowns (nested objects), repeated or invisible metric names. The values are checked later,
    against the ids.
    """
    if isinstance(source, dict):
        obj, name = source, name or "RadEval results"
    else:
        text, name = _read(source, name, "RadEval results")
        if not text.strip():
            raise ImportValidationError([f"'{name}' is empty"])
        try:
            obj = json.loads(text, object_pairs_hook=_Object)
        except json.JSONDecodeError as exc:
            raise ImportValidationError([f"'{name}' is not valid JSON: {exc}"]) from exc
        except RecursionError as exc:
            raise ImportValidationError([f"'{name}': JSON nested too deeply to read"]) from exc
    if not isinstance(obj, dict):
        kind = "a list" if isinstance(obj, list) else type(obj).__name__
        raise ImportValidationError([f"'{name}' holds {kind}, not a JSON object; RadEval's per-sample results are "
                                     "one object: metric name -> list of numbers, one per report"])
    if not obj:
        raise ImportValidationError([f"'{name}' is an empty JSON object: no metric to import"])
    problems = [f"metric '{k}' appears more than once in the object" for k in getattr(obj, "repeated", [])]
    for key, value in obj.items():
        shown = validation.hidden_character(str(key))
        if not str(key).strip() or shown or len(str(key)) > 200:
            why = f"holds {shown}" if shown else "is empty" if not str(key).strip() else "is over 200 characters"
            problems.append(f"metric name {str(key)[:40]!r} {why}")
        elif isinstance(value, dict) and _has_sample_scores(value):
            problems.append(f"metric '{key}' holds an object with sample_scores: the layout of RadEval's first "
                            "releases (do_details=True); run a current RadEval with per_sample=True")
        elif isinstance(value, dict):
            problems.append(f"metric '{key}' holds an object, not a list: RadEval's detailed breakdown, not "
                            "per-sample scores; run RadEval with per_sample=True (or remove this key)")
        elif not isinstance(value, list):
            problems.append(f"metric '{key}' holds one {_kind(value)}, not a list: RadEval's default (aggregate) "
                            "output; run RadEval with per_sample=True")
    if problems:
        raise ImportValidationError(limit_problems(problems))
    return {str(k): v for k, v in obj.items()}


def _has_sample_scores(value: dict) -> bool:
    """RadEval 0.x's ``do_details`` layout: {"mean_score", "sample_scores"}, possibly one level down (rouge)."""
    return "sample_scores" in value or any(isinstance(v, dict) and "sample_scores" in v for v in value.values())


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, float) and math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, str):
        return f"text {value[:30]!r}"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return "number" if isinstance(value, (int, float)) else type(value).__name__


_TABLE_SUFFIXES = {".csv", ".tsv", ".tab", ".jsonl", ".ndjson", ".parquet", ".pq"}


def read_ids(source, name: str | None = None, id_col: str | None = None) -> tuple[list[str | None], list[str]]:
    """The pair ids in RadEval's order and the problems found in them (empty ids, named by line or row).

    ``source``: a list of ids, or a file (path, bytes, binary file) holding one id per line, or, with
    ``id_col``, a CSV/TSV/JSONL/Parquet table whose column ``id_col`` holds them. Blank lines at the end
    of a text file are ignored; one in the middle is a problem (it would shift every later id).
    """
    problems: list[str] = []
    if isinstance(source, (list, tuple)):
        ids = [validation.cell_text(v) for v in source]
        problems += [f"id {i}: empty" for i, v in enumerate(ids, start=1) if v is None]
        return ids, problems
    if id_col is not None:
        df = read_table(source, name)
        if id_col not in df.columns:
            raise ImportValidationError([f"column '{id_col}' (ids) not found in the ids file; its columns are: "
                                         f"{', '.join(map(str, df.columns))}"])
        return validation.column_ids(df, id_col, problems), problems
    data, name = read_bytes(source, name, "ids file")
    name = name or "ids"
    if Path(name).suffix.lower() in _TABLE_SUFFIXES:
        raise ImportValidationError([f"'{name}' looks like a table: say which column holds the ids (--id-col), "
                                     "or give a text file with one id per line"])
    lines = decode_text(data, name).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    ids = [line.strip() or None for line in lines]
    problems += [f"ids line {i}: empty id" for i, v in enumerate(ids, start=1) if v is None]
    return ids, problems


def _value_problems(metric: str, values: list, ids: list[str | None]) -> list[str]:
    """Every value that is not a finite number, named with its position and id (the first few per metric)."""
    bad = []
    for i, v in enumerate(values, start=1):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            bad.append((i, v))
    if not bad:
        return []
    if len(bad) == len(values) and all(isinstance(v, str) for _, v in bad):
        return [f"metric '{metric}': every value is text, not a number (RadEval writes numbers only; the ids go "
                "in the ids file)"]
    out = []
    for i, v in bad[:MAX_LISTED_PER_METRIC]:
        where = f" (id '{ids[i - 1]}')" if i <= len(ids) and ids[i - 1] is not None else ""
        out.append(f"metric '{metric}' value {i}{where}: {_kind(v)} is not a number")
    if len(bad) > MAX_LISTED_PER_METRIC:
        out.append(f"metric '{metric}': {len(bad) - MAX_LISTED_PER_METRIC} more value(s) that are not numbers")
    return out


def orientation_words(metric: str) -> str:
    spec = RADEVAL_METRICS.get(metric)
    if spec is None:
        return "assumed higher is better"
    return "higher is better" if spec.higher_is_better else "lower is better"


def import_radeval(store: Store, results, ids, *, dataset: str, judge: str = "radeval", id_col: str | None = None,
                   results_name: str | None = None, ids_name: str | None = None,
                   progress: ImportProgress | None = None) -> RadEvalReport:
    """Store RadEval's per-sample results for ``dataset`` as one imported run named ``judge``.

    ``results``: RadEval's JSON (see :func:`read_radeval_results`); ``ids``: the pair ids in the same order
    (see :func:`read_ids`). All or nothing: any problem (every one is named) stores nothing. Importing the
    same file again adds nothing; a later file may add pairs or metrics to the run, but a value already
    stored for a (pair, metric) is never replaced: a different one is refused.
    """
    dataset = validation.check_dataset_name(dataset)
    judge = (judge or "").strip()
    if not judge:
        raise ImportValidationError(["give the judge's name (--judge)"])
    tick_progress(progress, 0, 3, "reading")
    validation.require_dataset(store, dataset)
    table = read_radeval_results(results, results_name)
    pair_ext, problems = read_ids(ids, ids_name, id_col)
    tick_progress(progress, 1, 3, "validating")
    if not pair_ext:
        raise ImportValidationError(["the ids file holds no ids"])
    validation.check_duplicates(pair_ext, "id", problems)
    pair_ids = validation.match_ids(pair_ext, validation.pair_lookup(store, dataset), dataset, problems)
    for metric, values in table.items():
        if len(values) != len(pair_ext):
            problems.append(f"metric '{metric}' has {len(values):,} values, the ids file {len(pair_ext):,} ids: "
                            "RadEval writes one value per report, in the order of the ids")
        problems += _value_problems(metric, values, pair_ext)
    if problems:
        raise ImportValidationError(limit_problems(problems))
    run_id = imported_run_id(dataset, judge)
    frames = [pd.DataFrame({"run_id": run_id, "pair_id": pair_ids, "metric": metric,
                            "value": pd.Series(values, dtype="float64")}) for metric, values in table.items()]
    incoming = pd.concat(frames, ignore_index=True)
    orientations = {m: RADEVAL_METRICS[m].higher_is_better for m in table if m in RADEVAL_METRICS}
    assumed = sorted(m for m in table if m not in RADEVAL_METRICS)
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = _write(conn, run_id, judge, dataset, incoming, pair_ids, orientations, assumed,
                       results_name or validation.source_label(results))
    tick_progress(progress, 3, 3, "done")
    warnings = [f"metric '{m}' is not in RadConcord's table of RadEval metrics: imported as higher-is-better, and "
                "the tables flag its orientation as assumed" for m in assumed]
    return RadEvalReport(dataset=dataset, rows=len(incoming), added=added, skipped=len(incoming) - added,
                         warnings=warnings, run_id=run_id, pairs=len(pair_ids),
                         metrics={m: orientation_words(m) for m in table})


def _write(conn, run_id: str, judge: str, dataset: str, incoming: pd.DataFrame, pair_ids: list[str],
           orientations: dict[str, bool], assumed: list[str], source: str | None) -> int:
    """One transaction's work: the run (created, or its params merged), an output per new pair, the new
    values. A stored value that differs from the file's raises, and the transaction rolls back."""
    run = conn.execute("SELECT params FROM judge_runs WHERE run_id = ?", [run_id]).fetchone()
    params = json.loads(run[0] or "{}") if run is not None else {}
    if run is not None and import_kind(params.get("mode")) != MODE:
        raise ImportValidationError([f"judge '{judge}' of dataset '{dataset}' already holds imported outputs of "
                                     f"another kind ({params.get('mode') or 'unknown'}); import RadEval's results "
                                     "under another --judge name"])
    conn.register("incoming_values", incoming)
    changed = conn.execute(
        "SELECT p.ext_id, i.metric, m.value AS stored, i.value AS given FROM incoming_values i "
        "JOIN metric_values m ON m.run_id = i.run_id AND m.pair_id = i.pair_id AND m.metric = i.metric "
        "JOIN pairs p ON p.pair_id = i.pair_id WHERE m.value IS DISTINCT FROM i.value "
        "ORDER BY p.ext_id, i.metric").fetchall()
    if changed:
        conn.unregister("incoming_values")
        shown = [f"id '{ext}': metric '{metric}' is stored as {stored!r}, the file says {given!r}"
                 for ext, metric, stored, given in changed[:10]]
        raise ImportValidationError(
            [*shown, *([f"... {len(changed) - 10} more stored value(s) differ"] if len(changed) > 10 else []),
             f"a stored value is never replaced: import this file under another --judge name than '{judge}'"])
    merged = {
        "source": params.get("source") or source, "mode": MODE,
        "metrics": sorted(set(params.get("metrics") or []) | set(incoming["metric"].unique())),
        "orientations": (params.get("orientations") or {}) | orientations,
        "assumed": sorted(set(params.get("assumed") or []) | set(assumed)),
    }
    if run is None:
        conn.execute(
            "INSERT INTO judge_runs (run_id, judge_kind, judge_name, model, params, dataset, status, finished_at) "
            "VALUES (?, 'imported', ?, ?, ?, ?, 'done', current_timestamp)",
            [run_id, judge, judge, json.dumps(merged), dataset])
    else:
        conn.execute("UPDATE judge_runs SET params = ? WHERE run_id = ?", [json.dumps(merged), run_id])
    conn.register("incoming_pairs", pd.DataFrame({"run_id": run_id, "pair_id": pd.Series(pair_ids, dtype=object)}))
    conn.execute(
        "INSERT INTO judge_outputs (run_id, pair_id, parse_status) SELECT i.run_id, i.pair_id, 'ok' "
        "FROM incoming_pairs i ANTI JOIN judge_outputs o ON o.run_id = i.run_id AND o.pair_id = i.pair_id")
    before = conn.execute("SELECT count(*) FROM metric_values WHERE run_id = ?", [run_id]).fetchone()[0]
    insert_metric_values(conn, "SELECT i.run_id, i.pair_id, i.metric, i.value FROM incoming_values i "
                               "ANTI JOIN metric_values m ON m.run_id = i.run_id AND m.pair_id = i.pair_id "
                               "AND m.metric = i.metric")
    after = conn.execute("SELECT count(*) FROM metric_values WHERE run_id = ?", [run_id]).fetchone()[0]
    conn.execute(
        "UPDATE judge_runs SET n_requested = c.n, n_ok = c.n, n_failed = 0 "
        "FROM (SELECT count(*) AS n FROM judge_outputs WHERE run_id = ?) c WHERE run_id = ?", [run_id, run_id])
    conn.unregister("incoming_pairs")
    conn.unregister("incoming_values")
    return int(after - before)
