"""Nothing overwrites what it did not create; odd input gets one line, not a traceback (issue: data safety)."""

from __future__ import annotations

import json
from pathlib import Path

from core.cli.main import main
from core.store.integrity import check_store
from core.store.outfiles import is_duckdb_file

ROOT = Path(__file__).resolve().parents[2]


def _run(capsys, store, *argv) -> tuple[int, str]:
    code = main(["--store", str(store), *argv])
    return code, capsys.readouterr().err


def test_report_never_writes_over_the_store_a_duckdb_file_or_an_existing_file(demo_store_copy, tmp_path, capsys):
    store = demo_store_copy.path
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    before = store.read_bytes()
    code, err = _run(capsys, store, "report", "--dataset", "demo", "--out", str(store), "--force", "--n-boot", "20")
    assert code == 1 and "is the store" in err and "Traceback" not in err
    assert store.read_bytes() == before and check_store(store).ok

    other = tmp_path / "other.duckdb"
    other.write_bytes(before)
    code, err = _run(capsys, store, "report", "--dataset", "demo", "--out", str(other), "--force")
    assert code == 1 and "is a DuckDB database" in err and is_duckdb_file(other)

    mine = tmp_path / "notes.html"
    mine.write_text("my notes", encoding="utf-8")
    code, err = _run(capsys, store, "ratings-report", "--experts", "imported", "--dataset", "demo",
                     "--out", str(mine))
    assert code == 1 and "add --force" in err and mine.read_text(encoding="utf-8") == "my notes"
    code, err = _run(capsys, store, "report", "--dataset", "demo", "--out", str(tmp_path), "--n-boot", "20")
    assert code == 1 and "is a folder" in err and "IsADirectoryError" not in err

    code, err = _run(capsys, store, "report", "--dataset", "demo", "--out", str(mine), "--force", "--n-boot", "20")
    assert code == 0, err
    assert mine.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.html", "other.duckdb"]  # no temporary file left


def test_export_store_never_touches_a_folder_or_file_it_did_not_make(demo_store_copy, tmp_path, capsys):
    store = demo_store_copy.path
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    users = tmp_path / "snap.partial"
    users.mkdir()
    (users / "thesis.txt").write_text("keep me", encoding="utf-8")
    code, err = _run(capsys, store, "export-store", "--out", str(tmp_path / "snap"))
    assert code == 0, err
    assert (users / "thesis.txt").read_text(encoding="utf-8") == "keep me"
    assert (tmp_path / "snap" / "manifest.json").is_file()

    (tmp_path / "snap2.partial").write_text("a file of that name", encoding="utf-8")
    code, err = _run(capsys, store, "export-store", "--out", str(tmp_path / "snap2"))
    assert code == 0, err
    assert (tmp_path / "snap2.partial").read_text(encoding="utf-8") == "a file of that name"

    code, err = _run(capsys, store, "export-store", "--out", str(tmp_path / "snap"))
    assert code == 1 and "not an empty folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap", "snap.partial", "snap2", "snap2.partial"]


def test_deeply_nested_json_is_a_one_line_error(tmp_path, capsys):
    store = tmp_path / "s.duckdb"
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"id": "1", "reference": "a", "candidate": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
                    encoding="utf-8")
    code, err = _run(capsys, store, "import-pairs", str(deep), "--dataset", "d", "--id-col", "id", "--reference-col", "reference", "--candidate-col", "candidate")
    assert code == 2 and "nested too deeply" in err and "line 1" in err
    assert "Traceback" not in err and "RecursionError" not in err
    array = tmp_path / "deep.json"
    array.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    # The import wizard reads uploads with the same function: a list of problems, not an exception page.
    from core.ingest.importers import ImportValidationError, read_table

    try:
        read_table(deep.read_bytes(), name="deep.jsonl")
    except ImportValidationError as exc:
        assert exc.problems == ["line 1: JSON nested too deeply to read (a record is one flat object of fields)"]
    else:
        raise AssertionError("nested JSON was accepted")
    code, err = _run(capsys, store, "import-pairs", str(array), "--dataset", "d", "--id-col", "id", "--reference-col", "reference", "--candidate-col", "candidate")
    assert code == 2 and "nested too deeply" in err


def test_the_shipped_server_config_hides_tracebacks_from_visitors():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] in (False, "none")
    assert config["browser"]["gatherUsageStats"] is False


def test_implausible_error_counts_are_refused_with_their_row(demo_store_copy, tmp_path, capsys):
    store = demo_store_copy.path
    ext = demo_store_copy.query_df("SELECT ext_id FROM pairs WHERE dataset = 'demo' ORDER BY ext_id LIMIT 2")
    rows = [{"id": ext["ext_id"][0], "category": "a", "significant": True, "count": 2, "annotator": "x"},
            {"id": ext["ext_id"][1], "category": "b", "significant": True, "count": 99999999999999999999,
             "annotator": "x"}]
    path = tmp_path / "counts.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    n_before = demo_store_copy.query_one("SELECT count(*) FROM annotations")
    code, err = _run(capsys, store, "import-annotations", str(path), "--dataset", "demo", "--id-col", "id", "--category-col", "category",
                     "--significant-col", "significant", "--count-col", "count", "--annotator-col", "annotator")
    assert code == 2 and "row 2" in err and "above 1000" in err
    assert demo_store_copy.query_one("SELECT count(*) FROM annotations") == n_before  # all or nothing


def test_a_read_command_on_a_missing_store_says_so_and_creates_nothing(tmp_path, capsys):
    typo = tmp_path / "typo.duckdb"
    for argv in (["datasets"], ["correlate", "--dataset", "demo"], ["trash"], ["export-store", "--out", "x"]):
        code, err = _run(capsys, typo, *argv)
        assert code == 1 and "does not exist" in err, argv
        assert not typo.exists(), argv
    code, err = _run(capsys, typo, "demo", "--pairs", "40")
    assert code == 0 and f"created a new store at {typo}" in err and typo.exists()
    code, err = _run(capsys, typo, "datasets")
    assert code == 0 and "created" not in err
