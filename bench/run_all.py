"""Run every benchmark and append its table to docs/PERFORMANCE.md (`make bench`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHES = ["bench_runner.py", "bench_rules.py", "bench_stats.py", "bench_import.py", "bench_page.py"]

if __name__ == "__main__":
    failed = []
    for name in BENCHES:
        path = ROOT / "bench" / name
        if not path.exists():
            continue
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, str(path), "--write"], cwd=ROOT).returncode != 0:
            failed.append(name)
    sys.exit(1 if failed else 0)
