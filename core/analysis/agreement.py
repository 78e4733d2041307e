"""Agreement between annotators: pairwise Kendall tau and Krippendorff's alpha (the experts' ceiling)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.analysis.correlation import correlation, require_columns
from core.analysis.statistic import ESTIMATE_P_COLUMNS


@dataclass(frozen=True)
class Agreement:
    """Inter-annotator agreement: the ceiling a judge can be expected to reach.

    ``pairwise`` has one row per pair of annotators (``annotator_a,
    annotator_b, n, tau, p, rho, rho_p, r, r_p``); ``alpha`` is Krippendorff's alpha
    over all annotators at level ``method``; ``n_units`` counts pairs rated by
    at least two annotators.
    """

    pairwise: pd.DataFrame
    alpha: float
    method: str
    n_units: int
    n_annotators: int

    @property
    def mean_tau(self) -> float:
        """Mean pairwise Kendall tau-b (NaN pairs left out)."""
        return self.mean("tau")

    def mean(self, stat: str = "tau") -> float:
        """Mean pairwise agreement in ``stat``: ``tau``, ``rho`` or ``r`` (or kendall / spearman / pearson);
        NaN pairs left out."""
        from core.analysis.ceiling import STAT_COLUMNS, stat_key

        col = STAT_COLUMNS[stat_key(stat)][0]
        return float(self.pairwise[col].mean()) if len(self.pairwise) else math.nan


def inter_annotator(annotations: pd.DataFrame, method: str = "interval", *, min_n: int = 3,
                    pair_col: str = "pair_id", annotator_col: str = "annotator",
                    value_col: str = "value") -> Agreement:
    """Pairwise Kendall tau (with Spearman rho and Pearson r) between annotators and Krippendorff's alpha.

    Parameters
    ----------
    annotations : DataFrame
        Long: ``pair_id, annotator, value`` (one value per pair and annotator,
        e.g. :func:`core.reads.targets.annotator_values` for one target). Missing
        values are ignored.
    method : {"interval", "ratio", "ordinal", "nominal"}
        Krippendorff's level of measurement: ``interval`` for scores,
        ``ratio`` (or ``interval``) for error counts.
    min_n : int
        Annotator pairs sharing fewer pairs get NaN tau; fewer units rated twice or more, NaN alpha. The
        expert ceiling of a comparison passes :data:`core.taxonomy.MIN_N`, as for every judge cell.

    Notes
    -----
    ``alpha = 1 - D_o / D_e`` (observed over expected disagreement from the
    coincidence matrix; Krippendorff 2011, "Computing Krippendorff's
    Alpha-Reliability"), computed with the ``krippendorff`` package. Units
    with a single rating do not count. Fewer than two annotators, or no
    variation at all: NaN.
    """
    require_columns(annotations, [pair_col, annotator_col, value_col])
    _check_level(method)
    ann = annotations[[pair_col, annotator_col, value_col]].dropna(subset=[value_col])
    if ann.duplicated([pair_col, annotator_col]).any():
        raise ValueError("an annotator rated a pair more than once; aggregate first")
    wide = ann.pivot(index=pair_col, columns=annotator_col, values=value_col).astype(float)
    names = sorted(wide.columns, key=str)
    return agreement_matrix(wide[names].to_numpy().T, names, method, min_n=min_n)


def _check_level(method: str) -> None:
    if method not in ("interval", "ratio", "ordinal", "nominal"):
        raise ValueError(f"unknown method {method!r}; valid: interval, ratio, ordinal, nominal")


def agreement_matrix(matrix: np.ndarray, names: Sequence[str], method: str = "interval", *,
                     min_n: int = 3) -> Agreement:
    """:func:`inter_annotator` of ratings already laid out annotators x units (NaN: not rated).

    Rows follow ``names``; units in pair order give the same numbers, bit for bit, as the long form
    (units nobody rated change nothing).
    """
    import krippendorff

    _check_level(method)
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != len(names):
        raise ValueError(f"matrix must be annotators x units with {len(names)} rows, got shape {matrix.shape}")
    rows = []
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            res = correlation(matrix[i], matrix[j], min_n=min_n)
            rows.append({"annotator_a": a, "annotator_b": names[j], "n": res["n"],
                         **{col: res[col] for col in ESTIMATE_P_COLUMNS}})
    rated = (~np.isnan(matrix)).sum(0) >= 2
    alpha = math.nan
    values = matrix[:, rated]
    # alpha on at least min_n units, as the pairwise taus (the ceiling passes core.taxonomy.MIN_N)
    if len(names) >= 2 and rated.sum() >= min_n and np.unique(values[~np.isnan(values)]).size > 1:
        alpha = float(krippendorff.alpha(reliability_data=values, level_of_measurement=method))
    pairwise = pd.DataFrame(rows, columns=["annotator_a", "annotator_b", "n", *ESTIMATE_P_COLUMNS])
    return Agreement(pairwise=pairwise, alpha=alpha, method=method, n_units=int(rated.sum()),
                     n_annotators=len(names))
