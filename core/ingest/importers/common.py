"""What every importer shares: the error and report types, column roles, limits, progress and problem lists."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

ImportProgress = Callable[[int, int, str], None]
# No report has a thousand errors of one kind and significance: a larger count is a typo or a
# column mix-up (an id, a timestamp), and would dominate every mean and plot it entered.
MAX_ERROR_COUNT = 1000
DATASET_KINDS = ("score", "error_counts", "preference", "edit_review")
MAX_PROBLEMS_SHOWN = 50
_CHUNK = 20_000  # rows per progress tick when writing large files


class ImportValidationError(ValueError):
    """The input cannot be imported; ``problems`` says every reason found."""

    def __init__(self, problems: list[str]):
        self.problems = sort_problems(problems)
        shown = self.problems[:5]
        more = len(self.problems) - len(shown)
        text = "; ".join(shown) + (f"; and {more} more problem(s)" if more > 0 else "")
        super().__init__(text)


@dataclass
class ImportReport:
    dataset: str
    rows: int
    added: int
    skipped: int
    warnings: list[str] = field(default_factory=list)
    run_id: str | None = None

    def to_json(self) -> dict:
        return {
            "dataset": self.dataset,
            "rows": self.rows,
            "added": self.added,
            "skipped": self.skipped,
            "warnings": self.warnings,
            "run_id": self.run_id,
        }


@dataclass(frozen=True)
class PairColumns:
    """Which file column holds each pair field (None: not in the file; ``context``: only the fields given)."""

    id: str
    reference: str
    candidate: str
    group: str | None = None
    system: str | None = None
    modality: str | None = None
    anatomy: str | None = None
    split: str | None = None
    #: Patient context (issue 33): context field (``core.taxonomy.CONTEXT_FIELDS``) -> file column.
    context: dict[str, str] = field(default_factory=dict)


def tick_progress(progress: ImportProgress | None, done: int, total: int, stage: str) -> None:
    """Report ``done`` of ``total`` steps of ``stage`` to ``progress`` (if given)."""
    if progress is not None:
        progress(done, total, stage)


_ROW = re.compile(r"^(?:duplicate .*? on )?(?:rows?|line|record)(?: from)? (\d+)\b")
_MORE = re.compile(r"^\.\.\. \d+ more problem")


def _problem_order(item: tuple[int, str]) -> tuple:
    i, text = item
    if _MORE.match(text):
        return (2, 0, i)
    m = _ROW.match(text)
    return (1, int(m.group(1)), i) if m else (0, 0, i)


def sort_problems(problems: list[str]) -> list[str]:
    """Problems in the file's order: lines about the whole file first (as found), then each row's by
    row number (a duplicate by its first row; checks of one row in the order they ran), and the
    "... more not shown" line last."""
    return [text for _, text in sorted(enumerate(problems), key=_problem_order)]


def limit_problems(problems: list[str]) -> list[str]:
    """The first ``MAX_PROBLEMS_SHOWN`` problems in row order, and a line saying how many more were found."""
    problems = sort_problems(problems)
    if len(problems) > MAX_PROBLEMS_SHOWN:
        extra = len(problems) - MAX_PROBLEMS_SHOWN
        return problems[:MAX_PROBLEMS_SHOWN] + [f"... {extra} more problem(s) not shown"]
    return problems
