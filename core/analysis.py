"""From the store to the tidy frames the statistics take.

The only module of the analysis layer that reads the store: it labels judge
runs, joins their metric values with the expert targets and the pair facets,
and applies the ReXVal*-style "identical pairs removed" filter. Everything
downstream (``stats``, ``calibration``, ``errortypes``, ...) is pure.
"""

from __future__ import annotations

import re

import pandas as pd

from core.store import Store
from core.targets import CATEGORIES, TARGETS, dataset_targets

FACETS = ("modality", "anatomy", "system", "split")


def judge_runs(store: Store, dataset: str) -> pd.DataFrame:
    """The dataset's runs with a readable, unique ``judge`` label."""
    runs = store.query_df(
        "SELECT run_id, judge_kind, judge_name, model, prompt_id, prompt_hash, params, status, n_ok, n_failed, "
        "cost_usd, started_at, finished_at FROM judge_runs WHERE dataset = ? ORDER BY started_at, run_id",
        [dataset])
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


def _same_text(a: str, b: str) -> bool:
    return re.sub(r"\s+", " ", a or "").strip() == re.sub(r"\s+", " ", b or "").strip()


def pair_facets(store: Store, dataset: str) -> pd.DataFrame:
    pairs = store.query_df(
        "SELECT pair_id, ext_id, group_id, modality, anatomy, system, split, reference, candidate "
        "FROM pairs WHERE dataset = ?", [dataset])
    pairs["identical"] = [_same_text(r, c) for r, c in zip(pairs["reference"], pairs["candidate"], strict=True)]
    return pairs.drop(columns=["reference", "candidate"])


def judge_values(store: Store, dataset: str, run_ids: list[str] | None = None,
                 metrics: list[str] | None = None) -> pd.DataFrame:
    """Long: pair_id, run_id, judge, metric, value — one row per stored metric value."""
    runs = judge_runs(store, dataset)
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


def correlation_frame(store: Store, dataset: str, target: str = "score", *, drop_identical: bool = False,
                      run_ids: list[str] | None = None, metrics: list[str] | None = None,
                      annotators: list[str] | None = None, filters: dict | None = None) -> pd.DataFrame:
    """Judge values joined with the expert target and the pair facets.

    Columns: pair_id, ext_id, group_id, modality, anatomy, system, split,
    identical, run_id, judge, metric, value, target. Only pairs that have
    both a judge value and the target appear. ``filters`` maps a facet to
    the allowed values.
    """
    if target not in TARGETS:
        raise ValueError(f"target '{target}' unknown; targets are: {', '.join(TARGETS)}")
    targets = dataset_targets(store, dataset, annotators)
    targets = targets[targets["target"] == target][["pair_id", "value"]].rename(columns={"value": "target"})
    facets = pair_facets(store, dataset)
    if drop_identical:
        facets = facets[~facets["identical"]]
    for facet, allowed in (filters or {}).items():
        if facet not in FACETS:
            raise ValueError(f"cannot filter on '{facet}'; facets are: {', '.join(FACETS)}")
        if allowed:
            facets = facets[facets[facet].isin(list(allowed))]
    values = judge_values(store, dataset, run_ids, metrics)
    frame = values.merge(targets, on="pair_id").merge(facets, on="pair_id")
    cols = ["pair_id", "ext_id", "group_id", *FACETS, "identical", "run_id", "judge", "metric", "value", "target"]
    return frame[cols].sort_values(["judge", "metric", "ext_id"], ignore_index=True)


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
                  metrics: list[str] | None = None) -> pd.DataFrame:
    """Wide per-pair features for ensembles: pair_id, group_id, split, target, one column per judge:metric."""
    frame = correlation_frame(store, dataset, target, metrics=metrics)
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
