"""How long CRIMSON answers take to read and score, and to import.

    .venv/bin/python bench/bench_crimson.py [--pairs 10000]

Builds ``demo --pairs N`` in a temporary store, writes one made-up CRIMSON answer per pair (seed 33:
1-6 reference findings, 0-6 predicted, matches, attribute errors; one in 50 cut off, so it is stored as a
parse failure), then times :func:`core.parse.crimson.parse_crimson` per answer and
``import-outputs --format crimson`` of the whole file (a subprocess, as a user runs it), then the same
import again (nothing to add).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LEVELS = ["urgent", "actionable_not_urgent", "not_actionable_not_urgent", "benign_expected"]
TYPES = ["location", "severity", "descriptor", "measurement", "certainty", "unspecific", "overinterpretation",
         "temporal"]


def made_up_answer(rng: random.Random) -> str:
    refs = [{"id": f"R{i}", "finding": f"reference finding {i}", "clinical_significance": rng.choice(LEVELS)}
            for i in range(1, rng.randint(1, 6) + 1)]
    preds = [{"id": f"P{i}", "finding": f"predicted finding {i}", "clinical_significance": rng.choice(LEVELS)}
             for i in range(1, rng.randint(0, 6) + 1)]
    pairs = list(zip(refs, preds, strict=False))[: rng.randint(0, min(len(refs), len(preds)))]
    matched = [{"ref_id": r["id"], "pred_id": p["id"]} for r, p in pairs]
    attrs = [{"ref_id": m["ref_id"], "pred_id": m["pred_id"], "severity": rng.choice(["significant", "negligible"]),
              "error_types": rng.sample(TYPES, rng.randint(1, 2)), "explanation": "differs"}
             for m in matched if rng.random() < 0.4]
    answer = json.dumps({
        "reference_findings": refs, "predicted_findings": preds, "matched_findings": matched,
        "errors": {"false_findings": [p["id"] for p in preds[len(pairs):]],
                   "missing_findings": [r["id"] for r in refs[len(pairs):]], "attribute_errors": attrs}}, indent=2)
    return answer[: len(answer) // 2] if rng.random() < 0.02 else answer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10000)
    args = ap.parse_args()
    from core.parse.crimson import parse_crimson
    from core.store.db import Store

    with tempfile.TemporaryDirectory() as tmp:
        store_path, answers = Path(tmp) / "s.duckdb", Path(tmp) / "answers.jsonl"
        subprocess.run([sys.executable, "-m", "core", "--store", str(store_path), "demo", "--pairs",
                        str(args.pairs)], cwd=ROOT, check=True, capture_output=True)
        ids = Store(store_path).query_df("SELECT ext_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id")["ext_id"]
        rng = random.Random(33)
        texts = [made_up_answer(rng) for _ in ids]
        answers.write_text("".join(json.dumps({"id": i, "answer": t}) + "\n" for i, t in zip(ids, texts, strict=True)),
                           encoding="utf-8")
        t0 = time.perf_counter()
        results = [parse_crimson(t) for t in texts]
        per = (time.perf_counter() - t0) / len(texts) * 1e6
        failed = sum(r.status == "failed" for r in results)
        print(f"parse_crimson: {per:.0f} us per answer over {len(texts):,} answers "
              f"(mean {sum(map(len, texts)) / len(texts):,.0f} characters; {failed} cut off, failed)")
        command = [sys.executable, "-m", "core", "--store", str(store_path), "import-outputs", str(answers),
                   "--format", "crimson", "--dataset", "demo", "--judge", "crimson-bench", "--id-col", "id",
                   "--text-col", "answer", "--json"]
        for label in ("import", "re-import"):
            t0 = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True)
            report = json.loads(done.stdout)
            print(f"{label}: {time.perf_counter() - t0:.2f} s for {report['rows']:,} answers "
                  f"({report['added']:,} added, {report['skipped']:,} skipped)")


if __name__ == "__main__":
    main()
