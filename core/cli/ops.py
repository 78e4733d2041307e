"""Operations commands of ``python -m core``: ``check-store`` and ``export-store``.

Registered by :func:`add_commands` from core.cli.main (``COMMAND_MODULES``).
"""

from __future__ import annotations

import json
from pathlib import Path

from core.cli.common import open_store


def cmd_check_store(args) -> int:
    from core.store.db import default_store_path
    from core.store.integrity import check_store

    # The file itself, not Store(): opening a Store would migrate it, and the check must never write.
    report = check_store(Path(args.store) if args.store else default_store_path())
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(f"store: {report.path}")
        print(f"schema: v{report.schema_version}  data version: {report.data_version}")
        for table, n in report.rows.items():
            print(f"  {table}: {n:,} rows")
        for note in report.notes:
            print(f"note: {note}")
        for problem in report.problems:
            print(f"PROBLEM: {problem}")
        print("ok: no problems found" if report.ok else f"{len(report.problems)} problem(s) found")
    return 0 if report.ok else 1


def cmd_export_store(args) -> int:
    from core.store.integrity import export_store

    manifest = export_store(open_store(args), Path(args.out))
    if args.json:
        print(json.dumps(manifest, ensure_ascii=False))
    else:
        for t in manifest["tables"].values():
            print(f"{t['file']}: {t['rows']:,} rows, {t['bytes']:,} bytes")
        print(f"manifest: {Path(args.out) / 'manifest.json'} (schema v{manifest['schema_version']}, "
              f"data version {manifest['data_version']})")
    return 0


def add_commands(add) -> None:
    """Register the operations subcommands with the CLI's ``add(name, func, help)``."""
    add("check-store", cmd_check_store,
        "verify the store (read-only): schema version, primary keys, orphan rows, run counters")
    p = add("export-store", cmd_export_store,
            "write every table as Parquet plus manifest.json (row counts, SHA-256) into a new folder")
    p.add_argument("--out", required=True, help="a folder that does not exist yet (or is empty)")
