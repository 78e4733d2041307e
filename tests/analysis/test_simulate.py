"""Tests for core.analysis.simulate: VERT App. B.5 special cases and B.7 / Fig. 7 sweeps."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.scores import formula, green, green_f1, unified
from core.analysis.simulate import UNIFIED, simulate_grid, sweep

REFERENCE = {"green": lambda m, s, i: green(m, s), "green_f1": lambda m, s, i: green_f1(m, s), "formula": formula}


def value(table, **where):
    mask = np.ones(len(table), dtype=bool)
    for key, v in where.items():
        mask &= (table[key] == v).to_numpy()
    assert mask.sum() == 1
    return float(table.loc[mask, "value"].iloc[0])


def test_grid_matches_core_scores():
    table = simulate_grid(range(0, 6), range(0, 6), range(0, 4))
    assert len(table) == 3 * 6 * 6 * 4
    for _, r in table.iterrows():
        expected = REFERENCE[r.metric](int(r.tp), int(r.s), int(r.i))
        assert r.value == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(
    ("metric", "tp", "s", "i", "expected"),
    [
        ("green", 3, 1, 5, 3 / 4),  # B.2: I plays no part
        ("green_f1", 3, 2, 5, 6 / 8),  # B.3: 2TP / (2TP + S)
        ("formula", 4, 1, 2, 4 / 7),  # B.4: TP / (TP + 2S + 0.5I)
        ("formula", 2, 0, 4, 0.5),
        ("green", 0, 0, 0, 0.0),  # zero denominator -> 0 (App. C)
        ("green_f1", 0, 3, 0, 0.0),
    ],
)
def test_hand_worked(metric, tp, s, i, expected):
    assert value(simulate_grid([tp], [s], [i], metrics=[metric]), metric=metric) == pytest.approx(expected)


def test_unified_special_cases_b5():
    # Custom weights equal to the B.5 rows reproduce the named metrics.
    grid = dict(tp_values=range(0, 5), s_values=range(0, 5), i_values=range(0, 3))
    for metric, weights in {"green": (1, 1, 0), "green_f1": (2, 1, 0), "formula": (1, 2, 0.5)}.items():
        named = simulate_grid(**grid, metrics=[metric])
        custom = simulate_grid(**grid, metrics=[], alpha=weights[0], beta_s=weights[1], beta_i=weights[2])
        assert np.allclose(named["value"], custom["value"])
        assert set(custom["metric"]) == {UNIFIED}


def test_unset_weights_default_to_green():
    table = simulate_grid([3], [2], [4], metrics=[], beta_i=0.25)
    r = table.iloc[0]
    assert (r.alpha, r.beta_s, r.beta_i) == (1.0, 1.0, 0.25)
    assert r.value == pytest.approx(unified(3, 2, 4, 1.0, (1.0, 0.25)))


def test_b7_green_is_half_when_tp_equals_s():
    table = simulate_grid(range(1, 21), range(1, 21), metrics=["green", "green_f1"])
    diagonal = table[table["tp"] == table["s"]]
    assert np.allclose(diagonal.loc[diagonal["metric"] == "green", "value"], 0.5)
    assert np.allclose(diagonal.loc[diagonal["metric"] == "green_f1", "value"], 2 / 3)


@settings(max_examples=60, deadline=None)
@given(
    tp=st.floats(0, 50, allow_nan=False), s=st.floats(0, 50, allow_nan=False),
    i=st.floats(0, 50, allow_nan=False),
)
def test_b7_f1_never_below_green(tp, s, i):
    table = simulate_grid([tp], [s], [i])
    g, f = value(table, metric="green"), value(table, metric="green_f1")
    assert f >= g - 1e-12
    assert 0.0 <= value(table, metric="formula") <= g + 1e-12  # heavier penalties, never higher


def test_sweep_s_matches_fig7_trend():
    table = sweep("s", range(0, 11), tp=4)
    assert list(table.columns[:5]) == ["vary", "x", "metric", "value", "delta"]
    for metric in ("green", "green_f1", "formula"):
        line = table[table["metric"] == metric]
        assert list(line["x"]) == list(range(0, 11))
        assert np.isnan(line["delta"].iloc[0]) and (line["delta"].iloc[1:] < 0).all()
        assert (line["tp"] == 4).all()
    # Sharper drop for GREEN than for F1 (B.7).
    assert value(table, metric="green", x=10) < value(table, metric="green_f1", x=10)
    assert value(table, metric="green", x=4) == pytest.approx(0.5)


def test_sweep_tp_plateaus():
    table = sweep("tp", range(0, 31), s=2)
    for metric in ("green", "green_f1"):
        deltas = table.loc[table["metric"] == metric, "delta"].to_numpy()[2:]
        assert (deltas > 0).all() and (np.diff(deltas) < 0).all()  # increasing, with shrinking steps


def test_sweep_weight_includes_unified_and_flat_references():
    table = sweep("alpha", [0.5, 1, 2, 4], tp=2, s=2, metrics=["green", "green_f1"])
    assert set(table["metric"]) == {"green", "green_f1", UNIFIED}
    assert table.loc[table["metric"] == "green", "value"].nunique() == 1
    assert value(table, metric=UNIFIED, x=1.0) == pytest.approx(value(table, metric="green", x=1.0))
    assert value(table, metric=UNIFIED, x=2.0) == pytest.approx(value(table, metric="green_f1", x=2.0))
    beta = sweep("beta_i", [0, 1], tp=2, s=0, i=4, metrics=[], alpha=1, beta_s=2)
    assert list(beta["value"]) == pytest.approx([1.0, 2 / 6])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: simulate_grid([1], [1], metrics=["bleu"]), "unknown metric"),
        (lambda: simulate_grid([-1], [1]), "non-negative"),
        (lambda: simulate_grid([], [1]), "no values"),
        (lambda: simulate_grid([1], [1], metrics=[]), "nothing to compute"),
        (lambda: sweep("m", [1]), "vary"),
        (lambda: sweep("s", [1], tp=-1), "non-negative"),
    ],
)
def test_validation(call, message):
    with pytest.raises(ValueError, match=message):
        call()
