"""``python -m core delete-dataset``, ``restore-dataset`` and ``trash``: datasets moved to the trash and back.
Registered by :func:`add_commands` from core.cli.main (``COMMAND_MODULES``)."""

from __future__ import annotations

from core.cli.common import (
    confirmed,
    open_store,
    print_frame,
    print_result,
)


def cmd_delete_dataset(args) -> int:
    from core.store.datasets import delete_dataset

    if not confirmed(args.yes, f"delete '{args.dataset}'",
                     f"Type the dataset name ({args.dataset}) to move it and all its runs to the trash: ",
                     args.dataset, "the name did not match"):
        return 2
    record = delete_dataset(open_store(args), args.dataset)
    print_result(record.to_json(), args.json)
    if not args.json:
        store_opt = f" --store {args.store}" if args.store else ""
        print(f"undo with: python -m core{store_opt} restore-dataset {record.batch_id}")
    return 0


def cmd_restore_dataset(args) -> int:
    from core.store.datasets import restore_dataset

    print_result(restore_dataset(open_store(args), args.batch).to_json(), args.json)
    return 0


def cmd_trash(args) -> int:
    from core.store.datasets import list_trash, purge_trash

    store = open_store(args)
    if args.purge:
        what = "every batch in the trash" if args.purge == "all" else f"trash batch {args.purge}"
        if not confirmed(args.yes, f"delete {what} for good",
                         f"This deletes {what} for good (no undo). Type 'purge' to go on: ", "purge", "not confirmed"):
            return 2
        purged = purge_trash(store, None if args.purge == "all" else args.purge)
        print_result({"purged": purged}, args.json)
        return 0
    df = list_trash(store)
    if args.json:
        print(df.to_json(orient="records", date_format="iso"))
    else:
        print_frame(df, "the trash is empty")
    return 0


def add_commands(add) -> None:
    """Register the trash commands with the CLI's ``add(name, func, help)``."""
    p = add("delete-dataset", cmd_delete_dataset,
            "move a dataset with its pairs, annotations and judge runs to the trash (undo: restore-dataset)")
    p.add_argument("dataset")
    p.add_argument("--yes", action="store_true", help="do not ask to type the name")

    p = add("restore-dataset", cmd_restore_dataset, "bring a deleted dataset back from the trash")
    p.add_argument("batch", help="the trash batch id (see `trash`)")

    p = add("trash", cmd_trash, "list deleted datasets; --purge BATCH|all deletes them for good")
    p.add_argument("--purge", metavar="BATCH", help="a batch id, or `all` (asks first: there is no undo)")
    p.add_argument("--yes", action="store_true", help="purge without asking")
