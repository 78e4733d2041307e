"""Agreement of judges with pairwise expert preferences (GREEN Sec. 3.4.2, 4.3.2, Fig. 6, Table 6).

In GREEN's preference dataset two radiologists chose the better of two
candidate reports for the same case and rated their confidence from 1 to 10;
cases on which they disagreed were treated as "no preference" and excluded
(Sec. 3.4.2).  A metric's accuracy is "how often the expert-preferred report
matched the report that had a higher score from GREEN, a lower summed error
count, ..." (Sec. 4.3.2): the metric's orientation decides which direction
counts as better.  Fig. 6 plots that accuracy against the experts' confidence.

Inputs
------
``prefs``: ``comparison_id``, ``pair_id_a``, ``pair_id_b``, ``preferred``
(``"a"``/``"b"``; empty, ``"tie"``, ``"equal"`` or ``"none"`` = no preference),
``confidence`` (1-10, may be empty).  ``judge_scores``: ``pair_id``, ``judge``,
``metric``, ``value``.

Policies (explicit)
-------------------
* **Ties** (the judge gives both candidates the same score) -- ``ties=``:
  ``"half"`` (default) counts a tie as half correct, the expected accuracy of
  breaking it with a fair coin; ``"exclude"`` drops ties from the denominator;
  ``"wrong"`` counts them as misses, the literal reading of Sec. 4.3.2 (a tie
  has no higher-scored report to match).  ``n_ties`` is always reported.
* **No expert preference**: excluded from every row, counted in
  ``n_no_preference`` (as GREEN excluded disagreements).
* **Missing scores**: a comparison where the judge's value for either
  candidate is unknown is excluded for that judge and metric, counted in
  ``n_missing``.
* **Missing confidence**: the comparison counts in the ``overall`` row only.

Confidence interval: Wilson score interval for a proportion, with
``n_correct + 0.5 * n_ties`` successes under ``ties="half"`` (deterministic,
so no seed; better behaved than a percentile bootstrap for the few
comparisons per confidence level).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

import numpy as np
import pandas as pd
from scipy.stats import norm

from core.analysis.calibration import validate_scores
from core.analysis.scores import METRICS

__all__ = ["preference_accuracy", "wilson_interval"]

_NO_PREFERENCE = {"", "tie", "equal", "none"}

COLUMNS = [
    "judge", "metric", "scope", "confidence", "accuracy", "ci_low", "ci_high", "n", "n_correct",
    "n_wrong", "n_ties", "ties", "higher_is_better", "n_missing", "n_no_preference",
]


def wilson_interval(successes: float, n: float, level: float = 0.95) -> tuple[float, float]:
    r"""Wilson score interval for a proportion :math:`\hat p = k / n`.

    .. math::

        \frac{\hat p + z^2/(2n)}{1 + z^2/n} \pm
        \frac{z}{1 + z^2/n}\sqrt{\frac{\hat p (1 - \hat p)}{n} + \frac{z^2}{4 n^2}}

    with :math:`z` the :math:`(1 + \mathrm{level})/2` normal quantile
    (Wilson 1927).  ``k`` may be fractional (half-counted ties).  ``(nan, nan)``
    when ``n == 0``.
    """
    if n <= 0:
        return (float("nan"), float("nan"))
    z = float(norm.ppf((1.0 + level) / 2.0))
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def _check_prefs(prefs: pd.DataFrame) -> pd.DataFrame:
    required = ["comparison_id", "pair_id_a", "pair_id_b", "preferred", "confidence"]
    missing = [c for c in required if c not in prefs.columns]
    if missing:
        raise ValueError(f"prefs: missing columns {missing}; columns are: {list(prefs.columns)}")
    out = prefs[required].copy()
    for col in ("comparison_id", "pair_id_a", "pair_id_b"):
        if out[col].isna().any():
            raise ValueError(f"prefs: column {col!r} has empty values")
        out[col] = out[col].astype(str)
    if out["comparison_id"].duplicated().any():
        dup = out.loc[out["comparison_id"].duplicated(), "comparison_id"].iloc[0]
        raise ValueError(f"prefs: duplicate comparison_id {dup!r}")
    pref = out["preferred"].map(lambda v: "" if pd.isna(v) else str(v).strip().lower())
    bad = sorted(set(pref) - {"a", "b"} - _NO_PREFERENCE)
    if bad:
        raise ValueError(f"prefs: 'preferred' must be 'a' or 'b' (or empty/'tie' for none), got {bad}")
    out["preferred"] = pref.where(pref.isin(["a", "b"]), None)
    conf = pd.to_numeric(out["confidence"], errors="coerce")
    if (conf.isna() & out["confidence"].notna()).any():
        raise ValueError("prefs: non-numeric confidence")
    if ((conf < 1) | (conf > 10)).any():
        raise ValueError("prefs: confidence must lie in 1-10")
    out["confidence"] = conf.astype(float)
    return out


def _signs(metrics: list[str], orientation: Mapping[str, int | bool] | None) -> dict[str, int]:
    signs = {}
    for m in metrics:
        if orientation is not None and m in orientation:
            value = orientation[m]
            if isinstance(value, bool):
                signs[m] = 1 if value else -1
            elif value in (1, -1):
                signs[m] = int(value)
            else:
                raise ValueError(f"orientation[{m!r}] must be +1, -1 or a bool, got {value!r}")
        elif m in METRICS:
            signs[m] = 1 if METRICS[m].higher_is_better else -1
        else:
            raise ValueError(
                f"no orientation for metric {m!r}: pass orientation={{{m!r}: 1 or -1}}; "
                f"known metrics: {', '.join(METRICS)}"
            )
    return signs


def _summary(outcome: pd.Series, ties: str, level: float) -> dict:
    """Accuracy of a set of comparisons; ``outcome`` is 1 correct, 0 wrong, 0.5 tie."""
    n_correct = int((outcome == 1.0).sum())
    n_wrong = int((outcome == 0.0).sum())
    n_ties = int((outcome == 0.5).sum())
    if ties == "half":
        n, successes = n_correct + n_wrong + n_ties, n_correct + 0.5 * n_ties
    elif ties == "exclude":
        n, successes = n_correct + n_wrong, float(n_correct)
    else:
        n, successes = n_correct + n_wrong + n_ties, float(n_correct)
    low, high = wilson_interval(successes, n, level)
    return {
        "accuracy": successes / n if n else np.nan, "ci_low": low, "ci_high": high, "n": n,
        "n_correct": n_correct, "n_wrong": n_wrong, "n_ties": n_ties,
    }


def preference_accuracy(
    prefs: pd.DataFrame,
    judge_scores: pd.DataFrame,
    orientation: Mapping[str, int | bool] | None = None,
    *,
    ties: Literal["half", "exclude", "wrong"] = "half",
    level: float = 0.95,
) -> pd.DataFrame:
    r"""Accuracy of each judge/metric at picking the expert-preferred candidate.

    For comparison :math:`j` with candidates :math:`a_j, b_j`, expert choice
    :math:`e_j \in \{a, b\}`, judge scores :math:`s` and orientation
    :math:`\sigma = +1` (higher is better) or :math:`-1` (e.g. error counts,
    "a lower summed error count", GREEN Sec. 4.3.2), the judge picks
    :math:`a_j` when :math:`\sigma(s_{a_j} - s_{b_j}) > 0`, :math:`b_j` when
    :math:`< 0`, and ties at 0.  Accuracy is the share of comparisons where
    the pick equals :math:`e_j` (ties per ``ties``, see the module docstring).

    Rows (``scope``): ``overall`` (all comparisons with a preference),
    ``level`` (comparisons whose confidence equals ``confidence``, GREEN
    Fig. 6's x axis) and ``at_least`` (confidence at or above ``confidence``,
    a cumulative reading of Fig. 6 with more comparisons per point).

    Parameters
    ----------
    prefs : DataFrame
        ``comparison_id, pair_id_a, pair_id_b, preferred, confidence``.
    judge_scores : DataFrame
        ``pair_id, judge, metric, value``.
    orientation : mapping, optional
        ``metric -> +1/-1`` (or ``True`` = higher is better).  Metrics not
        given fall back to ``core.analysis.scores.METRICS``; an unknown metric without
        an orientation raises ``ValueError``.
    ties : {"half", "exclude", "wrong"}
        Tie policy.
    level : float
        Confidence level of the Wilson interval.

    Returns
    -------
    DataFrame
        ``judge, metric, scope, confidence`` (NaN for ``overall``),
        ``accuracy, ci_low, ci_high, n`` (comparisons in the denominator),
        ``n_correct, n_wrong, n_ties, ties, higher_is_better``, ``n_missing``
        (comparisons without both scores), ``n_no_preference``.
    """
    if ties not in ("half", "exclude", "wrong"):
        raise ValueError(f"ties must be 'half', 'exclude' or 'wrong', got {ties!r}")
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    comparisons = _check_prefs(prefs)
    n_no_preference = int(comparisons["preferred"].isna().sum())
    decided = comparisons.dropna(subset=["preferred"])
    scores = validate_scores(judge_scores)
    signs = _signs(sorted(scores["metric"].unique()), orientation)
    levels = sorted(decided["confidence"].dropna().unique())
    rows = []
    for (judge, metric), part in scores.groupby(["judge", "metric"], sort=True):
        value = part.set_index("pair_id")["value"]
        s_a = decided["pair_id_a"].map(value)
        s_b = decided["pair_id_b"].map(value)
        known = s_a.notna() & s_b.notna()
        diff = signs[metric] * (s_a[known] - s_b[known])
        pick = np.where(diff > 0, "a", np.where(diff < 0, "b", "tie"))
        outcome = pd.Series(
            np.where(pick == "tie", 0.5, (pick == decided.loc[known, "preferred"].to_numpy()).astype(float)),
            index=diff.index,
        )
        confidence = decided.loc[known, "confidence"]
        context = {
            "judge": judge, "metric": metric, "ties": ties, "higher_is_better": signs[metric] > 0,
            "n_missing": int((~known).sum()), "n_no_preference": n_no_preference,
        }
        rows.append({**context, "scope": "overall", "confidence": np.nan, **_summary(outcome, ties, level)})
        for c in levels:
            rows.append({**context, "scope": "level", "confidence": float(c),
                         **_summary(outcome[confidence == c], ties, level)})
        for c in levels:
            rows.append({**context, "scope": "at_least", "confidence": float(c),
                         **_summary(outcome[confidence >= c], ties, level)})
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    return pd.DataFrame(rows, columns=COLUMNS)
