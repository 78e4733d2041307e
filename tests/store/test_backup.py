"""Issue 31, item 3: backups a user can rely on (``backup``, ``restore``, the copy kept before a migration).

Real stores, real processes: a CLI judge job writes while ``backup`` runs in another process; the backup
is restored and compared table by table with the backup and with the manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from core.cli.main import main
from core.ingest.demo import build_demo
from core.store.backup import AUTO_BACKUPS_KEPT, auto_backups
from core.store.db import Store, latest_schema_version
from core.store.integrity import TABLES, check_store
from tests.cli_inprocess import run_cli
from tests.old_schema import older_copy

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tables(path: Path) -> dict[str, tuple[int, int]]:
    """Per table: (rows, an order-independent hash of every row)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        out = {}
        for (t,) in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY table_name").fetchall():
            n, h = con.execute(f'SELECT count(*), coalesce(bit_xor(hash(x)), 0) FROM (SELECT * FROM "{t}") x').fetchone()
            out[t] = (n, h)
        return out
    finally:
        con.close()


@pytest.fixture(scope="module")
def demo2000(tmp_path_factory) -> Path:
    store = Store(tmp_path_factory.mktemp("backup") / "store.duckdb")
    build_demo(store, n_pairs=2000, seed=7)
    return store.path


def test_backup_while_a_judge_job_writes_then_restore_round_trips(demo2000, tmp_path):
    store = tmp_path / "store.duckdb"
    shutil.copyfile(demo2000, store)
    judges = "; ".join(f"{sys.executable} -m core --store {store} judge --dataset demo --judge {j} --allow-failures"
                       for j in ("rules", "lexical", "length", "rules"))
    job = subprocess.Popen(["bash", "-c", f"set -e; {judges}"], cwd=ROOT, env=ENV,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # wait for the first committed outputs (without holding the file)
            time.sleep(0.5)
            if job.poll() is not None:
                break
            try:
                con = duckdb.connect(str(store), read_only=True)
            except duckdb.Error:
                continue  # held by the writer
            try:
                n = con.execute("SELECT count(*) FROM judge_outputs").fetchone()[0]
            finally:
                con.close()
            if n:
                break
        assert job.poll() is None, "the judge job ended before the backup started: nothing was tested"
        t0 = time.monotonic()
        proc = run_cli("--store", str(store), "backup", "--out",
                               str(tmp_path / "bk"), env=ENV)
        seconds = time.monotonic() - t0
        assert proc.returncode == 0, proc.stderr
        assert job.poll() is None or job.returncode == 0  # the job was still writing, or finished well
    finally:
        _, err = job.communicate(timeout=300)
    assert job.returncode == 0, err  # the writer waited for the backup's read lock, then went on

    manifest = json.loads((tmp_path / "bk" / "manifest.json").read_text())
    copy = tmp_path / "bk" / "store.duckdb"
    assert manifest["sha256"] == _sha(copy) and manifest["bytes"] == copy.stat().st_size
    assert manifest["schema_version"] == latest_schema_version() and manifest["created_at"].endswith("Z")
    assert check_store(copy).ok
    snapshot = _tables(copy)
    assert {t: n for t, (n, _) in snapshot.items() if t in manifest["rows"]} == manifest["rows"]
    assert 0 < snapshot["judge_outputs"][0] < _tables(store)["judge_outputs"][0]  # taken mid-job
    print(f"backup of {copy.stat().st_size:,} bytes mid-job: {seconds:.2f} s")

    restored = tmp_path / "restored.duckdb"
    code = main(["--store", str(tmp_path / "nowhere.duckdb"), "restore", "--from", str(tmp_path / "bk"),
                 "--to", str(restored)])
    assert code == 0
    assert check_store(restored).ok and _tables(restored) == snapshot and _sha(restored) == manifest["sha256"]
    assert Store(restored).data_version() == manifest["data_version"]
    assert set(TABLES) <= set(snapshot)


def _changed_after_a_backup(demo2000: Path, tmp_path: Path, capsys) -> tuple[Path, str]:
    """A copy of the demo store backed up into ``tmp_path/bk`` (by the CLI), then changed: the store's path
    and its SHA-256 after the change."""
    store = tmp_path / "store.duckdb"
    shutil.copyfile(demo2000, store)
    assert main(["--store", str(store), "backup", "--out", str(tmp_path / "bk")]) == 0
    capsys.readouterr()
    Store(store).execute("UPDATE datasets SET description = 'changed after the backup'")
    return store, _sha(store)


def test_restore_refuses_an_existing_store_a_tampered_backup_and_leaves_no_half_file(demo2000, tmp_path, capsys):
    store, before = _changed_after_a_backup(demo2000, tmp_path, capsys)

    assert main(["--store", str(store), "restore", "--from", str(tmp_path / "bk")]) == 1
    err = capsys.readouterr().err
    assert "exists; pass --force" in err and len(err.strip().splitlines()) == 1 and _sha(store) == before

    assert main(["--store", str(store), "backup", "--out", str(tmp_path / "bk")]) == 1  # not an empty folder
    assert "is not an empty folder" in capsys.readouterr().err

    tampered = tmp_path / "tampered"
    shutil.copytree(tmp_path / "bk", tampered)
    with (tampered / "store.duckdb").open("r+b") as f:
        f.seek(20_000)
        f.write(b"\x00\x01")
    assert main(["--store", str(store), "restore", "--from", str(tampered), "--force"]) == 1
    assert "SHA-256 differs" in capsys.readouterr().err and _sha(store) == before
    assert main(["--store", str(store), "restore", "--from", str(tmp_path / "nothing"), "--force"]) == 1
    assert "no readable backup manifest" in capsys.readouterr().err and _sha(store) == before

    assert main(["--store", str(store), "restore", "--from", str(tmp_path / "bk"), "--force"]) == 0
    assert _sha(store) == json.loads((tmp_path / "bk" / "manifest.json").read_text())["sha256"]
    assert Store(store).query_one("SELECT count(*) FROM datasets WHERE description = 'changed after the backup'") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bk", "store.duckdb", "tampered"]  # no temporary left


def test_an_older_store_is_backed_up_before_its_migration_and_the_copies_are_pruned(demo2000, tmp_path):
    src = tmp_path / "v4.duckdb"
    older_copy(demo2000, src, 4)
    old_sha, old_tables = _sha(src), _tables(src)
    store = tmp_path / "store.duckdb"
    shutil.copyfile(src, store)
    mine = Path(f"{store}.backups") / "my-notes"
    mine.mkdir(parents=True)

    assert Store(store).schema_version() == latest_schema_version()
    [kept] = auto_backups(store)
    assert kept.name.endswith("-schema-v4")
    manifest = json.loads((kept / "manifest.json").read_text())
    assert manifest["schema_version"] == 4 and manifest["sha256"] == old_sha == _sha(kept / "store.duckdb")
    assert "before migrating from schema v4" in manifest["reason"]
    assert Store(store).schema_version() == latest_schema_version() and len(auto_backups(store)) == 1  # no re-copy

    restored = tmp_path / "back-to-v4.duckdb"
    assert main(["restore", "--from", str(kept), "--to", str(restored)]) == 0
    assert _tables(restored) == old_tables  # the store as it was before the migration

    for _ in range(AUTO_BACKUPS_KEPT + 2):  # more migrations than copies kept
        shutil.copyfile(src, store)
        Store(store).schema_version()
    left = auto_backups(store)
    assert len(left) == AUTO_BACKUPS_KEPT and all(p.name.endswith("-schema-v4") for p in left)
    assert kept not in left  # the oldest went first
    assert mine.is_dir()  # a folder it did not make is never pruned


def test_restore_refuses_a_store_another_process_holds(demo2000, tmp_path, capsys):
    store, before = _changed_after_a_backup(demo2000, tmp_path, capsys)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(60)", str(store)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["--store", str(store), "restore", "--from", str(tmp_path / "bk"), "--force"]) == 1
        err = capsys.readouterr().err
        assert "is in use by another process" in err and len(err.strip().splitlines()) == 1
    finally:
        holder.kill()
        holder.wait()
    assert _sha(store) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bk", "store.duckdb"]
