"""Report-edit review commands of ``python -m core`` (RADAR; see docs/REVIEW.md).

- ``import-review FILE --dataset D``: an ``edit_review`` dataset from the documented layout;
- ``review-judge --dataset D --judge J [--slices 0|10|20|50]``: run a judge with an input setting
  (``judge`` works too, with the default setting);
- ``review-eval --dataset D --judge J``: accuracy per label, composite score and n, Mixed and Natural.

Registered by :func:`add_commands` from core.cli.main.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from core.cli.common import ProgressBar, add_api_base_flag, add_call_flags, open_store, print_result
from core.review.importer import ReviewColumns
from core.review.labels import LABELS


def cmd_import_review(args) -> int:
    from core.review.importer import import_review

    names = {f: getattr(args, f"{f}_col") for f in ReviewColumns.__dataclass_fields__}
    columns = ReviewColumns(**{k: v for k, v in names.items() if v is not None})
    report = import_review(open_store(args), Path(args.file), dataset=args.dataset, columns=columns,
                           annotator=args.annotator, synthetic=args.synthetic, progress=ProgressBar(True))
    print_result(report.to_json(), args.json)
    return 0


def cmd_review_judge(args) -> int:
    from core.judges.llm import GenParams
    from core.review.judge import run_review_judge

    kwargs: dict = {"limit": args.limit}
    if args.judge != "rules":
        kwargs.update(slices=args.slices, api_base=args.api_base, concurrency=args.concurrency,
                      timeout=args.timeout, max_retries=args.max_retries,
                      local_only=True if args.local_only else None,
                      params=GenParams(temperature=args.temperature, max_tokens=args.max_tokens))
    summary = run_review_judge(open_store(args), dataset=args.dataset, judge=args.judge, **kwargs)
    out = summary.to_json()
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        for k in ("run_id", "requested", "cached", "skipped", "sent", "ok", "failed", "cost_usd", "seconds",
                  "status"):
            print(f"{k}: {out[k]}")
        for f in out["failures"][:10]:
            print(f"failed {f['ext_id']}: {f['error']}")
    return 0 if summary.status == "done" else 3


def _num(value):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def review_eval(store, dataset: str, judge: str | None = None, annotator: str | None = None) -> dict:
    """What ``review-eval --json`` prints: one entry per run (setting), Mixed and Natural."""
    from core.review.data import evaluation_frame
    from core.review.metrics import accuracy_table

    frame, runs, who = evaluation_frame(store, dataset, judge, annotator)
    if runs.empty:
        judged = f"judge '{judge}'" if judge else "any judge"
        raise ValueError(f"no review predictions from {judged} on '{dataset}'; run "
                         f"python -m core judge --dataset {dataset} --judge {judge or 'rules'}")
    acc = accuracy_table(frame)
    out = []
    for run in runs.itertuples(index=False):
        mine = acc[acc["run_id"] == run.run_id].set_index("eval_set")
        entry = {"run_id": run.run_id, "judge": run.judge, "setting": run.setting,
                 "seconds": _num(run.seconds), "call_seconds": _num(run.call_seconds)}
        for eval_set, row in mine.iterrows():
            entry[eval_set.lower()] = {"n": int(row["n"]), "n_answered": int(row["n_answered"]),
                                       **{k: _num(row[k]) for k in (*LABELS, "composite", "composite_lenient")},
                                       **{f"{k}_correct": int(row[f"{k}_correct"]) for k in (*LABELS, "composite")}}
        out.append(entry)
    return {"dataset": dataset, "annotator": who, "runs": out}


def cmd_review_eval(args) -> int:
    result = review_eval(open_store(args), args.dataset, args.judge, args.annotator)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    print(f"== {result['dataset']}: gold labels of '{result['annotator']}'; a missed answer counts as wrong")
    head = f"{'judge':<24} {'setting':<18} {'set':<8} {'n':>5} {'Agr':>6} {'Sev':>6} {'Typ':>6} {'Comp':>6}"
    print(head)
    for run in result["runs"]:
        for eval_set in ("mixed", "natural"):
            r = run.get(eval_set)
            if r is None:
                continue
            cells = " ".join(f"{r[k]:6.3f}" if r[k] is not None else f"{'-':>6}"
                             for k in ("agreement", "severity", "edit_type", "composite"))
            print(f"{run['judge']:<24.24} {run['setting']:<18.18} {eval_set.capitalize():<8} {r['n']:>5} {cells}")
    return 0


def add_commands(add) -> None:
    """Register the edit-review subcommands with the CLI's ``add(name, func, help)``."""
    p = add("import-review", cmd_import_review,
            "import report edits with gold agreement/severity/edit type (layout: docs/REVIEW.md)")
    p.add_argument("file")
    p.add_argument("--dataset", required=True)
    defaults = ReviewColumns()
    for field in ReviewColumns.__dataclass_fields__:
        p.add_argument(f"--{field.replace('_', '-')}-col", dest=f"{field}_col",
                       help=f"column holding {field} (default: {getattr(defaults, field)})")
    p.add_argument("--annotator", default="expert", help="whose gold labels these are (default: expert)")
    p.add_argument("--synthetic", action="store_true", help="mark the dataset as synthetic")

    p = add("review-judge", cmd_review_judge,
            "judge an edit_review dataset: rules, or a model with 0 (text only), 10, 20 or 50 sampled slices")
    p.add_argument("--dataset", required=True)
    p.add_argument("--judge", required=True, help="rules | a litellm model name")
    p.add_argument("--slices", type=int, choices=[0, 10, 20, 50],
                   help="slices per edit (default: 10 when the dataset has images, else 0)")
    add_api_base_flag(p)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--limit", type=int, help="only the first N edits (by id)")
    add_call_flags(p)
    p.add_argument("--local-only", action="store_true", help="refuse endpoints outside loopback/private networks")

    p = add("review-eval", cmd_review_eval,
            "edit review: accuracy per label, composite score and n, for Mixed and Natural (RADAR Table 2)")
    p.add_argument("--dataset", required=True)
    p.add_argument("--judge", help="one judge (default: every judge with review predictions)")
    p.add_argument("--annotator", help="whose gold labels (default: the one who labelled most edits)")
