"""``python -m core reproduce BUNDLE``: rebuild a store from a bundle (:mod:`core.paper.bundle`) and check
that its tables come out byte for byte as they were shipped."""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from core.paper.bundle import FORMAT, TABLES, sha256_hex, table_files
from core.paper.compute import PaperSettings
from core.store.db import Store


@dataclass
class Reproduction:
    """What :func:`reproduce` found: rows restored per table, and the tables identical, different or missing."""

    dataset: str
    store: Path
    rows: dict[str, int]
    identical: list[str] = field(default_factory=list)
    different: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.identical) and not self.different and not self.missing

    def to_json(self) -> dict:
        return {"dataset": self.dataset, "store": str(self.store), "rows": self.rows, "identical": self.identical,
                "different": self.different, "missing": self.missing, "ok": self.ok}


def read_bundle(source: str | Path) -> tuple[dict, dict[str, bytes]]:
    """The manifest and files of a bundle zip or of the folder it was extracted to; every file is checked
    against the manifest's size and SHA-256 (ValueError naming the first that differs)."""
    source = Path(source)
    if not source.exists():
        raise FileNotFoundError(f"bundle {source} does not exist")
    files: dict[str, bytes] = {}
    if source.is_dir():
        manifests = sorted(source.glob("manifest.json")) or sorted(source.glob("*/manifest.json"))
        if len(manifests) != 1:
            raise ValueError(f"{source} holds no bundle (no manifest.json, or several)")
        root = manifests[0].parent
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    else:
        try:
            with zipfile.ZipFile(source) as zf:
                for name in zf.namelist():
                    if not name.endswith("/"):
                        files[name.split("/", 1)[1] if "/" in name else name] = zf.read(name)
        except zipfile.BadZipFile as exc:
            raise ValueError(f"{source} is not a bundle zip ({exc})") from None
    if "manifest.json" not in files:
        raise ValueError(f"{source} holds no manifest.json: not a RadConcord bundle")
    manifest = json.loads(files["manifest.json"])
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{source} is a bundle of format {manifest.get('format')!r}; this RadConcord reads {FORMAT}")
    for name, meta in manifest["files"].items():
        if name not in files:
            raise ValueError(f"bundle {source} is missing {name}")
        if len(files[name]) != meta["bytes"] or sha256_hex(files[name]) != meta["sha256"]:
            raise ValueError(f"bundle {source}: {name} differs from its manifest (changed or damaged)")
    return manifest, files


def restore_store(path: Path, files: dict[str, bytes]) -> tuple[Store, dict[str, int]]:
    """A new store at ``path`` holding the bundle's rows (withheld report text stored as empty text; the
    identical-pair flags were stored with the pairs, so no statistic reads the text)."""
    import pyarrow.parquet as pq

    store = Store(path)
    rows = {}
    with store.write() as conn:
        for table in TABLES:
            arrow = pq.read_table(io.BytesIO(files[f"data/{table}.parquet"]))
            rows[table] = arrow.num_rows
            if not arrow.num_rows:
                continue
            conn.register("bundle_rows", arrow)
            fill = (" REPLACE (coalesce(reference, '') AS reference, coalesce(candidate, '') AS candidate)"
                    if table == "pairs" else "")
            conn.execute(f"INSERT INTO {table} BY NAME SELECT *{fill} FROM bundle_rows")
            conn.unregister("bundle_rows")
    return store, rows


def reproduce(source: str | Path, out: str | Path) -> Reproduction:
    """Rebuild the bundle's store in ``out`` (a new or empty folder), regenerate its tables into
    ``out/tables`` with the recorded settings, and compare them with the shipped ones."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} exists and is not an empty folder; choose a new folder")
    manifest, files = read_bundle(source)
    out.mkdir(parents=True, exist_ok=True)
    store, rows = restore_store(out / "store.duckdb", files)
    dataset = manifest["dataset"]
    made = table_files(store, dataset, PaperSettings.from_json(manifest["settings"]))
    (out / "tables").mkdir()
    for name, data in made.items():
        (out / name).write_bytes(data)
    result = Reproduction(dataset=dataset, store=store.path, rows=rows)
    for name in sorted(n for n in files if n.startswith("tables/")):
        if name not in made:
            result.missing.append(name)
        elif made[name] == files[name]:
            result.identical.append(name)
        else:
            result.different.append(name)
    return result
