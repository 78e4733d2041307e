"""What the gateway checks before and after sending: a model litellm can route, a key only where it
belongs, an exit code a pipeline notices, and one readable line per common provider error.

Real processes against the loopback fake OpenAI server (tests/fake_openai.py), a real DuckDB file.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from core.ingest.importers import PairColumns, import_pairs
from core.judges.errors import explain_error
from core.judges.llm import ModelNotUsable, check_model, environment_key_allowed, run_llm_judge
from core.store.db import Store
from tests.cli_inprocess import run_cli
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")


def make_store(path: Path, n: int, markers: dict[int, str] | None = None) -> Store:
    store = Store(path)
    markers = markers or {}
    df = pd.DataFrame({"id": [f"p{i:02d}" for i in range(n)],
                       "ref": [f"Reference {i}. Left pleural effusion." for i in range(n)],
                       "cand": [f"Candidate {i}. {markers.get(i, '')} Right effusion." for i in range(n)]})
    import_pairs(store, df, dataset="d", columns=PairColumns("id", "ref", "cand"), name="x.csv")
    return store


def judge(store: Store, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_cli("--store", str(store.path), "judge", "--dataset", "d",
                           "--max-retries", "0", "--json", *args, env=env or ENV)


def test_a_model_name_without_a_provider_fails_at_once_with_a_hint(tmp_path):
    store = make_store(tmp_path / "s.duckdb", 5)
    with FakeOpenAI() as server:
        proc = judge(store, "--judge", "my-local-model", "--api-base", server.url)
        assert server.requests == 0  # nothing was sent
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "my-local-model" in lines[0] and "for an OpenAI-compatible server use openai/my-local-model" in lines[0]
    assert store.query_one("SELECT count(*) FROM judge_runs") == 0  # no run row, no failures recorded
    with pytest.raises(ModelNotUsable, match="prefix its provider"):  # without an endpoint: another hint
        check_model("my-local-model")
    assert check_model("openai/x", "http://127.0.0.1:9/v1") == "openai"
    assert check_model("gpt-4o-mini") == "openai"


def test_judge_exits_non_zero_when_pairs_failed_unless_allowed(tmp_path):
    n = 6
    store = make_store(tmp_path / "s.duckdb", n, {1: "MREFUSE", 4: "MREFUSE"})
    with FakeOpenAI(plan={"MREFUSE": ["400"] * 10}) as server:
        first = judge(store, "--judge", "openai/fake", "--api-base", server.url)
        assert first.returncode == 4, first.stderr
        line = first.stderr.strip().splitlines()[-1]
        assert line.startswith(f"error: 2 of {n} pairs failed and are recorded") and "--allow-failures" in line
        assert json.loads(first.stdout)["failed"] == 2  # the summary is still printed
        allowed = judge(store, "--judge", "openai/fake", "--api-base", server.url, "--allow-failures")
        assert allowed.returncode == 0, allowed.stderr
        out = json.loads(allowed.stdout)
        assert out["sent"] == 2 and out["failed_total"] == 2  # the failures were retried, and recorded again
    failed = store.query_one("SELECT count(*) FROM judge_outputs WHERE error IS NOT NULL")
    assert failed == 2 and store.query_one("SELECT count(*) FROM judge_outputs") == n


def test_an_environment_key_goes_only_to_its_providers_own_endpoint(tmp_path):
    real = "sk-" + "radconcord-REAL-provider-key-0123456789"  # fake, built so no key-shaped literal is tracked
    named = "endpoint-key-" + "abcdef0123456789"
    env = dict(ENV, OPENAI_API_KEY=real, MY_ENDPOINT_KEY=named)
    store = make_store(tmp_path / "s.duckdb", 3)
    with FakeOpenAI() as server:
        plain = judge(store, "--judge", "openai/fake", "--api-base", server.url, env=env)
        assert plain.returncode == 0, plain.stderr
        sent_plain = " ".join(str(h) for h in server.seen_headers)
        n_plain = len(server.seen_headers)
        named_run = judge(store, "--judge", "openai/fake2", "--api-base", server.url, "--api-key-env",
                          "MY_ENDPOINT_KEY", env=env)
        assert named_run.returncode == 0, named_run.stderr
        sent_named = " ".join(str(h) for h in server.seen_headers[n_plain:])
    assert n_plain == 3 and real not in sent_plain and "Bearer no-key-needed" in sent_plain
    assert f"Bearer {named}" in sent_named and real not in sent_named
    missing = judge(store, "--judge", "openai/fake3", "--api-base", "http://127.0.0.1:9/v1", "--api-key-env",
                    "NOT_SET_ANYWHERE", env=env)
    assert missing.returncode == 1 and "NOT_SET_ANYWHERE is not set" in missing.stderr
    # the rule itself: the provider's own API host may take the environment's key, nothing else may
    assert environment_key_allowed("openai", None)
    assert environment_key_allowed("openai", "https://api.openai.com/v1")
    assert not environment_key_allowed("openai", "http://127.0.0.1:8000/v1")
    assert not environment_key_allowed("openai", "https://api.openai.com.evil.example/v1")
    assert not environment_key_allowed("anthropic", "https://api.openai.com/v1")


@pytest.mark.parametrize("behaviour, expected", [
    ("echo401", "refused the API key"),
    ("400", None),  # a plain bad request: its own first line, unchanged
])
def test_provider_errors_read_as_one_plain_line(tmp_path, behaviour, expected):
    store = make_store(tmp_path / "s.duckdb", 1, {0: "MFAULT"})
    with FakeOpenAI(plan={"MFAULT": [behaviour] * 5}) as server:
        summary = run_llm_judge(store, dataset="d", model="openai/fake", api_base=server.url, max_retries=0)
    raw = summary.failures[0]["error"]
    sentence = explain_error(raw)
    assert "\n" not in sentence and len(sentence) <= 200
    if expected:
        assert expected in sentence
    else:
        assert sentence == raw.splitlines()[0][:200] or sentence.endswith("…")


def test_connection_refused_is_explained(tmp_path):
    store = make_store(tmp_path / "s.duckdb", 1)
    summary = run_llm_judge(store, dataset="d", model="openai/fake", api_base="http://127.0.0.1:9/v1",
                            max_retries=0, timeout=5)
    assert summary.failed == 1
    assert "could not be reached" in explain_error(summary.failures[0]["error"])


@pytest.mark.parametrize("raw, part", [
    ("AuthenticationError (401): litellm.AuthenticationError: Incorrect API key provided", "API key"),
    ("NotFoundError (404): litellm.NotFoundError: The model `gpt-9` does not exist", "model name"),
    ("ContextWindowExceededError (400): This model's maximum context length is 8192 tokens", "context window"),
    ("RateLimitError (429): litellm.RateLimitError: Rate limit reached", "rate limit"),
    ("Timeout: litellm.Timeout: Request timed out", "time limit"),
    ("InternalServerError (500): boom", "server failed"),
    ("BadRequestError (400): litellm.BadRequestError: LLM Provider NOT provided. Pass in ...", "provider"),
    ("ModelNotUsable: model 'x': litellm cannot tell which provider serves it, so nothing was sent; for an "
     "OpenAI-compatible server use openai/x", "use openai/x"),
])
def test_explain_error_names_the_common_cases(raw, part):
    assert part in explain_error(raw)


def test_live_and_run_pages_say_why_a_bare_model_name_cannot_be_used(app_test, demo_store_copy: Store,
                                                                     monkeypatch):
    from tests.app.test_page_live import CANDIDATE, REFERENCE, _open, _paste
    from tests.app.test_page_run import _open as open_run
    from tests.app.test_page_run import _sample

    with FakeOpenAI() as server:
        monkeypatch.setenv("RADCONCORD_MODELS", f"my-local-model={server.url}")
        monkeypatch.delenv("RADCONCORD_LOCAL_ONLY", raising=False)
        at = _paste(_open(app_test, demo_store_copy), REFERENCE, CANDIDATE)
        at.multiselect(key="live_models").set_value(["my-local-model"]).run()
        at.button(key="live_score").click().run()
        assert not at.exception
        errors = [e.value.replace("\\", "") for e in at.error]  # as rendered: Markdown escapes removed
        assert any("cannot tell which provider" in e and "use openai/my-local-model" in e for e in errors), errors
        assert any(x.label == "Error details" for x in at.expander)  # the raw text, on request

        run = open_run(app_test, demo_store_copy)
        _sample(run, 3, 0)
        run.multiselect(key="run_judges").set_value(["my-local-model"]).run()
        assert not run.exception
        assert any("use openai/my-local-model" in e.value.replace("\\", "") for e in run.error)  # before anything starts
        assert server.requests == 0


def test_dashboard_secrets_give_a_custom_endpoint_only_the_key_named_for_it():
    from core.models import configured_models, secret_api_key

    url = "http://10.1.2.3:8000/v1"
    secrets = {"OPENAI_API_KEY": "provider-secret-value", "RADCONCORD_MODELS": f"openai/gpt-4o-mini,openai/mine={url}"}
    own, custom = configured_models({}, secrets)
    assert secret_api_key(own, secrets) == "provider-secret-value" and own.key_present
    assert secret_api_key(custom, secrets) is None and not custom.key_present
    named = dict(secrets, endpoint_keys={url: "endpoint-secret-value"})
    custom = configured_models({}, named)[1]
    assert secret_api_key(custom, named) == "endpoint-secret-value" and custom.key_present


def test_unreadable_answers_are_counted_and_a_run_without_one_usable_answer_exits_4(tmp_path):
    n = 4
    store = make_store(tmp_path / "s.duckdb", n, {i: "MPROSE" for i in range(n)})
    with FakeOpenAI(plan={"MPROSE": ["prose"] * 10}) as server:
        proc = judge(store, "--judge", "openai/fake", "--api-base", server.url, "--allow-failures")
        out = json.loads(proc.stdout)
        # every call answered (ok 4, failed 0) but no answer could be read: counted, and not "fine"
        assert (out["ok"], out["failed"], out["unparsed_total"]) == (n, 0, n)
        assert proc.returncode == 4 and "4 answers could not be read" in proc.stderr
        assert "no usable answer" in proc.stderr  # even with --allow-failures
        half = make_store(tmp_path / "h.duckdb", n, {0: "MPROSE"})
        mixed = run_cli("--store", str(half.path), "judge", "--dataset", "d",
                                "--judge", "openai/fake", "--api-base", server.url, "--json", env=ENV)
        assert mixed.returncode == 4 and "1 answers could not be read" in mixed.stderr
        assert json.loads(mixed.stdout)["unparsed_total"] == 1
    from core.reads.frames import judge_runs

    assert judge_runs(store, "d")["n_unparsed"].tolist() == [n]  # what the pages and the report show
