"""Report checks (``checks:en-US``, judge_kind 'checks') are no judges of agreement: the judge tables and
pickers leave them out by default; the judges leaderboard, which names their metric, still gets them."""

from __future__ import annotations

import pytest

from core.checks.store import run_checks
from core.reads.frames import correlation_frame, feature_frame, is_checks_run, judge_runs, judge_values
from core.reads.leaderboard import judges_leaderboard
from core.reads.pairmatrix import pair_matrix
from core.store.db import Store
from tests.apptest_helpers import judged_copy


@pytest.fixture(scope="module")
def checked(demo_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = judged_copy(demo_store, tmp_path_factory, "checks-not-judges", "lexical")
    run_checks(store, "demo", "en-US")
    return store


def test_checks_are_left_out_of_judge_frames(checked: Store):
    runs = judge_runs(checked, "demo")
    assert set(runs.loc[is_checks_run(runs), "judge"]) == {"checks:en-US"}  # stored, and recognised
    assert set(judge_runs(checked, "demo", checks=False)["judge"]) == {"lexical"}
    for target in ("score", "sig_errors"):
        frame = correlation_frame(checked, "demo", target, counts=False)  # what `correlate` reads
        assert set(frame["judge"]) == {"lexical"}
        assert not frame["metric"].str.startswith("laias_").any()
        matrix = pair_matrix(checked, "demo", target, counts=False)  # what the Correlations page reads
        assert set(matrix.series["judge"]) == {"lexical"}
    assert "checks:en-US" not in set(judge_values(checked, "demo")["judge"])
    assert not [c for c in feature_frame(checked, "demo").columns if c.startswith("checks:")]  # ensembles


def test_checks_come_back_when_asked(checked: Store):
    asked = correlation_frame(checked, "demo", "score", checks=True)
    assert "checks:en-US" in set(asked["judge"])
    named = correlation_frame(checked, "demo", "score", metrics=["laias_overall"])
    assert set(named["judge"]) == {"checks:en-US"}
    assert "checks:en-US" in set(pair_matrix(checked, "demo", "score", checks=True).series["judge"])
    board = judges_leaderboard(checked, "demo", n_boot=0)  # names laias_overall: the checks take part there
    assert "checks:en-US" in set(board["judge"])


def test_the_cli_correlate_table_has_no_checks_row(checked: Store, capsys):
    from core.cli.main import main

    assert main(["--store", str(checked.path), "correlate", "--dataset", "demo", "--n-boot", "0", "--table"]) == 0
    out = capsys.readouterr().out
    assert "lexical" in out and "checks:" not in out and "laias_" not in out
