"""The paper commands of ``python -m core``: ``tables``, ``methods``, ``figures``, ``bundle``, ``reproduce``,
and ``correlate --table --format latex|markdown|csv``. The work is in :mod:`core.paper`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.access import RESEARCHER
from core.analysis.statistic import SHORT_TO_KEY
from core.cli.common import dataset_caveat_of, open_store
from core.taxonomy import MIN_N

#: --stat: the statistics by their short names (tau, rho, r), as core.analysis.statistic lists them
STAT_CHOICES = tuple(SHORT_TO_KEY)


def add_table_flags(p, *, stat: bool = True) -> None:
    """How a table is printed: --format, --decimals, --with-ci, --with-n (and --stat)."""
    from core.paper.formats import FORMATS

    p.add_argument("--format", choices=FORMATS,
                   help="the papers' table as LaTeX (booktabs, a table float to \\input), Markdown or CSV (one row "
                        "per cell); implies --table")
    p.add_argument("--decimals", type=int, default=3, help="decimals printed (default 3); best / second best are "
                                                           "decided on the printed values")
    p.add_argument("--with-ci", action="store_true", help="print each cell's CI: 0.632 [0.581, 0.680]")
    p.add_argument("--with-n", action="store_true", help="print each cell's n")
    if stat:
        p.add_argument("--stat", choices=STAT_CHOICES, default="tau",
                       help="the statistic of the table: Kendall tau-b (default), Spearman rho or Pearson r")


def add_settings_flags(p, *, table_flags: bool = True) -> None:
    """Every setting of core.paper.compute.PaperSettings that a command takes (``table_flags=False``: not
    the table's printing, only its statistic)."""
    from core.reads.raters import RATERS_HELP
    from core.reads.targets import TARGET_HELP

    p.add_argument("--dataset", required=True)
    p.add_argument("--target", help=TARGET_HELP)
    p.add_argument("--raters", help=RATERS_HELP)
    p.add_argument("--drop-identical", action="store_true",
                   help="leave out pairs whose candidate equals the reference (ReXVal*-style check)")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for every CI (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap and split seed (recorded)")
    p.add_argument("--ci", choices=["auto", "bootstrap", "asymptotic"], default="auto",
                   help="correlation CIs: auto (bootstrap up to 5,000 pairs, asymptotic above), bootstrap, asymptotic")
    p.add_argument("--min-n", type=int, default=MIN_N, help=f"fewer pairs than this: no statistics (default {MIN_N})")
    p.add_argument("--no-clusters", action="store_true", help="resample pairs even when they share a reference")
    if table_flags:
        add_table_flags(p)
    else:
        p.add_argument("--stat", choices=STAT_CHOICES, default="tau", help="the statistic of the scatter's title "
                                                                           "and the heatmap (default tau)")


def settings_from(args):
    from core.paper.compute import PaperSettings

    return PaperSettings(target=args.target, raters=args.raters, stat=args.stat, drop_identical=args.drop_identical,
                         n_boot=args.n_boot, seed=args.seed, ci=args.ci, min_n=args.min_n,
                         clusters=not args.no_clusters, decimals=getattr(args, "decimals", 3),
                         with_ci=getattr(args, "with_ci", False), with_n=getattr(args, "with_n", False))


#: An ``--out`` ending in one of these names a file, not the folder ``tables``/``figures`` write into.
FILE_SUFFIXES = (".md", ".csv", ".txt", ".pdf", ".zip", ".svg", ".png", ".jpg", ".jpeg", ".eps", ".html", ".json")


def _write_stdout(data: bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def print_correlate_table(args, store, table, frame, raters) -> int:
    """``correlate --table``: the table ``correlate`` computed, in the papers' shape. Without --format (and
    with the default statistic, decimals, no CI and no n): the text table with its legend, as before; with
    --format: :mod:`core.paper`'s LaTeX, Markdown or CSV."""
    plain = args.stat == "tau" and args.decimals == 3 and not args.with_ci and not args.with_n
    if getattr(args, "breakdown", None):  # --breakdown F: one column per value of F, as the papers' table
        return _print_breakdown_table(args, store, table, frame, raters)
    if args.format is None and plain:
        from core.analysis.stats import judge_metric_table

        shaped = judge_metric_table(table)
        print(f"Expert target: {args.target}, from {raters.label}\n")
        print(shaped.to_markdown())
        print(f"\n{shaped.legend} n and 95% CIs: --json.")
        return 0
    from core.paper.compute import context_of
    from core.paper.correlations import correlation_table
    from core.paper.formats import render

    ctx = context_of(store, args.dataset, frame, args.target, raters.label, raters.annotators, args.drop_identical)
    shaped = correlation_table(table, ctx, stat=args.stat, decimals=args.decimals, with_ci=args.with_ci,
                               with_n=args.with_n)
    _write_stdout(render(shaped, args.format or "markdown"))
    return 0


def _print_breakdown_table(args, store, cells, frame, raters) -> int:
    """``correlate --breakdown F --table`` (or ``--format``): judge metrics x values of F in the papers' shape."""
    from core.paper.compute import context_of
    from core.paper.correlations import breakdown_table
    from core.paper.formats import render

    ctx = context_of(store, args.dataset, frame, args.target, raters.label, raters.annotators, args.drop_identical)
    shaped = breakdown_table(cells, ctx, args.breakdown, stat=args.stat, decimals=args.decimals,
                             with_ci=args.with_ci, with_n=args.with_n)
    _write_stdout(render(shaped, args.format or "markdown"))
    return 0


def _write_out(tables: dict, out: Path, args, store) -> list[Path]:
    """``tables --out``: a path ending in .tex is that file (every LaTeX table in one document that compiles on
    its own); any other path is a folder of every table in every format (or ``--format``) plus tables.tex."""
    from core.paper.assemble import tables_document, write_tables
    from core.paper.formats import FORMATS
    from core.store.outfiles import check_out_file, write_atomic

    if out.suffix.lower() == ".tex":
        if args.format not in (None, "latex"):
            raise ValueError(f"--out {out} is a LaTeX file; for --format {args.format} give a folder")
        path = check_out_file(out, store=store.path, force=args.force, example="tables.tex")
        write_atomic(path, [tables_document(tables)])
        return [path]
    if out.suffix.lower() in FILE_SUFFIXES:
        raise ValueError(f"--out {out}: give a folder (every table in every format) or a .tex file "
                         "(every table in one LaTeX document)")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; give a folder, or a .tex file for one LaTeX document")
    return write_tables(tables, out, (args.format,) if args.format else FORMATS)


def cmd_tables(args) -> int:
    from core.paper.assemble import TABLE_KINDS, all_tables
    from core.paper.compute import compute_all
    from core.paper.formats import render

    store = open_store(args)
    results = compute_all(store, args.dataset, settings_from(args))
    tables = all_tables(results)
    caveat = dataset_caveat_of(store, args.dataset)
    if caveat:  # beside the tables, never inside them (as `correlate` says it)
        print(f"note: {caveat}", file=sys.stderr)
    if args.out:
        for path in _write_out(tables, Path(args.out), args, store):
            print(path)
        for kind, reason in results.skipped.items():
            print(f"note: no {kind} table: {reason}", file=sys.stderr)
        return 0
    kind = args.table or "correlations"
    if kind not in tables:
        raise ValueError(f"no {kind} table on '{args.dataset}': {results.skipped.get(kind, 'nothing to show')}; "
                         f"tables here: {', '.join(k for k in TABLE_KINDS if k in tables)}")
    _write_stdout(render(tables[kind], args.format or "markdown"))
    return 0


def cmd_methods(args) -> int:
    from core.paper.compute import compute_all
    from core.paper.methods import methods_bibtex, methods_paragraph
    from core.reads.frames import judge_runs
    from core.reads.runcost import run_costs

    store = open_store(args)
    results = compute_all(store, args.dataset, settings_from(args))
    paragraph = methods_paragraph(results, judge_runs(store, args.dataset), run_costs(store, args.dataset))
    form = "latex" if args.format == "latex" else "text"
    bib = methods_bibtex(paragraph)
    print(paragraph.render(form))
    if args.bib:
        from core.store.outfiles import check_out_file, write_atomic

        path = check_out_file(args.bib, store=store.path, force=args.force, example="methods.bib")
        write_atomic(path, [bib])
        print(f"\n(BibTeX: {len(paragraph.keys)} entries in {path})", file=sys.stderr)
    else:
        print("\n" + bib, end="")
    return 0


def cmd_figures(args) -> int:
    import time

    from core.paper.compute import compute_all
    from core.paper.figures import FIGURE_PARTS, all_figures, write_figures

    out = Path(args.out)
    if out.suffix.lower() in (*FILE_SUFFIXES, ".tex"):  # `--out fig.svg` would make a folder named fig.svg
        raise ValueError(f"--out {out} names a file; give a folder: every figure is written into it as NAME.svg, "
                         "NAME.pdf and NAME.csv")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; give a folder")
    started = time.perf_counter()
    results = compute_all(open_store(args), args.dataset, settings_from(args), parts=FIGURE_PARTS)
    figures = all_figures(results)
    if not figures:
        raise ValueError(f"no figure to draw on '{args.dataset}': run a judge and import annotations first")
    computed = time.perf_counter() - started
    written = write_figures(figures, out, tuple(args.figure_format))
    for row in written:
        print(f"{out / row['file']}  {row['bytes']:,} bytes" + (f"  {row['seconds']:.2f} s" if row["seconds"] else ""))
    rendering = sum(r["seconds"] for r in written)
    print(f"{len(figures)} figures: numbers {computed:.1f} s, rendering {rendering:.1f} s (no browser)", file=sys.stderr)
    return 0


def cmd_bundle(args) -> int:
    from core.paper.bundle import build_bundle
    from core.store.outfiles import check_out_file, write_atomic

    store = open_store(args)
    out = check_out_file(args.out, store=store.path, force=args.force, example="bundle.zip")
    text = True if args.with_text else False if args.no_text else None
    data = build_bundle(store, args.dataset, settings_from(args), with_text=text, with_figures=args.with_figures,
                        role=RESEARCHER)  # whoever runs the CLI holds the store file itself
    write_atomic(out, [data])
    print(f"{out}  {len(data):,} bytes")
    return 0


def cmd_reproduce(args) -> int:
    from core.paper.reproduce import reproduce

    source = Path(args.bundle)
    out = Path(args.out) if args.out else source.with_name(source.name.removesuffix(".zip") + "-reproduced")
    result = reproduce(source, out)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        restored = ", ".join(f"{n:,} {t}" for t, n in result.rows.items() if n)
        print(f"store rebuilt at {result.store}: {restored}")
        print(f"tables of '{result.dataset}' regenerated in {out / 'tables'}: {len(result.identical)} of "
              f"{len(result.identical) + len(result.different) + len(result.missing)} byte-identical")
        for name in result.different:
            print(f"  differs: {name}")
        for name in result.missing:
            print(f"  not regenerated: {name}")
    return 0 if result.ok else 3


def add_commands(add) -> None:
    """Register the paper commands with the CLI's ``add(name, func, help)``."""
    from core.paper.assemble import TABLE_KINDS

    p = add("tables", cmd_tables, "the papers' tables (correlations, F1 per error type, calibration, ensembles, "
                                  "preferences, judges' and systems' leaderboards) as LaTeX, Markdown or CSV")
    add_settings_flags(p)
    p.add_argument("--table", choices=TABLE_KINDS, help="print this table (default correlations) to stdout")
    p.add_argument("--out", help="FILE.tex: every table in one LaTeX document that compiles on its own; any "
                                 "other path: a folder of every table in every format (or --format), plus "
                                 "tables.tex")
    p.add_argument("--force", action="store_true", help="replace an --out FILE.tex that exists (never the store)")

    p = add("methods", cmd_methods, "the methods paragraph (pairs, target, raters and agreement, statistic, CIs, "
                                    "paired test, identical pairs, judges and cost) with the BibTeX of its citations")
    add_settings_flags(p)
    p.add_argument("--bib", metavar="FILE", help="write the BibTeX to FILE instead of after the paragraph")
    p.add_argument("--force", action="store_true", help="replace --bib if it exists (never the store)")

    p = add("figures", cmd_figures, "every chart as SVG and PDF at a fixed size (no browser), with the numbers "
                                    "behind each as CSV: calibration, injected errors, reliability, F1 per error type, scatter, "
                                    "preferences, heatmap, ensembles")
    add_settings_flags(p, table_flags=False)
    p.add_argument("--out", required=True, help="the folder to write NAME.svg, NAME.pdf and NAME.csv into (a "
                                                   "path ending in .svg, .pdf, .png, .csv ... is refused)")
    p.add_argument("--figure-format", nargs="+", choices=["svg", "pdf"], default=["svg", "pdf"],
                   help="which vector formats (default both)")

    p = add("bundle", cmd_bundle, "a reproducibility bundle (zip): the dataset's rows, prompts with hashes, package "
                                  "versions, settings and commands, the tables, the methods and a reproduce script")
    add_settings_flags(p)
    p.add_argument("--out", required=True, help="the .zip to write")
    p.add_argument("--with-text", action="store_true", help="include report text and judge answers (default: only "
                                                             "for synthetic datasets; otherwise ids and hashes)")
    p.add_argument("--no-text", action="store_true", help="leave report text out even for a synthetic dataset")
    p.add_argument("--with-figures", action="store_true", help="also the figures (SVG, PDF, CSV)")
    p.add_argument("--force", action="store_true", help="replace --out if it exists (never the store)")

    p = add("reproduce", cmd_reproduce, "rebuild a store from a bundle and regenerate its tables; exit 3 unless "
                                        "every table is byte-identical")
    p.add_argument("bundle", help="the bundle .zip, or the folder it was extracted to")
    p.add_argument("--out", help="a new folder for the store and tables (default: BUNDLE-reproduced beside it)")
