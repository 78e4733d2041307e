"""Hostile input: every importer and the parser against random encodings, BOMs, NUL bytes, 1 MB
fields, NaN/inf, duplicate and empty ids and wrong types (hypothesis), formula-safe CSV, inert
HTML/JS payloads (app and HTML report), quotes and SQL fragments in names, the upload limit.

The rule checked everywhere: a clear error (ImportValidationError, with a message) and not one row
written, or a correct import. Never a crash, never a partial write.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.ingest.importers import (
    ImportValidationError,
    PairColumns,
    import_annotations,
    import_outputs,
    import_pairs,
)
from core.ingest.presets import import_preset
from core.parse import parse_output
from core.store.db import Store, pair_id_for
from core.store.export import FORMULA_PREFIXES, to_safe_csv
from core.store.integrity import check_store

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("datasets", "pairs", "annotations", "judge_runs", "judge_outputs", "judge_errors", "metric_values")
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Characters that break naive readers: separators, quotes, line ends of every kind (U+2028 and NEL
# included), formula starts, markup, BOMs, bidi overrides, NUL, astral code points.
HOSTILE = list("aZ09 \t\n\r,;\"'=+-@<>/\\é中😀") + ["\u2028", "\x85", "\ufeff", "\u202e", "\x00", "\x0b", "\x1f"]
cell = st.text(alphabet=st.sampled_from(HOSTILE), max_size=12)
ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "latin-1", "utf-32"]
FORMATS = ["csv", "tsv", "jsonl", "json", "parquet"]
_names = itertools.count()  # a fresh dataset / judge name per hypothesis example


def snapshot(store: Store) -> tuple:
    with store.read() as conn:
        counts = tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES)  # fixed names
    return counts, store.data_version()


def encode_table(df: pd.DataFrame, fmt: str, encoding: str) -> tuple[bytes, str]:
    """The frame as a file of ``fmt`` in ``encoding`` (text formats); returns (bytes, file name)."""
    if fmt == "parquet":
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        return buf.getvalue(), "f.parquet"
    if fmt in ("csv", "tsv"):
        text = df.to_csv(index=False, sep="," if fmt == "csv" else "\t", lineterminator="\n")
    elif fmt == "jsonl":
        text = "\n".join(json.dumps(r, ensure_ascii=False) for r in df.to_dict("records")) + "\n"
    else:
        text = json.dumps(df.to_dict("records"), ensure_ascii=False)
    try:
        return text.encode(encoding), f"f.{fmt}"
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace"), f"f.{fmt}"


def expect_refusal_or(store: Store, before: tuple, action):
    """Run ``action``; a refusal must carry a message and leave the store exactly as it was."""
    try:
        return action()
    except ImportValidationError as exc:
        assert str(exc).strip() and exc.problems
        assert snapshot(store) == before, "a refused import wrote something"
        return None


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    return Store(tmp_path_factory.mktemp("hostile") / "s.duckdb")


# -- pairs --------------------------------------------------------------------------------------

rows = st.lists(st.tuples(cell, cell, cell), min_size=1, max_size=6)


@SETTINGS
@given(rows=rows, fmt=st.sampled_from(FORMATS), encoding=st.sampled_from(ENCODINGS))
def test_import_pairs_refuses_clearly_or_imports_exactly(store, rows, fmt, encoding):
    df = pd.DataFrame(rows, columns=["id", "ref", "cand"])
    data, name = encode_table(df, fmt, encoding)
    dataset = f"pairs-{next(_names)}"
    before = snapshot(store)
    report = expect_refusal_or(store, before, lambda: import_pairs(
        store, data, dataset=dataset, columns=PairColumns("id", "ref", "cand"), name=name))
    if report is None:
        return
    stored = store.query_df("SELECT ext_id, reference, candidate FROM pairs WHERE dataset = ?", [dataset])
    got = sorted(map(tuple, stored.to_numpy().tolist()))
    # a correct import: ids trimmed, report text verbatim (every byte), nothing else changed
    assert got == sorted((i.strip(), r, c) for i, r, c in rows)
    assert report.added == len(rows) and all(i.strip() for i, _, _ in rows)
    assert "\x00" not in "".join(r + c for _, r, c in rows)


def test_one_megabyte_fields_and_json_escapes(store):
    big = "Large effusion. " * 65_536  # 1 MiB of report text
    df = pd.DataFrame({"id": ["big"], "ref": [big], "cand": [big[::-1]]})
    report = import_pairs(store, df.to_csv(index=False).encode(), dataset="big", name="big.csv",
                          columns=PairColumns("id", "ref", "cand"))
    assert report.added == 1
    assert store.query_one("SELECT reference FROM pairs WHERE dataset = 'big'") == big
    before = snapshot(store)
    hostile = {  # JSON escapes spell what a text file cannot hold; wrong types; non-objects
        "half surrogate": b'{"id": "a", "ref": "x\\ud800y", "cand": "c"}',
        "NUL escape": b'{"id": "a", "ref": "x\\u0000y", "cand": "c"}',
        "object as text": b'{"id": "a", "ref": {"k": 1}, "cand": "c"}',
        "list as id": b'{"id": [1, 2], "ref": "r", "cand": "c"}',
        "array of numbers": b"[1, 2]",
        "NaN text": b'{"id": "a", "ref": NaN, "cand": "c"}',
        "UTF-32": '{"id": "a", "ref": "r", "cand": "c"}'.encode("utf-32"),
        "UTF-16 without BOM": '{"id": "a", "ref": "r", "cand": "c"}'.encode("utf-16-le"),
        "latin-1": '{"id": "a", "ref": "café", "cand": "c"}'.encode("latin-1"),
    }
    for label, data in hostile.items():
        with pytest.raises(ImportValidationError) as err:
            import_pairs(store, data, dataset=f"h-{label}", columns=PairColumns("id", "ref", "cand"),
                         name="x.jsonl")
        assert err.value.problems, label
        assert snapshot(store) == before, label
    assert "surrogate" in _message(store, hostile["half surrogate"]) and "NUL" in _message(store, hostile["NUL escape"])
    assert "dict" in _message(store, hostile["object as text"]) and "UTF-32" in _message(store, hostile["UTF-32"])
    binary = io.BytesIO()
    pd.DataFrame({"id": ["a"], "ref": [b"\x00\xff"], "cand": ["c"]}).to_parquet(binary)
    assert "bytes" in _message(store, binary.getvalue(), "x.parquet")
    # U+2028 inside a JSON string is text, not a line break
    line = json.dumps({"id": "sep", "ref": "a\u2028b\x85c", "cand": "d"}, ensure_ascii=False).encode()
    import_pairs(store, line, dataset="seps", columns=PairColumns("id", "ref", "cand"), name="x.jsonl")
    assert store.query_one("SELECT reference FROM pairs WHERE dataset = 'seps'") == "a\u2028b\x85c"


def _message(store: Store, data: bytes, name: str = "x.jsonl") -> str:
    with pytest.raises(ImportValidationError) as err:
        import_pairs(store, data, dataset="msg", columns=PairColumns("id", "ref", "cand"), name=name)
    return str(err.value)


# -- annotations and outputs --------------------------------------------------------------------

PAIR_IDS = ["p0", "p1", "p2", "p3"]


@pytest.fixture(scope="module")
def target(store) -> str:
    df = pd.DataFrame({"id": PAIR_IDS, "ref": ["Left effusion."] * 4, "cand": ["Right effusion."] * 4})
    import_pairs(store, df, dataset="target", columns=PairColumns("id", "ref", "cand"), name="t.csv")
    return "target"


score_cell = st.one_of(st.sampled_from(["", " 3 ", "nan", "NaN", "inf", "-inf", "1e999", "-1", "6", "abc", "٣",
                                        "2.5", "0", "5", "1,5", "0x1"]),
                       st.floats(allow_nan=True, allow_infinity=True).map(repr), cell)
id_cell = st.sampled_from(PAIR_IDS + ["", " ", " p1 ", "nope", "P0", "p0\x00", "'; DROP TABLE pairs; --"])


@SETTINGS
@given(ann=st.lists(st.tuples(id_cell, score_cell, st.sampled_from(["e1", "e2", "", "e'1"])), min_size=1,
                    max_size=6),
       fmt=st.sampled_from(["csv", "jsonl", "parquet"]))
def test_import_annotations_refuses_clearly_or_imports_exactly(store, target, ann, fmt):
    df = pd.DataFrame(ann, columns=["id", "score", "rater"])
    data, name = encode_table(df, fmt, "utf-8")
    before = snapshot(store)
    report = expect_refusal_or(store, before, lambda: import_annotations(
        store, data, dataset=target, id_col="id", score_col="score", annotator_col="rater", name=name))
    if report is None:
        return
    for ext_id, raw, rater in ann:
        value = float(raw)
        assert math.isfinite(value) and 0 <= value <= 5
        stored = store.query_one("SELECT value FROM annotations WHERE pair_id = ? AND annotator = ?",
                                 [pair_id_for(target, ext_id.strip()), rater.strip()])
        assert stored == value


out_text = st.lists(st.sampled_from([
    "[Explanation]:", "[Clinically Significant Errors]:", "[Clinically Insignificant Errors]:",
    "[Matched Findings]:", "(a) False report of a finding: 1.", "(b) Missing: 2. text", "(c): NaN.",
    "(d) severity: -3.", "(e): 1e999.", "(f): 0.", "2. a; b", "{", "}", '{"sig": {"a": "x"}}', "<think>",
    "\x00", "\ufeff", "=HYPERLINK(\"http://x\")", "<script>alert(1)</script>", "1.0", "inf"]), max_size=14)


@SETTINGS
@given(texts=st.lists(st.one_of(out_text.map("\n".join), cell), min_size=1, max_size=4),
       fmt=st.sampled_from(["csv", "jsonl"]))
def test_import_outputs_never_crashes_and_keeps_text(store, target, texts, fmt):
    df = pd.DataFrame({"id": PAIR_IDS[: len(texts)], "out": texts})
    data, name = encode_table(df, fmt, "utf-8")
    judge = f"judge \"{next(_names)}\"'; --"
    before = snapshot(store)
    report = expect_refusal_or(store, before, lambda: import_outputs(
        store, data, dataset=target, judge=judge, id_col="id", text_col="out", name=name))
    if report is None:
        return
    stored = store.query_df("SELECT p.ext_id, o.raw_text, o.parse_status FROM judge_outputs o JOIN pairs p "
                            "USING (pair_id) JOIN judge_runs r USING (run_id) WHERE r.judge_name = ? "
                            "ORDER BY 1", [judge])
    assert list(stored["raw_text"]) == ["" if t is None else t for t in texts]  # verbatim, the judge name too
    assert set(stored["parse_status"]) <= {"ok", "partial", "failed"}
    values = store.query_df("SELECT value FROM metric_values m JOIN judge_runs r USING (run_id) "
                            "WHERE r.judge_name = ?", [judge])["value"]
    assert values.map(math.isfinite).all()


# -- presets -------------------------------------------------------------------------------------

count_cell = st.sampled_from(["0", "1", "2", "", "-1", "1.5", "nan", "inf", "x", "1e999", " 3 "])


@SETTINGS
@given(counts=st.lists(st.lists(count_cell, min_size=12, max_size=12), min_size=1, max_size=3),
       ids=st.lists(st.sampled_from(["s1", "s2", "", "s1 ", "=1+1"]), min_size=3, max_size=3))
def test_radeval_preset_is_all_or_nothing(store, counts, ids):
    cols = [f"{p}_{c}" for p in ("sig", "insig") for c in "abcdef"]
    df = pd.DataFrame(counts, columns=cols)
    df.insert(0, "id", ids[: len(df)])
    df.insert(1, "reference", "Left effusion.")
    df.insert(2, "candidate", "Right effusion.")
    data, name = encode_table(df, "csv", "utf-8")
    dataset = f"radeval-{next(_names)}"
    before = snapshot(store)
    report = expect_refusal_or(store, before, lambda: import_preset(store, "radeval-counts", data,
                                                                    dataset=dataset, name=name))
    if report is None:
        return
    stored = store.query_df("SELECT a.value FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ?",
                            [dataset])["value"]
    assert len(stored) == 12 * len(df) and (stored >= 0).all() and (stored == stored.round()).all()


def test_rexval_and_rate_eval_presets_refuse_atomically(store):
    before = snapshot(store)
    pairs = "study_number,gt_report,radgraph,bleu\n1,Left effusion.,Right effusion.,\n"  # an empty candidate
    with pytest.raises(ImportValidationError, match="empty candidate"):
        import_preset(store, "rexval-pairs", pairs.encode(), dataset="rexval", name="p.csv")
    rate = "reference,candidate,score\nLeft.,Right.,3\nLeft.,Left.,inf\n"  # pairs fine, one score not
    with pytest.raises(ImportValidationError, match="not a number"):
        import_preset(store, "rate-eval", rate.encode(), dataset="rate", name="r.csv")
    assert snapshot(store) == before  # the valid pairs of the rate-eval file were not written either


# -- the parser ------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True)
@given(raw=st.one_of(out_text.map("\n".join), st.text(max_size=300), st.none(), st.integers(),
                     st.floats(allow_nan=True), st.binary(max_size=50),
                     st.dictionaries(st.text(max_size=5), st.integers(), max_size=3)))
def test_parser_never_raises_and_never_invents_numbers(raw):
    result = parse_output(raw)
    assert result.status in ("ok", "partial", "failed")
    if result.status != "ok":
        assert result.reason
    for name, value in result.metrics.items():
        assert value is None or math.isfinite(value), name
    for counts in (result.sig, result.insig):
        assert all(v is None or (isinstance(v, int) and v >= 0) for v in counts.values())


def test_parser_on_one_megabyte_inputs():
    import time

    for text in ("[Explanation]: " + "x" * 1_000_000, "(a) " * 250_000, "{" * 500_000,
                 "[Clinically Significant Errors]:\n" + "(a) False report: 1. x\n" * 45_000):
        t0 = time.perf_counter()
        result = parse_output(text)
        assert result.status in ("ok", "partial", "failed")
        assert time.perf_counter() - t0 < 20  # linear, not catastrophic backtracking


# -- exports, markup, SQL-looking names --------------------------------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True)
@given(cells=st.lists(cell, min_size=1, max_size=8), header=cell)
def test_csv_export_neutralizes_formulas(cells, header):
    df = pd.DataFrame({header or "x": cells, "tau": [-0.5] * len(cells)})
    text = to_safe_csv(df).decode("utf-8")
    read = list(csv.reader(io.StringIO(text, newline="")))
    assert len(read) == len(cells) + 1
    for row in read:
        assert not row[0].startswith(FORMULA_PREFIXES)
    for original, row in zip(cells, read[1:], strict=True):
        formula = original.startswith(FORMULA_PREFIXES) or original.lstrip().startswith(("=", "+", "-", "@"))
        assert row[0] == ("'" + original if formula else original)  # after leading whitespace too (issue 31)
        assert row[1] == "-0.5"  # numbers stay numbers


PAYLOAD = '<script>alert("x")</script><img src=x onerror=alert(1)>**bold** [link](javascript:alert(1))'
SQLISH = "st'udy\"; DROP TABLE pairs; --"
JUDGE_PAYLOAD = "<img src=x onerror=alert(2)>judge"


@pytest.fixture
def hostile_store(tmp_path) -> Store:
    store = Store(tmp_path / "hostile.duckdb")
    df = pd.DataFrame({"id": ["x'1", "x\"2", "=cmd"], "ref": [PAYLOAD, "Left effusion.", "Normal."],
                       "cand": ["Right effusion. " + PAYLOAD, PAYLOAD, "=HYPERLINK(\"http://evil\")"],
                       "col'); DROP TABLE pairs; --": ["m1", "m2", "m3"]})
    import_pairs(store, df.to_csv(index=False).encode(), dataset=SQLISH, name="h.csv",
                 columns=PairColumns("id", "ref", "cand", system="col'); DROP TABLE pairs; --"))
    scores = pd.DataFrame({"id": ["x'1", "x\"2", "=cmd"], "s": [1, 4, 5]})
    import_annotations(store, scores.to_csv(index=False).encode(), dataset=SQLISH, id_col="id", score_col="s",
                       annotator=PAYLOAD[:30], name="s.csv")
    counts = pd.DataFrame([(i, c, sig, 1) for i in ("x'1", "x\"2", "=cmd") for c in "abcdef" for sig in (1, 0)],
                          columns=["id", "cat", "sig", "n"])
    import_annotations(store, counts.to_csv(index=False).encode(), dataset=SQLISH, id_col="id", category_col="cat",
                       significant_col="sig", count_col="n", annotator="e", name="c.csv")
    from core.judges import run_judge

    run_judge(store, dataset=SQLISH, judge="rules")
    outs = pd.DataFrame({"id": ["x'1", "x\"2", "=cmd"], "v": [0.1, 0.5, 0.9]})
    import_outputs(store, outs.to_csv(index=False).encode(), dataset=SQLISH, judge=SQLISH, id_col="id",
                   score_col="v", metric="bleu4", name="o.csv")
    import_outputs(store, outs.to_csv(index=False).encode(), dataset=SQLISH, judge=JUDGE_PAYLOAD, id_col="id",
                   score_col="v", metric="rouge_l", name="o2.csv")
    return store


def test_names_with_quotes_and_sql_are_stored_verbatim_and_change_no_query(hostile_store):
    store = hostile_store
    from core.reads.queries import list_datasets

    assert list(list_datasets(store)["name"]) == [SQLISH]
    assert store.query_one("SELECT count(*) FROM pairs WHERE dataset = ?", [SQLISH]) == 3
    assert sorted(store.query_df("SELECT system FROM pairs")["system"]) == ["m1", "m2", "m3"]
    assert store.query_one("SELECT judge_name FROM judge_runs WHERE judge_kind = 'imported'") == SQLISH
    assert set(store.query_df("SELECT ext_id FROM pairs")["ext_id"]) == {"x'1", "x\"2", "=cmd"}
    report = check_store(store.path)
    assert report.ok and report.rows["pairs"] == 3  # every table still there, nothing dropped


def test_html_and_script_payloads_are_inert_in_the_html_report(hostile_store):
    from core.report import build_report

    quiet = build_report(hostile_store, SQLISH, n_boot=20)  # not synthetic: no report text by default
    assert "&lt;script&gt;alert(" not in quiet and "contains no report text" in quiet
    html = build_report(hostile_store, SQLISH, n_boot=20, include_excerpts=True)
    assert PAYLOAD not in html and "<img src=x" not in html and 'alert("x")</script>' not in html
    assert JUDGE_PAYLOAD not in html and "&lt;img src=x onerror=alert(2)&gt;judge" in html  # a judge's name
    assert "&lt;script&gt;alert(" in html  # shown, escaped
    assert "DROP TABLE pairs" in html  # the dataset name is displayed, not executed


def test_html_and_script_payloads_are_inert_in_the_app(hostile_store, app_test):
    pid = hostile_store.query_one("SELECT pair_id FROM pairs WHERE ext_id = 'x''1'")
    at = app_test(hostile_store, {"dataset": SQLISH, "pair": pid})
    at.switch_page("pages/data.py")
    at.run(timeout=60)
    assert not at.exception
    shown = [t.value for t in at.text]
    assert PAYLOAD in shown  # the report text, verbatim, in a plain-text element
    markup = [e for kind in ("markdown", "caption", "title", "header", "subheader", "info", "error", "warning")
              for e in getattr(at, kind)]
    assert markup
    _assert_inert(markup)
    at.switch_page("pages/correlations.py")  # judge names in captions, legends and headings
    at.run(timeout=60)
    assert not at.exception
    _assert_inert([e for kind in ("markdown", "caption", "title", "header", "subheader", "info", "error", "warning")
                   for e in getattr(at, kind)])


def _assert_inert(elements) -> None:
    """No tag start reaches Markdown unescaped (``\\<img`` renders as text), and no element allows HTML."""
    for element in elements:
        value = str(element.value)
        assert not re.search(r"(?<!\\)<(script|img)", value), value
        if "script" in value or "img" in value:
            assert not getattr(element.proto, "allow_html", False), value


# -- upload size -----------------------------------------------------------------------------------


def test_upload_limit_is_configured_and_stated():
    from ui.import_wizard import upload_size_problem

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == 200
    assert upload_size_problem(200 * 1024 * 1024, 200) is None
    message = upload_size_problem(200 * 1024 * 1024 + 1, 200)
    assert "upload limit is 200 MB" in message and "python -m core import-pairs" in message
    assert "1,024.0 MB" in upload_size_problem(1024**3, 200)


def test_upload_limit_is_shown_on_the_data_page(tmp_store, app_test):
    at = app_test(tmp_store)
    at.run(timeout=60)
    assert not at.exception
    assert any("Upload limit: 200 MB" in c.value for c in at.caption)
