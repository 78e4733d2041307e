"""Patient context on pairs (issue 33, item 1): ``import-pairs --context-cols`` and the import wizard.

Every file is imported into a real DuckDB file; the stored columns are compared with what the file
says (stripped, NULL when empty). Each bad input is refused with one clear error and writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from core.cli.main import main as cli
from core.ingest.importers import (
    ImportValidationError,
    PairColumns,
    import_pairs,
    parse_context_cols,
    read_table,
)
from core.judges.runs import load_pairs
from core.reads.context import context_dict, pair_context
from core.store.db import Store, pair_id_for
from core.taxonomy import CONTEXT_FIELDS
from tests.csv_files import write_csv as _csv
from ui.import_wizard import ImportRequest, guess_mapping, missing_inputs, run_import

HEADER = ["id", "ref", "cand", "patient_age", "gender", "reason", "prior", "note"]
ROWS = [
    ["p1", "No effusion.", "No effusion seen.", "82", " F ", "pre-operative assessment", "", "first"],
    ["p2", "Small nodule.", "No nodule.", "25", "M", "chest pain", "CT chest 2024-01-02", "second"],
    ["p3", "Normal.", "Normal.", "", "", "", "", "third"],
]
CONTEXT = "age=patient_age,sex=gender,indication=reason,history=prior"


def _run(store_path: Path, capsys, *args: str) -> tuple[int, str, str]:
    code = cli(["--store", str(store_path), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _import_args(path: Path, *extra: str) -> list[str]:
    return ["import-pairs", str(path), "--dataset", "d", "--id-col", "id", "--reference-col", "ref",
            "--candidate-col", "cand", *extra]


def _stored(store: Store) -> dict[str, tuple]:
    rows = store.query_df(f"SELECT ext_id, {', '.join(CONTEXT_FIELDS)} FROM pairs ORDER BY ext_id")
    return {r[0]: tuple(None if pd.isna(v) else v for v in r[1:]) for r in rows.itertuples(index=False)}


def _snapshot(store: Store) -> tuple:
    return (store.data_version(), store.query_df("SELECT * FROM pairs ORDER BY pair_id").to_json(),
            store.query_one("SELECT count(*) FROM datasets"))


def test_cli_imports_every_context_field_stripped_and_null_when_empty(tmp_path, capsys):
    path = _csv(tmp_path / "pairs.csv", HEADER, ROWS)
    code, out, err = _run(tmp_path / "s.duckdb", capsys, *_import_args(path, "--context-cols", CONTEXT, "--json"))
    assert code == 0, err
    assert json.loads(out)["added"] == 3
    store = Store(tmp_path / "s.duckdb")
    assert _stored(store) == {
        "p1": ("82", "F", "pre-operative assessment", None),  # ' F ' stripped; an empty cell is NULL
        "p2": ("25", "M", "chest pain", "CT chest 2024-01-02"),
        "p3": (None, None, None, None),
    }
    # the mapped columns are context, not meta; an unmapped column still lands in meta
    meta = json.loads(store.query_one("SELECT meta FROM pairs WHERE ext_id = 'p1'"))
    assert meta == {"note": "first"}


def test_any_subset_of_fields_and_numbers_from_jsonl(tmp_path, capsys):
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a", "ref": "R a.", "cand": "C a.", "age": 82, "why": "  trauma  "},
        {"id": "b", "ref": "R b.", "cand": "C b.", "age": 40.0, "why": None},
    ]) + "\n", encoding="utf-8")
    code, _, err = _run(tmp_path / "s.duckdb", capsys, *_import_args(path, "--context-cols", "indication=why, age = age"))
    assert code == 0, err
    assert _stored(Store(tmp_path / "s.duckdb")) == {"a": ("82", None, "trauma", None), "b": ("40", None, None, None)}


@pytest.mark.parametrize("spec, words", [
    ("weight=w", ["unknown context field 'weight'"]),
    ("age", ["'age' is not FIELD=COLUMN"]),
    ("age=", ["'age=' is not FIELD=COLUMN"]),
    ("age=patient_age,age=gender", ["context field 'age' given twice"]),
    ("age=patient_age,colour=c,sex", ["unknown context field 'colour'", "'sex' is not FIELD=COLUMN"]),
])
def test_a_bad_context_spec_is_one_line_naming_the_fields_and_creates_nothing(tmp_path, capsys, spec, words):
    path = _csv(tmp_path / "pairs.csv", HEADER, ROWS)
    code, out, err = _run(tmp_path / "new.duckdb", capsys, *_import_args(path, "--context-cols", spec))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --context-cols: ")
    assert all(w in lines[0] for w in words), lines[0]
    assert "the fields are: age, sex, indication, history" in lines[0]
    assert not (tmp_path / "new.duckdb").exists()  # refused before any store is made


def test_a_missing_context_column_names_it_and_the_files_columns(tmp_path, capsys):
    path = _csv(tmp_path / "pairs.csv", HEADER, ROWS)
    store = Store(tmp_path / "s.duckdb")
    before = _snapshot(store)
    code, _, err = _run(store.path, capsys, *_import_args(path, "--context-cols", "age=patient_age,sex=SEX"))
    assert code == 2
    assert err.startswith("error: column 'SEX' (patient context: sex) not found; the file's columns are: "
                          "id, ref, cand, patient_age, gender, reason, prior, note")
    assert _snapshot(store) == before


def test_a_context_cell_that_is_not_text_is_refused_with_its_row_and_nothing_is_written(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a", "ref": "R a.", "cand": "C a.", "age": "82"},
        {"id": "b", "ref": "R b.", "cand": "C b.", "age": [1, 2]},
    ]) + "\n", encoding="utf-8")
    before = _snapshot(store)
    with pytest.raises(ImportValidationError) as info:
        import_pairs(store, path, dataset="d", columns=PairColumns("id", "ref", "cand", context={"age": "age"}))
    assert info.value.problems == ["row 2: column 'age' holds a list, expected text or a number"]
    assert _snapshot(store) == before


def test_unknown_field_through_the_api_is_refused():
    with pytest.raises(ImportValidationError, match="unknown context field.*'weight'.*age, sex, indication, history"):
        from core.ingest.importers import prepare_pairs

        prepare_pairs(pd.DataFrame({"id": ["a"], "r": ["x"], "c": ["y"], "w": ["70"]}), "d",
                      PairColumns("id", "r", "c", context={"weight": "w"}))
    assert parse_context_cols(None) == {} and parse_context_cols("  ") == {}
    assert parse_context_cols("AGE=a, history = prior report") == {"age": "a", "history": "prior report"}


def test_reimport_fills_empty_context_and_never_replaces_it(tmp_path, capsys):
    path = _csv(tmp_path / "pairs.csv", HEADER, ROWS)
    store_path = tmp_path / "s.duckdb"
    assert _run(store_path, capsys, *_import_args(path))[0] == 0  # first without context
    store = Store(store_path)
    assert set(_stored(store).values()) == {(None, None, None, None)}

    code, out, err = _run(store_path, capsys, *_import_args(path, "--context-cols", CONTEXT, "--json"))
    assert code == 0, err
    report = json.loads(out)
    assert (report["added"], report["skipped"]) == (0, 3)
    assert report["warnings"] == ["patient context added to 2 pair(s) already stored (their report text is "
                                  "unchanged; no stored context was replaced)"]
    assert _stored(store)["p2"] == ("25", "M", "chest pain", "CT chest 2024-01-02")

    # a file that contradicts stored context is refused whole: the new pair p4 is not added either
    changed = [list(r) for r in ROWS] + [["p4", "New.", "New cand.", "50", "F", "cough", "", "fourth"]]
    changed[1][3] = "26"
    before = _snapshot(store)
    code, _, err = _run(store_path, capsys, *_import_args(_csv(tmp_path / "changed.csv", HEADER, changed),
                                                           "--context-cols", CONTEXT))
    assert code == 2
    assert "id 'p2' already in dataset 'd' with different patient context: age '25' stored, '26' in the file" in err
    assert _snapshot(store) == before

    # the same file again: nothing to add, nothing to say
    code, out, _ = _run(store_path, capsys, *_import_args(path, "--context-cols", CONTEXT, "--json"))
    assert code == 0 and json.loads(out)["warnings"] == [] and _snapshot(store)[1] == before[1]


def test_the_judge_path_and_the_read_helper_carry_the_context(tmp_path, capsys):
    path = _csv(tmp_path / "pairs.csv", HEADER, ROWS)
    assert _run(tmp_path / "s.duckdb", capsys, *_import_args(path, "--context-cols", CONTEXT))[0] == 0
    store = Store(tmp_path / "s.duckdb")
    frame = load_pairs(store, "d")
    assert list(frame.columns) == ["pair_id", "ext_id", "reference", "candidate", *CONTEXT_FIELDS]
    rows = {r.ext_id: context_dict(r) for r in frame.itertuples(index=False)}
    assert rows == {"p1": {"age": "82", "sex": "F", "indication": "pre-operative assessment"},
                    "p2": {"age": "25", "sex": "M", "indication": "chest pain", "history": "CT chest 2024-01-02"},
                    "p3": {}}
    ids = [pair_id_for("d", i) for i in ("p1", "p2", "p3")]
    assert pair_context(store, ids) == {ids[0]: rows["p1"], ids[1]: rows["p2"]}  # p3 has none


# -- the import wizard --------------------------------------------------------------------------------


def test_wizard_guesses_the_context_columns_and_imports_them_with_scores(tmp_path):
    header = ["id", "reference", "candidate", "age", "sex", "clinical_indication", "comparison", "score"]
    rows = [["w1", "R1.", "C1.", "61", "M", "dyspnoea", "XR 2023", "4"],
            ["w2", "R2.", "C2.", "", "F", "", "", "2"]]
    path = _csv(tmp_path / "wiz.csv", header, rows)
    table = read_table(path)
    roles = ["id", "reference", "candidate", "group", "system", "modality", "anatomy", "split", "score",
             *CONTEXT_FIELDS]
    mapping = guess_mapping(list(table.columns), roles)
    assert {f: mapping[f] for f in CONTEXT_FIELDS} == {"age": "age", "sex": "sex",
                                                        "indication": "clinical_indication",
                                                        "history": "comparison"}
    store = Store(tmp_path / "s.duckdb")
    request = ImportRequest(what="pairs", dataset="w", mapping=mapping, options={"scale_max": 5.0},
                            filename=path.name)
    assert missing_inputs(request) == []
    report = run_import(store, request, table)  # pairs and scores in one transaction
    assert report.added == 2
    assert _stored(store) == {"w1": ("61", "M", "dyspnoea", "XR 2023"), "w2": (None, "F", None, None)}
    assert store.query_one("SELECT count(*) FROM annotations") == 2


def test_wizard_refuses_one_column_for_two_roles_and_a_bad_file_writes_nothing(tmp_path):
    path = _csv(tmp_path / "wiz.csv", ["id", "ref", "cand", "age"], [["x", "R.", "C.", "70"], ["x", "R.", "C.", "71"]])
    table = read_table(path)
    base = {"id": "id", "reference": "ref", "candidate": "cand"}
    twice = ImportRequest(what="pairs", dataset="w", mapping=base | {"age": "ref"}, filename=path.name)
    assert any("used twice: ref" in m for m in missing_inputs(twice))
    store = Store(tmp_path / "s.duckdb")
    before = _snapshot(store)
    with pytest.raises(ImportValidationError, match="duplicate id 'x'"):
        run_import(store, ImportRequest(what="pairs", dataset="w", mapping=base | {"age": "age"},
                                        filename=path.name), table)
    assert _snapshot(store) == before
