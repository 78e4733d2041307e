"""A reproducibility bundle: one zip a reviewer can re-run, and :func:`reproduce`, which re-runs it.

The bundle of one dataset holds its rows of the store as Parquet (``data/``: the dataset, pairs,
annotations, judge runs, outputs, errors and metric values, preferences and clinician ratings), the
prompts the runs used with their hashes, the package versions, the settings and the commands that made
every table and figure, the tables themselves (``tables/``), the methods paragraph with its BibTeX, and
``reproduce.sh``. For a dataset that is not synthetic, report text is left out unless asked
(``with_text``): pairs keep their ids, content hashes and identical-pair flags, and judge answers, error
explanations and notes are blanked.

:func:`reproduce` checks the files against the manifest's hashes, builds a new store from ``data/``,
computes the tables again with the recorded settings and compares them byte for byte.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
import zipfile
from pathlib import Path

from core.analysis.statistic import statistic
from core.paper.compute import PaperSettings
from core.store.db import Store

FORMAT = "radjudge-bundle-1"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed member times: the same inputs give the same zip
IDENTICAL = "coalesce(p.identical, {same})"
#: table -> the query of one dataset's rows (``?`` = the dataset), in the order they are restored.
TABLES: dict[str, str] = {
    "datasets": "SELECT * FROM datasets WHERE name = ?",
    "pairs": "SELECT * REPLACE ({identical} AS identical{blank}) FROM pairs p WHERE p.dataset = ?",
    "annotations": "SELECT a.* FROM annotations a JOIN pairs p USING (pair_id) WHERE p.dataset = ?",
    "judge_runs": "SELECT * FROM judge_runs WHERE dataset = ?",
    "judge_outputs": "SELECT o.*{blank} FROM judge_outputs o JOIN judge_runs r USING (run_id) WHERE r.dataset = ?",
    "judge_errors": "SELECT e.*{blank} FROM judge_errors e JOIN judge_runs r USING (run_id) WHERE r.dataset = ?",
    "metric_values": "SELECT m.* FROM metric_values m JOIN judge_runs r USING (run_id) WHERE r.dataset = ?",
    "preferences": "SELECT * FROM preferences WHERE dataset = ?",
    "rating_queues": "SELECT * FROM rating_queues WHERE dataset = ?",
    "rating_queue_pairs": "SELECT q.* FROM rating_queue_pairs q JOIN rating_queues r USING (queue_id) "
                          "WHERE r.dataset = ?",
    "ratings": "SELECT x.*{blank} FROM ratings x JOIN pairs p USING (pair_id) WHERE p.dataset = ?",
    "adjudications": "SELECT x.*{blank} FROM adjudications x JOIN pairs p USING (pair_id) WHERE p.dataset = ?",
}
#: The columns that may hold report text (or text quoting it), blanked unless the text is asked for.
TEXT_COLUMNS: dict[str, tuple[str, ...]] = {
    "pairs": ("reference", "candidate", "meta", "age", "sex", "indication", "history"),
    "judge_outputs": ("raw_text", "parse_reason", "error"),
    "judge_errors": ("text",),
    "ratings": ("note",),
    "adjudications": ("note",),
}


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex (the manifest's check of every file)."""
    return hashlib.sha256(data).hexdigest()


def _query(table: str, with_text: bool, columns: set[str]) -> str:
    from core.reads.frames import same_text_sql

    blank = [c for c in TEXT_COLUMNS.get(table, ()) if c in columns] if not with_text else []
    if table == "pairs":
        parts = "".join(f", CAST(NULL AS VARCHAR) AS {c}" for c in blank)
        return TABLES[table].format(identical=IDENTICAL.format(same=same_text_sql("p.reference", "p.candidate")),
                                    blank=parts)
    if blank:
        return TABLES[table].format(blank=" REPLACE (" + ", ".join(f"CAST(NULL AS VARCHAR) AS {c}" for c in blank)
                                          + ")")
    return TABLES[table].format(blank="")


def dataset_rows(store: Store, dataset: str, with_text: bool) -> dict[str, bytes]:
    """Each table's rows of ``dataset`` as Parquet bytes (report text blanked unless ``with_text``)."""
    import pyarrow.parquet as pq

    out = {}
    with store.read() as conn:
        for table in TABLES:
            columns = {r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]).fetchall()}
            arrow = conn.sql(_query(table, with_text, columns), params=[dataset]).to_arrow_table()
            buf = io.BytesIO()
            pq.write_table(arrow, buf, compression="zstd")
            out[table] = buf.getvalue()
    return out


def _versions() -> dict:
    from importlib.metadata import distributions

    names = sorted({f"{d.metadata['Name']}=={d.version}" for d in distributions() if d.metadata["Name"]},
                   key=str.lower)
    return {"python": platform.python_version(), "platform": platform.platform(), "packages": names}


def _prompts(store: Store, dataset: str) -> tuple[dict, dict[str, bytes]]:
    from core.prompts import get_template, prompt_hash, prompt_templates
    from core.prompts.loader import TEMPLATE_DIR

    runs = store.query_df("SELECT DISTINCT prompt_id, prompt_hash FROM judge_runs WHERE dataset = ? AND "
                          "prompt_id IS NOT NULL ORDER BY 1, 2", [dataset])
    record, files = {}, {}
    for row in runs.itertuples(index=False):
        try:
            parts, now = prompt_templates(row.prompt_id), prompt_hash(row.prompt_id)
        except ValueError:
            record[row.prompt_id] = {"run_hash": row.prompt_hash, "note": "not a template of this RadConcord"}
            continue
        record[row.prompt_id] = {"run_hash": row.prompt_hash, "hash_now": now, "same": now == row.prompt_hash,
                                 "templates": {t: get_template(t).hash for t in parts}}
        for t in parts:
            files[f"prompts/{t}.txt"] = (TEMPLATE_DIR / f"{t}.txt").read_bytes()
    return record, files


def settings_flags(s: PaperSettings) -> list[str]:
    """The command-line flags that reproduce ``s`` (tables, methods, figures take the same ones)."""
    flags = ["--n-boot", str(s.n_boot), "--seed", str(s.seed), "--ci", s.ci, "--min-n", str(s.min_n),
             "--stat", statistic(s.stat).short]
    flags += ["--target", s.target] if s.target else []
    flags += ["--raters", s.raters] if s.raters else []
    flags += ["--drop-identical"] if s.drop_identical else []
    flags += ["--no-clusters"] if not s.clusters else []
    return flags


def _commands(dataset: str, s: PaperSettings) -> list[str]:
    import shlex

    base = ["python", "-m", "core", "--store", "STORE"]
    flags = settings_flags(s)
    table = ["--decimals", str(s.decimals)] + (["--with-ci"] if s.with_ci else []) + (["--with-n"] if s.with_n else [])
    return [shlex.join(base + ["tables", "--dataset", dataset, "--out", "tables", *flags, *table]),
            shlex.join(base + ["correlate", "--dataset", dataset, "--table", "--format", "latex", *flags, *table]),
            shlex.join(base + ["methods", "--dataset", dataset, "--format", "latex", "--bib", "references.bib",
                               *flags]),
            shlex.join(base + ["figures", "--dataset", dataset, "--out", "figures", *flags])]


def table_files(store: Store, dataset: str, s: PaperSettings, results=None) -> dict[str, bytes]:
    """``tables/NAME.{tex,md,csv}`` and ``tables/tables.tex``, as :func:`core.paper.assemble.write_tables`
    writes them (the bytes :func:`reproduce` compares), from ``results`` when the caller has computed them
    (figure-only parts in them make no table)."""
    import tempfile

    from core.paper.assemble import all_tables, write_tables
    from core.paper.compute import compute_all

    tables = all_tables(results if results is not None else compute_all(store, dataset, s))
    with tempfile.TemporaryDirectory() as tmp:
        files = write_tables(tables, Path(tmp))
        return {f"tables/{p.name}": p.read_bytes() for p in files}


def build_bundle(store: Store, dataset: str, s: PaperSettings, *, with_text: bool | None = None,
                 with_figures: bool = False, role: str | None) -> bytes:
    """The zip of ``dataset`` (see the module docstring). ``with_text`` None: text only for synthetic data.

    It holds every clinician's rating, blinded or not, and the adjudications: refused (NotAllowed) to a
    ``role`` not allowed ``read_blinded_ratings`` (:func:`core.access.require`).
    """
    from core.access import READ_BLINDED_RATINGS, require

    require(role, READ_BLINDED_RATINGS)
    from core.paper.compute import compute_all, dataset_info
    from core.paper.methods import methods_bibtex, methods_paragraph
    from core.reads.frames import judge_runs
    from core.reads.runcost import run_costs

    info = dataset_info(store, dataset)
    synthetic = bool(info.get("synthetic"))
    text = synthetic if with_text is None else with_text
    files: dict[str, bytes] = {f"data/{t}.parquet": b for t, b in dataset_rows(store, dataset, text).items()}
    prompts, prompt_files = _prompts(store, dataset)
    files.update(prompt_files)
    if with_figures:  # every figure the dataset has: the analyses of the tables and those only figures draw
        from core.paper.compute import DEFAULT_PARTS
        from core.paper.figures import FIGURE_PARTS

        results = compute_all(store, dataset, s, parts=tuple(dict.fromkeys(DEFAULT_PARTS + FIGURE_PARTS)))
    else:
        results = compute_all(store, dataset, s)
    files.update(table_files(store, dataset, s, results))  # the same analyses, computed once
    paragraph = methods_paragraph(results, judge_runs(store, dataset), run_costs(store, dataset))
    files["methods.txt"] = (paragraph.render("text") + "\n").encode("utf-8")
    files["methods.tex"] = (paragraph.render("latex") + "\n").encode("utf-8")
    files["references.bib"] = methods_bibtex(paragraph).encode("utf-8")
    if with_figures:
        import tempfile

        from core.paper.figures import all_figures, write_figures

        with tempfile.TemporaryDirectory() as tmp:
            for row in write_figures(all_figures(results), Path(tmp)):
                files[f"figures/{row['file']}"] = (Path(tmp) / row["file"]).read_bytes()
    commands = _commands(dataset, s)
    files["reproduce.sh"] = ("#!/bin/sh\n# Rebuild a store from this bundle and regenerate its tables (needs RadConcord:"
                             " python -m core).\n# The commands that made every table and figure, on the original "
                             "store (STORE):\n" + "".join(f"#   {c}\n" for c in commands)
                             + 'set -e\ncd "$(dirname "$0")"\npython -m core reproduce . --out reproduced\n'
                             ).encode("utf-8")
    manifest = {"format": FORMAT, "dataset": dataset, "synthetic": synthetic, "with_text": text,
                "dataset_info": info, "settings": s.to_json(), "resolved_target": results.context.target,
                "commands": commands, "prompts": prompts, "versions": _versions(),
                "files": {name: {"bytes": len(data), "sha256": sha256_hex(data)} for name, data in sorted(files.items())}}
    files["manifest.json"] = json.dumps(manifest, indent=2, sort_keys=True, default=str).encode("utf-8")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            member = zipfile.ZipInfo(f"{_folder(dataset)}/{name}", date_time=ZIP_TIME)
            member.compress_type = zipfile.ZIP_DEFLATED
            member.external_attr = (0o755 if name.endswith(".sh") else 0o644) << 16
            zf.writestr(member, files[name])
    return buf.getvalue()


def _folder(dataset: str) -> str:
    from core.paper.tables import slug

    return f"radconcord-bundle-{slug(dataset)}"
