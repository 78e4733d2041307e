"""``judge``'s pair selection: the Run page's filters, sample and ticked rows as flags.

``--modality/--anatomy/--system/--split/--group VALUE`` (repeatable: any of the values), ``--id-contains
TEXT`` (the page's "Pair id contains"), ``--pairs FILE`` (one pair id a line: the page's ticked rows, which
it downloads as such a file) and ``--sample N --seed S`` (the page's "Random sample"). They mean what the
page means because both call core.reads.selection. Kept apart from core.cli.main (which registers them)
so the parser module stays short.
"""

from __future__ import annotations

from pathlib import Path

from core.reads.selection import FILTERS, select_pairs


def add_selection_flags(p) -> None:
    g = p.add_argument_group("which pairs (as the Run page selects them)")
    for name in FILTERS:
        g.add_argument(f"--{name}", action="append", metavar="VALUE", dest=f"select_{name}",
                       help=f"only pairs whose {name} is VALUE (repeat for any of several)")
    g.add_argument("--id-contains", metavar="TEXT", help="only pairs whose id contains TEXT (any case)")
    g.add_argument("--pairs", metavar="FILE", dest="pairs_file",
                   help="only the pairs listed in FILE, one id a line ('#' starts a comment): the Run page's "
                        "ticked rows, downloaded as 'Ticked ids'")
    g.add_argument("--sample", type=int, metavar="N",
                   help="a seeded random sample of N of the matching pairs: the Run page's sample for the same seed")
    g.add_argument("--seed", type=int, default=0, metavar="S", help="the sample's seed (default 0, as on the page)")


def wanted(args) -> bool:
    """Whether any selection flag was given."""
    return bool(args.id_contains or args.pairs_file or args.sample is not None or args.seed != 0
                or any(getattr(args, f"select_{n}") for n in FILTERS))


def read_ids(path: str) -> list[str]:
    """The ids of a ``--pairs`` file: one a line, stripped; blank lines and ``#`` comments skipped."""
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"--pairs: file not found: {file}")
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"--pairs: {file} is not UTF-8 text") from exc
    ids = [line.strip() for line in text.splitlines()]
    ids = [i for i in ids if i and not i.startswith("#")]
    if not ids:
        raise ValueError(f"--pairs: {file} lists no pair id")
    return ids


def selected_pairs(store, args) -> tuple[list[str], str]:
    """The pair ids and the selection's label the flags mean (ValueError in one line otherwise)."""
    if args.limit is not None:
        raise ValueError("--limit takes the first N pairs by id and does not go with the selection flags; "
                         "use --sample N for N of the selected pairs")
    if args.seed != 0 and args.sample is None:
        raise ValueError("--seed goes with --sample N")
    filters = {n: getattr(args, f"select_{n}") or [] for n in FILTERS}
    return select_pairs(store, args.dataset, filters=filters, search=args.id_contains or "",
                        ext_ids=read_ids(args.pairs_file) if args.pairs_file else None, sample=args.sample,
                        seed=args.seed)
