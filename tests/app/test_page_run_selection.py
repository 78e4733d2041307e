"""The Run page's pair selection and ``judge``'s selection flags choose the same pairs (issue 43, item 8).

Each case drives the page's widgets through AppTest and starts the run (its job records the pair ids), runs
``python -m core judge`` with the flags on a copy of the same store, and compares the two jobs' pair ids:
the same ids in the same order (a sample's order included), and the same label.
"""

from __future__ import annotations

import json
import time

from core.cli.main import main as cli
from core.jobs.table import list_jobs
from core.store.db import Store
from tests.apptest_helpers import assert_ok, open_page
from tests.conftest import copy_store


def _job_spec(store: Store, timeout: float = 90.0) -> dict:
    """The newest job's spec, once its worker has finished (the page starts one)."""
    deadline = time.monotonic() + timeout
    while True:
        jobs = list_jobs(store, limit=1)
        if len(jobs) and jobs["state"].iloc[0] not in ("queued", "running"):
            return json.loads(jobs["spec"].iloc[0])
        assert time.monotonic() < deadline, "the job did not finish in time"
        time.sleep(0.3)


def _by_page(app_test, store: Store, choose) -> dict:
    at = open_page(app_test, store, "pages/run.py")
    choose(at)
    assert_ok(at)
    at.button(key="run_start").click().run()
    assert_ok(at)
    return _job_spec(store)


def _by_cli(store: Store, capsys, *flags: str) -> dict:
    code = cli(["--store", str(store.path), "judge", "--dataset", "demo", "--judge", "rules", *flags])
    out = capsys.readouterr()
    assert code == 0, out.err
    return _job_spec(store)


def _same(page: dict, cli_spec: dict) -> None:
    assert page["pair_ids"] and page["pair_ids"] == cli_spec["pair_ids"]
    assert page["selection"] == cli_spec["selection"]


def test_filters_and_a_seeded_sample_pick_the_same_pairs_on_the_page_and_in_the_cli(
        app_test, demo_store: Store, tmp_path, capsys, no_models):
    def choose(at):
        at.multiselect(key="run_system").set_value(["sys-careful", "sys-terse"])
        at.multiselect(key="run_modality").set_value(["CT", "MRI", "XR"])
        at.multiselect(key="run_split").set_value(["train"]).run()
        at.radio(key="run_pick").set_value("sample").run()
        at.number_input(key="run_n").set_value(9)
        at.number_input(key="run_seed").set_value(4).run()

    page = _by_page(app_test, copy_store(demo_store, tmp_path / "page.duckdb"), choose)
    flags = ["--system", "sys-careful", "--system", "sys-terse", "--modality", "CT", "--modality", "MRI",
             "--modality", "XR", "--split", "train", "--sample", "9", "--seed", "4"]
    by_cli = _by_cli(copy_store(demo_store, tmp_path / "cli.duckdb"), capsys, *flags)
    _same(page, by_cli)
    assert len(page["pair_ids"]) == 9 and page["selection"].startswith("random sample of 9 of ")


def test_a_group_filter_and_an_id_search_pick_the_same_pairs(app_test, demo_store: Store, tmp_path, capsys,
                                                             no_models):
    groups = demo_store.query_df("SELECT DISTINCT group_id FROM pairs WHERE dataset = 'demo' ORDER BY 1 LIMIT 3")
    chosen = groups["group_id"].tolist()

    def choose(at):
        at.multiselect(key="run_group").set_value(chosen).run()

    page = _by_page(app_test, copy_store(demo_store, tmp_path / "page.duckdb"), choose)
    flags = [x for g in chosen for x in ("--group", g)]
    _same(page, _by_cli(copy_store(demo_store, tmp_path / "cli.duckdb"), capsys, *flags))
    expected = demo_store.query_df("SELECT pair_id FROM pairs WHERE group_id IN (SELECT unnest(?::VARCHAR[])) "
                                   "ORDER BY ext_id", [chosen])["pair_id"].tolist()
    assert page["pair_ids"] == expected

    def search(at):
        at.text_input(key="run_q").set_value("1").run()

    page = _by_page(app_test, copy_store(demo_store, tmp_path / "page2.duckdb"), search)
    _same(page, _by_cli(copy_store(demo_store, tmp_path / "cli2.duckdb"), capsys, "--id-contains", "1"))


def test_ticked_rows_downloaded_as_ids_are_the_pairs_of_judge_pairs_file(app_test, demo_store: Store, tmp_path,
                                                                           capsys, no_models):
    page_store = copy_store(demo_store, tmp_path / "page.duckdb")
    at = open_page(app_test, page_store, "pages/run.py")
    at.multiselect(key="run_modality").set_value(["US"]).run()
    at.radio(key="run_pick").set_value("rows").run()
    key = [d.key for d in at.dataframe if (d.key or "").startswith("run_rows_")][0]
    at.session_state[key] = {"selection": {"rows": [4, 0, 2], "columns": [], "cells": []}}
    at.run()
    assert_ok(at)
    assert [b.label for b in at.get("download_button") if b.proto.label == "Ticked ids (TXT)"]
    shown = [d.value for d in at.dataframe if d.key == key][0]
    ids = shown["id"].iloc[[4, 0, 2]].astype(str).tolist()
    at.button(key="run_start").click().run()
    page = _job_spec(page_store)
    listed = tmp_path / "pairs.txt"
    listed.write_text("# ticked on the Run page\n" + "\n".join(ids) + "\n", encoding="utf-8")
    by_cli = _by_cli(copy_store(demo_store, tmp_path / "cli.duckdb"), capsys, "--pairs", str(listed))
    assert sorted(page["pair_ids"]) == sorted(by_cli["pair_ids"]) and len(by_cli["pair_ids"]) == 3
    assert page["selection"] == "3 ticked pairs" and by_cli["selection"] == "3 listed pairs"


def test_bad_selection_flags_are_refused_in_one_line_and_nothing_runs(demo_store: Store, tmp_path, capsys):
    store = copy_store(demo_store, tmp_path / "cli.duckdb")
    listed = tmp_path / "pairs.txt"
    listed.write_text("nope-1\n", encoding="utf-8")
    for flags, words in ((["--system", "gpt-9"], "--system 'gpt-9': no pair of dataset 'demo' has this system"),
                         (["--pairs", str(listed)], "1 listed id(s) are not pairs of dataset 'demo': 'nope-1'"),
                         (["--sample", "3", "--limit", "5"], "--limit takes the first N pairs by id"),
                         (["--seed", "3"], "--seed goes with --sample N")):
        code = cli(["--store", str(store.path), "judge", "--dataset", "demo", "--judge", "rules", *flags])
        err = capsys.readouterr().err
        assert code != 0 and words in err and len(err.strip().splitlines()) == 1, err
    assert list_jobs(store).empty


def test_the_shards_of_a_selection_together_are_the_selection(demo_store: Store, tmp_path, capsys):
    selected = _by_cli(copy_store(demo_store, tmp_path / "all.duckdb"), capsys, "--system", "sys-sloppy")["pair_ids"]
    parts = [_by_cli(copy_store(demo_store, tmp_path / f"s{k}.duckdb"), capsys, "--system", "sys-sloppy",
                     "--shard", f"{k}/2") for k in (1, 2)]
    assert sorted(parts[0]["pair_ids"] + parts[1]["pair_ids"]) == sorted(selected)
    assert not set(parts[0]["pair_ids"]) & set(parts[1]["pair_ids"])
    assert parts[0]["selection"].startswith("shard 1/2: ") and "all " in parts[0]["selection"]
