"""The runner as a pipeline (issue 40 item 2): typed generation and call settings, one retry policy.

- ``GenerateConfig.stop`` is sent and keyed only when set, so every cache key made before it is unchanged;
- a job spec stored by the code before ``CallSettings`` (loose fields, ``extra``) loads as the same job and runs;
- the batch API's calls retry through the one policy (Retry-After honoured, a cancel or a 4xx not retried).
"""

from __future__ import annotations

import json

import pytest

from core.jobs import table
from core.jobs.spec import JobSpec, Task
from core.jobs.worker import run_job
from core.judges.batchfiles import BatchOptions, request_line
from core.judges.callsettings import CallSettings
from core.judges.generate import GenerateConfig, cache_key
from core.judges.llm import run_llm_judge
from core.judges.retry import call_with_retries
from core.store.db import stable_hash
from tests.conftest import marked_store
from tests.fake_openai import FakeOpenAI

MODEL = "openai/fake-judge"


def _old_key(model: str, messages: list[dict], params: dict) -> str:
    """The cache key as the code before GenerateConfig made it (core/judges/llm.py cache_key, GenParams.as_dict)."""
    payload = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
    return stable_hash("llm-cache", payload, length=32)


def test_stop_is_sent_and_keyed_only_when_set(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", 3)
    with FakeOpenAI() as server:
        plain = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, max_retries=0)
        assert server.requests == 3 and all("stop" not in p for p in server.seen_params)
        keys = dict(store.query_df("SELECT pair_id, cache_key FROM judge_outputs WHERE run_id = ?",
                                   [plain.run_id]).values.tolist())
        messages = server.seen_messages
        assert sorted(keys.values()) == sorted(
            _old_key(MODEL, m, {"temperature": 0.0, "max_tokens": 2048}) for m in messages)

        stopped = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, max_retries=0,
                                params=GenerateConfig(stop=("###", "END")))
        assert stopped.run_id != plain.run_id and stopped.cached == 0 and stopped.sent == 3
        assert [p["stop"] for p in server.seen_params[3:]] == [["###", "END"]] * 3
        params = json.loads(store.query_one("SELECT params FROM judge_runs WHERE run_id = ?", [stopped.run_id]))
        assert params["stop"] == ["###", "END"]
    assert cache_key(MODEL, messages[0], GenerateConfig()) == _old_key(MODEL, messages[0],
                                                                      {"temperature": 0.0, "max_tokens": 2048})
    line = json.loads(request_line("k", "fake-judge", messages[0], GenerateConfig(stop=("###",))))
    assert line["body"]["stop"] == ["###"]
    assert "stop" not in json.loads(request_line("k", "fake-judge", messages[0], GenerateConfig()))["body"]
    with pytest.raises(ValueError, match="stop"):
        GenerateConfig(stop="###")


# As core/jobs/spec.py wrote them before CallSettings (JobSpec.to_json at 507060c).
OLD_SPEC = ('{"api_base": ["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"], "api_key_env": "MY_KEY", '
            '"concurrency": 3, "dataset": "demo", "extra": {"batch": {"poll_seconds": 2.0, "retry": "direct"}, '
            '"crimson_map": "m.json"}, "limit": 5, "local_only": true, "max_retries": 1, "pair_ids": null, '
            '"selection": "", "shard": "1/2", "shots": null, "shots_every_prompt": false, "tasks": [{"effort": null, '
            '"judge": "openai/fake-judge", "max_tokens": 512, "prompt_id": "crimson", "temperature": 0.2}, '
            '{"effort": null, "judge": "rules", "max_tokens": null, "prompt_id": null, "temperature": null}], '
            '"timeout": 9.0}')
OLD_PLAIN = ('{"api_base": "URL", "api_key_env": null, "concurrency": 8, "dataset": "d", "extra": {}, "limit": 2, '
             '"local_only": null, "max_retries": 4, "pair_ids": null, "selection": "", "shard": null, "shots": null, '
             '"shots_every_prompt": false, "tasks": [{"effort": null, "judge": "openai/fake-judge", "max_tokens": null, '
             '"prompt_id": "green", "temperature": null}], "timeout": 120.0}')


def test_a_job_spec_stored_before_call_settings_loads_as_the_same_job():
    spec = JobSpec.from_json(OLD_SPEC)
    assert spec.call == CallSettings(api_base=("http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"), api_key_env="MY_KEY",
                                     timeout=9.0, max_retries=1, concurrency=3, local_only=True,
                                     batch=BatchOptions(poll_seconds=2.0, retry="direct"))
    assert spec.call.endpoint == ["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"]
    assert (spec.crimson_map, spec.shard, spec.limit) == ("m.json", "1/2", 5)
    assert spec.tasks[0].params() == GenerateConfig(temperature=0.2, max_tokens=512)
    assert spec.call.run_options()["batch"].retry == "direct"
    assert JobSpec.from_json(spec.to_json()) == spec  # the new form round-trips
    with pytest.raises(ValueError, match="unknown settings in the job spec's extra: surprise"):
        JobSpec.from_json(OLD_SPEC.replace('"crimson_map": "m.json"', '"surprise": 1'))


def test_an_old_job_spec_in_the_store_runs_against_its_own_endpoint(tmp_path):
    store = marked_store(tmp_path / "s.duckdb", 4)
    with FakeOpenAI() as server:
        job_id = table.submit(store, JobSpec("d", [Task("rules")]), origin="cli")
        store.execute("UPDATE jobs SET spec = ? WHERE job_id = ?", [OLD_PLAIN.replace("URL", server.url), job_id])
        outcome = run_job(store, job_id)
        assert outcome.state == "done", outcome.results
        assert server.requests == 2  # the old spec's limit, at the old spec's endpoint
        assert outcome.summaries[0].ok == 2


class _Refused(Exception):
    def __init__(self, status: int, retry_after: str | None = None):
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.headers = {"retry-after": retry_after} if retry_after is not None else {}


def test_blocking_calls_retry_through_the_one_policy():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise _Refused(429, retry_after="0")  # the provider says: again at once
        return "ok"

    assert call_with_retries(flaky, max_retries=4, backoff=30.0) == "ok" and len(calls) == 3  # no 30 s wait
    calls.clear()
    with pytest.raises(_Refused):
        call_with_retries(flaky, max_retries=1, backoff=0.0)  # retries spent
    assert len(calls) == 2
    calls.clear()
    with pytest.raises(_Refused):
        call_with_retries(lambda: calls.append(1) or (_ for _ in ()).throw(_Refused(400)), 4, 0.0)
    assert len(calls) == 1  # a 400 is not worth another attempt
    calls.clear()
    with pytest.raises(_Refused):
        call_with_retries(flaky, max_retries=4, backoff=0.0, give_up=lambda: True)  # a cancel
    assert len(calls) == 1


def test_stop_reaches_the_server_through_litellm_too(tmp_path, monkeypatch):
    from core import settings

    monkeypatch.setenv(settings.LITELLM_ONLY_VAR, "true")  # every call through litellm, not core.judges.direct
    store = marked_store(tmp_path / "s.duckdb", 2)
    with FakeOpenAI() as server:
        run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, max_retries=0,
                      params=GenerateConfig(stop=("###",)))
        run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, max_retries=0)
    assert [p.get("stop") for p in server.seen_params] == [["###"], ["###"], None, None]
