"""``python -m core score``: the CLI twin of Live scoring (same functions, same numbers, same checks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli.main import main
from core.judges.live import answer_json, score_rules_live
from core.store.db import Store
from tests.cli_inprocess import run_cli
from tests.fake_openai import FakeOpenAI
from tests.judges.test_language import FOREIGN_PAIRS, NAMES, REFUSALS

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "FINDINGS: Moderate left pleural effusion. No pneumothorax. Heart size is normal."
CANDIDATE = "FINDINGS: Small right pleural effusion. Small pneumothorax. Heart is normal."


@pytest.fixture(scope="module")
def store_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("score") / "s.duckdb"
    Store(path)  # an empty store file (score writes nothing to it)
    return path


def _score(capsys, store_path, *args) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--store", str(store_path), "score", *args])
    return code, capsys.readouterr().out


def test_english_pair_json_is_what_live_scoring_gives(capsys, store_path, tmp_path):
    (tmp_path / "ref.txt").write_text(REFERENCE, encoding="utf-8")
    code, out = _score(capsys, store_path, "--reference", f"@{tmp_path / 'ref.txt'}", "--candidate", CANDIDATE,
                       "--judge", "rules", "--json")
    assert code == 0
    got = json.loads(out)
    live = score_rules_live(REFERENCE, CANDIDATE)
    want = answer_json("rules", parsed=live.parsed, raw=live.raw_text, errors=live.errors,
                       matched=live.matched_findings)
    for key in ("metrics", "sig", "insig", "matched", "errors", "matched_findings", "raw_text"):
        assert got[key] == want[key], key
    assert got["scored"] and got["metrics"]["ec_sig"] == 3
    assert got["sig"] == {"a": 1, "b": 0, "c": 1, "d": 1, "e": 0, "f": 0}


def test_english_pair_text_output(capsys, store_path):
    code, out = _score(capsys, store_path, "--reference", REFERENCE, "--candidate", CANDIDATE, "--judge", "rules")
    assert code == 0
    assert "Significant errors (rules counts)" in out and "number of clinically significant errors" in out
    assert "M / (M + S)" not in out  # words, not formulas
    assert "error (c) significant: candidate places the pleural effusion on the right" in out


@pytest.mark.parametrize("lang", list(FOREIGN_PAIRS))
def test_foreign_pairs_are_not_scored_and_say_why(capsys, store_path, lang):
    reference, candidate = FOREIGN_PAIRS[lang]
    code, out = _score(capsys, store_path, "--reference", reference, "--candidate", candidate, "--judge", "rules",
                       "--json")
    got = json.loads(out)
    assert code == 1 and not got["scored"] and got["metrics"] == {}
    assert got["failure"].startswith(f"unsupported language: the reference report is {NAMES[lang]}")
    code, out = _score(capsys, store_path, "--reference", reference, "--candidate", candidate, "--judge", "lexical")
    assert code == 1 and "not scored: unsupported language" in out and "lexical judge reads English only" in out


@pytest.mark.parametrize("candidate", REFUSALS[2:])
def test_a_refusal_is_not_scored(capsys, store_path, candidate):
    code, out = _score(capsys, store_path, "--reference", "No acute disease.", "--candidate", candidate,
                       "--judge", "rules")
    assert code == 1 and "not scored: not a report: the candidate is a refusal" in out


def test_baselines_give_their_metrics(capsys, store_path):
    code, out = _score(capsys, store_path, "--reference", REFERENCE, "--candidate", CANDIDATE, "--judge", "length",
                       "--json")
    n_ref, n_cand = len(REFERENCE.split()), len(CANDIDATE.split())
    assert code == 0 and json.loads(out)["metrics"] == {"words_candidate": n_cand, "words_reference": n_ref,
                                                        "words_diff": abs(n_ref - n_cand)}


def test_model_judge_through_the_loopback_fake_server(capsys, store_path):
    with FakeOpenAI() as server:
        code, out = _score(capsys, store_path, "--reference", REFERENCE, "--candidate", CANDIDATE, "--judge",
                           "openai/fake-judge", "--api-base", server.url, "--json")
        assert server.requests == 1
    got = json.loads(out)
    assert code == 0 and got["scored"] and got["prompt"] == "green" and got["parse_status"] == "ok"
    assert got["metrics"]["ec_sig"] is not None and set(got["sig"]) == set("abcdef")
    # a model reads any language: no language check, the pair is sent
    with FakeOpenAI() as server:
        code, out = _score(capsys, store_path, "--reference", FOREIGN_PAIRS["fr"][0], "--candidate",
                           FOREIGN_PAIRS["fr"][1], "--judge", "openai/fake-judge", "--api-base", server.url, "--json")
        assert server.requests == 1 and code == 0


def test_model_call_that_fails_is_not_scored(capsys, store_path):
    code, out = _score(capsys, store_path, "--reference", REFERENCE, "--candidate", CANDIDATE, "--judge",
                       "openai/fake-judge", "--api-base", "http://127.0.0.1:9/v1", "--timeout", "3", "--json")
    got = json.loads(out)
    assert code == 1 and got["failure"].startswith("model call failed")


def test_score_help_and_a_run_through_the_cli(store_path):
    done = run_cli("--store", str(store_path), "score", "--reference",
                           FOREIGN_PAIRS["zh"][0], "--candidate", FOREIGN_PAIRS["zh"][1], "--judge", "length")
    assert done.returncode == 1 and "the reference report is Chinese" in done.stdout, done.stderr
    done = run_cli("score", "--help")
    assert done.returncode == 0 and "rules: English only" in done.stdout
