"""Issue 42, item 1 at the data layer: the ratings' reads and writes ask core.access.allowed themselves.

A viewer (a team deployment's clinician) reads no other rater's rating given in a blinded queue
(agreement, disagreements, the current ratings, a pair's history), reads and writes no adjudication,
and neither blinds nor unblinds a queue; the reproducibility bundle is refused to a viewer and the
HTML report made for one names no store file. A researcher reads and writes everything.
"""

from __future__ import annotations

import pytest

from core.access import RESEARCHER, VIEWER, NotAllowed
from core.reads import ratings
from core.store.db import Store

ALICE, BOB, CAROL, DAVE = "alice@hospital.org", "bob@hospital.org", "carol@hospital.org", "dave@hospital.org"


def rate_blind_and_open(store: Store, n: int) -> tuple[str, str]:
    """A blinded queue of ``n`` pairs rated 1 by alice and 4 by bob, an unblinded one rated 0 by carol and
    3 by dave (every pair of each a disagreement): their ids."""
    blind = ratings.create_queue(store, "demo", "blind round", "sample", n=n, seed=3, blinded=True, role="researcher")
    open_ = ratings.create_queue(store, "demo", "open round", "sample", n=n, seed=4, blinded=False, role="researcher")
    for queue_id, scores in ((blind, {ALICE: 1, BOB: 4}), (open_, {CAROL: 0, DAVE: 3})):
        for pid in ratings.queue_pair_ids(store, queue_id):
            for rater, score in scores.items():
                ratings.save_rating(store, pid, rater, score=score, queue_id=queue_id)
    return blind, open_


@pytest.fixture
def rated(demo_store_copy: Store):
    return demo_store_copy, *rate_blind_and_open(demo_store_copy, 4)


def test_a_viewer_reads_no_blinded_rating_of_others(rated):
    store, blind, open_ = rated
    everything = ratings.latest_ratings(store, "demo", role=RESEARCHER)
    assert set(everything["rater"]) == {ALICE, BOB, CAROL, DAVE}
    seen = ratings.latest_ratings(store, "demo", role=VIEWER)
    assert set(seen["rater"]) == {CAROL, DAVE} and len(seen) == 8
    assert ratings.latest_ratings(store, "demo", blind, role=VIEWER).empty
    assert ratings.latest_ratings(store, "demo", role=None).pipe(lambda f: set(f["rater"])) == {CAROL, DAVE}
    # a rater of the blinded queue reads their own ratings, still not the others'
    own = ratings.latest_ratings(store, "demo", blind, role=VIEWER, reader=ALICE)
    assert set(own["rater"]) == {ALICE} and len(own) == 4

    summary, pairwise = ratings.agreement(store, "demo", role=VIEWER)
    assert set(pairwise["rater_a"]) | set(pairwise["rater_b"]) == {CAROL, DAVE}
    assert ratings.agreement(store, "demo", blind, role=VIEWER)[0].empty
    assert not ratings.agreement(store, "demo", blind, role=RESEARCHER)[0].empty
    text = ratings.disagreements(store, "demo", role=VIEWER)["values"].str.cat(sep=" ")
    assert CAROL in text and ALICE not in text and BOB not in text
    assert f"{ALICE}=1; {BOB}=4" in ratings.disagreements(store, "demo", role=RESEARCHER)["values"].tolist()

    pid = ratings.queue_pair_ids(store, blind)[0]
    assert set(ratings.history(store, pid, role=RESEARCHER)["rater"]) >= {ALICE, BOB}
    assert set(ratings.history(store, pid, role=VIEWER, reader=ALICE)["rater"]) <= {ALICE, CAROL, DAVE}
    assert BOB not in set(ratings.history(store, pid, role=VIEWER, reader=ALICE)["rater"])


def test_a_rating_of_a_blinded_queue_stays_hidden_when_the_pair_is_also_in_an_open_queue(rated):
    store, blind, _ = rated
    pids = ratings.queue_pair_ids(store, blind)
    reopened = ratings.create_queue(store, "demo", "same pairs, unblinded", "filters", blinded=False, role="researcher")
    assert set(pids) <= set(ratings.queue_pair_ids(store, reopened))
    assert not {ALICE, BOB} & set(ratings.latest_ratings(store, "demo", reopened, role=VIEWER)["rater"])


def test_only_a_researcher_adjudicates_and_reads_adjudications(rated):
    store, blind, _ = rated
    pid = ratings.queue_pair_ids(store, blind)[0]
    with pytest.raises(NotAllowed, match="a viewer may not adjudicate between raters: researchers only"):
        ratings.adjudicate(store, pid, "score", 5, "nurse@hospital.org", role=VIEWER)
    with pytest.raises(NotAllowed, match="a visitor without a role may not"):
        ratings.adjudicate(store, pid, "score", 5, "nurse@hospital.org", role=None)
    assert store.query_one("SELECT count(*) FROM adjudications") == 0  # nothing written, under no name
    assert ratings.adjudicate(store, pid, "score", 2, "lead@hospital.org", role=RESEARCHER) == 1
    assert ratings.adjudicated_values(store, "demo", role=RESEARCHER)["value"].tolist() == [2.0]
    assert ratings.adjudicated_values(store, "demo", role=VIEWER).empty
    assert ratings.disagreements(store, "demo", role=VIEWER)["adjudicated"].isna().all()


def test_only_a_researcher_blinds_or_unblinds_a_queue(rated):
    store, blind, _ = rated
    with pytest.raises(NotAllowed, match="blind or unblind"):
        ratings.set_blinded(store, blind, False, role=VIEWER)
    assert bool(ratings.get_queue(store, blind)["blinded"])
    ratings.set_blinded(store, blind, False, role=RESEARCHER)
    assert not bool(ratings.get_queue(store, blind)["blinded"])


def test_only_a_researcher_creates_a_queue(demo_store_copy: Store):
    store = demo_store_copy
    before = store.query_one("SELECT count(*) FROM rating_queues")
    for role in (VIEWER, None):
        with pytest.raises(NotAllowed, match="may not create, blind or unblind rating queues: researchers only"):
            ratings.create_queue(store, "demo", "a viewer's queue", "sample", n=3, seed=1, role=role)
    assert store.query_one("SELECT count(*) FROM rating_queues") == before  # nothing written
    made = ratings.create_queue(store, "demo", "a researcher's queue", "sample", n=3, seed=1, role=RESEARCHER)
    assert len(ratings.queue_pair_ids(store, made)) == 3


def test_the_bundle_is_refused_to_a_viewer_and_the_report_for_one_names_no_store_file(rated):
    from core.paper.bundle import build_bundle
    from core.paper.compute import PaperSettings
    from core.report.html import build_report

    store, _, _ = rated
    with pytest.raises(NotAllowed, match="read other raters' blinded ratings"):
        build_bundle(store, "demo", PaperSettings(n_boot=0), role=VIEWER)
    assert store.path.name in build_report(store, "demo", n_boot=0, role=RESEARCHER)
    assert store.path.name not in build_report(store, "demo", n_boot=0, role=VIEWER)


def test_a_pairs_expert_annotations_hide_a_blinded_rating_from_a_viewer(rated):
    """The Data page's "Expert annotations" of a pair: the ratings are mirrored into ``annotations``
    as ``rater:NAME``; a viewer sees the unblinded queue's, not the blinded one's."""
    from core.reads.queries import annotation_summary

    store, blind, open_ = rated
    pid = ratings.queue_pair_ids(store, blind)[0]
    for_researcher = set(annotation_summary(store, pid, role=RESEARCHER)["annotator"])
    assert {f"rater:{ALICE}", f"rater:{BOB}"} <= for_researcher
    for_viewer = set(annotation_summary(store, pid, role=VIEWER)["annotator"])
    assert not {f"rater:{ALICE}", f"rater:{BOB}"} & for_viewer
    assert for_researcher - for_viewer == {f"rater:{ALICE}", f"rater:{BOB}"}  # imported experts stay
    other = ratings.queue_pair_ids(store, open_)[0]
    assert {f"rater:{CAROL}", f"rater:{DAVE}"} <= set(annotation_summary(store, other, role=VIEWER)["annotator"])


def test_a_viewers_clinician_target_leaves_out_the_raters_of_a_blinded_queue(rated):
    """Correlations, Calibration, Error types, Ensembles and Share offer the clinicians as the expert
    target, pair by pair: for a viewer, only raters whose every current rating is in an unblinded queue."""
    store, blind, _ = rated
    raters = {f"rater:{r}" for r in (ALICE, BOB, CAROL, DAVE)}
    assert set(ratings.expert_annotators(store, "demo", role=RESEARCHER)["clinicians"]) == raters
    seen = ratings.expert_annotators(store, "demo", role=VIEWER)
    assert seen["clinicians"] == [f"rater:{CAROL}", f"rater:{DAVE}"]
    assert seen["hidden"] == [f"rater:{ALICE}", f"rater:{BOB}"] and "expert_1" in seen["imported"]
    ratings.set_blinded(store, blind, False, role=RESEARCHER)  # unblinded: the viewer's target may hold them
    assert set(ratings.expert_annotators(store, "demo", role=VIEWER)["clinicians"]) == raters
