"""Error detection per category: F1 (VERT App. C), MAE and accuracy (GREEN Table 4).

Pure functions: long-format DataFrames in, tidy DataFrames out.

Inputs
------
``judge_counts``: one row per (``pair_id``, ``judge``, ``category``, ``significant``)
with a ``count``; ``expert_counts``: the same without ``judge``.  An expert
count may be a mean over annotators (e.g. 1.5); it is used exactly as stored.

Missing-data policy (explicit, shared by every function here)
-------------------------------------------------------------
* A pair is *annotated* when it has at least one row in ``expert_counts`` and
  *judged* by a judge when it has at least one row for that judge, whatever
  the significance of that row.
* Inside an annotated or judged pair, a category/significance row that is
  absent means 0 (long tables often omit zeros).
* A ``NaN`` count among the selected rows makes that side of the pair unknown
  (e.g. a judge answer the parser could not read).
* A pair enters a judge's statistics only when both sides are known.  The
  pairs left out are counted, never dropped silently: ``n_missing_judge``
  (annotated pairs without known counts from the judge) and
  ``n_missing_expert`` (pairs the judge counted but the experts did not).
* A whole pair is left out, not just one category, so every category row of a
  judge (and its ``all`` row) is computed on the same reports.

``significant`` selects the rows compared: ``True`` (clinically significant,
the setting of VERT App. C and GREEN Table 4), ``False`` (insignificant) or
``None`` (both: significant and insignificant counts are added per category
before comparing, i.e. errors of a type regardless of significance).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from core.analysis.scores import CATEGORIES

__all__ = [
    "accuracy_per_category",
    "align_counts",
    "category_table",
    "f1_bootstrap",
    "f1_per_category",
    "mae_per_category",
    "significance_label",
]

#: Label of the row aggregating the six categories.
ALL = "all"

_SIGNIFICANCE_LABELS = {True: "significant", False: "insignificant", None: "both"}


#: The significance choices the CLI and pages offer: "sig" / "insig" / "both" -> the
#: ``significant`` argument of the functions below (None = significant + insignificant).
SIGNIFICANCE_CHOICES: dict[str, bool | None] = {"sig": True, "insig": False, "both": None}

def significance_label(significant: bool | None) -> str:
    """``"significant"``, ``"insignificant"`` or ``"both"`` for the selector value."""
    if significant not in _SIGNIFICANCE_LABELS:
        raise ValueError(f"significant must be True, False or None, got {significant!r}")
    return _SIGNIFICANCE_LABELS[significant]


def _check_counts(df: pd.DataFrame, keys: list[str], what: str) -> pd.DataFrame:
    """Validated copy of a long count table (columns ``keys + pair_id, category, significant, count``)."""
    required = [*keys, "pair_id", "category", "significant", "count"]
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing columns {missing}; columns are: {list(df.columns)}")
    out = df[required].copy()
    for col in [*keys, "pair_id"]:
        if out[col].isna().any():
            raise ValueError(f"{what}: column {col!r} has empty values")
        out[col] = out[col].astype(str)
    bad_cat = sorted(set(out["category"].dropna().astype(str)) - set(CATEGORIES))
    if out["category"].isna().any() or bad_cat:
        raise ValueError(f"{what}: unknown categories {bad_cat or ['<empty>']}; valid: {', '.join(CATEGORIES)}")
    out["category"] = out["category"].astype(str)
    sig = out["significant"]
    if sig.isna().any() or not sig.isin([True, False]).all():
        bad = sig[sig.isna() | ~sig.isin([True, False])].iloc[0]
        raise ValueError(f"{what}: 'significant' must be True or False, got {bad!r}")
    out["significant"] = sig.astype(bool)
    counts = pd.to_numeric(out["count"], errors="coerce")
    not_numeric = counts.isna() & out["count"].notna()
    if not_numeric.any():
        raise ValueError(f"{what}: non-numeric count {out.loc[not_numeric, 'count'].iloc[0]!r}")
    finite = counts.dropna()
    if (finite < 0).any() or not np.isfinite(finite.to_numpy(dtype=float)).all():
        raise ValueError(f"{what}: counts must be finite and non-negative")
    out["count"] = counts.astype(float)
    dup = out.duplicated([*keys, "pair_id", "category", "significant"], keep=False)
    if dup.any():
        first = out.loc[dup].iloc[0]
        where = ", ".join(f"{c}={first[c]!r}" for c in [*keys, "pair_id", "category", "significant"])
        raise ValueError(f"{what}: duplicate rows for {where}; aggregate annotators before calling")
    return out


def category_table(
    counts: pd.DataFrame, significant: bool | None = True, *, by: tuple[str, ...] = (), what: str = "counts"
) -> pd.DataFrame:
    """Wide table of counts per category, one row per pair (and per ``by`` key).

    Parameters
    ----------
    counts : DataFrame
        Long counts: ``*by``, ``pair_id``, ``category`` (a-f), ``significant``
        (bool), ``count`` (non-negative, NaN = unknown).
    significant : bool or None
        Rows to use; ``None`` adds significant and insignificant counts.
    by : tuple of str
        Extra key columns, e.g. ``("judge",)``.

    Returns
    -------
    DataFrame
        Columns ``*by, pair_id, a, ..., f`` (floats).  Every pair with at least
        one row (of any significance) is present; absent categories are 0; a
        pair with a NaN among its selected rows has NaN in every category.
    """
    significance_label(significant)
    keys = list(by)
    df = _check_counts(counts, keys, what)
    index_cols = [*keys, "pair_id"]
    present = df[index_cols].drop_duplicates()
    selected = df if significant is None else df[df["significant"] == significant]
    unknown = selected.loc[selected["count"].isna(), index_cols].drop_duplicates()
    wide = (
        selected.dropna(subset=["count"])
        .pivot_table(index=index_cols, columns="category", values="count", aggfunc="sum")
        .reindex(columns=list(CATEGORIES))
    )
    table = present.merge(wide.reset_index(), on=index_cols, how="left")
    table[list(CATEGORIES)] = table[list(CATEGORIES)].astype(float).fillna(0.0)
    if not unknown.empty:
        is_unknown = table[index_cols].merge(unknown.assign(_u=True), on=index_cols, how="left")["_u"]
        table.loc[is_unknown.fillna(False).to_numpy(dtype=bool), list(CATEGORIES)] = np.nan
    table.columns.name = None
    return table.sort_values(index_cols, kind="stable").reset_index(drop=True)


def align_counts(
    judge_counts: pd.DataFrame, expert_counts: pd.DataFrame, significant: bool | None = True
) -> pd.DataFrame:
    """Judge and expert counts side by side, one row per (judge, pair, category).

    Returns
    -------
    DataFrame
        Columns ``judge, pair_id, category, judge_count, expert_count``.  For
        each judge, the rows cover the union of the annotated pairs and the
        pairs it judged; ``judge_count`` is NaN where the judge's counts are
        unknown or absent, ``expert_count`` likewise (module policy).
    """
    judge_wide = category_table(judge_counts, significant, by=("judge",), what="judge_counts")
    expert_wide = category_table(expert_counts, significant, what="expert_counts")
    cats = list(CATEGORIES)
    judge_long = judge_wide.melt(["judge", "pair_id"], cats, "category", "judge_count")
    expert_long = expert_wide.melt(["pair_id"], cats, "category", "expert_count")
    judges = pd.DataFrame({"judge": pd.Series(sorted(judge_wide["judge"].unique()), dtype=object)})
    expert_per_judge = judges.merge(expert_long, how="cross")
    # Mark presence before merging: a NaN count (unknown) and an absent pair both end as NaN.
    aligned = expert_per_judge.merge(judge_long, on=["judge", "pair_id", "category"], how="outer")
    aligned = aligned[["judge", "pair_id", "category", "judge_count", "expert_count"]]
    return aligned.sort_values(["judge", "pair_id", "category"], kind="stable").reset_index(drop=True)


def _missing_per_judge(aligned: pd.DataFrame) -> pd.DataFrame:
    """``n_pairs``, ``n_missing_judge``, ``n_missing_expert`` per judge."""
    per_pair = pd.DataFrame({
        "judge": aligned["judge"],
        "pair_id": aligned["pair_id"],
        "j": aligned["judge_count"].notna(),
        "e": aligned["expert_count"].notna(),
    }).drop_duplicates(["judge", "pair_id"])  # unknowns are whole-pair: one row per pair suffices
    flags = pd.DataFrame({
        "judge": per_pair["judge"],
        "n_pairs": per_pair["j"] & per_pair["e"],
        "n_missing_judge": ~per_pair["j"] & per_pair["e"],
        "n_missing_expert": per_pair["j"] & ~per_pair["e"],
    })
    return flags.groupby("judge", as_index=False).sum().astype(
        {"n_pairs": int, "n_missing_judge": int, "n_missing_expert": int}
    )


def _complete(aligned: pd.DataFrame) -> pd.DataFrame:
    """Rows whose pair is known on both sides (unknowns are whole-pair, see category_table)."""
    return aligned[aligned["judge_count"].notna() & aligned["expert_count"].notna()]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where den == 0 (VERT App. C: a zero denominator gives 0)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    return np.where(den == 0, 0.0, num / np.where(den == 0, 1.0, den))


def _with_missing(table: pd.DataFrame, aligned: pd.DataFrame, significant: bool | None) -> pd.DataFrame:
    table = table.merge(_missing_per_judge(aligned), on="judge", how="left")
    table["significance"] = significance_label(significant)
    return table


def _category_order(table: pd.DataFrame) -> pd.DataFrame:
    order = {c: i for i, c in enumerate([*CATEGORIES, ALL])}
    return (
        table.assign(_o=table["category"].map(order))
        .sort_values(["judge", "_o"], kind="stable")
        .drop(columns="_o")
        .reset_index(drop=True)
    )


F1_COLUMNS = [
    "judge", "category", "significance", "tp", "fp", "fn", "support", "precision", "recall", "f1",
    "n_pairs", "n_missing_judge", "n_missing_expert",
]


def f1_per_category(
    judge_counts: pd.DataFrame, expert_counts: pd.DataFrame, significant: bool | None = True
) -> pd.DataFrame:
    r"""Count-level precision, recall and F1 per error category (VERT Appendix C).

    For report :math:`i`, category :math:`c`, expert count :math:`h_{i,c}` and
    judge count :math:`g_{i,c}`:

    .. math::

        TP_{i,c} = \min(h_{i,c}, g_{i,c}),\quad
        FP_{i,c} = \max(0, g_{i,c} - h_{i,c}),\quad
        FN_{i,c} = \max(0, h_{i,c} - g_{i,c})

    summed over reports (:math:`TP_c = \sum_i TP_{i,c}`, etc.), then
    :math:`P_c = TP_c / (TP_c + FP_c)`, :math:`R_c = TP_c / (TP_c + FN_c)`,
    :math:`F1_c = 2 P_c R_c / (P_c + R_c)`.  Appendix C: "When a denominator is
    zero, the corresponding score is defined to be 0" -- so a category that
    neither the judge nor the experts ever use has P = R = F1 = 0, not 1.

    The ``all`` row is the micro average: TP, FP, FN summed over the six
    categories, then the same three ratios (the paper reports per-category
    values only: Fig. 4, Table 7).

    Appendix C states :math:`h, g \in \mathbb{N}_0`; an expert count that is a
    mean over annotators (e.g. 1.5) is used as is, giving fractional TP/FP/FN.

    Parameters
    ----------
    judge_counts : DataFrame
        ``pair_id, judge, category, significant, count``.
    expert_counts : DataFrame
        ``pair_id, category, significant, count``.
    significant : bool or None
        ``True`` (App. C setting), ``False`` or ``None`` (both, summed per category).

    Returns
    -------
    DataFrame
        One row per judge and category (a-f, then ``all``): ``tp, fp, fn``,
        ``support`` (= TP + FN, the expert's error total, cf. the "Injected
        errors" row of Table 7), ``precision, recall, f1``, ``n_pairs`` (reports
        used), ``n_missing_judge``, ``n_missing_expert`` (module policy), and
        ``significance``.
    """
    aligned = align_counts(judge_counts, expert_counts, significant)
    data = _complete(aligned)
    g, h = data["judge_count"].to_numpy(), data["expert_count"].to_numpy()
    per = data[["judge", "category"]].assign(
        tp=np.minimum(g, h), fp=np.maximum(g - h, 0.0), fn=np.maximum(h - g, 0.0)
    )
    judges = sorted(aligned["judge"].unique())
    grid = pd.MultiIndex.from_product([judges, list(CATEGORIES)], names=["judge", "category"])
    sums = per.groupby(["judge", "category"])[["tp", "fp", "fn"]].sum().reindex(grid, fill_value=0.0)
    sums = sums.reset_index()
    micro = sums.groupby("judge", as_index=False)[["tp", "fp", "fn"]].sum().assign(category=ALL)
    table = pd.concat([sums, micro], ignore_index=True)
    tp, fp, fn = (table[c].to_numpy(dtype=float) for c in ("tp", "fp", "fn"))
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    table["support"] = tp + fn
    table["precision"], table["recall"] = precision, recall
    table["f1"] = _ratio(2 * precision * recall, precision + recall)
    table = _with_missing(table, aligned, significant)
    return _category_order(table).reindex(columns=F1_COLUMNS)


MAE_COLUMNS = [
    "judge", "category", "significance", "mae", "sd", "mean_judge", "mean_expert",
    "n_pairs", "n_missing_judge", "n_missing_expert",
]


def mae_per_category(
    judge_counts: pd.DataFrame,
    expert_counts: pd.DataFrame,
    significant: bool | None = True,
    *,
    total: Literal["sum_of_abs", "abs_of_sum"] = "sum_of_abs",
) -> pd.DataFrame:
    r"""Mean absolute error of the judge's counts against the experts' (GREEN Table 4).

    Per category :math:`c`: :math:`\mathrm{MAE}_c = \frac{1}{n}\sum_i |g_{i,c} - h_{i,c}|`,
    with the sample standard deviation (``ddof=1``) of the same absolute
    differences (Table 4 reports "MAE ± STD").

    The ``all`` row is Table 4's "Δ Sig. Error" / "Δ Insig. Error" column,
    whose footnote reads "Mean Absolute Error of the sum of Sig. Errors and
    Insig. Errors".  Two readings exist, chosen with ``total``:

    * ``"sum_of_abs"`` (default): per report :math:`\sum_c |g_{i,c} - h_{i,c}|`,
      then mean and SD over reports.  This is what GREEN's public evaluation
      script computes (``inference/run_compare_to_rexval.py`` in
      Stanford-AIMI/GREEN): an error put in the wrong category costs twice.
    * ``"abs_of_sum"``: per report :math:`|\sum_c g_{i,c} - \sum_c h_{i,c}|`,
      the error of the total count whatever the category.

    Parameters
    ----------
    judge_counts, expert_counts : DataFrame
        Long counts (see the module docstring).
    significant : bool or None
        ``True`` for "Δ Sig. Error", ``False`` for "Δ Insig. Error", ``None``
        for both added per category.
    total : {"sum_of_abs", "abs_of_sum"}
        Definition of the ``all`` row.

    Returns
    -------
    DataFrame
        One row per judge and category (a-f, ``all``): ``mae``, ``sd`` (NaN when
        fewer than 2 reports), ``mean_judge``, ``mean_expert`` (mean counts, the
        "Average error count" line of Table 4), ``n_pairs``, ``n_missing_judge``,
        ``n_missing_expert``, ``significance``.
    """
    if total not in ("sum_of_abs", "abs_of_sum"):
        raise ValueError(f"total must be 'sum_of_abs' or 'abs_of_sum', got {total!r}")
    aligned = align_counts(judge_counts, expert_counts, significant)
    data = _complete(aligned).assign(
        abs_diff=lambda d: (d["judge_count"] - d["expert_count"]).abs()
    )
    per_pair = data.groupby(["judge", "pair_id"])[["judge_count", "expert_count", "abs_diff"]].sum()
    if total == "abs_of_sum":
        per_pair["abs_diff"] = (per_pair["judge_count"] - per_pair["expert_count"]).abs()
    per_pair = per_pair.reset_index().assign(category=ALL)
    rows = pd.concat([data, per_pair], ignore_index=True)
    table = rows.groupby(["judge", "category"]).agg(
        mae=("abs_diff", "mean"),
        sd=("abs_diff", lambda s: s.std(ddof=1) if len(s) > 1 else np.nan),
        mean_judge=("judge_count", "mean"),
        mean_expert=("expert_count", "mean"),
    )
    judges = sorted(aligned["judge"].unique())
    grid = pd.MultiIndex.from_product([judges, [*CATEGORIES, ALL]], names=["judge", "category"])
    table = table.reindex(grid).reset_index()
    table = _with_missing(table, aligned, significant)
    return _category_order(table).reindex(columns=MAE_COLUMNS)


ACCURACY_COLUMNS = [
    "judge", "category", "significance", "accuracy", "n_correct", "tolerance",
    "n_pairs", "n_missing_judge", "n_missing_expert",
]


def accuracy_per_category(
    judge_counts: pd.DataFrame,
    expert_counts: pd.DataFrame,
    significant: bool | None = True,
    *,
    tolerance: float = 0.0,
) -> pd.DataFrame:
    r"""Share of reports whose count per category equals the experts' (GREEN Table 4).

    .. math:: \mathrm{Acc}_c = \frac{1}{n}\sum_i \mathbb{1}\left[|g_{i,c} - h_{i,c}| \le t\right]

    Table 4 gives an "Accuracy for each significant error category" against
    the *average* expert without a formula; GREEN's public evaluation script
    (``inference/run_compare_to_rexval.py``) counts a report as correct when
    the absolute difference to the mean expert count is exactly 0.  That is
    the default (``tolerance=0``): a judge can never match a non-integer mean
    such as 1.5, which is part of why Table 4's accuracies for (a) and (b) are
    low.  ``tolerance=0.5`` instead accepts the integers nearest the mean
    (both of them at .5).  A 1e-9 slack absorbs floating-point noise in means.

    The ``all`` row pools every (report, category) cell, i.e. it is the mean
    of the six category accuracies (Table 4 has no such column).

    Returns
    -------
    DataFrame
        One row per judge and category (a-f, ``all``): ``accuracy``,
        ``n_correct`` (for ``all``: correct cells out of ``6 * n_pairs``),
        ``tolerance``, ``n_pairs``, ``n_missing_judge``, ``n_missing_expert``,
        ``significance``.
    """
    tol = float(tolerance)
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tolerance must be finite and non-negative, got {tolerance!r}")
    aligned = align_counts(judge_counts, expert_counts, significant)
    data = _complete(aligned)
    data = data.assign(correct=(data["judge_count"] - data["expert_count"]).abs() <= tol + 1e-9)
    per_cat = data.groupby(["judge", "category"])["correct"].agg(["sum", "mean"])
    pooled = data.groupby("judge")["correct"].agg(["sum", "mean"])
    pooled.index = pd.MultiIndex.from_product([pooled.index, [ALL]], names=["judge", "category"])
    table = pd.concat([per_cat, pooled]).rename(columns={"sum": "n_correct", "mean": "accuracy"})
    judges = sorted(aligned["judge"].unique())
    grid = pd.MultiIndex.from_product([judges, [*CATEGORIES, ALL]], names=["judge", "category"])
    table = table.reindex(grid).reset_index()
    table["n_correct"] = table["n_correct"].fillna(0).astype(int)
    table["tolerance"] = tol
    table = _with_missing(table, aligned, significant)
    return _category_order(table).reindex(columns=ACCURACY_COLUMNS)


F1_CI_COLUMNS = ["precision_ci_low", "precision_ci_high", "recall_ci_low", "recall_ci_high", "f1_ci_low",
                 "f1_ci_high", "n_groups", "n_boot", "n_boot_valid", "seed", "level", "resampling"]


def _undefined_nan(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den == 0 (a bootstrap replicate with nothing to measure)."""
    out = np.full(np.shape(num), np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def f1_bootstrap(judge_counts: pd.DataFrame, expert_counts: pd.DataFrame, significant: bool | None = True, *,
                 groups: pd.DataFrame | None = None, n_boot: int = 1000, seed: int = 0,
                 level: float = 0.95) -> pd.DataFrame:
    r""":func:`f1_per_category` with seeded percentile bootstrap CIs of precision, recall and F1.

    A resample draws *reference groups* with replacement (``groups``: ``pair_id, group_id``; a pair without a
    group is a group of its own), as many as the judge's complete pairs fall in, and a drawn group brings
    all its pairs: candidates of one reference are not independent (the cluster bootstrap of the
    correlations, :mod:`core.analysis.bootstrap`; ``groups=None`` resamples pairs). Each resample sums the
    per-pair TP / FP / FN of the drawn groups (integer multiplicities, summed before any division), then
    :math:`P = TP / (TP + FP)`, :math:`R = TP / (TP + FN)` and :math:`F1 = 2 TP / (2 TP + FP + FN)` (equal to
    2PR / (P + R)). A resample whose denominator is 0 (the category absent from every drawn report, on both
    sides) says nothing about the judge: it is left out of the interval (``n_boot_valid`` counts the rest of
    the F1 replicates), where the point estimate keeps App. C's 0. The interval is the percentile interval of
    the replicates (:func:`core.analysis.bootstrap.percentile_interval`). The draws depend only on the number of
    groups and ``seed``, so a judge's interval is reproducible from (seed, n_boot) alone.

    Returns :func:`f1_per_category`'s table plus :data:`F1_CI_COLUMNS` (``n_groups``: groups resampled;
    ``resampling``: ``groups`` or ``pairs``). ``n_boot = 0`` gives NaN intervals.
    """
    from core.analysis.bootstrap import counts_by_pair, percentile_interval

    table = f1_per_category(judge_counts, expert_counts, significant)
    aligned = _complete(align_counts(judge_counts, expert_counts, significant))
    g, h = aligned["judge_count"].to_numpy(dtype=float), aligned["expert_count"].to_numpy(dtype=float)
    per = aligned[["judge", "pair_id", "category"]].assign(
        tp=np.minimum(g, h), fp=np.maximum(g - h, 0.0), fn=np.maximum(h - g, 0.0))
    group_of = {} if groups is None else dict(zip(groups["pair_id"].astype(str), groups["group_id"], strict=True))
    cats = list(CATEGORIES)
    out = []
    for judge, part in table.groupby("judge", sort=False):
        mine = per[per["judge"] == judge]
        ci = {c: np.full(len(part), np.nan) for c in F1_CI_COLUMNS[:6]}
        pairs = sorted(set(mine["pair_id"]))
        # cluster label per pair: its group, else the pair itself (never merged with a group's name)
        labels = [("g", str(group_of[p])) if p in group_of and pd.notna(group_of[p]) else ("p", p) for p in pairs]
        codes, uniques = pd.factorize(pd.Series([f"{k}\x00{v}" for k, v in labels]), sort=True)
        k = len(uniques)
        valid = np.zeros(len(part), dtype=int)
        if n_boot > 0 and k > 0:
            pos = {p: i for i, p in enumerate(pairs)}
            cat_pos = {c: j for j, c in enumerate(cats)}
            # per group and category: TP, FP, FN summed over the group's pairs (before any division)
            sums = np.zeros((3, k, len(cats)))
            rows = codes[[pos[p] for p in mine["pair_id"]]]
            cols = np.array([cat_pos[c] for c in mine["category"]], dtype=np.intp)
            for i, col in enumerate(("tp", "fp", "fn")):
                np.add.at(sums[i], (rows, cols), mine[col].to_numpy(dtype=float))
            mult = counts_by_pair(k, None, n_boot, seed).astype(np.float64)  # groups x resamples, same draws
            tp, fp, fn = (mult.T @ s for s in sums)  # resamples x categories
            tp, fp, fn = (np.column_stack([m, m.sum(axis=1)]) for m in (tp, fp, fn))  # + the micro "all"
            reps = {"precision": _undefined_nan(tp, tp + fp), "recall": _undefined_nan(tp, tp + fn),
                    "f1": _undefined_nan(2 * tp, 2 * tp + fp + fn)}
            order = [*cats, ALL]
            for j, cat in enumerate(part["category"]):
                c = order.index(cat)
                for name, r in reps.items():
                    lo, hi, used = percentile_interval(r[:, c], level)
                    ci[f"{name}_ci_low"][j], ci[f"{name}_ci_high"][j] = lo, hi
                    if name == "f1":
                        valid[j] = used
        grouped = any(kind == "g" for kind, _ in labels)  # no pair in a group: the groups are the pairs
        part = part.assign(**ci, n_groups=k, n_boot=n_boot, n_boot_valid=valid, seed=seed, level=level,
                           resampling="groups" if grouped else "pairs")
        out.append(part)
    if not out:
        return table.reindex(columns=[*F1_COLUMNS, *F1_CI_COLUMNS])
    return pd.concat(out, ignore_index=True).reindex(columns=[*F1_COLUMNS, *F1_CI_COLUMNS])
