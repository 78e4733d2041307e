"""Secrets and privacy: a recognizable fake key never lands in the store, logs, exports or
exceptions; local_only refuses public endpoints; telemetry is off; the test network guard
(tests/conftest.py) really blocks outbound connections.
"""

from __future__ import annotations

import logging
import secrets
import socket
import tomllib
import traceback
from pathlib import Path

import pandas as pd
import pytest

from core.ingest.importers import PairColumns, import_pairs
from core.judges.live import LiveCallFailed, score_live
from core.judges.llm import EndpointRefused, run_llm_judge
from core.report import write_report
from core.store.db import Store
from core.store.export import to_parquet_bytes, to_safe_csv
from core.store.integrity import export_store
from tests.cli_inprocess import run_cli
from tests.conftest import OutboundConnectionBlocked
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/fake-judge"


def fake_key(prefix: str) -> str:
    """A recognizable fake key, made at run time (no key-shaped literal is tracked in the repo)."""
    return prefix + "-radconcord-canary-" + secrets.token_hex(12)


def make_store(path: Path, n: int = 6, leak_rows: tuple[int, ...] = (0,)) -> Store:
    store = Store(path)
    df = pd.DataFrame({"id": [f"p{i}" for i in range(n)],
                       "ref": [f"Reference {i}. Left pleural effusion." for i in range(n)],
                       "cand": [f"Candidate {i}. {'MLEAK' if i in leak_rows else ''} Effusion." for i in range(n)]})
    import_pairs(store, df, dataset="d", columns=PairColumns("id", "ref", "cand"), name="x.csv")
    return store


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_fake_keys_never_reach_store_logs_exports_or_exceptions(tmp_path, caplog, capfd, monkeypatch):
    arg_key = fake_key("sk")  # as the Run page passes a Streamlit secret
    env_key = fake_key("rjk")  # not sk-shaped: only the environment-variable scrub can catch it
    monkeypatch.setenv("OPENAI_API_KEY", env_key)
    caplog.set_level(logging.DEBUG)  # every logger, litellm's included, at its most talkative
    store = make_store(tmp_path / "s.duckdb")
    caught: list[BaseException] = []
    with FakeOpenAI(plan={"MLEAK": ["echo401"] * 10}) as server:  # a provider that echoes the key back
        by_arg = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, api_key=arg_key,
                               max_retries=0)
        by_env = run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url, max_retries=0,
                               prompt_id="vert")
        try:
            score_live("Left effusion. MLEAK", "Right effusion.", MODEL, api_base=server.url, api_key=arg_key,
                       max_retries=0)
        except LiveCallFailed as exc:
            caught.append(exc)
        sent = " ".join(str(h) for h in server.seen_headers)
    # the key handed over went to the server (so finding it nowhere else means something); the
    # environment's provider key never goes to a custom endpoint (tests/judges/test_gateway_checks.py) ...
    assert arg_key in sent and env_key not in sent
    # ... and the echoing provider's errors were recorded, with the key cut out
    assert by_arg.failed == 1 and by_env.failed == 1 and len(caught) == 1
    errors = store.query_df("SELECT error FROM judge_outputs WHERE error IS NOT NULL")["error"]
    assert len(errors) == 2 and all("[redacted]" in e for e in errors)

    with store.write() as conn:  # expert scores and counts, so the report has every section
        conn.execute("INSERT INTO annotations (pair_id, annotator, field, value, scale_max) "
                     "SELECT pair_id, 'e', 'score', 3, 5 FROM pairs")
        conn.execute("INSERT INTO annotations (pair_id, annotator, field, category, significant, value) "
                     "SELECT pair_id, 'e', 'error_count', c, s, 1 FROM pairs, "
                     "(VALUES ('a'), ('b'), ('c'), ('d'), ('e'), ('f')) t(c), (VALUES (true), (false)) u(s)")
    report = write_report(store, "d", tmp_path / "exports" / "report.html", n_boot=50)
    outputs = store.query_df("SELECT * FROM judge_outputs")
    runs = store.query_df("SELECT * FROM judge_runs")
    (tmp_path / "exports" / "outputs.csv").write_bytes(to_safe_csv(outputs))
    (tmp_path / "exports" / "runs.parquet").write_bytes(to_parquet_bytes(runs))
    export_store(store, tmp_path / "exports" / "store-parquet")
    assert Path(report["path"]).stat().st_size > 1000

    captured = capfd.readouterr()
    haystacks = {
        "logs": "\n".join(r.getMessage() + repr(r.args) for r in caplog.records),
        "stdout+stderr": captured.out + captured.err,
        "exceptions": "".join(traceback.format_exception(caught[0])) + repr(caught[0]),
        "summaries": repr(by_arg.to_json()) + repr(by_env.to_json()),
    }
    for path in [store.path, Path(f"{store.path}.wal"), *files_under(tmp_path / "exports")]:
        if path.exists():
            haystacks[str(path)] = path.read_bytes().decode("latin-1")
    assert len(haystacks) >= 8
    for where, text in haystacks.items():
        for key in (arg_key, env_key):
            assert key not in text, f"key found in {where}"
            assert key[-24:] not in text, f"a piece of the key found in {where}"


def test_local_only_refuses_public_endpoints_from_the_environment(tmp_path, monkeypatch):
    store = make_store(tmp_path / "s.duckdb", 2, leak_rows=())
    monkeypatch.setenv("RADCONCORD_LOCAL_ONLY", "true")
    for api_base in ("http://1.1.1.1:8000/v1", None):  # a public address; a hosted provider
        with pytest.raises(EndpointRefused, match="local_only"):
            run_llm_judge(store, dataset="d", model="openai/x" if api_base else "gpt-4o-mini", api_base=api_base)
        with pytest.raises(EndpointRefused, match="local_only"):
            score_live("a", "b", "openai/x" if api_base else "gpt-4o-mini", api_base=api_base)
    assert store.query_one("SELECT count(*) FROM judge_runs") == 0  # refused before any bookkeeping
    cli = run_cli("--store", str(store.path), "judge", "--dataset", "d", "--judge", "openai/x",
         "--api-base", "http://1.1.1.1:8000/v1", "--local-only")
    assert cli.returncode == 1 and "local_only is on" in cli.stderr
    with FakeOpenAI() as server:  # loopback stays allowed
        assert run_llm_judge(store, dataset="d", model=MODEL, api_base=server.url).ok == 2


def test_streamlit_telemetry_is_off():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["browser"]["gatherUsageStats"] is False
    assert config["server"]["address"] == "127.0.0.1" and config["server"]["headless"] is True
    assert "STREAMLIT_BROWSER_GATHER_USAGE_STATS := false" in (ROOT / "Makefile").read_text()


def test_network_guard_blocks_outbound_but_not_loopback():
    with pytest.raises(OutboundConnectionBlocked, match="test network guard"):
        socket.create_connection(("192.0.2.10", 443), timeout=1)  # TEST-NET-1
    with pytest.raises(OutboundConnectionBlocked):
        socket.socket(socket.AF_INET6).connect(("2001:db8::1", 443, 0, 0))
    with pytest.raises(socket.gaierror, match="test network guard"):
        socket.getaddrinfo("api.openai.com", 443)
    with socket.socket() as listener:  # loopback connections work as usual
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with socket.create_connection(listener.getsockname(), timeout=2):
            pass
    assert socket.getaddrinfo("localhost", 80)
