"""Expert targets per pair, aggregated exactly.

The rule (DESIGN.md, "Expert targets"): aggregate per annotator first (sum
over categories), then average across annotators. Counts are integers, so a
per-annotator sum is an integer and the average is one division of two
integers; scores are normalised to 0-1 per annotator (value / scale_max) and
averaged as exact fractions. Every target is converted to float **once**, at
the end, so two pairs whose targets are equal rationals get bit-identical
floats and rank statistics see their tie. (Averaging float per-category means
first would not: 0.1 + 0.2 != 0.3.)

Targets: ``score`` (0-1, higher is better), ``sig_errors`` (sum of significant
counts), ``total_errors`` (significant + insignificant), and per category
``sig_a`` .. ``sig_f`` and ``total_a`` .. ``total_f`` (lower is better).
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from core.taxonomy import CATEGORIES, MEAN_FIELD

MAIN_TARGETS = ("score", "sig_errors", "total_errors")
CATEGORY_TARGETS = (tuple(f"sig_{c}" for c in CATEGORIES) + tuple(f"insig_{c}" for c in CATEGORIES)
                    + tuple(f"total_{c}" for c in CATEGORIES))
TARGETS = MAIN_TARGETS + CATEGORY_TARGETS
HIGHER_IS_BETTER = {"score": True} | {t: False for t in TARGETS if t != "score"}


MICRO = 10**6  # scores are handled as integer micro-units: 3.3 -> 3_300_000 exactly


def _per_annotator_counts(annotations: pd.DataFrame) -> pd.DataFrame:
    """Integer targets per (pair, annotator): wide, one column per count target."""
    counts = annotations[(annotations["field"] == "error_count") & annotations["category"].isin(CATEGORIES)]
    if counts.empty:
        return pd.DataFrame()
    counts = counts.assign(n=counts["value"].round().astype("int64"),
                           sig=counts["significant"].fillna(False).astype(bool))
    total = counts.pivot_table(index=["pair_id", "annotator"], columns="category", values="n",
                               aggfunc="sum", fill_value=0)
    sig = counts[counts["sig"]].pivot_table(index=["pair_id", "annotator"], columns="category", values="n",
                                            aggfunc="sum", fill_value=0)
    sig = sig.reindex(index=total.index, columns=list(CATEGORIES), fill_value=0)
    total = total.reindex(columns=list(CATEGORIES), fill_value=0)
    insig = total - sig  # integers: exact
    wide = pd.concat([sig.add_prefix("sig_"), insig.add_prefix("insig_"), total.add_prefix("total_")],
                     axis=1).astype("int64")
    wide["sig_errors"] = sig.sum(axis=1).astype("int64")
    wide["total_errors"] = total.sum(axis=1).astype("int64")
    wide.columns.name = None
    return wide


def annotator_values(annotations: pd.DataFrame) -> pd.DataFrame:
    """Per (pair, annotator) target values, long: pair_id, annotator, target, value (float).

    Counts are integers; a score is value / scale_max (one division). Used for
    inter-annotator agreement; :func:`expert_targets` averages exactly.
    """
    parts = []
    wide = _per_annotator_counts(annotations)
    if not wide.empty:
        long = wide.reset_index().melt(id_vars=["pair_id", "annotator"], var_name="target", value_name="value")
        parts.append(long.assign(value=long["value"].astype(float)))
    scores = annotations[annotations["field"] == "score"]
    if not scores.empty:
        scale = scores["scale_max"].astype(float).fillna(1.0)
        parts.append(pd.DataFrame({"pair_id": scores["pair_id"], "annotator": scores["annotator"],
                                   "target": "score", "value": scores["value"].astype(float) / scale}))
    if not parts:
        return pd.DataFrame(columns=["pair_id", "annotator", "target", "value"])
    return pd.concat(parts, ignore_index=True)


def expert_targets(annotations: pd.DataFrame, annotators: list[str] | None = None) -> pd.DataFrame:
    """Targets per pair: the mean over annotators of each annotator's exact value.

    Counts: (sum over annotators of their integer totals) / (number of
    annotators), one division. Scores: per annotator value / scale_max,
    averaged as (sum of integer micro-units) / (n x scale in micro-units) when
    the annotators of a pair share a scale (one division), else with exact
    fractions. Returns pair_id, target, value (float), n_annotators.
    """
    if annotators is not None:
        annotations = annotations[annotations["annotator"].isin(annotators)]
    parts = []
    wide = _per_annotator_counts(annotations)
    if not wide.empty:
        g = wide.groupby(level="pair_id")
        sums, n = g.sum(), g.size()
        long = sums.reset_index().melt(id_vars="pair_id", var_name="target", value_name="total")
        long["n_annotators"] = long["pair_id"].map(n).astype("int64")
        long["value"] = long["total"].to_numpy(dtype="int64") / long["n_annotators"].to_numpy(dtype="int64")
        parts.append(long[["pair_id", "target", "value", "n_annotators"]])
    scores = annotations[annotations["field"] == "score"]
    if not scores.empty:
        sc = pd.DataFrame({
            "pair_id": scores["pair_id"].to_numpy(),
            "v": (scores["value"].astype(float) * MICRO).round().astype("int64").to_numpy(),
            "s": (scores["scale_max"].astype(float).fillna(1.0) * MICRO).round().astype("int64").to_numpy(),
        })
        g = sc.groupby("pair_id")
        agg = pd.DataFrame({"v": g["v"].sum(), "n": g.size(), "smin": g["s"].min(), "smax": g["s"].max()})
        uniform = agg["smin"] == agg["smax"]
        value = agg["v"].to_numpy(dtype="int64") / (agg["n"].to_numpy(dtype="int64") * agg["smin"].to_numpy(dtype="int64"))
        out = pd.DataFrame({"pair_id": agg.index, "target": "score", "value": value, "n_annotators": agg["n"].to_numpy()})
        if not uniform.all():  # mixed scales for one pair: exact fractions, converted once
            mixed = set(agg.index[~uniform])
            exact = {pid: float(sum((Fraction(int(v), int(s)) for v, s in zip(grp["v"], grp["s"], strict=True)),
                                    Fraction(0)) / len(grp))
                     for pid, grp in sc[sc["pair_id"].isin(mixed)].groupby("pair_id")}
            out.loc[out["pair_id"].isin(mixed), "value"] = out.loc[out["pair_id"].isin(mixed), "pair_id"].map(exact)
        parts.append(out)
    aggregated = _aggregate_targets(annotations)
    if not aggregated.empty:  # a published mean only where no single rater's counts are selected (never both)
        have = set(zip(parts[0]["pair_id"], parts[0]["target"], strict=True)) if not wide.empty else set()
        keep = [(p, t) not in have for p, t in zip(aggregated["pair_id"], aggregated["target"], strict=True)]
        parts.append(aggregated[keep])
    if not parts:
        return pd.DataFrame(columns=["pair_id", "target", "value", "n_annotators"])
    return pd.concat(parts, ignore_index=True).sort_values(["pair_id", "target"], ignore_index=True)


# MEAN_FIELD rows (core/ingest/aggregates.py): value = whole total k over scale_max = N raters


def _aggregate_targets(annotations: pd.DataFrame) -> pd.DataFrame:
    """sig_errors / total_errors from published per-pair means: sum(k) / sum(N), one division."""
    agg = annotations[annotations["field"] == MEAN_FIELD]
    if agg.empty:
        return pd.DataFrame(columns=["pair_id", "target", "value", "n_annotators"])
    missing = agg["significant"].isna().to_numpy()
    significant = agg["significant"].fillna(False).astype(bool).to_numpy() & ~missing
    out = []
    for target, rows in (("sig_errors", agg[significant]), ("total_errors", agg[missing])):
        if rows.empty:
            continue
        g = rows.assign(k=rows["value"].round().astype("int64"), n=rows["scale_max"].round().astype("int64"))
        g = g.groupby("pair_id")[["k", "n"]].sum()
        out.append(pd.DataFrame({"pair_id": g.index, "target": target,
                                 "value": g["k"].to_numpy(dtype="int64") / g["n"].to_numpy(dtype="int64"),
                                 "n_annotators": g["n"].to_numpy(dtype="int64")}))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(
        columns=["pair_id", "target", "value", "n_annotators"])


def load_annotations(store, dataset: str) -> pd.DataFrame:
    return store.query_df(
        "SELECT a.pair_id, a.annotator, a.field, a.category, a.significant, a.value, a.scale_max "
        "FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ?", [dataset])


def resolve_target(store, dataset: str, target: str | None) -> str:
    """``target`` if the dataset has it, else a clear error; ``None``: what the dataset has (score first)."""
    main = main_targets_present(store, dataset)
    present = main + (list(CATEGORY_TARGETS) if "sig_errors" in main else [])
    if not present:
        if store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]) == 0:
            raise ValueError(f"dataset '{dataset}' not found")
        raise ValueError(f"dataset '{dataset}' has no expert annotations yet; import scores or error counts "
                         "(import-annotations) first")
    if target is None:
        return present[0]
    if target not in TARGETS:
        raise ValueError(f"'{target}' is not a target; targets: {', '.join(TARGETS)}")
    if target not in present:
        raise ValueError(f"dataset '{dataset}' has no '{target}' target; its targets are {', '.join(main)}"
                         + (" and the per-category counts (sig_a ... total_f)" if len(present) > len(main) else ""))
    return target


TARGET_HELP = "expert target (default: what the dataset has, score first, else sig_errors)"


def dataset_targets(store, dataset: str, annotators: list[str] | None = None) -> pd.DataFrame:
    """:func:`expert_targets` for one dataset of the store."""
    return expert_targets(load_annotations(store, dataset), annotators)


# -- the same targets in SQL (one target of one dataset, for large stores) --------------------------
# Bit-identical to :func:`expert_targets`: counts are rounded half-to-even to integers (as
# ``Series.round()``) and summed as integers, scores become integer micro-units the same way, and
# each value is one division of two integers converted to DOUBLE, as numpy divides int64 arrays.
# Pairs whose annotators use different score scales get NULL here; :func:`mixed_scale_targets`
# fills them from exact fractions, as :func:`expert_targets` does.

_ROUND = "CAST(round_even({x}, 0) AS BIGINT)"
_SCALE = "CASE WHEN a.scale_max IS NULL OR isnan(a.scale_max) THEN 1.0::DOUBLE ELSE a.scale_max END"


def _count_condition(target: str) -> str:
    sig = "coalesce(a.significant, FALSE)"
    if target == "sig_errors":
        return sig
    if target == "total_errors":
        return "TRUE"
    kind, cat = target.split("_", 1)
    where = f"a.category = '{cat}'"  # cat is one of CATEGORIES (checked by the caller)
    return {"sig": f"{sig} AND {where}", "insig": f"NOT {sig} AND {where}", "total": where}[kind]


def target_sql(target: str, dataset: str, annotators: list[str] | None = None) -> tuple[str, list]:
    """A query of ``pair_id, target, mixed`` for one target of one dataset, and its parameters.

    ``mixed`` is true for score targets whose annotators
    use different scales (``target`` is NULL there; see :func:`mixed_scale_targets`).
    """
    if target not in TARGETS:
        raise ValueError(f"target '{target}' unknown; targets are: {', '.join(TARGETS)}")
    who = "" if annotators is None else " AND a.annotator IN (SELECT unnest(?::VARCHAR[]))"
    params: list = [] if annotators is None else [[str(a) for a in annotators]]
    if target == "score":
        micro = _ROUND.format(x=f"a.value * {MICRO}")
        scale = _ROUND.format(x=f"({_SCALE}) * {MICRO}")
        sql = (f"SELECT pair_id, CASE WHEN min(s) = max(s) THEN CAST(sum(v) AS DOUBLE) / "
               f"CAST(count(*) * min(s) AS DOUBLE) END AS target, min(s) <> max(s) AS mixed FROM ("
               f"SELECT a.pair_id, {micro} AS v, {scale} AS s FROM annotations a JOIN pairs p USING (pair_id) "
               f"WHERE p.dataset = ? AND a.field = 'score'{who}) GROUP BY pair_id")
        return sql, [dataset, *params]
    cats = ", ".join(f"'{c}'" for c in CATEGORIES)
    n = _ROUND.format(x="a.value")
    sql = (f"SELECT a.pair_id, CAST(sum(CASE WHEN {_count_condition(target)} THEN {n} ELSE 0 END) AS DOUBLE) / "
           f"CAST(count(DISTINCT a.annotator) AS DOUBLE) AS target, FALSE AS mixed "
           f"FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ? AND a.field = 'error_count' "
           f"AND a.category IN ({cats}){who} GROUP BY a.pair_id")
    if target in ("sig_errors", "total_errors"):  # published per-pair means where no single rater counted
        which = "a.significant" if target == "sig_errors" else "a.significant IS NULL"
        k, big_n = _ROUND.format(x="a.value"), _ROUND.format(x="a.scale_max")
        mean = (f"SELECT a.pair_id, CAST(sum({k}) AS DOUBLE) / CAST(sum({big_n}) AS DOUBLE) AS target, FALSE AS mixed "
                f"FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ? AND a.field = "
                f"'{MEAN_FIELD}' AND {which}{who} GROUP BY a.pair_id")
        sql = f"WITH single AS ({sql}) SELECT * FROM single UNION ALL SELECT * FROM ({mean}) m " \
              f"WHERE m.pair_id NOT IN (SELECT pair_id FROM single)"
        return sql, [dataset, *params, dataset, *params]
    return sql, [dataset, *params]


def mixed_scale_targets(conn, dataset: str, pair_ids: list[str], annotators: list[str] | None = None) -> dict:
    """Exact score targets of pairs whose annotators use different scales (rare): pair_id -> float."""
    if not pair_ids:
        return {}
    who = "" if annotators is None else " AND annotator IN (SELECT unnest(?::VARCHAR[]))"
    rows = conn.execute(
        "SELECT pair_id, annotator, field, category, significant, value, scale_max FROM annotations "
        f"WHERE field = 'score' AND pair_id IN (SELECT unnest(?::VARCHAR[])){who}",
        [list(pair_ids)] + ([] if annotators is None else [[str(a) for a in annotators]])).df()
    exact = expert_targets(rows)
    return dict(zip(exact["pair_id"], exact["value"], strict=True))


def annotator_target_sql(target: str, dataset: str, *, ordered: bool = True) -> tuple[str, list]:
    """:func:`annotator_values` of one target in SQL: ``pair_id, annotator, value`` (float), ordered by
    pair and annotator unless ``ordered=False``."""
    if target not in TARGETS:
        raise ValueError(f"target '{target}' unknown; targets are: {', '.join(TARGETS)}")
    order = " ORDER BY a.pair_id, a.annotator" if ordered else ""
    if target == "score":
        return ("SELECT a.pair_id, a.annotator, a.value / (" + _SCALE + ") AS value FROM annotations a "
                "JOIN pairs p USING (pair_id) WHERE p.dataset = ? AND a.field = 'score'" + order), [dataset]
    cats = ", ".join(f"'{c}'" for c in CATEGORIES)
    n = _ROUND.format(x="a.value")
    return (f"SELECT a.pair_id, a.annotator, CAST(sum(CASE WHEN {_count_condition(target)} THEN {n} ELSE 0 END) "
            f"AS DOUBLE) AS value FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ? "
            f"AND a.field = 'error_count' AND a.category IN ({cats}) GROUP BY a.pair_id, a.annotator" + order), [dataset]


def annotator_target_values(store, dataset: str, target: str) -> pd.DataFrame:
    """Per (pair, annotator) values of one target (inter-annotator agreement), read in SQL."""
    sql, params = annotator_target_sql(target, dataset)
    return store.query_df(sql, params)


def main_targets_present(store, dataset: str) -> list[str]:
    """Which of :data:`MAIN_TARGETS` the dataset's annotations can give."""
    cats = ", ".join(f"'{c}'" for c in CATEGORIES)
    score, counts = store.query_one(
        "SELECT bool_or(a.field = 'score'), bool_or(a.field = 'error_count' AND a.category IN (" + cats + ") "
        f"OR a.field = '{MEAN_FIELD}') "
        "FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ?", [dataset])
    return [t for t, ok in (("score", score), ("sig_errors", counts), ("total_errors", counts)) if ok]
