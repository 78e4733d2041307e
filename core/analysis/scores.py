"""Scores computed from parsed error counts.

Pure functions, no I/O.  Every formula cites the paper section it comes from:

* GREEN: Ostmeier et al., "GREEN: Generative Radiology Report Evaluation and
  Error Notation", Section 3.2, Eq. (1) (``seeds/green.txt``).
* VERT study: "LLM judges for radiology reports" (``seeds/vert-llm-judges-radiology.txt``),
  Appendix B (B.2 GREEN, B.3 F1, B.4 Formula, B.5 unified alpha/beta form),
  Appendix C (zero-denominator convention), Appendix D.2 (VERT overall score),
  D.3 (Formula prompt), D.4 (Rubric prompt).

Notation (Appendix B.1): ``M`` (= TP) matched findings, ``S`` the sum of the
clinically significant error counts over categories (a)-(f), ``I`` the sum of
the clinically insignificant ones.

Zero-denominator convention
---------------------------
GREEN's Eq. (1) defines the score as 0 whenever ``M == 0`` and Appendix C of
the VERT paper defines any score whose denominator is zero as 0.  Every ratio
here follows both rules: ``M == 0`` gives 0, so in particular ``M = S = I = 0``
(a report with nothing matched and nothing wrong) scores 0, not 1.

Unknown inputs
--------------
:func:`metrics_from_counts` accepts ``None`` for a count the parser could not
read (e.g. a truncated answer).  A metric is reported only when every input it
depends on is known; otherwise it is ``None``.  One exception follows from the
definitions above: when ``M == 0`` is known, ``green``, ``green_f1`` and
``formula`` are 0 whatever ``S`` and ``I`` are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from core.analysis.metrics import METRICS, PER_CATEGORY_COUNTS, MetricSpec, metric_label, orientation_sign
from core.taxonomy import CATEGORIES

__all__ = [
    "CATEGORIES",
    "METRICS",
    "PER_CATEGORY_COUNTS",
    "UNIFIED_WEIGHTS",
    "MetricSpec",
    "ec_sig",
    "ec_total",
    "formula",
    "green",
    "green_f1",
    "metric_label",
    "metrics_from_counts",
    "orientation_sign",
    "unified",
    "unified_array",
    "vert",
]


#: Metrics computed by :func:`metrics_from_counts`, in output order.
COUNT_METRICS: tuple[str, ...] = ("green", "green_f1", "formula", "ec_sig", "ec_total", "vert")


#: Appendix B.5 table: metric -> (alpha, beta_S, beta_I).
UNIFIED_WEIGHTS: dict[str, tuple[float, float, float]] = {
    "green": (1.0, 1.0, 0.0),
    "green_f1": (2.0, 1.0, 0.0),
    "formula": (1.0, 2.0, 0.5),
}


def _check_count(value: object, what: str) -> int:
    """A non-negative integer count.  Integral floats (2.0, as DuckDB DOUBLE
    annotation values arrive) are accepted; 1.5 is not."""
    if isinstance(value, bool) or not isinstance(
        value, (int, np.integer, float, np.floating)
    ):
        raise TypeError(f"{what} must be a non-negative integer, got {value!r}")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or not float(value).is_integer():
            raise ValueError(f"{what} must be a whole number, got {value!r}")
    if value < 0:
        raise ValueError(f"{what} must be non-negative, got {value!r}")
    return int(value)


def _is_unknown(value: object) -> bool:
    """``None``, NaN or pandas' NA: an unknown count."""
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN and pd.NA-like values
    except (TypeError, ValueError):
        return True


def _check_weight(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{what} must be finite and non-negative, got {value!r}")
    return v


def _check_total(value: object, what: str) -> float:
    # Totals may be non-integral only in simulations (App. B.7); counts from the
    # parser are always integers.
    return _check_weight(value, what)


def unified(
    M: float,
    S: float,
    I: float,  # noqa: E741 - the paper's name
    alpha: float,
    beta: float | tuple[float, float],
) -> float:
    r"""Unified alpha/beta score of VERT Appendix B.5, Eq. (6).

    .. math:: \mathrm{Score} = \frac{\alpha M}{\alpha M + \beta_S S + \beta_I I}

    Special cases (Appendix B.5 table, see :data:`UNIFIED_WEIGHTS`):
    GREEN ``(1, 1, 0)``, F1 ``(2, 1, 0)``, Formula ``(1, 2, 0.5)``.

    Parameters
    ----------
    M, S, I : float
        Matched findings, significant and insignificant error totals (>= 0).
    alpha : float
        Weight of matched findings (>= 0).
    beta : float or (float, float)
        ``(beta_S, beta_I)``.  A single number means ``beta_S`` with
        ``beta_I = 0`` (the GREEN and F1 rows).

    Returns
    -------
    float
        The score in [0, 1]; 0 when ``M == 0`` or the denominator is 0
        (GREEN Eq. (1) "otherwise 0"; VERT Appendix C convention).
    """
    m = _check_total(M, "M")
    s = _check_total(S, "S")
    i = _check_total(I, "I")
    a = _check_weight(alpha, "alpha")
    if isinstance(beta, tuple):
        if len(beta) != 2:
            raise ValueError(f"beta must be (beta_S, beta_I), got {beta!r}")
        b_s, b_i = _check_weight(beta[0], "beta_S"), _check_weight(beta[1], "beta_I")
    else:
        b_s, b_i = _check_weight(beta, "beta_S"), 0.0
    numerator = a * m
    denominator = numerator + b_s * s + b_i * i
    if m == 0 or denominator == 0:
        return 0.0
    return numerator / denominator


def unified_array(M, S, I, alpha=1.0, beta_s=1.0, beta_i=0.0) -> np.ndarray:  # noqa: E741
    """Vectorised :func:`unified` for sweeps (VERT Appendix B.7, Fig. 7).

    Parameters
    ----------
    M, S, I : array_like
        Broadcastable arrays of matched findings and error totals (>= 0).
    alpha, beta_s, beta_i : array_like
        Weights of Eq. (6), broadcastable as well.

    Returns
    -------
    numpy.ndarray
        Scores, 0 wherever ``M == 0`` or the denominator is 0.
    """
    m, s, i = (np.asarray(x, dtype=float) for x in (M, S, I))
    a, bs, bi = (np.asarray(x, dtype=float) for x in (alpha, beta_s, beta_i))
    arrays = (m, s, i, a, bs, bi)
    if any(np.any(~np.isfinite(x)) or np.any(x < 0) for x in arrays):
        raise ValueError("counts and weights must be finite and non-negative")
    numerator = a * m
    denominator = numerator + bs * s + bi * i
    safe = np.where(denominator == 0, 1.0, denominator)
    return np.where((m == 0) | (denominator == 0), 0.0, numerator / safe)


def green(M: int, S: int) -> float:
    r"""GREEN score, GREEN Section 3.2 Eq. (1) (= VERT Appendix B.2 Eq. (3)).

    .. math:: \mathrm{GREEN} = \frac{M}{M + S} \text{ if } M > 0 \text{, otherwise } 0

    Parameters
    ----------
    M : int
        Number of matched findings.
    S : int
        Sum of clinically significant error counts over (a)-(f).

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> green(3, 1)
    0.75
    >>> green(0, 0)
    0.0
    """
    m, s = _check_count(M, "M"), _check_count(S, "S")
    return m / (m + s) if m > 0 else 0.0


def green_f1(M: int, S: int) -> float:
    r"""F1 form of GREEN, VERT Appendix B.3 Eq. (4).

    .. math:: F_1 = \frac{2M}{2M + S}

    ``M = S = 0`` has a zero denominator and is defined as 0 (VERT Appendix C
    convention, consistent with GREEN's "0 when M = 0").

    Examples
    --------
    >>> green_f1(3, 2)
    0.75
    >>> green_f1(0, 0)
    0.0
    """
    m, s = _check_count(M, "M"), _check_count(S, "S")
    return 2 * m / (2 * m + s) if m > 0 else 0.0


def formula(M: int, S: int, I: int) -> float:  # noqa: E741 - the paper's name
    r"""Formula metric, VERT Appendix B.4 Eq. (5) and prompt D.3 Step 6.

    .. math:: G_w = \frac{M}{M + 2S + 0.5 I}

    The D.3 prompt asks the judge to round to two decimals; the metric computed
    here from the counts is not rounded.  ``M = 0`` gives 0 (including the
    zero denominator ``M = S = I = 0``, Appendix C convention).

    Examples
    --------
    >>> formula(4, 1, 2)
    0.5714285714285714
    """
    m, s, i = _check_count(M, "M"), _check_count(S, "S"), _check_count(I, "I")
    return m / (m + 2 * s + 0.5 * i) if m > 0 else 0.0


def _sum_counts(counts: Mapping[str, int | None] | None, what: str) -> int | None:
    """Sum of the six category counts, or ``None`` if any is unknown."""
    if counts is None:
        return None
    unknown_keys = set(counts) - set(CATEGORIES)
    if unknown_keys:
        raise ValueError(f"{what}: unknown categories {sorted(unknown_keys)}; valid: a-f")
    total = 0
    for cat in CATEGORIES:
        value = counts.get(cat)
        if _is_unknown(value):
            return None
        total += _check_count(value, f"{what}[{cat!r}]")
    return total


def ec_sig(sig: Mapping[str, int | None]) -> int | None:
    """GREEN-EC: number of clinically significant errors, ``S`` (GREEN Sec. 3.2).

    Returns ``None`` if any category count is unknown (``None`` or absent).
    """
    return _sum_counts(sig, "sig")


def ec_total(sig: Mapping[str, int | None], insig: Mapping[str, int | None]) -> int | None:
    """Total error count ``S + I`` (VERT Appendix B.1 Eq. (2)); ``None`` if unknown."""
    s, i = _sum_counts(sig, "sig"), _sum_counts(insig, "insig")
    return None if s is None or i is None else s + i


def vert(overall: float | None) -> float | None:
    """VERT score: the judge's overall accuracy score, passed through (App. D.2).

    D.2 asks for "a continuous number in [0.00, 1.00] with two decimals".  The
    value is not rounded or rescaled here.  ``None`` or NaN (unknown) gives
    ``None``.

    Raises
    ------
    ValueError
        If ``overall`` is not a finite number in [0, 1].
    """
    if overall is None or (isinstance(overall, float) and math.isnan(overall)):
        return None
    if isinstance(overall, bool) or not isinstance(
        overall, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"overall score must be a number, got {overall!r}")
    v = float(overall)
    if not math.isfinite(v) or not 0.0 <= v <= 1.0:
        raise ValueError(f"overall score {overall!r} outside [0, 1] (VERT App. D.2)")
    return v


def metrics_from_counts(
    sig: Mapping[str, int | None] | None,
    insig: Mapping[str, int | None] | None,
    matched: int | None,
    overall: float | None,
) -> dict[str, float | int | None]:
    """All count-derived metrics for one judge output.

    Parameters
    ----------
    sig, insig : mapping of category -> int or None
        Counts for categories ``"a"``-``"f"``.  ``None``/NaN (or a missing key,
        or ``None`` for the whole mapping) means unknown, never 0.  Integral
        floats such as 2.0 are accepted.
    matched : int or None
        Matched findings ``M``; ``None``/NaN if unknown.
    overall : float or None
        The judge's own overall score (VERT D.2), already validated to [0, 1].

    Returns
    -------
    dict
        Keys ``green``, ``green_f1``, ``formula`` (floats), ``ec_sig``,
        ``ec_total`` (ints), ``vert`` (float); each ``None`` when one of its
        inputs is unknown.  When ``matched == 0`` the three ratios are 0
        regardless of unknown error counts (GREEN Eq. (1)).

    Raises
    ------
    ValueError, TypeError
        On negative or non-integer counts, unknown category keys, or an
        overall score outside [0, 1].
    """
    s = _sum_counts(sig, "sig")
    i = _sum_counts(insig, "insig")
    m = None if _is_unknown(matched) else _check_count(matched, "matched")

    def ratio(needs_insig: bool, fn) -> float | None:
        if m == 0:
            return 0.0
        if m is None or s is None or (needs_insig and i is None):
            return None
        return fn()

    return {
        "green": ratio(False, lambda: green(m, s)),
        "green_f1": ratio(False, lambda: green_f1(m, s)),
        "formula": ratio(True, lambda: formula(m, s, i)),
        "ec_sig": s,
        "ec_total": None if s is None or i is None else s + i,
        "vert": vert(overall),
    }
