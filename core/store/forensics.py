"""File forensics: whether a store file is whole, read beside DuckDB (block checksums, the header, the free
list), and the verdict reads rely on.

DuckDB's file layout (storage version 64+): a 4 KiB main header, two 4 KiB database headers (the one with
the higher iteration is current: iteration, metadata pointer, free-list pointer, block count, block size),
then blocks of ``block_alloc_size`` bytes, each starting with the 8-byte checksum of the rest of the block.
The checksum (DuckDB's ``Checksum``): 5381 XOR the product of every 8-byte word with 0xbf58476d1ce4e5b9.
A checkpoint trims free blocks off the end, so a whole file may hold fewer blocks than its header counts;
the free list (in the metadata, a chain of 64 sub-blocks per metadata block) says which those are.
"""

from __future__ import annotations

import os
import struct
import threading
from pathlib import Path
from typing import NamedTuple

import duckdb
import numpy as np

from core.store.errors import is_damage
from core.store.handles import read_fd

_HEADER = 4096
FIRST_BLOCK = 3 * _HEADER
_CHECKSUM_MUL = np.uint64(0xBF58476D1CE4E5B9)
_INVALID = (1 << 64) - 1
_METADATA_PARTS = 64


def _checksum(words: np.ndarray) -> int:
    with np.errstate(over="ignore"):
        return int(np.bitwise_xor.reduce(words * _CHECKSUM_MUL) ^ np.uint64(5381))


class Header(NamedTuple):
    block_size: int
    block_count: int
    free_list: int  # a metadata pointer: block id in the low 56 bits, sub-block index in the high 8


def _header(data: np.ndarray) -> Header | None:
    """The current database header (None: a layout this code does not know)."""
    if len(data) < FIRST_BLOCK or bytes(data[8:12]) != b"DUCK":
        return None
    best = None
    for start in (_HEADER, 2 * _HEADER):
        head = data[start:start + _HEADER]
        if _checksum(head[8:].view(np.uint64)) != int(head[:8].view(np.uint64)[0]):
            continue
        fields = head[8:56].view(np.uint64)  # iteration, meta block, free list, block count, block size
        iteration = int(fields[0])
        if best is None or iteration > best[0]:
            best = (iteration, Header(int(fields[4]), int(fields[3]), int(fields[2])))
    if best is None or best[1].block_size < 16384 or best[1].block_size & (best[1].block_size - 1):
        return None
    return best[1]


def read_header(path: Path) -> Header | None:
    fd = read_fd(path)
    return _header(np.frombuffer(os.pread(fd, FIRST_BLOCK, 0), dtype=np.uint8))


def free_blocks(path: Path, head: Header) -> set[int] | None:
    """The block ids the header's free list names (None: the chain could not be read)."""
    if head.free_list == _INVALID:
        return set()
    fd = read_fd(path)
    part = ((head.block_size - 8) // _METADATA_PARTS) // 8 * 8  # DuckDB's metadata sub-block size

    def parts():
        pointer, seen = head.free_list, 0
        while pointer != _INVALID and seen < 4096:
            block, index = pointer & ((1 << 56) - 1), pointer >> 56
            raw = os.pread(fd, part, FIRST_BLOCK + block * head.block_size + 8 + index * part)
            if len(raw) < part or index >= _METADATA_PARTS:
                raise ValueError("free list outside the file")
            pointer, seen = struct.unpack_from("<Q", raw)[0], seen + 1
            yield raw[8:]

    try:
        data, stream = b"", parts()
        while len(data) < 8:
            data += next(stream)
        count = struct.unpack_from("<Q", data)[0]
        if count > 1 << 32:
            return None
        while len(data) < 8 + 8 * count:
            data += next(stream)
        return set(struct.unpack_from(f"<{count}q", data, 8))
    except (StopIteration, ValueError, struct.error, OSError):
        return None


def _free(path: Path, head: Header, conn) -> set[int]:
    """The free list as this code reads it from the header, kept only when its length is DuckDB's own count
    for ``conn`` (else empty: every block the header counts is taken to be in use)."""
    free = free_blocks(path, head)
    if free is None or conn is None:
        return set()
    listed = conn.execute("SELECT free_blocks FROM pragma_database_size() "
                          "WHERE database_name = current_database()").fetchone()
    if listed and listed[0] is not None and len(free) != int(listed[0]):
        return set()
    return free


def truncation(path: Path, conn) -> str | None:
    """Why the file behind ``conn`` is shorter than its contents (None: it is not). Every block the header
    counts that is not on the free list must be in the file whole; a tail beyond them (a write that met a
    full disk) is not damage. Reads the headers and the free list (milliseconds), not the data."""
    size = path.stat().st_size
    if size < FIRST_BLOCK:
        return f"the file is {size:,} bytes, shorter than DuckDB's headers: it was cut short"
    head = read_header(path)
    if head is None:
        return None
    whole = (size - FIRST_BLOCK) // head.block_size
    if whole >= head.block_count:
        return None
    free = _free(path, head, conn)
    missing = [b for b in range(whole, head.block_count) if b not in free]
    if missing:
        return (f"the file holds {whole:,} whole blocks but block {missing[0]:,} is in use: it was cut short")
    return None


class Blocks(NamedTuple):
    bad: list[int]  # blocks in use (counted by the header, not on its free list) whose checksum fails
    checked: int  # blocks in use checked
    size: int | None  # the block size; None: a layout this code does not know (nothing checked)
    unused_bad: list[int]  # free blocks, or whole blocks past the header's count, whose checksum fails


def check_blocks(path: Path, conn) -> Blocks:
    """The checksums of the DuckDB file at ``path`` (``conn`` holds it). Only a block in use can be damage:
    a free block or a tail past the header's count holds nothing DuckDB reads (a crash, a full disk or a
    copy may leave anything there), so its failures are listed apart. Reads the whole file once, safely
    while this process holds a DuckDB connection to it (``handles.read_chunks``)."""
    size_on_disk = path.stat().st_size
    if size_on_disk < FIRST_BLOCK:
        return Blocks([], 0, None, [])
    fd = read_fd(path)
    head = _header(np.frombuffer(os.pread(fd, FIRST_BLOCK, 0), dtype=np.uint8))
    if head is None:
        return Blocks([], 0, None, [])
    size = head.block_size
    free = _free(path, head, conn)
    whole = (size_on_disk - FIRST_BLOCK) // size
    bad, unused_bad, checked = [], [], 0
    for b in range(whole):
        block = np.frombuffer(os.pread(fd, size, FIRST_BLOCK + b * size), dtype=np.uint8)
        if len(block) < size:
            break  # the file shrank meanwhile
        used = b < head.block_count and b not in free
        checked += used
        if _checksum(block[8:].view(np.uint64)) != int(block[:8].view(np.uint64)[0]):
            (bad if used else unused_bad).append(b)
    return Blocks(bad, checked, size, unused_bad)


def block_owners(conn) -> dict[int, set[str]]:
    """Block id -> the tables whose rows it holds (from DuckDB's catalog: ``pragma_storage_info``)."""
    owners: dict[int, set[str]] = {}
    for (table,) in conn.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                                 "current_database() AND NOT internal").fetchall():
        quoted = table.replace("'", "''")
        for block_id, extra in conn.execute(  # catalog names only
                f"SELECT block_id, additional_block_ids FROM pragma_storage_info('{quoted}') "
                "WHERE block_id >= 0").fetchall():
            for bid in [block_id, *(extra or [])]:
                owners.setdefault(int(bid), set()).add(table)
    return owners


def damaged_tables(path: Path, conn) -> list[str]:
    """The tables with rows in a block in use of ``path`` whose checksum fails (the check before a handle's
    first write: a write must not build on a damaged file). A failing block holding no table's rows
    (an index or the catalog) is left to check-store, which reports it; free space is no damage."""
    bad = check_blocks(path, conn).bad
    if not bad:
        return []
    owners = block_owners(conn)
    return sorted({t for b in bad for t in owners.get(b, ())})


def unreadable_tables(conn) -> list[tuple[str, str]]:
    """(table, DuckDB's first line) of every table one of whose columns does not read in full (DuckDB
    verifies each block's checksum as it reads it)."""
    found = []
    for (table,) in conn.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                                 "current_database() AND NOT internal ORDER BY table_name").fetchall():
        quoted = '"' + table.replace('"', '""') + '"'
        try:
            conn.execute(f"SELECT count(*), max(hash(COLUMNS(*))) FROM {quoted}").fetchall()
        except duckdb.Error as exc:
            if not is_damage(exc):
                raise
            found.append((table, (str(exc).splitlines() or [""])[0]))
    return found


def damage(path: Path, conn) -> str | None:
    """Why check-store would call the file behind ``conn`` damaged, in one phrase (None: whole): a block
    in use whose checksum fails, or a block in use cut off the end. Reads the whole file (see :func:`verdict`)."""
    short = truncation(path, conn)
    if short:
        return short
    bad = check_blocks(path, conn).bad
    if not bad:
        return None
    where = ", ".join(f"{b:,}" for b in bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
    try:
        owners = block_owners(conn)
    except duckdb.Error:
        owners = {}  # the catalog itself does not read: the blocks are still named
    tables = sorted({t for b in bad for t in owners.get(b, ())})
    held = f" (rows of {', '.join(tables)})" if tables else ""
    return f"block{'s' if len(bad) > 1 else ''} {where} fail{'' if len(bad) > 1 else 's'} its checksum{held}"


# Verdicts of this process per file version (device, inode, size, mtime in ns): the whole-file check runs
# once per version a reader meets, not on every read. A file changed by any writer has a new version.
_VERDICTS: dict[str, tuple[tuple[int, int, int, int], str | None]] = {}
_VERDICTS_GUARD = threading.Lock()


def _version(path: Path) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def verdict(path: Path, conn) -> str | None:
    """:func:`damage` of the file behind ``conn`` (a connection holding it, so no writer changes it
    meanwhile), remembered for this version of the file."""
    key, version = str(Path(path).resolve()), _version(path)
    with _VERDICTS_GUARD:
        known = _VERDICTS.get(key)
    if known is not None and known[0] == version:
        return known[1]
    why = damage(path, conn)
    with _VERDICTS_GUARD:
        _VERDICTS[key] = (version, why)
    return why
