"""What every CLI command module shares: the store from the arguments, printing a result, a progress
line, and the defaults read from the environment (through core.settings)."""

from __future__ import annotations

import json
import re
import sys
import time

from core import settings
from core.reads import names  # at import: the CLI loads its modules before it may lose access to them
from core.store.db import Store, default_store_path


class ProgressBar:
    """A one-line progress indicator on stderr (silent when stderr is not a terminal)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.monotonic()

    def __call__(self, done: int, total: int, stage: str) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / total) if total else width
        elapsed = time.monotonic() - self.start
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {stage:<12} {elapsed:5.1f}s")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


# Only these commands may make a new store (of a missing path or an empty DuckDB file, and say so); any other
# command on a store path that does not exist is a typo until proven otherwise, and gets an error instead of an
# empty store (core.cli.main). The one list of them.
CREATES_STORE = frozenset({"demo", "import-pairs", "import-preset", "import-review", "merge"})


def open_store(args):
    """The store of ``--store`` (or $RADCONCORD_STORE): only the commands that create stores may make one
    (of a missing path or an empty DuckDB file); any other DuckDB file is refused unchanged."""
    return Store(args.store or default_store_path(), create=getattr(args, "command", None) in CREATES_STORE)


def print_result(obj, as_json: bool) -> None:
    """One way to print a result: JSON with ``--json``, else ``key: value`` lines."""
    if as_json:
        print(json.dumps(obj, ensure_ascii=False, default=str))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            print(f"{k}: {v}")
    else:
        print(obj)


def api_key(args) -> str | None:
    """The key named by ``--api-key-env`` (for a custom endpoint), read from the environment."""
    name = getattr(args, "api_key_env", None)
    if not name:
        return None
    value = settings.env_value(name)
    if not value:
        raise ValueError(f"--api-key-env {name}: the environment variable {name} is not set")
    return value


def api_bases_default() -> str | None:
    """``judge``'s ``--api-base`` default: RADCONCORD_API_BASE (core.settings) as set, one URL or several
    (replicas of one model, split by core.judges.replicas.endpoints)."""
    return settings.api_base()


def api_base_default() -> str | None:
    """The ``--api-base`` default of a command that calls one endpoint (inject, score, review-judge, checks):
    the first URL of RADCONCORD_API_BASE, which may list several for ``judge``'s replicas (separated by spaces
    or commas, as core.judges.replicas.endpoints splits them); None when it is unset or blank."""
    value = settings.api_base()
    return next((url for url in re.split(r"[\s,]+", value.strip()) if url), None) if value else None


ONE_ENDPOINT_HELP = ("the model's OpenAI-compatible endpoint (default: $RADCONCORD_API_BASE; this command calls one "
                     "endpoint, so when that lists several URLs, replicas for `judge`, it takes the first)")


def add_api_base_flag(p) -> None:
    """``--api-base`` of a command that calls one endpoint: one URL, by default the first of RADCONCORD_API_BASE."""
    p.add_argument("--api-base", default=api_base_default(), metavar="URL", help=ONE_ENDPOINT_HELP)


def add_flag_pair(p, dest: str, first: tuple[str, bool, str], second: tuple[str, bool, str]) -> None:
    """Two mutually exclusive flags setting ``dest``, each ``(flag, value, help)``; neither given: None."""
    group = p.add_mutually_exclusive_group()
    for i, (flag, value, help_text) in enumerate((first, second)):
        extra = {"default": None} if i == 0 else {}
        group.add_argument(flag, dest=dest, action="store_true" if value else "store_false", help=help_text,
                           **extra)


def add_call_flags(p, *, per_prompt_max_tokens: bool = False) -> None:
    """--timeout, --max-retries, --temperature and --max-tokens of a model call. ``per_prompt_max_tokens``:
    --max-tokens left out is None, the prompt's default (``core.judges.llm.default_max_tokens``)."""
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per call")
    p.add_argument("--max-retries", type=int, default=4)
    p.add_argument("--temperature", type=float, default=0.0)
    if per_prompt_max_tokens:
        p.add_argument("--max-tokens", type=int, default=None,
                       help="output tokens per answer (default: 8192 for the CRIMSON prompts, 2048 for the others)")
    else:
        p.add_argument("--max-tokens", type=int, default=2048)


def add_stop_flag(p) -> None:
    """--stop (repeatable): the stop sequences of a model call; left out, a local server's default for the prompt
    (``core.judges.localserver.stop_defaults``)."""
    p.add_argument("--stop", action="append", default=None, metavar="TEXT",
                   help="a stop sequence: the answer ends before it (repeatable; part of the cache key; default: "
                        "for a server on loopback or a private network the prompt family's sequences in "
                        "docs/LOCAL_MODELS.md, else none; --stop '' sends none)")


def confirmed(yes: bool, action: str, prompt: str, answer: str, mismatch: str) -> bool:
    """Whether to go on: ``--yes`` given, or ``answer`` typed at ``prompt`` on a terminal. When not, says why on
    stderr: no terminal ("refusing to ``action`` without --yes") or a wrong answer (``mismatch``)."""
    if yes:
        return True
    if not sys.stdin.isatty():
        print(f"error: refusing to {action} without --yes (no terminal to confirm on)", file=sys.stderr)
        return False
    if input(prompt).strip() != answer:
        print(f"error: {mismatch}; nothing was deleted", file=sys.stderr)
        return False
    return True


def frame_text(df, float_format=None) -> str:
    """A frame as a plain table without its index; a missing cell reads as core.taxonomy's MISSING (never
    NaN, None or <NA>), floats through ``float_format`` when given."""
    from core.taxonomy import MISSING, is_missing

    def cell(v):
        if is_missing(v):
            return MISSING
        return float_format(v) if float_format is not None and isinstance(v, float) else v

    return df.astype(object).map(cell).to_string(index=False)


def dataset_caveat_of(store, dataset: str) -> str | None:
    """The dataset's caveat (core.glossary.dataset_caveat: the synthetic demo's, or that the data are synthetic),
    None for imported data or an unknown name."""
    from core.glossary import dataset_caveat
    from core.reads.queries import list_datasets

    datasets = list_datasets(store)
    info = datasets[datasets["name"] == dataset]
    return dataset_caveat(info.iloc[0].to_dict()) if len(info) else None


def print_frame(df, empty: str) -> None:
    """A frame as :func:`frame_text`, or the line ``empty`` when it has no rows."""
    print(empty if df.empty else frame_text(df))


def add_excerpt_flags(p) -> None:
    """--excerpts / --no-excerpts; neither: report text only for synthetic datasets (core.report.html)."""
    add_flag_pair(p, "excerpts",
                  ("--excerpts", True, "include report text (the default only for synthetic datasets: an imported "
                                       "dataset's reports may be credentialed or identifiable)"),
                  ("--no-excerpts", False, "leave report text out (error explanations stay)"))


def excerpt_flag(excerpts: bool | None) -> list[str]:
    return [] if excerpts is None else ["--excerpts"] if excerpts else ["--no-excerpts"]


# -- names checked before a command runs (did-you-mean) ------------------------------------------------

# Commands whose --dataset may name a dataset that does not exist yet (they make it), or only filters a list.
_NEW_DATASET = frozenset({"demo", "import-pairs", "import-preset", "import-review", "jobs"})
# Commands naming judges already run on the dataset: the argument names (``--a rules:ec_sig`` is a judge:metric).
_RUN_JUDGES = {"summary": ("judge",), "compare": ("a", "b")}
# Commands that start a judge by name: a bare name near an offline judge's is a typo, not a model.
_STARTS_JUDGE = frozenset({"judge", "score", "review-judge"})


def check_names(args) -> None:
    """``ValueError`` with a did-you-mean (core.reads.names) for a dataset or judge name that is not there:
    ``dataset 'dmeo' not found; did you mean 'demo'? (datasets: demo, demo-review)``."""
    command = getattr(args, "command", None)
    judge = getattr(args, "judge", None)
    if command in _STARTS_JUDGE and isinstance(judge, str) and "/" not in judge and ":" not in judge:
        from core.judges.registry import OFFLINE_JUDGES

        close = names.close_names(judge, OFFLINE_JUDGES)
        if judge not in OFFLINE_JUDGES and close:
            raise ValueError(f"judge '{judge}' is not an offline judge{names.did_you_mean(judge, OFFLINE_JUDGES)} "
                             f"(offline judges: {', '.join(OFFLINE_JUDGES)}; a model is named with its provider, "
                             f"e.g. openai/{judge})")
    wanted = [(flag, getattr(args, flag, None)) for flag in ("dataset", "shots_dataset")]
    wanted = [(flag, v) for flag, v in wanted if isinstance(v, str) and not (flag == "dataset" and
                                                                             command in _NEW_DATASET)]
    if not wanted and command not in _RUN_JUDGES:
        return
    store = open_store(args)
    for _, dataset in wanted:
        try:
            names.require_dataset(store, dataset)
        except ValueError as exc:
            if command.startswith("import-"):  # an import's refused input: exit 2, as its own checks give
                from core.ingest.importers import ImportValidationError

                raise ImportValidationError([str(exc)]) from None
            raise
    for flag in _RUN_JUDGES.get(command, ()):
        given = getattr(args, flag, None)
        if not isinstance(given, str):
            continue
        if command == "compare" and ":" not in given:
            raise ValueError(f"--{flag} {given}: give JUDGE:METRIC, e.g. rules:ec_sig")
        name = given.rsplit(":", 1)[0] if command == "compare" else given
        known, accepted = names.judge_names(store, args.dataset)
        if name not in accepted:
            raise ValueError(names.not_found("judge", name, known).replace(" not found", f" not run on "
                                                                          f"'{args.dataset}'", 1))
