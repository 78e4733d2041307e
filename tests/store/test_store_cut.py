"""Issue 42, items 4, 5 and 8d: a store cut at any offset or with a few flipped bytes is found by check-store,
refused before any write and named by every read; merge names the damaged file and leaves no target behind;
a failed command leaves no empty store. Item 3's converse: bytes DuckDB never reads (a free block, a tail past
the header's block count) are not damage."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest

from core.cli.main import main
from core.ingest.demo import build_demo
from core.store.db import FIRST_BLOCK, Store
from core.store.forensics import free_blocks, read_header
from core.store.integrity import check_store
from tests.store.judged import judged_demo, sha

BLOCK = 262144


@pytest.fixture(scope="module")
def healthy(tmp_path_factory) -> Path:
    """400 demo pairs, rules + lexical + length: about 10 MB."""
    return judged_demo(tmp_path_factory.mktemp("cut") / "store.duckdb", 400)




def _cli(capsys, store: Path, *argv: str) -> tuple[int, list[str]]:
    code = main(["--store", str(store), *argv])
    return code, capsys.readouterr().err.strip().splitlines()


def _flipped(src: Path, dest: Path, table: str = "metric_values") -> Path:
    """A copy with 5 bytes flipped inside the first block holding ``table``'s rows."""
    shutil.copyfile(src, dest)
    con = duckdb.connect(str(dest), read_only=True)
    block = con.execute(f"SELECT min(block_id) FROM pragma_storage_info('{table}') WHERE block_id >= 0 "
                        "AND segment_type <> 'VALIDITY'").fetchone()[0]
    con.close()
    with dest.open("r+b") as f:
        for k in range(5):
            f.seek(FIRST_BLOCK + block * BLOCK + 1000 + 20_000 * k)
            byte = f.read(1)
            f.seek(-1, os.SEEK_CUR)
            f.write(bytes([byte[0] ^ 0xFF]))
    return dest


@pytest.mark.parametrize("cut", [1, 4096, 100_000, BLOCK, BLOCK + 1, 700_000, 2_000_000])
def test_a_tail_cut_at_any_offset_is_found_and_takes_no_write(healthy, tmp_path, capsys, cut):
    """``truncate -s -CUT``: check-store says the file was cut short; a read says so in one line; a write
    is refused and the file is unchanged. (Before: a cut of up to ~1 MB passed check-store and took writes.)"""
    path = tmp_path / "cut.duckdb"
    shutil.copyfile(healthy, path)
    os.truncate(path, path.stat().st_size - cut)
    before = sha(path)
    report = check_store(path)
    assert not report.ok and any("cut short" in p for p in report.problems), report.problems
    for argv in (["datasets"], ["judge", "--dataset", "demo", "--judge", "length"], ["demo", "--pairs", "20"]):
        code, lines = _cli(capsys, path, *argv)
        assert code == 1 and len(lines) == 1, (argv, lines)
        assert lines[0].startswith(f"error: the store at {path} is damaged: ") and "cut short" in lines[0], lines
    assert sha(path) == before


def test_five_flipped_bytes_make_every_read_say_damaged(healthy, tmp_path, capsys):
    """Five flipped bytes in a metric_values block: check-store fails, and `datasets`, `jobs` and `correlate`
    (which need not read that block) say the store is damaged in one line instead of answering."""
    path = _flipped(healthy, tmp_path / "flip.duckdb")
    assert not check_store(path).ok
    for argv in (["datasets"], ["jobs"], ["correlate", "--dataset", "demo"]):
        code, lines = _cli(capsys, path, *argv)
        assert code == 1 and len(lines) == 1, (argv, lines)
        assert lines[0].startswith(f"error: the store at {path} is damaged: block "), lines
        assert "fails its checksum (rows of metric_values)" in lines[0], lines


def test_merge_from_a_damaged_source_names_the_source_and_leaves_no_target(healthy, tmp_path, capsys):
    source = _flipped(healthy, tmp_path / "damaged.duckdb")
    new = tmp_path / "merged.duckdb"
    code, lines = _cli(capsys, new, "merge", "--from", str(source))
    assert code != 0 and lines[-1].startswith(f"error: the source {source} is damaged ("), lines
    assert str(new) not in " ".join(lines)
    assert not new.exists() and not Path(f"{new}.wal").exists()
    target = Store(tmp_path / "target.duckdb")
    build_demo(target, n_pairs=20, seed=1)
    before = sha(target.path)
    code, lines = _cli(capsys, target.path, "merge", "--from", str(source))
    assert code != 0 and lines[-1].startswith(f"error: the source {source} is damaged ("), lines
    assert f"the store at {target.path} is damaged" not in " ".join(lines)
    assert sha(target.path) == before and check_store(target.path).ok


def test_a_failed_command_into_a_new_path_leaves_no_store(tmp_path, capsys):
    bad = tmp_path / "pairs.csv"
    bad.write_text("id,reference\na,No effusion.\n", encoding="utf-8")  # no candidate column
    new = tmp_path / "new.duckdb"
    code, lines = _cli(capsys, new, "import-pairs", str(bad), "--dataset", "x", "--id-col", "id",
                       "--reference-col", "reference", "--candidate-col", "candidate")
    assert code != 0 and lines and lines[0].startswith("error: "), lines
    assert not new.exists() and not Path(f"{new}.wal").exists()
    good = tmp_path / "good.csv"
    good.write_text("id,reference,candidate\na,No effusion.,No effusion.\n", encoding="utf-8")
    code, lines = _cli(capsys, new, "import-pairs", str(good), "--dataset", "x", "--id-col", "id",
                       "--reference-col", "reference", "--candidate-col", "candidate")
    assert code == 0 and new.exists()  # a command that succeeds still makes its store


def _duckdb_reads_and_writes(path: Path) -> None:
    """The oracle, DuckDB's own: every table reads in full, and a write and a checkpoint succeed (on a copy)."""
    copy = path.with_name(f"oracle-{path.name}")
    shutil.copyfile(path, copy)
    con = duckdb.connect(str(copy))
    try:
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall():
            con.execute(f'SELECT * FROM "{table}"').fetchall()
        con.execute("CREATE TABLE oracle AS SELECT range AS i FROM range(100000)")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    copy.unlink()


def _unused_store_is_whole(path: Path, block: int, capsys) -> None:
    """check-store passes with a note naming ``block``; reads and a write answer as on a healthy store."""
    _duckdb_reads_and_writes(path)
    report = check_store(path)
    assert report.ok, report.problems
    assert any(n.startswith(f"unused block {block} ") and "not damage" in n for n in report.notes), report.notes
    for argv in (["datasets"], ["jobs"], ["correlate", "--dataset", "demo"], ["check-store"],
                 ["judge", "--dataset", "demo", "--judge", "length"]):
        code, lines = _cli(capsys, path, *argv)
        assert code == 0 and not any("damaged" in line for line in lines), (argv, lines)
    assert check_store(path).ok


def test_a_flipped_byte_in_a_free_block_is_not_damage(healthy, tmp_path, capsys):
    """A byte flipped in a block on the header's free list: DuckDB reads, writes and checkpoints; so do
    RadConcord's reads and writes, and check-store passes with a note. (Before: "block N fails its checksum;
    ... restore from a backup" from every read and from check-store.)"""
    path = tmp_path / "free.duckdb"
    shutil.copyfile(healthy, path)
    head = read_header(path)
    whole = (path.stat().st_size - FIRST_BLOCK) // BLOCK
    free = sorted(b for b in free_blocks(path, head) if b < whole)
    assert free, "the demo store has no free block inside the file: this test would prove nothing"
    with path.open("r+b") as f:
        f.seek(FIRST_BLOCK + free[0] * BLOCK + 1000)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))
    _unused_store_is_whole(path, free[0], capsys)


def test_an_appended_zero_block_is_not_damage(healthy, tmp_path, capsys):
    """256 KiB of zeros appended past the header's block count (a write that met a full disk leaves such a
    tail): not damage. (Before: the new block failed its checksum and every read said the store was damaged.)"""
    path = tmp_path / "tail.duckdb"
    shutil.copyfile(healthy, path)
    assert (path.stat().st_size - FIRST_BLOCK) % BLOCK == 0
    tail = (path.stat().st_size - FIRST_BLOCK) // BLOCK
    head = read_header(path)
    assert tail >= head.block_count or tail in free_blocks(path, head)  # the header does not use it
    with path.open("ab") as f:
        f.write(bytes(BLOCK))
    _unused_store_is_whole(path, tail, capsys)
