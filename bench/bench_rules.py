"""Rule-based judge vs the lexical baselines: speed and agreement with the expert, same demo pairs.

Times ``core.judges.rules.score_pair`` (judge + GREEN-format text, as the
offline runner calls it) and ``core.judges.lexical.lexical_scores`` (BLEU-4 +
ROUGE-L) on the same N pairs of ``generate_demo(N, seed)``, one process, one
core. The rules judge caches its parse of each sentence and report (report
language is repetitive, and a reference is shared by the 3-4 candidates
written for it); the caches start empty, and the "no cache" row clears them
before every pair. Times are CPU seconds of this process (time.process_time,
less sensitive to other load on a shared machine), best of ``--repeat`` runs. Then, on the same pairs, the agreement with the
demo corpus's expert annotations: Kendall tau-b (scipy) of the rules judge's
``ec_sig`` with expert_1's significant error count and of its GREEN score
with the 0-5 expert score, the same for BLEU-4 / ROUGE-L, and per-category
precision/recall of the error counts. The rules judge never sees the labels.

    .venv/bin/python bench/bench_rules.py --pairs 2000 --seed 7 [--write]

With ``--write`` the tables are appended to docs/PERFORMANCE.md (created
with a "# Performance" title if missing; other sections are kept).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from scipy.stats import kendalltau  # noqa: E402

from bench.benchlib import best_of  # noqa: E402
from core.ingest.synth import generate_demo  # noqa: E402
from core.judges import rules  # noqa: E402
from core.judges.lexical import lexical_scores  # noqa: E402
from core.parse import parse_output  # noqa: E402

CATS = "abcdef"


def _expert(corpus, annotator: str, ids: list[str]):
    ann = corpus.annotations
    ann = ann[ann["annotator"] == annotator]
    counts = ann[ann["field"] == "error_count"].assign(significant=lambda d: d["significant"].astype(bool))
    table = counts.pivot_table(index="ext_id", columns=["category", "significant"], values="value",
                               aggfunc="sum").reindex(ids).fillna(0)
    score = ann[ann["field"] == "score"].set_index("ext_id")["value"].reindex(ids).to_numpy()
    return table, score


def _tau(x, y) -> float:
    return float(kendalltau(x, y).statistic)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="timing runs per judge (best is kept)")
    ap.add_argument("--write", action="store_true", help="append the tables to docs/PERFORMANCE.md")
    args = ap.parse_args()

    corpus = generate_demo(args.pairs, seed=args.seed)
    ids = corpus.pairs["ext_id"].tolist()
    pairs = list(zip(corpus.pairs["reference"].tolist(), corpus.pairs["candidate"].tolist(), strict=True))
    n = len(pairs)

    # warm-ups: module imports / scorer construction are not per-pair costs
    lexical_scores(*pairs[0])
    rules.score_pair(*pairs[0])

    def run_rules():
        rules.clear_caches()
        for ref, cand in pairs:
            rules.score_pair(ref, cand)

    def run_rules_nocache():
        for ref, cand in pairs:
            rules.clear_caches()
            rules.score_pair(ref, cand)

    def run_lexical():
        for ref, cand in pairs:
            lexical_scores(ref, cand)

    t_rules = best_of(run_rules, args.repeat, clock=time.process_time)
    t_nocache = best_of(run_rules_nocache, args.repeat, clock=time.process_time)
    t_lex = best_of(run_lexical, args.repeat, clock=time.process_time)

    cmd = f".venv/bin/python bench/bench_rules.py --pairs {args.pairs} --seed {args.seed} --repeat {args.repeat}"
    speed = [f"### Rules judge vs lexical baselines: speed ({n} demo pairs, seed {args.seed}, one core)", "",
             f"Command: `{cmd}`", "",
             "| judge | CPU seconds | pairs/s | ratio rules/lexical (pairs/s) |", "| --- | ---: | ---: | ---: |",
             f"| lexical (BLEU-4 + ROUGE-L) | {t_lex:.2f} | {n / t_lex:.0f} | 1.00 |",
             f"| rules (judge + GREEN text) | {t_rules:.2f} | {n / t_rules:.0f} | {t_lex / t_rules:.2f} |",
             f"| rules, no cache (every pair parsed cold) | {t_nocache:.2f} | {n / t_nocache:.0f} | {t_lex / t_nocache:.2f} |"]

    # ---- agreement with the expert annotations ---------------------------------
    rules.clear_caches()
    results = [rules.judge_pair(r, c) for r, c in pairs]
    parsed = [parse_output(rules.render_green(res)) for res in results]
    bad = sum(p.status != "ok" for p in parsed)
    ec_sig = np.array([p.metrics["ec_sig"] for p in parsed], dtype=float)
    green = np.array([p.metrics["green"] for p in parsed], dtype=float)
    lex = [lexical_scores(r, c) for r, c in pairs]
    bleu = np.array([x["bleu4"] for x in lex])
    rouge = np.array([x["rouge_l"] for x in lex])

    quality = [f"### Rules judge vs lexical baselines: agreement with the demo experts ({n} pairs, seed "
               f"{args.seed})", "",
               f"Kendall tau-b (scipy.stats.kendalltau). Counts are oriented so that agreement is positive "
               f"(tau of -BLEU with an error count). GREEN-format outputs not parsed 'ok': {bad}.", "",
               "| judge | tau vs expert_1 sig. count | tau vs expert_1 score (0-5) | tau vs expert_2 sig. count "
               "| tau vs expert_2 score |", "| --- | ---: | ---: | ---: | ---: |"]
    expert = {a: _expert(corpus, a, ids) for a in ("expert_1", "expert_2")}
    sig_count = {a: sum(t[(c, True)] for c in CATS).to_numpy() for a, (t, _) in expert.items()}
    rows = [("rules: ec_sig", ec_sig, -1), ("rules: GREEN", green, 1), ("BLEU-4", bleu, 1), ("ROUGE-L", rouge, 1)]
    for name, x, sign in rows:
        # sign: +1 for higher-is-better scores, -1 for error counts
        cells = []
        for a in ("expert_1", "expert_2"):
            cells.append(_tau(-sign * x, sig_count[a]))
            cells.append(_tau(sign * x, expert[a][1]))
        quality.append(f"| {name} | " + " | ".join(f"{v:.3f}" for v in cells) + " |")

    table1 = expert["expert_1"][0]
    quality += ["", "Per-category error detection vs expert_1 (counts per pair; TP = min(predicted, expert)):", "",
                "| category | predicted | expert | precision | recall | sig. precision | sig. recall |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in CATS:
        pred_all = np.array([r.sig[c] + r.insig[c] for r in results])
        pred_sig = np.array([r.sig[c] for r in results])
        true_sig = table1[(c, True)].to_numpy()
        true_all = true_sig + table1[(c, False)].to_numpy()
        tp, tps = np.minimum(pred_all, true_all).sum(), np.minimum(pred_sig, true_sig).sum()
        quality.append(f"| ({c}) | {pred_all.sum()} | {true_all.sum():.0f} | {tp / max(pred_all.sum(), 1):.3f} | "
                       f"{tp / max(true_all.sum(), 1):.3f} | {tps / max(pred_sig.sum(), 1):.3f} | "
                       f"{tps / max(true_sig.sum(), 1):.3f} |")
    exact = sum(all(r.sig[c] == table1[(c, True)].iloc[i] and r.insig[c] == table1[(c, False)].iloc[i]
                    for c in CATS) for i, r in enumerate(results))
    quality += ["", f"Pairs with all 12 counts equal to expert_1's: {exact} / {n}.",
                "Caveat: the demo corpus is generated from a closed clinical vocabulary that the rules cover; "
                "on real reports expect lower agreement."]

    text = "\n".join(speed) + "\n\n" + "\n".join(quality)
    print(text)
    if args.write:
        perf = ROOT / "docs" / "PERFORMANCE.md"
        old = perf.read_text() if perf.exists() else "# Performance\n\nMeasured with the commands shown; ratios " \
            "are against a baseline run in the same command.\n"
        perf.parent.mkdir(parents=True, exist_ok=True)
        perf.write_text(old.rstrip() + "\n\n" + text + "\n")


if __name__ == "__main__":
    main()
