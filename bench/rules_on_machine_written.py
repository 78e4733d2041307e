"""The rules judge on issue 32's machine-written set, read from the set's own labels (until
``bench/bench_machine_written.py`` reports its figures).

Per split: per-category precision / recall / F1 of the error counts (TP = min, as ``bench/iu_edits.py``),
benign-only candidates flagged, non-reports refused ("not a report"), and finding-extraction recall /
precision: a listed finding is extracted when one of the judge's positive findings of that report holds
one of its ``terms`` (in the finding's words, name or key); a judge finding is right when it holds a term
of a listed finding. ``-v`` prints the dev split's misses and disagreements; the held-out split is only
ever printed as totals (it is not for tuning).

    .venv/bin/python bench/rules_on_machine_written.py [-v]
"""

import collections
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))
import core.judges.rules  # noqa: E402  (a judge on PYTHONPATH, an older tree, wins over this checkout)

print("judge:", core.judges.rules.RULES_VERSION)
sys.path.insert(0, str(ROOT / "bench"))
import bench_machine_written as B  # noqa: E402

from core.judges.rules import judge_pair, parse_report, score_pair  # noqa: E402

verbose = "-v" in sys.argv
refs = {r["iu_id"]: r for r in B.load_references()}
cands = B.load_candidates()
texts = B.iu_reports_by_id()
CATS = "abcdef"


def words(t):
    return re.sub(r"\s+", " ", t.lower()).strip()


def pos(text):
    return [f for f in parse_report(text) if f.kind == "finding" and f.present]


def hit(label, f):
    hay = words(f.text + " " + f.name + " " + f.concept.replace("_", " "))
    return any(t.lower() in hay for t in label["terms"])


def extraction(pairs):
    """pairs: [(text, labelled findings)] -> recall, precision, lists of misses / extras."""
    n_lab = n_hit = n_pos = n_ok = 0
    misses = []
    extras = []
    for text, labels in pairs:
        ps = pos(text)
        for lab in labels:
            n_lab += 1
            if any(hit(lab, f) for f in ps):
                n_hit += 1
            else:
                misses.append((lab["name"], lab["evidence"]))
        for f in ps:
            n_pos += 1
            if any(hit(lab, f) for lab in labels):
                n_ok += 1
            else:
                extras.append((f.describe(), f.text))
    return n_hit / max(n_lab, 1), n_ok / max(n_pos, 1), n_lab, n_pos, misses, extras


for split in ("dev", "heldout"):
    show = verbose and split == "dev"
    cs = [c for c in cands if refs[c["iu_id"]]["split"] == split]
    tp = collections.Counter()
    fp = collections.Counter()
    fn = collections.Counter()
    benign = benign_flag = 0
    nonrep = nonrep_ok = 0
    refused_reports = 0
    details = []
    for c in cs:
        ref = texts[c["iu_id"]].text
        rec = score_pair(ref, c["text"])
        if c["not_a_report"]:
            nonrep += 1
            nonrep_ok += bool(rec.error and "not a report" in rec.error)
            if show and not (rec.error and "not a report" in rec.error):
                details.append(("NONREPORT-SCORED", c["cid"], c["text"][:200]))
            continue
        if rec.error:
            refused_reports += 1
            if show:
                details.append(("REFUSED", c["cid"], rec.error))
            continue
        res = judge_pair(ref, c["text"])
        got = collections.Counter(e.category for e in res.errors)
        want = collections.Counter(e["category"] for e in c["errors"])
        for k in CATS:
            tp[k] += min(got[k], want[k])
            fp[k] += max(0, got[k] - want[k])
            fn[k] += max(0, want[k] - got[k])
        if B.is_benign(c):
            benign += 1
            benign_flag += bool(res.errors)
        if show and got != want:
            details.append(
                (
                    "COUNTS",
                    c["cid"],
                    dict(got),
                    dict(want),
                    [(e.category, e.explanation) for e in res.errors],
                    [(e["category"], e["evidence"]) for e in c["errors"]],
                )
            )
    print(f"== {split}: {len(cs)} candidates ({nonrep} non-reports)")
    for k in CATS:
        p = tp[k] / (tp[k] + fp[k]) if tp[k] + fp[k] else float("nan")
        r = tp[k] / (tp[k] + fn[k]) if tp[k] + fn[k] else float("nan")
        f1 = 2 * tp[k] / (2 * tp[k] + fp[k] + fn[k]) if tp[k] + fp[k] + fn[k] else float("nan")
        print(
            f"  ({k}) labelled {tp[k] + fn[k]:3d} judged {tp[k] + fp[k]:3d}  P {p:.2f} R {r:.2f} F1 {f1:.2f}"
        )
    print(
        f"  benign flagged {benign_flag}/{benign}; non-reports refused {nonrep_ok}/{nonrep}; reports refused {refused_reports}"
    )
    rids = sorted({c["iu_id"] for c in cs})
    rr = extraction([(texts[i].text, refs[i]["findings"]) for i in rids])
    cr = extraction([(c["text"], c["findings"]) for c in cs if not c["not_a_report"]])
    print(
        f"  extraction references: recall {rr[0]:.3f} ({rr[2]} listed) precision {rr[1]:.3f} ({rr[3]} extracted)"
    )
    print(
        f"  extraction candidates: recall {cr[0]:.3f} ({cr[2]} listed) precision {cr[1]:.3f} ({cr[3]} extracted)"
    )
    if show:
        for m in rr[4]:
            print("  REF MISS", m)
        for m in cr[4]:
            print("  CAND MISS", m)
        for m in rr[5]:
            print("  REF EXTRA", m)
        for m in cr[5]:
            print("  CAND EXTRA", m)
        for d in details:
            print("  ", d)
