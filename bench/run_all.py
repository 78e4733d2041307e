"""Run every benchmark and write its table to docs/PERFORMANCE.md (`make bench`).

Each benchmark writes its own section (bench_cached.py and bench_memory.py replace theirs; the
older ones append). A benchmark that fails is reported and the others still run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHES = ["bench_runner.py", "bench_cached.py", "bench_rules.py", "bench_stats.py", "bench_import.py",
           "bench_page.py", "bench_memory.py", "bench_distill.py", "bench_cli_run.py", "bench_live_start.py",
           "bench_kernels.py", "bench_correlate.py", "bench_coverage.py", "bench_ensembles_page.py",
           "iu_edits.py", "bench_machine_written.py"]

if __name__ == "__main__":
    failed = []
    for name in BENCHES:
        path = ROOT / "bench" / name
        if not path.exists():
            continue
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, str(path), "--write"], cwd=ROOT).returncode != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    sys.exit(1 if failed else 0)
