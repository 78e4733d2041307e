"""The analysis commands of ``python -m core``: each one reads the store through
:mod:`core.reads.frames`, calls one pure function and prints a tidy table (or JSON
records with ``--json``). Registered by :func:`add_commands` from core.cli.main.
"""

from __future__ import annotations

import json

import pandas as pd

from core.analysis.statistic import SCORE_LIKE_METRICS, SHORT_TO_KEY
from core.cli.common import ProgressBar, dataset_caveat_of, frame_text, open_store
from core.cli.paper import STAT_CHOICES
from core.reads.raters import RATERS_HELP, resolve_raters
from core.taxonomy import MIN_N


def _emit(table: pd.DataFrame, as_json: bool, title: str | None = None) -> None:
    if as_json:
        print(table.to_json(orient="records", double_precision=15, default_handler=str))
        return
    if title:
        print(f"== {title}")
    if table.empty:
        print("(no rows)")
    else:  # an empty cell (a bin without reports, an undefined statistic) reads as a dash, never "NaN"
        print(frame_text(table, float_format=lambda v: f"{v:.3f}"))


def correlate_headline(args, store, table: pd.DataFrame, frame: pd.DataFrame, raters) -> tuple[list[str], str | None]:
    """``correlate``'s answer in words (core.analysis.headline, as the Correlations page and the report say
    it): the closest judge with its CI and n, the experts' ceiling in the same statistic, the paired test
    against the runner-up; and the dataset's caveat (the synthetic demo's), or None."""
    from core.analysis.ceiling import leave_one_out
    from core.analysis.headline import headline, sentences
    from core.analysis.stats import paired_difference
    from core.reads.targets import annotator_target_values

    stat = SHORT_TO_KEY[args.stat]  # correlate --stat (tau) -> the analysis layer's name (kendall)
    values = annotator_target_values(store, args.dataset, args.target)
    if raters.annotators is not None:
        values = values[values["annotator"].isin(raters.annotators)]
    if args.drop_identical:  # the ceiling on the pairs the judges are scored on
        values = values[values["pair_id"].isin(set(frame["pair_id"]))]
    n_annotators = int(values["annotator"].nunique())
    loo = leave_one_out(values[["pair_id", "annotator", "value"]], min_n=args.min_n) if n_annotators > 1 else None

    def paired(a: tuple, b: tuple) -> pd.DataFrame:
        return paired_difference(frame, a[0], b[0], a[1], b[1], n_boot=args.n_boot, seed=args.seed, stat=stat,
                                 target_name=args.target, min_n=args.min_n,
                                 cluster_col=None if args.no_clusters else "group_id")

    said = headline(table, stat=stat, min_n=args.min_n, loo=loo, n_annotators=n_annotators,
                    paired=paired if args.n_boot > 0 else None)
    return sentences(said), dataset_caveat_of(store, args.dataset)


def with_names(table: pd.DataFrame) -> pd.DataFrame:
    """``correlate``'s rows with ``name``: each judge metric as every output names it (core.analysis.naming);
    the stored ``judge`` and ``metric`` keys stay."""
    from core.analysis.naming import display_name

    if table.empty:
        return table.assign(name=pd.Series(dtype=object))
    return table.assign(name=[display_name(str(j), str(m), with_judge=True)
                              for j, m in zip(table["judge"], table["metric"], strict=True)])


def cmd_compare(args) -> int:
    from core.analysis.stats import paired_difference
    from core.reads.frames import correlation_frame
    from core.reads.targets import resolve_target

    judge_a, metric_a = args.a.rsplit(":", 1)
    judge_b, metric_b = args.b.rsplit(":", 1)
    store = open_store(args)
    args.target = resolve_target(store, args.dataset, args.target)
    raters = resolve_raters(store, args.dataset, args.raters)
    frame = correlation_frame(store, args.dataset, args.target, drop_identical=args.drop_identical,
                              annotators=raters.annotators)
    known = sorted(set(frame["judge"]))
    for judge in (judge_a, judge_b):
        if judge not in known:
            raise ValueError(f"judge '{judge}' has no values on '{args.dataset}'; judges: {', '.join(known)}")
    table = paired_difference(frame, judge_a, judge_b, metric_a, metric_b, n_boot=args.n_boot, seed=args.seed,
                              target_name=args.target).assign(raters=raters.choice)
    _emit(table, args.json)
    return 0


def cmd_agreement(args) -> int:
    from core.analysis.stats import inter_annotator
    from core.reads.targets import annotator_values, load_annotations, resolve_target

    store = open_store(args)
    args.target = resolve_target(store, args.dataset, args.target)
    raters = resolve_raters(store, args.dataset, args.raters)
    values = annotator_values(load_annotations(store, args.dataset))
    values = values[values["target"] == args.target]
    if raters.annotators is not None:
        values = values[values["annotator"].isin(raters.annotators)]
    if values["annotator"].nunique() < 2:
        raise ValueError(f"dataset '{args.dataset}' has {values['annotator'].nunique()} annotator(s) for "
                         f"'{args.target}'; agreement needs two or more")
    from core.analysis.ceiling import STAT_COLUMNS, STAT_WORDS, leave_one_out, mean_stat, mean_tau

    stat = args.stat  # the ceiling in the statistic the judges are read in (correlate: tau; --stat rho / r)
    # the ceiling on the one minimum n of the comparison, as each judge's correlation (core.taxonomy.MIN_N)
    result = inter_annotator(values[["pair_id", "annotator", "value"]],
                             method="interval" if args.target == "score" else "ratio", min_n=MIN_N)
    loo = leave_one_out(values[["pair_id", "annotator", "value"]], min_n=MIN_N)
    if args.json:
        print(json.dumps({"target": args.target, **raters.to_json(), "alpha": result.alpha,
                          "alpha_level": result.method,
                          "n_units": result.n_units, "n_annotators": result.n_annotators,
                          "stat": stat, "mean_pairwise": result.mean(stat), "loo": mean_stat(loo, stat),
                          "mean_tau": result.mean_tau, "loo_tau": mean_tau(loo),
                          "pairwise": json.loads(result.pairwise.to_json(orient="records")),
                          "leave_one_out": json.loads(loo.to_json(orient="records"))}))
    else:
        print(f"Annotators: {raters.label}")
        print(f"Krippendorff's alpha ({args.target}, {result.method} level): {result.alpha:.3f} over "
              f"{result.n_units} pairs, {result.n_annotators} annotators; mean pairwise {STAT_WORDS[stat]} "
              f"= {result.mean(stat):.3f}")
        print(f"Each annotator vs the mean of the others (leave-one-out, the ceiling comparable with a judge "
              f"scored against the experts' mean): mean {STAT_WORDS[stat]} = {mean_stat(loo, stat):.3f}")
        est, p = STAT_COLUMNS[stat]
        _emit(result.pairwise[["annotator_a", "annotator_b", "n", est, p]], False, "pairwise")
        _emit(loo[["annotator", "n", est, p]], False, "leave-one-out")
    return 0


def cmd_errortypes(args) -> int:
    import time

    from core.analysis.errortypes import (
        SIGNIFICANCE_CHOICES,
        accuracy_per_category,
        f1_bootstrap,
        mae_per_category,
    )
    from core.reads.frames import expert_counts, judge_counts, pair_groups

    store = open_store(args)
    raters = resolve_raters(store, args.dataset, args.raters)
    jc, ec = judge_counts(store, args.dataset), expert_counts(store, args.dataset, raters.annotators)
    if jc.empty:
        raise ValueError(f"no judge on '{args.dataset}' reported per-category counts; run a GREEN-format judge")
    significant = SIGNIFICANCE_CHOICES[args.significance]
    started = time.perf_counter()
    # seeded cluster bootstrap: pairs sharing a reference (group_id) are drawn together, as for the correlations
    f1 = f1_bootstrap(jc, ec, significant=significant, groups=pair_groups(store, args.dataset),
                      n_boot=args.n_boot, seed=args.seed)
    seconds = time.perf_counter() - started
    mae = mae_per_category(jc, ec, significant=significant)
    acc = accuracy_per_category(jc, ec, significant=significant)
    if args.json:
        print(json.dumps({**raters.to_json(), "f1": json.loads(f1.to_json(orient="records")),
                          "mae": json.loads(mae.to_json(orient="records")),
                          "accuracy": json.loads(acc.to_json(orient="records"))}))
    else:
        print(f"Experts: {raters.label}")
        groups = sorted(set(f1["n_groups"])) if len(f1) else [0]
        unit = "reference groups" if (f1["resampling"] == "groups").any() else "pairs"
        print(f"95% CIs: percentile bootstrap, {args.n_boot:,} resamples of {'/'.join(map(str, groups))} {unit}, "
              f"seed {args.seed} ({seconds:.2f} s); n = reports with counts from both sides (n_pairs)")
        cols = ["judge", "category", "tp", "fp", "fn", "support", "precision", "recall", "f1", "f1_ci_low",
                "f1_ci_high", "n_pairs", "n_missing_judge", "n_missing_expert"]
        _emit(f1[cols], False, "F1 per error category (VERT App. C)")
        _emit(mae, False, "MAE per category (GREEN Table 4)")
        _emit(acc, False, "Accuracy per category (GREEN Table 4)")
    return 0


def cmd_calibrate(args) -> int:
    from core.analysis.calibration import count_calibration, injected_calibration, reliability
    from core.reads.frames import correlation_frame, expert_counts, injected_counts, judge_counts, pair_groups

    store = open_store(args)
    raters = resolve_raters(store, args.dataset, args.raters)
    groups = pair_groups(store, args.dataset)  # pairs sharing a reference are resampled together
    jc = judge_counts(store, args.dataset)
    injected = injected_counts(store, args.dataset)
    out = {}
    if not jc.empty:
        out["counts"] = count_calibration(jc, expert_counts(store, args.dataset, raters.annotators), significant=True,
                                          bins=range(args.min, args.max + 1), n_boot=args.n_boot, seed=args.seed,
                                          groups=groups)
        if not injected.empty:
            out["injected"] = injected_calibration(jc, injected, n_boot=args.n_boot, seed=args.seed, groups=groups)
    frame = correlation_frame(store, args.dataset, "score", annotators=raters.annotators)
    if not frame.empty:
        scores = frame[["pair_id", "judge", "metric", "value"]]
        targets = frame.drop_duplicates("pair_id")[["pair_id", "target"]]
        known = scores["metric"].isin(SCORE_LIKE_METRICS)
        out["reliability"] = reliability(scores[known], targets, n_bins=args.bins, n_boot=args.n_boot,
                                         seed=args.seed, groups=groups)
    if not out:
        raise ValueError(f"nothing to calibrate on '{args.dataset}': run a judge first")
    if args.json:
        print(json.dumps({**raters.to_json(), **{k: json.loads(v.to_json(orient="records")) for k, v in out.items()}}))
    else:
        print(f"Experts: {raters.label}")
        titles = {"counts": f"Significant errors detected per expert count ({args.min}-{args.max}; VERT Fig. 2)",
                  "injected": "Detected vs injected k (VERT Fig. 3)",
                  "reliability": "Judge score per expert-score bin"}
        for k, v in out.items():
            _emit(v, False, titles[k])
    return 0


def cmd_ensemble(args) -> int:
    from core.analysis.ensemble import ensemble_table, feature_sets_by_metric
    from core.reads.frames import feature_frame
    from core.reads.targets import HIGHER_IS_BETTER, resolve_target

    store = open_store(args)
    args.target = resolve_target(store, args.dataset, args.target)
    raters = resolve_raters(store, args.dataset, args.raters)
    features = feature_frame(store, args.dataset, args.target, annotators=raters.annotators)
    columns = [c for c in features.columns if ":" in c]
    if len(columns) < 2:
        raise ValueError(f"ensembles need at least two judge metrics on '{args.dataset}'")
    from core.analysis.scores import METRICS

    # one set per score metric (pooled over judges), and "All": scores, per-category counts, matched findings
    sets = {k: v for k, v in feature_sets_by_metric(columns, all_name=None).items() if k in METRICS}
    sets["All"] = columns
    result = ensemble_table(features, "target", sets, train_size=args.train_size,
                            seed=args.seed, target_higher_is_better=HIGHER_IS_BETTER[args.target],
                            n_boot=args.n_boot)
    _emit(result.table.drop(columns=[c for c in ("columns",) if c in result.table.columns])
          .assign(raters=raters.choice), args.json)
    return 0


def cmd_summary(args) -> int:
    from core.analysis.naming import display_name
    from core.analysis.summary import compare_systems, judge_summary, require_summarisable
    from core.reads.summary_inputs import summary_frames

    # headed by GREEN for a GREEN-format judge, by CRIMSON for a CRIMSON run (as the Summaries page and the report)
    errors, counts, scores = summary_frames(open_store(args), args.dataset)
    if args.compare:
        require_summarisable(errors, counts, scores, args.judge)
        table = compare_systems(errors, counts, scores, args.judge, systems=tuple(args.compare), seed=args.seed)
        _emit(table, args.json)
        return 0
    summary = judge_summary(errors, counts, scores, args.judge, system=args.system, seed=args.seed)
    if args.json:
        print(json.dumps(summary.to_json(), default=str))
    else:
        metric = summary.score_metric
        label = display_name(args.judge, metric)
        value = ("-" if summary.green_mean is None
                 else f"{summary.green_mean:.3f} ± {summary.green_std:.3f}")
        print(f"{label} (mean ± std) {value} from {summary.green_n} values over {summary.n_reports} reports "
              f"(embedding: {summary.embedding}, seed {summary.seed})")
        _emit(summary.categories, False)
    return 0


def cmd_simulate(args) -> int:
    from core.analysis.simulate import simulate_grid

    table = simulate_grid(args.tp, args.s, args.i, alpha=args.alpha, beta_s=args.beta_s, beta_i=args.beta_i)
    _emit(table, args.json)
    return 0


def cmd_import_preferences(args) -> int:
    from pathlib import Path

    from core.ingest.comparisons import derive_preferences, import_preferences

    if args.from_annotations:
        if args.file:
            raise ValueError("give a FILE or --from-annotations, not both")
        report = derive_preferences(open_store(args), args.dataset, target=args.target or "sig_errors")
    else:
        missing = [f"--{n}" for n, v in (("a-col", args.a_col), ("b-col", args.b_col),
                                          ("preferred-col", args.preferred_col)) if not v]
        if not args.file or missing:
            raise ValueError("give FILE with --a-col, --b-col and --preferred-col (missing: "
                             f"{', '.join(missing) or 'FILE'}), or --from-annotations")
        report = import_preferences(open_store(args), Path(args.file), dataset=args.dataset, a_col=args.a_col,
                                    b_col=args.b_col, preferred_col=args.preferred_col,
                                    confidence_col=args.confidence_col, id_col=args.id_col,
                                    annotator=args.annotator, annotator_col=args.annotator_col,
                                    progress=ProgressBar(True))
    print(json.dumps(report.to_json()) if args.json else
          f"{report.added:,} comparison(s) added, {report.skipped:,} already stored ({report.rows:,} in all)")
    return 0


def cmd_preference(args) -> int:
    from core.reads.preferences import dataset_preference_accuracy

    table, used = dataset_preference_accuracy(open_store(args), args.dataset, ties=args.ties)
    if args.json:
        print(json.dumps({**used, "rows": json.loads(table.to_json(orient="records", double_precision=15))}))
        return 0
    print(f"Preference accuracy (GREEN Sec. 4.3.2, Fig. 6): {used['n_comparisons']:,} comparisons "
          f"({'; '.join(used['sources']) or 'imported'}); ties count {args.ties}")
    overall = table[table["scope"] == "overall"].sort_values("accuracy", ascending=False)
    _emit(overall[["judge", "metric", "accuracy", "ci_low", "ci_high", "n", "n_ties", "n_missing"]], False, "overall")
    levels = table[table["scope"] == "level"]
    if len(levels):
        wide = levels.pivot_table(index=["judge", "metric"], columns="confidence", values="accuracy")
        counts = levels.groupby("confidence")["n"].max()
        wide.columns = [f"conf {c:g} (n={int(counts[c])})" for c in wide.columns]
        _emit(wide.reset_index(), False, "accuracy by expert confidence")
    return 0


def add_dataset_and_raters(p) -> None:
    """--dataset (required) and --raters, the first two options of every command over expert scores."""
    p.add_argument("--dataset", required=True)
    p.add_argument("--raters", help=RATERS_HELP)


def add_commands(add) -> None:
    """Register the analysis subcommands with the CLI's ``add(name, func, help)``."""
    from core.reads.targets import TARGET_HELP

    p = add("import-preferences", cmd_import_preferences,
            "import pairwise expert preferences (two candidates of one case, which is better, confidence 1-10), "
            "or derive them from the dataset's annotations")
    p.add_argument("file", nargs="?", help="CSV/TSV/JSONL/Parquet, one comparison per row")
    p.add_argument("--dataset", required=True)
    p.add_argument("--a-col", help="external id of candidate a")
    p.add_argument("--b-col", help="external id of candidate b")
    p.add_argument("--preferred-col", help="a | b | the preferred id | empty/tie/none (no preference)")
    p.add_argument("--confidence-col", help="the expert's confidence, 1-10 (optional)")
    p.add_argument("--id-col", help="comparison id (default: a hash of the two ids and the annotator)")
    p.add_argument("--annotator", default="expert", help="the rater's name when the file has no rater column")
    p.add_argument("--annotator-col", help="the rater of each row, for a file with several raters (one row per "
                                            "rater per comparison); each rater's row is its own comparison")
    p.add_argument("--from-annotations", action="store_true",
                   help="derive comparisons from the experts' annotations: candidates of one case whose target "
                        "differs; confidence = the difference, rounded up, capped at 10")
    p.add_argument("--target", help="with --from-annotations: sig_errors (default), total_errors or score")

    p = add("preference", cmd_preference,
            "preference accuracy (GREEN Fig. 6): how often each judge prefers the candidate the expert preferred, "
            "overall and by confidence, with Wilson 95%% CIs and n")
    p.add_argument("--dataset", required=True)
    p.add_argument("--ties", choices=["half", "exclude", "wrong"], default="half",
                   help="a judge that scores both candidates alike: half correct (default), left out, or wrong")

    p = add("compare", cmd_compare, "paired bootstrap: is judge A's tau with the experts higher than judge B's?")
    add_dataset_and_raters(p)
    p.add_argument("--a", required=True, help="JUDGE:METRIC, e.g. rules:ec_sig")
    p.add_argument("--b", required=True, help="JUDGE:METRIC, e.g. lexical:bleu4")
    p.add_argument("--target", help=TARGET_HELP)
    p.add_argument("--drop-identical", action="store_true")
    p.add_argument("--n-boot", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)

    p = add("agreement", cmd_agreement, "inter-annotator agreement (pairwise tau, Krippendorff's alpha): the ceiling")
    add_dataset_and_raters(p)
    p.add_argument("--target", help=TARGET_HELP)
    p.add_argument("--stat", choices=STAT_CHOICES, default="tau",
                   help="the ceiling's statistic, as the judges are read: Kendall tau-b (default, as `correlate "
                        "--table`), Spearman rho or Pearson r (the Correlations page's Statistic)")

    p = add("errortypes", cmd_errortypes, "F1 (with seeded bootstrap CIs), MAE and accuracy per error category "
            "for every judge")
    add_dataset_and_raters(p)
    p.add_argument("--significance", choices=["sig", "insig", "both"], default="sig")
    p.add_argument("--n-boot", type=int, default=1000,
                   help="bootstrap resamples of reference groups for the F1, precision and recall CIs (default "
                        "1000; 0: none)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (recorded in the output)")

    p = add("calibrate", cmd_calibrate, "error-count calibration (VERT Fig. 2/3) and score reliability")
    add_dataset_and_raters(p)
    p.add_argument("--min", type=int, default=0, help="smallest expert count bin (default 0, as the page; VERT Fig. 2: 1)")
    p.add_argument("--max", type=int, default=12, help="largest expert count bin (default 12)")
    p.add_argument("--bins", type=int, default=5, help="expert-score bins for the reliability view")
    p.add_argument("--n-boot", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)

    p = add("ensemble", cmd_ensemble, "average and regression ensembles, fitted on train pairs, tau on held-out pairs")
    add_dataset_and_raters(p)
    p.add_argument("--target", help=TARGET_HELP)
    p.add_argument("--train-size", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-boot", type=int, default=1000)

    p = add("summary", cmd_summary, "GREEN-style clustered summary of a judge's error explanations, headed by "
            "its GREEN score (CRIMSON's for a CRIMSON run)")
    p.add_argument("--dataset", required=True)
    p.add_argument("--judge", required=True)
    p.add_argument("--system", help="only this candidate system")
    p.add_argument("--compare", nargs=2, metavar="SYSTEM", help="two systems side by side")
    p.add_argument("--seed", type=int, default=0)

    p = add("simulate", cmd_simulate, "GREEN, F1, Formula and the alpha/beta score over grids of TP, S, I (App. B.7)")
    p.add_argument("--tp", type=int, nargs="+", default=[0, 1, 2, 5, 10])
    p.add_argument("--s", type=int, nargs="+", default=[0, 1, 2, 5])
    p.add_argument("--i", type=int, nargs="+", default=[0])
    p.add_argument("--alpha", type=float)
    p.add_argument("--beta-s", type=float)
    p.add_argument("--beta-i", type=float)

