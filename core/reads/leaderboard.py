"""Leaderboards that never rank incomparable runs together (LAIas Bench Sec. 6.3).

Every entry carries a *comparable key*; ranks are given only within a group of
equal keys, so two entries whose key differs in any part are never ranked
against each other (they sit in different groups, each with its own rank 1).

- :func:`systems_leaderboard` ranks candidate systems (``pairs.system``) by a
  judge's score. Key: dataset version, split, the judge's kind, model, prompt
  id and hash, generation params (JSON), locale, and the metric. Within a
  group the order is the paper's: mean score (oriented: higher is better, or
  lower for error counts), strict pass rate, relaxed pass rate (checks runs:
  PASS / not FAIL verdicts), total cost ascending, mean latency ascending.
  Cost and latency are the judge's, from ``judge_outputs``, for that system's
  pairs (unknown cost stays unknown).
- :func:`judges_leaderboard` ranks judges by agreement with the experts:
  Kendall's tau-b between a judge metric and the expert target
  (:func:`core.analysis.stats.correlate`), oriented so that positive means agreement.
  Key: dataset version, split, target, and the exact set of pairs scored (a
  judge run on 50 pairs is not ranked against one run on 400). The judge's
  model and prompt are what is being compared, so they are columns, not key.
"""

from __future__ import annotations

import json

import pandas as pd

from core.analysis.scores import METRICS
from core.reads.frames import apply_orientations, correlation_frame, declared_orientations, judge_runs
from core.store.db import Store, stable_hash

# The score a run is ranked by on the systems board: the first of these it has.
PRIMARY_METRICS = ("laias_overall", "laias_adv_overall", "vert", "rubric", "green", "formula", "radfact", "fineradscore", "rouge_l",
                   "bleu4")
SYSTEM_KEY = ("dataset_version", "split", "judge_kind", "model", "prompt_id", "prompt_hash", "params", "locale",
              "metric")
JUDGE_KEY = ("dataset_version", "split", "target", "pair_set")


def _higher_is_better(metric: str) -> bool:
    spec = METRICS.get(metric)
    return True if spec is None else spec.higher_is_better


def _locale(params: str | None, judge_name: str) -> str | None:
    try:
        loc = json.loads(params or "{}").get("locale")
    except ValueError:
        loc = None
    if loc is None and judge_name.startswith("checks:"):
        loc = judge_name.split(":", 1)[1]
    return loc


def _generation_params(params: str | None) -> str:
    """The run's params without what does not change a score (the endpoint's address)."""
    try:
        p = json.loads(params or "{}")
    except ValueError:
        return params or ""
    p.pop("api_base", None)
    p.pop("locale", None)  # a key part of its own
    return json.dumps(p, sort_keys=True)


def _dataset_version(store: Store, dataset: str) -> str:
    return str(store.query_one("SELECT coalesce(version, '') FROM datasets WHERE name = ?", [dataset]) or "")


def _group_label(row: dict, key: tuple[str, ...]) -> str:
    return stable_hash("lb", json.dumps([str(row[k]) for k in key]), length=10)


def _rank(frame: pd.DataFrame, key: tuple[str, ...], sort_cols: list[str], ascending: list[bool]) -> pd.DataFrame:
    frame = frame.copy()
    frame["group"] = [_group_label(r, key) for r in frame.to_dict("records")]
    frame = frame.sort_values(["group", *sort_cols], ascending=[True, *ascending], na_position="last",
                              kind="stable")
    frame["rank"] = frame.groupby("group").cumcount() + 1
    frame["group_size"] = frame.groupby("group")["rank"].transform("size")
    return frame.reset_index(drop=True)


def systems_leaderboard(store: Store, dataset: str, *, split: str | None = None,
                        metric: str | None = None) -> pd.DataFrame:
    """Candidate systems ranked by each judge run's score, grouped by comparable key (module docstring).

    ``metric`` None ranks by each run's primary metric (:data:`PRIMARY_METRICS`).
    Columns: the key, group, rank, group_size, run_id, judge, system, n, score,
    strict_pass_rate, relaxed_pass_rate, cost_usd, latency_ms_mean.
    """
    runs = judge_runs(store, dataset)
    cols = [*SYSTEM_KEY, "group", "rank", "group_size", "run_id", "judge", "system", "n", "score",
            "higher_is_better", "strict_pass_rate", "relaxed_pass_rate", "cost_usd", "latency_ms_mean"]
    if runs.empty:
        return pd.DataFrame(columns=cols)
    values = store.query_df(
        "SELECT m.run_id, m.pair_id, m.metric, m.value, p.system, p.split FROM metric_values m "
        "JOIN pairs p USING (pair_id) WHERE p.dataset = ? AND m.run_id IN (SELECT unnest(?::VARCHAR[]))",
        [dataset, list(runs["run_id"])])
    outputs = store.query_df(
        "SELECT o.run_id, o.pair_id, o.cost_usd, o.latency_ms, o.error FROM judge_outputs o JOIN pairs p "
        "USING (pair_id) WHERE p.dataset = ?", [dataset])
    if split is not None:
        values = values[values["split"] == split]
    values = values[values["system"].notna()]
    version = _dataset_version(store, dataset)
    rows = []
    for run in runs.astype(object).where(runs.notna(), None).to_dict("records"):
        mine = values[values["run_id"] == run["run_id"]]
        available = set(mine["metric"])
        chosen = metric if metric is not None else next((m for m in PRIMARY_METRICS if m in available), None)
        if chosen is None or chosen not in available:
            continue
        scores = mine[mine["metric"] == chosen]
        verdicts = mine[mine["metric"] == "laias_verdict"].set_index("pair_id")["value"]
        outs = outputs[(outputs["run_id"] == run["run_id"]) & outputs["error"].isna()].set_index("pair_id")
        for system, part in scores.groupby("system", sort=True):
            ids = list(part["pair_id"])
            v = verdicts.reindex(ids).dropna()
            costs = outs["cost_usd"].reindex(ids)
            rows.append({
                "dataset_version": version, "split": split or "all", "judge_kind": run["judge_kind"],
                "model": run["model"] or run["judge_name"], "prompt_id": run["prompt_id"],
                "prompt_hash": run["prompt_hash"], "params": _generation_params(run["params"]),
                "locale": _locale(run["params"], run["judge_name"]), "metric": chosen, "run_id": run["run_id"],
                "judge": run["judge"], "system": system, "n": len(part),
                "score": float(part["value"].sum()) / len(part), "higher_is_better": _higher_is_better(chosen),
                "strict_pass_rate": float((v == 2).sum()) / len(v) if len(v) else None,
                "relaxed_pass_rate": float((v >= 1).sum()) / len(v) if len(v) else None,
                "cost_usd": None if costs.isna().any() else float(costs.sum()),
                "latency_ms_mean": float(outs["latency_ms"].reindex(ids).mean()) if len(outs) else None})
    if not rows:
        return pd.DataFrame(columns=cols)
    frame = pd.DataFrame(rows)
    frame["sort_score"] = [s if hib else -s for s, hib in zip(frame["score"], frame["higher_is_better"],
                                                               strict=True)]
    ranked = _rank(frame, SYSTEM_KEY, ["sort_score", "strict_pass_rate", "relaxed_pass_rate", "cost_usd",
                                       "latency_ms_mean", "system"], [False, False, False, True, True, True])
    return ranked[cols]


def judges_leaderboard(store: Store, dataset: str, *, target: str = "score", split: str | None = None,
                       n_boot: int = 1000, seed: int = 0, min_n: int = 10,
                       annotators: list[str] | None = None) -> pd.DataFrame:
    """Judges (run x metric) ranked by oriented Kendall tau with the experts, grouped by comparable key.

    Only the headline metrics (:data:`core.analysis.scores.METRICS`, ``laias_overall`` and
    ``laias_adv_overall``)
    take part. Columns: the key, group, rank, group_size, run_id, judge,
    metric, n, tau, tau_oriented, ci_low, ci_high (the CI of tau_oriented), p, sign_ok,
    too_few, seed, n_boot, and the run's time and cost (core.reads.runcost): ms_per_pair, calls,
    tokens_in, tokens_out, cost_usd (None when unknown), cost_known. ``annotators``: whose
    annotations make the target (core.reads.raters; all by default).
    """
    from core.analysis.stats import correlate

    cols = [*JUDGE_KEY, "group", "rank", "group_size", "run_id", "judge", "metric", "n", "tau", "tau_oriented",
            "ci_low", "ci_high", "p", "sign_ok", "too_few", "seed", "n_boot"]
    frame = correlation_frame(store, dataset, target, metrics=[*METRICS, "laias_overall", "laias_adv_overall"],
                              filters={"split": [split]} if split else None, annotators=annotators)
    if frame.empty:
        return pd.DataFrame(columns=[*cols, "ms_per_pair", "calls", "tokens_in", "tokens_out", "cost_usd",
                                     "cost_known"])
    table = correlate(frame, by=("run_id", "judge", "metric"), n_boot=n_boot, seed=seed, min_n=min_n,
                      target_name=target, ci="auto")  # the bootstrap up to 5,000 pairs, asymptotic above
    table = apply_orientations(table, declared_orientations(store, dataset), target)
    sets = {k: stable_hash("pairs", *sorted(g["pair_id"]), length=12)
            for k, g in frame.dropna(subset=["value", "target"]).groupby(["run_id", "metric"])}
    sign = table["expected_sign"].astype(float)
    low, high = sign * table["ci_low"], sign * table["ci_high"]
    table["ci_low"], table["ci_high"] = low.where(sign > 0, high), high.where(sign > 0, low)  # oriented, like tau
    table["pair_set"] = [sets.get((r, m), "") for r, m in zip(table["run_id"], table["metric"], strict=True)]
    table["dataset_version"] = _dataset_version(store, dataset)
    table["split"] = split or "all"
    table["target"] = target
    ranked = _rank(table, JUDGE_KEY, ["too_few", "tau_oriented", "n"], [True, False, False])
    from core.reads.runcost import run_costs

    costs = run_costs(store, dataset)[["run_id", "ms_per_pair", "calls", "tokens_in", "tokens_out", "cost_usd",
                                        "cost_known"]]
    return ranked[cols].merge(costs, on="run_id", how="left")  # what each judge's tau cost, beside it
