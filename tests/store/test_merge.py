"""Stores merged from several machines (``judge --shard K/N`` + ``merge --from``): three shards of the demo,
judged by the rules judge and by a model on a loopback server, merged into a fourth store (and from
export-store folders into a fifth), give the same correlate output, value for value, as one run over every
pair; a second merge adds nothing; conflicts are refused one line each with the target unchanged."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from core.access import RESEARCHER
from core.cli.main import main
from core.jobs.shard import shard_of
from core.store.db import Store, latest_schema_version
from core.store.merge import TABLES, MergeConflict, MergeRefused, merge_store
from tests.cli_inprocess import run_cli
from tests.conftest import copy_store
from tests.fake_openai import FakeOpenAI
from tests.old_schema import older_copy

ROOT = Path(__file__).resolve().parents[2]
MODEL = "openai/merge-judge"
JUDGES = ("rules", MODEL)


def dump_sha(path: Path) -> str:
    """SHA-256 of every table's rows (sorted), store_meta's counters included: equal means nothing changed."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        h = hashlib.sha256()
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                                    "current_database() ORDER BY 1").fetchall():
            h.update(table.encode())
            h.update(repr(con.execute(f'SELECT * FROM "{table}" ORDER BY ALL').fetchall()).encode())
        return h.hexdigest()
    finally:
        con.close()


def file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rows(path: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def cli(*args):
    return run_cli(*map(str, args))


def judge_args(path: Path, judge: str, url: str, shard: str | None = None) -> list[str]:
    args = ["--store", str(path), "judge", "--dataset", "demo", "--judge", judge, "--json"]
    if judge != "rules":
        args += ["--api-base", url, "--concurrency", "16"]
    return args + (["--shard", shard] if shard else [])


@pytest.fixture(scope="module")
def study(demo_store, tmp_path_factory):
    """A whole run (``full``) and three shard stores (``parts``), each a copy of the same demo store, judged by
    the rules judge and by a model on one loopback server (kept running for the module)."""
    base = tmp_path_factory.mktemp("merge")
    with FakeOpenAI() as server:
        full = copy_store(demo_store, base / "full.duckdb")
        parts = [copy_store(demo_store, base / f"part{k}.duckdb") for k in (1, 2, 3)]
        for judge in JUDGES:
            assert main(judge_args(full.path, judge, server.url)) == 0
            for k, part in enumerate(parts, start=1):
                assert main(judge_args(part.path, judge, server.url, f"{k}/3")) == 0
        yield {"base": base, "full": full.path, "parts": [p.path for p in parts], "server": server}


def correlate(path: Path, capsys, *extra) -> str:
    capsys.readouterr()
    assert main(["--store", str(path), "correlate", "--dataset", "demo", "--json", "--n-boot", "200", *extra]) == 0
    return capsys.readouterr().out


RESULT_SQL = ("SELECT o.run_id, o.pair_id, o.cache_key, o.raw_text, o.parse_status, m.metric, m.value "
              "FROM judge_outputs o LEFT JOIN metric_values m USING (run_id, pair_id) ORDER BY ALL")
RUN_SQL = "SELECT run_id, status, n_requested, n_ok, n_failed, cost_usd, params FROM judge_runs ORDER BY run_id"


def test_shards_are_the_whole_run_in_parts(study):
    """Each shard's run has the whole run's id; the shards' pairs are disjoint and together all pairs."""
    full_runs = rows(study["full"], "SELECT run_id FROM judge_runs ORDER BY 1")
    assert len(full_runs) == 2
    seen: list[str] = []
    for k, part in enumerate(study["parts"], start=1):
        assert rows(part, "SELECT run_id FROM judge_runs ORDER BY 1") == full_runs
        pairs = [r[0] for r in rows(part, f"SELECT pair_id FROM judge_outputs WHERE run_id = '{full_runs[0][0]}'")]
        assert pairs and all(shard_of(p, 3) == k for p in pairs)
        assert sorted(pairs) == sorted(r[0] for r in rows(
            part, f"SELECT pair_id FROM judge_outputs WHERE run_id = '{full_runs[1][0]}'"))
        spec = json.loads(rows(part, "SELECT spec FROM jobs ORDER BY created_at LIMIT 1")[0][0])
        assert spec["shard"] == f"{k}/3" and spec["selection"].startswith(f"shard {k}/3: {len(pairs)} of ")
        assert all("shard" not in json.loads(p) for (p,) in rows(part, "SELECT params FROM judge_runs"))
        seen += pairs
    everything = [r[0] for r in rows(study["full"], "SELECT pair_id FROM pairs WHERE dataset = 'demo'")]
    assert sorted(seen) == sorted(everything) and len(set(seen)) == len(seen)


def test_merged_shards_correlate_as_one_run(study, tmp_path, capsys):
    merged = tmp_path / "merged.duckdb"  # a fourth store, made by the first merge
    for part in study["parts"]:
        assert main(["--store", str(merged), "merge", "--from", str(part), "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["merged"] is True and report["added"]["judge_outputs"] > 0
    assert report["runs_recounted"] == sorted(r[0] for r in rows(study["full"], "SELECT run_id FROM judge_runs"))
    for extra in ((), ("--all-metrics",)):
        assert correlate(merged, capsys, *extra) == correlate(study["full"], capsys, *extra)
    assert rows(merged, RESULT_SQL) == rows(study["full"], RESULT_SQL)
    assert rows(merged, RUN_SQL) == rows(study["full"], RUN_SQL)
    assert rows(merged, "SELECT count(*) FROM jobs") == [(0,)]  # jobs stay with the machine that ran them
    assert main(["--store", str(merged), "check-store"]) == 0
    capsys.readouterr()

    before = dump_sha(merged)  # a second merge adds nothing and writes nothing
    for part in study["parts"]:
        assert main(["--store", str(merged), "merge", "--from", str(part), "--json"]) == 0
        again = json.loads(capsys.readouterr().out)
        assert again["merged"] is False and again["nothing_new"] is True and not any(again["added"].values())
    assert dump_sha(merged) == before

    capsys.readouterr()  # a direct run of the model on the merged store sends nothing
    server = study["server"]
    sent_before = server.requests
    assert main(judge_args(merged, MODEL, server.url)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sent"] == 0 and out["requested"] == 120 and server.requests == sent_before


def test_merged_from_export_folders_correlate_as_one_run(study, tmp_path, capsys):
    merged = tmp_path / "from-exports.duckdb"
    for k, part in enumerate(study["parts"], start=1):
        out = tmp_path / f"export{k}"
        assert main(["--store", str(part), "export-store", "--out", str(out), "--json"]) == 0
        assert main(["--store", str(merged), "merge", "--from", str(out), "--json"]) == 0
    reports = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"merged"' in line]
    assert [r["kind"] for r in reports] == ["export"] * 3 and not any(r["migrated"] for r in reports)
    assert correlate(merged, capsys) == correlate(study["full"], capsys)
    assert rows(merged, RESULT_SQL) == rows(study["full"], RESULT_SQL)
    before = dump_sha(merged)
    assert main(["--store", str(merged), "merge", "--from", str(tmp_path / "export2"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nothing_new"] is True and dump_sha(merged) == before


def _merged(study, dest: Path) -> Store:
    store = Store(dest)
    for part in study["parts"]:
        merge_store(store, part)
    return store


def test_conflicts_are_refused_one_line_each_and_nothing_changes(study, tmp_path):
    target = _merged(study, tmp_path / "target.duckdb").path
    bad = tmp_path / "bad.duckdb"
    shutil.copyfile(study["parts"][0], bad)
    llm_run = rows(bad, "SELECT run_id FROM judge_runs WHERE judge_kind = 'llm'")[0][0]
    con = duckdb.connect(str(bad))
    pair, ext = con.execute("SELECT pair_id, ext_id FROM pairs WHERE dataset = 'demo' ORDER BY pair_id LIMIT 1"
                            ).fetchone()
    answered = con.execute("SELECT pair_id FROM judge_outputs WHERE run_id = ? ORDER BY pair_id LIMIT 1",
                           [llm_run]).fetchone()[0]
    con.execute("UPDATE pairs SET candidate = candidate || ' Also a fracture.' WHERE pair_id = ?", [pair])
    con.execute("UPDATE judge_runs SET params = '{\"temperature\": 0.7}' WHERE run_id = ?", [llm_run])
    con.execute("UPDATE judge_outputs SET raw_text = raw_text || ' (edited)' WHERE run_id = ? AND pair_id = ?",
                [llm_run, answered])
    ann = con.execute("SELECT annotator, value FROM annotations WHERE pair_id = ? AND field = 'score'", [pair]
                      ).fetchone()
    con.execute("UPDATE annotations SET value = value + 1 WHERE pair_id = ? AND field = 'score' AND annotator = ?",
                [pair, ann[0]])
    con.close()
    target_before, bad_before = dump_sha(target), file_sha(bad)

    done = cli("--store", target, "merge", "--from", bad)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == f"error: 4 conflict(s) between {bad} and this store; nothing was merged"
    assert sorted(lines[:-1]) == sorted([
        f"conflict: pair {pair} (dataset demo, id {ext}): differs from this store (candidate)",
        f"conflict: run {llm_run} ({MODEL} on demo): differs from this store (params)",
        f"conflict: answer of run {llm_run} for pair {answered}: its text differs from this store's",
        f"conflict: annotation of pair {pair} by {ann[0]} (score): differs from this store "
        f"(value {ann[1]!r} here, {ann[1] + 1!r} in the source)",
    ])
    assert dump_sha(target) == target_before and file_sha(bad) == bad_before

    shutil.copyfile(study["parts"][1], bad)  # a different metric value under the same answer is one too
    con = duckdb.connect(str(bad))
    rid, pid = con.execute("SELECT run_id, pair_id FROM metric_values WHERE metric = 'green' ORDER BY ALL LIMIT 1"
                           ).fetchone()
    old = con.execute("SELECT value FROM metric_values WHERE run_id = ? AND pair_id = ? AND metric = 'green'",
                      [rid, pid]).fetchone()[0]
    con.execute("UPDATE metric_values SET value = 0.123 WHERE run_id = ? AND pair_id = ? AND metric = 'green'",
                [rid, pid])
    con.close()
    done = cli("--store", target, "merge", "--from", bad, "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["conflicts"] == [
        f"metric green of run {rid} for pair {pid}: {old!r} here, 0.123 in the source"]
    assert dump_sha(target) == target_before


def test_patient_context_fills_what_is_empty_and_two_values_conflict(study, tmp_path):
    """A store without patient context (e.g. from before migration 009) and one with it merge both ways: the
    empty fields are filled, a stored value is never replaced, two different values are one conflict line."""
    target = _merged(study, tmp_path / "target.duckdb").path
    pair, ext, age = rows(target, "SELECT pair_id, ext_id, age FROM pairs WHERE age IS NOT NULL "
                                  "ORDER BY pair_id LIMIT 1")[0]
    bare = tmp_path / "bare.duckdb"
    shutil.copyfile(study["parts"][0], bare)
    con = duckdb.connect(str(bare))
    con.execute("UPDATE pairs SET age = NULL, sex = NULL, indication = NULL, history = NULL")
    con.close()
    before = dump_sha(target)
    assert merge_store(Store(target), bare).nothing_new  # nothing to add: empty fields there take nothing here
    assert dump_sha(target) == before

    con = duckdb.connect(str(target))  # now the other way: this store lost the context of pairs
    n_with = con.execute("SELECT count(*) FROM pairs WHERE age IS NOT NULL").fetchone()[0]
    con.execute("UPDATE pairs SET age = NULL WHERE pair_id = ?", [pair])
    con.close()
    report = merge_store(Store(target), study["parts"][0])
    assert report.context_filled == 1 and not report.nothing_new
    assert rows(target, f"SELECT age FROM pairs WHERE pair_id = '{pair}'") == [(age,)]
    assert rows(target, "SELECT count(*) FROM pairs WHERE age IS NOT NULL")[0][0] == n_with

    other = tmp_path / "other.duckdb"
    shutil.copyfile(study["parts"][0], other)
    con = duckdb.connect(str(other))
    con.execute("UPDATE pairs SET age = '7' WHERE pair_id = ?", [pair])
    con.close()
    before = dump_sha(target)
    with pytest.raises(MergeConflict) as exc:
        merge_store(Store(target), other)
    assert exc.value.conflicts == [f"pair {pair} (dataset demo, id {ext}): differs from this store (age)"]
    assert dump_sha(target) == before


def test_an_answer_replaces_a_recorded_failure_never_the_reverse(study, tmp_path):
    full = study["full"]
    llm_run = rows(full, "SELECT run_id FROM judge_runs WHERE judge_kind = 'llm'")[0][0]
    failed = tmp_path / "failed.duckdb"
    shutil.copyfile(full, failed)
    con = duckdb.connect(str(failed))
    pair = con.execute("SELECT pair_id FROM judge_outputs WHERE run_id = ? ORDER BY pair_id LIMIT 1", [llm_run]
                       ).fetchone()[0]
    con.execute("UPDATE judge_outputs SET error = 'HTTP 500 from the server', raw_text = NULL, parse_status = NULL "
                "WHERE run_id = ? AND pair_id = ?", [llm_run, pair])
    for table in ("metric_values", "judge_errors"):
        con.execute(f"DELETE FROM {table} WHERE run_id = ? AND pair_id = ?", [llm_run, pair])
    con.execute("UPDATE judge_runs SET n_ok = n_ok - 1, n_failed = 1 WHERE run_id = ?", [llm_run])
    con.close()

    report = merge_store(Store(failed), study["parts"][shard_of(pair, 3) - 1])
    assert report.failures_replaced == 1 and report.added["judge_outputs"] == 0
    assert report.runs_recounted == [llm_run]
    assert rows(failed, RESULT_SQL) == rows(full, RESULT_SQL) and rows(failed, RUN_SQL) == rows(full, RUN_SQL)

    before = dump_sha(full)  # the failure does not replace the answer: nothing new
    shutil.copyfile(failed, tmp_path / "again.duckdb")
    con = duckdb.connect(str(tmp_path / "again.duckdb"))
    con.execute("UPDATE judge_outputs SET error = 'HTTP 500', raw_text = NULL WHERE run_id = ? AND pair_id = ?",
                [llm_run, pair])
    con.execute("DELETE FROM metric_values WHERE run_id = ? AND pair_id = ?", [llm_run, pair])
    con.close()
    copy = tmp_path / "full-copy.duckdb"
    shutil.copyfile(full, copy)
    assert merge_store(Store(copy), tmp_path / "again.duckdb").nothing_new
    assert dump_sha(copy) == before


def test_an_older_source_is_migrated_in_a_copy_and_a_newer_one_refused(study, tmp_path):
    old = older_copy(study["parts"][0], tmp_path / "old.duckdb", 5)  # before preferences, jobs and context
    old_sha = file_sha(old)
    target = Store(tmp_path / "t.duckdb")
    report = merge_store(target, old)
    assert report.migrated and report.schema_version == 5 and report.added["judge_outputs"] > 0
    assert file_sha(old) == old_sha and not Path(f"{old}.backups").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".merge-source-")]  # the copy is gone
    direct = Store(tmp_path / "direct.duckdb")
    merge_store(direct, study["parts"][0])
    sql = "SELECT * FROM metric_values ORDER BY ALL"
    assert rows(target.path, sql) == rows(direct.path, sql)  # pair numbers too: the same order
    assert main(["--store", str(target.path), "check-store"]) == 0

    newer = tmp_path / "newer.duckdb"
    shutil.copyfile(study["parts"][1], newer)
    con = duckdb.connect(str(newer))
    con.execute("INSERT INTO schema_version (version, name) VALUES (99, '099_future.sql')")
    con.close()
    before = dump_sha(target.path)
    done = cli("--store", target.path, "merge", "--from", newer)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: the source {newer} has schema v99, newer than this RadConcord (v{latest_schema_version()}); upgrade "
        "RadConcord here first; "
        "nothing was merged"]
    assert dump_sha(target.path) == before


def test_unusable_sources_are_refused_with_their_reason(study, tmp_path):
    target = tmp_path / "t.duckdb"
    export = tmp_path / "export"
    assert main(["--store", str(study["parts"][0]), "export-store", "--out", str(export)]) == 0
    with (export / "pairs.parquet").open("r+b") as f:  # one byte of the pairs' file changed
        f.seek(200)
        byte = f.read(1)
        f.seek(200)
        f.write(bytes([byte[0] ^ 0xFF]))
    (tmp_path / "empty").mkdir()
    foreign = tmp_path / "foreign.duckdb"
    duckdb.connect(str(foreign)).execute("CREATE TABLE x (a INT)").close()
    cases = {
        export: "pairs.parquet: its SHA-256 differs from the manifest's",
        tmp_path / "empty": "without a readable manifest.json",
        foreign: "is not a RadConcord store (another DuckDB database)",
        tmp_path / "missing.duckdb": "does not exist",
    }
    for source, reason in cases.items():
        done = cli("--store", target, "merge", "--from", source)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and reason in done.stderr
        assert not target.exists()  # the store the command would have made is not left behind
    Store(target)
    with pytest.raises(MergeRefused, match="is this store itself"):
        merge_store(Store(target), target)


def test_a_failure_midway_rolls_the_whole_merge_back(study, tmp_path):
    """The source's last table (preferences) holds a value this store's column cannot take: everything
    inserted before it (datasets, pairs, runs, outputs) is rolled back with it."""
    weird = tmp_path / "weird.duckdb"
    shutil.copyfile(study["parts"][0], weird)
    con = duckdb.connect(str(weird))
    a, b = [r[0] for r in con.execute("SELECT pair_id FROM pairs ORDER BY pair_id LIMIT 2").fetchall()]
    con.execute("ALTER TABLE preferences ALTER confidence TYPE VARCHAR")
    con.execute("INSERT INTO preferences (comparison_id, dataset, pair_id_a, pair_id_b, preferred, confidence) "
                "VALUES ('c1', 'demo', ?, ?, 'a', 'very')", [a, b])
    con.close()
    target = Store(tmp_path / "t.duckdb")
    before = dump_sha(target.path)
    with pytest.raises(MergeRefused, match="failed and was rolled back, nothing was merged"):
        merge_store(target, weird)
    assert dump_sha(target.path) == before


def test_the_source_is_detached_after_each_merge_while_the_store_stays_open(study, tmp_path):
    """An attached database belongs to DuckDB's instance of the file, which outlives the merge's connection while
    another connection of this process holds the store: the merge detaches its source itself, on success and
    on refusal, so the next merge can attach one."""
    target = Store(tmp_path / "t.duckdb")
    held = duckdb.connect(str(target.path))  # same configuration as the store's writes: the same instance
    try:
        attached = "SELECT database_name FROM duckdb_databases() ORDER BY 1"
        before = held.execute(attached).fetchall()
        assert merge_store(target, study["parts"][0]).added["judge_outputs"] > 0
        assert held.execute(attached).fetchall() == before
        bad = tmp_path / "bad.duckdb"
        shutil.copyfile(study["parts"][1], bad)
        con = duckdb.connect(str(bad))
        con.execute("UPDATE pairs SET candidate = candidate || ' Also a fracture.'")  # the texts disagree
        con.close()
        with pytest.raises(MergeConflict):
            merge_store(target, bad)
        assert held.execute(attached).fetchall() == before
        assert merge_store(target, study["parts"][1]).added["judge_outputs"] > 0  # attaches its source again
        assert held.execute(attached).fetchall() == before
    finally:
        held.close()


def test_every_column_of_a_merged_table_is_compared_or_kept_on_purpose(tmp_store):
    """A migration that adds a column to a merged table must say whether merges compare it."""
    for t in TABLES:
        cols = {r[0] for r in rows(tmp_store.path, "SELECT column_name FROM duckdb_columns() WHERE table_name = "
                                                   f"'{t.name}'")}
        assert cols == set(t.keys) | set(t.compare) | set(t.kept) | set(t.filled), t.name
        assert set(t.shown) <= set(t.compare)


def test_ratings_queues_adjudications_and_preferences_come_over(demo_store, tmp_path):
    """Clinician ratings (with their mirrored annotations), a queue, an adjudication and preferences from two
    stores; a rater who went further in one store brings the mirror of that latest rating; the same revision
    with another score is a conflict."""
    from core.ingest.comparisons import derive_preferences
    from core.reads import ratings
    from core.store.merge import MIRROR_PREFIX, MIRROR_SOURCE

    assert (MIRROR_PREFIX, MIRROR_SOURCE) == (ratings.RATER_PREFIX, ratings.SOURCE)
    a = copy_store(demo_store, tmp_path / "a.duckdb")
    queue = ratings.create_queue(a, "demo", "pilot", "sample", n=6, seed=1, role="researcher")
    pids = ratings.queue_pair_ids(a, queue)
    ratings.save_rating(a, pids[0], "Dr A", score=4)
    ratings.adjudicate(a, pids[0], "score", 3.5, "Dr C", role=RESEARCHER)
    derive_preferences(a, "demo")
    b = copy_store(a, tmp_path / "b.duckdb")  # a later copy: Dr A rates the pair again, Dr B another one
    ratings.save_rating(b, pids[0], "Dr A", score=2, counts={"sig_a": 1})
    ratings.save_rating(b, pids[1], "Dr B", score=1)

    target = Store(tmp_path / "t.duckdb")
    first = merge_store(target, a.path)
    assert (first.added["rating_queues"], first.added["rating_queue_pairs"], first.added["ratings"],
            first.added["adjudications"]) == (1, 6, 1, 1) and first.added["preferences"] > 0
    second = merge_store(target, b.path)
    assert second.added["ratings"] == 2 and second.added["pairs"] == 0 and second.added["preferences"] == 0
    for table in ("rating_queues", "rating_queue_pairs", "ratings", "adjudications", "preferences", "annotations"):
        sql = f"SELECT * FROM {table} ORDER BY ALL"
        assert rows(target.path, sql) == rows(b.path, sql), table  # b holds everything a holds, and more
    assert ratings.latest_ratings(target, "demo", role=RESEARCHER).equals(ratings.latest_ratings(b, "demo", role=RESEARCHER))
    assert merge_store(target, a.path).nothing_new  # a's older mirror does not replace b's newer one

    c = copy_store(demo_store, tmp_path / "c.duckdb")  # Dr A's first rating, given elsewhere with another score
    ratings.save_rating(c, pids[0], "Dr A", score=5)
    before = dump_sha(target.path)
    with pytest.raises(MergeConflict) as refused:
        merge_store(target, c.path)
    assert refused.value.conflicts == [
        f"rating 1 of pair {pids[0]} by Dr A: differs from this store (score 4.0 here, 5.0 in the source)"]
    assert dump_sha(target.path) == before


def test_a_conflict_in_every_merged_table_is_one_line_naming_its_row(demo_store, tmp_path):
    from core.ingest.comparisons import derive_preferences
    from core.reads import ratings

    a = copy_store(demo_store, tmp_path / "a.duckdb")
    assert main(["--store", str(a.path), "judge", "--dataset", "demo", "--judge", "length", "--json"]) == 0
    queue = ratings.create_queue(a, "demo", "pilot", "sample", n=4, seed=2, role="researcher")
    pid = ratings.queue_pair_ids(a, queue)[0]
    ratings.save_rating(a, pid, "Dr A", score=4)
    ratings.adjudicate(a, pid, "score", 3.5, "Dr C", role=RESEARCHER)
    derive_preferences(a, "demo")
    target = Store(tmp_path / "t.duckdb")
    merge_store(target, a.path)
    bad = tmp_path / "bad.duckdb"
    shutil.copyfile(a.path, bad)
    con = duckdb.connect(str(bad))
    for sql in ("UPDATE datasets SET kind = 'score' WHERE name = 'demo'",
                "UPDATE pairs SET candidate = candidate || ' More.' WHERE pair_id = ?",
                "UPDATE annotations SET value = value + 1 WHERE pair_id = ? AND annotator = 'expert_1' "
                "AND field = 'score'",
                "UPDATE rating_queue_pairs SET pair_id = 'elsewhere' WHERE position = 3",
                "UPDATE ratings SET score = 1 WHERE pair_id = ?",
                "UPDATE adjudications SET value = 2 WHERE pair_id = ?"):
        con.execute(sql, [pid] if "?" in sql else [])
    con.execute("UPDATE judge_runs SET params = '{}'")
    con.execute("UPDATE rating_queues SET method = 'filters'")
    comparison = con.execute("SELECT comparison_id FROM preferences ORDER BY 1 LIMIT 1").fetchone()[0]
    con.execute("UPDATE preferences SET confidence = 9.5 WHERE comparison_id = ?", [comparison])
    con.close()
    before = dump_sha(target.path)
    with pytest.raises(MergeConflict) as refused:
        merge_store(target, bad)
    lines = refused.value.conflicts
    assert refused.value.total == len(lines) == 9, lines
    expected = ["dataset demo: differs from this store (kind error_counts here, score in the source)",
                f"pair {pid} (dataset demo, ",
                f"annotation of pair {pid} by expert_1 (score): differs from this store (value ",
                "run length-",
                f"rating queue {queue} (pilot): differs from this store (method sample here, filters in the source)",
                f"position 3 of rating queue {queue}: differs from this store (pair_id ",
                f"rating 1 of pair {pid} by Dr A: differs from this store (score 4.0 here, 1.0 in the source)",
                f"adjudication 1 of score of pair {pid}: differs from this store (value 3.5 here, 2.0 in the source)",
                f"preference {comparison} of dataset demo: differs from this store (confidence "]
    for start in expected:
        assert sum(line.startswith(start) for line in lines) == 1, (start, lines)
    assert dump_sha(target.path) == before
