"""``python -m core import-annotations``: the four annotation layouts of core/ingest (docs/importing.md).

- an overall score per pair and rater, on the rater's own scale (``--scale-min`` .. ``--scale-max``);
- error counts: one row per (pair, rater, category, significance) with its count;
- an error list (``--error-list``): one row per error, counted; an empty category marks a pair the
  rater annotated with no errors;
- published per-pair means over N raters (``--aggregate-of N``, core/ingest/aggregates.py);
- wide error counts (``--wide``): one row per pair and rater, a count column per category x significance,
  found from the column names or named with ``--wide-cols`` (core/ingest/importers/wide.py).

Significance cells may be yes/no words or levels (``--significant-levels``, ``--insignificant-levels``;
core.ingest.importers.validation.SignificanceRule). Its options: :func:`add_commands`, called by core.cli.datasets.
"""

from __future__ import annotations

from pathlib import Path

from core.cli.common import ProgressBar, open_store, print_result


def cmd_import_annotations(args) -> int:
    from core.ingest.importers import import_annotations, parse_wide_cols
    from core.ingest.importers.validation import SignificanceRule

    if args.aggregate_of is not None:  # published per-pair means over N raters (core/ingest/aggregates.py)
        from core.ingest.aggregates import import_aggregates

        if any(getattr(args, c) for c in ("score_col", "category_col", "significant_col", "count_col")) \
                or args.error_list or args.wide or args.wide_cols:
            raise ValueError("--aggregate-of takes --total-col and/or --sig-col, not per-rater columns")
        report = import_aggregates(
            open_store(args), Path(args.file), dataset=args.dataset, id_col=args.id_col, n_raters=args.aggregate_of,
            total_col=args.total_col, sig_col=args.sig_col,
            annotator=None if args.annotator == "expert" else args.annotator, progress=ProgressBar(True))
        print_result(report.to_json(), args.json)
        return 0
    rule = None
    if args.significant_levels is not None or args.insignificant_levels is not None:
        rule = SignificanceRule.from_lists(args.significant_levels, args.insignificant_levels)
    report = import_annotations(
        open_store(args), Path(args.file), dataset=args.dataset, id_col=args.id_col, score_col=args.score_col,
        scale_max=args.scale_max, scale_min=args.scale_min, category_col=args.category_col,
        significant_col=args.significant_col, count_col=args.count_col, annotator_col=args.annotator_col,
        annotator=args.annotator, error_list=args.error_list, significance=rule, progress=ProgressBar(True),
        wide_cols=parse_wide_cols(args.wide_cols) if args.wide or args.wide_cols else None)
    print_result(report.to_json(), args.json)
    return 0


def add_commands(add) -> None:
    """Register ``import-annotations`` (called by core.cli.datasets, to keep the commands' order)."""
    p = add("import-annotations", cmd_import_annotations,
            "import expert annotations: scores, error counts per category (long or --wide), or a list of errors")
    p.add_argument("file")
    p.add_argument("--dataset", required=True)
    p.add_argument("--id-col", required=True)
    p.add_argument("--score-col")
    p.add_argument("--scale-max", type=float, default=5.0, help="score scale maximum (default 5)")
    p.add_argument("--scale-min", type=float, default=0.0,
                   help="score scale minimum (default 0; 1 for a 1-5 Likert rating): scores are shown on this "
                        "scale and normalised to 0-1 as (score - min) / (max - min) where the analyses need it")
    p.add_argument("--category-col", help="a-f or 1-6")
    p.add_argument("--significant-col", help="true/false, 1/0, yes/no, or a level (see --significant-levels)")
    p.add_argument("--count-col")
    p.add_argument("--error-list", action="store_true",
                   help="one row per error (id, rater, category, significance), counted; a row with an empty "
                        "category and significance marks a pair the rater annotated with no errors (counts 0)")
    p.add_argument("--significant-levels", metavar="L1,L2",
                   help="significance levels that count as clinically significant (default: urgent,actionable)")
    p.add_argument("--insignificant-levels", metavar="L1,L2",
                   help="levels that do not (default: not actionable,non-actionable,expected, and the default "
                        "significant levels not named in --significant-levels)")
    p.add_argument("--wide", action="store_true",
                   help="one row per pair per rater with a count column per category x significance "
                        "(a_significant .. f_minor, sig_a .. insig_f, ...: found from the names)")
    p.add_argument("--wide-cols", metavar="sig_a=COL,insig_a=COL,...",
                   help="the wide layout's count columns the names do not say (cells sig_a..sig_f, insig_a..insig_f; "
                        "implies --wide)")
    p.add_argument("--annotator-col")
    p.add_argument("--annotator", default="expert", help="annotator name when there is no column")
    p.add_argument("--aggregate-of", type=int, metavar="N",
                   help="the file holds per-pair means over N raters (e.g. ReXVal's mean_total_errors): stored "
                        "exactly as k/N under annotator mean_of_N, never counted as a rater")
    p.add_argument("--total-col", help="with --aggregate-of: the mean number of errors (all)")
    p.add_argument("--sig-col", help="with --aggregate-of: the mean number of clinically significant errors")
