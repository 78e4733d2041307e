"""``python -m core judge`` (one judge on a dataset, run as a job) and ``inject`` (a dataset of injected errors).
Registered by :func:`add_commands` from core.cli.main (``COMMAND_MODULES``). Nothing here imports litellm or
core.judges.llm at module level: the parser is built for every command."""

from __future__ import annotations

import json
import sys
import time

from core.cli import selection
from core.cli.common import (
    add_api_base_flag,
    add_call_flags,
    add_stop_flag,
    api_key,
    open_store,
    print_result,
)
from core.cli.judgescale import add_scale_flags
from core.prompts.specs import prompt_ids


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
    from core.judges import localserver
    from core.judges.callsettings import CallSettings

    offline = is_offline(args.judge)
    store = open_store(args)
    args.api_base, batch = judgescale.resolve(args, store, offline)  # one URL, replicas, and --batch's options
    one_url = args.api_base if isinstance(args.api_base, str) else None
    first_url = one_url or (args.api_base[0] if args.api_base else None)
    # a server on this machine or a private network: 2 calls at once, 600 s each, unless given (core.judges.localserver)
    args.concurrency, args.timeout = localserver.call_defaults(None if offline else first_url, args.concurrency,
                                                               args.timeout)
    note = None if offline else localserver.name_note(args.judge, one_url)
    if note:
        print(note, file=sys.stderr)
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
        task = Task(args.judge, args.prompt, args.temperature, args.max_tokens, args.reasoning_effort,
                    localserver.stop_defaults(first_url, args.prompt, args.stop))
    call = CallSettings(api_base=judgescale.safe(args.api_base) or (), api_key_env=args.api_key_env,
                        timeout=args.timeout, max_retries=args.max_retries, concurrency=args.concurrency,
                        local_only=True if args.local_only else None, batch=batch or None)
    spec = JobSpec(dataset=args.dataset, tasks=[task], limit=args.limit, shots=shots, call=call,
                   shots_every_prompt=shots is not None)
    if args.crimson_map:  # checked before the job exists (a bad map, or a prompt that is not CRIMSON's)
        from core.judges.runs import crimson_map_param

        crimson_map_param(args.prompt, args.crimson_map)
        spec.crimson_map = args.crimson_map
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
        for k in ("job_id", "run_id", "requested", "cached", "skipped", "sent", "shared", "ok", "failed", "unparsed_total",
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
    wrong_name = None if offline or summary.ok else localserver.not_served_line(
        args.judge, one_url, [f["error"] for f in out["failures"]])
    if wrong_name:  # vLLM's and Ollama's 404 on every pair: the name, and what the server serves instead
        print(f"error: {wrong_name}", file=sys.stderr)
        return 4
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


CRIMSON_MAP_HELP = "CRIMSON: the ReXVal category of each CRIMSON error kind, over the default map (docs/crimson-radeval.md); recorded with the run"


def _fewshot_epilog() -> str:
    from core.judges.shots import POOL_NEEDS

    return "few-shot prompts and the shots pool each needs:\n" + "\n".join(
        f"  {prompt}: {need}" for prompt, need in POOL_NEEDS.items())


_KEY_HELP = ("environment variable holding the key for --api-base; without it a custom endpoint gets no key "
             "(a provider key such as OPENAI_API_KEY goes only to that provider's own API)")


def add_commands(add) -> None:
    """Register ``judge`` and ``inject`` with the CLI's ``add(name, func, help)``."""
    p = add("judge", cmd_judge, "run a judge (rules, lexical, length or any litellm model) on a dataset's pairs",
            epilog=_fewshot_epilog())
    p.add_argument("--dataset", required=True)
    p.add_argument("--judge", required=True, help="rules | lexical | length | distilled:NAME | a litellm model name")
    p.add_argument("--prompt", default="green", help="prompt id (core.prompts.specs): " + ", ".join(prompt_ids())
                   + "; edit_review datasets: radar_review")
    p.add_argument("--crimson-map", metavar="KIND=CAT,...", help=CRIMSON_MAP_HELP)
    add_scale_flags(p)  # --api-base (repeatable: replicas) and --batch
    p.add_argument("--api-key-env", metavar="NAME", help=_KEY_HELP)
    p.add_argument("--allow-failures", action="store_true",
                   help="exit 0 even when pairs failed or answers could not be parsed (they are recorded "
                        "either way; by default exit 4); a run with no usable answer still exits 4")
    p.add_argument("--concurrency", type=int, default=None,
                   help="calls at once (default: 2 for a server on loopback or a private network, else 8)")
    p.add_argument("--limit", type=int, help="only the first N pairs (by id)")
    selection.add_selection_flags(p)  # --pairs FILE, --system/--modality/... VALUE, --sample N --seed S
    p.add_argument("--shard", metavar="K/N",
                   help="judge only part K of N of the pairs (split by a hash of each pair id); each part's run "
                        "has the whole run's id, so `merge` joins the parts' stores into one run")
    add_call_flags(p, per_prompt_max_tokens=True)
    add_stop_flag(p)
    p.set_defaults(timeout=None)  # 600 s for a server on loopback or a private network, else 120 (cmd_judge)
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
