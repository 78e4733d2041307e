"""``python -m core``: every dashboard action, scriptable.

Machine output with ``--json``; on failure a non-zero exit and a one-line
reason on stderr (exit 2: the input was refused; exit 1: anything else).
The command names and flags in DESIGN.md are a contract: add, never rename.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from core.cli import selection
from core.cli.common import (
    Progress,
    add_api_base_flag,
    add_call_flags,
    add_excerpt_flags,
    api_key,
    check_names,
    confirmed,
    excerpt_flag,
    frame_text,
    open_store,
    print_frame,
    print_result,
)
from core.cli.judgescale import add_scale_flags
from core.cli.paper import add_table_flags, print_correlate_table
from core.store.db import StoreError, default_store_path
from core.taxonomy import MIN_N


def cmd_demo(args) -> int:
    from core.ingest.demo import build_demo
    from core.review.demo import build_review_demo

    store = open_store(args)
    report = build_demo(store, n_pairs=args.pairs, seed=args.seed, progress=Progress(True))
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
                          synthetic=args.synthetic, progress=Progress(True))
    print_result(report.to_json(), args.json)
    return 0


def cmd_import_preset(args) -> int:
    from core.ingest.presets import import_preset

    report = import_preset(open_store(args), args.preset, Path(args.file), dataset=args.dataset,
                           progress=Progress(True))
    print_result(report.to_json(), args.json)
    return 0


def cmd_judge(args) -> int:
    """One judge on a dataset, run as a job of the store (listed by `jobs`, cancellable by `cancel`)."""
    # No background import of litellm here: measured (bench/bench_cli_run.py), it gained nothing, since
    # the store work it could overlap takes ~0.2 s and the import holds the GIL (docs/PERFORMANCE.md).
    import getpass

    from core.cli import judgescale
    from core.jobs import table
    from core.jobs.eta import RateWindow, starting_text
    from core.jobs.spec import JobSpec, Task, is_offline
    from core.jobs.worker import run_job

    offline = is_offline(args.judge)
    store = open_store(args)
    args.api_base, batch = judgescale.resolve(args, store, offline)  # one URL, replicas, and --batch's options
    state = {"last": 0.0}
    rate = RateWindow()

    def progress(done: int, total: int, stats: dict) -> None:
        now = time.monotonic()
        rate.add(done)
        if sys.stderr.isatty() and (now - state["last"] > 0.2 or done >= total):
            state["last"] = now
            sys.stderr.write(progress_line(done, total, stats, rate.eta(total)))
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    shots = None
    if args.shots_dataset:
        from core.judges.shots import ShotSource

        shots = ShotSource(dataset=args.shots_dataset, split=args.shots_split, k=args.shots_k,
                           seed=args.shots_seed, run=args.shots_run)
    if offline:
        task = Task(args.judge)
    else:
        task = Task(args.judge, args.prompt, args.temperature, args.max_tokens, args.reasoning_effort)
    spec = JobSpec(dataset=args.dataset, tasks=[task], limit=args.limit, shots=shots,
                   concurrency=args.concurrency, timeout=args.timeout, max_retries=args.max_retries,
                   api_base=judgescale.safe(args.api_base), api_key_env=args.api_key_env,
                   local_only=True if args.local_only else None, shots_every_prompt=shots is not None,
                   extra={"batch": batch} if batch else {})
    if args.crimson_map:  # checked before the job exists (a bad map, or a prompt that is not CRIMSON's)
        from core.judges.runs import crimson_map_param

        crimson_map_param(args.prompt, args.crimson_map)
        spec.extra["crimson_map"] = args.crimson_map
    if offline:  # an offline judge's run takes the prompt as given (e.g. a dataset kind's own judging)
        spec.tasks = [Task(args.judge, args.prompt if args.prompt != "green" else None)]
    if selection.wanted(args):  # the Run page's selection (core.reads.selection), as flags
        spec.pair_ids, spec.selection = selection.selected_pairs(store, args)
    if args.shard:  # this machine's part of the pairs (core.jobs.shard): the run id stays the whole run's
        from core.jobs.shard import shard_ids, shard_pair_ids

        if shots is not None:
            raise ValueError("--shard does not go with few-shot prompts: their shots leave out the judged pairs, so "
                             "each shard would draw other shots (another run); run few-shot prompts whole")
        spec.pair_ids, spec.selection = (shard_ids(spec.pair_ids, args.shard, spec.selection) if spec.pair_ids
                                         else shard_pair_ids(store, args.dataset, args.shard, args.limit))
        spec.limit, spec.shard = None, args.shard
    job_id = table.submit(store, spec, origin="cli", started_by=_user(getpass))
    if sys.stderr.isatty():  # until the first answer: what it is doing, not 0/0
        sys.stderr.write(starting_text(not offline) + "\r")
        sys.stderr.flush()
    override = None if offline else (args.api_base, api_key(args))
    outcome = run_job(store, job_id, override=override, on_progress=progress)
    if not outcome.summaries:
        row = outcome.results[0] if outcome.results else {}
        print(f"error: {outcome.message or row.get('error') or 'the run did not start'}", file=sys.stderr)
        return 5 if outcome.busy else 1
    summary = outcome.summaries[0]
    out = summary.to_json() | {"job_id": job_id}
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        for k in ("job_id", "run_id", "requested", "cached", "skipped", "sent", "ok", "failed", "unparsed_total",
                  "cost_usd", "cost_total", "seconds", "status"):
            print(f"{k}: {out[k]}")
        for f in out["failures"][:10]:
            print(f"failed {f['ext_id']}: {f['error']}")
        if not offline and summary.status == "done" and summary.requested and not summary.sent:
            print(f"nothing to send: the store already answers all {summary.requested} pairs ({summary.skipped} "
                  f"in this run, {summary.cached} copied from another run with the same prompts)")
        judgescale.print_scale(out, store, job_id)
    if summary.status == "failed":
        print(f"error: {summary.message or outcome.message}", file=sys.stderr)
        return 1
    if summary.status != "done":
        return 3
    return _judge_exit(summary, out, args.allow_failures)


def progress_line(done: int, total: int, stats: dict, eta: float | None) -> str:
    """The judge command's progress line on a terminal (``\\r``-refreshed): counts, and the time left once
    core.jobs.eta can say."""
    line = f"\r{done}/{total} ok={stats.get('ok', 0)} failed={stats.get('failed', 0)}"
    return line + (f" ETA about {eta:,.0f} s" if eta is not None else "") + " " * 8


def _user(getpass) -> str | None:
    try:
        return getpass.getuser()
    except Exception:  # no name for this uid (a container)
        return None


def _judge_exit(summary, out: dict, allow_failures: bool) -> int:
    """0, or 4 with a line on stderr: pairs failed or answers could not be parsed (unless allowed), or the
    run holds no usable answer at all (always)."""
    from core.judges.errors import causes_line, error_cause, explain_error

    useful = summary.ok - summary.unparsed_total  # answered pairs whose answer could be read
    problems = []
    if summary.failed_total:
        errors = [f["error"] for f in out["failures"]]
        causes = causes_line(errors) if errors else ""
        first = explain_error(max(errors, key=lambda e: sum(error_cause(x) == error_cause(e) for x in errors))) \
            if errors else ""
        problems.append(f"{summary.failed_total} of {summary.requested} pairs failed and are recorded"
                        + (f" (this run: {causes}; most often: {first})" if causes else ""))
    if summary.unparsed_total:
        problems.append(f"{summary.unparsed_total} answers could not be read as the prompt's answer format "
                        "(stored with parse_status 'failed'; `python -m core parse` shows why)")
    if not problems or (allow_failures and useful > 0):
        return 0
    if useful <= 0 and summary.requested:
        problems.append("no usable answer: nothing to analyse")
    errors = [f["error"] for f in out["failures"]]
    final = bool(errors) and all(e.startswith(("unsupported language", "not a report", "too long")) for e in errors)
    hint = ("; these pairs cannot be judged by this judge (a re-run gives the same), pass --allow-failures to "
            "exit 0" if final else "; run the same command again to retry failures, or pass --allow-failures to "
            "exit 0")
    print("error: " + "; ".join(problems) + ("" if useful <= 0 else hint), file=sys.stderr)
    return 4


def cmd_inject(args) -> int:
    from core.ingest.inject import inject_dataset

    report = inject_dataset(open_store(args), source_dataset=args.dataset, target_dataset=args.target,
                            model=args.judge, kind=args.kind, ks=tuple(args.k), limit=args.limit, seed=args.seed,
                            api_base=args.api_base, api_key=api_key(args), concurrency=args.concurrency,
                            validate=not args.no_validate,
                            local_only=True if args.local_only else None)
    print_result(report.to_json(), args.json)
    if report.added == 0 and report.skipped < report.requested:  # nothing new, and not because it was done
        reasons = sorted({str(r) for x in report.excluded for r in (x.get("reasons") or [])[-1:]})[:3]
        print(f"error: no report was injected into '{args.target}' ({len(report.excluded)} excluded"
              + (f"; e.g. {'; '.join(reasons)}" if reasons else "") + ")", file=sys.stderr)
        return 4
    return 0


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


# report --stat -> the report's name for the statistic (core.report.html.build_report)
REPORT_STATS = {"tau": "kendall", "rho": "spearman", "r": "pearson"}


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
                       experts=raters.label, stat=REPORT_STATS[args.stat])
    print_result(out, args.json)
    return 0


def cmd_delete_dataset(args) -> int:
    from core.store.datasets import delete_dataset

    if not confirmed(args.yes, f"delete '{args.dataset}'",
                     f"Type the dataset name ({args.dataset}) to move it and all its runs to the trash: ",
                     args.dataset, "the name did not match"):
        return 2
    record = delete_dataset(open_store(args), args.dataset)
    print_result(record.to_json(), args.json)
    if not args.json:
        store_opt = f" --store {args.store}" if args.store else ""
        print(f"undo with: python -m core{store_opt} restore-dataset {record.batch_id}")
    return 0


def cmd_restore_dataset(args) -> int:
    from core.store.datasets import restore_dataset

    print_result(restore_dataset(open_store(args), args.batch).to_json(), args.json)
    return 0


def cmd_trash(args) -> int:
    from core.store.datasets import list_trash, purge_trash

    store = open_store(args)
    if args.purge:
        what = "every batch in the trash" if args.purge == "all" else f"trash batch {args.purge}"
        if not confirmed(args.yes, f"delete {what} for good",
                         f"This deletes {what} for good (no undo). Type 'purge' to go on: ", "purge", "not confirmed"):
            return 2
        purged = purge_trash(store, None if args.purge == "all" else args.purge)
        print_result({"purged": purged}, args.json)
        return 0
    df = list_trash(store)
    if args.json:
        print(df.to_json(orient="records", date_format="iso"))
    else:
        print_frame(df, "the trash is empty")
    return 0


# Only these commands may make a new store (and say so); any other command on a store path
# that does not exist is a typo until proven otherwise, and gets an error instead of an empty store.
CREATES_STORE = frozenset({"demo", "import-pairs", "import-preset", "import-review", "merge"})
NO_STORE = frozenset({"parse", "simulate", "check-store", "score", "reproduce"})


def _missing_store(args) -> Path | None:
    path = Path(args.store) if args.store else default_store_path()
    return None if path.exists() or args.command in NO_STORE else path


# One line per feature module holding CLI subcommands (see build_parser).
COMMAND_MODULES = (
    "core.cli.analysis",
    "core.cli.checks",
    "core.cli.dashboard",
    "core.cli.distill",
    "core.cli.import_outputs",
    "core.cli.jobs",
    "core.cli.merge",
    "core.cli.ops",
    "core.cli.paper",
    "core.cli.parsing",
    "core.cli.ratings",
    "core.cli.review",
    "core.cli.score",
)


def build_parser() -> argparse.ArgumentParser:
    from core.reads.raters import RATERS_HELP
    parser = argparse.ArgumentParser(
        prog="python -m core",
        description="RadJudge: store, import, judge and analyse radiology report judges.",
        usage="python -m core [--store STORE] COMMAND [options]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--store", help="DuckDB store file (default: $RADJUDGE_STORE or data/radconcord.duckdb, "
                        "or data/radjudge.duckdb, its old name, when only that exists)")
    # the commands are listed grouped (core.cli.groups), in the epilog, not in argparse's own flat list
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS)
    helps: dict[str, str] = {}

    def add(name, func, help_, epilog=None):
        helps[name] = help_
        p = sub.add_parser(name, help=help_, description=help_, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter if epilog else argparse.HelpFormatter)
        p.set_defaults(func=func)
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")
        return p

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

    from core.cli.annotations import cmd_import_annotations as import_annotations_command

    p = add("import-annotations", import_annotations_command,
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

    # import-outputs: core/cli/import_outputs.py (COMMAND_MODULES)

    p = add("import-preset", cmd_import_preset,
            "import a file in a published layout (rexval-pairs, rexval-errors, rate-eval, radeval-counts)")
    p.add_argument("preset", choices=["rexval-pairs", "rexval-errors", "rate-eval", "radeval-counts"],
                   help="rate-eval: RaTE-Eval's rate_test.csv as public code reads it (gt_report, similar_report, "
                        "Score 0-4.5, normalised by 4.5); radeval-counts: RadEval's expert set "
                        "(ground_truth, prediction1..3, annotation1..3, seven categories, the seventh kept out of "
                        "the a-f totals) or wide sig_a..f/insig_a..f counts. Neither layout was checked against "
                        "the real file (README 'Import presets')")
    p.add_argument("file")
    p.add_argument("--dataset", required=True)

    p = add("judge", cmd_judge, "run a judge (rules, lexical, length or any litellm model) on a dataset's pairs",
            epilog=_fewshot_epilog())
    p.add_argument("--dataset", required=True)
    p.add_argument("--judge", required=True, help="rules | lexical | length | distilled:NAME | a litellm model name")
    p.add_argument("--prompt", default="green", help="prompt template id (green, vert, formula, rubric, ..., "
                   "crimson, crimson_nocontext, crimson_noguide, crimson_noguide_nocontext)")
    p.add_argument("--crimson-map", metavar="KIND=CAT,...", help=CRIMSON_MAP_HELP)
    add_scale_flags(p)  # --api-base (repeatable: replicas) and --batch
    p.add_argument("--api-key-env", metavar="NAME", help=_KEY_HELP)
    p.add_argument("--allow-failures", action="store_true",
                   help="exit 0 even when pairs failed or answers could not be parsed (they are recorded "
                        "either way; by default exit 4); a run with no usable answer still exits 4")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--limit", type=int, help="only the first N pairs (by id)")
    selection.add_selection_flags(p)  # --pairs FILE, --system/--modality/... VALUE, --sample N --seed S
    p.add_argument("--shard", metavar="K/N",
                   help="judge only part K of N of the pairs (split by a hash of each pair id); each part's run "
                        "has the whole run's id, so `merge` joins the parts' stores into one run")
    add_call_flags(p, per_prompt_max_tokens=True)
    p.add_argument("--reasoning-effort", choices=["none", "low", "medium", "high"])
    p.add_argument("--local-only", action="store_true", help="refuse endpoints outside loopback/private networks")
    p.add_argument("--shots-dataset", help="few-shot prompts: draw examples from this dataset (never the judged pairs)")
    p.add_argument("--shots-split", help="few-shot prompts: only this split of the shots dataset (e.g. train)")
    p.add_argument("--shots-k", type=int, default=3, choices=[3, 5, 10], help="random few-shot: number of shots")
    p.add_argument("--shots-seed", type=int, default=0, help="few-shot sampling seed (recorded with the run)")
    p.add_argument("--shots-run", metavar="RUN_ID",
                   help="vert_rate_err_10 (D.9): the run on the shots dataset whose answers are the shots")

    p = add("inject", cmd_inject, "build a dataset by injecting k errors per report (VERT App. F) with a model")
    p.add_argument("--dataset", required=True, help="source dataset (its reference reports are modified)")
    p.add_argument("--target", required=True, help="name of the new dataset")
    p.add_argument("--judge", required=True, help="litellm model that injects and validates")
    p.add_argument("--kind", required=True, choices=["false_finding", "omission"])
    p.add_argument("--k", type=int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3])
    p.add_argument("--limit", type=int)
    p.add_argument("--seed", type=int, default=0)
    add_api_base_flag(p)
    p.add_argument("--api-key-env", metavar="NAME", help=_KEY_HELP)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--no-validate", action="store_true", help="skip the plausibility check (F.3)")
    p.add_argument("--local-only", action="store_true")

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
    p.add_argument("--stat", choices=list(REPORT_STATS), default="tau",
                   help="the statistic of the correlation tables, the headline and the experts' ceiling "
                        "(Kendall tau-b, Spearman rho or Pearson r; default tau)")
    add_excerpt_flags(p)

    p = add("delete-dataset", cmd_delete_dataset,
            "move a dataset with its pairs, annotations and judge runs to the trash (undo: restore-dataset)")
    p.add_argument("dataset")
    p.add_argument("--yes", action="store_true", help="do not ask to type the name")

    p = add("restore-dataset", cmd_restore_dataset, "bring a deleted dataset back from the trash")
    p.add_argument("batch", help="the trash batch id (see `trash`)")

    p = add("trash", cmd_trash, "list deleted datasets; --purge BATCH|all deletes them for good")
    p.add_argument("--purge", metavar="BATCH", help="a batch id, or `all` (asks first: there is no undo)")
    p.add_argument("--yes", action="store_true", help="purge without asking")

    # Feature modules register their own subcommands: each has add_commands(add).
    import importlib

    for module in COMMAND_MODULES:
        importlib.import_module(module).add_commands(add)

    from core.cli.groups import command_listing

    parser.epilog = command_listing(helps)
    return parser


CRIMSON_MAP_HELP = "CRIMSON: the ReXVal category of each CRIMSON error kind, over the default map (README, 'CRIMSON'); recorded with the run"


def _fewshot_epilog() -> str:
    from core.judges.shots import POOL_NEEDS

    return "few-shot prompts and the shots pool each needs:\n" + "\n".join(
        f"  {prompt}: {need}" for prompt, need in POOL_NEEDS.items())


_KEY_HELP = ("environment variable holding the key for --api-base; without it a custom endpoint gets no key "
             "(a provider key such as OPENAI_API_KEY goes only to that provider's own API)")


def main(argv: list[str] | None = None) -> int:
    import duckdb

    from core.ingest.importers import ImportValidationError
    from core.store.db import damaged, is_damage

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare `python -m core`: what there is to do, not an error
        parser.print_help()
        return 0
    missing = _missing_store(args)
    if missing is not None and args.command not in CREATES_STORE | {"restore"}:
        print(f"error: store {missing} does not exist; check --store or $RADJUDGE_STORE (only "
              f"{', '.join(sorted(CREATES_STORE))} create one)", file=sys.stderr)
        return 1
    failed = True
    try:
        if missing is None:
            check_names(args)
        code = args.func(args)
        failed = code != 0
        if missing is not None and missing.exists() and not failed:
            print(f"note: created a new store at {missing}", file=sys.stderr)
        return code
    except ImportValidationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if len(exc.problems) > 5:
            for problem in exc.problems[5:]:
                print(f"  {problem}", file=sys.stderr)
        return 2
    except (StoreError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except duckdb.Error as exc:  # a damaged file met outside Store (which raises StoreDamaged itself)
        if not is_damage(exc):
            raise
        print(f"error: {damaged(Path(args.store) if args.store else default_store_path(), exc)}", file=sys.stderr)
        return 1
    except PermissionError as exc:  # an unreadable install, store folder or input file: say which
        print(f"error: {exc.strerror or exc}: {exc.filename or ''}; check this user's permissions", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into head & co: not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("error: interrupted; work committed so far is kept", file=sys.stderr)
        return 130
    finally:
        if failed and missing is not None:
            discard_new_store(missing)


def discard_new_store(path: Path) -> None:
    """Remove the store a failed command made at ``path`` (it did not exist before the command), when it
    holds no dataset: a failed command leaves no empty store behind."""
    import duckdb

    from core.store import handles
    from core.store.db import store_kind

    if not path.exists():
        return
    try:
        conn = handles.connect(path, read_only=True)
    except duckdb.Error:
        return  # held by another process (which may be filling it), or unreadable: left alone
    try:
        kind, _, _ = store_kind(conn)
        empty = kind == "empty" or (kind == "store" and not conn.execute("SELECT count(*) FROM datasets").fetchone()[0])
    except duckdb.Error:
        empty = False
    finally:
        handles.close(conn, path)
    if empty:
        for leftover in (path, Path(f"{path}.wal")):
            leftover.unlink(missing_ok=True)
