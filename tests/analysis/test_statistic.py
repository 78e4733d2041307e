"""The one description of the three statistics: every name finds its record, and its columns are the
correlate table's real columns."""
import numpy as np
import pandas as pd
import pytest

from core.analysis.statistic import ESTIMATE_P_COLUMNS, KEYS, SCORE_LIKE_METRICS, STATISTICS, statistic, table
from core.analysis.stats import correlate


def test_every_name_finds_one_record():
    for s in STATISTICS:
        assert statistic(s.key) is statistic(s.short) is s
    assert KEYS == ("kendall", "spearman", "pearson")
    assert table("symbol") == {"kendall": "τ", "spearman": "ρ", "pearson": "r"}
    assert [s.words for s in STATISTICS] == ["Kendall's τ-b", "Spearman's ρ", "Pearson's r"]
    assert [s.ascii_words for s in STATISTICS] == ["Kendall's tau-b", "Spearman's rho", "Pearson's r"]
    with pytest.raises(ValueError, match="unknown statistic 'tau-b'"):
        statistic("tau-b")


def test_columns_are_the_correlate_tables():
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    df = pd.DataFrame({"pair_id": range(40), "judge": "j", "metric": "m", "value": x,
                       "target": x + rng.normal(size=40)})
    out = correlate(df, n_boot=50, seed=1, cluster_col=None)
    for s in STATISTICS:
        for col in (s.short, s.p_col, s.ci_low, s.ci_high, s.abs_col):
            assert col in out.columns, (s.key, col)


def test_score_like_metrics_are_known_metrics():
    from core.analysis.judgetable import METRIC_ORDER
    assert set(SCORE_LIKE_METRICS) <= set(METRIC_ORDER)
    assert "ec_sig" not in SCORE_LIKE_METRICS


def test_the_estimate_and_p_columns_keep_the_tables_order():
    """The agreement, ceiling and correlation tables list their columns from the record: the order they
    printed before it (tau, p, rho, rho_p, r, r_p)."""
    from core.analysis.agreement import agreement_matrix
    from core.analysis.ceiling import LOO_COLUMNS

    assert ESTIMATE_P_COLUMNS == ("tau", "p", "rho", "rho_p", "r", "r_p")
    assert LOO_COLUMNS == ["annotator", "n", "tau", "p", "rho", "rho_p", "r", "r_p"]
    matrix = np.array([[1, 2, 3, 4, 5, 2.0], [1, 3, 2, 4, 5, 1.0]])
    table = agreement_matrix(matrix, ["a", "b"], min_n=3).pairwise
    assert list(table.columns) == ["annotator_a", "annotator_b", "n", "tau", "p", "rho", "rho_p", "r", "r_p"]

