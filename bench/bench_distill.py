"""Distilled student vs its teacher (rules judge) vs the lexical baselines: ms per pair, one run.

Builds the seeded demo (``--pairs``, ``--seed``) in a temporary store, runs
the rules judge on it, trains a student from that run (``--encoder``,
``--epochs``; core.distill.train), then times, on the student's held-out test
pairs and in this one process: the student (batches of 32, and one pair at a
time), the rules judge (``rules.score_pair``, as the offline runner calls it)
and the lexical baselines (``lexical_scores``: BLEU-4 + ROUGE-L). Wall-clock
milliseconds per pair (time.perf_counter), best of ``--repeat``; model loading
and imports are excluded (warm-up first). Also on those pairs: Kendall tau-b
of each scorer with the demo experts' significant-error count.

    .venv/bin/python bench/bench_distill.py --pairs 400 --seed 7 --encoder minilm --epochs 2 [--write]

With ``--write`` the table replaces this benchmark's own section of
docs/PERFORMANCE.md (between its markers; other sections are kept).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
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
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--encoder", default="minilm", help="minilm | tiny | path:DIR")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="replace this benchmark's section of docs/PERFORMANCE.md")
    args = ap.parse_args()

    from core.distill.data import model_dir
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
        card = train_student(store, dataset="demo", teacher="rules", name="bench", encoder=args.encoder,
                             epochs=args.epochs, seed=args.seed)
        test_ids = card["splits"]["test"]
        pairs = store.query_df("SELECT pair_id, reference, candidate FROM pairs WHERE pair_id IN "
                               "(SELECT unnest(?::VARCHAR[])) ORDER BY ext_id", [test_ids])
        model, tok = load_student(card, model_dir(store, "bench"))
        targets = dataset_targets(store, "demo")
        expert = targets[targets["target"] == "sig_errors"].set_index("pair_id")["value"]
        refs, cands = pairs["reference"].tolist(), pairs["candidate"].tolist()
        n = len(pairs)

        predict(model, tok, refs[:2], cands[:2])  # warm-ups
        rules.score_pair(refs[0], cands[0])
        lexical_scores(refs[0], cands[0])
        student_pred = predict(model, tok, refs, cands)
        ms_batch = _best_ms(lambda: predict(model, tok, refs, cands, batch_size=32), n, args.repeat)
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

        taus = {"student": tau(student_pred.sum(axis=1)), "rules": tau(ec),
                "bleu4": tau([d["bleu4"] for d in lex], -1), "rouge_l": tau([d["rouge_l"] for d in lex], -1)}

    cmd = (f".venv/bin/python bench/bench_distill.py --pairs {args.pairs} --seed {args.seed} --encoder {args.encoder} "
           f"--epochs {args.epochs} --repeat {args.repeat}")
    threads = torch.get_num_threads()
    lines = [f"### Distilled student vs rules judge vs lexical baselines ({n} held-out demo pairs, seed {args.seed})",
             "", f"Command: `{cmd}`", "",
             f"Student: encoder `{args.encoder}`, trained from the rules judge on {card['n_train']} pairs "
             f"({card['epochs_run']} epochs, {card['train_seconds']:.0f} s, device {card['device']}, "
             f"torch threads {threads}); tau vs the rules judge on these pairs "
             f"{card['metrics']['all']['vs_teacher']['tau']:.3f}. Wall-clock ms per pair, best of {args.repeat}, "
             "on a shared 2-core machine (other jobs running).", "",
             "| scorer | ms / pair | tau vs expert sig. errors (orientation-corrected) |", "| --- | ---: | ---: |",
             f"| student, batches of 32 | {ms_batch:.2f} | {taus['student']:.3f} |",
             f"| student, one pair at a time | {ms_single:.2f} | {taus['student']:.3f} |",
             f"| rules judge (teacher) | {ms_rules:.2f} | {taus['rules']:.3f} |",
             f"| BLEU-4 + ROUGE-L (lexical, both) | {ms_lex:.2f} | BLEU-4 {taus['bleu4']:.3f}, ROUGE-L "
             f"{taus['rouge_l']:.3f} |"]
    text = show(lines)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
