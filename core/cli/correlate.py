"""``python -m core correlate`` (every judge metric against the expert target) and ``report`` (the HTML report).
Registered by :func:`add_commands` from core.cli.main (``COMMAND_MODULES``)."""

from __future__ import annotations

import sys

from core.analysis.statistic import SHORT_TO_KEY
from core.cli.common import (
    add_excerpt_flags,
    excerpt_flag,
    frame_text,
    open_store,
    print_result,
)
from core.cli.paper import STAT_CHOICES, add_table_flags, print_correlate_table
from core.store.db import default_store_path
from core.taxonomy import MIN_N


def cmd_correlate(args) -> int:
    from core.analysis.stats import correlate
    from core.reads.frames import correlation_frame
    from core.reads.raters import resolve_raters
    from core.reads.targets import resolve_target

    store = open_store(args)
    args.target = resolve_target(store, args.dataset, args.target)
    raters = resolve_raters(store, args.dataset, args.raters)
    # every score of every judge (imported ones under any name); per-category counts only on request
    frame = correlation_frame(store, args.dataset, args.target, drop_identical=args.drop_identical,
                              counts=args.all_metrics, annotators=raters.annotators)
    if frame.empty:
        raise ValueError(f"dataset '{args.dataset}' has no judge values with a '{args.target}' target; "
                         "run a judge and import annotations first")
    if args.breakdown:
        from core.analysis.stats import breakdown

        table = breakdown(frame, by_facet=args.breakdown, n_boot=args.n_boot, seed=args.seed, min_n=args.min_n,
                          cluster_col=None if args.no_clusters else "group_id", target_name=args.target, ci=args.ci)
    else:
        table = correlate(frame, n_boot=args.n_boot, seed=args.seed, min_n=args.min_n,
                          cluster_col=None if args.no_clusters else "group_id", target_name=args.target, ci=args.ci)
    from core.reads.frames import (  # import-outputs --lower-is-better
        apply_orientations,
        declared_orientations,
    )

    table = apply_orientations(table, declared_orientations(store, args.dataset), args.target)
    table = table.assign(target=args.target, raters=raters.choice, drop_identical=args.drop_identical)
    from core.cli.analysis import correlate_headline, with_names

    words, caveat = ([], None) if args.breakdown else correlate_headline(args, store, table, frame, raters)
    if caveat and (args.table or args.format or args.json):  # beside the numbers, never inside machine output
        print(f"note: {caveat}", file=sys.stderr)
    if args.table or args.format:  # the papers' shape: text, LaTeX, Markdown, CSV (with --breakdown: by facet)
        return print_correlate_table(args, store, table, frame, raters)
    if args.json:  # every field as before, plus each row's display name
        print(with_names(table).to_json(orient="records", double_precision=15))
        return 0
    cols = [c for c in (args.breakdown, "name", "n", "tau", "ci_low", "ci_high", "p", "rho", "r", "sign_ok",
                        "dagger", "judge", "metric") if c in table.columns or c == "name"]
    shown = with_names(table)
    if not args.breakdown and len(shown):  # closest to the experts first (sign-corrected tau), not by name
        shown = shown.sort_values("tau_oriented", ascending=False, na_position="last", kind="stable")
    print(f"Expert target: {args.target}, from {raters.label}")
    for line in [*words, *([caveat] if caveat else [])]:
        print(line)
    print(frame_text(shown[cols], float_format=lambda v: f"{v:.3f}"))  # a missing value reads as MISSING
    return 0


def cmd_report(args) -> int:
    import shlex

    from core.reads.raters import resolve_raters
    from core.report import write_report
    from core.store.outfiles import check_out_file

    check_out_file(args.out, store=args.store or default_store_path(), force=args.force)
    store = open_store(args)
    raters = resolve_raters(store, args.dataset, args.raters)
    parts = ["python", "-m", "core"] + (["--store", str(args.store)] if args.store else []) + [
        "report", "--dataset", args.dataset, "--out", str(args.out), "--n-boot", str(args.n_boot),
        "--seed", str(args.seed), "--min-n", str(args.min_n), "--raters", raters.choice, "--stat", args.stat,
    ] + excerpt_flag(args.excerpts)
    out = write_report(store, args.dataset, args.out, n_boot=args.n_boot, seed=args.seed, min_n=args.min_n,
                       include_excerpts=args.excerpts, command=shlex.join(parts), annotators=raters.annotators,
                       experts=raters.label, stat=SHORT_TO_KEY[args.stat])
    print_result(out, args.json)
    return 0


def add_commands(add) -> None:
    """Register ``correlate`` and ``report`` with the CLI's ``add(name, func, help)``."""
    from core.reads.raters import RATERS_HELP

    p = add("correlate", cmd_correlate, "correlations of every judge metric with the expert target")
    p.add_argument("--dataset", required=True)
    p.add_argument("--target", help="score | sig_errors | total_errors | sig_a..sig_f | total_a..total_f "
                                    "(default: what the dataset has, score first, else sig_errors)")
    p.add_argument("--drop-identical", action="store_true",
                   help="leave out pairs whose candidate equals the reference (ReXVal*-style check)")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for the CIs (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (recorded in the output)")
    p.add_argument("--min-n", type=int, default=MIN_N, help=f"fewer pairs than this: no statistics (default {MIN_N})")
    p.add_argument("--no-clusters", action="store_true",
                   help="resample pairs even when they share a reference (default: resample groups)")
    p.add_argument("--ci", choices=["auto", "bootstrap", "asymptotic"], default="auto",
                   help="confidence intervals: the seeded (cluster) bootstrap, the asymptotic (cluster-robust) "
                        "interval, or auto: bootstrap up to 5,000 pairs per row, asymptotic above (default); "
                        "the method used is each row's ci_method")
    p.add_argument("--all-metrics", action="store_true", help="also the per-category counts (sig_a, ..., matched)")
    p.add_argument("--table", action="store_true",
                   help="the papers' Table 2/3 shape: judge x metric, |tau|, dagger p >= 0.01, best/second marked")
    add_table_flags(p)  # --format latex|markdown|csv, --decimals, --with-ci, --with-n, --stat (core.cli.paper)
    p.add_argument("--breakdown", choices=["modality", "anatomy", "system", "split"],
                   help="one table per value of this facet, with n per cell (with --table or --format: one "
                        "column per value, in the papers' shape)")
    p.add_argument("--raters", help=RATERS_HELP)

    p = add("report", cmd_report, "write a self-contained HTML report of a dataset (opens offline)")
    p.add_argument("--dataset", required=True)
    p.add_argument("--out", required=True, help="the .html file to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists (never the store)")
    p.add_argument("--raters", help=RATERS_HELP)
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for the CIs (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap and clustering seed (recorded in the report)")
    p.add_argument("--min-n", type=int, default=MIN_N, help=f"fewer pairs than this: no statistics (default {MIN_N})")
    p.add_argument("--stat", choices=STAT_CHOICES, default="tau",
                   help="the statistic of the correlation tables, the headline and the experts' ceiling "
                        "(Kendall tau-b, Spearman rho or Pearson r; default tau)")
    add_excerpt_flags(p)
