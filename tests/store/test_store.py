"""The store on real DuckDB files, including two real processes sharing one file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from importlib import metadata
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from core.store.db import Store, StoreBusy, StoreError, latest_schema_version, pair_id_for
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]


def test_new_store_is_migrated_and_versioned(tmp_path):
    store = Store(tmp_path / "sub" / "s.duckdb")
    assert store.schema_version() == latest_schema_version() >= 1
    tables = set(store.query_df("SELECT table_name FROM information_schema.tables")["table_name"])
    assert {"datasets", "pairs", "annotations", "judge_runs", "judge_outputs", "judge_errors",
            "metric_values", "schema_version"} <= tables
    v0 = store.data_version()
    store.execute("INSERT INTO datasets (name, kind) VALUES (?, ?)", ["x", "score"])
    assert store.data_version() == v0 + 1
    Store(store.path)  # reopening applies nothing twice
    assert store.query_one("SELECT count(*) FROM schema_version") == latest_schema_version()


def test_store_from_the_future_is_refused(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    store.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", [999, "future.sql"])
    later = Store(store.path)  # the check rides on the first connection
    with pytest.raises(StoreError, match="newer than this RadConcord"):
        later.data_version()
    with pytest.raises(StoreError, match="newer than this RadConcord"):
        later.execute("DELETE FROM datasets")
    assert store.query_one("SELECT max(version) FROM schema_version") == 999  # refused, not touched


def test_failed_write_rolls_back(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    v0 = store.data_version()
    with pytest.raises(RuntimeError):
        with store.write() as conn:
            conn.execute("INSERT INTO datasets (name, kind) VALUES (?, ?)", ["x", "score"])
            raise RuntimeError("boom")
    assert store.query_one("SELECT count(*) FROM datasets") == 0
    assert store.data_version() == v0


def test_values_are_parameters_never_sql(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    hostile = "x'); DROP TABLE pairs; --"
    store.execute("INSERT INTO datasets (name, kind) VALUES (?, ?)", [hostile, "score"])
    assert store.query_one("SELECT name FROM datasets WHERE name = ?", [hostile]) == hostile
    assert store.query_one("SELECT count(*) FROM pairs") == 0


def test_pair_id_is_stable_and_dataset_scoped():
    assert pair_id_for("d", "1") == pair_id_for("d", "1")
    assert pair_id_for("d", "1") != pair_id_for("e", "1")
    assert pair_id_for("d1", "") != pair_id_for("d", "1")


def test_busy_store_raises_clear_error_after_timeout(tmp_path):
    path = tmp_path / "s.duckdb"
    Store(path)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         f"import duckdb,time; c=duckdb.connect({str(path)!r}); print('held', flush=True); time.sleep(20)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        with pytest.raises(StoreBusy) as busy:
            Store(path, timeout=0.5).data_version()
        assert time.monotonic() - start >= 0.5
        said = str(busy.value)
        assert said.startswith(f"store {path} stayed locked by another connection (this or another process) for "
                               "0.5 s (IO Error: Could not set lock on file") and len(said.splitlines()) == 1
    finally:
        holder.kill()
        holder.wait()


def test_busy_store_names_a_connection_of_this_process_too(tmp_path):
    """A connection of this very process with another configuration (read-only) also keeps a write out: the
    message does not only blame another process, and carries DuckDB's own first line."""
    path = tmp_path / "s.duckdb"
    Store(path)
    held = duckdb.connect(str(path), read_only=True)
    try:
        with pytest.raises(StoreBusy) as busy, Store(path, timeout=0.3).write():
            pass
        said = str(busy.value)
        assert "stayed locked by another connection (this or another process) for 0.3 s" in said
        assert "with a different configuration than existing connections" in said and len(said.splitlines()) == 1
    finally:
        held.close()



def test_a_store_timeout_that_is_not_a_finite_number_is_refused_in_one_line(tmp_path, monkeypatch):
    """``RADCONCORD_STORE_TIMEOUT=inf`` would wait forever for a held store: refused before anything is opened,
    like a value that is no number; a finite one is taken (at least 0.1 s)."""
    path, kept = tmp_path / "s.duckdb", Store(tmp_path / "kept.duckdb").path
    for bad in ("inf", "-Infinity", "nan", "thirty"):
        monkeypatch.setenv("RADCONCORD_STORE_TIMEOUT", bad)
        with pytest.raises(ValueError, match=rf"^RADCONCORD_STORE_TIMEOUT must be a finite number of seconds "
                                             rf"\(e.g. 30\), not '{bad}'$"):
            Store(path)
        assert not path.exists()  # nothing made
        done = run_cli("--store", str(kept), "datasets", env={**os.environ})
        lines = [ln for ln in done.stderr.strip().splitlines() if "is an old name, still read" not in ln]
        assert done.returncode != 0 and lines == [  # besides the old-name notice (docs/INSTALL.md)
            f"error: RADCONCORD_STORE_TIMEOUT must be a finite number of seconds (e.g. 30), not '{bad}'"]
    for good, seconds in (("2.5", 2.5), ("0", 0.1)):
        monkeypatch.setenv("RADCONCORD_STORE_TIMEOUT", good)
        assert Store(path).timeout == seconds

READER = textwrap.dedent("""
    import json, sys, time
    from core.store.db import Store
    store = Store(sys.argv[1], timeout=60)
    seen, errors = [int(store.query_one("SELECT count(*) FROM pairs"))], []
    print("reading", flush=True)  # the parent starts the imports on this line
    deadline = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < deadline:
        try:
            seen.append(int(store.query_one("SELECT count(*) FROM pairs")))
        except Exception as exc:  # any error fails the test
            errors.append(repr(exc))
        time.sleep(0.01)
    print(json.dumps({"seen": seen, "errors": errors}))
""")


def test_dashboard_reader_and_cli_importer_share_one_store(tmp_path):
    """A reading process (as the dashboard) and CLI imports in other processes, at once."""
    path = tmp_path / "shared.duckdb"
    Store(path)
    files = []
    for k in range(4):
        df = pd.DataFrame({"id": [f"{k}-{i}" for i in range(250)],
                           "ref": [f"ref {k} {i}" for i in range(250)],
                           "cand": [f"cand {k} {i}" for i in range(250)]})
        f = tmp_path / f"batch{k}.csv"
        df.to_csv(f, index=False)
        files.append(f)
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path), "12"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # the imports start once the reader reads (not after a fixed second: a loaded machine starts it later);
    # a reader that dies first ends the line empty
    assert reader.stdout.readline().strip() == "reading", reader.stderr.read() if reader.poll() is not None else ""
    for k, f in enumerate(files):
        done = run_cli("--store", str(path), "import-pairs", str(f), "--dataset",
             f"batch{k}", "--id-col", "id", "--reference-col", "ref", "--candidate-col", "cand", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["added"] == 250
    out, err = reader.communicate(timeout=120)
    assert reader.returncode == 0, err
    result = json.loads(out)
    assert result["errors"] == []
    seen = result["seen"]
    assert len(seen) > 20
    assert seen == sorted(seen)  # each import committed whole: counts only grow, in steps of 250
    assert {s % 250 for s in seen} == {0}
    assert Store(path).query_one("SELECT count(*) FROM pairs") == 1000


def test_litellm_is_pinned_and_never_the_compromised_release():
    assert metadata.version("litellm") != "1.107.0"
    pins = [ln for ln in (ROOT / "requirements.txt").read_text().splitlines() if ln.startswith("litellm")]
    assert pins == ["litellm==1.102.4"]
    assert "litellm!=1.107.0" in (ROOT / "constraints.txt").read_text()
    assert "-c constraints.txt" in (ROOT / "Makefile").read_text()


def test_every_requirement_is_pinned_exactly():
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("-r"):
                continue
            assert "==" in line, f"{name}: {line} is not pinned with =="


def test_streamlit_telemetry_off_and_headless():
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    assert "gatherUsageStats = false" in config
    assert "headless = true" in config


def _can_write_from_another_process(path) -> bool:
    probe = subprocess.run(
        [sys.executable, "-c", f"import duckdb; duckdb.connect({str(path)!r}).close()"],
        capture_output=True, text=True, timeout=60)
    return probe.returncode == 0


def test_a_session_opens_the_file_once_and_lets_it_go_at_the_end(tmp_path, monkeypatch):
    store = Store(tmp_path / "s.duckdb")
    opened = []
    real = Store._connect
    monkeypatch.setattr(Store, "_connect", lambda self, read_only: opened.append(read_only) or real(self, read_only))
    with store.session():
        for _ in range(5):
            assert store.data_version() >= 0
        with store.session():  # nested: the same session
            store.query_df("SELECT * FROM datasets")
        assert opened == [True]
        assert not _can_write_from_another_process(store.path)  # held while the session lasts
    assert _can_write_from_another_process(store.path)
    store.data_version()
    assert opened == [True, True]  # outside a session every read opens the file again


def test_a_block_outside_a_session_does_not_hold_the_file_and_the_session_resumes(tmp_path, monkeypatch):
    """The dashboard's run-long session (app.py) steps outside for a long computation (ui.shared.cached):
    the file is not held while it runs, reads inside open their own connections, and the session goes on."""
    store = Store(tmp_path / "s.duckdb")
    opened = []
    real = Store._connect
    monkeypatch.setattr(Store, "_connect", lambda self, read_only: opened.append(read_only) or real(self, read_only))
    with store.session():
        store.data_version()
        with store.outside_session():
            assert _can_write_from_another_process(store.path)  # the session's connection was closed
            store.data_version()
            store.data_version()
            assert _can_write_from_another_process(store.path)  # reads here let the file go at once
        assert opened == [True, True, True]
        store.data_version()
        store.query_df("SELECT * FROM datasets")
        assert opened == [True, True, True, True]  # the session again: one opening for both reads
        assert not _can_write_from_another_process(store.path)
    assert _can_write_from_another_process(store.path)
    with store.outside_session():  # outside any session: nothing to step out of
        store.data_version()
    assert opened == [True] * 5


def test_an_existing_store_is_checked_on_its_first_connection_not_in_the_constructor(tmp_path, monkeypatch):
    from tests.old_schema import older_copy

    Store(tmp_path / "s.duckdb").execute("INSERT INTO datasets (name, kind) VALUES ('d', 'score')")
    opened = []
    real = Store._connect
    monkeypatch.setattr(Store, "_connect", lambda self, read_only: opened.append(read_only) or real(self, read_only))
    store = Store(tmp_path / "s.duckdb")
    assert opened == []  # a handle costs no opening of the file
    assert store.query_one("SELECT name FROM datasets") == "d"
    assert opened == [True]  # the schema check rode on the read's connection
    store.data_version()
    assert opened == [True, True]  # and is not repeated
    # an older store: the first read finds it old, migrates it (one write connection) and reads on
    old = Store(older_copy(store.path, tmp_path / "v3.duckdb", 3))
    opened.clear()
    assert old.query_one("SELECT name FROM datasets") == "d"
    assert opened.count(False) == 1 and opened[0] and opened[-1]
    assert old.query_one("SELECT max(version) FROM schema_version") == latest_schema_version()

def test_a_write_inside_a_session_is_seen_by_the_next_read(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    with store.session():
        before = store.data_version()
        store.execute("INSERT INTO datasets (name, kind, source) VALUES ('d', 'scores', 'test')")
        assert store.data_version() == before + 1
        assert store.query_one("SELECT count(*) FROM datasets") == 1
    assert _can_write_from_another_process(store.path)


def test_reads_and_writes_from_threads_of_one_process_wait_for_each_other(tmp_path):
    """One process, one database instance per file: a read opened while another thread's write opens or
    closes its connection (a job's heartbeat beside its runner) waits for it instead of failing."""
    import threading

    store = Store(tmp_path / "s.duckdb")
    errors: list[BaseException] = []

    def loop(step):
        try:
            for _ in range(150):
                step()
        except BaseException as exc:  # noqa: BLE001 - collected and shown below
            errors.append(exc)

    def read():
        store.query_one("SELECT count(*) FROM pairs")

    def write():
        store.execute("UPDATE store_meta SET value = value WHERE key = 'data_version'")

    threads = [threading.Thread(target=loop, args=(step,)) for step in (read, read, write, write)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
