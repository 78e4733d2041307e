"""Clinician-rating commands of ``python -m core`` (core/reads/ratings.py): make a queue, see progress and agreement.

Registered by :func:`add_commands` from core.cli.main. Rating itself happens on the
dashboard's Annotate page.
"""

from __future__ import annotations

import json

import pandas as pd

from core.access import RESEARCHER
from core.cli.common import add_excerpt_flags, excerpt_flag, open_store, print_result


def _records(frame: pd.DataFrame) -> list[dict]:
    return json.loads(frame.to_json(orient="records", date_format="iso", double_precision=15))


def _table(title: str, frame: pd.DataFrame) -> None:
    print(f"== {title}")
    print("(no rows)" if frame.empty else frame.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


def cmd_ratings(args) -> int:
    from core.reads import ratings

    store = open_store(args)
    queues = ratings.list_queues(store, args.dataset)
    if args.queue and args.queue not in set(queues["queue_id"]):
        raise ValueError(f"no rating queue '{args.queue}' on '{args.dataset}'; queues: "
                         f"{', '.join(queues['queue_id']) or 'none'}")
    shown = queues[queues["queue_id"] == args.queue] if args.queue else queues
    progress = {q: ratings.progress(store, q) for q in shown["queue_id"]}
    # whoever runs the CLI holds the store file itself: everything in it is theirs to read
    summary, pairwise = ratings.agreement(store, args.dataset, args.queue, role=RESEARCHER)
    disagree = ratings.disagreements(store, args.dataset, args.queue, role=RESEARCHER)
    if args.json:
        print(json.dumps({
            "dataset": args.dataset, "queue": args.queue,
            "queues": _records(shown.drop(columns=["params"]).assign(params=shown["params"].map(json.loads))),
            "progress": {q: _records(p) for q, p in progress.items()},
            "agreement": _records(summary), "pairwise": _records(pairwise),
            "disagreements": len(disagree)}, ensure_ascii=False))
        return 0
    cols = ["queue_id", "name", "method", "scheme", "blinded", "n_pairs", "created_at"]
    _table(f"rating queues on {args.dataset}", shown[cols])
    for queue_id, frame in progress.items():
        _table(f"progress of queue {queue_id}", frame)
    _table("agreement between raters (Krippendorff's alpha; n_units = pairs rated by two or more)", summary)
    _table("pairwise Kendall tau-b", pairwise)
    print(f"{len(disagree)} disagreements to adjudicate (Annotate page, Agreement section)")
    return 0


def cmd_rating_queue(args) -> int:
    from core.reads import ratings

    filters: dict[str, list[str]] = {}
    for item in args.filter or []:
        facet, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--filter takes FACET=VALUE, got '{item}'")
        filters.setdefault(facet.strip(), []).append(value.strip())
    store = open_store(args)
    queue_id = ratings.create_queue(store, args.dataset, args.name, args.method, filters=filters, n=args.n,
                                    seed=args.seed, scheme=args.scheme, blinded=not args.unblinded,
                                    role=RESEARCHER)  # whoever runs the CLI holds the store file itself
    queue = ratings.get_queue(store, queue_id)
    out = {"queue_id": queue_id, "name": queue["name"], "dataset": args.dataset, "method": args.method,
           "params": queue["params"], "n_pairs": len(queue["pair_ids"]), "blinded": bool(queue["blinded"])}
    print_result(out, args.json)
    return 0


def add_commands(add) -> None:
    """Register the rating subcommands with the CLI's ``add(name, func, help)``."""
    p = add("ratings", cmd_ratings, "clinician ratings of a dataset: queues, progress, agreement between raters")
    p.add_argument("--dataset", required=True)
    p.add_argument("--queue", help="only this queue's pairs")

    p = add("rating-queue", cmd_rating_queue, "create a rating queue for the Annotate page")
    p.add_argument("--dataset", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--method", choices=["filters", "sample", "disagree"], default="sample",
                   help="all filtered pairs, a seeded sample of them, or where the judges disagree most")
    p.add_argument("--filter", action="append", metavar="FACET=VALUE",
                   help="modality/anatomy/system/split; repeat for several values")
    p.add_argument("--n", type=int, help="number of pairs (required for sample; default 50 for disagree)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (recorded with the queue)")
    p.add_argument("--scheme", choices=["score", "counts", "both"], default="both",
                   help="what raters give: overall 0-5 score, error counts per category, or both")
    p.add_argument("--unblinded", action="store_true", help="show judge outputs and other raters' ratings")

    add_report_command(add)


def cmd_ratings_report(args) -> int:
    """The HTML report with the clinician ratings (or only the imported annotations) as the expert target."""
    import shlex

    from core.reads.ratings import expert_annotators
    from core.report import write_report
    from core.store.db import default_store_path
    from core.store.outfiles import check_out_file

    check_out_file(args.out, store=args.store or default_store_path(), force=args.force)
    store = open_store(args)
    groups = expert_annotators(store, args.dataset, role=RESEARCHER)
    if not groups[args.experts]:
        raise ValueError(f"dataset '{args.dataset}' has no {EXPERTS[args.experts]}")
    parts = ["python", "-m", "core"] + (["--store", str(args.store)] if args.store else []) + [
        "ratings-report", "--experts", args.experts, "--dataset", args.dataset, "--out", str(args.out),
        "--n-boot", str(args.n_boot), "--seed", str(args.seed)] + excerpt_flag(args.excerpts)
    out = write_report(store, args.dataset, args.out, n_boot=args.n_boot, seed=args.seed,
                       include_excerpts=args.excerpts, command=shlex.join(parts),
                       annotators=groups[args.experts], experts=EXPERTS[args.experts])
    print(json.dumps(out) if args.json else f"wrote {out['path']} ({out['bytes']:,} bytes)")
    return 0


EXPERTS = {"clinicians": "clinician ratings (this study)", "imported": "experts (imported annotations)"}


def add_report_command(add) -> None:

    p = add("ratings-report", cmd_ratings_report,
            "the HTML report with the clinician ratings (or only the imported annotations) as expert target")
    p.add_argument("--dataset", required=True)
    p.add_argument("--out", required=True, help="the .html file to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists (never the store)")
    p.add_argument("--experts", choices=list(EXPERTS), default="clinicians")
    p.add_argument("--n-boot", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    add_excerpt_flags(p)
