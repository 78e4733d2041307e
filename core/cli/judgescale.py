"""``judge``'s options for large runs: several ``--api-base`` (replicas of one model) and ``--batch``.

Kept apart from core.cli.main (which registers them) so the parser module stays short.
"""

from __future__ import annotations

from core.cli.common import api_bases_default

_BATCH_HELP = ("send the prompts through the provider's batch API (OpenAI-compatible /v1/files and /v1/batches): "
               "about half the price, answers within the completion window (24 h); the batch ids are recorded "
               "with the job, so `resume JOB` (or the same command again) polls them instead of sending again")


def add_scale_flags(p) -> None:
    """--api-base (repeatable) and the --batch options."""
    p.add_argument("--api-base", action="append", metavar="URL",
                   help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp); give it several times for "
                        "replicas of one model (calls spread by litellm's Router, least-busy; a replica that stops "
                        "answering rests, then is tried again); default $RADCONCORD_API_BASE (several URLs "
                        "separated by spaces)")
    p.add_argument("--batch", action="store_true", help=_BATCH_HELP)
    p.add_argument("--batch-max-requests", type=int, default=50_000, metavar="N",
                   help="requests per batch file (OpenAI's limit: 50,000)")
    p.add_argument("--batch-max-mb", type=float, default=200.0, metavar="MB",
                   help="megabytes per batch file (OpenAI's limit: 200)")
    p.add_argument("--batch-poll", type=float, default=30.0, metavar="SECONDS", help="seconds between polls")
    p.add_argument("--batch-retry", choices=["batch", "direct"], default="batch",
                   help="failed lines worth retrying (5xx, 429, expired): in a new batch, or as direct calls")
    p.add_argument("--batch-rounds", type=int, default=3, metavar="N",
                   help="batch rounds at most, the first included (batch retry)")


def resolve(args, store, offline: bool) -> tuple[str | list[str] | None, dict | None]:
    """(the endpoint(s) for the run: None, one URL or a list, the batch options or None); ValueError in one
    line for a combination that cannot run."""
    from core.judges.registry import entry_for, scale_problem
    from core.judges.replicas import endpoints

    urls = endpoints(args.api_base if args.api_base is not None else api_bases_default())
    api_base = None if not urls else urls[0] if len(urls) == 1 else urls
    if not offline and (len(urls) > 1 or args.batch):
        problem = scale_problem(entry_for(store, args.dataset, args.judge, args.prompt), args.judge,
                                batch=bool(args.batch), replicas=len(urls) > 1)
        if problem:
            raise ValueError(problem)
    if not args.batch:
        return api_base, None
    if offline:
        raise ValueError(f"--batch sends a model's prompts to a batch API; {args.judge} is an offline judge")
    if len(urls) > 1:
        raise ValueError("--batch sends to one endpoint: give one --api-base (replicas are for direct calls)")
    from core.judges.batch import BatchOptions, batch_problem

    problem = batch_problem(args.judge, api_base)
    if problem:
        raise ValueError(problem)
    options = {"max_requests": args.batch_max_requests, "max_bytes": int(args.batch_max_mb * 1024 * 1024),
               "poll_seconds": args.batch_poll, "retry": args.batch_retry, "max_rounds": args.batch_rounds}
    BatchOptions.from_dict(options)  # refuses bad values before the job exists
    return api_base, options


def safe(api_base):
    """The endpoint(s) without credentials, as the job records them."""
    from core.judges.endpoints import safe_api_base

    return [safe_api_base(u) for u in api_base] if isinstance(api_base, list) else safe_api_base(api_base)


def print_scale(out: dict, store, job_id: str) -> None:
    """The replica and batch lines of a finished judge run (text output)."""
    for r in out.get("replicas") or []:
        print(f"replica {r['api_base']}: {r['calls']} calls, {r['ok']} answered, {r['failed']} failed, "
              f"latency mean {r['latency_ms_mean']} ms, median {r['latency_ms_median']} ms, "
              f"out of rotation {r['out_of_rotation']} time(s)")
    from core.judges.batchstore import job_batch_texts

    text = job_batch_texts(store, [job_id]).get(job_id)
    if text:
        print(text)
