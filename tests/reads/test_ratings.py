"""Clinician ratings (core/reads/ratings.py, migration 003): history, annotations in sync, queues, agreement,
adjudication, the CLI, and concurrent raters in separate processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from core.access import RESEARCHER
from core.judges import run_judge
from core.reads import ratings
from core.reads.frames import correlation_frame
from core.store.datasets import delete_dataset, restore_dataset
from core.store.db import Store
from core.store.integrity import check_store
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]


def rater_annotations(store: Store, pair_id: str, rater: str) -> pd.DataFrame:
    return store.query_df("SELECT field, category, significant, value, scale_max, source FROM annotations "
                          "WHERE pair_id = ? AND annotator = ? ORDER BY field, category, significant",
                          [pair_id, f"rater:{rater}"])


@pytest.fixture
def queue(demo_store_copy: Store) -> tuple[Store, str, list[str]]:
    queue_id = ratings.create_queue(demo_store_copy, "demo", "pilot", "sample", n=8, seed=11, role="researcher")
    return demo_store_copy, queue_id, ratings.queue_pair_ids(demo_store_copy, queue_id)


def test_a_save_appends_a_revision_and_mirrors_the_latest_into_annotations(queue):
    store, queue_id, pids = queue
    pid = pids[0]
    assert ratings.save_rating(store, pid, "Dr A", score=4, counts={"sig_a": 2, "insig_c": 1},
                               queue_id=queue_id) == 1
    ann = rater_annotations(store, pid, "Dr A")
    score = ann[ann["field"] == "score"]
    assert score["value"].tolist() == [4.0] and score["scale_max"].tolist() == [5.0]
    counts = ann[ann["field"] == "error_count"]
    assert len(counts) == 12 and set(ann["source"]) == {"radjudge-annotate"}
    got = {(r.category, bool(r.significant)): r.value for r in counts.itertuples()}
    assert got[("a", True)] == 2 and got[("c", False)] == 1 and sum(got.values()) == 3

    # A revision is appended, never written over; the annotations follow the latest one.
    assert ratings.save_rating(store, pid, "Dr A", score=2, note="missed the effusion") == 2
    hist = ratings.history(store, pid, "Dr A", role=RESEARCHER)
    assert hist["revision"].tolist() == [2, 1] and hist["score"].tolist() == [2.0, 4.0]
    assert hist["content_hash"].nunique() == 1
    assert hist["content_hash"].iloc[0] == store.query_one("SELECT content_hash FROM pairs WHERE pair_id = ?", [pid])
    ann = rater_annotations(store, pid, "Dr A")
    assert ann["field"].tolist() == ["score"] and ann["value"].tolist() == [2.0]

    # A skip after a rating keeps the rating (a skip is "come back later", not a retraction).
    assert ratings.save_rating(store, pid, "Dr A", skipped=True) == 3
    assert rater_annotations(store, pid, "Dr A")["value"].tolist() == [2.0]
    latest = ratings.latest_ratings(store, "demo", queue_id, role=RESEARCHER)
    assert latest["revision"].tolist() == [2]


@pytest.mark.parametrize("kwargs, message", [
    ({"score": 7}, "outside 0-5"),
    ({"score": -1}, "outside 0-5"),
    ({"counts": {"sig_a": -1}}, "whole number"),
    ({"counts": {"sig_a": 1.5}}, "whole number"),
    ({"counts": {"sig_z": 1}}, "unknown"),
    ({}, "give an overall score or error counts"),
])
def test_bad_ratings_are_refused_and_nothing_is_written(queue, kwargs, message):
    store, _, pids = queue
    before = store.data_version()
    with pytest.raises(ValueError, match=message):
        ratings.save_rating(store, pids[0], "Dr A", **kwargs)
    with pytest.raises(ValueError, match="rater name"):
        ratings.save_rating(store, pids[0], "  ", score=3)
    with pytest.raises(ValueError, match="not found"):
        ratings.save_rating(store, "no-such-pair", "Dr A", score=3)
    assert store.query_one("SELECT count(*) FROM ratings") == 0
    assert store.query_one("SELECT count(*) FROM annotations WHERE annotator LIKE 'rater:%'") == 0
    assert store.data_version() == before


def test_queues_filters_seeded_sample_and_order(demo_store_copy: Store):
    store = demo_store_copy
    ct = ratings.create_queue(store, "demo", "CT only", "filters", filters={"modality": ["CT"]}, role="researcher")
    ids = ratings.queue_pair_ids(store, ct)
    expected = store.query_df("SELECT pair_id FROM pairs WHERE dataset = 'demo' AND modality = 'CT' "
                              "ORDER BY ext_id, pair_id")["pair_id"].tolist()
    assert ids == expected and len(ids) > 0
    a = ratings.create_queue(store, "demo", "s1", "sample", n=10, seed=5, role="researcher")
    b = ratings.create_queue(store, "demo", "s2", "sample", n=10, seed=5, role="researcher")
    c = ratings.create_queue(store, "demo", "s3", "sample", n=10, seed=6, role="researcher")
    assert ratings.queue_pair_ids(store, a) == ratings.queue_pair_ids(store, b)  # the seed reproduces it
    assert ratings.queue_pair_ids(store, a) != ratings.queue_pair_ids(store, c)
    assert ratings.get_queue(store, a)["params"]["seed"] == 5
    assert set(ratings.list_queues(store, "demo")["n_pairs"]) == {len(expected), 10}
    with pytest.raises(ValueError, match="no pairs"):
        ratings.create_queue(store, "demo", "none", "filters", filters={"modality": ["PET"]}, role="researcher")
    with pytest.raises(ValueError, match="not found"):
        ratings.create_queue(store, "nope", "x", "filters", role="researcher")
    with pytest.raises(ValueError, match="at least two judge runs"):
        ratings.create_queue(store, "demo", "d", "disagree", n=5, role="researcher")


def test_judges_disagree_most_ranks_pairs_by_spread_of_rank_normalised_scores(demo_store_copy: Store):
    store = demo_store_copy
    run_judge(store, dataset="demo", judge="rules")
    run_judge(store, dataset="demo", judge="lexical")
    spread = ratings.judge_disagreement(store, "demo")
    assert spread["spread"].is_monotonic_decreasing and spread["spread"].between(0, 1).all()
    # Recompute the definition by hand for the top pair: each run's headline metric, oriented, ranked.
    values = store.query_df("SELECT m.run_id, m.pair_id, m.metric, m.value FROM metric_values m")
    norms = []
    for _, run in values.groupby("run_id"):
        metric = next(m for m in ratings.HEADLINE_METRICS if m in set(run["metric"]))
        v = run[run["metric"] == metric].set_index("pair_id")["value"]
        sign = -1 if metric in ("ec_sig", "ec_total") else 1
        norms.append(((v * sign).rank() - 1) / (len(v) - 1))
    both = pd.concat(norms, axis=1).dropna()
    by_hand = (both.max(axis=1) - both.min(axis=1)).sort_values(ascending=False)
    assert spread["spread"].iloc[0] == pytest.approx(by_hand.iloc[0])
    assert by_hand[spread["pair_id"].iloc[0]] == pytest.approx(by_hand.iloc[0])
    queue_id = ratings.create_queue(store, "demo", "hard ones", "disagree", n=5, role="researcher")
    assert ratings.queue_pair_ids(store, queue_id) == spread["pair_id"].head(5).tolist()


def test_next_pair_progress_and_skips(queue):
    store, queue_id, pids = queue
    assert ratings.next_pair(store, queue_id, "Dr A") == pids[0]
    ratings.save_rating(store, pids[0], "Dr A", score=3, queue_id=queue_id)
    ratings.save_rating(store, pids[1], "Dr A", skipped=True, queue_id=queue_id)
    assert ratings.next_pair(store, queue_id, "Dr A") == pids[2]
    for pid in pids[2:]:
        ratings.save_rating(store, pid, "Dr A", score=1, queue_id=queue_id)
    assert ratings.next_pair(store, queue_id, "Dr A") == pids[1]  # back to the skipped one
    ratings.save_rating(store, pids[1], "Dr A", score=5, queue_id=queue_id)
    assert ratings.next_pair(store, queue_id, "Dr A") is None
    ratings.save_rating(store, pids[0], "Dr B", score=3)
    prog = ratings.progress(store, queue_id).set_index("rater")
    assert prog.loc["Dr A", ["n", "rated", "skipped", "todo"]].tolist() == [8, 8, 0, 0]
    assert prog.loc["Dr B", ["rated", "todo"]].tolist() == [1, 7]


def test_agreement_matches_scipy_and_krippendorff_and_feeds_the_correlations(queue):
    store, queue_id, pids = queue
    rng = np.random.default_rng(0)
    a_scores = rng.integers(0, 6, len(pids))
    b_scores = np.clip(a_scores + rng.integers(-1, 2, len(pids)), 0, 5)
    a_sig = rng.integers(0, 4, len(pids))
    for i, pid in enumerate(pids):
        ratings.save_rating(store, pid, "Dr A", score=int(a_scores[i]), counts={"sig_a": int(a_sig[i])})
        ratings.save_rating(store, pid, "Dr B", score=int(b_scores[i]), counts={"sig_a": int(a_sig[i]), "sig_b": i % 2})
    summary, pairwise = ratings.agreement(store, "demo", queue_id, role=RESEARCHER)
    row = summary.set_index("field").loc["score"]
    assert row["n_units"] == len(pids) and row["n_raters"] == 2 and row["method"] == "ordinal"
    expected = krippendorff.alpha(reliability_data=np.vstack([a_scores, b_scores]).astype(float),
                                  level_of_measurement="ordinal")
    assert row["alpha"] == pytest.approx(expected)
    tau = pairwise.set_index("field").loc["score", "tau"]
    assert tau == pytest.approx(kendalltau(a_scores, b_scores).statistic)
    assert summary.set_index("field").loc["sig_a", "alpha"] == pytest.approx(1.0)  # identical counts
    assert summary.set_index("field").loc["sig_errors", "alpha"] < 1.0  # sig_b differs on odd pairs

    # Disagreements: score differs by >= 2 points, counts by >= 1; adjudicated values are attached.
    dis = ratings.disagreements(store, "demo", queue_id, role=RESEARCHER)
    assert set(dis["field"]) >= {"sig_b", "sig_errors"} and "sig_a" not in set(dis["field"])
    score_rows = dis[dis["field"] == "score"]
    assert (score_rows["spread"] >= 2).all()
    target = dis.iloc[0]
    ratings.adjudicate(store, target["pair_id"], target["field"], 1, "Dr C", note="consensus", role=RESEARCHER)
    ratings.adjudicate(store, target["pair_id"], target["field"], 0, "Dr C", role=RESEARCHER)
    adj = ratings.adjudicated_values(store, "demo", role=RESEARCHER)
    assert adj[["field", "value", "revision"]].values.tolist() == [[target["field"], 0.0, 2]]
    again = ratings.disagreements(store, "demo", queue_id, role=RESEARCHER)
    assert again.iloc[0]["adjudicated"] == 0.0
    with pytest.raises(ValueError, match="whole number"):
        ratings.adjudicate(store, target["pair_id"], "sig_a", 1.5, "Dr C", role=RESEARCHER)

    # The ratings are annotations: the clinicians' mean score is the target the judges are compared with.
    run_judge(store, dataset="demo", judge="rules")
    names = ratings.expert_annotators(store, "demo", role=RESEARCHER)
    assert names["clinicians"] == ["rater:Dr A", "rater:Dr B"] and "expert_1" in names["imported"]
    frame = correlation_frame(store, "demo", "score", annotators=names["clinicians"])
    assert set(frame["pair_id"]) == set(pids)
    want = {pid: (a + b) / 10 for pid, a, b in zip(pids, a_scores, b_scores, strict=True)}
    for pid, got in frame.drop_duplicates("pair_id").set_index("pair_id")["target"].items():
        assert got == want[pid]
    imported = correlation_frame(store, "demo", "score", annotators=names["imported"])
    assert imported["pair_id"].nunique() > len(pids)


def test_delete_and_restore_carry_ratings_and_queues(queue):
    store, queue_id, pids = queue
    ratings.save_rating(store, pids[0], "Dr A", score=3, counts={"sig_a": 1}, queue_id=queue_id)
    ratings.adjudicate(store, pids[0], "score", 3, "Dr C", role=RESEARCHER)
    record = delete_dataset(store, "demo")
    assert record.counts["ratings"] == 1 and record.counts["rating_queues"] == 1
    assert record.counts["rating_queue_pairs"] == 8 and record.counts["adjudications"] == 1
    for table in ("ratings", "rating_queues", "rating_queue_pairs", "adjudications"):
        assert store.query_one(f"SELECT count(*) FROM {table}") == 0, table
    restore_dataset(store, record.batch_id)
    assert ratings.queue_pair_ids(store, queue_id) == pids
    assert ratings.latest_ratings(store, "demo", role=RESEARCHER)["score"].tolist() == [3.0]
    assert len(rater_annotations(store, pids[0], "Dr A")) == 13
    assert check_store(store.path).ok, check_store(store.path).problems


def test_check_store_counts_ratings_tables_and_finds_their_orphans(queue):
    store, queue_id, pids = queue
    ratings.save_rating(store, pids[0], "Dr A", score=3, queue_id=queue_id)
    report = check_store(store.path)
    assert report.ok, report.problems
    with store.write() as con:  # what a half-done delete would leave behind
        con.execute("DELETE FROM pairs WHERE pair_id = ?", [pids[0]])
    problems = " ".join(check_store(store.path).problems)
    assert "1 ratings without their pair" in problems
    assert "1 queue entries without their pair" in problems


def test_cli_ratings_and_rating_queue(demo_store_copy: Store):
    store = demo_store_copy

    def cli(*args):
        return run_cli("--store", str(store.path), *args)

    made = cli("rating-queue", "--dataset", "demo", "--name", "pilot", "--method", "sample", "--n", "4",
               "--seed", "2", "--json")
    assert made.returncode == 0, made.stderr
    queue_id = json.loads(made.stdout)["queue_id"]
    pids = ratings.queue_pair_ids(store, queue_id)
    for i, pid in enumerate(pids):
        ratings.save_rating(store, pid, "A", score=i)
        ratings.save_rating(store, pid, "B", score=i + (i % 2))
    out = cli("ratings", "--dataset", "demo", "--queue", queue_id, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["progress"][queue_id] == [{"rater": r, "n": 4, "rated": 4, "skipped": 0, "todo": 0}
                                          for r in ("A", "B")]
    score = next(r for r in data["agreement"] if r["field"] == "score")
    assert score["n_units"] == 4 and score["alpha"] == pytest.approx(ratings.agreement(store, "demo", role=RESEARCHER)[0]
                                                                      .set_index("field").loc["score", "alpha"])
    bad = cli("rating-queue", "--dataset", "demo", "--name", "x", "--method", "sample")
    assert bad.returncode == 1 and "needs its size n" in bad.stderr


WORKER = textwrap.dedent("""
    import sys
    from core.reads import ratings
    from core.store.db import Store
    store = Store(sys.argv[1])
    me, pids = sys.argv[2], sys.argv[3].split(",")
    for i, pid in enumerate(pids):
        ratings.save_rating(store, pid, me, score=i % 6, counts={"sig_a": i % 3})
        ratings.save_rating(store, pids[0], "shared", score=3)  # everyone revises the same rating
    ratings.save_rating(store, pids[1], me, score=5, note="revised")
""")


def test_concurrent_raters_in_separate_processes_lose_nothing(queue):
    store, _, pids = queue
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(store.path), f"proc{i}", ",".join(pids)],
                                cwd=ROOT, stderr=subprocess.PIPE, text=True) for i in range(4)]
    for proc in workers:
        assert proc.wait(timeout=300) == 0, proc.stderr.read()
    n = len(pids)
    # Every save of every process is there: n + 1 per rater, and n x 4 revisions of the shared one, numbered 1..4n.
    counts = store.query_df("SELECT rater, count(*) AS n, max(revision) AS top FROM ratings GROUP BY rater")
    counts = counts.set_index("rater")
    assert all(counts.loc[f"proc{i}", "n"] == n + 1 for i in range(4))
    assert counts.loc["shared", "n"] == 4 * n and counts.loc["shared", "top"] == 4 * n
    revs = store.query_df("SELECT revision FROM ratings WHERE rater = 'shared' ORDER BY revision")["revision"]
    assert revs.tolist() == list(range(1, 4 * n + 1))
    # The annotations hold exactly the latest rating of each rater and pair.
    for i in range(4):
        ann = rater_annotations(store, pids[1], f"proc{i}")
        assert ann[ann["field"] == "score"]["value"].tolist() == [5.0]
        assert ann[ann["field"] == "error_count"].empty  # the revision gave a score only
        per_pair = store.query_df("SELECT pair_id, count(*) AS n FROM annotations WHERE annotator = ? "
                                  "GROUP BY pair_id", [f"rater:proc{i}"]).set_index("pair_id")["n"]
        assert per_pair.drop(pids[1]).eq(13).all() and len(per_pair) == n
    assert store.query_one("SELECT count(*) FROM annotations WHERE annotator = 'rater:shared'") == 1


def test_the_html_report_can_take_the_clinician_ratings_as_target(queue, tmp_path: Path):
    from core.report import collect

    store, queue_id, pids = queue
    extra = ratings.create_queue(store, "demo", "more", "sample", n=12, seed=3, role="researcher")
    rated = list(dict.fromkeys(pids + ratings.queue_pair_ids(store, extra)))
    for i, pid in enumerate(rated):
        ratings.save_rating(store, pid, "Dr A", score=i % 6)
        ratings.save_rating(store, pid, "Dr B", score=(i + i % 2) % 6)
    run_judge(store, dataset="demo", judge="rules")
    clinicians = ratings.expert_annotators(store, "demo", role=RESEARCHER)["clinicians"]
    data = collect(store, "demo", n_boot=0, annotators=clinicians, experts="clinician ratings (this study)")
    score = next(t for t in data.targets if t.target == "score")
    assert set(score.corr["n"]) == {len(rated)}  # only the rated pairs carry the target
    assert score.n_annotators == 2 and score.ceiling.n_units == len(rated)
    assert [t.target for t in data.targets] == ["score"]  # the raters gave no counts
    everyone = collect(store, "demo", n_boot=0)
    assert set(next(t for t in everyone.targets if t.target == "score").corr["n"]) == {120}

    out = tmp_path / "r.html"
    done = run_cli("--store", str(store.path), "ratings-report", "--dataset",
                           "demo", "--out", str(out), "--n-boot", "0", "--json")
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert "Expert target</th><td>clinician ratings (this study)</td>" in html
    assert "ratings-report --experts clinicians" in html
