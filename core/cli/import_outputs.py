"""``python -m core import-outputs FILE --format green|crimson|radeval``: judge outputs made elsewhere, stored
as an ``imported`` run.

Which flags each ``--format`` takes is one table, :data:`FORMAT_FLAGS`, checked in one place
(:func:`check_format_flags`) before the store is opened: a flag another format takes, a flag given
without the one it goes with, or a required flag left out is refused in one line (exit 2), and nothing
is stored. Registered by :func:`add_commands` from core.cli.main (``COMMAND_MODULES``).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

from core.cli.common import ProgressBar, add_flag_pair, open_store, print_result

REQUIRED, OPTIONAL, ONE_OF = "required", "optional", "exactly one"
ORIENTATION = "--lower-is-better/--higher-is-better"

#: Each flag's name as the user types it -> where argparse puts it (None: not given).
FLAG_DEST: dict[str, str] = {
    "--judge": "judge", "--id-col": "id_col", "--ids": "ids", "--text-col": "text_col",
    "--score-col": "score_col", "--metric": "metric", "--crimson-map": "crimson_map", ORIENTATION: "higher_is_better",
}


@dataclass(frozen=True)
class FormatFlags:
    """The flags one ``--format`` takes: flag -> ``REQUIRED``, ``OPTIONAL``, ``ONE_OF`` (exactly one of the
    flags so marked) or the flag it goes with; ``reads`` says what the format reads, after the flags missing."""

    flags: dict[str, str]
    reads: str


FORMAT_FLAGS: dict[str, FormatFlags] = {
    "green": FormatFlags(
        {"--judge": REQUIRED, "--id-col": REQUIRED, "--text-col": ONE_OF, "--score-col": ONE_OF,
         "--metric": "--score-col", ORIENTATION: "--score-col"},
        "--format green reads a table of outputs named after their judge, with an id column and a column of "
        "GREEN-format text (--text-col) or of scores (--score-col)"),
    "crimson": FormatFlags(
        {"--judge": REQUIRED, "--id-col": REQUIRED, "--text-col": REQUIRED, "--score-col": OPTIONAL,
         "--crimson-map": OPTIONAL},
        "--format crimson reads a table (or CRIMSON's results JSON) with an id column and a column of JSON "
        "answers, under a judge's name"),
    "radeval": FormatFlags(
        {"--ids": REQUIRED, "--judge": OPTIONAL, "--id-col": OPTIONAL},
        "the pair ids in RadEval's order, --ids FILE (one id per line, or a CSV/TSV/JSONL with --id-col); "
        "every metric is imported under RadEval's name, with its orientation from RadEval's table"),
}


def check_format_flags(fmt: str, given: dict[str, object]) -> None:
    """Refuse (``ImportValidationError``, one line) flags ``fmt`` does not take, flags given without the one
    they go with, and required flags left out. ``given``: flag -> value, ``None`` when not given."""
    from core.ingest.importers import ImportValidationError

    spec = FORMAT_FLAGS[fmt]
    present = {flag for flag, value in given.items() if value is not None and value != ""}
    foreign = [flag for flag in FLAG_DEST if flag in present and flag not in spec.flags]
    if foreign:
        where = "; ".join(f"{flag} goes with --format {' or '.join(_formats_taking(flag))}" for flag in foreign)
        raise ImportValidationError([f"{', '.join(foreign)} do(es) not apply to --format {fmt} ({where})"])
    alone = [(flag, need) for flag, need in spec.flags.items()
             if need not in (REQUIRED, OPTIONAL, ONE_OF) and flag in present and need not in present]
    if alone:
        raise ImportValidationError(["; ".join(f"{flag} goes with {need} (--format {fmt})" for flag, need in alone)])
    missing = [flag for flag, need in spec.flags.items() if need == REQUIRED and flag not in present]
    choice = [flag for flag, need in spec.flags.items() if need == ONE_OF]
    if choice and sum(flag in present for flag in choice) != 1:
        missing.append(f"either {' or '.join(choice)} (not both)")
    if missing:
        raise ImportValidationError([f"give {' and '.join(missing)}: {spec.reads}"])


def _formats_taking(flag: str) -> list[str]:
    return [fmt for fmt, spec in FORMAT_FLAGS.items() if flag in spec.flags]


def flags_epilog() -> str:
    """The table in words, for ``import-outputs --help``."""
    lines = ["flags by --format (any other is refused):"]
    for fmt, spec in FORMAT_FLAGS.items():
        by_need: dict[str, list[str]] = {}
        for flag, need in spec.flags.items():
            by_need.setdefault(need, []).append(flag)
        parts = [f"{', '.join(flags)} ({need if need in (REQUIRED, OPTIONAL, ONE_OF) else 'with ' + need})"
                 for need, flags in by_need.items()]
        lines += textwrap.wrap(f"{fmt}: {'; '.join(parts)}", 98, initial_indent="  ", subsequent_indent="    ",
                               break_on_hyphens=False)
    return "\n".join(lines)


def cmd_import_outputs(args) -> int:
    """One import per --format, after the one check of the flags."""
    check_format_flags(args.format, {flag: getattr(args, dest) for flag, dest in FLAG_DEST.items()})
    if args.format == "radeval":
        from core.ingest.importers.radeval import import_radeval

        report = import_radeval(open_store(args), Path(args.file), Path(args.ids), dataset=args.dataset,
                                judge=args.judge or "radeval", id_col=args.id_col, progress=ProgressBar(True))
    elif args.format == "crimson":
        from core.ingest.importers import import_crimson_outputs

        report = import_crimson_outputs(open_store(args), Path(args.file), dataset=args.dataset, judge=args.judge,
                                        id_col=args.id_col, text_col=args.text_col, score_col=args.score_col,
                                        crimson_map=args.crimson_map, progress=ProgressBar(True))
    else:
        from core.ingest.importers import import_outputs

        report = import_outputs(open_store(args), Path(args.file), dataset=args.dataset, judge=args.judge,
                                id_col=args.id_col, text_col=args.text_col, score_col=args.score_col,
                                metric=args.metric, progress=ProgressBar(True), higher_is_better=args.higher_is_better)
    print_result(report.to_json(), args.json)
    return 0


def add_commands(add) -> None:
    from core.cli.judge import CRIMSON_MAP_HELP

    p = add("import-outputs", cmd_import_outputs, "import judge outputs produced elsewhere as an `imported` run",
            epilog=flags_epilog())
    p.add_argument("file")
    p.add_argument("--format", choices=list(FORMAT_FLAGS), default="green",
                   help="green: a table of GREEN-format text or scores (default); crimson: CRIMSON JSON answers; "
                        "radeval: RadEval's per-sample JSON (metric -> one value per report) with --ids")
    p.add_argument("--dataset", required=True)
    p.add_argument("--judge", help="the judge's name (required, except --format radeval: default radeval)")
    p.add_argument("--id-col", help="the id column (of the outputs file; with --format radeval, of the --ids table)")
    p.add_argument("--ids", metavar="FILE",
                   help="--format radeval: the pair ids in RadEval's order, one per line (or a CSV/TSV/JSONL "
                        "with --id-col)")
    p.add_argument("--text-col", help="raw judge text (GREEN format is parsed; --format crimson: the JSON answers)")
    p.add_argument("--score-col", help="a numeric score per pair (--format crimson: the file's own CRIMSON score, "
                   "checked against the one recomputed from each answer)")
    p.add_argument("--metric", help="metric name for --score-col (default: the judge name)")
    p.add_argument("--crimson-map", metavar="KIND=CAT,...", help=CRIMSON_MAP_HELP)
    add_flag_pair(p, "higher_is_better",
                  ("--lower-is-better", False, "the score falls as reports get better (e.g. an error count); "
                                               "recorded with the run, used by every sign check"),
                  ("--higher-is-better", True,
                   "the score rises as reports get better (assumed, and flagged, when neither is given)"))
