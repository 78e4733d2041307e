"""Dataset names that display as something else are refused when a dataset would be created (issue 31,
item 8): bidi controls, zero-width and other format characters (Unicode Cf), control characters,
line separators. The refusal is one line naming the character; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from core.ingest.importers import ImportValidationError, PairColumns, check_dataset_name, import_pairs
from core.ingest.inject import inject_dataset
from core.ingest.presets import import_preset
from core.review.importer import import_review
from core.store.db import Store
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
PAIRS = pd.DataFrame({"id": ["p1", "p2"], "ref": ["Left effusion.", "No pneumothorax."],
                      "cand": ["Right effusion.", "Small pneumothorax."]})

HIDDEN = [
    ("rtl\u202esd", "U+202E RIGHT-TO-LEFT OVERRIDE"),  # shows as "rtlds"
    ("a\u202bb", "U+202B RIGHT-TO-LEFT EMBEDDING"),
    ("a\u2066b\u2069", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ("x\u200fy", "U+200F RIGHT-TO-LEFT MARK"),
    ("demo\u200b", "U+200B ZERO WIDTH SPACE"),  # "demo" with a tail nobody sees (strip() keeps it)
    ("de\u200dmo", "U+200D ZERO WIDTH JOINER"),
    ("\ufeffdemo", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ("de\u00admo", "U+00AD SOFT HYPHEN"),
    ("a\x07b", "U+0007 control character"),
    ("two\nlines", "U+000A control character"),
    ("a\u2028b", "U+2028 LINE SEPARATOR"),
]
VISIBLE = ["demo", "ReXVal 2024 (chest)", "Ünïcode résumé", "日本語データ", "عربي", "a\u00a0b", "lungs 🫁"]


@pytest.mark.parametrize("name, described", HIDDEN)
def test_a_name_with_an_invisible_character_is_refused_naming_it(tmp_path, name, described):
    store = Store(tmp_path / "s.duckdb")
    with pytest.raises(ImportValidationError) as caught:
        import_pairs(store, PAIRS, dataset=name, columns=PairColumns("id", "ref", "cand"), name="x.csv")
    message = str(caught.value)
    assert described in message and "\n" not in message, message
    assert name.strip() not in message  # the name itself is not echoed (it would display wrongly)
    assert store.query_one("SELECT count(*) FROM datasets") == 0
    assert store.query_one("SELECT count(*) FROM pairs") == 0


@pytest.mark.parametrize("name", VISIBLE)
def test_visible_names_in_any_script_are_accepted(tmp_path, name):
    store = Store(tmp_path / "s.duckdb")
    import_pairs(store, PAIRS, dataset=name, columns=PairColumns("id", "ref", "cand"), name="x.csv")
    assert store.query_df("SELECT name FROM datasets")["name"].tolist() == [name]
    assert check_dataset_name(f"  {name} ") == name


def test_every_way_of_creating_a_dataset_refuses_it(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    import_pairs(store, PAIRS, dataset="src", columns=PairColumns("id", "ref", "cand"), name="x.csv")
    bad = "rtl\u202esd"
    for preset in ("rexval-pairs", "rate-eval"):
        with pytest.raises(ImportValidationError, match="U\\+202E RIGHT-TO-LEFT OVERRIDE"):
            import_preset(store, preset, PAIRS, dataset=bad)
    with pytest.raises(ImportValidationError, match="U\\+202E"):
        import_review(store, pd.DataFrame(), dataset=bad)
    # inject's target: refused before any model is called (no endpoint exists here)
    with pytest.raises(ImportValidationError, match="U\\+202E"):
        inject_dataset(store, source_dataset="src", target_dataset=bad, model="openai/none",
                       kind="omission", api_base="http://127.0.0.1:9/v1")
    assert store.query_df("SELECT name FROM datasets")["name"].tolist() == ["src"]


def test_the_cli_answers_one_line_and_creates_nothing(tmp_path):
    (tmp_path / "pairs.csv").write_text(PAIRS.to_csv(index=False))
    store = tmp_path / "s.duckdb"
    proc = run_cli("--store", str(store), "import-pairs",
                           str(tmp_path / "pairs.csv"), "--dataset", "rtl\u202esd", "--id-col", "id",
                           "--reference-col", "ref", "--candidate-col", "cand")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("error: dataset name holds U+202E RIGHT-TO-LEFT OVERRIDE"), proc.stderr
    assert "Traceback" not in proc.stderr
    if store.exists():
        assert Store(store).query_one("SELECT count(*) FROM datasets") == 0
