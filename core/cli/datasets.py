"""``python -m core demo``, ``datasets``, ``import-pairs``, ``import-annotations`` and ``import-preset``: the demo
and your data in. Registered by :func:`add_commands` from core.cli.main (``COMMAND_MODULES``)."""

from __future__ import annotations

import json
from pathlib import Path

from core.cli.common import (
    ProgressBar,
    open_store,
    print_frame,
    print_result,
)


def cmd_demo(args) -> int:
    from core.ingest.demo import build_demo
    from core.review.demo import build_review_demo

    store = open_store(args)
    report = build_demo(store, n_pairs=args.pairs, seed=args.seed, progress=ProgressBar(True))
    build_review_demo(store, seed=args.seed)  # the report-edit review demo, dataset demo-review
    print_result(report.to_json() | {"seed": args.seed}, args.json)
    return 0


def cmd_datasets(args) -> int:
    from core.reads.queries import list_datasets

    df = list_datasets(open_store(args))
    if args.json:
        records = json.loads(df.to_json(orient="records", date_format="iso"))
        print(json.dumps(records, ensure_ascii=False))
    else:
        print_frame(df, "no datasets; build the demo with `python -m core demo` or import pairs")
    return 0


def cmd_import_pairs(args) -> int:
    from core.ingest.importers import PairColumns, import_pairs, parse_context_cols

    cols = PairColumns(id=args.id_col, reference=args.reference_col, candidate=args.candidate_col,
                       group=args.group_col, system=args.system_col, modality=args.modality_col,
                       anatomy=args.anatomy_col, split=args.split_col,
                       context=parse_context_cols(args.context_cols))
    report = import_pairs(open_store(args), Path(args.file), dataset=args.dataset, columns=cols, kind=args.kind,
                          synthetic=args.synthetic, progress=ProgressBar(True))
    print_result(report.to_json(), args.json)
    return 0


def cmd_import_preset(args) -> int:
    from core.ingest.presets import import_preset

    report = import_preset(open_store(args), args.preset, Path(args.file), dataset=args.dataset,
                           progress=ProgressBar(True))
    print_result(report.to_json(), args.json)
    return 0


def add_commands(add) -> None:
    """Register the data commands with the CLI's ``add(name, func, help)``."""
    p = add("demo", cmd_demo, "build the seeded synthetic demo dataset `demo`")
    p.add_argument("--pairs", type=int, default=400, help="number of pairs (default 400)")
    p.add_argument("--seed", type=int, default=7, help="generator seed (default 7)")

    add("datasets", cmd_datasets, "list datasets with pair, annotation and run counts")

    p = add("import-pairs", cmd_import_pairs, "import reference/candidate pairs from CSV/TSV/JSONL/Parquet")
    p.add_argument("file")
    p.add_argument("--dataset", required=True)
    p.add_argument("--id-col", required=True)
    p.add_argument("--reference-col", required=True)
    p.add_argument("--candidate-col", required=True)
    for opt in ("group", "system", "modality", "anatomy", "split"):
        p.add_argument(f"--{opt}-col")
    p.add_argument("--context-cols", metavar="age=COL,sex=COL,indication=COL,history=COL",
                   help="patient context columns, any subset (free text each; history = comparison/history): "
                        "shown beside the pair and read by context-aware prompts")
    p.add_argument("--kind", default="score", choices=["score", "error_counts", "preference", "edit_review"])
    p.add_argument("--synthetic", action="store_true", help="mark the dataset as synthetic")

    from core.cli import annotations  # its options beside its command, listed here in the help order

    annotations.add_commands(add)

    p = add("import-preset", cmd_import_preset,
            "import a file in a published layout (rexval-pairs, rexval-errors, rate-eval, radeval-counts)")
    p.add_argument("preset", choices=["rexval-pairs", "rexval-errors", "rate-eval", "radeval-counts"],
                   help="rate-eval: RaTE-Eval's rate_test.csv as public code reads it (gt_report, similar_report, "
                        "Score 0-4.5, normalised by 4.5); radeval-counts: RadEval's expert set "
                        "(ground_truth, prediction1..3, annotation1..3, seven categories, the seventh kept out of "
                        "the a-f totals) or wide sig_a..f/insig_a..f counts. Neither layout was checked against "
                        "the real file (docs/importing.md, 'Import presets')")
    p.add_argument("file")
    p.add_argument("--dataset", required=True)
