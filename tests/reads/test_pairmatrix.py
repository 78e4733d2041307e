"""The pairs x series matrix gives what the long frame gives: same rows, same statistics, bit for bit.

The store is the demo with both offline judges, made awkward on purpose: pairs without a group (their own
cluster), pairs without a modality (the "(missing)" level), stored NaN and NULL values (counted as
missing) and one judge that scored only part of the pairs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.analysis.scores import METRICS
from core.analysis.stats import agreement_matrix, breakdown, correlate, inter_annotator
from core.judges import run_judge
from core.reads.frames import correlation_frame
from core.reads.pairmatrix import pair_matrix, read_ratings
from core.reads.targets import annotator_target_values
from core.store.db import Store, StoreError, latest_schema_version
from core.store.integrity import check_store
from tests.conftest import copy_store
from tests.old_schema import older_copy

TARGETS = ("score", "sig_errors", "total_errors")


@pytest.fixture(scope="module")
def awkward_store(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = copy_store(demo_store, tmp_path_factory.mktemp("pm") / "awkward.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    run_judge(store, dataset="demo", judge="lexical")
    with store.write() as conn:
        conn.execute("UPDATE pairs SET group_id = NULL WHERE dataset = 'demo' AND ext_id IN "
                     "(SELECT ext_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id LIMIT 40)")
        conn.execute("UPDATE pairs SET modality = NULL WHERE dataset = 'demo' AND ext_id IN "
                     "(SELECT ext_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id DESC LIMIT 30)")
        conn.execute("UPDATE metric_values SET value = 'NaN'::DOUBLE WHERE metric = 'bleu4' AND pair_id IN "
                     "(SELECT pair_id FROM metric_values WHERE metric = 'bleu4' ORDER BY pair_id LIMIT 7)")
        conn.execute("UPDATE metric_values SET value = NULL WHERE metric = 'rouge_l' AND pair_id IN "
                     "(SELECT pair_id FROM metric_values WHERE metric = 'rouge_l' ORDER BY pair_id LIMIT 5)")
        lexical = conn.execute("SELECT run_id FROM judge_runs WHERE judge_name = 'lexical'").fetchone()[0]
        conn.execute("DELETE FROM metric_values WHERE run_id = ? AND metric = 'rouge_l' AND pair_id IN "
                     "(SELECT pair_id FROM metric_values WHERE metric = 'rouge_l' ORDER BY pair_id DESC LIMIT 50)",
                     [lexical])
    return store


def _frame(store: Store, target: str, **kwargs) -> pd.DataFrame:
    return correlation_frame(store, "demo", target, metrics=list(METRICS), order="pair_id", **kwargs)


def _assert_same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want) > 0
    for col in want.columns:
        a, b = got[col].astype(object).to_numpy(), want[col].astype(object).to_numpy()
        if pd.api.types.is_float_dtype(want[col]):
            # bit for bit, NaN where NaN
            np.testing.assert_array_equal(got[col].to_numpy(float), want[col].to_numpy(float), err_msg=col)
        else:
            assert [None if pd.isna(x) else x for x in a] == [None if pd.isna(x) else x for x in b], col


@pytest.mark.parametrize("target", TARGETS)
def test_long_form_is_the_correlation_frame(awkward_store: Store, target: str) -> None:
    matrix = pair_matrix(awkward_store, "demo", target, metrics=list(METRICS))
    want = _frame(awkward_store, target)
    got = matrix.long()
    _assert_same(got[want.columns], want)
    assert matrix.present.sum() == len(want)
    assert np.isnan(matrix.values[matrix.present]).sum() == 7 + 5  # stored NaN / NULL: values, not gaps


@pytest.mark.parametrize(("target", "drop_identical", "filters"), [
    ("score", False, ()),
    ("score", True, (("modality", ("CT",)),)),
    ("sig_errors", False, (("system", ("sys-sloppy", "sys-terse")), ("split", ()))),
    ("total_errors", True, ()),
])
def test_point_estimates_equal_correlate_on_the_long_frame(awkward_store: Store, target: str, drop_identical: bool,
                                                             filters: tuple) -> None:
    matrix = pair_matrix(awkward_store, "demo", target, metrics=list(METRICS))
    mask = matrix.mask(drop_identical, filters)
    got = matrix.correlate(mask, n_boot=0, target_name=target, clustered=False)
    frame = _frame(awkward_store, target, drop_identical=drop_identical,
                   filters={f: list(v) for f, v in filters if v})
    want = correlate(frame, n_boot=0, min_n=10, target_name=target, cluster_col=None)
    _assert_same(got, want)
    if not filters and not drop_identical:  # the stored NaNs of bleu4 are counted, not dropped silently
        assert int(got.loc[got["metric"] == "bleu4", "n_missing"].iloc[0]) == 7
        assert int(got.loc[got["metric"] == "rouge_l", "n_missing"].iloc[0]) == 5


def test_bootstrap_with_clusters_equals_correlate(awkward_store: Store) -> None:
    matrix = pair_matrix(awkward_store, "demo", "score", metrics=list(METRICS))
    mask = matrix.mask(False, (("modality", ("CT", "MRI")),))
    got = matrix.correlate(mask, n_boot=200, seed=3, target_name="score", clustered=True)
    want = correlate(_frame(awkward_store, "score", filters={"modality": ["CT", "MRI"]}), n_boot=200, seed=3,
                     min_n=10, target_name="score", cluster_col="group_id")
    _assert_same(got, want)
    assert set(got["resampling"]) == {"groups"}
    assert got["ci_low"].notna().any()


def test_breakdown_equals_breakdown_on_the_long_frame(awkward_store: Store) -> None:
    matrix = pair_matrix(awkward_store, "demo", "score", metrics=list(METRICS))
    chosen = [matrix.index_of("rules", "green"), matrix.index_of("lexical", "rouge_l")]
    assert None not in chosen
    mask = matrix.mask(True, ())
    got = matrix.breakdown(mask, "modality", series=chosen, target_name="score")
    frame = _frame(awkward_store, "score", drop_identical=True)
    frame = frame[((frame["judge"] == "rules") & (frame["metric"] == "green"))
                  | ((frame["judge"] == "lexical") & (frame["metric"] == "rouge_l"))]
    want = breakdown(frame, by_facet="modality", n_boot=0, min_n=10, target_name="score", cluster_col=None)
    _assert_same(got, want)
    assert "(missing)" in set(got["modality"])


def test_a_filter_on_an_unknown_facet_is_refused(awkward_store: Store) -> None:
    matrix = pair_matrix(awkward_store, "demo", "score")
    with pytest.raises(ValueError, match="facets are"):
        matrix.mask(False, (("reference", ("x",)),))


@pytest.mark.parametrize("target", TARGETS)
def test_ratings_on_the_matrix_give_inter_annotator_on_the_long_values(awkward_store: Store, target: str) -> None:
    matrix = pair_matrix(awkward_store, "demo", target, metrics=list(METRICS))
    values = annotator_target_values(awkward_store, "demo", target)
    names, ratings = read_ratings(awkward_store, matrix, "demo", target)
    mask = matrix.mask(True, (("modality", ("CT", "US")),))
    got = agreement_matrix(ratings[:, mask], names, "interval")
    in_view = set(matrix.pairs["pair_id"].astype(object)[mask])
    want = inter_annotator(values[values["pair_id"].isin(in_view)], "interval")
    assert (got.alpha, got.n_units, got.n_annotators) == (want.alpha, want.n_units, want.n_annotators)
    assert got.n_units > 0 and not np.isnan(got.alpha)
    pd.testing.assert_frame_equal(got.pairwise, want.pairwise)
    # one annotator only: its row, the same values
    (first,) = names[:1]
    only, mine = read_ratings(awkward_store, matrix, "demo", target, [first])
    assert only == [first]
    np.testing.assert_array_equal(mine[0], ratings[0])


def test_an_annotator_twice_on_one_pair_is_refused(awkward_store: Store, tmp_path) -> None:
    store = copy_store(awkward_store, tmp_path / "twice.duckdb")
    with store.write() as conn:
        conn.execute("INSERT INTO annotations (pair_id, annotator, field, category, significant, value, scale_max, "
                     "source) SELECT pair_id, annotator, field, category, significant, value, scale_max, source "
                     "FROM annotations WHERE field = 'score' LIMIT 1")
    matrix = pair_matrix(store, "demo", "score")
    with pytest.raises(ValueError, match="more than once"):
        read_ratings(store, matrix, "demo", "score")


# -- integer pair keys (migration 005) ------------------------------------------------------------


def _long(store: Store) -> pd.DataFrame:
    return pair_matrix(store, "demo", "score", metrics=list(METRICS)).long()


def test_values_meet_their_pairs_by_number_or_else_by_id(awkward_store: Store, tmp_path) -> None:
    want = _long(awkward_store)
    numbers = awkward_store.query_df("SELECT pair_no, count(*) AS n FROM pairs GROUP BY pair_no")
    assert numbers["pair_no"].notna().all() and (numbers["n"] == 1).all()  # every pair numbered once
    assert awkward_store.query_one("SELECT count(*) FROM metric_values m JOIN pairs p USING (pair_id) "
                                   "WHERE m.pair_no IS DISTINCT FROM p.pair_no") == 0  # writers copied them
    store = copy_store(awkward_store, tmp_path / "unnumbered.duckdb")
    with store.write() as conn:  # values stored without a number, and pairs written without one
        conn.execute("UPDATE metric_values SET pair_no = NULL WHERE hash(pair_id) % 3 = 0")
        conn.execute("UPDATE pairs SET pair_no = NULL WHERE hash(pair_id) % 5 = 0")
        conn.execute("UPDATE metric_values SET pair_no = NULL WHERE pair_id IN "
                     "(SELECT pair_id FROM pairs WHERE pair_no IS NULL)")
    assert store.query_one("SELECT count(*) FROM metric_values WHERE pair_no IS NULL") > len(want) // 4
    _assert_same(_long(store), want)
    # the join is on the number: values given another pair's number land on that pair, on top of its own
    with store.write() as conn:
        conn.execute("UPDATE metric_values SET pair_no = (SELECT max(pair_no) FROM pairs) WHERE pair_no = "
                     "(SELECT min(pair_no) FROM metric_values)")
    for read in (_long, lambda s: correlation_frame(s, "demo", "score", metrics=list(METRICS))):
        with pytest.raises(StoreError, match=r"value\(s\) fall on a \(pair, judge, metric\) that already has one"):
            read(store)
    report = check_store(store.path)
    assert any("whose pair_no is not their pair's" in p for p in report.problems)
    assert any("without a pair_no" in n for n in report.notes)


def test_migration_005_numbers_the_pairs_of_an_older_store(awkward_store: Store, tmp_path) -> None:
    want = _long(awkward_store)
    with awkward_store.write() as conn:  # a trashed dataset keeps its numbers through the migration
        conn.execute("INSERT INTO datasets (name, kind) VALUES ('gone', 'score')")
    from core.store.datasets import delete_dataset, restore_dataset

    record = delete_dataset(awkward_store, "gone")
    old = older_copy(awkward_store.path, tmp_path / "v4.duckdb", 4)
    restore_dataset(awkward_store, record.batch_id)
    migrated = Store(old)
    assert migrated.schema_version() == latest_schema_version() >= 5
    _assert_same(_long(migrated), want)
    assert migrated.query_one("SELECT count(*), count(DISTINCT pair_no), count(pair_no) FROM pairs") == \
        (awkward_store.query_one("SELECT count(*) FROM pairs"),) * 3
    assert migrated.query_one("SELECT count(*) FROM metric_values WHERE pair_no IS NULL") == 0
    report = check_store(migrated.path)
    assert report.ok, report.problems
