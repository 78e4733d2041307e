"""RADCONCORD_API_BASE may list several URLs, replicas for `judge` (issue 34). The commands that call one endpoint
(inject, score, review-judge, checks) take its first URL, say so in their help, and send nothing to the others;
`judge` still gets every URL."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from core.cli import judgescale
from core.cli.common import api_base_default, api_bases_default
from core.cli.main import build_parser, main
from core.judges.replicas import endpoints
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI

MODEL = "openai/fake-judge"


@pytest.mark.parametrize("value", ["http://127.0.0.1:8001/v1 http://127.0.0.1:8002/v1",
                                   " http://127.0.0.1:8001/v1,http://127.0.0.1:8002/v1 ",
                                   "http://127.0.0.1:8001/v1\n  http://127.0.0.1:8002/v1", "http://127.0.0.1:8001/v1"])
def test_the_default_is_the_first_url_as_judge_splits_them(monkeypatch, value):
    monkeypatch.setenv("RADCONCORD_API_BASE", value)
    assert api_base_default() == endpoints(value)[0] == "http://127.0.0.1:8001/v1"
    assert endpoints(api_bases_default()) == endpoints(value)  # judge's default: every URL


@pytest.mark.parametrize("value", ["", "  , "])
def test_a_blank_setting_is_no_default(monkeypatch, value):
    monkeypatch.setenv("RADCONCORD_API_BASE", value)
    assert api_base_default() is None


def test_single_endpoint_commands_say_so_in_their_help(monkeypatch, capsys):
    monkeypatch.setenv("RADCONCORD_API_BASE", "http://127.0.0.1:8001/v1 http://127.0.0.1:8002/v1")
    for command in ("inject", "score", "review-judge", "checks"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "this command calls one endpoint" in text and "it takes the first" in text, command
    args = build_parser().parse_args(["score", "--reference", "a", "--candidate", "b", "--judge", MODEL])
    assert args.api_base == "http://127.0.0.1:8001/v1"


def test_score_and_inject_call_the_first_url_only(monkeypatch, tmp_path, capsys):
    store = marked_store(tmp_path / "s.duckdb", 4)
    with FakeOpenAI() as first, FakeOpenAI() as second:
        monkeypatch.setenv("RADCONCORD_API_BASE", f"{first.url} {second.url}")
        code = main(["--store", str(store.path), "score", "--reference", "Small left pleural effusion.",
                     "--candidate", "No effusion.", "--judge", MODEL, "--json"])
        out = json.loads(capsys.readouterr().out)
        assert code == 0 and out["scored"] and out["metrics"], out
        assert (first.requests, second.requests) == (1, 0)

        code = main(["--store", str(store.path), "inject", "--dataset", "d", "--target", "d-omit", "--judge", MODEL,
                     "--kind", "omission", "--k", "1", "--limit", "2", "--no-validate", "--json"])
        report = json.loads(capsys.readouterr().out)
        assert code == 0 and report["added"] == 2, report
        assert first.requests > 1 and second.requests == 0

        # judge still takes every URL as replicas
        args = SimpleNamespace(api_base=None, batch=False, judge=MODEL, dataset="d", prompt="green")
        api_base, batch = judgescale.resolve(args, store, offline=False)
        assert api_base == [first.url, second.url] and batch is None
