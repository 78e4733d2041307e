"""What the HTML report shows, gathered from the store: correlations per expert target, calibration, F1 per
category, the GREEN-style summary, preferences, run costs and provenance.

:func:`collect` feeds the analysis exactly as :mod:`core.cli.analysis` does; :mod:`core.report.sections` and
:mod:`core.report.html` render what it returns.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

import pandas as pd

from core.access import RESEARCHER, SEE_PATHS, allowed
from core.analysis.statistic import STATISTICS
from core.reads.context import context_dict
from core.store.db import Store
from core.taxonomy import CONTEXT_FIELDS

#: Targets the report covers, in order (only those the dataset has annotations for).
REPORT_TARGETS: tuple[str, ...] = ("score", "sig_errors")


@dataclass
class TargetResult:
    """Correlations of every judge metric with one expert target, and the expert ceiling."""

    target: str
    corr: pd.DataFrame              # core.analysis.stats.correlate output
    table: object | None            # core.analysis.stats.JudgeMetricTable, None without values
    best: dict | None               # the correlate row that agrees best (right sign, enough pairs)
    ceiling: object | None          # core.analysis.stats.Agreement between annotators, None below two
    n_annotators: int
    loo_tau: float = math.nan       # core.analysis.ceiling: each annotator vs the mean of the others
    stat: str = "kendall"           # the statistic of the table, the headline and the ceiling
    loo: pd.DataFrame | None = None  # core.analysis.ceiling.leave_one_out: tau, rho and r per annotator
    headline: object | None = None   # core.analysis.headline.Headline: the answer in words (page, CLI, report)

    @property
    def loo_value(self) -> float:
        """The leave-one-out ceiling in this result's statistic (never another one than the table's)."""
        from core.analysis.ceiling import mean_stat

        return self.loo_tau if self.loo is None else mean_stat(self.loo, self.stat)


@dataclass
class ReportData:
    dataset: dict
    runs: pd.DataFrame
    targets: list[TargetResult]
    calibration: pd.DataFrame
    f1: pd.DataFrame
    summary: object | None          # core.analysis.summary.Summary
    summary_note: str
    excerpts: dict[str, dict]       # pair_id -> ext_id, reference, candidate, context (core.reads.context)
    n_boot: int
    seed: int
    min_n: int
    store_info: dict = field(default_factory=dict)
    experts: str = "all annotators"  # which annotators are the expert target (e.g. clinician ratings)
    costs: pd.DataFrame = field(default_factory=pd.DataFrame)  # core.reads.runcost.run_costs
    preferences: tuple | None = None  # core.reads.preferences.dataset_preference_accuracy, None without comparisons
    stat: str = "kendall"  # kendall / spearman / pearson: the correlations' and the ceiling's statistic


#: The report's statistic -> (estimate, CI low, CI high, |value|) columns of core.analysis.stats.correlate.
STAT_COLS = {s.key: (s.short, s.ci_low, s.ci_high, s.abs_col) for s in STATISTICS}


def _target_result(store: Store, dataset: str, target: str, annotator_frame: pd.DataFrame, *, n_boot: int,
                   seed: int, min_n: int, annotators: list[str] | None = None,
                   stat: str = "kendall") -> TargetResult:
    from core.analysis.headline import headline
    from core.analysis.stats import correlate, inter_annotator, judge_metric_table, paired_difference
    from core.reads.frames import correlation_frame

    frame = correlation_frame(store, dataset, target, annotators=annotators, counts=False)  # as `correlate`
    corr = pd.DataFrame()
    table = None
    if not frame.empty:
        from core.reads.frames import apply_orientations, declared_orientations

        corr = correlate(frame, n_boot=n_boot, seed=seed, min_n=min_n, cluster_col="group_id", target_name=target,
                         ci="auto")  # as `correlate` and the page: the bootstrap up to 5,000 pairs
        corr = apply_orientations(corr, declared_orientations(store, dataset), target)
        table = judge_metric_table(corr, STAT_COLS[stat][3])
    values = annotator_frame[annotator_frame["target"] == target]
    n_annotators = int(values["annotator"].nunique())
    ceiling = None
    loo, loo_table = math.nan, None
    if n_annotators >= 2:
        from core.analysis.ceiling import leave_one_out, mean_tau

        ceiling = inter_annotator(values[["pair_id", "annotator", "value"]],
                                  method="interval" if target == "score" else "ratio", min_n=min_n)
        loo_table = leave_one_out(values[["pair_id", "annotator", "value"]], min_n=min_n)
        loo = mean_tau(loo_table)

    def paired(a: tuple, b: tuple) -> pd.DataFrame:  # the page's paired test, on the report's resamples
        return paired_difference(frame, a[0], b[0], a[1], b[1], n_boot=n_boot, seed=seed, stat=stat,
                                 target_name=target, min_n=min_n)

    said = headline(corr, stat=stat, min_n=min_n, loo=loo_table, n_annotators=n_annotators,
                    paired=paired if n_boot > 0 else None)
    return TargetResult(target=target, corr=corr, table=table, best=said.best, ceiling=ceiling,
                        n_annotators=n_annotators, loo_tau=loo, stat=stat, loo=loo_table, headline=said)


def _summary_judge(targets: list[TargetResult], with_texts: set[str]) -> str | None:
    """The judge whose best metric agrees most with the experts (first target first), among those with a
    summary (``with_texts``: :func:`core.analysis.summary.summarisable_judges`)."""
    for result in targets:
        if result.corr.empty:
            continue
        ranked = result.corr[result.corr["judge"].isin(with_texts) & result.corr["sign_ok"].astype(bool)
                             & (result.corr["n"] >= 1)]
        ranked = ranked.sort_values("tau_oriented", ascending=False, kind="stable")
        if len(ranked):
            return str(ranked.iloc[0]["judge"])
    return sorted(with_texts)[0] if with_texts else None


def collect(store: Store, dataset: str, *, n_boot: int = 1000, seed: int = 0, min_n: int = 10,
            annotators: list[str] | None = None, experts: str | None = None, stat: str = "kendall",
            role: str | None = RESEARCHER) -> ReportData:
    """Everything the report shows, computed from the store as the CLI's analysis commands do.

    ``stat`` (kendall / spearman / pearson) is the statistic of the correlation tables, the headline and the
    expert ceiling alike (the ceiling is never quoted in another statistic than the table).

    ``annotators`` limits the expert target to those annotators (e.g. the clinician ratings
    ``rater:*`` of core/reads/ratings.py); ``experts`` names that choice in the report. Neither given:
    :func:`core.reads.raters.resolve_raters`' default, the imported annotations, as everywhere else.

    ``role``: who the report is for (:func:`core.access.allowed`); the store's file name only for a role
    allowed ``see_paths`` (the CLI's user holds the file: researcher).
    """
    from core.analysis.calibration import count_calibration
    from core.analysis.errortypes import f1_bootstrap
    from core.analysis.summary import judge_summary, summarisable_judges
    from core.reads.frames import (
        expert_counts,
        judge_counts,
        judge_runs,
        pair_facets,
    )
    from core.reads.queries import list_datasets
    from core.reads.summary_inputs import summary_frames
    from core.reads.targets import annotator_values, load_annotations

    if stat not in STAT_COLS:
        raise ValueError(f"unknown statistic {stat!r}; valid: {', '.join(STAT_COLS)}")
    datasets = list_datasets(store)
    if dataset not in set(datasets["name"]):
        known = ", ".join(datasets["name"]) or "none"
        raise ValueError(f"dataset '{dataset}' not found; datasets are: {known}")
    info = datasets[datasets["name"] == dataset].iloc[0].to_dict()
    if annotators is None and experts is None:  # the rule of every analysis (core.reads.raters): experts by default
        from core.reads.raters import resolve_raters

        choice = resolve_raters(store, dataset)
        annotators, experts = choice.annotators, choice.label
    runs = judge_runs(store, dataset)  # provenance lists every run, report checks included (kind "checks")
    annotator_frame = annotator_values(load_annotations(store, dataset))
    if annotators is not None:
        annotator_frame = annotator_frame[annotator_frame["annotator"].isin(annotators)]
    present = set(annotator_frame["target"])
    targets = [_target_result(store, dataset, t, annotator_frame, n_boot=n_boot, seed=seed, min_n=min_n,
                              annotators=annotators, stat=stat)
               for t in REPORT_TARGETS if t in present]

    jc = judge_counts(store, dataset)
    calibration = f1 = pd.DataFrame()
    if not jc.empty and "sig_errors" in present:  # the chosen experts gave error counts
        ec = expert_counts(store, dataset, annotators)
        if not ec.empty:
            groups = pair_facets(store, dataset)[["pair_id", "group_id"]]
            calibration = count_calibration(jc, ec, significant=True, bins=range(1, 13), n_boot=n_boot,
                                             seed=seed, groups=groups)
            f1 = f1_bootstrap(jc, ec, significant=True, groups=groups, n_boot=n_boot, seed=seed)  # seeded CIs

    summary, note = None, ""
    # a judge with a GREEN score, or a CRIMSON run (headed by CRIMSON's score), and errors per category
    errors, counts, scores = summary_frames(store, dataset, jc)
    judge = _summary_judge(targets, set(summarisable_judges(errors, counts, scores)))
    if judge is None:
        note = ("No judge on this dataset has a summary yet (a GREEN or CRIMSON score and errors per category, "
                f"explained or counted); run one (python -m core judge --dataset {dataset} --judge rules) to get one.")
    else:
        summary = judge_summary(errors, counts, scores, judge, seed=seed)

    excerpts: dict[str, dict] = {}
    if summary is not None and len(summary.clusters):
        top = summary.clusters[summary.clusters["is_largest"].astype(bool) & (summary.clusters["rank"] <= 3)]
        ids = sorted(set(top["pair_id"].astype(str)))
        if ids:
            rows = store.query_df(f"SELECT pair_id, ext_id, reference, candidate, {', '.join(CONTEXT_FIELDS)} "
                                  "FROM pairs WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))", [ids])
            # each excerpt carries its pair's patient context (the fields that hold text), shown beside it
            excerpts = {r["pair_id"]: r | {"context": context_dict(r)} for r in rows.to_dict("records")}
    store_info = {"file": store.path.name if allowed(role, SEE_PATHS) else "not shown", "schema_version": store.schema_version(),
                  "data_version": store.data_version()}
    from core.reads.runcost import run_costs

    return ReportData(dataset=info, runs=runs, targets=targets, calibration=calibration, f1=f1, summary=summary,
                      summary_note=note, excerpts=excerpts, n_boot=n_boot, seed=seed, min_n=min_n,
                      store_info=store_info, experts=experts or "all annotators", costs=run_costs(store, dataset),
                      preferences=_preferences(store, dataset), stat=stat)



def _preferences(store: Store, dataset: str) -> tuple | None:
    from core.reads.preferences import dataset_preference_accuracy

    if not store.query_one("SELECT count(*) FROM preferences WHERE dataset = ?", [dataset]):
        return None
    return dataset_preference_accuracy(store, dataset)


def _seeds_and_shots(params: object) -> str:
    """The seed and shot settings buried in a run's params JSON, as ``key=value`` pairs."""
    try:
        parsed = json.loads(params) if isinstance(params, str) else (params or {})
    except ValueError:
        return ""
    found = []

    def walk(node, path: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{path}.{k}" if path else str(k))
        elif path and re.search(r"seed|shot|(^|\.)k$|split", path) and not isinstance(node, list):
            found.append(f"{path}={node}")
        elif path and isinstance(node, list) and re.search(r"shot", path):
            found.append(f"{path}: {len(node)} items")

    walk(parsed, "")
    return "; ".join(found)


def provenance_tables(store: Store, dataset: str | None = None) -> dict[str, pd.DataFrame]:
    """What the store holds and where it came from: ``datasets`` (all) and ``judges`` (of ``dataset``).

    ``datasets``: name, origin (synthetic / imported), kind, source, version, pairs, annotators, runs,
    created_at. ``judges``: judge, kind, model, prompt_id, prompt_hash, seeds_and_shots, params, status,
    n_ok, n_failed, n_unparsed (answers that could not be read), cost_usd, started_at, finished_at.
    """
    from core.reads.frames import judge_runs
    from core.reads.queries import list_datasets

    ds = list_datasets(store)
    datasets = pd.DataFrame({
        "name": ds["name"], "origin": ds["synthetic"].map({True: "synthetic", False: "imported"}),
        "kind": ds["kind"], "source": ds["source"], "version": ds["version"], "pairs": ds["pairs"],
        "annotators": ds["annotators"], "runs": ds["runs"], "created_at": ds["created_at"],
    })
    runs = judge_runs(store, dataset) if dataset is not None else pd.DataFrame()
    return {"datasets": datasets, "judges": judges_frame(runs)}


JUDGE_COLUMNS = ["judge", "kind", "model", "prompt_id", "prompt_hash", "seeds_and_shots", "params", "status",
                  "n_ok", "n_failed", "n_unparsed", "cost_usd", "started_at", "finished_at"]


def judges_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """:func:`core.reads.frames.judge_runs` rows as the provenance table shows them."""
    if runs.empty:
        return pd.DataFrame(columns=JUDGE_COLUMNS)
    frame = runs.rename(columns={"judge_kind": "kind"}).assign(
        seeds_and_shots=[_seeds_and_shots(p) for p in runs["params"]])
    return frame[JUDGE_COLUMNS].reset_index(drop=True)
