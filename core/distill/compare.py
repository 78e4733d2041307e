"""Side by side, CREPE Table 3 style: the student, its teacher, and the LLM judges it could stand in for.

On the student's held-out test pairs only (never a pair it trained or
validated on): milliseconds per pair and Kendall tau-b with the experts
(95% bootstrap CI over groups), and tau with the teacher for the student.
The teacher's and each LLM run's ms/pair is the mean latency its run
recorded per answer (for an LLM: the model call, as CREPE's GREEN
~2,600 ms); the student's is batched scoring (batches of 32) measured at
training. An LLM run enters with its headline metric (``ec_sig`` if it
stored counts, else the first of core.analysis.scores.METRICS it has), oriented so
that a positive tau means agreement. No torch here.
"""

from __future__ import annotations

import pandas as pd

from core.analysis.scores import METRICS, orientation_sign
from core.distill.evaluate import tau_rho_with_ci
from core.reads.frames import judge_runs
from core.reads.targets import dataset_targets
from core.store.db import Store

HEADLINE = ("ec_sig", *[m for m in METRICS if m != "ec_sig"])


def expert_target(store: Store, dataset: str) -> tuple[str | None, int, pd.DataFrame]:
    """The expert target the student is compared with: sig_errors if annotated, else the score (negated)."""
    t = dataset_targets(store, dataset)
    for name, sign in (("sig_errors", 1), ("score", -1)):
        sub = t[t["target"] == name]
        if not sub.empty:
            return name, sign, sub[["pair_id", "value"]].rename(columns={"value": "expert"})
    return None, 1, pd.DataFrame(columns=["pair_id", "expert"])


def teacher_ms(store: Store, run_id: str | None, pair_ids: list[str] | None = None) -> float | None:
    """Mean recorded latency per answer of a run (on ``pair_ids`` if given)."""
    if run_id is None:
        return None
    sql = ("SELECT avg(latency_ms) FROM judge_outputs WHERE run_id = ? AND error IS NULL "
           "AND latency_ms IS NOT NULL")
    params: list = [run_id]
    if pair_ids is not None:
        sql += " AND pair_id IN (SELECT unnest(?::VARCHAR[]))"
        params.append(list(pair_ids))
    v = store.query_one(sql, params)
    return None if v is None else round(float(v), 3)


def _llm_row(store: Store, run, test: pd.DataFrame, sign: int, seed: int) -> dict | None:
    values = store.query_df("SELECT pair_id, metric, value FROM metric_values WHERE run_id = ? AND pair_id IN "
                            "(SELECT unnest(?::VARCHAR[]))", [run.run_id, test["pair_id"].tolist()])
    metric = next((m for m in HEADLINE if m in set(values["metric"])), None)
    if metric is None:
        return None
    v = values[values["metric"] == metric].drop_duplicates("pair_id").set_index("pair_id")["value"]
    frame = test.assign(v=test["pair_id"].map(v)).dropna(subset=["v", "expert"])
    errorlike = -orientation_sign(metric) * frame["v"].to_numpy(dtype=float)  # higher = more errors
    c = tau_rho_with_ci(errorlike, sign * frame["expert"].to_numpy(dtype=float), frame["group"].to_numpy(), seed)
    return {"scorer": run.judge, "role": "LLM judge", "metric": metric,
            "ms_per_pair": teacher_ms(store, run.run_id, frame["pair_id"].tolist()), "n": c["n"],
            "tau_vs_experts": c["tau"], "tau_vs_experts_ci": c["tau_ci"], "tau_vs_teacher": None}


def side_by_side(store: Store, card: dict) -> tuple[pd.DataFrame, str | None]:
    """Rows: student, teacher, every LLM run of the card's dataset; and a note when there is no LLM run."""
    m = card["metrics"]["all"]
    ve, te = m.get("vs_expert") or {}, m.get("teacher_vs_expert") or {}
    q = card.get("quantization") or {}
    variant = "int8" if q.get("int8_used") else "float32"
    rows = [{"scorer": f"distilled:{card['name']} ({card['encoder']}, {variant})", "role": "student",
             "metric": "ec_sig", "ms_per_pair": card["ms_per_pair"], "n": m["n"], "tau_vs_experts": ve.get("tau"),
             "tau_vs_experts_ci": ve.get("tau_ci"), "tau_vs_teacher": m["vs_teacher"]["tau"]},
            {"scorer": card["teacher"], "role": "teacher", "metric": "sig_a..sig_f (sum)",
             "ms_per_pair": card.get("teacher_ms_per_pair"), "n": te.get("n", m["n"]),
             "tau_vs_experts": te.get("tau"), "tau_vs_experts_ci": te.get("tau_ci"), "tau_vs_teacher": 1.0}]
    note = None
    _, sign, expert = expert_target(store, card["dataset"])
    runs = judge_runs(store, card["dataset"])
    llm = runs[(runs["judge_kind"] == "llm") & (runs["run_id"] != card.get("teacher_run_id"))]
    if expert.empty:
        note = "no expert annotations on this dataset: tau vs experts cannot be computed"
    elif llm.empty:
        note = f"no LLM judge run on '{card['dataset']}': none to compare with (run one on the Run page)"
    else:
        test = store.query_df("SELECT pair_id, coalesce(group_id, pair_id) AS \"group\" FROM pairs "
                              "WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))", [card["splits"]["test"]])
        test = test.merge(expert, on="pair_id", how="left")
        for run in llm.itertuples(index=False):
            row = _llm_row(store, run, test, sign, card["seed"])
            if row is not None:
                rows.append(row)
        if len(rows) == 2:
            note = "the LLM runs on this dataset have no score on the student's test pairs"
    if card.get("teacher_kind") == "expert":
        rows[1]["tau_vs_experts"], rows[1]["tau_vs_experts_ci"] = 1.0, None
    return pd.DataFrame(rows), note
