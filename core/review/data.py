"""Store -> the tidy frames :mod:`core.review.metrics` works on (read-only)."""

from __future__ import annotations

import json

import pandas as pd

from core.review.labels import LABELS, label_name, metric_name
from core.store.db import Store

REVIEW_KIND = "edit_review"


def dataset_kind(store: Store, dataset: str) -> str | None:
    return store.query_one("SELECT kind FROM datasets WHERE name = ?", [dataset])


def review_datasets(store: Store) -> list[str]:
    """Names of the ``edit_review`` datasets, sorted."""
    return store.query_df("SELECT name FROM datasets WHERE kind = ? ORDER BY name", [REVIEW_KIND])["name"].tolist()


def require_review_dataset(store: Store, dataset: str) -> None:
    kind = dataset_kind(store, dataset)
    if kind is None:
        known = ", ".join(review_datasets(store)) or "none"
        raise ValueError(f"dataset '{dataset}' not found; edit_review datasets: {known}")
    if kind != REVIEW_KIND:
        raise ValueError(f"dataset '{dataset}' is of kind '{kind}', not '{REVIEW_KIND}'")


def edits(store: Store, dataset: str) -> pd.DataFrame:
    """One row per edit: pair_id, ext_id, case (group_id), subset, preliminary, edit, meta (dict)."""
    df = store.query_df("SELECT pair_id, ext_id, group_id AS case_id, reference AS preliminary, "
                        "candidate AS edit, meta FROM pairs WHERE dataset = ? ORDER BY ext_id", [dataset])
    metas = [json.loads(m) if isinstance(m, str) and m else {} for m in df["meta"]]
    df["meta"] = metas
    df["subset"] = [m.get("subset") or "natural" for m in metas]
    return df


def annotators(store: Store, dataset: str) -> pd.DataFrame:
    """Annotators with review labels on ``dataset`` and how many edits each labelled, most first."""
    return store.query_df(
        "SELECT a.annotator, count(DISTINCT a.pair_id) AS edits FROM annotations a JOIN pairs p USING (pair_id) "
        "WHERE p.dataset = ? AND a.field IN (SELECT unnest(?::VARCHAR[])) GROUP BY a.annotator "
        "ORDER BY edits DESC, a.annotator", [dataset, list(LABELS)])


def gold_labels(store: Store, dataset: str, annotator: str | None = None) -> tuple[pd.DataFrame, str | None]:
    """(pair_id, gold_<label>...) for one annotator, and that annotator's name.

    Without ``annotator``: the one who labelled most edits (ties: by name).
    """
    who = annotators(store, dataset)
    if who.empty:
        return pd.DataFrame(columns=["pair_id", *[f"gold_{k}" for k in LABELS]]), None
    if annotator is None:
        annotator = str(who["annotator"].iloc[0])
    elif annotator not in set(who["annotator"]):
        raise ValueError(f"annotator '{annotator}' has no review labels on '{dataset}'; annotators: "
                         f"{', '.join(who['annotator'])}")
    rows = store.query_df(
        "SELECT a.pair_id, a.field, a.value FROM annotations a JOIN pairs p USING (pair_id) "
        "WHERE p.dataset = ? AND a.annotator = ? AND a.field IN (SELECT unnest(?::VARCHAR[]))",
        [dataset, annotator, list(LABELS)])
    wide = rows.pivot_table(index="pair_id", columns="field", values="value", aggfunc="first")
    out = pd.DataFrame({"pair_id": wide.index})
    for label in LABELS:
        values = wide[label].tolist() if label in wide.columns else [None] * len(wide)
        out[f"gold_{label}"] = [label_name(label, v) for v in values]
    return out.reset_index(drop=True), annotator


def review_runs(store: Store, dataset: str, judge: str | None = None) -> pd.DataFrame:
    """Runs on ``dataset`` that predicted review labels: run_id, judge, setting, params, seconds, status."""
    sql = ("SELECT r.run_id, r.judge_name AS judge, r.judge_kind, r.model, r.prompt_id, r.prompt_hash, r.params, "
           "r.status, r.n_ok, r.n_failed, r.cost_usd, r.started_at, r.finished_at, "
           "epoch(r.finished_at) - epoch(r.started_at) AS seconds, "
           "(SELECT sum(o.latency_ms) FROM judge_outputs o WHERE o.run_id = r.run_id) / 1000.0 AS call_seconds "
           "FROM judge_runs r WHERE r.dataset = ? AND EXISTS (SELECT 1 FROM metric_values m "
           "WHERE m.run_id = r.run_id AND m.metric = ?)")
    params: list = [dataset, metric_name("agreement")]
    if judge is not None:
        sql += " AND r.judge_name = ?"
        params.append(judge)
    runs = store.query_df(sql + " ORDER BY r.judge_name, r.run_id", params)
    runs["setting"] = [setting_of(p) for p in runs["params"]]
    return runs


def setting_of(params: object) -> str:
    """The input setting recorded with a run: 'text only', '10 slices', ... or 'rules'."""
    try:
        p = json.loads(params) if isinstance(params, str) else dict(params or {})
    except (TypeError, ValueError):
        return "?"
    return str(p.get("setting") or "?")


def evaluation_frame(store: Store, dataset: str, judge: str | None = None,
                     annotator: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame, str | None]:
    """(frame for the metrics, the runs, the gold annotator): one frame row per (run, edit)."""
    require_review_dataset(store, dataset)
    runs = review_runs(store, dataset, judge)
    gold, who = gold_labels(store, dataset, annotator)
    base = edits(store, dataset)[["pair_id", "ext_id", "subset"]].merge(gold, on="pair_id", how="left")
    cols = ["run_id", "judge", "setting", "pair_id", "ext_id", "subset"] + [
        f"{w}_{k}" for w in ("gold", "pred") for k in LABELS]
    if runs.empty:
        return pd.DataFrame(columns=cols), runs, who
    preds = store.query_df(
        "SELECT run_id, pair_id, metric, value FROM metric_values WHERE run_id IN (SELECT unnest(?::VARCHAR[])) "
        "AND metric IN (SELECT unnest(?::VARCHAR[]))", [runs["run_id"].tolist(), [metric_name(k) for k in LABELS]])
    wide = preds.pivot_table(index=["run_id", "pair_id"], columns="metric", values="value", aggfunc="first")
    wide = wide.reset_index()
    # An edit is in a run's evaluation when the run tried it (answer or recorded failure); edits a run
    # never reached (--limit, cancelled) are left out, and a failed or unparsed answer counts as wrong.
    tried = store.query_df("SELECT run_id, pair_id FROM judge_outputs WHERE run_id IN (SELECT unnest(?::VARCHAR[]))",
                           [runs["run_id"].tolist()])
    frames = []
    for run in runs.itertuples(index=False):
        scope = set(tried.loc[tried["run_id"] == run.run_id, "pair_id"])
        part = base[base["pair_id"].isin(scope)].copy()
        part.insert(0, "run_id", run.run_id)
        part.insert(1, "judge", run.judge)
        part.insert(2, "setting", run.setting)
        mine = wide[wide["run_id"] == run.run_id].set_index("pair_id")
        for label in LABELS:
            col = metric_name(label)
            values = mine[col] if col in mine.columns else pd.Series(dtype=float)
            part[f"pred_{label}"] = [label_name(label, values.get(p)) for p in part["pair_id"]]
        frames.append(part[cols])
    return pd.concat(frames, ignore_index=True), runs, who
