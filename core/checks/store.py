"""A dataset's checks as a judge run, and its results read back (with or without the LLM phase).

The deterministic phase is stored like any judge (``judge_runs.judge_kind =
'checks'``, judge name ``checks:<locale>``), so it shows up in correlations
and leaderboards:

- ``metric_values``: ``laias_crit`` .. ``laias_rag`` (deterministic 1-5
  dimension scores; absent when UNSCORED), ``laias_overall``,
  ``laias_verdict`` (2 PASS, 1 PARTIAL, 0 FAIL; deterministic only, so
  degraded: PARTIAL at best) and ``laias_critical`` (critical failures);
- ``judge_errors``: one row per failing check: ``category`` = check id (C01,
  R02, ...), ``significant`` = severity is critical or major, ``text`` =
  "severity: message: detail";
- ``judge_outputs.raw_text``: the pair's result as JSON.

The run's prompt hash covers the check registry, the locale pack and
:data:`~core.checks.rules.CHECKS_VERSION`: change any of them and a new run
starts (old results are never mixed with new ones). Pairs already checked in
the run are skipped; each batch is one transaction (core.judges.offline.run_batches, the loop of
every offline judge).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import pandas as pd

from core.checks.locale import get_locale, pack_signature
from core.checks.registry import CHECKS, DIMENSIONS, registry_signature
from core.checks.rules import CHECKS_VERSION, evaluate_pair
from core.checks.scoring import VERDICT_CODE, VERDICTS, score_case
from core.judges.llm import RunSummary
from core.judges.offline import refused_too_long, run_batches
from core.judges.runs import OutputRecord, RunSpec, resume_run, write_outputs
from core.store.db import Store, stable_hash

DIM_METRIC = {d: f"laias_{d.lower()}" for d in DIMENSIONS}
ADV_METRIC = {d: f"laias_adv_{d.lower()}" for d in DIMENSIONS}


def checks_spec(dataset: str, locale: str = "en-US") -> RunSpec:
    get_locale(locale)  # unknown locale: ValueError listing the valid ones
    phash = stable_hash("laias-checks", registry_signature(), pack_signature(locale), CHECKS_VERSION, length=16)
    return RunSpec("checks", f"checks:{locale}", dataset, prompt_id=f"laias_checks_{locale}", prompt_hash=phash,
                   params={"locale": locale, "checks_version": CHECKS_VERSION})


def _pairs(store: Store, dataset: str) -> pd.DataFrame:
    df = store.query_df("SELECT pair_id, ext_id, reference, candidate, modality, anatomy, meta FROM pairs "
                        "WHERE dataset = ? ORDER BY ext_id", [dataset])
    if df.empty and store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]) == 0:
        raise ValueError(f"dataset '{dataset}' not found")
    return df


def _record(pair_id: str, results, latency_ms: float) -> OutputRecord:
    case = score_case(results)
    metrics = {DIM_METRIC[d]: s.score for d, s in case.det.items() if s.tenths is not None}
    if case.overall is not None:
        metrics["laias_overall"] = float(case.overall)
    metrics.update(laias_verdict=float(VERDICT_CODE[case.verdict]),
                   laias_critical=float(sum(s.critical_fails for s in case.det.values())))
    errors = [(r.severity != "minor", r.check_id,
               f"{r.severity}: {CHECKS[r.check_id].message}" + (f": {r.detail}" if r.detail else ""))
              for r in case.failing]
    raw = json.dumps({"scores": {d: s.score for d, s in case.det.items()},
                      "overall": None if case.overall is None else round(float(case.overall), 4),
                      "verdict": case.verdict, "degraded": True,
                      "failing": [[r.check_id, r.severity, r.detail] for r in case.failing]}, ensure_ascii=False)
    return OutputRecord(pair_id=pair_id, raw_text=raw, latency_ms=latency_ms, cost_usd=0.0, metrics=metrics,
                        errors=errors)


def run_checks(store: Store, dataset: str, locale: str = "en-US", *,
               progress: Callable[[int, int, dict], None] | None = None,
               cancel: threading.Event | None = None) -> RunSummary:
    """Run every check on every pair of ``dataset`` and store the results (see the module docstring)."""
    started = time.monotonic()
    spec = checks_spec(dataset, locale)
    pairs = _pairs(store, dataset)
    run_id, todo = resume_run(store, spec, pairs)
    summary = RunSummary(run_id=run_id, requested=len(pairs), skipped=len(pairs) - len(todo))
    summary.ok = summary.skipped
    refused = refused_too_long(spec.judge_name, todo, summary)  # the cap of every offline judge
    if refused:
        write_outputs(store, run_id, refused)
        todo = todo[~todo["pair_id"].isin({r.pair_id for r in refused})]

    def score(rows) -> list[OutputRecord]:
        out = []
        for row in rows:
            t0 = time.perf_counter()
            results = evaluate_pair(row.reference, row.candidate, locale=locale, modality=row.modality,
                                    anatomy=row.anatomy, meta=row.meta)
            out.append(_record(row.pair_id, results, (time.perf_counter() - t0) * 1000))
        return out

    return run_batches(store, spec, run_id, todo, score, summary, len(pairs), started, progress=progress,
                       cancel=cancel)


# -- reading results back ----------------------------------------------------------------------

def checks_runs(store: Store, dataset: str) -> pd.DataFrame:
    """The dataset's checks runs, newest first: run_id, locale, status, n_ok, started_at."""
    runs = store.query_df("SELECT run_id, judge_name, prompt_hash, params, status, n_ok, started_at FROM judge_runs "
                          "WHERE dataset = ? AND judge_kind = 'checks' ORDER BY started_at DESC, run_id", [dataset])
    runs["locale"] = runs["judge_name"].str.removeprefix("checks:")
    return runs


def llm_phase_runs(store: Store, dataset: str, locale: str | None = None) -> pd.DataFrame:
    """LLM runs of the LAIas judge prompt on the dataset (adversarial phase), newest first; ``n_unparsed``
    counts the answers (in ``n_ok``) that could not be read."""
    runs = store.query_df("SELECT r.run_id, model, prompt_id, prompt_hash, params, status, n_ok, n_failed, "
                          "coalesce(u.n, 0) AS n_unparsed, started_at FROM judge_runs r LEFT JOIN "
                          "(SELECT run_id, count(*) AS n FROM judge_outputs WHERE error IS NULL "
                          " AND parse_status = 'failed' GROUP BY run_id) u USING (run_id) "
                          "WHERE dataset = ? AND judge_kind = 'llm' AND prompt_id = 'laias_judge' "
                          "ORDER BY started_at DESC, r.run_id", [dataset])
    runs["locale"] = [json.loads(p or "{}").get("locale") for p in runs["params"]]
    return runs if locale is None else runs[runs["locale"] == locale].reset_index(drop=True)


def default_llm_phase(store: Store, dataset: str, locale: str) -> tuple[str | None, str]:
    """The LLM phase used when none is named: the newest one that has answers, and a note saying so
    (a newer phase whose every call failed is passed over, not silently used)."""
    runs = llm_phase_runs(store, dataset, locale)
    good = runs[runs["n_ok"].fillna(0) - runs["n_unparsed"] > 0]  # some answer that could be read
    if good.empty:
        return None, "no LLM phase with answers" + (f" ({len(runs)} without)" if len(runs) else "")
    newer = int((runs["started_at"] > good["started_at"].iloc[0]).sum())
    note = "newest LLM phase with answers" + (f"; {newer} newer run(s) without answers passed over" if newer else "")
    return good["run_id"].iloc[0], note


def _wide(store: Store, run_id: str | None, metrics: list[str]) -> pd.DataFrame:
    if run_id is None:
        return pd.DataFrame(columns=["pair_id", *metrics])
    long = store.query_df("SELECT pair_id, metric, value FROM metric_values WHERE run_id = ? "
                          "AND metric IN (SELECT unnest(?::VARCHAR[]))", [run_id, metrics])
    wide = long.pivot_table(index="pair_id", columns="metric", values="value", aggfunc="first")
    return wide.reindex(columns=metrics).reset_index()


def _tenths(value) -> int | None:
    return None if value is None or pd.isna(value) else int(round(float(value) * 10))


def case_results(store: Store, dataset: str, checks_run: str, llm_run: str | None = None) -> pd.DataFrame:
    """One row per checked pair: deterministic, adversarial and combined scores, overall, verdict.

    Columns: pair_id, ext_id, system, det_<dim>, adv_<dim>, <dim> (combined),
    overall, verdict, degraded, confidence, critical. Without ``llm_run`` (or for
    a pair the judge did not answer) the row is degraded.
    """
    from core.checks.scoring import case_verdict, combine, confidence, weighted_overall

    det = _wide(store, checks_run, [*DIM_METRIC.values(), "laias_overall", "laias_critical"])
    adv = _wide(store, llm_run, [*ADV_METRIC.values(), "laias_adv_critical", "laias_adv_missing",
                                 "laias_adv_hallucinated"])
    pairs = store.query_df("SELECT pair_id, ext_id, system FROM pairs WHERE dataset = ?", [dataset])
    frame = det.merge(adv, on="pair_id", how="left").merge(pairs, on="pair_id")
    rows = []
    for r in frame.to_dict("records"):
        det_t = {d: _tenths(r[DIM_METRIC[d]]) for d in DIMENSIONS}
        has_adv = any(_tenths(r.get(ADV_METRIC[d])) is not None for d in DIMENSIONS)
        adv_t = {d: _tenths(r.get(ADV_METRIC[d])) for d in DIMENSIONS} if has_adv else None
        combined = combine(det_t, adv_t)
        overall, det_overall = weighted_overall(combined), weighted_overall(det_t)
        critical = bool(r["laias_critical"] or (has_adv and (r.get("laias_adv_critical") or 0) > 0))
        issues = has_adv and ((r.get("laias_adv_missing") or 0) > 0 or (r.get("laias_adv_hallucinated") or 0) > 0)
        row = {"pair_id": r["pair_id"], "ext_id": r["ext_id"], "system": r["system"]}
        row.update({f"det_{d.lower()}": r[DIM_METRIC[d]] for d in DIMENSIONS})
        row.update({f"adv_{d.lower()}": r.get(ADV_METRIC[d]) if has_adv else None for d in DIMENSIONS})
        row.update({d.lower(): None if combined[d] is None else combined[d] / 10 for d in DIMENSIONS})
        row.update(overall=None if overall is None else float(overall),
                   verdict=case_verdict(overall, critical, has_adv), degraded=not has_adv,
                   confidence=confidence(has_adv, det_overall, issues), critical=critical)
        rows.append(row)
    cols = ["pair_id", "ext_id", "system", *[f"det_{d.lower()}" for d in DIMENSIONS],
            *[f"adv_{d.lower()}" for d in DIMENSIONS], *[d.lower() for d in DIMENSIONS], "overall", "verdict",
            "degraded", "confidence", "critical"]
    return pd.DataFrame(rows, columns=cols).sort_values("ext_id", ignore_index=True)


def dimension_summary(cases: pd.DataFrame) -> pd.DataFrame:
    """Per dimension: mean combined score, n scored, n unscored (plus the overall)."""
    rows = []
    for d in [*DIMENSIONS, "overall"]:
        col = d.lower()
        values = cases[col].dropna() if col in cases else pd.Series(dtype=float)
        rows.append({"dimension": d, "mean_score": float(values.mean()) if len(values) else None,
                     "n": int(len(values)), "n_unscored": int(len(cases) - len(values))})
    return pd.DataFrame(rows)


def verdict_counts(cases: pd.DataFrame) -> pd.DataFrame:
    counts = cases["verdict"].value_counts()
    n = len(cases)
    return pd.DataFrame([{"verdict": v, "n": int(counts.get(v, 0)),
                          "share": (int(counts.get(v, 0)) / n) if n else None} for v in VERDICTS])


def failing_checks(store: Store, checks_run: str) -> pd.DataFrame:
    """Per check id: severity, dimension, message, pairs failing it, and pairs it applied to not known (n checked)."""
    errs = store.query_df("SELECT category AS check_id, count(DISTINCT pair_id) AS n_pairs, count(*) AS n_failures "
                          "FROM judge_errors WHERE run_id = ? GROUP BY category", [checks_run])
    n_checked = store.query_one("SELECT count(*) FROM judge_outputs WHERE run_id = ?", [checks_run]) or 0
    registry = CHECKS
    rows = []
    for r in errs.itertuples(index=False):
        c = registry.get(r.check_id)
        rows.append({"check_id": r.check_id, "dimension": c.dimension if c else None,
                     "severity": c.severity if c else None, "message": c.message if c else None,
                     "n_pairs": int(r.n_pairs), "n_failures": int(r.n_failures), "n_checked": int(n_checked)})
    cols = ["check_id", "dimension", "severity", "message", "n_pairs", "n_failures", "n_checked"]
    return pd.DataFrame(rows, columns=cols).sort_values(["n_pairs", "check_id"], ascending=[False, True],
                                                        ignore_index=True)


def pair_failures(store: Store, checks_run: str, pair_id: str) -> pd.DataFrame:
    return store.query_df("SELECT category AS check_id, text FROM judge_errors WHERE run_id = ? AND pair_id = ? "
                          "ORDER BY category", [checks_run, pair_id])
