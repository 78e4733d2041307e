"""A key an endpoint repeats inside a successful answer never reaches the store, an export or Live
scoring's raw output (issue 31, item 7; the redaction in core/judges/llm.py ``Caller.call``).

The endpoint is a real HTTP server on loopback (tests/fake_openai.py, behaviour ``echo200``) that
answers every request normally and appends the Authorization header it received. The keys are made
at run time and are not shaped like any known key (no ``sk-``), so only the exact-value redaction can
catch them; each test first shows the key really went to the server, so finding it nowhere else means
something.
"""

from __future__ import annotations

import os
from pathlib import Path

from core.judges.live import score_live
from core.judges.llm import run_llm_judge
from core.store.db import Store
from core.store.export import to_safe_csv
from tests.apptest_helpers import FAKE_MODEL, assert_ok, use_fake_model
from tests.cli_inprocess import run_cli
from tests.fake_openai import FakeOpenAI
from tests.judges.test_privacy import fake_key, files_under, make_store

ROOT = Path(__file__).resolve().parents[2]
ECHO = {"echo200": 1.0}  # every request: a normal answer that repeats the key it was sent


def _sent(server: FakeOpenAI) -> str:
    return " ".join(str(h) for h in server.seen_headers)


def _assert_nowhere(key: str, haystacks: dict[str, str]) -> None:
    for where, text in haystacks.items():
        assert key not in text, f"the echoed key is in {where}"
        assert key[-20:] not in text, f"a piece of the echoed key is in {where}"


def test_an_echoed_key_is_redacted_before_the_store_and_the_exports(tmp_path):
    key = fake_key("rjecho")
    store = make_store(tmp_path / "s.duckdb", n=4, leak_rows=())
    with FakeOpenAI(fault_rates=ECHO) as server:
        summary = run_llm_judge(store, dataset="d", model=FAKE_MODEL, api_base=server.url, api_key=key,
                                max_retries=0)
        assert key in _sent(server) and server.behaviours["echo200"] == 4
    assert summary.ok == 4 and summary.failed == 0
    raw = store.query_df("SELECT raw_text, parse_status FROM judge_outputs")
    assert len(raw) == 4
    assert all("request received with Bearer [redacted]" in t for t in raw["raw_text"])  # the echo, cut out
    assert (raw["parse_status"] == "ok").all()  # the rest of the answer is intact and parsed
    (tmp_path / "outputs.csv").write_bytes(to_safe_csv(store.query_df("SELECT * FROM judge_outputs")))
    export = run_cli("--store", str(store.path), "export-store",
                             "--out", str(tmp_path / "snapshot"))
    assert export.returncode == 0, export.stderr
    exported = files_under(tmp_path / "snapshot")
    assert any(p.suffix == ".parquet" for p in exported)
    _assert_nowhere(key, {str(p): p.read_bytes().decode("latin-1")
                          for p in [store.path, tmp_path / "outputs.csv", *exported] if p.exists()})


def test_a_key_named_by_api_key_env_is_redacted_too(tmp_path):
    """The CLI's ``--api-key-env NAME`` with a variable name that does not look like a credential: only
    the caller's own key can catch it (the environment scrub matches names with KEY/TOKEN/...)."""
    key = fake_key("rjenv")
    store = make_store(tmp_path / "s.duckdb", n=3, leak_rows=())
    store_path = store.path
    del store
    env = dict(os.environ, PYTHONPATH=str(ROOT), RJ_ENDPOINT_CRED=key, LITELLM_LOCAL_MODEL_COST_MAP="True")
    with FakeOpenAI(fault_rates=ECHO) as server:
        proc = run_cli("--store", str(store_path), "judge", "--dataset", "d",
                               "--judge", FAKE_MODEL, "--api-base", server.url, "--api-key-env", "RJ_ENDPOINT_CRED",
                               "--max-retries", "0", "--json", env=env)
        assert key in _sent(server)
    assert proc.returncode == 0, proc.stderr
    store = Store(store_path)
    texts = store.query_df("SELECT raw_text FROM judge_outputs")["raw_text"].tolist()
    assert len(texts) == 3 and all("[redacted]" in t for t in texts)
    _assert_nowhere(key, {"stdout+stderr": proc.stdout + proc.stderr, "store": "\n".join(texts),
                          "store file": store_path.read_bytes().decode("latin-1")})


def test_an_echoed_key_never_shows_in_live_scoring(app_test, demo_store_copy: Store, monkeypatch):
    key = fake_key("rjlive")
    with FakeOpenAI(fault_rates=ECHO) as server:
        # the function the page and `python -m core score` call
        raw, parsed, _, _ = score_live("Left effusion.", "Right effusion.", FAKE_MODEL, api_base=server.url,
                                       api_key=key, max_retries=0)
        assert key in _sent(server) and "Bearer [redacted]" in raw and key not in raw
        assert parsed.status == "ok"
        # the page, with the key from Streamlit secrets' [endpoint_keys]
        use_fake_model(monkeypatch, server.url)
        at = app_test(demo_store_copy)
        at.secrets["endpoint_keys"] = {server.url: key}
        at.switch_page("pages/live.py")
        at.run()
        assert_ok(at)
        at.text_area(key="live_reference").input("FINDINGS: Moderate left pleural effusion.")
        at.text_area(key="live_candidate").input("FINDINGS: Small right pleural effusion.").run()
        at.button(key="live_score").click().run()
        assert_ok(at)
        assert server.requests == 2 and _sent(server).count(key) == 2  # the page sent the secrets' key
    shown = [c.value for c in at.code]
    assert any("request received with Bearer [redacted]" in c for c in shown), shown  # the raw output
    everything = "\n".join(shown + [str(e.value) for kind in ("markdown", "caption", "error", "warning", "info")
                                    for e in getattr(at, kind)])
    _assert_nowhere(key, {"Live scoring page": everything})

