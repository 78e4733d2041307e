"""The Data page's import wizard through AppTest (issue 43, item 7): wide annotation layouts (a row per pair
per rater, a count column per category x significance) with their mapping grid, settings kept when a fixed
file is uploaded again, and problems listed in row order."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from core.cli.main import main as cli
from core.ingest.importers import PairColumns, import_pairs
from core.reads.queries import list_datasets
from core.store.db import Store
from tests.csv_files import write_csv as _csv

CATS = "abcdef"
ROWS = [("r1", "dr_a", [1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3]), ("r1", "dr_b", [0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0]),
        ("r2", "dr_a", [0] * 12), ("r3", "dr_a", [0, 4, 0, 0, 1, 0, 0, 0, 2, 0, 0, 1]),
        ("r3", "dr_b", [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0])]
TEXTS = {"r1": ("No effusion.", "Small effusion."), "r2": ("Normal.", "Normal."), "r3": ("Mild edema.", "No edema.")}
WIDE_HEADER = [f"{c}_significant" for c in CATS] + [f"{c}_minor" for c in CATS]


def _pairs_store(path: Path) -> Store:
    store = Store(path)
    ids = list(TEXTS)
    frame = pd.DataFrame({"id": ids, "ref": [TEXTS[i][0] for i in ids], "cand": [TEXTS[i][1] for i in ids]})
    import_pairs(store, frame, dataset="d", columns=PairColumns("id", "ref", "cand"), kind="error_counts")
    return store


def _stored(store: Store) -> list[tuple]:
    return [tuple(r) for r in store.query_df(
        "SELECT p.ext_id, a.annotator, a.category, a.significant, a.value FROM annotations a "
        "JOIN pairs p USING (pair_id) ORDER BY ALL").itertuples(index=False)]


def _data_page(app_test, store: Store):
    at = app_test(store)
    at.switch_page("pages/data.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _upload(at, path: Path) -> None:
    uploader = at.file_uploader(key="data_imp_file")
    uploader.clear()
    uploader.upload(path.name, path.read_bytes(), "text/csv")
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def _picked(at) -> dict[str, str | None]:
    return {s.key: s.value for s in at.selectbox if (s.key or "").startswith("data_imp_col_")}


def test_wide_annotations_through_the_wizard_store_what_the_cli_stores(app_test, tmp_path, capsys):
    path = _csv(tmp_path / "wide.csv", ["id", "rater", *WIDE_HEADER], [[i, r, *v] for i, r, v in ROWS])
    by_cli, by_wizard = _pairs_store(tmp_path / "cli.duckdb"), _pairs_store(tmp_path / "wizard.duckdb")
    assert cli(["--store", str(by_cli.path), "import-annotations", str(path), "--dataset", "d", "--id-col", "id",
                "--annotator-col", "rater", "--wide"]) == 0, capsys.readouterr().err

    at = _data_page(app_test, by_wizard)
    at.radio(key="data_imp_what").set_value("annotations").run()
    _upload(at, path)
    assert at.radio(key="data_imp_annmode").value == "wide"
    picked = _picked(at)
    assert picked["data_imp_col_id"] == "id" and picked["data_imp_col_annotator"] == "rater"
    grid = {k.removeprefix("data_imp_col_"): v for k, v in picked.items() if "sig_" in k}
    assert grid == {**{f"sig_{c}": f"{c}_significant" for c in CATS}, **{f"insig_{c}": f"{c}_minor" for c in CATS}}
    at.button(key="data_imp_go").click().run()
    assert not at.exception
    assert [s.value for s in at.success] == ["Imported 60 rows into dataset **d**: 60 added, 0 skipped (already "
                                             "stored)."]
    assert _stored(by_wizard) == _stored(by_cli) and len(_stored(by_cli)) == 60


def test_pairs_with_wide_counts_a_row_per_rater_import_in_one_step(app_test, tmp_store: Store, tmp_path):
    """The file the issue met: the pairs step refused it as duplicate ids (a pair's rows per rater)."""
    header = ["id", "reference", "candidate", "rater", *WIDE_HEADER]
    rows = [[i, *TEXTS[i], r, *v] for i, r, v in ROWS]
    path = _csv(tmp_path / "study.csv", header, rows)
    at = _data_page(app_test, tmp_store)
    _upload(at, path)
    assert at.checkbox(key="data_imp_counts_in_file").value is True
    assert at.selectbox(key="data_imp_kind").value == "error_counts"
    at.button(key="data_imp_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "3 added" in at.success[0].value
    row = list_datasets(tmp_store).set_index("name").loc["study"]
    assert (row["kind"], row["pairs"], row["annotations"], row["annotators"]) == ("error_counts", 3, 60, 2)
    assert tmp_store.query_one("SELECT sum(value) FROM annotations") == sum(sum(v) for _, _, v in ROWS)


def test_a_fixed_file_uploaded_again_keeps_kind_name_and_mapping_and_problems_come_in_row_order(
        app_test, tmp_store: Store, tmp_path):
    header = ["id", "reference", "candidate", "generator", "rater", *WIDE_HEADER]
    rows = [[i, *TEXTS[i], "m1", r, *v] for i, r, v in ROWS]
    rows[1][1] = "Other text."  # row 2: r1 again with another reference ...
    rows[1][6] = "x"  # ... and a count that is not a number
    rows[3][0] = ""  # row 4: no id
    bad = _csv(tmp_path / "export.csv", header, rows)
    at = _data_page(app_test, tmp_store)
    _upload(at, bad)
    at.text_input(key="data_imp_newname").set_value("mystudy")
    at.selectbox(key="data_imp_col_sig_a").set_value("a_minor")
    at.selectbox(key="data_imp_col_insig_a").set_value("a_significant")  # the rater's file has them swapped
    at.run()
    at.button(key="data_imp_go").click().run()
    assert not at.exception
    assert at.error[0].value.startswith("Nothing was imported: 3 problem(s)")
    assert "\n".join(c.value for c in at.main.code).splitlines() == [  # in row order, whichever check found them
        "row 2: id 'r1' repeats row 1 with a different reference",
        "row 2, column 'b_significant': count 'x' is not a whole number >= 0",
        "row 4: empty id in column 'id'"]
    assert list_datasets(tmp_store).empty

    fixed_rows = [[i, *TEXTS[i], "m1", r, *v] for i, r, v in ROWS]
    fixed = _csv(tmp_path / "export_fixed.csv", header, fixed_rows)
    at.file_uploader(key="data_imp_file").clear()
    at.run()  # the file removed: the wizard draws no settings in this run
    _upload(at, fixed)
    picked = _picked(at)
    assert at.text_input(key="data_imp_newname").value == "mystudy"
    assert at.selectbox(key="data_imp_kind").value == "error_counts"
    assert (picked["data_imp_col_system"], picked["data_imp_col_sig_a"], picked["data_imp_col_insig_a"]) == \
        ("generator", "a_minor", "a_significant")  # the guess, and the user's two choices
    at.button(key="data_imp_go").click().run()
    assert not at.exception
    assert "3 added" in at.success[0].value
    assert tmp_store.query_one("SELECT sum(value) FROM annotations WHERE category = 'a' AND significant") == \
        sum(v[6] for _, _, v in ROWS)  # the swapped columns, as set by the user


def _labelled(widgets, label: str):
    found = [w for w in widgets if w.label == label]
    assert len(found) == 1, [w.label for w in widgets]
    return found[0]


def test_a_dataset_kind_set_by_the_user_survives_the_upload_of_the_fixed_file(app_test, tmp_store: Store, tmp_path):
    """The issue's trap: the kind went back to "score" on re-upload, and a counts study became a score dataset.
    Widgets found by their labels, as a user finds them."""
    bad = _csv(tmp_path / "pairs.csv", ["id", "findings", "impression"], [["p1", "a", "b"], ["p1", "c", "d"]])
    at = _data_page(app_test, tmp_store)
    _upload(at, bad)
    assert _labelled(at.selectbox, "Dataset kind").value == "score"  # the guess
    _labelled(at.selectbox, "Dataset kind").set_value("error_counts")
    _labelled(at.selectbox, "Reference report column").set_value("findings")
    _labelled(at.selectbox, "Candidate report column").set_value("impression")
    _labelled(at.text_input, "New dataset name").set_value("counts-study")
    at.run()
    at.button(key="data_imp_go").click().run()
    assert "duplicate id 'p1' on rows 1 and 2" in "\n".join(c.value for c in at.main.code)
    fixed = _csv(tmp_path / "pairs_v2.csv", ["id", "findings", "impression"], [["p1", "a", "b"], ["p2", "c", "d"]])
    _upload(at, fixed)
    assert _labelled(at.selectbox, "Dataset kind").value == "error_counts"
    assert _labelled(at.text_input, "New dataset name").value == "counts-study"
    at.button(key="data_imp_go").click().run()
    assert not at.exception
    row = list_datasets(tmp_store).set_index("name").loc["counts-study"]
    assert (row["kind"], row["pairs"]) == ("error_counts", 2)
