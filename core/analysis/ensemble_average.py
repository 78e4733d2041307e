"""The average ensemble (VERT Sec. 4.1.2 "average"): oriented columns, normalised with training statistics
only, then averaged (:func:`average_ensemble`; the rule is in :mod:`core.analysis.ensemble`'s docstring,
which re-exports it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from core.analysis.heldout import higher_is_better

__all__ = ["NORMALIZATIONS", "average_ensemble"]

NORMALIZATIONS: tuple[str, ...] = ("zscore", "minmax", "rank", "none")


def average_ensemble(
    features: pd.DataFrame,
    columns: Sequence[str],
    orientation: bool | Mapping[str, bool] | None = None,
    train_ids: Iterable | None = None,
    normalization: str = "zscore",
    missing: str = "require_all",
) -> pd.Series:
    r"""Average of oriented, normalised columns (VERT Sec. 4.1.2 "average").

    .. math:: \hat q_i = \frac{1}{J} \sum_j \frac{s_j x_{ij} - \mu_j}{\sigma_j}

    with ``s_j = +1`` if column ``j`` is higher-is-better else ``-1``, and
    ``mu_j, sigma_j`` the mean and population std of ``s_j x_j`` over the
    training pairs (``normalization="zscore"``).

    Parameters
    ----------
    features : pandas.DataFrame
        ``pair_id`` plus the feature columns.
    columns : sequence of str
        Columns to average (VERT: one metric across judges).
    orientation : bool or mapping, optional
        See :func:`higher_is_better`.
    train_ids : iterable, optional
        Pairs whose values give the normalisation statistics.  ``None`` uses
        every row (no target is read, so this is not label leakage, but the
        held-out pairs then shape the scale).
    normalization : {"zscore", "minmax", "rank", "none"}
        ``"none"`` is the paper's plain average of raw scores.
    missing : {"require_all", "available"}
        ``"require_all"``: NaN when any column is missing for the pair;
        ``"available"``: mean of the columns present.

    Returns
    -------
    pandas.Series
        Predicted quality (higher = better), indexed like ``features``.
        ``attrs`` record ``columns_used``, ``dropped_columns`` (constant on the
        training pairs: no scale) and ``normalization``.
    """
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"normalization must be one of {NORMALIZATIONS}, got {normalization!r}")
    if missing not in ("require_all", "available"):
        raise ValueError(f"missing must be 'require_all' or 'available', got {missing!r}")
    columns = list(columns)
    if not columns:
        raise ValueError("columns must not be empty")
    absent = [c for c in columns if c not in features.columns]
    if absent:
        raise KeyError(f"columns not in features: {absent}")
    signs = np.array([1.0 if higher_is_better(c, orientation) else -1.0 for c in columns])
    oriented = features[columns].apply(pd.to_numeric, errors="raise").astype(float) * signs
    if train_ids is None:
        ref = oriented
    else:
        train_ids = set(train_ids)
        ref = oriented[features["pair_id"].isin(train_ids).to_numpy()]
    if normalization == "zscore":
        centre, scale = ref.mean(), ref.std(ddof=0)
        keep = scale.gt(0) & scale.notna()
        out = (oriented - centre) / scale
    elif normalization == "minmax":
        low, high = ref.min(), ref.max()
        keep = (high - low).gt(0) & low.notna()
        out = (oriented - low) / (high - low)
    elif normalization == "rank":
        keep = ref.nunique().gt(1)
        out = oriented.copy()
        for col in columns:
            values = np.sort(ref[col].dropna().to_numpy())
            x = oriented[col].to_numpy()
            mid = (np.searchsorted(values, x, "left") + np.searchsorted(values, x, "right")) / 2
            out[col] = np.where(np.isnan(x), np.nan, mid / max(len(values), 1))
    else:
        keep = pd.Series(True, index=columns)
        out = oriented
    used = [c for c in columns if keep[c]]
    result = (out[used].mean(axis=1, skipna=(missing == "available")) if used
              else pd.Series(np.nan, index=features.index))
    if missing == "require_all" and used:
        # a pair missing a dropped (constant) column is still missing data
        result[features[columns].isna().any(axis=1).to_numpy()] = np.nan
    result.name = "average"
    result.attrs = {"columns_used": used, "dropped_columns": [c for c in columns if c not in used],
                    "normalization": normalization}
    return result
