"""``python -m core distill`` and ``export-finetune``: the distilled scorer's commands (core.distill).

Registered by :func:`add_commands` from core.cli.main. Scoring with a trained
student is the ordinary ``judge --judge distilled:NAME``.
"""

from __future__ import annotations

import json
import sys
import time

from core.cli.common import open_store, print_result
from core.distill.data import DEFAULTS


def _fmt_ci(ci) -> str:
    return "n/a" if not ci or ci[0] is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def cmd_distill(args) -> int:
    from core.distill import require_torch

    require_torch()
    from core.distill.train import summary, train_student

    state = {"last": 0.0}

    def progress(done: int, total: int, info: dict) -> None:
        now = time.monotonic()
        if sys.stderr.isatty() and (now - state["last"] > 0.2 or done >= total):
            state["last"] = now
            extra = f" val_tau={info['val_tau']}" if "val_tau" in info else ""
            sys.stderr.write(f"\repoch {info.get('epoch')} step {done}/{total}{extra}   ")
            sys.stderr.flush()

    card = train_student(open_store(args), dataset=args.dataset, teacher=args.teacher, name=args.name,
                         epochs=args.epochs, encoder=args.encoder, max_pairs=args.pairs, seed=args.seed,
                         batch_size=args.batch_size, lr=args.lr, max_length=args.max_length,
                         patience=args.patience, generated=args.generated, replace=args.replace,
                         progress=progress)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    out = summary(card)
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"distilled scorer '{out['name']}' from teacher '{out['teacher']}' on '{out['dataset']}'"
          f"{' (already trained: reused)' if out['reused'] else ''}")
    print(f"encoder {out['encoder']}, seed {out['seed']}, epochs run {out['epochs_run']} (best {out['best_epoch']})")
    print(f"pairs: train {out['n_train']} (+ {out['n_generated']} generated), validation {out['n_val']}, "
          f"test {out['n_test']}; {out['max_length_used']} tokens at most; {out['threads']} threads")
    for label, block in (("all test pairs", out), ("identical pairs removed", out["no_identical"])):
        print(f"== {label} (n={block['n']})")
        print(f"  vs teacher: tau {block['tau_vs_teacher']} {_fmt_ci(block['tau_vs_teacher_ci'])}, "
              f"rho {block['rho_vs_teacher']} {_fmt_ci(block['rho_vs_teacher_ci'])}")
        print(f"  vs experts ({out['expert_target']}, n={block['n_expert']}): tau {block['tau_vs_expert']} "
              f"{_fmt_ci(block['tau_vs_expert_ci'])}, rho {block['rho_vs_expert']}; "
              f"teacher's tau {block['teacher_tau_vs_expert']}")
        print("  MAE vs teacher: " + ", ".join(f"{k} {v}" for k, v in block["mae"].items()))
    q = out["quantization"] or {}
    if q.get("int8"):
        print(f"float32: {q['fp32']['ms_per_pair']} ms/pair, tau {q['fp32']['tau']}; int8: "
              f"{q['int8']['ms_per_pair']} ms/pair, tau {q['int8']['tau']} -> scoring uses "
              f"{'int8' if q['int8_used'] else 'float32'}")
    print(f"speed: {out['ms_per_pair']} ms/pair (teacher: {out['teacher_ms_per_pair']} ms/pair)")
    print(f"score the other pairs: python -m core judge --dataset {out['dataset']} --judge distilled:{out['name']}")
    return 0


def cmd_export_finetune(args) -> int:
    from core.distill.export import export_finetune

    out = export_finetune(open_store(args), args.dataset, args.out, seed=args.seed, force=args.force)
    print_result(out, args.json)
    return 0


def add_commands(add) -> None:
    """Register the distillation subcommands with the CLI's ``add(name, func, help)``."""
    p = add("distill", cmd_distill,
            "train a fast CREPE-style scorer from a teacher (expert or a judge run); needs requirements-ml.txt")
    p.add_argument("--dataset", required=True)
    p.add_argument("--teacher", required=True, help="expert | a judge label (e.g. rules) | a run id")
    p.add_argument("--name", required=True, help="model name: judge with --judge distilled:NAME")
    p.add_argument("--epochs", type=int, default=DEFAULTS["epochs"],
                   help=f"at most this many epochs (default {DEFAULTS['epochs']}; early stopping)")
    p.add_argument("--encoder", default=DEFAULTS["encoder"],
                   help="tiny (built-in bag of hashed words, default: fast on CPU) | minilm (packaged "
                        "all-MiniLM-L6-v2) | minilm:k (its first k layers) | path:DIR")
    p.add_argument("--pairs", type=int, help="train on at most N pairs (whole groups, seeded sample)")
    p.add_argument("--generated", type=int, default=DEFAULTS["generated"],
                   help="add N generated pairs labelled by the teacher to training only (offline teachers: rules; "
                        "default: 4,000 for an offline teacher, else 0)")
    p.add_argument("--seed", type=int, default=0, help="split, sampling and training seed (recorded)")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, help="learning rate (default 5e-5; tiny: 1e-3)")
    p.add_argument("--max-length", type=int,
                   help="tokens of reference + candidate (default: from the data, 95th percentile capped at 256; "
                        "tiny: 99th, capped at 2,048)")
    p.add_argument("--patience", type=int, default=DEFAULTS["patience"],
                   help="epochs without a better validation tau before stopping")
    p.add_argument("--replace", action="store_true", help="replace an existing model of that name")

    p = add("export-finetune", cmd_export_finetune,
            "write VERT 4.1.4 chat-template JSONL (train/validation; never a test-split pair) from expert scores")
    p.add_argument("--dataset", required=True)
    p.add_argument("--out", required=True,
                   help="FILE.jsonl (train; validation goes to FILE.val.jsonl) or a FOLDER/ (train.jsonl, val.jsonl)")
    p.add_argument("--force", action="store_true", help="replace the files if they exist (never a DuckDB file)")
    p.add_argument("--seed", type=int, default=0, help="split seed (recorded)")
