"""`python -m core parse --prompt crimson`: a CRIMSON answer read and scored from the command line, as a run
reads it; GREEN's `parse --json` contract unchanged."""

from __future__ import annotations

import json

import pytest

from core.cli.main import main
from core.parse.crimson import CRIMSON_METRICS
from tests.judges.test_crimson_run import SHAPES

GREEN_KEYS = ["sig", "insig", "matched", "overall_score", "status", "reason", "metrics"]
GREEN_METRICS = ["green", "green_f1", "formula", "ec_sig", "ec_total", "vert"]


def _parse(capsys, tmp_path, text: str, *flags: str) -> tuple[int, dict | str]:
    path = tmp_path / "answer.txt"
    path.write_text(text, encoding="utf-8")
    code = main(["parse", str(path), *flags])
    captured = capsys.readouterr()
    if code == 0 and "--json" in flags:
        return code, json.loads(captured.out)
    return code, captured.err if code else captured.out


@pytest.mark.parametrize("shape", ["perfect", "partial", "no_reference", "negative", "fenced"])
def test_crimson_answers_are_scored_as_a_run_scores_them(capsys, tmp_path, shape):
    text, score, sig, insig, _ = SHAPES[shape]
    code, out = _parse(capsys, tmp_path, text, "--prompt", "crimson", "--json")
    assert code == 0 and out["status"] == "ok"
    assert out["metrics"]["crimson"] == score  # the hand computation of tests/judges/test_crimson_run.py
    assert set(out["metrics"]) == set(CRIMSON_METRICS)
    assert [out["sig"][c] for c in "abcdef"] == [int(d) for d in sig]
    assert [out["insig"][c] for c in "abcdef"] == [int(d) for d in insig]
    assert len(out["errors"]) == sum(int(d) for d in sig + insig)
    assert all(set(e) == {"category", "significant", "text"} for e in out["errors"])


def test_the_partial_answers_details(capsys, tmp_path):
    code, out = _parse(capsys, tmp_path, SHAPES["partial"][0], "--prompt", "crimson_noguide", "--json")
    assert code == 0
    m = out["metrics"]
    # R3 (not actionable) missed: 0.25; attribute errors 0.5 + 0.5 + 0 (significant, significant, negligible)
    assert (m["crimson_false"], m["crimson_missing"], m["crimson_attribute"]) == (0, 1, 3)
    assert (m["crimson_e_false"], m["crimson_e_miss"], m["crimson_e_attr"]) == (0.0, 0.25, 1.0)
    assert out["matched"] == 2 and len(out["matched_findings"]) == 2


@pytest.mark.parametrize("shape", ["truncated", "prose", "bad_ids"])
def test_unreadable_crimson_answers_give_their_reason_and_no_score(capsys, tmp_path, shape):
    text, _, _, _, reason = SHAPES[shape]
    code, out = _parse(capsys, tmp_path, text, "--prompt", "crimson", "--json")
    assert code == 0 and out["status"] == "failed" and reason in out["reason"]
    assert out["metrics"] == {} and out["errors"] == []  # never zeros


def test_a_category_map_moves_errors_between_categories_not_the_score(capsys, tmp_path):
    text = SHAPES["partial"][0]
    _, default = _parse(capsys, tmp_path, text, "--prompt", "crimson", "--json")
    code, mapped = _parse(capsys, tmp_path, text, "--prompt", "crimson", "--json", "--crimson-map", "temporal=f")
    assert code == 0
    assert (default["sig"]["e"], default["sig"]["f"]) == (1, 0) and (mapped["sig"]["e"], mapped["sig"]["f"]) == (0, 1)
    assert mapped["metrics"]["crimson"] == default["metrics"]["crimson"]


def test_green_parse_json_keeps_its_shape(capsys, tmp_path):
    text = ("[Explanation]:\nx\n\n[Clinically Significant Errors]:\n(a) False report: 1. A.\n(b) Missing: 0.\n"
            "(c) Loc: 0.\n(d) Sev: 0.\n(e) Comp: 0.\n(f) Omit: 0.\n\n[Clinically Insignificant Errors]:\nNo errors.\n\n"
            "[Matched Findings]:\n3. a; b; c")
    code, out = _parse(capsys, tmp_path, text, "--json")
    assert code == 0 and list(out) == GREEN_KEYS and list(out["metrics"]) == GREEN_METRICS
    assert out["metrics"]["green"] == 0.75 and out["sig"]["a"] == 1  # 3 / (3 + 1)
    assert _parse(capsys, tmp_path, text, "--json", "--prompt", "vert")[1] == out  # any GREEN-format prompt
    code, crimson = _parse(capsys, tmp_path, text, "--prompt", "crimson", "--json")
    assert code == 0 and crimson["status"] == "failed"  # GREEN text is not a CRIMSON answer


def test_plain_output_names_the_crimson_score(capsys, tmp_path):
    code, out = _parse(capsys, tmp_path, SHAPES["partial"][0], "--prompt", "crimson")
    assert code == 0 and "'crimson': 0.6667" in out and "status: ok" in out


@pytest.mark.parametrize(("flags", "says"), [
    (["--prompt", "radfact"], "parse reads GREEN-format answers"),
    (["--prompt", "nope"], "parse reads GREEN-format answers"),
    (["--crimson-map", "temporal=f"], "CRIMSON prompts only"),
    (["--prompt", "crimson", "--crimson-map", "temporal=z"], "temporal"),
])
def test_bad_flags_exit_2_with_one_line(capsys, tmp_path, flags, says):
    code, err = _parse(capsys, tmp_path, SHAPES["partial"][0], *flags)
    assert code == 2 and says in err and err.count("\n") == 1
