"""``python -m core checks`` and ``python -m core leaderboard`` (LAIas Bench). Registered from core.cli.main.

``checks`` runs the deterministic checks on a dataset (stored as a ``checks``
run; pairs already checked are skipped), optionally the LLM phase with
``--judge MODEL``, and prints per-dimension scores, verdict counts and the
failing checks by id. The LLM phase used is ``--llm-run``, else the run just
made, else the newest LAIas judge run for the locale on the dataset; with none
(or ``--no-llm``) the results are marked degraded.
"""

from __future__ import annotations

import json
import sys
import time

from core.cli.common import add_api_base_flag, frame_text, open_store
from core.taxonomy import shown


def _records(frame) -> list[dict]:
    return json.loads(frame.to_json(orient="records", double_precision=15))


def checks_report(store, dataset: str, locale: str, *, llm_run: str | None = None, use_llm: bool = True) -> dict:
    """What ``checks`` prints, for a dataset whose checks run exists (CLI, page and tests share it)."""
    from core.checks.store import (
        case_results,
        checks_spec,
        default_llm_phase,
        dimension_summary,
        failing_checks,
        verdict_counts,
    )

    run_id = checks_spec(dataset, locale).run_id()
    choice = "given"
    if llm_run is None and use_llm:
        llm_run, choice = default_llm_phase(store, dataset, locale)
    cases = case_results(store, dataset, run_id, llm_run if use_llm else None)
    return {"dataset": dataset, "locale": locale, "checks_run": run_id, "llm_run": llm_run if use_llm else None,
            "llm_run_choice": choice if use_llm else "--no-llm",
            "n": len(cases), "n_degraded": int(cases["degraded"].sum()),
            "dimensions": _records(dimension_summary(cases)), "verdicts": _records(verdict_counts(cases)),
            "failing_checks": _records(failing_checks(store, run_id))}


def cmd_checks(args) -> int:
    from core.checks.store import run_checks

    store = open_store(args)
    started = time.monotonic()
    failed_phase = False
    summary = run_checks(store, args.dataset, args.locale)
    llm_run = args.llm_run
    if args.judge:
        from core.checks.adversarial import run_laias_judge
        from core.judges.llm import GenParams

        phase = run_laias_judge(store, dataset=args.dataset, model=args.judge, locale=args.locale,
                                api_base=args.api_base, concurrency=args.concurrency, limit=args.limit,
                                local_only=True if args.local_only else None,
                                params=GenParams(temperature=args.temperature, max_tokens=args.max_tokens))
        llm_run = phase.run_id
        if phase.ok - phase.unparsed_total <= 0:  # every call failed or was unreadable: not a phase to use
            print(f"error: the LLM phase with {args.judge} (run {phase.run_id}) produced no usable answer "
                  f"({phase.failed_total} failed, {phase.unparsed_total} unreadable); the newest earlier phase "
                  "with answers is used instead, if any", file=sys.stderr)
            llm_run, failed_phase = None, True
    out = checks_report(store, args.dataset, args.locale, llm_run=llm_run, use_llm=not args.no_llm)
    out.update(checked_now=summary.requested - summary.skipped - summary.failed, not_checked=summary.failures,
               seconds=round(time.monotonic() - started, 3))
    if summary.failures:  # a report over the length cap: recorded with its reason, never checked
        print(f"note: {len(summary.failures)} pair(s) not checked ({summary.failures[0]['ext_id']}: "
              f"{summary.failures[0]['error']})", file=sys.stderr)
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 4 if failed_phase else 0
    print(f"checks of '{args.dataset}' ({args.locale}), run {out['checks_run']}: {out['n']} pairs "
          f"({out['checked_now']} checked now)")
    print(f"LLM phase: {out['llm_run']} ({out['llm_run_choice']})" if out["llm_run"] else
          f"LLM phase: none ({out['llm_run_choice']}) -> every result is degraded (PARTIAL at best)")
    print(f"{'dimension':<10}{'mean':>7}{'n':>6}{'unscored':>10}")
    for d in out["dimensions"]:
        mean = "-" if d["mean_score"] is None else f"{d['mean_score']:.2f}"
        print(f"{d['dimension']:<10}{mean:>7}{d['n']:>6}{d['n_unscored']:>10}")
    print("verdicts: " + ", ".join(f"{v['verdict']} {v['n']}" for v in out["verdicts"])
          + f" (degraded {out['n_degraded']})")
    print("failing checks:")
    for c in out["failing_checks"] or [{"check_id": "-", "severity": "", "message": "none", "n_pairs": 0,
                                         "n_failures": 0}]:
        print(f"  {c['check_id']:<4} {c['severity']:<9} {c['n_pairs']:>5} pairs  {c['message']}")
    return 4 if failed_phase else 0


def cmd_leaderboard(args) -> int:
    from core.reads.leaderboard import judges_leaderboard, systems_leaderboard
    from core.reads.runcost import cost_text

    store = open_store(args)
    if args.kind == "systems":
        table = systems_leaderboard(store, args.dataset, split=args.split, metric=args.metric)
        show = ["group", "rank", "judge", "metric", "system", "n", "score", "strict_pass_rate", "relaxed_pass_rate",
                "cost_usd", "latency_ms_mean"]
    else:
        from core.reads.raters import resolve_raters
        from core.reads.targets import resolve_target

        args.target = resolve_target(store, args.dataset, args.target)
        raters = resolve_raters(store, args.dataset, args.raters)
        table = judges_leaderboard(store, args.dataset, target=args.target, split=args.split, n_boot=args.n_boot,
                                   seed=args.seed, annotators=raters.annotators).assign(raters=raters.choice)
        show = ["group", "rank", "judge", "metric", "n", "tau_oriented", "ci_low", "ci_high", "p", "too_few",
                "ms_per_pair", "calls", "cost"]
        table = table.assign(cost=[cost_text(c, k) for c, k in zip(table["cost_usd"], table["cost_known"],
                                                                    strict=True)])
    if table.empty:
        raise ValueError(f"no {args.kind} to rank on '{args.dataset}': run a judge (and import expert annotations "
                         "for the judges board) first")
    if args.json:
        print(table.to_json(orient="records", double_precision=15))
        return 0
    for group, part in table.groupby("group", sort=False):
        key = {k: shown(v) for k, v in part.iloc[0].items()}
        if args.kind == "systems":
            desc = (f"{key['judge_kind']} {key['model']} · prompt {key['prompt_id']}@{key['prompt_hash']}"
                    f" · params {key['params']} · locale {key['locale']} · {key['metric']}")
        else:
            desc = f"target {key['target']} from {key['raters']} · {key['n']} pairs (set {key['pair_set']})"
        print(f"== group {group}: dataset version {key['dataset_version']} · split {key['split']} · {desc}")
        print(frame_text(part[show].drop(columns="group"), float_format=lambda v: f"{v:.3f}"))
    return 0


def add_commands(add) -> None:
    from core.reads.raters import RATERS_HELP

    p = add("checks", cmd_checks, "deterministic report checks (LAIas Bench): scores per dimension, verdicts, "
                                  "failing checks")
    p.add_argument("--dataset", required=True)
    p.add_argument("--locale", default="en-US", choices=["en-US", "pt-BR"], help="locale pack (default en-US)")
    p.add_argument("--llm-run", help="combine with this LLM-phase run (default: the newest for the locale)")
    p.add_argument("--no-llm", action="store_true", help="deterministic phase only (results marked degraded)")
    p.add_argument("--judge", help="run the LLM phase with this litellm model first")
    add_api_base_flag(p)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--limit", type=int, help="LLM phase: only the first N pairs (by id)")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, default=2048)
    p.add_argument("--local-only", action="store_true", help="refuse endpoints outside loopback/private networks")

    p = add("leaderboard", cmd_leaderboard, "rank judges (by agreement with experts) or candidate systems (by "
                                            "score); only runs with equal comparable keys are ranked together")
    p.add_argument("--dataset", required=True)
    p.add_argument("--kind", default="judges", choices=["judges", "systems"])
    p.add_argument("--split", help="only pairs of this split (part of the comparable key)")
    p.add_argument("--target", help="judges: expert target (default: what the dataset has, score first, "
                                    "else sig_errors)")
    p.add_argument("--metric", help="systems: rank by this metric (default: each run's primary metric)")
    p.add_argument("--raters", help="judges: " + RATERS_HELP)
    p.add_argument("--n-boot", type=int, default=1000, help="judges: bootstrap resamples for the CIs")
    p.add_argument("--seed", type=int, default=0, help="judges: bootstrap seed (recorded)")
