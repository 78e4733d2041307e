"""The lexical judge's numbers against another version of it: every metric of every pair equal (value and type).

``--old FILE`` is another ``core/judges/lexical.py`` (e.g. before a change: ``git show COMMIT:core/judges/lexical.py
> /tmp/lexical_old.py``), loaded on its own; the pairs are ``generate_demo(--demo, --seed)`` and ``--long`` pairs
of report sentences of 200 to 6,000 characters (bench_long_pairs.report).

    .venv/bin/python bench/lexical_identity.py --old /tmp/lexical_old.py --demo 5000 --seed 11 --long 1000
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_long_pairs import report  # noqa: E402
from core.ingest.synth import generate_demo  # noqa: E402
from core.judges.lexical import lexical_scores  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--demo", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--long", type=int, default=1000)
    args = ap.parse_args()
    spec = importlib.util.spec_from_file_location("lexical_old", args.old)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    demo = generate_demo(args.demo, args.seed).pairs
    pairs = list(zip(demo["reference"], demo["candidate"], strict=True))
    rng = random.Random(args.seed)
    pairs += [(report(rng.randint(200, 6000), 2 * i), report(rng.randint(200, 6000), 2 * i + 1))
              for i in range(args.long)]
    differ = 0
    for reference, candidate in pairs:
        a, b = old.lexical_scores(reference, candidate), lexical_scores(reference, candidate)
        differ += a != b or any(type(a[k]) is not type(b[k]) for k in a)
    print(f"{len(pairs):,} pairs: {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
