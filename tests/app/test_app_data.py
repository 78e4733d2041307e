"""The Data page through streamlit.testing.v1.AppTest (app.py as the entry point).

AppTest drives the import wizard like a user: ``file_uploader.upload(...)``
puts the file's bytes in the uploader, the column mapping is prefilled from
the column names, and ``button.click()`` runs the import.
"""

from __future__ import annotations

import pandas as pd

from core.ingest.importers import PairColumns, import_pairs
from core.judges import run_judge
from core.reads.queries import facet_values, find_pairs, get_pair, list_datasets
from core.store.db import Store
from ui.import_wizard import ImportRequest, guess_mapping, missing_inputs, run_import


def _caption_starting(at, prefix: str) -> str:
    found = [c.value for c in at.caption if c.value.startswith(prefix)]
    assert found, f"no caption starting {prefix!r}; captions: {[c.value for c in at.caption]}"
    return found[0]


def _pairs_count_caption(at) -> str:
    found = [c.value for c in at.caption if c.value.startswith(("showing", "no pairs"))]
    assert len(found) == 1, [c.value for c in at.caption]
    return found[0]


def _pairs_table(at):
    tables = [d for d in at.dataframe if (d.key or "").startswith("data_pairs_")]
    assert len(tables) == 1
    return tables[0]


def _table_with(at, column: str) -> pd.DataFrame:
    """The one table that has ``column`` (read-only tables expose no key to AppTest)."""
    found = [d.value for d in at.dataframe if column in d.value.columns]
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]
    return found[0]


def _assert_ok(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


# -- browsing ------------------------------------------------------------------------


def _data_page(at):
    """Open the Data page (the home page is Correlations once a dataset has runs and annotations)."""
    at.switch_page("pages/data.py")
    return at.run()


def _title(at) -> str:
    return at.title[0].value if at.title else ""


def test_home_is_data_until_a_dataset_has_annotations_and_runs_then_correlations(
        app_test, demo_store_copy: Store, tmp_store: Store, tmp_path):
    assert _title(app_test(tmp_store).run()) == "Data"  # empty store
    assert _title(app_test(demo_store_copy).run()) == "Data"  # annotations, no judge run yet
    run_judge(demo_store_copy, dataset="demo", judge="rules", limit=30)
    at = app_test(demo_store_copy).run()
    _assert_ok(at)
    assert _title(at) == "Correlations"
    # pairs and a run but no annotations: nothing to correlate with, still Data
    pairs_only = Store(tmp_path / "pairs-only.duckdb")
    frame = pd.DataFrame({"id": ["1", "2"], "ref": ["No effusion.", "Clear lungs."],
                          "cand": ["Small effusion.", "Clear lungs."]})
    import_pairs(pairs_only, frame, dataset="fresh", columns=PairColumns("id", "ref", "cand"))
    run_judge(pairs_only, dataset="fresh", judge="rules")
    assert _title(app_test(pairs_only).run()) == "Data"


def test_data_page_shows_the_demo_dataset_and_synthetic_badge(app_test, demo_store: Store):
    at = _data_page(app_test(demo_store))
    _assert_ok(at)
    assert at.title[0].value == "Data"
    datasets = _table_with(at, "origin")
    assert datasets["name"].tolist() == ["demo"]
    assert datasets["origin"].tolist() == ["synthetic"]
    assert at.sidebar.selectbox(key="dataset").value == "demo"
    assert any("synthetic" in m.value and "badge" in m.value for m in at.sidebar.markdown)
    assert _pairs_count_caption(at).startswith("showing 1-50 of 120 pairs")
    assert len(_pairs_table(at).value) == 50
    assert at.query_params["dataset"] == "demo"


def test_filters_narrow_the_count_and_are_written_to_the_url(app_test, demo_store: Store):
    at = _data_page(app_test(demo_store))
    modality = at.multiselect(key="data_modality").options[0]
    _, expected = find_pairs(demo_store, "demo", modality=[modality])
    assert 0 < expected < 120

    at.multiselect(key="data_modality").set_value([modality]).run()
    _assert_ok(at)
    assert f"of {expected:,} pairs" in _pairs_count_caption(at)
    assert at.query_params["modality"] == modality

    frame, _ = find_pairs(demo_store, "demo", modality=[modality], limit=1)
    ext_id = frame["ext_id"].iloc[0]
    _, narrowed = find_pairs(demo_store, "demo", modality=[modality], text=ext_id)
    at.text_input(key="data_q").set_value(ext_id).run()
    _assert_ok(at)
    assert f"of {narrowed:,} pairs" in _pairs_count_caption(at)
    assert narrowed < expected
    assert at.query_params["q"] == ext_id

    at.text_input(key="data_q").set_value("no such text anywhere").run()
    assert _pairs_count_caption(at) == "no pairs match these filters"


def test_paging_shows_the_range(app_test, demo_store: Store):
    at = _data_page(app_test(demo_store))
    pager = [p for p in at.pagination if (p.key or "").startswith("data_page_")][0]
    assert pager.num_pages == 3
    pager.set_value(3).run()
    _assert_ok(at)
    assert _pairs_count_caption(at).startswith("showing 101-120 of 120 pairs")
    assert at.query_params["page"] == "3"


def test_a_shared_url_reproduces_the_view(app_test, demo_store: Store):
    modality = facet_values(demo_store, "demo")["modality"][-1]
    frame, total = find_pairs(demo_store, "demo", modality=[modality], limit=1)
    pair_id = frame["pair_id"].iloc[0]
    at = _data_page(app_test(demo_store, {"dataset": "demo", "modality": modality, "pair": pair_id}))
    _assert_ok(at)
    assert at.multiselect(key="data_modality").value == [modality]
    assert f"of {total:,} pairs" in _pairs_count_caption(at)
    pair = get_pair(demo_store, pair_id)
    texts = [t.value for t in at.text]
    assert pair["reference"] in texts and pair["candidate"] in texts


def test_a_url_page_past_the_end_shows_the_last_page(app_test, demo_store: Store):
    at = _data_page(app_test(demo_store, {"page": "99"}))
    _assert_ok(at)
    assert _pairs_count_caption(at).startswith("showing 101-120 of 120")


def test_selecting_a_row_opens_the_pair_with_its_annotations(app_test, demo_store: Store):
    at = _data_page(app_test(demo_store))
    table = _pairs_table(at)
    pair_id = table.value["pair_id"].iloc[1]
    # A dataframe's selection is set through its key, as the browser would send it.
    at.session_state[table.key] = {"selection": {"rows": [1], "columns": [], "cells": []}}
    at.run()
    _assert_ok(at)
    pair = get_pair(demo_store, pair_id)
    assert any(pair["ext_id"].replace("-", "\\-") in s.value for s in at.subheader)
    texts = [t.value for t in at.text]
    assert pair["reference"] in texts and pair["candidate"] in texts
    assert at.query_params["pair"] == pair_id
    # Both demo annotators: an overall score each and counts per category a-f.
    assert len([m for m in at.metric if "overall score" in m.label]) == 2
    counts = _table_with(at, "error type")
    assert counts["category"].tolist() == ["a", "b", "c", "d", "e", "f", "total"]
    assert {"expert_1 sig", "expert_1 insig", "expert_2 sig", "expert_2 insig"} <= set(counts.columns)
    assert counts["error type"].iloc[0] == "False report of a finding"

    # Clearing the selection closes the pair.
    at.session_state[table.key] = {"selection": {"rows": [], "columns": [], "cells": []}}
    at.run()
    assert "pair" not in at.query_params
    assert not at.metric


# -- import wizard -----------------------------------------------------------------------

PAIRS_CSV = (
    "id,reference,candidate,modality\n"
    'r1,"<b>Left</b> effusion, small.",No effusion.,CT\n'
    "r2,Normal heart size.,Cardiomegaly.,XR\n"
    "r3,No pneumothorax.,No pneumothorax.,CT\n"
)


def _upload(at, path) -> None:
    at.file_uploader(key="data_imp_file").upload(path.name, path.read_bytes(), "text/csv")
    at.run()
    _assert_ok(at)


def test_import_wizard_imports_pairs_then_annotations(app_test, tmp_store: Store, tmp_path):
    pairs_file = tmp_path / "My pairs.csv"
    pairs_file.write_text(PAIRS_CSV, encoding="utf-8")
    at = _data_page(app_test(tmp_store))
    _assert_ok(at)

    at.radio(key="data_imp_what").set_value("pairs")
    _upload(at, pairs_file)
    preview = [d.value for d in at.dataframe if list(d.value.columns) == ["id", "reference", "candidate",
                                                                           "modality"]]
    assert len(preview) == 1 and len(preview[0]) == 3
    picked = {s.label: s.value for s in at.selectbox}
    assert picked["ID column"] == "id"
    assert picked["Reference report column"] == "reference"
    assert picked["Candidate report column"] == "candidate"
    assert picked["Modality column"] == "modality"
    name = [t for t in at.text_input if t.label == "New dataset name"][0]
    assert name.value == "my-pairs"
    name.set_value("mine")
    at.button(key="data_imp_go").click().run()
    _assert_ok(at)
    assert [s.value for s in at.success] == [
        "Imported 3 rows into dataset **mine**: 3 added, 0 skipped (already stored)."
    ]
    assert list_datasets(tmp_store)["name"].tolist() == ["mine"]
    # The app switched to the new dataset and browses it.
    assert at.sidebar.selectbox(key="dataset").value == "mine"
    assert _pairs_count_caption(at).startswith("showing 1-3 of 3 pairs")

    # Report text with HTML is shown as text, never rendered.
    at.session_state[_pairs_table(at).key] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert "<b>Left</b> effusion, small." in [t.value for t in at.text]
    assert not any("<b>" in m.value for m in at.markdown)
    assert not at.html

    scores_file = tmp_path / "scores.csv"
    scores_file.write_text("id,score\nr1,4\nr2,3.5\nr3,5\n", encoding="utf-8")
    at.radio(key="data_imp_what").set_value("annotations").run()
    _upload(at, scores_file)
    picked = {s.label: s.value for s in at.selectbox}
    assert (picked["ID column"], picked["Score column"], picked["Dataset"]) == ("id", "score", "mine")
    at.button(key="data_imp_go").click().run()
    _assert_ok(at)
    assert "3 added" in at.success[0].value
    mine = list_datasets(tmp_store).set_index("name").loc["mine"]
    assert (mine["annotators"], mine["annotations"]) == (1, 3)


def test_import_wizard_imports_a_preset(app_test, tmp_store: Store, tmp_path):
    rate = tmp_path / "rate_eval.csv"
    rate.write_text("gt_report,similar_report,Score\nNo effusion.,Small effusion.,2\nNormal.,Normal.,4.5\n",
                    encoding="utf-8")
    at = _data_page(app_test(tmp_store))
    at.radio(key="data_imp_what").set_value("preset").run()
    at.selectbox(key="data_imp_preset").set_value("rate-eval").run()
    _upload(at, rate)
    at.button(key="data_imp_go").click().run()
    _assert_ok(at)
    assert "2 added" in at.success[0].value
    imported = list_datasets(tmp_store).set_index("name").loc["rate_eval"]
    assert (imported["kind"], imported["pairs"], imported["annotations"]) == ("score", 2, 2)


def test_import_wizard_reimport_skips_rows(app_test, tmp_store: Store, tmp_path):
    pairs_file = tmp_path / "pairs.csv"
    pairs_file.write_text(PAIRS_CSV, encoding="utf-8")
    at = _data_page(app_test(tmp_store))
    _upload(at, pairs_file)
    at.button(key="data_imp_go").click().run()
    assert "3 added" in at.success[0].value
    # Same file again, into the dataset it created.
    at.selectbox(key="data_imp_target_pairs").set_value("pairs").run()
    at.button(key="data_imp_go").click().run()
    _assert_ok(at)
    assert "0 added, 3 skipped" in at.success[0].value


def test_import_wizard_lists_every_problem_and_imports_nothing(app_test, demo_store_copy: Store, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,reference,candidate\nx1,a,b\nx1,c,d\nx2,,e\n", encoding="utf-8")
    version = demo_store_copy.data_version()
    at = _data_page(app_test(demo_store_copy))
    _upload(at, bad)
    at.button(key="data_imp_go").click().run()
    _assert_ok(at)
    assert len(at.error) == 1
    assert at.error[0].value.startswith("Nothing was imported: 2 problem(s)")
    problems = "\n".join(c.value for c in at.main.code)
    assert "duplicate id 'x1' on rows 1 and 2" in problems
    assert "row 3: empty reference" in problems
    assert not at.success
    assert list_datasets(demo_store_copy)["name"].tolist() == ["demo"]
    assert demo_store_copy.data_version() == version


def test_import_wizard_takes_pairs_with_their_scores_in_one_step(app_test, tmp_store: Store, tmp_path):
    scored = tmp_path / "scored.csv"
    scored.write_text("id,reference,candidate,rating\nr1,No effusion.,Small effusion.,2\n"
                      "r2,Normal.,Normal.,5\n", encoding="utf-8")
    at = _data_page(app_test(tmp_store))
    _upload(at, scored)
    picked = {s.label: s.value for s in at.selectbox}
    assert picked["Score column"] == "rating"  # guessed, in the pairs step itself
    assert not [s for s in at.selectbox if "➕" in str(s.value) or any("➕" in str(o) for o in s.options)]
    at.text_input(key=[t.key for t in at.text_input if t.label == "Whose scores (annotator name)"][0]) \
        .set_value("dr_a")
    at.button(key="data_imp_go").click().run()
    _assert_ok(at)
    assert "2 added" in at.success[0].value
    row = list_datasets(tmp_store).set_index("name").loc["scored"]
    assert (row["kind"], row["pairs"], row["annotations"], row["annotators"]) == ("score", 2, 2, 1)
    values = tmp_store.query_df("SELECT annotator, value, scale_max FROM annotations ORDER BY value")
    assert values.values.tolist() == [["dr_a", 2.0, 5.0], ["dr_a", 5.0, 5.0]]


def test_a_bad_score_imports_neither_pairs_nor_scores_and_clears_the_progress(app_test, tmp_store: Store, tmp_path):
    scored = tmp_path / "scored.csv"
    scored.write_text("id,reference,candidate,score\nr1,a,b,2\nr2,c,d,seven\n", encoding="utf-8")
    at = _data_page(app_test(tmp_store))
    _upload(at, scored)
    at.button(key="data_imp_go").click().run()
    _assert_ok(at)
    assert at.error[0].value.startswith("Nothing was imported: 1 problem(s)")
    assert "row 2: score 'seven' is not a number" in "\n".join(c.value for c in at.main.code)
    assert not at.get("progress")  # not left at "validating (1/3)"
    assert list_datasets(tmp_store).empty and tmp_store.query_one("SELECT count(*) FROM pairs") == 0


def test_import_wizard_reports_an_unreadable_file(app_test, tmp_store: Store):
    at = _data_page(app_test(tmp_store))
    at.file_uploader(key="data_imp_file").upload("notes.csv", b"\xff\xfe\x00bad", "text/csv").run()
    _assert_ok(at)
    assert at.error[0].value == "This file cannot be read:"
    assert "data_imp_go" not in [b.key for b in at.button]


# -- delete with undo ------------------------------------------------------------------------


def test_delete_dataset_needs_its_name_and_undo_restores_it(app_test, demo_store_copy: Store):
    listed = list_datasets(demo_store_copy)
    at = _data_page(app_test(demo_store_copy))
    _assert_ok(at)
    assert at.button(key="data_delete").disabled  # nothing typed yet
    at.text_input(key="data_delete_confirm").set_value("dem").run()
    assert at.button(key="data_delete").disabled
    assert list_datasets(demo_store_copy)["name"].tolist() == ["demo"]

    at.text_input(key="data_delete_confirm").set_value("demo").run()
    at.button(key="data_delete").click().run()
    _assert_ok(at)
    assert list_datasets(demo_store_copy).empty
    assert "Deleted dataset **demo**: 120 pairs" in at.warning[0].value
    assert "python -m core demo" in at.info[0].value  # the store is empty now
    assert "data_delete" not in [b.key for b in at.button]  # nothing left to delete

    at.button(key="data_undo").click().run()
    _assert_ok(at)
    pd.testing.assert_frame_equal(list_datasets(demo_store_copy), listed)
    assert at.success[0].value == "Restored dataset **demo** from the trash."
    assert not at.warning and "data_undo" not in [b.key for b in at.button]
    assert at.sidebar.selectbox(key="dataset").value == "demo"
    assert _pairs_count_caption(at).startswith("showing 1-50 of 120 pairs")


# -- empty and broken stores ---------------------------------------------------------------


def test_empty_store_explains_how_to_start(app_test, tmp_store: Store):
    at = app_test(tmp_store).run()  # no data yet: Data is the home page
    _assert_ok(at)
    assert "python -m core demo" in at.info[0].value
    assert "Import data" in at.info[0].value
    assert not [s for s in at.sidebar.selectbox if s.key == "dataset"]
    assert at.file_uploader(key="data_imp_file") is not None
    assert "dataset" not in at.query_params


def test_unopenable_store_shows_an_error(app_test, tmp_path):
    folder = tmp_path / "not-a-store"
    folder.mkdir()
    at = app_test(folder).run()
    _assert_ok(at)
    assert at.error and "Cannot open the store" in at.error[0].value


# -- the wizard's plain functions ------------------------------------------------------------


def test_guess_mapping_uses_each_column_once():
    columns = ["Study ID", "GT_Report", "generated_report", "Model", "Body Part", "fold"]
    mapping = guess_mapping(columns, ["id", "reference", "candidate", "group", "system", "anatomy", "split",
                                      "modality"])
    assert mapping == {"id": "Study ID", "reference": "GT_Report", "candidate": "generated_report",
                       "group": None, "system": "Model", "anatomy": "Body Part", "split": "fold",
                       "modality": None}


def test_missing_inputs_name_what_is_left_to_choose():
    request = ImportRequest(what="pairs", dataset="",
                            mapping={"id": "a", "reference": "a", "candidate": None})
    missing = missing_inputs(request)
    assert "a dataset name" in missing
    assert "candidate report column" in missing
    assert any("used twice: a" in m for m in missing)


def test_run_import_is_a_function_of_table_and_mapping(tmp_store: Store):
    table = pd.DataFrame({"key": ["1", "2"], "gt": ["a", "b"], "pred": ["c", "d"]})
    request = ImportRequest(what="pairs", dataset="t", mapping={"id": "key", "reference": "gt",
                                                                "candidate": "pred"})
    seen = []
    report = run_import(tmp_store, request, table, progress=lambda d, t, s: seen.append((d, t, s)))
    assert (report.dataset, report.added, report.skipped) == ("t", 2, 0)
    assert seen and seen[-1][0] == seen[-1][1]


def test_run_import_judge_scores_make_an_imported_run(tmp_store: Store):
    pairs = pd.DataFrame({"id": ["1", "2"], "reference": ["a", "b"], "candidate": ["c", "d"]})
    run_import(tmp_store, ImportRequest(what="pairs", dataset="t", mapping=guess_mapping(
        list(pairs.columns), ["id", "reference", "candidate"])), pairs)
    scores = pd.DataFrame({"id": ["1", "2"], "value": ["0.5", "0.75"]})
    request = ImportRequest(what="outputs", dataset="t", mapping={"id": "id", "score": "value"},
                            options={"mode": "score", "judge": "my-judge", "metric": "green"})
    assert missing_inputs(request) == []
    report = run_import(tmp_store, request, scores)
    assert report.added == 2
    assert list_datasets(tmp_store).set_index("name").loc["t", "runs"] == 1
