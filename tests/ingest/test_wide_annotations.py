"""Wide annotation layouts (issue 43, item 7): one row per pair per rater, a count column per category x
significance, through ``import-annotations --wide``; checked against the same counts imported long form.

Also: problems are listed in the file's row order, and counts going into a score dataset are warned about.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from core.cli.main import main as cli
from core.ingest.importers import (
    ImportValidationError,
    PairColumns,
    detect_wide_columns,
    import_annotations,
    import_pairs,
    parse_wide_cols,
)
from core.store.db import Store
from tests.csv_files import write_csv as _csv

IDS = ["r1", "r2", "r3"]
CATS = "abcdef"
# (id, rater) -> 12 counts: sig a..f then insig a..f
COUNTS = {("r1", "dr_a"): [1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3], ("r1", "dr_b"): [0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0],
          ("r2", "dr_a"): [0] * 12, ("r3", "dr_a"): [0, 4, 0, 0, 1, 0, 0, 0, 2, 0, 0, 1],
          ("r3", "dr_b"): [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]}


def _store(path: Path, kind: str = "error_counts") -> Store:
    store = Store(path)
    pairs = pd.DataFrame({"id": IDS, "ref": ["No effusion.", "Normal.", "Mild edema."],
                          "cand": ["Small effusion.", "Normal.", "No edema."]})
    import_pairs(store, pairs, dataset="d", columns=PairColumns("id", "ref", "cand"), kind=kind)
    return store


def _wide_file(path: Path, sig: str = "{c}_significant", insig: str = "{c}_minor") -> Path:
    header = ["id", "rater"] + [sig.format(c=c) for c in CATS] + [insig.format(c=c) for c in CATS]
    return _csv(path, header, [[i, r, *v] for (i, r), v in COUNTS.items()])


def _long_file(path: Path) -> Path:
    rows = [[i, r, c, sig, v[k + (0 if sig == "yes" else 6)]]
            for (i, r), v in COUNTS.items() for sig in ("yes", "no") for k, c in enumerate(CATS)]
    return _csv(path, ["id", "rater", "category", "significant", "count"], rows)


def _stored(store: Store) -> list[tuple]:
    return [tuple(r) for r in store.query_df(
        "SELECT pair_id, annotator, field, category, significant, value FROM annotations "
        "ORDER BY ALL").itertuples(index=False)]


def _cli(store: Store, capsys, *args: str) -> tuple[int, str, str]:
    code = cli(["--store", str(store.path), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("sig,insig", [("{c}_significant", "{c}_minor"), ("sig_{c}", "insig_{c}"),
                                       ("{c} (clinically significant)", "{c} (not significant)"),
                                       ("Cat{n}_sig", "Cat{n}_nonsig")])
def test_wide_import_through_the_cli_stores_what_the_long_form_stores(tmp_path, capsys, sig, insig):
    long_store, wide_store = _store(tmp_path / "long.duckdb"), _store(tmp_path / "wide.duckdb")
    code, _, err = _cli(long_store, capsys, "import-annotations", str(_long_file(tmp_path / "long.csv")),
                        "--dataset", "d", "--id-col", "id", "--annotator-col", "rater", "--category-col",
                        "category", "--significant-col", "significant", "--count-col", "count")
    assert code == 0, err
    path = tmp_path / "wide.csv"
    header = ["id", "rater"] + [sig.format(c=c, n=n) for n, c in enumerate(CATS, 1)] + \
        [insig.format(c=c, n=n) for n, c in enumerate(CATS, 1)]
    _csv(path, header, [[i, r, *v] for (i, r), v in COUNTS.items()])
    args = ["import-annotations", str(path), "--dataset", "d", "--id-col", "id", "--annotator-col", "rater"]
    code, out, err = _cli(wide_store, capsys, *args, "--wide")
    assert code == 0, err
    assert "added: 60" in out  # 5 rows x 12 cells
    assert _stored(wide_store) == _stored(long_store) and len(_stored(long_store)) == 60
    assert _cli(wide_store, capsys, *args, "--wide")[1].count("added: 0") == 1  # again: nothing new


def test_columns_the_names_do_not_say_are_given_with_wide_cols(tmp_path, capsys):
    store = _store(tmp_path / "s.duckdb")
    path = _wide_file(tmp_path / "w.csv")
    frame = pd.read_csv(path, dtype=str).rename(columns={"a_significant": "false finding (major)",
                                                         "a_minor": "false finding (other)"})
    frame.to_csv(path, index=False)
    args = ["import-annotations", str(path), "--dataset", "d", "--id-col", "id", "--annotator-col", "rater",
            "--wide"]
    code, _, err = _cli(store, capsys, *args)
    assert code == 2 and "no column for 2 of the 12 cells (sig_a, insig_a)" in err
    assert store.query_one("SELECT count(*) FROM annotations") == 0
    code, _, err = _cli(store, capsys, *args, "--wide-cols", "sig_a=false finding (major),a_minor=false finding (other)")
    assert code == 0, err
    assert store.query_one("SELECT sum(value) FROM annotations WHERE category = 'a' AND significant") == 2
    code, _, err = _cli(store, capsys, *args[:-1], "--wide-cols", "sig_a=x")  # implies --wide
    assert code == 2 and "column(s) x not in the file" in err


def test_detected_spellings_and_ambiguous_ones():
    cols = ["id", "rater", "split", "b", "system_a", *[f"{c}_significant" for c in CATS], *[f"insig_{c}" for c in CATS]]
    found = detect_wide_columns(cols)
    assert found == {**{f"sig_{c}": f"{c}_significant" for c in CATS}, **{f"insig_{c}": f"insig_{c}" for c in CATS}}
    with pytest.raises(ImportValidationError, match="cell sig_a is spelled by 2 columns"):
        from core.ingest.importers import resolve_wide_columns
        resolve_wide_columns([*cols, "sig_a"])
    assert parse_wide_cols("sig_a=A,b_minor=B") == {"sig_a": "A", "insig_b": "B"}
    with pytest.raises(ImportValidationError, match="give CELL=COLUMN"):
        parse_wide_cols("g_sig=A")


def test_a_bad_wide_file_names_every_problem_by_row_and_column_in_row_order_and_writes_nothing(tmp_path, capsys):
    store = _store(tmp_path / "s.duckdb")
    rows = [[i, r, *v] for (i, r), v in COUNTS.items()]
    rows[4][0] = "zz"          # row 5: not a pair
    rows[3][2 + 7] = "two"     # row 4: insig_b not a number
    rows[2][1] = "dr_a"        # row 3: r2 / dr_a (as row 3 already): fine
    rows[1][1] = "dr_a"        # row 2: r1 / dr_a again (row 1)
    rows[0][2] = "-1"          # row 1: sig_a negative
    path = _csv(tmp_path / "bad.csv", ["id", "rater"] + [f"sig_{c}" for c in CATS] + [f"insig_{c}" for c in CATS],
                rows)
    version = store.data_version()
    with pytest.raises(ImportValidationError) as caught:
        import_annotations(store, path, dataset="d", id_col="id", annotator_col="rater", wide_cols={})
    assert caught.value.problems == [
        "1 of 5 ids are not pairs of dataset 'd': the file's ids look like 'zz'; the dataset's look like "
        "'r1', 'r2', 'r3'",
        "row 1, column 'sig_a': count '-1' is not a whole number >= 0",
        "duplicate annotation (id / annotator) 'r1 / dr_a' on rows 1 and 2",
        "row 4, column 'insig_b': count 'two' is not a whole number >= 0",
        "row 5: id 'zz' is not a pair of dataset 'd'",
    ]
    assert store.data_version() == version and store.query_one("SELECT count(*) FROM annotations") == 0


def test_long_form_problems_are_listed_in_row_order(tmp_path):
    store = _store(tmp_path / "s.duckdb")
    path = _csv(tmp_path / "long.csv", ["id", "rater", "category", "significant", "count"],
                [["r1", "dr_a", "g", "yes", "1"], ["r2", "", "a", "yes", "1"], ["", "dr_a", "a", "maybe", "1"]])
    with pytest.raises(ImportValidationError) as caught:
        import_annotations(store, path, dataset="d", id_col="id", annotator_col="rater", category_col="category",
                           significant_col="significant", count_col="count")
    rows = [int(p.split(":")[0].split()[1]) for p in caught.value.problems]
    assert rows == sorted(rows) == [1, 2, 3, 3], caught.value.problems


def test_error_counts_into_a_score_dataset_are_warned_about(tmp_path, capsys):
    store = _store(tmp_path / "s.duckdb", kind="score")
    code, out, err = _cli(store, capsys, "import-annotations", str(_wide_file(tmp_path / "w.csv")), "--dataset", "d",
                          "--id-col", "id", "--annotator-col", "rater", "--wide")
    assert code == 0, err
    assert "dataset 'd' is a score dataset, and these annotations are error counts" in out


def test_pairs_with_their_wide_counts_in_one_file_into_a_score_dataset_are_refused_whole(tmp_path):
    from core.ingest.importers import import_counted_pairs

    store = _store(tmp_path / "s.duckdb", kind="score")  # r1-r3 exist, declared score
    texts = {"r1": ("No effusion.", "Small effusion."), "r2": ("Normal.", "Normal."), "r3": ("Mild edema.", "No edema.")}
    header = ["id", "ref", "cand", "rater"] + [f"sig_{c}" for c in CATS] + [f"insig_{c}" for c in CATS]
    path = _csv(tmp_path / "both.csv", header, [[i, *texts[i], r, *v] for (i, r), v in COUNTS.items()])
    version = store.data_version()
    with pytest.raises(ImportValidationError, match="dataset 'd' exists with kind 'score', not 'error_counts'"):
        import_counted_pairs(store, path, dataset="d", columns=PairColumns("id", "ref", "cand"), wide_cols={},
                             annotator_col="rater")
    assert store.data_version() == version and store.query_one("SELECT count(*) FROM annotations") == 0
    fresh = import_counted_pairs(store, path, dataset="d2", columns=PairColumns("id", "ref", "cand"), wide_cols={},
                                 annotator_col="rater")
    assert (fresh.rows, fresh.added) == (3, 3) and store.query_one("SELECT count(*) FROM annotations") == 60
