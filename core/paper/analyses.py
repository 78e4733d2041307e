"""The other tables of the papers as :class:`~core.paper.tables.PaperTable`: F1 per error type (VERT
App. C), the count calibration (VERT Fig. 2 as numbers), the ensembles (VERT Table 5), preference accuracy
(GREEN Fig. 6 as numbers) and the judges' and systems' leaderboards (LAIas Sec. 6.3).

Each builder takes the frame its command returns (:mod:`core.paper.compute`) and prints it; best and
second best are :func:`core.analysis.stats.mark_best` on the printed values, per column, only where two or
more rows have a value, as in the correlation table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

from core.paper.tables import Cell, PaperTable, count_words, fmt, slug

ENSEMBLE_WORDS = {"best_single": "best single", "average": "average", "linear_regression": "linear regression",
                  "ridge": "ridge"}


def _num(row: pd.Series, col: str | None) -> float:
    if col is None or col not in row or pd.isna(row[col]):
        return math.nan
    return float(row[col])


def wide_cells(long: pd.DataFrame, rows: str, cols: str, value: str, *, decimals: int,
               ci: tuple[str, str] | None = None, n: str | None = None, p: str | None = None,
               mark: bool = True, row_order: Sequence | None = None,
               col_order: Sequence | None = None) -> tuple[list, list, tuple]:
    """Cells of a rows x cols table of ``value`` from a long frame (one row per cell).

    Returns ``(row_keys, col_keys, rows)`` with ``rows`` the ``(label, cells)`` tuples of a PaperTable
    (labels are the row keys as text). A dagger where ``p >= 0.01``; bold / underline from ``mark_best``.
    """
    from core.analysis.stats import mark_best

    if long.duplicated([rows, cols]).any():
        raise ValueError(f"several rows per ({rows}, {cols})")
    marked = mark_best(long, value, cols, decimals) if mark else long.assign(best=False, second=False)
    row_keys = list(row_order) if row_order is not None else list(dict.fromkeys(long[rows]))
    col_keys = list(col_order) if col_order is not None else list(dict.fromkeys(long[cols]))
    index = {(r[rows], r[cols]): r for _, r in marked.iterrows()}
    out = []
    for rk in row_keys:
        cells = []
        for ck in col_keys:
            r = index.get((rk, ck))
            v = math.nan if r is None else _num(r, value)
            count = None if r is None or n is None or pd.isna(r.get(n)) else int(r[n])
            if math.isnan(v):
                cells.append(Cell(text="–", n=count))
                continue
            low, high = (_num(r, ci[0]), _num(r, ci[1])) if ci else (math.nan, math.nan)
            has_ci = not (math.isnan(low) or math.isnan(high))
            cells.append(Cell(text=fmt(v, decimals), value=v, bold=bool(r["best"]), underline=bool(r["second"]),
                              dagger=p is not None and not _num(r, p) < 0.01,
                              ci=(fmt(low, decimals), fmt(high, decimals)) if has_ci else None,
                              ci_value=(low, high) if has_ci else None, n=count))
        out.append((str(rk), tuple(cells)))
    return row_keys, col_keys, tuple(out)


def _boot_words(frame: pd.DataFrame, unit: str = "reference groups") -> str:
    if frame.empty or "n_boot" not in frame or int(frame["n_boot"].max()) == 0:
        return "no confidence intervals (no resampling)"
    groups = sorted({int(g) for g in frame.get("n_groups", pd.Series(dtype=float)).dropna()})
    of = f" of {'/'.join(f'{g:,}' for g in groups)} {unit}" if groups else ""
    return (f"95% CIs: percentile bootstrap, {int(frame['n_boot'].max()):,} resamples{of}, "
            f"seed {int(frame['seed'].iloc[0])}")


def _marks_sentence(what: str = "column") -> str:
    return (f"Bold best and underlined second best per {what} (on the printed values), only where two or more "
            "rows have a value.")


def errortype_table(f1: pd.DataFrame, *, dataset: str, synthetic: bool, raters: str, decimals: int = 3,
                    with_ci: bool = False, with_n: bool = False) -> PaperTable:
    """F1 per error category (VERT App. C): judges x categories a-f and all."""
    from core.taxonomy import CATEGORIES, CATEGORY_NAMES

    order = [c for c in (*CATEGORIES, "all") if c in set(f1["category"])]
    _, cols, rows = wide_cells(f1, "judge", "category", "f1", decimals=decimals, ci=("f1_ci_low", "f1_ci_high"),
                               n="n_pairs", col_order=order)
    sig = str(f1["significance"].iloc[0]) if "significance" in f1 and len(f1) else "significant"
    n_pairs = sorted({int(v) for v in f1["n_pairs"].dropna()})
    caption = (f"F1 of each judge's error detection per category ({sig} errors) on {dataset}"
               + (" (synthetic data)" if synthetic else "") + f", against {raters}: TP, FP and FN summed over "
               f"{'/'.join(f'{n:,}' for n in n_pairs)} reports before dividing (VERT App. C). "
               + (_boot_words(f1) + ". " if with_ci else "") + _marks_sentence()
               + " Categories: " + "; ".join(f"({c}) {CATEGORY_NAMES[c]}" for c in cols if c in CATEGORY_NAMES)
               + ".")
    return PaperTable(name="errortypes-f1", corner="Judge", columns=tuple(f"({c})" if c != "all" else "All"
                                                                          for c in cols),
                      column_keys=tuple(cols), rows=rows, caption=caption, label=f"tab:{slug(dataset)}-f1",
                      with_ci=with_ci, with_n=with_n, across="Category")


def calibration_table(cal: pd.DataFrame, *, dataset: str, synthetic: bool, raters: str, decimals: int = 2,
                      with_ci: bool = False, with_n: bool = False) -> PaperTable:
    """Significant errors a judge detects per expert count (VERT Fig. 2 as numbers): count bins x judges."""
    present = cal[cal["n"] > 0]
    bins = sorted({int(x) for x in present["x"]})
    _, cols, rows = wide_cells(present, "x", "judge", "y", decimals=decimals, ci=("ci_low", "ci_high"), n="n",
                               mark=False, row_order=bins)
    caption = (f"Calibration of error counts on {dataset}" + (" (synthetic data)" if synthetic else "")
               + f": mean number of significant errors each judge reports, per number the experts ({raters}) "
               "found (rows; a perfectly calibrated judge reports the row's count: the identity line of VERT "
               "Fig. 2). " + (_boot_words(cal.assign(n_groups=math.nan)) + " (reference groups resampled). "
                              if with_ci else "")
               + "Bins without reports are left out.")
    return PaperTable(name="calibration-counts", corner="Expert count", columns=tuple(str(c) for c in cols),
                      column_keys=tuple(str(c) for c in cols), rows=rows, caption=caption,
                      label=f"tab:{slug(dataset)}-calibration", with_ci=with_ci, with_n=with_n, across="Judge")


def ensemble_paper_table(result, *, dataset: str, synthetic: bool, raters: str, target: str, decimals: int = 3,
                         with_ci: bool = False, with_n: bool = False) -> PaperTable:
    """VERT Table 5: feature sets x ensembles, tau on the held-out pairs only."""
    from core.analysis.scores import metric_label

    table = result.table[result.table["status"] == "ok"] if "status" in result.table else result.table
    sets = list(dict.fromkeys(table["feature_set"]))
    _, cols, rows = wide_cells(table, "feature_set", "ensemble", "tau", decimals=decimals, ci=("ci_low", "ci_high"),
                               n="n_test", p="p", row_order=sets)
    rows = tuple((metric_label(label), cells) for label, cells in rows)
    n_train = sorted({int(v) for v in table["n_train"]})
    n_test = sorted({int(v) for v in table["n_test"]})
    caption = (f"Ensembles of judge metrics on {dataset}" + (" (synthetic data)" if synthetic else "")
               + f" (VERT Table 5): Kendall's tau-b with the expert target {target} ({raters}) on held-out pairs "
               f"only; fitted on {'/'.join(f'{n:,}' for n in n_train)} train pairs, evaluated on "
               f"{'/'.join(f'{n:,}' for n in n_test)} test pairs ({result.split.rule}; seed {result.split.seed}). "
               + (_boot_words(table) + ". " if with_ci else "") + "† p ≥ 0.01. " + _marks_sentence())
    return PaperTable(name="ensembles", corner="Feature set", columns=tuple(ENSEMBLE_WORDS.get(c, c) for c in cols),
                      column_keys=tuple(cols), rows=rows, caption=caption, label=f"tab:{slug(dataset)}-ensembles",
                      with_ci=with_ci, with_n=with_n, across="Ensemble")


def preference_paper_table(table: pd.DataFrame, used: dict, *, dataset: str, synthetic: bool, decimals: int = 3,
                           with_ci: bool = False, with_n: bool = False) -> PaperTable:
    """GREEN Fig. 6 as a table: accuracy overall and per expert confidence, one row per judge metric."""
    from core.analysis.naming import display_name

    part = table[table["scope"].isin(["overall", "level"])].copy()
    part["column"] = [("overall" if s == "overall" else f"{c:g}") for s, c in zip(part["scope"], part["confidence"],
                                                                                   strict=True)]
    part["series"] = [display_name(j, m, with_judge=True) for j, m in zip(part["judge"], part["metric"], strict=True)]
    overall = part[part["scope"] == "overall"].sort_values("accuracy", ascending=False, kind="stable")
    levels = sorted({float(c) for c in part["confidence"].dropna()})
    cols = ["overall", *(f"{c:g}" for c in levels)]
    _, cols, rows = wide_cells(part, "series", "column", "accuracy", decimals=decimals, ci=("ci_low", "ci_high"),
                               n="n", row_order=list(overall["series"]), col_order=cols)
    sizes = part[part["scope"] == "level"].groupby("column")["n"].max()
    headers = ["Overall", *(f"conf. {c} (n={int(sizes[c]):,})" for c in cols[1:])]
    caption = (f"Preference accuracy on {dataset}" + (" (synthetic data)" if synthetic else "")
               + f" (GREEN Sec. 4.3.2, Fig. 6): how often a judge's score prefers the candidate the expert "
               f"preferred, over {count_words(int(used['n_comparisons']), 'comparison')}"
               + (f" ({'; '.join(used['sources'])})" if used.get("sources") else "")
               + f", overall and by the expert's confidence; a judge scoring both alike counts {used['ties']}. "
               + ("95% Wilson intervals. " if with_ci else "") + _marks_sentence())
    return PaperTable(name="preferences", corner="Judge · metric", columns=tuple(headers), column_keys=tuple(cols),
                      rows=rows, caption=caption, label=f"tab:{slug(dataset)}-preferences", with_ci=with_ci,
                      with_n=with_n, across="Expert confidence")


def leaderboard_paper_table(board: pd.DataFrame, *, dataset: str, synthetic: bool, target: str, raters: str,
                            decimals: int = 3, with_ci: bool = False, with_n: bool = False,
                            cost_text: Callable = str) -> PaperTable:
    """Judges ranked by agreement with the experts, within groups of comparable runs (same pairs)."""
    from core.analysis.naming import display_name

    rows = []
    for _, r in board.iterrows():
        tau = _num(r, "tau_oriented")
        low, high = _num(r, "ci_low"), _num(r, "ci_high")
        has_ci = not (math.isnan(low) or math.isnan(high))
        cells = (Cell(text=str(r["group"])), Cell(text=str(int(r["rank"]))),
                 Cell(text=fmt(tau, decimals) if not math.isnan(tau) else "–", value=tau,
                      dagger=not _num(r, "p") < 0.01, ci=(fmt(low, decimals), fmt(high, decimals)) if has_ci else None,
                      ci_value=(low, high) if has_ci else None, n=int(r["n"])),
                 Cell(text=f"{int(r['n']):,}"), Cell(text=cost_text(r["cost_usd"], bool(r["cost_known"]))))
        label = display_name(str(r["judge"]), str(r["metric"]), with_judge=True)
        rows.append((label, cells))
    groups = board["group"].nunique()
    caption = (f"Judges ranked by agreement with the experts on {dataset}" + (" (synthetic data)" if synthetic else "")
               + f": Kendall's tau-b with the expert target {target} ({raters}), signed so that positive means "
               f"agreement; ranked only within groups of runs scored on the same pairs ({groups} group"
               f"{'s' if groups != 1 else ''}). " + (_boot_words(board.assign(n_groups=math.nan)) + ". "
                                                     if with_ci else "")
               + "† p ≥ 0.01. Cost as recorded by the runs (unknown when a price was missing).")
    return PaperTable(name="leaderboard-judges", corner="Judge · metric", columns=("Group", "Rank", "τ", "n", "Cost"),
                      column_keys=("group", "rank", "tau_oriented", "n", "cost"), rows=tuple(rows), caption=caption,
                      label=f"tab:{slug(dataset)}-leaderboard", with_ci=with_ci, with_n=False)


def systems_paper_table(board: pd.DataFrame, *, dataset: str, synthetic: bool, decimals: int = 3,
                        cost_text: Callable = str) -> PaperTable:
    """Candidate systems ranked by a judge's score within groups of comparable runs (LAIas Sec. 6.3): the
    score, the strict and relaxed pass rates (report checks only), n, cost and latency."""
    from core.analysis.naming import display_name

    def number(value: float, places: int = decimals) -> Cell:
        return Cell(text="–") if pd.isna(value) else Cell(text=fmt(float(value), places), value=float(value))

    rows = []
    for _, r in board.iterrows():
        cells = (Cell(text=str(r["group"])), Cell(text=display_name(str(r["judge"]), str(r["metric"]), with_judge=True)), Cell(text=str(int(r["rank"]))),
                 number(r["score"]), number(r["strict_pass_rate"]), number(r["relaxed_pass_rate"]),
                 Cell(text=f"{int(r['n']):,}", value=float(r["n"])),
                 Cell(text=cost_text(r["cost_usd"], not pd.isna(r["cost_usd"]))),
                 number(r["latency_ms_mean"], 0))
        rows.append((str(r["system"]), cells))
    groups = board["group"].nunique()
    lower = sorted({str(m) for m, hib in zip(board["metric"], board["higher_is_better"], strict=True) if not hib})
    caption = (f"Candidate systems ranked by each judge's score on {dataset}" + (" (synthetic data)" if synthetic else "")
               + f": the mean score over the system's pairs, ranked only within groups of comparable runs (same "
               "dataset version, split, judge kind, model, prompt and hash, generation settings, locale and metric; "
               f"{groups} group{'s' if groups != 1 else ''}), by score, then strict and relaxed pass rate, cost and "
               "latency (LAIas Sec. 6.3). "
               + (f"Lower is better for {', '.join(lower)}. " if lower else "")
               + "Pass rates only for report checks (strict: PASS; relaxed: not FAIL); cost and mean latency per call as recorded by "
               "the runs (unknown when a price was missing).")
    return PaperTable(name="leaderboard-systems", corner="System",
                      columns=("Group", "Judge · metric", "Rank", "Score", "Strict pass", "Relaxed pass", "n", "Cost",
                               "Latency (ms)"),
                      column_keys=("group", "judge_metric", "rank", "score", "strict_pass_rate", "relaxed_pass_rate",
                                   "n", "cost", "latency_ms_mean"),
                      rows=tuple(rows), caption=caption, label=f"tab:{slug(dataset)}-systems")
