"""Correlation tables of judges against expert targets, and the one import for every statistic.

Pure functions in the style of pingouin: a long DataFrame plus column names in,
a tidy DataFrame (estimate, n, p, CI, seed) out. No I/O, no Streamlit.

Conventions
-----------
* Kendall's tau-b is the headline statistic, reported as an absolute value
  with a dagger when p >= 0.01 and the best / second-best value per metric in
  bold / underline (VERT study, ``seeds/vert-llm-judges-radiology.txt``,
  Tables 1-3). Spearman's rho and Pearson's r come with it; every estimate has
  a 95% CI: the percentile bootstrap (CREPE, ``seeds/crepe.txt``, Table 5) or,
  for large n or on request, the asymptotic interval (influence values,
  cluster-robust; see :mod:`core.analysis.asymptotic` and docs/STATISTICS.md).
  Every row records its ``ci_method``.
* Orientation is explicit. A metric's direction comes from
  :data:`core.analysis.scores.METRICS` (unknown metric: assumed higher-is-better, and
  the row says so); the target ``score`` is higher-is-better, error counts
  (``sig_errors``, ``total_errors``, ``sig_a`` .. ``total_f``) are
  lower-is-better. The expected sign of the correlation is +1 when both
  directions agree, else -1; ``sign_ok`` flags a correlation the wrong way.
* Missing data: a row whose value or target is NaN or infinite is dropped and
  counted in ``n_missing``; nothing is dropped silently.
* Randomness: every bootstrap takes ``seed`` (``numpy.random.default_rng``)
  and records ``seed`` and ``n_boot`` next to its result. In :func:`correlate`
  the resamples of a group depend only on the seed and the sorted pair ids
  (or cluster ids), so two judges scored on the same pairs see the same
  resamples.
* Clustering: when pairs share a ``group_id`` (several candidates for one
  reference), the bootstrap resamples whole groups (cluster bootstrap; Davison
  & Hinkley 1997, Sec. 3.8; Field & Welsh 2007, JRSS-B 69(3)).

The statistics themselves live in :mod:`core.analysis.correlation` (point estimates),
:mod:`core.analysis.bootstrap` (the vectorized bootstrap and percentile intervals),
:mod:`core.analysis.asymptotic` (influence values, cluster-robust intervals),
:mod:`core.analysis.judgetable` (judge x metric tables) and :mod:`core.analysis.agreement`
(inter-annotator agreement); this module builds the correlation tables from them and is the one
import for callers: every public name of those modules is importable from here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from core.analysis.agreement import Agreement, agreement_matrix, inter_annotator
from core.analysis.asymptotic import asymptotic_ci, influence_interval, influence_values
from core.analysis.bootstrap import (
    CELLS_NS,
    MERGE_NS,
    boot_stats,
    bootstrap_ci,
    bootstrap_distribution,
    bootstrap_indices,
    cluster_codes_of,
    counts_by_pair,
    kendall_kernel,
    percentile_interval,
    resample_counts,
)
from core.analysis.correlation import METHODS, MIN_N, STAT_COLUMNS, check_stats, correlation, require_columns
from core.analysis.judgetable import (
    METRIC_ORDER,
    TABLE_LEGEND,
    JudgeMetricTable,
    judge_metric_table,
    mark_best,
)
from core.analysis.scores import METRICS
from core.analysis.tiedstats import dense_codes

__all__ = [
    "AUTO_BOOTSTRAP_MAX_N",
    "CELLS_NS",
    "CI_CHOICES",
    "MERGE_NS",
    "METHODS",
    "MIN_N",
    "METRIC_ORDER",
    "ROW_COLUMNS",
    "STAT_COLUMNS",
    "TABLE_LEGEND",
    "Agreement",
    "JudgeMetricTable",
    "agreement_matrix",
    "asymptotic_ci",
    "boot_stats",
    "bootstrap_ci",
    "bootstrap_distribution",
    "bootstrap_indices",
    "breakdown",
    "check_stats",
    "ci_method_for",
    "cluster_codes_of",
    "correlate",
    "correlation",
    "counts_by_pair",
    "drop_identical",
    "expected_sign",
    "influence_interval",
    "influence_values",
    "inter_annotator",
    "kendall_kernel",
    "judge_metric_table",
    "mark_best",
    "paired_difference",
    "percentile_interval",
    "require_columns",
    "resample_counts",
    "series_row",
    "target_higher_is_better",
]

#: The columns of a :func:`correlate` row after its group keys (the order of the returned frame).
ROW_COLUMNS: tuple[str, ...] = (
    "target", "n", "n_missing", "n_clusters", "tau", "p", "ci_low", "ci_high", "rho", "rho_p", "rho_ci_low",
    "rho_ci_high", "r", "r_p", "r_ci_low", "r_ci_high", "abs_tau", "abs_rho", "abs_r", "tau_oriented",
    "expected_sign", "orientation_assumed", "sign_ok", "dagger", "too_few", "reason", "seed", "n_boot",
    "n_boot_valid", "level", "resampling", "ci_method")
#: ``ci`` of :func:`correlate` and co.: ``auto`` (by size, :func:`ci_method_for`), or one method forced.
CI_CHOICES: tuple[str, ...] = ("auto", "bootstrap", "asymptotic")
#: ``ci="auto"``: the seeded bootstrap up to this many complete pairs per row, the asymptotic interval above
#: (its cost is O(n log n) per row; the bootstrap's grows with n x resamples). Both cover 93-97% of the
#: time at n = 200 and n = 5,000 in bench/bench_coverage.py.
AUTO_BOOTSTRAP_MAX_N = 5_000
_ERROR_TARGET = re.compile(r"^(sig|total|insig)_[a-z]+$|_errors$")


# --------------------------------------------------------------------------- orientation

def target_higher_is_better(name: str) -> bool | None:
    """Direction of an expert target: True for ``score``, False for error counts, None if unknown.

    Error counts are ``sig_errors``, ``total_errors`` and per category
    ``sig_a`` .. ``total_f`` (``core/reads/targets.py``): fewer errors is better.
    """
    if name == "score":
        return True
    if _ERROR_TARGET.search(name):
        return False
    return None


def expected_sign(metric: str, target_name: str = "score") -> tuple[int, bool]:
    """Expected sign of corr(metric, target) and whether an orientation was assumed.

    +1 when the metric and the target point the same way (both higher-is-better
    or both lower-is-better), else -1. An unknown metric or target is assumed
    higher-is-better; the second value is then True.
    """
    spec = METRICS.get(metric)
    target_up = target_higher_is_better(target_name)
    metric_up = True if spec is None else spec.higher_is_better
    assumed = spec is None or target_up is None
    return (1 if metric_up == (True if target_up is None else target_up) else -1), assumed


# --------------------------------------------------------------------------- tables

def _clusters_of(frame: pd.DataFrame, cluster_col: str | None, pair_col: str) -> np.ndarray | None:
    """Cluster label per row, or None to resample pairs. A pair without a group is its own cluster."""
    if cluster_col is None or cluster_col not in frame.columns:
        return None
    labels = frame[cluster_col].astype(object)
    alone = labels.isna()
    if alone.all():
        return None
    return np.where(alone, "\x00pair:" + frame[pair_col].astype(str), labels.astype(str)).astype(object)


def _complete(frame: pd.DataFrame, value_col: str, target_col: str) -> tuple[pd.DataFrame, int]:
    ok = np.isfinite(frame[value_col].to_numpy(float)) & np.isfinite(frame[target_col].to_numpy(float))
    return frame[ok], int((~ok).sum())


def ci_method_for(ci: str, n: int, clustered: bool, n_boot: int = 1000) -> str:
    """The interval :func:`series_row` computes for ``n`` complete pairs: ``bootstrap``,
    ``bootstrap-cluster``, ``asymptotic``, ``asymptotic-cluster`` or ``none``.

    ``ci="auto"`` takes the bootstrap up to :data:`AUTO_BOOTSTRAP_MAX_N` pairs and the asymptotic interval
    above; ``"bootstrap"`` and ``"asymptotic"`` force one. A bootstrap with ``n_boot=0`` is no interval
    (``none``); the asymptotic interval needs no resamples.
    """
    if ci not in CI_CHOICES:
        raise ValueError(f"unknown ci {ci!r}; valid: {', '.join(CI_CHOICES)}")
    if ci == "asymptotic" or (ci == "auto" and n > AUTO_BOOTSTRAP_MAX_N and n_boot > 0):
        return "asymptotic-cluster" if clustered else "asymptotic"
    if n_boot <= 0:
        return "none"
    return "bootstrap-cluster" if clustered else "bootstrap"


def series_row(row: dict, x: np.ndarray, y: np.ndarray, clusters: np.ndarray | None, n_missing: int, *,
               methods: Sequence[str] = METHODS, n_boot: int = 1000, seed: int = 0, min_n: int = MIN_N,
               target_name: str = "score", level: float = 0.95, counts_cache: dict | None = None,
               cache_key=None, y_codes: tuple[np.ndarray, int] | None = None, ci: str = "bootstrap",
               cluster_codes: tuple[np.ndarray, int] | None = None) -> dict:
    """One row of :func:`correlate` from one series: ``x`` (judge values) and ``y`` (targets) complete and
    in pair order, ``clusters`` the cluster label per pair (or None), ``row`` the group's key columns.

    ``counts_cache`` and ``cache_key`` (identical for series over the same pairs and clusters) let series
    share their resampling counts and cluster codes, ``y_codes`` their targets' codes (:func:`correlation`).
    ``cluster_codes`` (``cluster_codes_of(len(x), clusters)``: codes in sorted label order, and their number)
    may stand in for the labels. ``ci`` chooses the interval (:func:`ci_method_for`). Callers that hold
    their data in another shape (``core.reads.pairmatrix``) get the same rows as :func:`correlate` through here.
    """
    point = correlation(x, y, min_n=min_n, y_codes=y_codes)
    row = dict(row)
    cache = {} if counts_cache is None or cache_key is None else counts_cache
    if cluster_codes is None and clusters is not None:
        if ("cluster codes", cache_key) not in cache:
            cache[("cluster codes", cache_key)] = cluster_codes_of(len(x), clusters)
        cluster_codes = cache[("cluster codes", cache_key)]
    clustered = cluster_codes is not None
    row.update(target=target_name, n=point["n"], n_missing=n_missing,
               n_clusters=cluster_codes[1] if clustered else point["n"])
    method = ci_method_for(ci, point["n"], clustered, n_boot)
    computed = point["reason"] is None and method != "none"
    reps: dict[str, np.ndarray] = {}
    bounds: dict[str, tuple[float, float]] = {}
    if computed and method.startswith("bootstrap"):
        if cache_key not in cache:
            cache[cache_key] = counts_by_pair(len(x), True if clustered else None, n_boot, seed,
                                              cluster_codes if clustered else (None, len(x)))
        reps = boot_stats(x, y, cache[cache_key], methods)
    elif computed:
        codes = cluster_codes if clustered else None
        y_c = y_codes if y_codes is not None and len(y_codes[0]) == len(y) else dense_codes(y)
        phi = influence_values(x, y, methods, codes=(dense_codes(x), y_c))
        for stat in methods:
            lo, hi, _ = influence_interval(phi[stat], codes, point[STAT_COLUMNS[stat][0]], level)
            bounds[stat] = (lo, hi)
    valid = []
    for stat in METHODS:
        est, pcol, ci_col = STAT_COLUMNS[stat]
        row[est] = point[est] if stat in methods else math.nan
        row[pcol] = point[pcol] if stat in methods else math.nan
        lo, hi, nv = (percentile_interval(reps[stat], level) if stat in reps
                      else (*bounds.get(stat, (math.nan, math.nan)), 0))
        row[f"{ci_col}_low"], row[f"{ci_col}_high"] = lo, hi
        if stat in reps:
            valid.append(nv)
    sign, assumed = expected_sign(str(row["metric"]) if "metric" in row else "", target_name)
    tau = row["tau"]
    row.update(abs_tau=abs(tau), abs_rho=abs(row["rho"]), abs_r=abs(row["r"]), tau_oriented=sign * tau,
               expected_sign=sign, orientation_assumed=assumed, sign_ok=bool(sign * tau > 0),
               dagger=not (row["p"] < 0.01), too_few=point["n"] < min_n, reason=point["reason"], seed=seed,
               n_boot=n_boot if method.startswith("bootstrap") else 0, n_boot_valid=min(valid) if valid else 0,
               level=level, resampling="groups" if clustered else "pairs",
               ci_method=method if computed else "none")
    return row


def correlate(data: pd.DataFrame, *, by: Sequence[str] = ("judge", "metric"), methods: Sequence[str] = METHODS,
              n_boot: int = 1000, seed: int = 0, cluster_col: str | None = "group_id", min_n: int = MIN_N,
              target_name: str = "score", level: float = 0.95, value_col: str = "value",
              target_col: str = "target", pair_col: str = "pair_id", ci: str = "bootstrap") -> pd.DataFrame:
    """Correlation of every judge metric with the expert target, with confidence intervals.

    Parameters
    ----------
    data : DataFrame
        Long: one row per (pair, judge, metric) with ``value`` and ``target``.
    by : sequence of str
        One output row per group of these columns.
    methods : subset of ("kendall", "spearman", "pearson")
        Statistics to compute; the columns of the others are NaN.
    n_boot, seed, level
        Bootstrap size, seed (recorded) and CI coverage; ``n_boot=0`` skips CIs.
    cluster_col : str or None
        Resample clusters of this column (e.g. ``group_id``: candidates of one
        reference) when it exists and is not all missing; None resamples pairs.
    min_n : int
        Groups with fewer complete pairs get NaN statistics and ``too_few``.
    target_name : str
        Which target ``target`` holds (``score``, ``sig_errors``, ...): sets
        the expected sign.
    ci : {"bootstrap", "asymptotic", "auto"}
        The intervals: the seeded (cluster) bootstrap, the asymptotic
        (cluster-robust) interval, or by size per row (:func:`ci_method_for`:
        bootstrap up to :data:`AUTO_BOOTSTRAP_MAX_N` complete pairs). The
        default stays the bootstrap for callers that describe their intervals
        as such; ``python -m core correlate`` uses ``auto``.

    Returns
    -------
    DataFrame
        ``by`` columns, then ``target, n, n_missing, n_clusters, tau, p,
        ci_low, ci_high, rho, rho_p, rho_ci_low, rho_ci_high, r, r_p,
        r_ci_low, r_ci_high, abs_tau, abs_rho, abs_r, tau_oriented,
        expected_sign, orientation_assumed, sign_ok, dagger, too_few, reason,
        seed, n_boot, n_boot_valid, level, resampling, ci_method``
        (``n_boot`` is 0 on rows whose interval is asymptotic; ``ci_method``
        is ``none`` where no interval was computed).

    Notes
    -----
    ``abs_tau = |tau|`` as in the VERT tables; ``tau_oriented = expected_sign
    * tau`` is positive when the judge agrees with the experts in the right
    direction. ``sign_ok`` is ``tau_oriented > 0`` (False when tau is 0 or
    NaN). ``dagger`` is ``not p < 0.01`` (VERT Tables 2-3). The p-values are
    scipy's and treat pairs as independent; with clustered pairs the
    cluster-bootstrap CI is the honest uncertainty. A group with a pair id
    twice is an error.
    """
    methods = check_stats(methods)
    require_columns(data, [*by, value_col, target_col, pair_col])
    # pair ids and cluster labels become integer codes once, in sorted order (a sort of the codes within a
    # group is then the sort by pair id, and a group's cluster codes re-densified keep the label order)
    pcodes, pair_ids = pd.factorize(data[pair_col], sort=True)
    work = {"_v": data[value_col].to_numpy(float), "_t": data[target_col].to_numpy(float), "_p": pcodes}
    if cluster_col is not None and cluster_col in data.columns:
        work["_c"], work["_a"] = _cluster_label_codes(data[cluster_col], pcodes, pair_ids)
    # the groups as row numbers (numbered in iteration order), without copying a frame per group
    grouped = pd.DataFrame({f"_by{i}": data[k] for i, k in enumerate(by)}).groupby(
        [f"_by{i}" for i in range(len(by))], sort=True, dropna=False)
    number = grouped.ngroup().to_numpy()
    keys = list(grouped.size().index)
    rows_of = np.argsort(number, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(number, minlength=len(keys)))])
    rows = []
    counts_cache: dict = {}
    for g, key in enumerate(keys):
        key = key if isinstance(key, tuple) else (key,)
        idx = rows_of[bounds[g]:bounds[g + 1]]
        v, t = work["_v"][idx], work["_t"][idx]
        ok = np.isfinite(v) & np.isfinite(t)
        p = work["_p"][idx][ok]
        order = np.argsort(p, kind="stable")
        p = p[order]
        twice = p[1:] == p[:-1]
        if twice.any():
            dupes = [pair_ids[c] for c in dict.fromkeys(p[1:][twice].tolist())][:3]
            raise ValueError(f"group {dict(zip(by, key, strict=True))} has pair ids more than once: {dupes}")
        codes = None
        if "_c" in work and not work["_a"][idx][ok].all():  # some pair has a group: clusters
            labels = work["_c"][idx][ok][order]
            uniq, inverse = np.unique(labels, return_inverse=True)
            codes = (inverse.astype(np.intp), len(uniq))
        ckey = (p.tobytes(), None if codes is None else labels.tobytes())
        rows.append(series_row(dict(zip(by, key, strict=True)), v[ok][order], t[ok][order], None,
                               int((~ok).sum()), methods=methods, n_boot=n_boot, seed=seed, min_n=min_n,
                               target_name=target_name, level=level, counts_cache=counts_cache, cache_key=ckey,
                               ci=ci, cluster_codes=codes))
    return pd.DataFrame(rows, columns=[*by, *ROW_COLUMNS])


def _cluster_label_codes(labels: pd.Series, pcodes: np.ndarray, pair_ids) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the code of its cluster label in sorted label order, and whether it has no group.

    As :func:`_clusters_of`: a pair without a group is its own cluster (``"\x00pair:" + pair id``); labels
    are compared as text.
    """
    gcodes, guniq = pd.factorize(labels)
    alone = gcodes < 0
    names = [str(u) for u in guniq] + ["\x00pair:" + str(pair_ids[c]) for c in np.unique(pcodes[alone])]
    sorted_codes, _ = pd.factorize(pd.Index(names, dtype=object), sort=True)
    out = np.empty(len(labels), dtype=np.intp)
    out[~alone] = sorted_codes[:len(guniq)][gcodes[~alone]]
    if alone.any():
        lone = np.unique(pcodes[alone])
        out[alone] = sorted_codes[len(guniq):][np.searchsorted(lone, pcodes[alone])]
    return out, alone


def breakdown(data: pd.DataFrame, by_facet: str = "modality", *, by: Sequence[str] = ("judge", "metric"),
              missing_label: str = "(missing)", **kwargs) -> pd.DataFrame:
    """:func:`correlate` once per value of a facet (modality, anatomy, system, split).

    Rows whose facet is missing form their own level ``missing_label``, so the
    cells add up to the whole. Every cell carries its own ``n`` (and
    ``too_few`` below ``min_n``). Keyword arguments go to :func:`correlate`.
    """
    require_columns(data, [by_facet])
    facet = data[by_facet].astype(object).where(data[by_facet].notna(), missing_label)
    return correlate(data.assign(**{by_facet: facet}), by=(by_facet, *by), **kwargs)

# --------------------------------------------------------------------------- paired comparison

def paired_difference(data: pd.DataFrame, judge_a: str, judge_b: str, metric_a: str, metric_b: str | None = None,
                      n_boot: int = 1000, seed: int = 0, cluster_col: str | None = "group_id", *,
                      stat: str = "kendall", target_name: str = "score", level: float = 0.95, min_n: int = MIN_N,
                      value_col: str = "value", target_col: str = "target",
                      pair_col: str = "pair_id") -> pd.DataFrame:
    """Is judge A's correlation with the experts higher than judge B's? Paired bootstrap.

    Parameters
    ----------
    data : DataFrame
        The long frame of :func:`correlate`.
    judge_a, judge_b, metric_a, metric_b
        The two (judge, metric) series compared; ``metric_b`` defaults to
        ``metric_a``. Only pairs both scored (finite value and target) count.
    stat : {"kendall", "spearman", "pearson"}
    n_boot, seed, cluster_col, level, min_n
        As in :func:`correlate`.

    Returns
    -------
    DataFrame
        One row: ``judge_a, metric_a, judge_b, metric_b, target, stat, n,
        n_clusters, estimate_a, estimate_b, diff, ci_low, ci_high, p_boot,
        level, seed, n_boot, n_boot_valid, resampling, compared``.

    Notes
    -----
    Estimates are **sign-corrected**: ``s * stat`` with ``s`` the expected
    sign of each (metric, target), so a judge that correlates the wrong way
    scores below zero and loses. ``|tau|`` would rank such a judge by the
    strength of a wrong-way relationship and its replicates fold at zero. When
    both correlations have the expected sign, the two coincide.

    Every resample uses the same pairs (or clusters) for both judges, so the
    difference ``d* = est_a* - est_b*`` keeps their dependence (paired
    bootstrap; Koehn 2004, EMNLP; Efron & Tibshirani 1993, Ch. 16). CI:
    percentile of ``d*``. Two-sided p: ``min(1, 2 min(P0, P1))`` with
    ``P0 = (1 + #{d* <= 0}) / (B + 1)`` and ``P1 = (1 + #{d* >= 0}) / (B + 1)``,
    the smallest level at which the percentile interval excludes 0 (with the
    usual +1 so that p is never 0). Identical judges give ``d* = 0`` and p = 1.
    """
    (stat,) = check_stats(stat)
    metric_b = metric_a if metric_b is None else metric_b
    require_columns(data, ["judge", "metric", value_col, target_col, pair_col])

    def series(judge: str, metric: str) -> pd.DataFrame:
        part, _ = _complete(data[(data["judge"] == judge) & (data["metric"] == metric)], value_col, target_col)
        if part[pair_col].duplicated().any():
            raise ValueError(f"({judge}, {metric}) has pair ids more than once")
        return part

    a = series(judge_a, metric_a)
    b = series(judge_b, metric_b)
    extra = [cluster_col] if cluster_col is not None and cluster_col in data.columns else []
    both = a[[pair_col, value_col, target_col, *extra]].merge(
        b[[pair_col, value_col, target_col]], on=pair_col, suffixes=("_a", "_b")).sort_values(pair_col)
    if not np.array_equal(both[f"{target_col}_a"].to_numpy(float), both[f"{target_col}_b"].to_numpy(float)):
        raise ValueError("the two judges' rows carry different targets for the same pair")
    xa, xb = both[f"{value_col}_a"].to_numpy(float), both[f"{value_col}_b"].to_numpy(float)
    y = both[f"{target_col}_a"].to_numpy(float)
    clusters = _clusters_of(both, cluster_col, pair_col)
    sa, _ = expected_sign(metric_a, target_name)
    sb, _ = expected_sign(metric_b, target_name)
    est = STAT_COLUMNS[stat][0]
    pa, pb = correlation(xa, y, min_n=min_n), correlation(xb, y, min_n=min_n)
    row = {"judge_a": judge_a, "metric_a": metric_a, "judge_b": judge_b, "metric_b": metric_b,
           "target": target_name, "stat": stat, "n": len(y),
           "n_clusters": len(y) if clusters is None else len(set(clusters)),
           "estimate_a": sa * pa[est], "estimate_b": sb * pb[est], "diff": sa * pa[est] - sb * pb[est],
           "ci_low": math.nan, "ci_high": math.nan, "p_boot": math.nan, "level": level, "seed": seed,
           "n_boot": n_boot, "n_boot_valid": 0, "resampling": "pairs" if clusters is None else "groups",
           "compared": "sign-corrected (expected sign x statistic)"}
    if pa["reason"] is None and pb["reason"] is None and n_boot > 0:
        counts = counts_by_pair(len(y), clusters, n_boot, seed)
        d = sa * boot_stats(xa, y, counts, (stat,))[stat] - sb * boot_stats(xb, y, counts, (stat,))[stat]
        d = d[np.isfinite(d)]
        lo, hi, valid = percentile_interval(d, level)
        if valid:
            p = 2 * min((1 + (d <= 0).sum()) / (valid + 1), (1 + (d >= 0).sum()) / (valid + 1))
            row.update(ci_low=lo, ci_high=hi, p_boot=float(min(1.0, p)), n_boot_valid=valid)
    return pd.DataFrame([row])


# --------------------------------------------------------------------------- data helpers

def _normalize_text(text) -> str | None:
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return None
    return re.sub(r"\s+", " ", str(text)).strip()


def drop_identical(pairs_df: pd.DataFrame, reference_col: str = "reference",
                   candidate_col: str = "candidate") -> tuple[pd.DataFrame, int]:
    """Remove pairs whose candidate repeats the reference (CREPE's ReXVal* filter, Sec. 4 / Table 2).

    Texts are compared after collapsing runs of whitespace and stripping the
    ends; case and punctuation count. A missing text is never "identical".

    Returns
    -------
    (DataFrame, int)
        The kept rows (original index) and how many were removed.
    """
    require_columns(pairs_df, [reference_col, candidate_col])
    ref = pairs_df[reference_col].map(_normalize_text)
    cand = pairs_df[candidate_col].map(_normalize_text)
    same = (ref == cand) & ref.notna() & cand.notna()
    return pairs_df[~same.to_numpy()], int(same.sum())
