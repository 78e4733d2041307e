"""Issue 31, items 1, 2 and 4: a damaged, truncated or foreign store file is named as such, in one line,
and left byte for byte as it was.

The stores are real DuckDB files: the demo's 2,000 pairs with the three offline judges run, then
damaged the way a disk or a copy damages a file (8 KiB of 0xAA over a block, or the file cut to half
its size). The oracle for block damage is DuckDB's own: reading every table in full with DuckDB
(``SELECT *``) fails with its checksum error exactly when it reads a damaged block.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from core.cli.main import main
from core.store.db import FIRST_BLOCK, Store, StoreDamaged, StoreForeign
from core.store.integrity import check_store
from tests.cli_inprocess import run_cli
from tests.store.judged import judged_demo, sha

ROOT = Path(__file__).resolve().parents[2]
BLOCK = 262_144  # DuckDB's default block size (the stores here are made with it)


@pytest.fixture(scope="module")
def big_store(tmp_path_factory) -> Path:
    """2,000 demo pairs, rules + lexical + length run: what issue 31 damaged."""
    return judged_demo(tmp_path_factory.mktemp("damage") / "store.duckdb", 2000)




def _copy(src: Path, dest: Path) -> Path:
    shutil.copyfile(src, dest)
    return dest


def _overwrite(path: Path, offset: int, n: int = 8192) -> None:
    with path.open("r+b") as f:
        f.seek(offset)
        f.write(b"\xaa" * n)


def _first_block_of(path: Path, table: str) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(f"SELECT min(block_id) FROM pragma_storage_info('{table}') WHERE block_id >= 0 "
                           "AND segment_type <> 'VALIDITY'").fetchone()[0]
    finally:
        con.close()


def _duckdb_unreadable_tables(path: Path) -> set[str]:
    """The oracle: the tables DuckDB itself cannot read in full."""
    con = duckdb.connect(str(path), read_only=True)
    bad = set()
    try:
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall():
            try:
                con.execute(f'SELECT * FROM "{table}"').fetchall()
            except duckdb.Error as exc:
                assert "checksum" in str(exc).lower() or "read" in str(exc).lower(), exc
                bad.add(table)
    finally:
        con.close()
    return bad


def _cli(capsys, store: Path, *argv: str) -> tuple[int, str]:
    code = main(["--store", str(store), *argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("table", ["datasets", "pairs", "judge_outputs", "metric_values", "judge_runs"])
def test_check_store_names_the_table_whose_block_is_damaged(big_store, tmp_path, capsys, table):
    path = _copy(big_store, tmp_path / "s.duckdb")
    block = _first_block_of(path, table)
    _overwrite(path, FIRST_BLOCK + block * BLOCK + 64)  # inside the block, past its checksum
    assert table in _duckdb_unreadable_tables(path)  # the damage is real: DuckDB itself cannot read it
    before = sha(path)
    report = check_store(path)
    assert not report.ok and table in report.damaged_tables, report.problems
    code = main(["--store", str(path), "check-store"])
    out = capsys.readouterr().out
    assert code == 1 and "damaged table(s): " in out and table in out.split("damaged table(s): ")[1]
    assert sha(path) == before  # the check never writes


def test_8_kib_of_0xaa_at_several_offsets(big_store, tmp_path, capsys):
    """Issue 31's probe at 10 %, 15 % ... 95 % of the file: whatever DuckDB cannot read, check-store names
    (and exits 1); when check-store passes, the analyses run."""
    detected = 0
    for frac in [i / 20 for i in range(2, 20)]:
        path = _copy(big_store, tmp_path / f"s{int(frac * 100)}.duckdb")
        _overwrite(path, int(path.stat().st_size * frac))
        unreadable = _duckdb_unreadable_tables(path)
        report = check_store(path)
        assert unreadable <= set(report.damaged_tables), (frac, unreadable, report.problems)
        code, err = _cli(capsys, path, "check-store")
        if unreadable:
            detected += 1
            assert code == 1
        if report.ok:
            for cmd in (["correlate", "--dataset", "demo"], ["agreement", "--dataset", "demo"]):
                code, err = _cli(capsys, path, *cmd)
                assert code == 0, (frac, cmd, err)
    assert detected >= 3  # the probe did hit table data (else this test proves nothing)


WRITES = (
    ["import-pairs", "{csv}", "--dataset", "extra", "--id-col", "id", "--reference-col", "reference",
     "--candidate-col", "candidate"],
    ["judge", "--dataset", "demo", "--judge", "length"],
    ["demo", "--pairs", "50"],
)
READS = (["datasets"], ["correlate", "--dataset", "demo"], ["agreement", "--dataset", "demo"],
         ["errortypes", "--dataset", "demo"])


def _damaged_copies(big_store: Path, tmp_path: Path) -> dict[str, Path]:
    half = _copy(big_store, tmp_path / "half.duckdb")
    os.truncate(half, half.stat().st_size // 2)
    ds = _copy(big_store, tmp_path / "datasets-block.duckdb")
    _overwrite(ds, FIRST_BLOCK + _first_block_of(ds, "datasets") * BLOCK + 64)
    mv = _copy(big_store, tmp_path / "metric-block.duckdb")
    _overwrite(mv, FIRST_BLOCK + _first_block_of(mv, "metric_values") * BLOCK + 64)
    return {"truncated": half, "datasets block": ds, "metric_values block": mv}


def test_damaged_and_truncated_stores_one_line_and_unchanged_in_every_command(big_store, tmp_path, capsys):
    csv = tmp_path / "pairs.csv"
    csv.write_text("id,reference,candidate\na,No effusion.,No effusion.\n", encoding="utf-8")
    for kind, path in _damaged_copies(big_store, tmp_path).items():
        before = sha(path)
        for argv in WRITES + READS:
            argv = [a.replace("{csv}", str(csv)) for a in argv]
            code, err = _cli(capsys, path, *argv)
            lines = err.strip().splitlines()
            if argv in [list(w) for w in WRITES] or kind == "truncated" or code != 0:
                # a write never builds on a damaged file; a truncated one is refused on opening; a read
                # that meets the damage says so: in each case one line, exit 1
                assert code == 1, (kind, argv, err)
                assert len(lines) == 1 and lines[0].startswith(f"error: the store at {path} is damaged: "), \
                    (kind, argv, err)
                assert lines[0].endswith("; run check-store; restore from a backup or export"), lines[0]
            assert sha(path) == before, (kind, argv)
            assert not Path(f"{path}.wal").exists()
        assert not check_store(path).ok


@pytest.mark.parametrize("argv", [["datasets"], ["judge", "--dataset", "demo", "--judge", "rules"],
                                  ["demo", "--pairs", "20"]])
def test_a_truncated_store_in_a_real_process_prints_no_traceback(big_store, tmp_path, argv):
    path = _copy(big_store, tmp_path / "half.duckdb")
    os.truncate(path, path.stat().st_size // 2)
    before = sha(path)
    proc = run_cli("--store", str(path), *argv, env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "IOException" not in proc.stderr
    line = proc.stderr.strip()
    assert re.fullmatch(rf"error: the store at {re.escape(str(path))} is damaged: the file holds \d+ whole blocks but "
                        r"block \d+ is in use: it was cut short; run check-store; restore from a "
                        r"backup or export", line), line
    assert sha(path) == before


def test_the_store_api_raises_store_damaged(big_store, tmp_path):
    paths = _damaged_copies(big_store, tmp_path)
    with pytest.raises(StoreDamaged, match="cut short"):
        Store(paths["truncated"]).query_df("SELECT * FROM pairs")
    store = Store(paths["metric_values block"])
    with pytest.raises(StoreDamaged, match=r"is damaged: block \d+ fails its checksum \(rows of metric_values\)"):
        store.query_df("SELECT * FROM metric_values")
    with pytest.raises(StoreDamaged, match="blocks of metric_values fail their checksum; nothing was written"):
        store.execute("UPDATE datasets SET description = 'x'")


def _foreign(path: Path, table: str) -> Path:
    con = duckdb.connect(str(path))
    con.execute(f"CREATE TABLE {table} (id INTEGER, name VARCHAR)")
    con.execute(f"INSERT INTO {table} VALUES (1, 'theirs'), (2, 'data')")
    con.close()
    return path


@pytest.mark.parametrize("table", ["datasets", "customers"])
def test_a_foreign_duckdb_file_is_refused_and_left_byte_identical(tmp_path, capsys, table):
    path = _foreign(tmp_path / "other.duckdb", table)
    before = sha(path)
    csv = tmp_path / "p.csv"
    csv.write_text("id,reference,candidate\na,x,y\n", encoding="utf-8")
    for argv in (["datasets"], ["import-pairs", str(csv), "--dataset", "d", "--id-col", "id",
                                "--reference-col", "reference", "--candidate-col", "candidate"],
                 ["demo", "--pairs", "10"], ["judge", "--dataset", "demo", "--judge", "rules"],
                 ["correlate", "--dataset", "demo"], ["backup", "--out", str(tmp_path / "b")]):
        code, err = _cli(capsys, path, *argv)
        assert code == 1, (argv, err)
        assert err.strip() == (f"error: {path} is a DuckDB database but not a RadConcord store (it holds {table}); "
                               "it was left unchanged; point --store or RADCONCORD_STORE at a RadConcord store"), err
        assert sha(path) == before
    with pytest.raises(StoreForeign):
        Store(path).query_df("SELECT 1")
    assert sha(path) == before and not (tmp_path / "b").exists()


def test_an_empty_duckdb_file_becomes_a_store_only_by_a_command_that_creates_stores(tmp_path, capsys):
    path = tmp_path / "empty.duckdb"
    duckdb.connect(str(path)).close()
    before = sha(path)
    for argv in (["datasets"], ["judge", "--dataset", "demo", "--judge", "rules"]):
        code, err = _cli(capsys, path, *argv)
        assert code == 1 and "is an empty DuckDB database, not a RadConcord store" in err and len(err.splitlines()) == 1
        assert sha(path) == before
    code, err = _cli(capsys, path, "demo", "--pairs", "20")
    assert code == 0, err
    assert check_store(path).ok and Store(path).query_one("SELECT count(*) FROM pairs WHERE dataset = 'demo'") == 20


def test_stores_of_every_earlier_schema_are_recognised(big_store, tmp_path):
    from core.store.db import latest_schema_version
    from tests.old_schema import older_copy

    for version in (1, 4, latest_schema_version() - 1):
        old = older_copy(big_store, tmp_path / f"v{version}.duckdb", version)
        store = Store(old, create=False)
        assert store.schema_version() == latest_schema_version()  # recognised, then migrated
        assert store.query_one("SELECT count(*) FROM pairs") == 2000


def test_the_descriptors_kept_for_block_checks_are_bounded(tmp_path):
    """Each store's first write reads its blocks through a descriptor kept open (closing one drops DuckDB's
    POSIX lock); a process meeting many stores keeps at most 32 of them, and check-store none."""
    from core.store import handles

    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = open_fds()
    for i in range(50):
        store = Store(tmp_path / f"s{i}.duckdb")
        store.execute("UPDATE store_meta SET value = value WHERE key = 'job_version'")
        assert check_store(store.path).ok
    assert open_fds() - before <= handles._READ_FDS_KEPT
    for i in range(50):
        check_store(tmp_path / f"s{i}.duckdb")
    assert open_fds() - before <= handles._READ_FDS_KEPT
