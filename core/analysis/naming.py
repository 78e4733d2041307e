"""What a judge's metric is called wherever it is shown: one rule, ``(judge, metric) -> display name``.

Pages, the CLI, the HTML report, the LaTeX/Markdown/CSV tables and the figures all name a judge's metric
with :func:`display_name` (a table column shared by several judges with :func:`column_name`, which calls
it). Only the words shown change: the stored keys (``green``, ``ec_sig``, ...) stay as they are in the
store, in ``--json`` output and in CSV key columns, so cached results and imports keep working.

The rule: a score computed by a formula over error counts (GREEN, GREEN-F1, Formula, GREEN-EC) carries
the name of the paper's judge only when that judge counted the errors (a model answering the GREEN or
VERT prompt, or GREEN text imported from the GREEN model). When the counts come from code (the offline
``rules`` judge), the name says so: the GREEN formula over the rules judge's counts is
"GREEN formula (rules counts)", not "GREEN", which would read as if the GREEN model had run. Every other
metric keeps its label (:func:`core.analysis.scores.metric_label`).
"""

from __future__ import annotations

from collections.abc import Iterable

from core.analysis.scores import metric_label

#: Judges whose error counts come from code, not from a model (core.judges.registry's offline judges that
#: write GREEN-format counts; tests/analysis/test_naming.py checks the registry against this).
COUNTED_BY_CODE: frozenset[str] = frozenset({"rules"})

#: The count formulas, named for what they compute rather than for the model they come from.
FORMULA_NAMES: dict[str, str] = {
    "green": "GREEN formula",
    "green_f1": "GREEN-F1 formula",
    "formula": "Formula score",
    "ec_sig": "Significant errors",
    "ec_total": "All errors",
}


def display_name(judge: str | None, metric: str, *, with_judge: bool = False) -> str:
    """The name shown for ``metric`` as computed by ``judge``.

    ``judge=None`` names the metric over several judges' counts (a table column shared by a model and the
    rules judge): the formula's name, e.g. "GREEN formula". ``with_judge=True`` names the series, judge
    included ("gpt-4o · GREEN"; the rules judge's names already say whose counts they are).
    """
    if metric in FORMULA_NAMES and (judge is None or judge in COUNTED_BY_CODE):
        return FORMULA_NAMES[metric] + (f" ({judge} counts)" if judge is not None else "")
    label = metric_label(metric)
    return f"{judge} · {label}" if with_judge and judge else label


def column_name(metric: str, judges: Iterable[str]) -> str:
    """A table column's header: the name every judge in the column shares, else the judge-free name."""
    names = {display_name(j, metric) for j in judges}
    return names.pop() if len(names) == 1 else display_name(None, metric)
