"""Import rate for a large pairs file, against the time to merely read it.

Writes a CSV of N synthetic pairs (core.ingest.synth), then times in one command:
the baseline ``pandas.read_csv`` of the file, and ``import_pairs`` (read,
validate every row, hash ids and texts, one transaction) into a fresh store;
then the re-import of the same file (everything skipped).

    .venv/bin/python bench/bench_import.py --pairs 100000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from bench.perfdoc import show  # noqa: E402
from core.ingest.importers import PairColumns, import_pairs  # noqa: E402
from core.ingest.synth import generate_demo  # noqa: E402
from core.store.db import Store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--write", action="store_true", help="append the table to docs/PERFORMANCE.md")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    path = tmp / "pairs.csv"
    generate_demo(args.pairs, seed=1).pairs.drop(columns=["meta"]).to_csv(path, index=False)
    mb = path.stat().st_size / 1e6

    t0 = time.perf_counter()
    pd.read_csv(path, dtype=str, keep_default_na=False)
    read = time.perf_counter() - t0

    cols = PairColumns(id="ext_id", reference="reference", candidate="candidate", group="group_id",
                       system="system", modality="modality", anatomy="anatomy", split="split")
    store = Store(tmp / "s.duckdb")
    t0 = time.perf_counter()
    first = import_pairs(store, path, dataset="big", columns=cols)
    imported = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = import_pairs(store, path, dataset="big", columns=cols)
    reimported = time.perf_counter() - t0
    assert first.added == args.pairs and again.added == 0

    n = args.pairs
    lines = [f"### Import of {n:,} pairs ({mb:.0f} MB CSV)", "",
             f"Command: `.venv/bin/python bench/bench_import.py --pairs {n}`", "",
             "| what | seconds | pairs/s | time vs plain read_csv |", "| --- | ---: | ---: | ---: |",
             f"| pandas.read_csv of the file (baseline) | {read:.2f} | {n / read:,.0f} | 1.0x |",
             f"| import_pairs: read, validate, hash, one transaction | {imported:.2f} | {n / imported:,.0f} | "
             f"{imported / read:.1f}x |",
             f"| re-import of the same file (all skipped) | {reimported:.2f} | {n / reimported:,.0f} | "
             f"{reimported / read:.1f}x |"]
    text = show(lines)
    if args.write:
        perf = ROOT / "docs" / "PERFORMANCE.md"
        old = perf.read_text() if perf.exists() else "# Performance\n"
        perf.write_text(old.rstrip() + "\n\n" + text + "\n")


if __name__ == "__main__":
    main()
