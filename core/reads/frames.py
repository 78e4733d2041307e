"""From the store to the tidy frames the statistics take.

The only module of the analysis layer that reads the store: it labels judge
runs, joins their metric values with the expert targets and the pair facets,
and applies the ReXVal*-style "identical pairs removed" filter. Everything
downstream (``stats``, ``calibration``, ``errortypes``, ...) is pure.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa

from core.analysis.scores import PER_CATEGORY_COUNTS
from core.reads.targets import CATEGORIES, TARGETS, dataset_targets, mixed_scale_targets, target_sql
from core.store.db import Store, StoreError
from core.store.texts import same_text, same_text_sql
from core.taxonomy import FACETS

#: Report checks (core/checks: the deterministic LAIas phase, judge_kind 'checks', and its LLM phase, prompt
#: ``laias_judge``) grade a report's conformance, not its agreement with the reference: they are no judges of
#: agreement, so the judge tables, pickers and correlations leave them out unless asked (see
#: :func:`checks_wanted`); the Checks & leaderboards page and the report's checks section show them.
CHECKS_KIND, CHECKS_PROMPT, CHECKS_METRIC_PREFIX = "checks", "laias_judge", "laias_"


def is_checks_run(runs: pd.DataFrame) -> pd.Series:
    """Per run (a :func:`judge_runs` frame): is it a report-checks run rather than a judge of agreement?"""
    if runs.empty:
        return pd.Series(False, index=runs.index, dtype=bool)
    return ((runs["judge_kind"] == CHECKS_KIND) | (runs["prompt_id"].fillna("") == CHECKS_PROMPT)).astype(bool)


def checks_wanted(checks: bool | None, metrics: list[str] | None) -> bool:
    """Whether reads include report-checks runs: ``checks`` when given, else only when ``metrics`` names a
    checks metric (``laias_overall`` ...) explicitly, as the judges leaderboard does."""
    if checks is not None:
        return bool(checks)
    return metrics is not None and any(str(m).startswith(CHECKS_METRIC_PREFIX) for m in metrics)


def judge_runs(store: Store, dataset: str, *, checks: bool = True) -> pd.DataFrame:
    """The dataset's runs with a readable, unique ``judge`` label.

    ``checks=False`` leaves out the report-checks runs (:func:`is_checks_run`): what a judge picker lists.
    """
    if not checks:
        runs = judge_runs(store, dataset)
        return runs[~is_checks_run(runs)].reset_index(drop=True)
    with store.read() as conn:
        return _judge_runs(conn, dataset)


def _judge_runs(conn, dataset: str) -> pd.DataFrame:
    # n_unparsed: answers (counted in n_ok) that could not be read as the prompt's format
    runs = conn.execute(
        "SELECT r.run_id, judge_kind, judge_name, model, prompt_id, prompt_hash, params, status, n_ok, n_failed, "
        "coalesce(u.n, 0) AS n_unparsed, cost_usd, started_at, finished_at FROM judge_runs r LEFT JOIN "
        "(SELECT run_id, count(*) AS n FROM judge_outputs WHERE error IS NULL AND parse_status = 'failed' "
        " GROUP BY run_id) u USING (run_id) WHERE dataset = ? ORDER BY started_at, r.run_id", [dataset]).df()
    if runs.empty:
        return runs.assign(judge=pd.Series(dtype=str))

    def label(r) -> str:
        if r.judge_kind == "llm":
            return f"{r.model} · {r.prompt_id}"
        return r.judge_name

    runs["judge"] = [label(r) for r in runs.itertuples(index=False)]
    dupes = runs["judge"].duplicated(keep=False)
    runs.loc[dupes, "judge"] = runs.loc[dupes, "judge"] + " [" + runs.loc[dupes, "run_id"].str[-6:] + "]"
    return runs


def declared_orientations(store: Store, dataset: str) -> dict[tuple[str, str], bool]:
    """(judge label, metric) -> higher_is_better, as imported runs declared it: one score's ``higher_is_better``
    (import-outputs --lower-is-better), or several metrics' ``orientations`` map (import-outputs --format radeval)."""
    runs = judge_runs(store, dataset)
    out: dict[tuple[str, str], bool] = {}
    for r in runs[runs["judge_kind"] == "imported"].itertuples(index=False):
        params = json.loads(r.params or "{}")
        if params.get("higher_is_better") is not None and params.get("metric"):
            out[(r.judge, params["metric"])] = bool(params["higher_is_better"])
        for metric, up in (params.get("orientations") or {}).items():
            out[(r.judge, str(metric))] = bool(up)
    return out


def apply_orientations(table: pd.DataFrame, declared: dict[tuple[str, str], bool], target_name: str) -> pd.DataFrame:
    """A :func:`core.analysis.stats.correlate` table with the declared orientations in place of assumed ones.

    Rows of a declared (judge, metric) get their expected sign from the declaration (and the
    target's direction), so ``tau_oriented``, ``sign_ok`` and ``orientation_assumed`` follow.
    """
    if not declared or table.empty or not {"judge", "metric", "tau"} <= set(table.columns):
        return table
    from core.analysis.stats import target_higher_is_better

    target_up = target_higher_is_better(target_name)
    table = table.copy()
    for (judge, metric), up in declared.items():
        rows = (table["judge"] == judge) & (table["metric"] == metric)
        if not rows.any():
            continue
        sign = 1 if up == (True if target_up is None else target_up) else -1
        tau = table.loc[rows, "tau"].astype(float)
        table.loc[rows, "expected_sign"] = sign
        table.loc[rows, "orientation_assumed"] = target_up is None
        table.loc[rows, "tau_oriented"] = sign * tau
        table.loc[rows, "sign_ok"] = (sign * tau) > 0
    return table


def pair_facets(store: Store, dataset: str) -> pd.DataFrame:
    pairs = store.query_df(
        "SELECT pair_id, ext_id, group_id, modality, anatomy, system, split, reference, candidate "
        "FROM pairs WHERE dataset = ?", [dataset])
    pairs["identical"] = [same_text(r, c) for r, c in zip(pairs["reference"], pairs["candidate"], strict=True)]
    return pairs.drop(columns=["reference", "candidate"])


def judge_values(store: Store, dataset: str, run_ids: list[str] | None = None,
                 metrics: list[str] | None = None, *, checks: bool | None = None) -> pd.DataFrame:
    """Long: pair_id, run_id, judge, metric, value — one row per stored metric value.

    Report-checks runs only when asked (``checks``, :func:`checks_wanted`) or named in ``run_ids``.
    """
    runs = judge_runs(store, dataset)
    if run_ids is None and not checks_wanted(checks, metrics):
        runs = runs[~is_checks_run(runs)]
    if run_ids is not None:
        runs = runs[runs["run_id"].isin(run_ids)]
    if runs.empty:
        return pd.DataFrame(columns=["pair_id", "run_id", "judge", "metric", "value"])
    values = store.query_df(
        "SELECT m.pair_id, m.run_id, m.metric, m.value FROM metric_values m "
        "WHERE m.run_id IN (SELECT unnest(?::VARCHAR[]))", [list(runs["run_id"])])
    if metrics is not None:
        values = values[values["metric"].isin(metrics)]
    values = values.merge(runs[["run_id", "judge"]], on="run_id")
    return values[["pair_id", "run_id", "judge", "metric", "value"]]


# A pair's identical flag: stored with the pair (migration 004; the importer sets it), computed from the
# texts for a row written without it. DuckDB evaluates the second argument only where the first is NULL.
IDENTICAL_SQL = f"coalesce(p.identical, {same_text_sql('p.reference', 'p.candidate')})"
FRAME_COLUMNS = ("pair_id", "ext_id", "group_id", *FACETS, "identical", "run_id", "judge", "metric", "value",
                 "target")
PAIR_TEXT = ("pair_id", "ext_id", "group_id", *FACETS)


def _codes(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes into sorted categories (missing: -1), as ``astype("category")`` would give."""
    codes, uniques = pd.factorize(values, sort=True)
    return codes.astype(np.int32), pd.Index(uniques, dtype=object)


def _column(codes: np.ndarray, categories: pd.Index, categorical: bool):
    if categorical:
        return pd.Categorical.from_codes(codes, categories=categories)
    text = pa.array(categories.to_numpy(dtype=object), type=pa.large_string())
    return pd.array(text.take(pa.array(codes, mask=codes < 0)), dtype="str")  # code -1 -> missing


def nan_floats(column) -> np.ndarray:
    """A DOUBLE column from DuckDB's ``fetchnumpy`` as float64, NULL as NaN (it comes masked when any is NULL)."""
    return column.astype(float).filled(np.nan) if np.ma.isMaskedArray(column) else np.asarray(column, dtype=float)


def refuse_duplicates(n_values: int, n_distinct: int) -> None:
    """Values read twice for one (pair, judge, metric) can only come from pair numbers that disagree with
    the pair ids (migration 005; the primary key forbids it otherwise): refuse to compute on them."""
    if n_distinct != n_values:
        raise StoreError(f"{n_values - n_distinct} metric value(s) fall on a (pair, judge, metric) that already has "
                         "one: the store's pair numbers (pair_no) disagree with its pair ids; run "
                         "`python -m core check-store`")


def read_frame_parts(conn, dataset: str, target: str, *, drop_identical: bool = False,
                     run_ids: list[str] | None = None, metrics: list[str] | None = None,
                     annotators: list[str] | None = None, filters: dict | None = None, order: str = "pair_id",
                     counts: bool = True, checks: bool | None = None):
    """The reads behind :func:`correlation_frame`, on an open connection.

    Report-checks runs (:func:`is_checks_run`) are read only when ``checks`` is True, or when it is None and
    ``metrics`` names a checks metric (:func:`checks_wanted`), or when ``run_ids`` names them.

    ``counts=False`` (with ``metrics=None``) reads every metric except the per-category counts
    (:data:`core.analysis.scores.PER_CATEGORY_COUNTS`): every score of every judge, built in or imported under any name.

    Returns ``(runs, pairs, values, labels, metric_list)``: the runs (with ``judge``); one row per pair with
    a target (pair_id, ext_id, group_id, facets, identical, target), sorted by ``order``; the metric values
    as numpy arrays, unsorted: ``pidx`` (row of ``pairs``), ``skey`` (``ridx * max(1, len(metric_list)) +
    midx``: ``ridx`` the position of the run's judge in ``labels``, ``midx`` the metric's in
    ``metric_list``) and ``value``; the sorted judge labels; the sorted metrics.
    """
    if target not in TARGETS:
        raise ValueError(f"target '{target}' unknown; targets are: {', '.join(TARGETS)}")
    for facet in filters or {}:
        if facet not in FACETS:
            raise ValueError(f"cannot filter on '{facet}'; facets are: {', '.join(FACETS)}")
    tsql, tparams = target_sql(target, dataset, annotators)
    where, wparams = ["p.dataset = ?"], [dataset]
    for facet, allowed in (filters or {}).items():
        if allowed:
            where.append(f"p.{facet} IN (SELECT unnest(?::VARCHAR[]))")
            wparams.append([str(v) for v in allowed])
    if drop_identical:
        where.append(f"NOT {IDENTICAL_SQL}")
    runs = _judge_runs(conn, dataset)
    if run_ids is None and not checks_wanted(checks, metrics):
        runs = runs[~is_checks_run(runs)]
    if run_ids is not None:
        runs = runs[runs["run_id"].isin(run_ids)]
    pairs = conn.execute(
        f"SELECT p.pair_id, p.ext_id, p.group_id, {', '.join('p.' + f for f in FACETS)}, "
        f"{IDENTICAL_SQL} AS identical, t.target, t.mixed, p.pair_no FROM pairs p JOIN ({tsql}) t USING (pair_id) "
        f"WHERE {' AND '.join(where)} ORDER BY p.pair_id", tparams + wparams).df()  # DuckDB sorts as Python
    if pairs["mixed"].any():
        exact = mixed_scale_targets(conn, dataset, list(pairs.loc[pairs["mixed"], "pair_id"]), annotators)
        pairs.loc[pairs["mixed"], "target"] = pairs.loc[pairs["mixed"], "pair_id"].map(exact)
    pairs = pairs.drop(columns="mixed")
    if order != "pair_id" or not pairs["pair_id"].is_monotonic_increasing:  # a collation other than Python's
        pairs = pairs.sort_values(order, ignore_index=True, kind="stable")
    pair_no = pairs.pop("pair_no").astype("Int64")  # NULL: a pair written without a number
    labels = sorted(runs["judge"])
    metric_list = sorted(set(metrics)) if metrics is not None else []
    values = {"pidx": np.array([], dtype=np.int64), "skey": np.array([], dtype=np.int64),
              "value": np.array([], dtype=float)}
    if len(runs) and len(pairs):
        rank = {label: i for i, label in enumerate(labels)}
        conn.register("cf_pairs", pd.DataFrame({"pair_id": pairs["pair_id"].to_numpy(dtype=object),
                                                "pair_no": pair_no,
                                                "pidx": np.arange(len(pairs), dtype=np.int32)}))
        conn.register("cf_runs", pd.DataFrame({"run_id": runs["run_id"].to_numpy(dtype=object),
                                               "ridx": np.array([rank[j] for j in runs["judge"]], dtype=np.int64)}))
        if metrics is None:
            metric_list = sorted(m for m in conn.execute(
                "SELECT DISTINCT metric FROM metric_values WHERE run_id IN (SELECT run_id FROM cf_runs)"
            ).df()["metric"] if counts or m not in PER_CATEGORY_COUNTS)
        conn.register("cf_metrics", pd.DataFrame({"metric": pd.Series(metric_list, dtype=object),
                                                  "midx": np.arange(len(metric_list), dtype=np.int64)}))
        # integers only come back (the strings stay in DuckDB): the series key ridx * len(metrics) + midx.
        # Values meet their pairs on the integer pair_no (migration 005); a value stored without one
        # (its pair was missing when it was written) on pair_id: DuckDB skips that branch's row groups
        # when no value lacks a number.
        found = conn.sql(" UNION ALL ".join(
            f"SELECT cp.pidx, cr.ridx * {max(1, len(metric_list))} + cm.midx AS skey, m.value FROM metric_values m "
            f"JOIN cf_runs cr ON cr.run_id = m.run_id JOIN cf_metrics cm ON cm.metric = m.metric {join}"
            for join in ("JOIN cf_pairs cp ON cp.pair_no = m.pair_no",
                         "JOIN cf_pairs cp ON cp.pair_id = m.pair_id WHERE m.pair_no IS NULL"))).fetchnumpy()
        values = {"pidx": np.asarray(found["pidx"], dtype=np.int64), "skey": np.asarray(found["skey"], dtype=np.int64),
                  "value": nan_floats(found["value"])}
        for name in ("cf_pairs", "cf_runs", "cf_metrics"):
            conn.unregister(name)
    return runs, pairs, values, labels, metric_list


def correlation_frame(store: Store, dataset: str, target: str = "score", *, drop_identical: bool = False,
                      run_ids: list[str] | None = None, metrics: list[str] | None = None,
                      annotators: list[str] | None = None, filters: dict | None = None,
                      categorical: bool = False, order: str = "ext_id", counts: bool = True,
                      checks: bool | None = None) -> pd.DataFrame:
    """Judge values joined with the expert target and the pair facets.

    Columns: pair_id, ext_id, group_id, modality, anatomy, system, split,
    identical, run_id, judge, metric, value, target; sorted by judge, metric,
    ``order`` (ext_id, or pair_id: the order the statistics want). Only pairs that have both a judge value and the target appear.
    ``filters`` maps a facet to the allowed values; ``annotators`` picks whose
    annotations make the target (all by default); ``counts=False`` leaves out the per-category
    counts (sig_a, ..., matched) and keeps every score metric. Report checks (``checks:en-US``, the LAIas LLM
    phase) are no judges of agreement and are left out unless ``checks=True`` or ``metrics`` names one of their
    metrics (:func:`checks_wanted`). ``categorical=True`` returns
    the text columns as categoricals (sorted categories): the same values,
    a tenth of the memory.

    One read of the store: the pairs in view with their target (aggregated
    exactly in SQL, :func:`core.reads.targets.target_sql`) and their identical flag,
    then the metric values of those pairs as integer codes, sorted in numpy;
    the text columns are built from the codes.
    """
    if order not in ("ext_id", "pair_id"):
        raise ValueError(f"order must be 'ext_id' or 'pair_id', not '{order}'")
    with store.read() as conn:
        runs, pairs, values, labels, metric_list = read_frame_parts(
            conn, dataset, target, drop_identical=drop_identical, run_ids=run_ids, metrics=metrics,
            annotators=annotators, filters=filters, order=order, counts=counts, checks=checks)
    # sorted by judge, metric, ext_id (or pair_id): one integer key (unique per row), argsorted in numpy
    m = max(1, len(metric_list))
    key = values["skey"] * max(1, len(pairs)) + values["pidx"]
    order_ = np.argsort(key)  # keys are unique: any sort will do
    refuse_duplicates(len(key), len(key) - int(np.count_nonzero(np.diff(key[order_]) == 0)))
    pidx, skey = values["pidx"][order_], values["skey"][order_]
    ridx, midx = skey // m, skey % m
    out = {}
    for col in PAIR_TEXT:
        codes, cats = _codes(pairs[col])
        out[col] = _column(codes[pidx], cats, categorical)
    out["identical"] = pairs["identical"].to_numpy(dtype=bool)[pidx]
    by_label = runs.set_index("judge")["run_id"]
    run_codes, run_cats = _codes(pd.Series([by_label[j] for j in labels], dtype=object))
    out["run_id"] = _column(run_codes[ridx], run_cats, categorical)
    out["judge"] = _column(np.arange(len(labels), dtype=np.int32)[ridx], pd.Index(labels, dtype=object),
                           categorical)
    out["metric"] = _column(midx.astype(np.int32), pd.Index(metric_list, dtype=object), categorical)
    out["value"] = values["value"][order_]
    out["target"] = pairs["target"].to_numpy(dtype=float)[pidx]
    return pd.DataFrame(out, columns=list(FRAME_COLUMNS))


def judge_counts(store: Store, dataset: str, run_ids: list[str] | None = None) -> pd.DataFrame:
    """Per-category counts each judge reported: pair_id, judge, category, significant, count.

    Read from the ``sig_x`` / ``insig_x`` metric values stored with every
    parsed GREEN-format answer; a category the judge's answer left unknown
    (truncated) has no row.
    """
    names = [f"{p}_{c}" for p in ("sig", "insig") for c in CATEGORIES]
    values = judge_values(store, dataset, run_ids, metrics=names)
    if values.empty:
        return pd.DataFrame(columns=["pair_id", "judge", "category", "significant", "count"])
    parts = values["metric"].str.split("_", n=1, expand=True)
    return pd.DataFrame({"pair_id": values["pair_id"], "judge": values["judge"], "category": parts[1],
                         "significant": parts[0] == "sig", "count": values["value"]}).reset_index(drop=True)


def expert_counts(store: Store, dataset: str, annotators: list[str] | None = None) -> pd.DataFrame:
    """Mean expert counts per category (exact aggregation): pair_id, category, significant, count."""
    t = dataset_targets(store, dataset, annotators)
    t = t[t["target"].str.match(r"^(sig|insig)_[a-f]$")]
    if t.empty:  # no counts (e.g. annotators who gave scores only)
        return pd.DataFrame(columns=["pair_id", "category", "significant", "count"])
    parts = t["target"].str.split("_", n=1, expand=True)
    return pd.DataFrame({"pair_id": t["pair_id"].to_numpy(), "category": parts[1].to_numpy(),
                         "significant": (parts[0] == "sig").to_numpy(), "count": t["value"].to_numpy()})


def injected_counts(store: Store, dataset: str) -> pd.DataFrame:
    """For datasets built by error injection: pair_id, category, k (annotator ``injected``)."""
    df = store.query_df(
        "SELECT a.pair_id, a.category, a.value AS k FROM annotations a JOIN pairs p USING (pair_id) "
        "WHERE p.dataset = ? AND a.annotator = 'injected' AND a.significant AND a.value > 0", [dataset])
    return df.assign(k=df["k"].astype(int))


def error_texts(store: Store, dataset: str, run_ids: list[str] | None = None) -> pd.DataFrame:
    """Judges' error explanations: pair_id, judge, system, category, significant, text."""
    runs = judge_runs(store, dataset)
    if run_ids is not None:
        runs = runs[runs["run_id"].isin(run_ids)]
    if runs.empty:
        return pd.DataFrame(columns=["pair_id", "judge", "system", "category", "significant", "text"])
    errs = store.query_df(
        "SELECT e.run_id, e.pair_id, e.category, e.significant, e.text, p.system FROM judge_errors e "
        "JOIN pairs p USING (pair_id) WHERE e.run_id IN (SELECT unnest(?::VARCHAR[]))", [list(runs["run_id"])])
    errs = errs.merge(runs[["run_id", "judge"]], on="run_id")
    return errs[["pair_id", "judge", "system", "category", "significant", "text"]]


def with_system(store: Store, dataset: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Add each pair's candidate system to a frame with a pair_id column."""
    systems = store.query_df("SELECT pair_id, system FROM pairs WHERE dataset = ?", [dataset])
    return frame.merge(systems, on="pair_id", how="left")


def feature_frame(store: Store, dataset: str, target: str = "score", *,
                  metrics: list[str] | None = None, annotators: list[str] | None = None) -> pd.DataFrame:
    """Wide per-pair features for ensembles: pair_id, group_id, split, target, one column per judge:metric
    (report checks left out, as in :func:`correlation_frame`)."""
    frame = correlation_frame(store, dataset, target, metrics=metrics, annotators=annotators)
    if frame.empty:
        return pd.DataFrame(columns=["pair_id", "group_id", "split", "target"])
    frame = frame.assign(feature=frame["judge"] + ":" + frame["metric"])
    wide = frame.pivot_table(index="pair_id", columns="feature", values="value", aggfunc="first")
    wide.columns.name = None
    meta = frame.drop_duplicates("pair_id").set_index("pair_id")[["group_id", "split", "target"]]
    return meta.join(wide).reset_index()


def pair_groups(store: Store, dataset: str) -> pd.DataFrame:
    """pair_id -> group_id for pairs that share a reference (bootstraps resample whole groups)."""
    return store.query_df("SELECT pair_id, group_id FROM pairs WHERE dataset = ? AND group_id IS NOT NULL",
                          [dataset])
