"""``python -m core merge --from STORE_OR_EXPORT_DIR``: another store's data brought into this one
(core.store.merge). Registered by :func:`add_commands` from core.cli.main (``COMMAND_MODULES``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.cli.common import open_store
from core.store.db import default_store_path


def cmd_merge(args) -> int:
    from core.store.merge import MergeConflict, MergeRefused, merge_store

    target = Path(args.store) if args.store else default_store_path()
    new = not target.exists()
    try:
        report = merge_store(open_store(args), Path(args.source))
    except (MergeConflict, MergeRefused) as exc:
        if new:  # the empty store this command made for the merge: nothing went into it
            for leftover in (target, Path(f"{target}.wal")):
                leftover.unlink(missing_ok=True)
        conflicts = getattr(exc, "conflicts", [])
        if args.json:
            print(json.dumps({"merged": False, "error": str(exc), "conflicts": conflicts,
                              "conflicts_total": getattr(exc, "total", 0)}, ensure_ascii=False))
        for line in conflicts:
            print(f"conflict: {line}", file=sys.stderr)
        if len(conflicts) < getattr(exc, "total", 0):
            print(f"conflict: ... and {exc.total - len(conflicts):,} more of the same checks", file=sys.stderr)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"merged": not report.nothing_new} | report.to_json(), ensure_ascii=False))
        return 0
    how = f"{report.kind}, schema v{report.schema_version}" + (
        ", migrated in a temporary copy" if report.migrated else "")
    if report.nothing_new:
        print(f"nothing new: every row of {report.source} ({how}) is already in this store; nothing was written")
    else:
        print(f"merged {report.source} ({how}) in {report.seconds:.2f} s:")
        for table, n in report.added.items():
            print(f"  {table}: +{n:,}")
        if report.failures_replaced:
            print(f"  recorded failures replaced by the source's answers: {report.failures_replaced:,}")
        if report.context_filled:
            print(f"  pairs whose empty patient context the source filled: {report.context_filled:,}")
        if report.runs_recounted:
            print(f"  runs held by both, recounted: {', '.join(report.runs_recounted)}")
    print(f"not merged (each machine's own): {', '.join(report.not_merged)}")
    return 0


def add_commands(add) -> None:
    """Register ``merge`` with the CLI's ``add(name, func, help)``."""
    p = add("merge", cmd_merge,
            "bring another store's (or an export-store folder's) datasets, pairs, runs, outputs, annotations and "
            "ratings into this store: one transaction, a second merge adds nothing, conflicts refused one per line")
    p.add_argument("--from", dest="source", required=True, metavar="STORE_OR_EXPORT_DIR",
                   help="a store file (opened read-only) or a folder written by export-store")
