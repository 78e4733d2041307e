"""The cost of the whole-file check reads rely on (issue 42, item 4): ``forensics.damage`` (every block's
checksum, the header and the free list) once per version of the file, and the remembered verdict after it.

Builds a demo store of ``--pairs`` pairs with the rules, lexical and length runs, then times, best of
``--repeat``: the check of a new version (what the first read after any write pays), the remembered verdict
(every other read), a read-only open + one query without any check, and check-store.

    .venv/bin/python bench/bench_verdict.py --pairs 4000 --repeat 5
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.benchlib import best_of, parser  # noqa: E402
from core.ingest.demo import build_demo  # noqa: E402
from core.judges import run_judge  # noqa: E402
from core.store import forensics, handles  # noqa: E402
from core.store.db import Store  # noqa: E402
from core.store.integrity import check_store  # noqa: E402


def main() -> None:
    ap = parser(__doc__, pairs=4000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="verdict-") as tmp:
        store = Store(Path(tmp) / "store.duckdb")
        build_demo(store, n_pairs=args.pairs, seed=7)
        for judge in ("rules", "lexical", "length"):
            run_judge(store, dataset="demo", judge=judge)
        path = store.path
        conn = handles.connect(path, read_only=True)
        try:
            fresh = best_of(lambda: forensics.damage(path, conn), args.repeat)
            forensics.verdict(path, conn)
            remembered = best_of(lambda: forensics.verdict(path, conn), args.repeat)
        finally:
            handles.close(conn, path)

        def plain_read():
            c = handles.connect(path, read_only=True)
            c.execute("SELECT count(*) FROM pairs").fetchone()
            handles.close(c, path)

        opened = best_of(plain_read, args.repeat)
        t0 = time.perf_counter()
        ok = check_store(path).ok
        whole = time.perf_counter() - t0
        mb = path.stat().st_size / 1e6
    print(f"store: {args.pairs:,} demo pairs, 3 runs, {mb:.1f} MB (check-store ok: {ok})")
    print(f"check of a new file version (forensics.damage): {fresh * 1000:.1f} ms "
          f"({mb / fresh:.0f} MB/s, page cache warm)")
    print(f"remembered verdict (same version): {remembered * 1e6:.0f} us")
    print(f"read-only open + one query, no check: {opened * 1000:.1f} ms")
    print(f"check-store (every table read in full as well): {whole * 1000:.0f} ms")


if __name__ == "__main__":
    main()
