"""Distilled student vs its teacher (rules judge) vs the lexical baselines, and the issue-21 targets.

Builds the seeded demo (``--pairs``, ``--seed``) in a temporary store, runs
the rules judge on it, trains a student from that run with distill's DEFAULT
settings unless ``--encoder`` / ``--epochs`` / ``--generated`` are given
(core.distill.train), then times, on the student's held-out test pairs and
in this one process: the student (float32 and int8, batches of 32, and one
pair at a time), the rules judge (``rules.score_pair``, as the offline runner
calls it) and the lexical baselines (``lexical_scores``: BLEU-4 + ROUGE-L).
Wall-clock milliseconds per pair (time.perf_counter), best of ``--repeat``;
model loading and imports are excluded (warm-up first). Also on those pairs:
Kendall tau-b of each scorer with the demo experts' significant-error count,
and the targets: n test >= 200, tau vs teacher >= 0.6, <= 20 ms/pair batched,
training <= 15 minutes.

    .venv/bin/python bench/bench_distill.py --pairs 2000 [--encoder minilm:2 --epochs 3] [--write]

With ``--write`` the table replaces this benchmark's own section of
docs/PERFORMANCE.md (between its markers; other sections are kept).
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.benchlib import best_of  # noqa: E402
from bench.perfdoc import show  # noqa: E402
from core.analysis.stats import correlation  # noqa: E402
from core.store.db import Store  # noqa: E402

START, END = "<!-- bench_distill:start -->", "<!-- bench_distill:end -->"


def _best_ms(fn, n: int, repeat: int) -> float:
    return best_of(fn, repeat) * 1000 / n


def write_section(text: str) -> None:
    doc = ROOT / "docs" / "PERFORMANCE.md"
    old = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n"
    block = f"{START}\n{text}\n{END}"
    if START in old and END in old:
        new = old[:old.index(START)] + block + old[old.index(END) + len(END):]
    else:
        new = old.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(new, encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--encoder", help="tiny | minilm | minilm:k | path:DIR (default: distill's default)")
    ap.add_argument("--epochs", type=int, help="default: distill's default")
    ap.add_argument("--generated", type=int, help="default: distill's default")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="replace this benchmark's section of docs/PERFORMANCE.md")
    args = ap.parse_args()

    from core.distill.data import model_dir
    from core.distill.fast import quantize
    from core.distill.model import predict, torch
    from core.distill.train import load_student, train_student
    from core.ingest.demo import build_demo
    from core.judges import rules, run_judge
    from core.judges.lexical import lexical_scores
    from core.reads.targets import dataset_targets

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(os.path.join(tmp, "bench.duckdb"))
        build_demo(store, n_pairs=args.pairs, seed=args.seed)
        run_judge(store, dataset="demo", judge="rules")
        given = {k: v for k, v in (("encoder", args.encoder), ("epochs", args.epochs),
                                   ("generated", args.generated)) if v is not None}
        t_train = time.monotonic()
        card = train_student(store, dataset="demo", teacher="rules", name="bench", seed=args.seed, **given)
        train_wall = time.monotonic() - t_train
        test_ids = card["splits"]["test"]
        pairs = store.query_df("SELECT pair_id, reference, candidate FROM pairs WHERE pair_id IN "
                               "(SELECT unnest(?::VARCHAR[])) ORDER BY ext_id", [test_ids])
        fp32_card = card | {"quantization": {"int8_used": False}}
        model, tok = load_student(fp32_card, model_dir(store, "bench"))
        qmodel = quantize(copy.deepcopy(model))
        targets = dataset_targets(store, "demo")
        expert = targets[targets["target"] == "sig_errors"].set_index("pair_id")["value"]
        refs, cands = pairs["reference"].tolist(), pairs["candidate"].tolist()
        n = len(pairs)

        predict(model, tok, refs[:2], cands[:2])  # warm-ups
        predict(qmodel, tok, refs[:2], cands[:2])
        rules.score_pair(refs[0], cands[0])
        lexical_scores(refs[0], cands[0])
        student_pred = predict(model, tok, refs, cands)
        q_pred = predict(qmodel, tok, refs, cands)
        ms_batch = _best_ms(lambda: predict(model, tok, refs, cands, batch_size=32), n, args.repeat)
        ms_int8 = _best_ms(lambda: predict(qmodel, tok, refs, cands, batch_size=32), n, args.repeat)
        ms_single = _best_ms(lambda: [predict(model, tok, [r], [c], batch_size=1) for r, c in zip(refs, cands,
                                                                                                 strict=True)],
                             n, args.repeat)

        def run_rules():
            rules.clear_caches()
            for r, c in zip(refs, cands, strict=True):
                rules.score_pair(r, c)

        ms_rules = _best_ms(run_rules, n, args.repeat)
        ms_lex = _best_ms(lambda: [lexical_scores(r, c) for r, c in zip(refs, cands, strict=True)], n, args.repeat)

        rules_ec = [rules.judge_pair(r, c) for r, c in zip(refs, cands, strict=True)]
        from core.parse import parse_output

        ec = np.array([parse_output(rules.render_green(x)).metrics["ec_sig"] for x in rules_ec], dtype=float)
        lex = [lexical_scores(r, c) for r, c in zip(refs, cands, strict=True)]
        y = expert.reindex(pairs["pair_id"]).to_numpy(dtype=float)

        def tau(x, sign=1):
            return correlation(sign * np.asarray(x, dtype=float), y)["tau"]

        def tau_t(x):
            return correlation(np.asarray(x, dtype=float), ec)["tau"]

        vs_teacher = {"fp32": tau_t(student_pred.sum(axis=1)), "int8": tau_t(q_pred.sum(axis=1))}
        taus = {"student": tau(student_pred.sum(axis=1)), "int8": tau(q_pred.sum(axis=1)), "rules": tau(ec),
                "bleu4": tau([d["bleu4"] for d in lex], -1), "rouge_l": tau([d["rouge_l"] for d in lex], -1)}

    flags = "".join(f" --{k} {v}" for k, v in given.items())
    cmd = f".venv/bin/python bench/bench_distill.py --pairs {args.pairs} --seed {args.seed}{flags} --repeat {args.repeat}"
    threads = torch.get_num_threads()
    used = "int8" if card["quantization"]["int8_used"] else "float32"
    ms_used = ms_int8 if used == "int8" else ms_batch
    tau_used = card["metrics"]["all"]["vs_teacher"]["tau"]
    checks = [("held-out pairs >= 200", n >= 200, f"{n}"),
              ("tau vs teacher >= 0.6", tau_used >= 0.6, f"{tau_used:.3f}"),
              ("scoring <= 20 ms/pair (batched, as scored)", ms_used <= 20, f"{ms_used:.2f} ({used})"),
              ("training <= 15 min wall", train_wall <= 900, f"{train_wall:.0f} s")]
    lines = [f"### Distilled student vs rules judge vs lexical baselines ({n} held-out demo pairs, seed {args.seed})",
             "", f"Command: `{cmd}`", "",
             f"Student: encoder `{card['encoder']}`, trained from the rules judge on {card['n_train']} pairs "
             f"+ {card['n_generated']} generated ({card['epochs_run']} of {card['epochs']} epochs, best "
             f"{card['best_epoch']}; {train_wall:.0f} s wall, {card['max_length_used']} tokens at most, device "
             f"{card['device']}, torch threads {threads}); tau vs the rules judge on these pairs {tau_used:.3f} "
             f"(scored with {used}). Wall-clock ms per pair, best of {args.repeat}, on a shared 2-core machine.", "",
             "| scorer | ms / pair | tau vs teacher | tau vs expert sig. errors (orientation-corrected) |",
             "| --- | ---: | ---: | ---: |",
             f"| student float32, batches of 32 | {ms_batch:.2f} | {vs_teacher['fp32']:.3f} | {taus['student']:.3f} |",
             f"| student int8, batches of 32 | {ms_int8:.2f} ({ms_int8 / ms_batch:.2f}x float32) | "
             f"{vs_teacher['int8']:.3f} | {taus['int8']:.3f} |",
             f"| student float32, one pair at a time | {ms_single:.2f} | {vs_teacher['fp32']:.3f} | "
             f"{taus['student']:.3f} |",
             f"| rules judge (teacher) | {ms_rules:.2f} | 1 | {taus['rules']:.3f} |",
             f"| BLEU-4 + ROUGE-L (lexical, both) | {ms_lex:.2f} | – | BLEU-4 {taus['bleu4']:.3f}, ROUGE-L "
             f"{taus['rouge_l']:.3f} |", "",
             "| target | met | measured |", "| --- | --- | ---: |",
             *[f"| {name} | {'yes' if ok else 'NO'} | {val} |" for name, ok, val in checks]]
    text = show(lines)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
