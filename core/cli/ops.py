"""Operations commands of ``python -m core``: ``check-store``, ``export-store``, ``backup`` and ``restore``.

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
        if report.blocks_checked:
            print(f"{report.blocks_checked:,} blocks in use checksummed ({report.bytes:,}-byte file), every table "
                  f"read in full: {report.seconds:.2f} s")
        if report.damaged_tables:
            print(f"damaged table(s): {', '.join(report.damaged_tables)}; restore from a backup or export")
        print("ok: no problems found" if report.ok else f"{len(report.problems)} problem(s) found")
    return 0 if report.ok else 1


def cmd_backup(args) -> int:
    from core.store.backup import backup_store

    manifest = backup_store(open_store(args), Path(args.out))
    if args.json:
        print(json.dumps(manifest, ensure_ascii=False))
    else:
        print(f"backup: {Path(args.out) / manifest['file']} ({manifest['bytes']:,} bytes, schema "
              f"v{manifest['schema_version']}, data version {manifest['data_version']}; copied in "
              f"{manifest['copy_seconds']:.2f} s, check-store ok in {manifest['check_seconds']:.2f} s)")
        print(f"manifest: {Path(args.out) / 'manifest.json'} (sha256 {manifest['sha256'][:16]}...)")
    return 0


def cmd_restore(args) -> int:
    from core.store.backup import restore_store
    from core.store.db import default_store_path

    to = Path(args.to) if args.to else Path(args.store) if args.store else default_store_path()
    result = restore_store(Path(args.source), to, force=args.force)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(f"restored {args.source} to {to} (schema v{result['schema_version']}, data version "
              f"{result['data_version']}, sha256 {result['sha256'][:16]}... verified)")
    return 0


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
        "verify the store (read-only): every block's checksum, every table read, schema version, "
        "primary keys, orphan rows, run counters")
    p = add("export-store", cmd_export_store,
            "write every table as Parquet plus manifest.json (row counts, SHA-256) into a new folder")
    p.add_argument("--out", required=True, help="a folder that does not exist yet (or is empty)")
    p = add("backup", cmd_backup,
            "a consistent copy of the store (while the dashboard and jobs run), checked, with manifest.json")
    p.add_argument("--out", required=True, help="a folder that does not exist yet (or is empty)")
    p = add("restore", cmd_restore,
            "put a backup back (manifest, SHA-256 and check-store verified first; written whole or not at all)")
    p.add_argument("--from", dest="source", required=True, help="a folder written by backup")
    p.add_argument("--to", default=None, help="the store to write (default: --store or $RADCONCORD_STORE)")
    p.add_argument("--force", action="store_true", help="replace an existing store")
