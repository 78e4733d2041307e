"""``python -m core import-annotations``: the four annotation layouts of core/ingest (docs/importing.md).

- an overall score per pair and rater, on the rater's own scale (``--scale-min`` .. ``--scale-max``);
- error counts: one row per (pair, rater, category, significance) with its count;
- an error list (``--error-list``): one row per error, counted; an empty category marks a pair the
  rater annotated with no errors;
- published per-pair means over N raters (``--aggregate-of N``, core/ingest/aggregates.py);
- wide error counts (``--wide``): one row per pair and rater, a count column per category x significance,
  found from the column names or named with ``--wide-cols`` (core/ingest/importers/wide.py).

Significance cells may be yes/no words or levels (``--significant-levels``, ``--insignificant-levels``;
core.ingest.importers.validation.SignificanceRule). The parser's options are in core/cli/main.py.
"""

from __future__ import annotations

from pathlib import Path

from core.cli.common import Progress, open_store, print_result


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
            annotator=None if args.annotator == "expert" else args.annotator, progress=Progress(True))
        print_result(report.to_json(), args.json)
        return 0
    rule = None
    if args.significant_levels is not None or args.insignificant_levels is not None:
        rule = SignificanceRule.from_lists(args.significant_levels, args.insignificant_levels)
    report = import_annotations(
        open_store(args), Path(args.file), dataset=args.dataset, id_col=args.id_col, score_col=args.score_col,
        scale_max=args.scale_max, scale_min=args.scale_min, category_col=args.category_col,
        significant_col=args.significant_col, count_col=args.count_col, annotator_col=args.annotator_col,
        annotator=args.annotator, error_list=args.error_list, significance=rule, progress=Progress(True),
        wide_cols=parse_wide_cols(args.wide_cols) if args.wide or args.wide_cols else None)
    print_result(report.to_json(), args.json)
    return 0
