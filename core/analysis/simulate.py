r"""Metric simulator: GREEN, F1, Formula and the unified alpha/beta score over grids.

VERT Appendix B writes the three count-based scores as one family (B.5, Eq. (6)),

.. math:: \mathrm{Score} = \frac{\alpha\,TP}{\alpha\,TP + \beta_S S + \beta_I I}

with GREEN ``(1, 1, 0)`` (B.2, Eq. (3)), F1 ``(2, 1, 0)`` (B.3, Eq. (4)) and
Formula ``(1, 2, 0.5)`` (B.4, Eq. (5)); B.7 / Fig. 7 sweeps S or TP to show
how each reacts (GREEN drops sharply with S while F1 stays higher; TP matters
up to about 4 for F1 and 8 for GREEN, then both plateau; GREEN = 0.5 whenever
TP = S).  Every value here comes from :func:`core.analysis.scores.unified_array`
with the weights of :data:`core.analysis.scores.UNIFIED_WEIGHTS`, so the simulator and
the scores stored for real judges cannot drift apart.  Zero rule: a score is 0
whenever TP = 0 (GREEN Eq. (1); VERT App. C for zero denominators).

Deterministic: no randomness, hence no seed.  There is no sample either, so
the outputs have no ``n``; each row is one point of the grid.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from core.analysis.scores import UNIFIED_WEIGHTS, unified_array

__all__ = ["UNIFIED", "simulate_grid", "sweep"]

#: Name of the user-weighted member of the family in the outputs.
UNIFIED = "unified"

_PARAMS = ("tp", "s", "i", "alpha", "beta_s", "beta_i")
_DEFAULT_WEIGHTS = UNIFIED_WEIGHTS["green"]  # (1, 1, 0) fills weights left unset


def _weight_sets(
    metrics: Sequence[str], alpha: float | None, beta_s: float | None, beta_i: float | None
) -> list[tuple[str, float, float, float]]:
    """``(name, alpha, beta_S, beta_I)`` for each requested metric, plus ``unified``."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    out = []
    for name in metrics:
        if name not in UNIFIED_WEIGHTS:
            raise ValueError(f"unknown metric {name!r}; valid: {', '.join(UNIFIED_WEIGHTS)}")
        out.append((name, *UNIFIED_WEIGHTS[name]))
    if alpha is not None or beta_s is not None or beta_i is not None:
        a0, bs0, bi0 = _DEFAULT_WEIGHTS
        out.append((
            UNIFIED,
            a0 if alpha is None else float(alpha),
            bs0 if beta_s is None else float(beta_s),
            bi0 if beta_i is None else float(beta_i),
        ))
    if not out:
        raise ValueError("nothing to compute: give metrics or at least one of alpha, beta_s, beta_i")
    return out


def _values(values: Iterable[float], what: str) -> np.ndarray:
    arr = np.asarray(list(values) if not np.isscalar(values) else [values], dtype=float).ravel()
    if arr.size == 0:
        raise ValueError(f"{what}: no values")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{what}: values must be finite and non-negative")
    return arr


def simulate_grid(
    tp_values: Iterable[float],
    s_values: Iterable[float],
    i_values: Iterable[float] = (0,),
    metrics: Sequence[str] = ("green", "green_f1", "formula"),
    alpha: float | None = None,
    beta_s: float | None = None,
    beta_i: float | None = None,
) -> pd.DataFrame:
    r"""Scores on the full grid ``tp_values x s_values x i_values`` (VERT App. B.5-B.7).

    Parameters
    ----------
    tp_values, s_values, i_values : iterable of float
        Matched findings TP, significant errors S, insignificant errors I
        (non-negative; non-integers allowed for smooth curves).
    metrics : sequence of str
        Named members of the family: ``green``, ``green_f1``, ``formula``.
    alpha, beta_s, beta_i : float, optional
        If any is given, a ``unified`` metric with these weights is added;
        weights left unset take GREEN's values ``alpha = beta_S = 1``,
        ``beta_I = 0``.

    Returns
    -------
    DataFrame
        Long: ``tp, s, i, metric, alpha, beta_s, beta_i, value``; one row per
        grid point and metric, ordered metric-major then tp, s, i.

    Examples
    --------
    >>> simulate_grid([2], [2]).set_index("metric")["value"].round(4).to_dict()
    {'green': 0.5, 'green_f1': 0.6667, 'formula': 0.3333}
    """
    tp, s, i = _values(tp_values, "tp_values"), _values(s_values, "s_values"), _values(i_values, "i_values")
    TP, S, I = (a.ravel() for a in np.meshgrid(tp, s, i, indexing="ij"))  # noqa: E741
    frames = []
    for name, a, bs, bi in _weight_sets(metrics, alpha, beta_s, beta_i):
        frames.append(pd.DataFrame({
            "tp": TP, "s": S, "i": I, "metric": name, "alpha": a, "beta_s": bs, "beta_i": bi,
            "value": unified_array(TP, S, I, a, bs, bi),
        }))
    return pd.concat(frames, ignore_index=True)


def sweep(
    vary: str,
    values: Iterable[float],
    *,
    tp: float = 5.0,
    s: float = 2.0,
    i: float = 0.0,
    metrics: Sequence[str] = ("green", "green_f1", "formula"),
    alpha: float | None = None,
    beta_s: float | None = None,
    beta_i: float | None = None,
) -> pd.DataFrame:
    r"""One parameter varied, the others fixed: the line charts of VERT Fig. 7.

    Parameters
    ----------
    vary : {"tp", "s", "i", "alpha", "beta_s", "beta_i"}
        The parameter on the x axis.  Varying a weight implies the ``unified``
        metric (named metrics do not depend on it and come out as flat
        reference lines, e.g. F1 where ``alpha = 2`` crosses it).
    values : iterable of float
        Its values (non-negative).
    tp, s, i : float
        Fixed counts for the parameters not varied.
    metrics, alpha, beta_s, beta_i
        As in :func:`simulate_grid`.

    Returns
    -------
    DataFrame
        ``vary, x, metric, value, delta, tp, s, i, alpha, beta_s, beta_i``,
        sorted by metric then ``x``; ``delta`` is the change of ``value`` from
        the previous ``x`` of the same metric (NaN on the first), which shows
        where a curve plateaus (B.7).
    """
    if vary not in _PARAMS:
        raise ValueError(f"vary must be one of {', '.join(_PARAMS)}, got {vary!r}")
    xs = np.unique(_values(values, "values"))
    fixed = {"tp": tp, "s": s, "i": i}
    for name, value in fixed.items():
        _values([value], name)
    weights = {"alpha": alpha, "beta_s": beta_s, "beta_i": beta_i}
    if vary in weights and weights[vary] is None:
        weights[vary] = 0.0  # placeholder so that the unified metric is included
    sets = _weight_sets(metrics, **weights)
    frames = []
    for name, a, bs, bi in sets:
        params = {"tp": np.full(xs.size, float(tp)), "s": np.full(xs.size, float(s)),
                  "i": np.full(xs.size, float(i)), "alpha": np.full(xs.size, a),
                  "beta_s": np.full(xs.size, bs), "beta_i": np.full(xs.size, bi)}
        if vary in fixed or name == UNIFIED:
            params[vary] = xs
        value = unified_array(params["tp"], params["s"], params["i"],
                              params["alpha"], params["beta_s"], params["beta_i"])
        frames.append(pd.DataFrame({"vary": vary, "x": xs, "metric": name, "value": value,
                                    "delta": np.concatenate([[np.nan], np.diff(value)]), **params}))
    columns = ["vary", "x", "metric", "value", "delta", *_PARAMS]
    return pd.concat(frames, ignore_index=True)[columns]
