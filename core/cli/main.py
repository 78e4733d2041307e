"""``python -m core``: every dashboard action, scriptable.

Machine output with ``--json``; on failure a non-zero exit and a one-line
reason on stderr (exit 2: the input was refused; exit 1: anything else).
The command names and flags in DESIGN.md are a contract: add, never rename.

This module holds the parser and the dispatch only; each command group is a module of its own
(``COMMAND_MODULES``, each with ``add_commands(add)``), listed in the help by core.cli.groups.
Adding a command: docs/ARCHITECTURE.md, "Adding a CLI command".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.cli.common import CREATES_STORE, check_names
from core.store.db import StoreError, default_store_path

# Commands that need no store (any store path is fine, even a missing one). The commands that may create one
# are core.cli.common.CREATES_STORE.
NO_STORE = frozenset({"parse", "simulate", "check-store", "score", "reproduce"})


def _missing_store(args) -> Path | None:
    path = Path(args.store) if args.store else default_store_path()
    return None if path.exists() or args.command in NO_STORE else path


# One line per command-group module (each has add_commands(add)), in registration order: argparse lists the
# commands in this order when it refuses an unknown one. Which group the help shows a command in: core.cli.groups.
COMMAND_MODULES = (
    "core.cli.datasets",
    "core.cli.judge",
    "core.cli.correlate",
    "core.cli.trash",
    "core.cli.analysis",
    "core.cli.checks",
    "core.cli.dashboard",
    "core.cli.distill",
    "core.cli.import_outputs",
    "core.cli.jobs",
    "core.cli.merge",
    "core.cli.ops",
    "core.cli.paper",
    "core.cli.parsing",
    "core.cli.ratings",
    "core.cli.review",
    "core.cli.score",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m core",
        description="RadConcord: store, import, judge and analyse radiology report judges.",
        usage="python -m core [--store STORE] COMMAND [options]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--store", help="DuckDB store file (default: $RADCONCORD_STORE or data/radconcord.duckdb, "
                        "or data/radjudge.duckdb, its old name, when only that exists)")
    # the commands are listed grouped (core.cli.groups), in the epilog, not in argparse's own flat list
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS)
    helps: dict[str, str] = {}

    def add(name, func, help_, epilog=None):
        helps[name] = help_
        p = sub.add_parser(name, help=help_, description=help_, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter if epilog else argparse.HelpFormatter)
        p.set_defaults(func=func)
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")
        return p

    # Feature modules register their own subcommands: each has add_commands(add).
    import importlib

    for module in COMMAND_MODULES:
        importlib.import_module(module).add_commands(add)

    from core.cli.groups import command_listing

    parser.epilog = command_listing(helps)
    return parser


def main(argv: list[str] | None = None) -> int:
    import duckdb

    from core.ingest.importers import ImportValidationError
    from core.store.db import damaged, is_damage

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare `python -m core`: what there is to do, not an error
        parser.print_help()
        return 0
    missing = _missing_store(args)
    if missing is not None and args.command not in CREATES_STORE | {"restore"}:
        print(f"error: store {missing} does not exist; check --store or $RADCONCORD_STORE (only "
              f"{', '.join(sorted(CREATES_STORE))} create one)", file=sys.stderr)
        return 1
    failed = True
    try:
        if missing is None:
            check_names(args)
        code = args.func(args)
        failed = code != 0
        if missing is not None and missing.exists() and not failed:
            print(f"note: created a new store at {missing}", file=sys.stderr)
        return code
    except ImportValidationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if len(exc.problems) > 5:
            for problem in exc.problems[5:]:
                print(f"  {problem}", file=sys.stderr)
        return 2
    except (StoreError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except duckdb.Error as exc:  # a damaged file met outside Store (which raises StoreDamaged itself)
        if not is_damage(exc):
            raise
        print(f"error: {damaged(Path(args.store) if args.store else default_store_path(), exc)}", file=sys.stderr)
        return 1
    except PermissionError as exc:  # an unreadable install, store folder or input file: say which
        print(f"error: {exc.strerror or exc}: {exc.filename or ''}; check this user's permissions", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into head & co: not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("error: interrupted; work committed so far is kept", file=sys.stderr)
        return 130
    finally:
        if failed and missing is not None:
            discard_new_store(missing)


def discard_new_store(path: Path) -> None:
    """Remove the store a failed command made at ``path`` (it did not exist before the command), when it
    holds no dataset: a failed command leaves no empty store behind."""
    import duckdb

    from core.store import handles
    from core.store.db import store_kind

    if not path.exists():
        return
    try:
        conn = handles.connect(path, read_only=True)
    except duckdb.Error:
        return  # held by another process (which may be filling it), or unreadable: left alone
    try:
        kind, _, _ = store_kind(conn)
        empty = kind == "empty" or (kind == "store" and not conn.execute("SELECT count(*) FROM datasets").fetchone()[0])
    except duckdb.Error:
        empty = False
    finally:
        handles.close(conn, path)
    if empty:
        for leftover in (path, Path(f"{path}.wal")):
            leftover.unlink(missing_ok=True)
