"""Calibration of judges against experts: error counts (VERT Fig. 2, Fig. 3) and scores.

Pure functions returning tidy frames ready for a line chart with an identity
line: ``judge, x, y, ci_low, ci_high, n`` plus context columns.

* :func:`count_calibration` -- VERT Sec. 5.2, Fig. 2: mean number of clinically
  significant errors a judge detects, per number of errors the experts
  annotated (the paper restricts the range to 1-12 annotated errors).
* :func:`injected_calibration` -- VERT Sec. 5.2, Fig. 3: mean number detected
  per number ``k`` of injected errors (App. F), per injected error type.
* :func:`reliability` -- mean judge score per bin of the expert score.

Confidence intervals
--------------------
Percentile bootstrap of the mean within each cell (judge x bin), ``n_boot``
resamples.  When ``groups`` maps pairs to clusters (e.g. pairs sharing a
reference report), whole clusters are resampled within the cell and the mean
is the ratio of resampled sums (cluster bootstrap); pairs without a group are
their own cluster.  A cell with fewer than two clusters gets NaN bounds: a
single report gives no information on spread.

Every cell draws its resamples with its own seed, derived from
``(seed, judge, cell)`` through :class:`numpy.random.SeedSequence`, so a
judge's intervals do not move when other judges are added or removed.
Resampling itself is :func:`core.analysis.stats.resample_counts`, shared with the
correlation bootstrap.  ``seed`` and ``n_boot`` are recorded in every row.

Missing data follow :mod:`core.analysis.errortypes`: a pair counts only when both the
judge's and the experts' counts are known; the pairs left out are reported in
``n_missing_judge`` / ``n_missing_expert`` (and ``n_outside`` for pairs outside
the chosen bins).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from typing import Literal

import numpy as np
import pandas as pd

from core.analysis.errortypes import align_counts, category_table, significance_label
from core.analysis.scores import CATEGORIES
from core.analysis.stats import resample_counts

__all__ = [
    "bootstrap_mean_ci",
    "count_calibration",
    "injected_calibration",
    "reliability",
    "validate_scores",
]


def _cell_seed(seed: int, *keys: object) -> int:
    """Seed of one cell, derived from ``seed`` and the cell's keys (stable across runs)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    entropy = [int(seed)] + [zlib.crc32(repr(k).encode("utf-8")) for k in keys]
    return int(np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint64)[0])


def bootstrap_mean_ci(
    values: np.ndarray,
    clusters: np.ndarray | None,
    n_boot: int,
    seed: int,
    level: float = 0.95,
) -> tuple[float, float]:
    r"""Percentile bootstrap interval of a mean, optionally resampling clusters.

    Resamples come from :func:`core.analysis.stats.resample_counts` (the project's one
    bootstrap scheme): :math:`G` clusters drawn with replacement, cluster
    :math:`g` drawn :math:`w_g` times, each unit carrying its cluster's
    multiplicity :math:`c_j = w_{g(j)}`.  One resample's mean is
    :math:`\sum_j c_j x_j / \sum_j c_j`; without clusters every value is its
    own cluster (ordinary bootstrap).

    Returns
    -------
    (float, float)
        The ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of the resampled
        means; ``(nan, nan)`` when ``n_boot == 0`` or fewer than two clusters.
    """
    x = np.asarray(values, dtype=float)
    n_clusters = len(x) if clusters is None else pd.Series(clusters).astype(str).nunique()
    if n_boot <= 0 or n_clusters < 2:
        return (float("nan"), float("nan"))
    counts = resample_counts(len(x), clusters, n_boot=n_boot, seed=seed).astype(float)
    means = (counts @ x) / counts.sum(axis=1)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return (float(low), float(high))


def _check_boot(n_boot: int, level: float) -> None:
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ValueError(f"n_boot must be a non-negative integer, got {n_boot!r}")
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")


def _group_lookup(groups: Mapping | pd.Series | pd.DataFrame | None) -> dict | None:
    """``pair_id -> group_id`` from a mapping, a Series indexed by pair, or a frame."""
    if groups is None:
        return None
    if isinstance(groups, pd.DataFrame):
        if not {"pair_id", "group_id"} <= set(groups.columns):
            raise ValueError("groups DataFrame needs columns 'pair_id' and 'group_id'")
        groups = dict(zip(groups["pair_id"], groups["group_id"], strict=True))
    return {str(k): v for k, v in groups.items()}


def _clusters(pair_ids: pd.Series, lookup: Mapping | None) -> np.ndarray | None:
    """Cluster label per pair: its group, or the pair itself when it has none."""
    if lookup is None:
        return None
    return np.array(
        [
            f"g:{lookup[p]}" if p in lookup and not pd.isna(lookup[p]) else f"p:{p}"
            for p in pair_ids.astype(str)
        ],
        dtype=object,
    )


def _cell(
    values: pd.Series,
    pair_ids: pd.Series,
    lookup: Mapping | None,
    n_boot: int,
    seed: int,
    level: float,
) -> dict[str, float]:
    n = len(values)
    if n == 0:
        return {"y": np.nan, "ci_low": np.nan, "ci_high": np.nan, "n": 0}
    low, high = bootstrap_mean_ci(values.to_numpy(dtype=float), _clusters(pair_ids, lookup), n_boot, seed, level)
    return {"y": float(values.mean()), "ci_low": low, "ci_high": high, "n": n}


def _bin_of_count(total: pd.Series) -> pd.Series:
    # Half-up rounding (1.5 -> 2, 2.5 -> 3), not Python's round-half-even.
    return np.floor(total + 0.5).astype(int)


COUNT_COLUMNS = [
    "judge", "x", "y", "ci_low", "ci_high", "n", "expert_mean", "identity", "bias", "significance",
    "n_outside", "n_missing_judge", "n_missing_expert", "n_boot", "seed",
]


def count_calibration(
    judge_counts: pd.DataFrame,
    expert_counts: pd.DataFrame,
    significant: bool | None = True,
    bins: Iterable[int] | None = range(1, 13),
    n_boot: int = 1000,
    seed: int = 0,
    *,
    groups: Mapping | pd.Series | pd.DataFrame | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    r"""Mean detected error count per expert error count (VERT Sec. 5.2, Fig. 2).

    For each report :math:`i` let :math:`H_i = \sum_c h_{i,c}` (experts) and
    :math:`G_i = \sum_c g_{i,c}` (judge) be the error totals over categories
    (a)-(f) of the selected significance.  Reports are binned by
    :math:`b_i = \lfloor H_i + 1/2 \rfloor` (an expert total that is a mean
    over annotators, e.g. 2.5, goes to the nearest integer, halves up) and,
    per judge and bin :math:`b`,

    .. math:: y_b = \frac{1}{n_b} \sum_{i : b_i = b} G_i

    is compared with the identity :math:`y = b`.  The paper restricts Fig. 2
    to reports with 1 to 12 annotated errors "to ensure sufficient
    representation" (the default ``bins``).

    Parameters
    ----------
    judge_counts, expert_counts : DataFrame
        Long counts (:mod:`core.analysis.errortypes`).
    significant : bool or None
        ``True`` as in Fig. 2; ``False`` insignificant; ``None`` both.
    bins : iterable of int or None
        Expert totals to report; reports in other bins are left out and
        counted in ``n_outside``.  ``None`` keeps every observed bin.  Bins
        without reports appear with ``n = 0`` and NaN estimates.
    n_boot, seed : int
        Bootstrap resamples (0 disables the CI) and seed (module docstring).
    groups : mapping, Series or DataFrame, optional
        ``pair_id -> group_id`` for a cluster bootstrap.
    level : float
        Confidence level of the interval.

    Returns
    -------
    DataFrame
        Per judge and bin: ``x`` (bin), ``y`` (mean judge total), ``ci_low``,
        ``ci_high``, ``n`` (reports), ``expert_mean`` (mean :math:`H_i` in the
        bin, equal to ``x`` for integer annotations), ``identity`` (= ``x``),
        ``bias`` (``y - expert_mean``: positive means over-detection),
        ``significance``, ``n_outside``, ``n_missing_judge``,
        ``n_missing_expert``, ``n_boot``, ``seed``.
    """
    _check_boot(n_boot, level)
    _cell_seed(seed)
    lookup = _group_lookup(groups)
    aligned = align_counts(judge_counts, expert_counts, significant)
    totals = (
        aligned.groupby(["judge", "pair_id"], sort=True)[["judge_count", "expert_count"]]
        .sum(min_count=len(CATEGORIES))
        .reset_index()
    )
    known = totals.dropna(subset=["judge_count", "expert_count"]).copy()
    known["x"] = _bin_of_count(known["expert_count"])
    if bins is None:
        bin_values = sorted(known["x"].unique())
    else:
        bin_values = sorted({_check_bin(b) for b in bins})
    judges = sorted(totals["judge"].unique())
    rows = []
    for judge in judges:
        mine = totals[totals["judge"] == judge]
        ok = known[known["judge"] == judge]
        inside = ok[ok["x"].isin(bin_values)]
        context = {
            "judge": judge,
            "significance": significance_label(significant),
            "n_outside": int(len(ok) - len(inside)),
            "n_missing_judge": int((mine["judge_count"].isna() & mine["expert_count"].notna()).sum()),
            "n_missing_expert": int((mine["judge_count"].notna() & mine["expert_count"].isna()).sum()),
            "n_boot": int(n_boot),
            "seed": int(seed),
        }
        for b in bin_values:
            cell = inside[inside["x"] == b]
            stats = _cell(cell["judge_count"], cell["pair_id"], lookup, n_boot, _cell_seed(seed, judge, int(b)), level)
            expert_mean = float(cell["expert_count"].mean()) if len(cell) else np.nan
            rows.append({
                **context, **stats, "x": int(b), "expert_mean": expert_mean, "identity": float(b),
                "bias": stats["y"] - expert_mean,
            })
    if not rows:
        return pd.DataFrame(columns=COUNT_COLUMNS)
    return pd.DataFrame(rows, columns=COUNT_COLUMNS).astype({"n": int})


def _check_bin(b: object) -> int:
    if isinstance(b, bool) or not isinstance(b, (int, np.integer, float, np.floating)) or float(b) != int(b):
        raise ValueError(f"bins must be whole numbers, got {b!r}")
    return int(b)


INJECTED_COLUMNS = [
    "judge", "category", "x", "y", "ci_low", "ci_high", "n", "identity", "bias", "detected",
    "significance", "n_missing_judge", "n_boot", "seed",
]


def _check_injected(injected: pd.DataFrame) -> pd.DataFrame:
    required = ["pair_id", "category", "k"]
    missing = [c for c in required if c not in injected.columns]
    if missing:
        raise ValueError(f"injected: missing columns {missing}; columns are: {list(injected.columns)}")
    out = injected[required].copy()
    out["pair_id"] = out["pair_id"].astype(str)
    bad = sorted(set(out["category"].astype(str)) - set(CATEGORIES))
    if bad or out["category"].isna().any():
        raise ValueError(f"injected: unknown categories {bad or ['<empty>']}; valid: {', '.join(CATEGORIES)}")
    out["category"] = out["category"].astype(str)
    k = pd.to_numeric(out["k"], errors="coerce")
    if k.isna().any() or (k < 0).any() or (k != np.floor(k)).any():
        raise ValueError("injected: k must be a non-negative whole number on every row")
    out["k"] = k.astype(int)
    if out.duplicated(["pair_id", "category"]).any():
        first = out.loc[out.duplicated(["pair_id", "category"], keep=False)].iloc[0]
        raise ValueError(f"injected: duplicate rows for pair_id={first['pair_id']!r}, category={first['category']!r}")
    return out


def injected_calibration(
    judge_counts: pd.DataFrame,
    injected: pd.DataFrame,
    significant: bool | None = True,
    n_boot: int = 1000,
    seed: int = 0,
    *,
    detected: Literal["category", "total"] = "category",
    groups: Mapping | pd.Series | pd.DataFrame | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    r"""Mean detected count per number of injected errors (VERT Sec. 4.2, 5.2, Fig. 3).

    In the injection experiment each reference report receives exactly
    :math:`k \in \{1, 2, 3\}` clinically significant errors of one type --
    (a) false prediction or (b) omission (Sec. 4.2, App. F).  For an injected
    pair :math:`i` of category :math:`c_i`, the judge's detected count is
    :math:`g_{i,c_i}` (``detected="category"``, Fig. 3) or
    :math:`\sum_c g_{i,c}` (``detected="total"``: all errors it reported,
    whatever their category).  Per judge, category and :math:`k`:

    .. math:: y_{c,k} = \frac{1}{n_{c,k}} \sum_{i : c_i = c,\, k_i = k} g_i

    with identity :math:`y = k`.

    Parameters
    ----------
    judge_counts : DataFrame
        Long counts ``pair_id, judge, category, significant, count``.
    injected : DataFrame
        ``pair_id, category, k``; one row per injected (pair, category).
    significant : bool or None
        Which of the judge's counts are compared (``True`` as in Fig. 3).
    n_boot, seed, groups, level
        As in :func:`count_calibration`.
    detected : {"category", "total"}
        Count of the injected category only, or of all categories.

    Returns
    -------
    DataFrame
        Per judge, injected category and ``x`` (= k): ``y``, ``ci_low``,
        ``ci_high``, ``n``, ``identity`` (= k), ``bias`` (``y - k``),
        ``detected``, ``significance``, ``n_missing_judge`` (injected pairs of
        that category without known counts from the judge), ``n_boot``,
        ``seed``.
    """
    if detected not in ("category", "total"):
        raise ValueError(f"detected must be 'category' or 'total', got {detected!r}")
    _check_boot(n_boot, level)
    _cell_seed(seed)
    lookup = _group_lookup(groups)
    inj = _check_injected(injected)
    wide = category_table(judge_counts, significant, by=("judge",), what="judge_counts")
    if detected == "total":
        wide["_detected"] = wide[list(CATEGORIES)].sum(axis=1, min_count=len(CATEGORIES))
    judges = sorted(wide["judge"].unique())
    rows = []
    for judge in judges:
        mine = inj.merge(wide[wide["judge"] == judge], on="pair_id", how="left")
        if detected == "total":
            mine["g"] = mine["_detected"]
        else:
            values = mine[list(CATEGORIES)].to_numpy(dtype=float)
            col = mine["category"].map({c: i for i, c in enumerate(CATEGORIES)}).to_numpy()
            mine["g"] = values[np.arange(len(mine)), col] if len(mine) else np.array([], dtype=float)
        for category in sorted(mine["category"].unique()):
            of_cat = mine[mine["category"] == category]
            n_missing = int(of_cat["g"].isna().sum())
            ok = of_cat.dropna(subset=["g"])
            for k in sorted(of_cat["k"].unique()):
                cell = ok[ok["k"] == k]
                stats = _cell(cell["g"], cell["pair_id"], lookup, n_boot, _cell_seed(seed, judge, category, int(k)), level)
                rows.append({
                    "judge": judge, "category": category, "x": int(k), **stats, "identity": float(k),
                    "bias": stats["y"] - k, "detected": detected, "significance": significance_label(significant),
                    "n_missing_judge": n_missing, "n_boot": int(n_boot), "seed": int(seed),
                })
    if not rows:
        return pd.DataFrame(columns=INJECTED_COLUMNS)
    return pd.DataFrame(rows, columns=INJECTED_COLUMNS).astype({"n": int})


RELIABILITY_COLUMNS = [
    "judge", "metric", "bin", "bin_low", "bin_high", "x", "y", "ci_low", "ci_high", "n", "expert_mean",
    "n_missing_judge", "n_missing_expert", "n_boot", "seed",
]


def validate_scores(judge_scores: pd.DataFrame) -> pd.DataFrame:
    """Validated copy of a long score table ``pair_id, judge, metric, value``.

    Ids become strings, values floats (NaN = unknown); a non-numeric value or
    a duplicate (pair_id, judge, metric) raises ``ValueError``.
    """
    required = ["pair_id", "judge", "metric", "value"]
    missing = [c for c in required if c not in judge_scores.columns]
    if missing:
        raise ValueError(f"judge_scores: missing columns {missing}; columns are: {list(judge_scores.columns)}")
    out = judge_scores[required].copy()
    for col in ("pair_id", "judge", "metric"):
        out[col] = out[col].astype(str)
    value = pd.to_numeric(out["value"], errors="coerce")
    if (value.isna() & out["value"].notna()).any():
        raise ValueError("judge_scores: non-numeric value")
    out["value"] = value.astype(float)
    if out.duplicated(["pair_id", "judge", "metric"]).any():
        first = out.loc[out.duplicated(["pair_id", "judge", "metric"], keep=False)].iloc[0]
        raise ValueError(
            f"judge_scores: duplicate rows for pair_id={first['pair_id']!r}, judge={first['judge']!r}, "
            f"metric={first['metric']!r}"
        )
    return out


def _check_targets(expert_targets: pd.DataFrame) -> pd.DataFrame:
    required = ["pair_id", "target"]
    missing = [c for c in required if c not in expert_targets.columns]
    if missing:
        raise ValueError(f"expert_targets: missing columns {missing}; columns are: {list(expert_targets.columns)}")
    out = expert_targets[required].copy()
    out["pair_id"] = out["pair_id"].astype(str)
    out["target"] = pd.to_numeric(out["target"], errors="coerce").astype(float)
    known = out["target"].dropna()
    if ((known < 0) | (known > 1)).any():
        raise ValueError("expert_targets: target must lie in [0, 1] (normalise 0-5 scores first)")
    if out.duplicated("pair_id").any():
        first = out.loc[out.duplicated("pair_id", keep=False), "pair_id"].iloc[0]
        raise ValueError(f"expert_targets: duplicate rows for pair_id={first!r}; average annotators first")
    return out


def reliability(
    judge_scores: pd.DataFrame,
    expert_targets: pd.DataFrame,
    n_bins: int = 5,
    n_boot: int = 1000,
    seed: int = 0,
    *,
    metrics: Iterable[str] | None = None,
    groups: Mapping | pd.Series | pd.DataFrame | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    r"""Mean judge score per bin of the expert score (reliability diagram).

    The expert target :math:`t_i \in [0, 1]` (e.g. a RaTE-Eval 0-5 score
    divided by 5, VERT Sec. 3 and Fig. 6) is cut into ``n_bins`` equal-width
    bins, :math:`B_i = \min(\lfloor t_i \cdot K \rfloor, K - 1)` (the last bin
    is closed on the right); per judge, metric and bin

    .. math:: y_B = \frac{1}{n_B} \sum_{i : B_i = B} s_i

    where :math:`s_i` is the judge's score.  For a metric on the [0, 1] scale
    a calibrated judge follows :math:`y = x`; count metrics (``ec_sig``) are
    binned the same way but their scale differs and their orientation is
    reversed (see ``core.analysis.scores.METRICS``).

    Parameters
    ----------
    judge_scores : DataFrame
        ``pair_id, judge, metric, value`` (NaN = unknown).
    expert_targets : DataFrame
        ``pair_id, target`` with one target per pair in [0, 1].
    n_bins : int
        Number of equal-width bins on [0, 1].
    n_boot, seed, groups, level
        As in :func:`count_calibration`.
    metrics : iterable of str, optional
        Metrics to keep; default all.

    Returns
    -------
    DataFrame
        Per judge, metric and bin: ``bin`` (0-based), ``bin_low``,
        ``bin_high``, ``x`` (bin midpoint), ``y`` (mean score), ``ci_low``,
        ``ci_high``, ``n``, ``expert_mean`` (mean target in the bin),
        ``n_missing_judge`` (pairs with a target but no known score),
        ``n_missing_expert`` (pairs scored but without a known target),
        ``n_boot``, ``seed``.
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    _check_boot(n_boot, level)
    _cell_seed(seed)
    lookup = _group_lookup(groups)
    scores = validate_scores(judge_scores)
    if metrics is not None:
        scores = scores[scores["metric"].isin([str(m) for m in metrics])]
    targets = _check_targets(expert_targets)
    known_targets = targets.dropna(subset=["target"])
    rows = []
    for (judge, metric), part in scores.groupby(["judge", "metric"], sort=True):
        merged = known_targets.merge(part[["pair_id", "value"]], on="pair_id", how="left")
        n_missing_judge = int(merged["value"].isna().sum())
        scored = part.dropna(subset=["value"])
        n_missing_expert = int((~scored["pair_id"].isin(known_targets["pair_id"])).sum())
        ok = merged.dropna(subset=["value"]).copy()
        # The 1e-9 keeps a target on an edge (3/5 with 5 bins) in the bin it opens.
        ok["bin"] = np.minimum(np.floor(ok["target"] * n_bins + 1e-9), n_bins - 1).astype(int)
        for b in range(n_bins):
            cell = ok[ok["bin"] == b]
            stats = _cell(cell["value"], cell["pair_id"], lookup, n_boot, _cell_seed(seed, judge, metric, b), level)
            rows.append({
                "judge": judge, "metric": metric, "bin": b, "bin_low": b / n_bins,
                "bin_high": (b + 1) / n_bins, "x": (b + 0.5) / n_bins, **stats,
                "expert_mean": float(cell["target"].mean()) if len(cell) else np.nan,
                "n_missing_judge": n_missing_judge, "n_missing_expert": n_missing_expert,
                "n_boot": int(n_boot), "seed": int(seed),
            })
    if not rows:
        return pd.DataFrame(columns=RELIABILITY_COLUMNS)
    return pd.DataFrame(rows, columns=RELIABILITY_COLUMNS).astype({"n": int})
