"""Every number of the paper outputs, computed as the CLI's analysis commands compute it.

Each function here repeats one command's calls to ``core.analysis`` / ``core.reads`` with the same
arguments (``correlate``, ``errortypes``, ``calibrate``, ``ensemble``, ``preference``, ``leaderboard
--kind judges`` and ``--kind systems``, ``agreement``); tests/paper checks the results against the commands' ``--json``. A
dataset without what an analysis needs gets None (with the reason in :attr:`Results.skipped`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

import pandas as pd

from core.analysis.statistic import SCORE_LIKE_METRICS, statistic
from core.paper.correlations import STAT_ALIASES, CorrelationContext
from core.store.db import Store


@dataclass(frozen=True)
class PaperSettings:
    """Every choice that changes a number or its printing; recorded in a bundle, stated in the methods."""

    target: str | None = None       # None: what the dataset has (score first, else sig_errors)
    raters: str | None = None       # None: experts (core.reads.raters)
    stat: str = "kendall"
    drop_identical: bool = False
    n_boot: int = 1000
    seed: int = 0
    ci: str = "auto"
    min_n: int = 10
    clusters: bool = True
    decimals: int = 3
    with_ci: bool = False
    with_n: bool = False
    significance: str = "sig"       # errortypes: sig | insig | both
    calibration_min: int = 0
    calibration_max: int = 12
    reliability_bins: int = 5       # calibrate --bins: expert-score bins of the reliability figure
    train_size: int = 500
    ties: str = "half"

    def __post_init__(self):
        object.__setattr__(self, "stat", STAT_ALIASES.get(self.stat, self.stat))

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> PaperSettings:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def dataset_info(store: Store, dataset: str) -> dict:
    """The dataset's row (name, kind, synthetic, ...); ValueError naming the datasets when unknown."""
    from core.reads.queries import list_datasets

    datasets = list_datasets(store)
    if dataset not in set(datasets["name"]):
        raise ValueError(f"dataset '{dataset}' not found; datasets are: {', '.join(datasets['name']) or 'none'}")
    row = datasets[datasets["name"] == dataset].iloc[0].to_dict()
    return json.loads(pd.Series(row).to_json(date_format="iso", default_handler=str))


def correlation_results(store: Store, dataset: str, s: PaperSettings,
                        all_metrics: bool = False) -> tuple[pd.DataFrame, CorrelationContext, pd.DataFrame]:
    """``correlate``'s table (as its ``--json``), the caption's context, and the frame it was computed on."""
    from core.analysis.stats import correlate
    from core.reads.frames import apply_orientations, correlation_frame, declared_orientations
    from core.reads.raters import resolve_raters
    from core.reads.targets import resolve_target

    target = resolve_target(store, dataset, s.target)
    raters = resolve_raters(store, dataset, s.raters)
    frame = correlation_frame(store, dataset, target, drop_identical=s.drop_identical, counts=all_metrics,
                              annotators=raters.annotators)
    if frame.empty:
        raise ValueError(f"dataset '{dataset}' has no judge values with a '{target}' target; "
                         "run a judge and import annotations first")
    table = correlate(frame, n_boot=s.n_boot, seed=s.seed, min_n=s.min_n,
                      cluster_col="group_id" if s.clusters else None, target_name=target, ci=s.ci)
    table = apply_orientations(table, declared_orientations(store, dataset), target)
    table = table.assign(target=target, raters=raters.choice, drop_identical=s.drop_identical)
    return table, context_of(store, dataset, frame, target, raters.label, raters.annotators, s.drop_identical), frame


def context_of(store: Store, dataset: str, frame: pd.DataFrame, target: str, raters_label: str,
               annotators: list[str] | None, drop_identical: bool) -> CorrelationContext:
    """The caption's counts for a correlation frame: pairs, reference groups, identical pairs kept or removed."""
    from core.reads.frames import correlation_frame

    pairs = frame.drop_duplicates("pair_id")
    groups = pairs["group_id"].where(pairs["group_id"].notna(), "\x00" + pairs["pair_id"].astype(str))
    if drop_identical:  # how many the removal took: the same read without it
        full = correlation_frame(store, dataset, target, annotators=annotators, counts=False)
        n_identical = int(full.drop_duplicates("pair_id")["identical"].sum())
    else:
        n_identical = int(pairs["identical"].sum())
    return CorrelationContext(dataset=dataset, synthetic=bool(dataset_info(store, dataset).get("synthetic")),
                              target=target, raters=raters_label, n_pairs=len(pairs), n_groups=int(groups.nunique()),
                              n_identical=n_identical, identical_removed=drop_identical)


def errortype_results(store: Store, dataset: str, s: PaperSettings) -> pd.DataFrame | None:
    """``errortypes``' F1 table (seeded cluster-bootstrap CIs), None without per-category judge counts."""
    from core.analysis.errortypes import SIGNIFICANCE_CHOICES, f1_bootstrap
    from core.reads.frames import expert_counts, judge_counts, pair_groups
    from core.reads.raters import resolve_raters

    raters = resolve_raters(store, dataset, s.raters)
    jc, ec = judge_counts(store, dataset), expert_counts(store, dataset, raters.annotators)
    if jc.empty or ec.empty:
        return None
    return f1_bootstrap(jc, ec, significant=SIGNIFICANCE_CHOICES[s.significance],
                        groups=pair_groups(store, dataset), n_boot=s.n_boot, seed=s.seed)


def calibration_results(store: Store, dataset: str, s: PaperSettings) -> pd.DataFrame | None:
    """``calibrate``'s counts table (VERT Fig. 2), None without per-category counts on both sides."""
    from core.analysis.calibration import count_calibration
    from core.reads.frames import expert_counts, judge_counts, pair_groups
    from core.reads.raters import resolve_raters

    raters = resolve_raters(store, dataset, s.raters)
    jc = judge_counts(store, dataset)
    ec = expert_counts(store, dataset, raters.annotators)
    if jc.empty or ec.empty:
        return None
    return count_calibration(jc, ec, significant=True, bins=range(s.calibration_min, s.calibration_max + 1),
                             n_boot=s.n_boot, seed=s.seed, groups=pair_groups(store, dataset))


def ensemble_results(store: Store, dataset: str, s: PaperSettings):
    """``ensemble``'s result (VERT Table 5), None with fewer than two judge metrics."""
    from core.analysis.ensemble import ensemble_table, feature_sets_by_metric
    from core.analysis.scores import METRICS
    from core.reads.frames import feature_frame
    from core.reads.raters import resolve_raters
    from core.reads.targets import HIGHER_IS_BETTER, resolve_target

    target = resolve_target(store, dataset, s.target)
    raters = resolve_raters(store, dataset, s.raters)
    features = feature_frame(store, dataset, target, annotators=raters.annotators)
    columns = [c for c in features.columns if ":" in c]
    if len(columns) < 2:
        return None
    sets = {k: v for k, v in feature_sets_by_metric(columns, all_name=None).items() if k in METRICS}
    sets["All"] = columns
    return ensemble_table(features, "target", sets, train_size=s.train_size, seed=s.seed,
                          target_higher_is_better=HIGHER_IS_BETTER[target], n_boot=s.n_boot)


def injected_results(store: Store, dataset: str, s: PaperSettings) -> pd.DataFrame | None:
    """``calibrate``'s detected-vs-injected table (VERT Fig. 3), None without injected errors or judge counts."""
    from core.analysis.calibration import injected_calibration
    from core.reads.frames import injected_counts, judge_counts, pair_groups

    jc, injected = judge_counts(store, dataset), injected_counts(store, dataset)
    if jc.empty or injected.empty:
        return None
    return injected_calibration(jc, injected, n_boot=s.n_boot, seed=s.seed, groups=pair_groups(store, dataset))


#: The 0-1 judge scores ``calibrate`` bins against the expert score (and the Calibration page offers).
RELIABILITY_METRICS = SCORE_LIKE_METRICS


def reliability_results(store: Store, dataset: str, s: PaperSettings) -> pd.DataFrame | None:
    """``calibrate``'s reliability table (mean judge score per expert-score bin), None without expert scores
    or a 0-1 judge score."""
    from core.analysis.calibration import reliability
    from core.reads.frames import correlation_frame, pair_groups
    from core.reads.raters import resolve_raters

    raters = resolve_raters(store, dataset, s.raters)
    frame = correlation_frame(store, dataset, "score", annotators=raters.annotators)
    if frame.empty:
        return None
    scores = frame[["pair_id", "judge", "metric", "value"]]
    targets = frame.drop_duplicates("pair_id")[["pair_id", "target"]]
    table = reliability(scores[scores["metric"].isin(RELIABILITY_METRICS)], targets, n_bins=s.reliability_bins,
                        n_boot=s.n_boot, seed=s.seed, groups=pair_groups(store, dataset))
    return None if table.empty else table


def preference_results(store: Store, dataset: str, s: PaperSettings) -> tuple[pd.DataFrame, dict] | None:
    """``preference``'s table and what it used, None without comparisons."""
    from core.reads.preferences import dataset_preference_accuracy, load_preferences

    if load_preferences(store, dataset).empty:
        return None
    return dataset_preference_accuracy(store, dataset, ties=s.ties)


def leaderboard_results(store: Store, dataset: str, s: PaperSettings) -> pd.DataFrame | None:
    """``leaderboard --kind judges`` (ranked within comparable groups), None when empty."""
    from core.reads.leaderboard import judges_leaderboard
    from core.reads.raters import resolve_raters
    from core.reads.targets import resolve_target

    target = resolve_target(store, dataset, s.target)
    raters = resolve_raters(store, dataset, s.raters)
    board = judges_leaderboard(store, dataset, target=target, n_boot=s.n_boot, seed=s.seed,
                               annotators=raters.annotators).assign(raters=raters.choice)
    return None if board.empty else board


def systems_results(store: Store, dataset: str, s: PaperSettings) -> pd.DataFrame | None:
    """``leaderboard --kind systems`` (candidate systems ranked within comparable groups), None when empty."""
    from core.reads.leaderboard import systems_leaderboard

    board = systems_leaderboard(store, dataset)
    return None if board.empty else board


def agreement_results(store: Store, dataset: str, s: PaperSettings) -> dict | None:
    """``agreement``'s numbers (Krippendorff's alpha, mean pairwise and leave-one-out in the table's
    statistic), None with fewer than two annotators."""
    from core.analysis.ceiling import leave_one_out, mean_stat
    from core.analysis.stats import inter_annotator
    from core.reads.raters import resolve_raters
    from core.reads.targets import annotator_values, load_annotations, resolve_target

    target = resolve_target(store, dataset, s.target)
    raters = resolve_raters(store, dataset, s.raters)
    values = annotator_values(load_annotations(store, dataset))
    values = values[values["target"] == target]
    if raters.annotators is not None:
        values = values[values["annotator"].isin(raters.annotators)]
    if values["annotator"].nunique() < 2:
        return None
    stat = statistic(s.stat).short
    result = inter_annotator(values[["pair_id", "annotator", "value"]],  # the one minimum n, as each judge's
                             method="interval" if target == "score" else "ratio", min_n=s.min_n)
    loo = leave_one_out(values[["pair_id", "annotator", "value"]], min_n=s.min_n)
    return {"alpha": result.alpha, "alpha_level": result.method, "n_units": result.n_units,
            "n_annotators": result.n_annotators, "annotators": sorted(values["annotator"].unique()),
            "stat": stat, "mean_pairwise": result.mean(stat), "loo": mean_stat(loo, stat)}


@dataclass
class Results:
    """Everything the tables, figures and methods of one dataset are made from."""

    dataset: str
    info: dict
    settings: PaperSettings
    corr: pd.DataFrame
    context: CorrelationContext
    frame: pd.DataFrame
    f1: pd.DataFrame | None = None
    calibration: pd.DataFrame | None = None
    injected: pd.DataFrame | None = None
    reliability: pd.DataFrame | None = None
    ensemble: object | None = None
    preference: tuple[pd.DataFrame, dict] | None = None
    leaderboard: pd.DataFrame | None = None
    systems: pd.DataFrame | None = None
    agreement: dict | None = None
    declared: dict = field(default_factory=dict)  # import-outputs --lower/--higher-is-better, per (judge, metric)
    skipped: dict[str, str] = field(default_factory=dict)


#: What compute_all computes unless told (the tables and the methods); figures add injected and reliability.
DEFAULT_PARTS = ("f1", "calibration", "ensemble", "preference", "leaderboard", "systems", "agreement")


def compute_all(store: Store, dataset: str, s: PaperSettings, parts: tuple[str, ...] | None = None) -> Results:
    """The analyses the paper outputs need besides the correlations: ``parts`` of f1, calibration, injected,
    reliability, ensemble, preference, leaderboard, systems, agreement (default :data:`DEFAULT_PARTS`), each
    as its command computes it."""
    info = dataset_info(store, dataset)
    corr, ctx, frame = correlation_results(store, dataset, s)
    from core.reads.frames import declared_orientations

    out = Results(dataset=dataset, info=info, settings=s, corr=corr, context=ctx, frame=frame,
                  declared=declared_orientations(store, dataset))
    steps = {"f1": (errortype_results, "no judge reported per-category error counts, or no expert counts"),
             "calibration": (calibration_results, "no per-category error counts on both sides"),
             "injected": (injected_results, "no injected errors (python -m core inject) with judge counts"),
             "reliability": (reliability_results, "no expert scores with a 0-1 judge score"),
             "ensemble": (ensemble_results, "fewer than two judge metrics"),
             "preference": (preference_results, "no pairwise preferences (import-preferences)"),
             "leaderboard": (leaderboard_results, "no judge to rank"),
             "systems": (systems_results, "no candidate systems (pairs.system) scored by a judge"),
             "agreement": (agreement_results, "fewer than two annotators")}
    for name, (func, reason) in steps.items():
        if name not in (DEFAULT_PARTS if parts is None else parts):
            continue
        value = func(store, dataset, s)
        setattr(out, name, value)
        if value is None:
            out.skipped[name] = reason
    return out
