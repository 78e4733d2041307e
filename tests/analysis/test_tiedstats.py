"""core.analysis.tiedstats gives scipy's Kendall tau-b and Spearman rho bit for bit, without sorting."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as sps

from core.analysis.stats import correlation
from core.analysis.tiedstats import MAX_CELLS, dense_codes, kendall_tau_b, pearson_r, spearman_rho


def _inputs(kind: int, n: int, rng):
    if kind == 0:  # expert-score-like: both discrete
        return rng.integers(0, 5, n).astype(float), rng.integers(0, 11, n) / 10
    if kind == 1:  # continuous metric, discrete target
        return rng.normal(size=n), rng.integers(0, 3, n).astype(float)
    if kind == 2:  # no ties at all
        return rng.normal(size=n), rng.normal(size=n)
    if kind == 3:  # near-equal floats: 0.1 + 0.2 is not 0.3, and -0.0 is 0.0
        return (rng.choice([-0.0, 0.0, 1.0, 2.5], n),
                rng.choice([0.1, 0.2, 0.1 + 0.2, 0.3], n))
    x = rng.integers(0, 13, n) / rng.integers(1, 13, n)  # GREEN-like fractions
    return x, -x + rng.integers(0, 3, n)


@pytest.mark.parametrize("kind", range(5))
def test_bit_identical_to_scipy(kind):
    rng = np.random.default_rng(kind)
    fast_used = 0
    for n in (5, 20, 34, 60, 500, 4000):
        for _ in range(6):
            x, y = _inputs(kind, n, rng)
            if np.all(x == x[0]) or np.all(y == y[0]):
                continue
            xc, kx = dense_codes(x)
            yc, ky = dense_codes(y)
            kt, sr = sps.kendalltau(x, y, variant="b"), sps.spearmanr(x, y)
            for got, ref in ((kendall_tau_b(xc, kx, yc, ky), kt), (spearman_rho(xc, kx, yc, ky), sr)):
                if got is None:
                    continue
                fast_used += 1
                assert got[0] == float(ref.statistic)  # exact equality, not approx
                assert got[1] == float(ref.pvalue)
    assert fast_used > 0


def test_dense_codes_follow_value_order_and_ties():
    codes, k = dense_codes(np.array([0.3, -0.0, 0.1 + 0.2, 0.0, 2.0, 0.3]))
    assert k == 4  # 0.0 (and -0.0), 0.3, 0.30000000000000004, 2.0
    assert codes.tolist() == [1, 0, 2, 0, 3, 1]


def test_falls_back_to_scipy_when_it_should():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=20), rng.normal(size=20)  # no ties, n <= 33: scipy's exact p
    xc, kx = dense_codes(x)
    yc, ky = dense_codes(y)
    assert kendall_tau_b(xc, kx, yc, ky) is None
    big = np.arange(3000, dtype=float)  # table larger than MAX_CELLS
    assert 3000 * 3000 > MAX_CELLS
    bc, kb = dense_codes(big)
    assert kendall_tau_b(bc, kb, bc, kb) is None and spearman_rho(bc, kb, bc, kb) is None
    out = correlation(x, y)  # the fallback still answers, with scipy's numbers
    assert out["tau"] == float(sps.kendalltau(x, y).statistic)
    assert out["p"] == float(sps.kendalltau(x, y).pvalue)


def test_pearson_bit_identical_to_scipy():
    rng = np.random.default_rng(11)
    checked = 0
    for i in range(300):
        n = int(rng.choice([3, 5, 10, 100, 1000, 20000]))
        x = rng.normal(size=n) if i % 2 else rng.integers(0, 5, n).astype(float)
        y = x * rng.uniform(-1, 1) + rng.normal(size=n) * rng.uniform(0, 3)
        if i % 3 == 0:
            y = rng.integers(0, 11, n) / 10
        if np.all(x == x[0]) or np.all(y == y[0]):
            continue
        ref = sps.pearsonr(x, y)
        assert pearson_r(x, y) == (float(ref.statistic), float(ref.pvalue))
        checked += 1
    assert checked > 250
    assert pearson_r(np.array([1.0, 2.0]), np.array([2.0, 1.0])) is None  # n = 2: scipy's special case
    assert pearson_r(np.ones(5), np.arange(5.0)) is None  # constant: scipy's NaN and warning


def test_importing_stats_leaves_scipy_special_and_sparse_to_the_first_computation():
    """``import core.analysis.stats`` (every page and command that shows a statistic) no longer pays for
    scipy.special and scipy.sparse (~0.1-0.25 s of import); the first p-value imports them, same numbers."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys, numpy as np; import core.analysis.stats as s; "
            "print(sorted(m for m in ('scipy.special', 'scipy.sparse') if m in sys.modules)); "
            "print(s.correlation(np.arange(30.0) % 7, np.arange(30.0) % 5)); "
            "print('scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[2], check=True).stdout.splitlines()
    assert out[0] == "[]"
    x, y = np.arange(30.0) % 7, np.arange(30.0) % 5
    assert out[1] == str(correlation(x, y))  # the same tau, rho, r and p as in this process
    assert out[2] == "True"
