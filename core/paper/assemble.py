"""Every paper table of one dataset from its :class:`~core.paper.compute.Results`, and writing them out."""

from __future__ import annotations

from pathlib import Path

from core.paper.analyses import (
    calibration_table,
    ensemble_paper_table,
    errortype_table,
    leaderboard_paper_table,
    preference_paper_table,
    systems_paper_table,
)
from core.paper.compute import Results
from core.paper.correlations import correlation_table
from core.paper.formats import FORMATS, SUFFIX, render
from core.paper.tables import PaperTable

#: ``tables --table NAME``: the tables by kind, in the order they are written.
TABLE_KINDS = ("correlations", "errortypes", "calibration", "ensembles", "preferences", "leaderboard", "systems")


def all_tables(results: Results) -> dict[str, PaperTable]:
    """Each kind of table the dataset has, built from ``results`` with its settings' decimals, CI and n."""
    from core.reads.runcost import cost_text

    s, ctx = results.settings, results.context
    opts = {"with_ci": s.with_ci, "with_n": s.with_n}
    where = {"dataset": results.dataset, "synthetic": ctx.synthetic}
    out = {"correlations": correlation_table(results.corr, ctx, stat=s.stat, decimals=s.decimals, **opts)}
    if results.f1 is not None:
        out["errortypes"] = errortype_table(results.f1, raters=ctx.raters, decimals=s.decimals, **where, **opts)
    if results.calibration is not None and (results.calibration["n"] > 0).any():
        out["calibration"] = calibration_table(results.calibration, raters=ctx.raters, decimals=max(s.decimals - 1, 0),
                                               **where, **opts)
    if results.ensemble is not None and len(results.ensemble.table):
        out["ensembles"] = ensemble_paper_table(results.ensemble, raters=ctx.raters, target=ctx.target,
                                                decimals=s.decimals, **where, **opts)
    if results.preference is not None and len(results.preference[0]):
        out["preferences"] = preference_paper_table(*results.preference, decimals=s.decimals, **where, **opts)
    if results.leaderboard is not None:
        out["leaderboard"] = leaderboard_paper_table(results.leaderboard, target=ctx.target, raters=ctx.raters,
                                                     decimals=s.decimals, cost_text=cost_text, **where, **opts)
    if results.systems is not None:
        out["systems"] = systems_paper_table(results.systems, decimals=s.decimals, cost_text=cost_text, **where)
    return out


def write_tables(tables: dict[str, PaperTable], out: Path, formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write each table in each format as ``OUT/<name><suffix>``, plus ``OUT/tables.tex``: every LaTeX
    table in one document that compiles on its own. Returns the files written, in order."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables.values():
        for form in formats:
            path = out / f"{table.name}{SUFFIX[form]}"
            path.write_bytes(render(table, form))
            written.append(path)
    if "latex" in formats:
        path = out / "tables.tex"
        path.write_text(tables_document(tables), encoding="utf-8")
        written.append(path)
    return written


def tables_document(tables: dict[str, PaperTable]) -> str:
    """Every table as LaTeX in one document that compiles on its own (``tables.tex``)."""
    from core.paper.latex import standalone, to_latex

    return standalone([to_latex(t) for t in tables.values()])
