"""import-outputs: each --format takes its own flags (core/cli/import_outputs.py, FORMAT_FLAGS); any other is
refused in one line with exit 2 before anything is read or stored. Real DuckDB store, the CLI's main()."""

from __future__ import annotations

import pandas as pd
import pytest

from core.cli.import_outputs import FLAG_DEST, FORMAT_FLAGS, ORIENTATION
from core.cli.main import build_parser, main
from core.ingest.demo import build_demo
from core.store.db import Store
from tests.cli.test_cli_radeval import EXAMPLE, IDS
from tests.conftest import copy_store

TABLES = ("judge_runs", "judge_outputs", "metric_values", "judge_errors")


@pytest.fixture(scope="module")
def base_store(tmp_path_factory) -> Store:
    store = Store(tmp_path_factory.mktemp("flags") / "base.duckdb")
    build_demo(store, n_pairs=20, seed=7)  # the pairs docs/examples/radeval_ids.txt names
    return store


@pytest.fixture
def store(base_store, tmp_path) -> Store:
    return copy_store(base_store, tmp_path / "s.duckdb")


@pytest.fixture
def outputs(tmp_path):
    """A table that --format green (score or text) and --format crimson could read: ids of the demo."""
    path = tmp_path / "outputs.csv"
    pairs = IDS.read_text(encoding="utf-8").split()
    pd.DataFrame({"id": pairs, "score": range(20), "answer": ["{}"] * 20}).to_csv(path, index=False)
    return path


def counts(store: Store) -> dict[str, int]:
    return {t: store.query_one(f"SELECT count(*) FROM {t}") for t in TABLES}


def run(store, capsys, *args):
    code = main(["--store", str(store.path), "import-outputs", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# A correct command of each format; the foreign flags below are added to it.
GOOD = {
    "green": ["--dataset", "demo", "--judge", "j", "--id-col", "id", "--score-col", "score"],
    "crimson": ["--dataset", "demo", "--judge", "j", "--id-col", "id", "--text-col", "answer"],
    "radeval": ["--dataset", "demo", "--ids", str(IDS)],
}
FOREIGN = [
    ("radeval", ["--crimson-map", "temporal=f"], "--crimson-map goes with --format crimson"),
    ("radeval", ["--text-col", "answer"], "--text-col goes with --format green or crimson"),
    ("radeval", ["--score-col", "score"], "--score-col goes with --format green or crimson"),
    ("radeval", ["--metric", "m"], "--metric goes with --format green"),
    ("radeval", ["--lower-is-better"], f"{ORIENTATION} goes with --format green"),
    ("crimson", ["--ids", str(IDS)], "--ids goes with --format radeval"),
    ("crimson", ["--metric", "m"], "--metric goes with --format green"),
    ("crimson", ["--higher-is-better"], f"{ORIENTATION} goes with --format green"),
    ("green", ["--ids", str(IDS)], "--ids goes with --format radeval"),
    ("green", ["--crimson-map", "temporal=f"], "--crimson-map goes with --format crimson"),
]


def _file(fmt, outputs):
    return str(EXAMPLE if fmt == "radeval" else outputs)


@pytest.mark.parametrize(("fmt", "extra", "words"), FOREIGN, ids=[f"{f}{e[0]}" for f, e, _ in FOREIGN])
def test_a_flag_of_another_format_is_refused_in_one_line_and_nothing_is_stored(store, outputs, capsys, fmt, extra,
                                                                                 words):
    before = counts(store)
    code, out, err = run(store, capsys, _file(fmt, outputs), "--format", fmt, *GOOD[fmt], *extra)
    assert code == 2 and out == ""
    assert err.strip() == (f"error: {extra[0] if extra[0] in FLAG_DEST else ORIENTATION} do(es) not apply to "
                           f"--format {fmt} ({words})"), err
    assert counts(store) == before


@pytest.mark.parametrize("fmt", list(GOOD))
def test_the_same_commands_without_the_foreign_flag_import(store, outputs, capsys, fmt):
    """The refusals above are the flag's, not the command's: without it each command stores a run."""
    code, _, err = run(store, capsys, _file(fmt, outputs), "--format", fmt, *GOOD[fmt], "--json")
    assert code == 0, err
    assert counts(store)["judge_runs"] == 1


def test_green_flags_that_go_with_a_score_column_and_the_choice_of_column(store, outputs, capsys):
    base = [str(outputs), "--dataset", "demo", "--judge", "j", "--id-col", "id"]
    cases = [(["--text-col", "answer", "--metric", "m"], "error: --metric goes with --score-col (--format green)"),
             (["--text-col", "answer", "--lower-is-better"],
              f"error: {ORIENTATION} goes with --score-col (--format green)"),
             (["--text-col", "answer", "--score-col", "score"], "error: give either --text-col or --score-col (not "
                                                                "both): --format green reads a table"),
             ([], "error: give either --text-col or --score-col (not both)")]
    for extra, words in cases:
        code, _, err = run(store, capsys, *base, *extra)
        assert code == 2 and err.startswith(words) and err.count("\n") == 1, (extra, err)
    code, _, err = run(store, capsys, str(outputs), "--dataset", "demo", "--score-col", "score")
    assert code == 2 and err.startswith("error: give --judge and --id-col: --format green")
    assert counts(store) == dict.fromkeys(TABLES, 0)


def test_every_flag_the_table_names_is_an_option_and_every_format_a_choice():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["import-outputs"]
    options = {s for a in sub._actions for s in a.option_strings}
    for flag in FLAG_DEST:
        assert set(flag.split("/")) <= options, flag
    fmt_action = next(a for a in sub._actions if a.dest == "format")
    assert list(fmt_action.choices) == list(FORMAT_FLAGS)
    for spec in FORMAT_FLAGS.values():
        assert set(spec.flags) <= set(FLAG_DEST)
        assert all(need in ("required", "optional", "exactly one") or need in spec.flags
                   for need in spec.flags.values())
