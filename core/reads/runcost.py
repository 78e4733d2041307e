"""Time and cost of each judge run, from what its calls recorded (VERT Table 6, CREPE Table 3 style).

Durations come from each output's recorded ``latency_ms`` (the call's own
time, or the offline judge's compute time per pair), never from the run's
timestamps, which a cached re-run moves. Cached copies (latency 0: no call
was made) do not count as calls. Cost is summed from the answered calls and
is *unknown* (None) when any answered call's price was unknown: never an
undercount. The tau each run bought is joined by the callers that have one
(the report, ``leaderboard --kind judges``, the Run page).
"""

from __future__ import annotations

import pandas as pd

from core.reads.frames import judge_runs
from core.store.db import Store

COLUMNS = ["run_id", "judge", "kind", "pairs", "calls", "failed", "ms_per_pair", "ms_p90", "tokens_in",
           "tokens_out", "cost_usd", "cost_known", "usd_per_1k_pairs"]

_SQL = (
    "SELECT run_id, count(*) FILTER (WHERE error IS NULL) AS pairs, "
    "       count(*) FILTER (WHERE latency_ms > 0) AS calls, "
    "       count(*) FILTER (WHERE error IS NOT NULL) AS failed, "
    "       median(latency_ms) FILTER (WHERE error IS NULL AND latency_ms > 0) AS ms_per_pair, "
    "       quantile_cont(latency_ms, 0.9) FILTER (WHERE error IS NULL AND latency_ms > 0) AS ms_p90, "
    "       sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out, "
    "       sum(cost_usd) FILTER (WHERE error IS NULL) AS cost_sum, "
    "       count(*) FILTER (WHERE error IS NULL AND cost_usd IS NULL) AS n_unpriced "
    "FROM judge_outputs WHERE run_id IN (SELECT run_id FROM judge_runs WHERE dataset = ?) GROUP BY run_id")


def run_costs(store: Store, dataset: str) -> pd.DataFrame:
    """One row per run of ``dataset``: pairs answered, calls made, failures, median and 90th-percentile
    ms per answered pair, tokens, cost (None when unknown) and USD per 1,000 answered pairs."""
    with store.session():  # one open of the file for both reads
        runs = judge_runs(store, dataset)
        stats = store.query_df(_SQL, [dataset])
    if runs.empty:
        return pd.DataFrame(columns=COLUMNS)
    table = runs[["run_id", "judge", "judge_kind"]].rename(columns={"judge_kind": "kind"}).merge(
        stats, on="run_id", how="left")
    for col in ("pairs", "calls", "failed", "n_unpriced"):
        table[col] = table[col].fillna(0).astype(int)
    table["cost_known"] = table["n_unpriced"] == 0
    table["cost_usd"] = pd.Series([float(0.0 if pd.isna(c) else c) if k else None
                                   for c, k in zip(table["cost_sum"], table["cost_known"], strict=True)], dtype=object)
    table["usd_per_1k_pairs"] = [None if c is None or not p else 1000 * c / p
                                 for c, p in zip(table["cost_usd"], table["pairs"], strict=True)]
    return table[COLUMNS].reset_index(drop=True)


def cost_text(cost, known: bool) -> str:
    """"$0.0123", or "unknown" (a price missing from litellm's table is never shown as 0)."""
    return "unknown" if not known or cost is None or pd.isna(cost) else f"${float(cost):,.4f}"


def cost_and_tau(costs: pd.DataFrame, corr: pd.DataFrame, min_n: int = 10) -> pd.DataFrame:
    """Each run's time and cost beside the best oriented tau it reached (right sign, n >= min_n), with the
    metric and n behind it: what the run's time and money bought."""
    best = pd.DataFrame(columns=["judge", "metric", "tau_oriented", "n"])
    if not corr.empty:
        ok = corr[(corr["n"] >= min_n) & corr["sign_ok"].astype(bool) & corr["tau_oriented"].notna()]
        best = ok.sort_values(["tau_oriented", "n"], ascending=[False, False], kind="stable").drop_duplicates("judge")
    return costs.merge(best[["judge", "metric", "tau_oriented", "n"]], on="judge", how="left")


def cost_table(store: Store, dataset: str, targets: tuple[str, ...] = ("score", "sig_errors"),
               min_n: int = 10) -> tuple[pd.DataFrame, str | None]:
    """:func:`run_costs` with the tau each run bought against the first of ``targets`` the dataset has
    (no bootstrap: the point estimates only), and that target's name (None without annotations)."""
    from core.analysis.stats import correlate
    from core.reads.frames import correlation_frame
    from core.reads.targets import annotator_values, load_annotations

    costs = run_costs(store, dataset)
    present = set(annotator_values(load_annotations(store, dataset))["target"])
    target = next((t for t in targets if t in present), None)
    corr = pd.DataFrame()
    if target is not None and not costs.empty:
        frame = correlation_frame(store, dataset, target, counts=False)
        if not frame.empty:
            corr = correlate(frame, methods=("kendall",), n_boot=0, min_n=min_n, target_name=target)
    return cost_and_tau(costs, corr, min_n), target
