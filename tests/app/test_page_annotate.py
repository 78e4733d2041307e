"""The Annotate page through AppTest: a researcher makes a queue, two raters rate it on the page,
agreement appears, and the Correlations page follows the clinicians' ratings as its target.

Every number shown is checked against an independent call of core (ratings.agreement,
stats.correlate on analysis.correlation_frame with the clinicians as annotators).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from core.access import RESEARCHER
from core.analysis.scores import METRICS
from core.analysis.stats import correlate
from core.judges import run_judge
from core.reads import ratings
from core.reads.frames import correlation_frame
from core.store.db import Store
from tests.apptest_helpers import assert_ok

PAGE = "pages/annotate.py"
N_PAIRS = 12  # Correlations shows tau from 10 pairs on


def _open(app_test, store: Store, query_params: dict | None = None, page: str = PAGE, auth: dict | None = None):
    """``page`` under AppTest, run once; ``auth``: the ``[auth]`` secrets (sign-in configured)."""
    at = app_test(store, query_params)
    if auth is not None:
        at.secrets["auth"] = auth
    at.switch_page(page)
    at.run()
    assert_ok(at)
    return at


def _button(at, label: str):
    found = [b for b in at.button if b.label == label]
    assert len(found) == 1, [b.label for b in at.button]
    return found[0]


def _click(at, label: str):
    """Click the one button labelled ``label`` and run the page; the run raises nothing."""
    _button(at, label).click()
    at.run()
    assert_ok(at)


def _score_input(at):
    found = [n for n in at.number_input if n.label.startswith("Overall score")]
    assert len(found) == 1
    return found[0]


def _count_input(at, field: str):
    found = [n for n in at.number_input if n.label == field]
    assert len(found) == 1
    return found[0]


def _pair_caption(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("Pair **"))


@pytest.fixture
def store(demo_store_copy: Store) -> Store:
    run_judge(demo_store_copy, dataset="demo", judge="rules")
    return demo_store_copy


def _section(at, name: str) -> None:
    at.radio(key="ann_view").set_value(name)
    at.run()
    assert_ok(at)


def _make_queue(at) -> None:
    _section(at, "queues")
    at.text_input(key="ann_q_name").set_value("pilot <b>1</b>")
    at.radio(key="ann_q_method").set_value("sample")
    at.number_input(key="ann_q_n").set_value(N_PAIRS)
    at.number_input(key="ann_q_seed").set_value(4)
    _click(at, "Create queue")
    _section(at, "rate")


def _rate_all(at, store: Store, rater: str, scores: list[int], sig_a: list[int]) -> None:
    at.text_input(key="ann_rater").set_value(rater)
    at.run()
    assert_ok(at)
    queue_id = ratings.list_queues(store, "demo")["queue_id"].iloc[0]
    pids = ratings.queue_pair_ids(store, queue_id)
    for i, pid in enumerate(pids):
        ext = store.query_one("SELECT ext_id FROM pairs WHERE pair_id = ?", [pid])
        assert f"Pair **{i + 1}** of {N_PAIRS}" in _pair_caption(at) and ext.replace("-", "\\-") in _pair_caption(at)
        done = i if i <= 1 else i - 1  # pair 2 was skipped
        assert f"{done} of {N_PAIRS} pairs rated by {rater}" in at.get("progress")[0].proto.text
        if i == 1:  # skip once: the pair comes back after the others
            _click(at, "Skip for now")
            continue
        _score_input(at).set_value(scores[i])
        _count_input(at, "sig_a").set_value(sig_a[i])
        _click(at, "Save and next (Enter)")
        assert at.success[0].value.startswith("Saved pair")
    # the skipped pair is offered last
    assert _pair_caption(at).startswith("Pair **2**") and "skipped" in _pair_caption(at)
    _score_input(at).set_value(scores[1])
    _count_input(at, "sig_a").set_value(sig_a[1])
    _click(at, "Save and next (Enter)")
    assert any("rated every pair" in s.value for s in at.success)
    got = ratings.latest_ratings(store, "demo", role=RESEARCHER).query("rater == @rater").set_index("pair_id")
    assert [got.loc[p, "score"] for p in pids] == [float(s) for s in scores]
    assert [got.loc[p, "sig_a"] for p in pids] == sig_a


def _correlations_tau(app_test, store: Store) -> dict[str, float]:
    at = _open(app_test, store, {"experts": "clinicians"}, page="pages/correlations.py")
    detail = next(d.value for d in at.dataframe if "tau CI low" in d.value.columns)
    return {m: float(detail.set_index(["judge", "metric"]).loc[("rules", m), "tau"])
            for m in ("ec_sig", "green") if ("rules", m) in detail.set_index(["judge", "metric"]).index}


def test_two_raters_rate_a_queue_and_agreement_and_correlations_follow(app_test, store: Store):
    at = _open(app_test, store)
    assert at.title[0].value == "Annotate"
    assert any("No rating queue" in i.value for i in at.info)
    _make_queue(at)
    queues = ratings.list_queues(store, "demo")
    assert queues["name"].tolist() == ["pilot <b>1</b>"] and queues["n_pairs"].tolist() == [N_PAIRS]
    assert bool(queues["blinded"].iloc[0])
    assert ratings.get_queue(store, queues["queue_id"].iloc[0])["params"]["seed"] == 4

    rng = np.random.default_rng(1)
    a_scores = rng.integers(0, 6, N_PAIRS).tolist()
    a_sig = rng.integers(0, 4, N_PAIRS).tolist()
    _rate_all(at, store, "Dr A", a_scores, a_sig)
    _section(at, "agreement")
    assert any("Agreement needs two raters" in i.value for i in at.info)
    _section(at, "rate")
    tau_one = _correlations_tau(app_test, store)

    # Blinded: rater B sees no judge values and not A's ratings.
    at.text_input(key="ann_rater").set_value("Dr B")
    at.run()
    assert not [e for e in at.expander if e.label.startswith("Unblinded")]
    b_scores = [min(5, s + int(d)) for s, d in zip(a_scores, rng.integers(0, 2, N_PAIRS), strict=True)]
    b_sig = [v + (i % 3 == 0) for i, v in enumerate(a_sig)]
    _rate_all(at, store, "Dr B", b_scores, b_sig)

    # Agreement: the numbers of core.reads.ratings.agreement, with n.
    _section(at, "agreement")
    summary, pairwise = ratings.agreement(store, "demo", role=RESEARCHER)
    shown = next(d.value for d in at.dataframe if "alpha" in d.value.columns).set_index("field")
    assert shown.loc["score", "n_units"] == N_PAIRS and shown.loc["score", "n_raters"] == 2
    assert shown.loc["score", "alpha"] == pytest.approx(summary.set_index("field").loc["score", "alpha"])
    shown_pw = next(d.value for d in at.dataframe if "rater_a" in d.value.columns).set_index("field")
    assert shown_pw.loc["score", "tau"] == pytest.approx(pairwise.set_index("field").loc["score", "tau"])
    dis = next(d.value for d in at.dataframe if "spread" in d.value.columns)
    assert "sig_a" in set(dis["field"])  # B counted one more error on every third pair

    # Adjudicate the first disagreement.
    at.number_input(key="ann_adj_value").set_value(1)
    _click(at, "Save adjudication")
    adj = ratings.adjudicated_values(store, "demo", role=RESEARCHER)
    assert len(adj) == 1 and adj["value"].iloc[0] == 1.0 and adj["adjudicator"].iloc[0] == "Dr B"

    # Correlations with the clinicians as target: the mean of both raters now, n = the queue.
    tau_two = _correlations_tau(app_test, store)
    clinicians = ["rater:Dr A", "rater:Dr B"]
    frame = correlation_frame(store, "demo", "score", annotators=clinicians)
    frame = frame[frame["metric"].isin(list(METRICS))]
    expected = correlate(frame, n_boot=0, min_n=10, target_name="score").set_index(["judge", "metric"])
    assert frame["pair_id"].nunique() == N_PAIRS
    for metric, tau in tau_two.items():
        assert tau == pytest.approx(expected.loc[("rules", metric), "tau"])
    assert tau_two != tau_one  # B's ratings moved the target


def test_back_revises_with_history_and_unblinding_shows_the_others(app_test, demo_store_copy: Store):
    store = demo_store_copy
    queue_id = ratings.create_queue(store, "demo", "q", "sample", n=3, seed=9, scheme="score", role="researcher")
    pids = ratings.queue_pair_ids(store, queue_id)
    ratings.save_rating(store, pids[0], "Dr B", score=1)
    at = _open(app_test, store, {"rater": "Dr A"})
    assert not [n for n in at.number_input if n.label == "sig_a"]  # score-only queue: no count fields
    _score_input(at).set_value(3)
    _click(at, "Save and next (Enter)")
    assert _pair_caption(at).startswith("Pair **2**")
    _click(at, "Back")
    assert _pair_caption(at).startswith("Pair **1**") and "rated" in _pair_caption(at)
    assert _score_input(at).value == 3.0  # the form starts from the latest revision
    _score_input(at).set_value(5)
    _click(at, "Save and next (Enter)")
    assert ratings.history(store, pids[0], "Dr A", role=RESEARCHER)["score"].tolist() == [5.0, 3.0]
    _button(at, "Back").click()
    at.run()
    assert [e.label for e in at.expander if e.label.startswith("Your history")] == [
        "Your history on this pair (2 revisions; saving again adds a revision, nothing is overwritten)"]
    assert not [e for e in at.expander if e.label.startswith("Unblinded")]  # blinded by default
    # The researcher unblinds the queue: Dr B's rating of the pair becomes visible.
    _section(at, "queues")
    at.toggle(key=f"ann_blind_{queue_id}").set_value(False)
    at.run()
    assert_ok(at)
    _section(at, "rate")
    assert not bool(ratings.get_queue(store, queue_id)["blinded"])
    shown = [e for e in at.expander if e.label.startswith("Unblinded")]
    assert len(shown) == 1
    others = shown[0].dataframe[0].value
    assert others["rater"].tolist() == ["Dr B"] and others["score"].tolist() == [1.0]


def test_bad_input_is_refused_on_the_page(app_test, demo_store_copy: Store):
    store = demo_store_copy
    ratings.create_queue(store, "demo", "q", "sample", n=3, seed=9, scheme="score", role="researcher")
    at = _open(app_test, store, {"rater": "Dr A"})
    _button(at, "Save and next (Enter)").click()  # nothing given
    at.run()
    assert_ok(at)
    assert any("give an overall score" in e.value for e in at.error)
    assert store.query_one("SELECT count(*) FROM ratings") == 0
    _section(at, "queues")
    at.text_input(key="ann_q_name").set_value("")
    _button(at, "Create queue").click()
    at.run()
    assert any("give the queue a name" in e.value for e in at.error)


def test_with_oidc_configured_the_rater_signs_in(app_test, demo_store_copy: Store):
    ratings.create_queue(demo_store_copy, "demo", "q", "sample", n=3, seed=9, role="researcher")
    at = app_test(demo_store_copy, {"rater": "typed"})
    at.secrets["auth"] = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "x" * 32,
                          "client_id": "radconcord", "client_secret": "y" * 16,
                          "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}
    at.switch_page(PAGE)
    at.run()
    assert_ok(at)
    assert _button(at, "Sign in") is not None
    assert not [t for t in at.text_input if t.key == "ann_rater"]  # no typed identity when login exists
    assert not [b for b in at.button if b.label == "Save and next (Enter)"]


def test_share_page_offers_the_clinicians_as_report_target(app_test, demo_store_copy: Store):
    store = demo_store_copy
    at = _open(app_test, store, page="pages/share.py")
    assert not [r for r in at.radio if r.label == "Experts"]  # no ratings yet: no choice
    ratings.save_rating(store, ratings.queue_pair_ids(
        store, ratings.create_queue(store, "demo", "q", "sample", n=2, seed=1, role="researcher"))[0], "Dr A", score=2)
    at = _open(app_test, store, {"experts": "clinicians"}, page="pages/share.py")
    radio = next(r for r in at.radio if r.label == "Experts")
    assert radio.value == "clinicians"
    assert any("ratings-report --experts clinicians" in c.value for c in at.code)


def test_analysis_pages_take_the_clinicians_as_target(app_test, store: Store):
    from core.analysis.errortypes import f1_per_category
    from core.reads.frames import expert_counts, judge_counts

    queue_id = ratings.create_queue(store, "demo", "q", "sample", n=N_PAIRS, seed=5, role="researcher")
    for i, pid in enumerate(ratings.queue_pair_ids(store, queue_id)):
        ratings.save_rating(store, pid, "Dr A", score=i % 6, counts={"sig_a": i % 3, "sig_b": 1})
        ratings.save_rating(store, pid, "Dr B", score=(i + 1) % 6, counts={"sig_a": i % 2, "sig_b": 1})
    clinicians = ["rater:Dr A", "rater:Dr B"]
    for page in ("pages/calibration.py", "pages/errortypes.py", "pages/ensembles.py"):
        at = _open(app_test, store, {"experts": "clinicians"}, page=page)
        radio = [r for r in at.radio if r.label == "Experts"]
        assert len(radio) == 1 and radio[0].value == "clinicians", page
        assert at.query_params["experts"] == ["clinicians"] or at.query_params["experts"] == "clinicians"
    # Error types: the expert support of category b is the clinicians' (one error each, n pairs), not the demo's.
    at = _open(app_test, store, {"experts": "clinicians"}, page="pages/errortypes.py")
    want = f1_per_category(judge_counts(store, "demo"), expert_counts(store, "demo", clinicians), significant=True)
    assert int(want.loc[want["category"] == "b", "support"].iloc[0]) == N_PAIRS
    shown = [d.value for d in at.dataframe if "support" in d.value.columns]
    assert shown and int(shown[0].loc[shown[0]["category"] == "b", "support"].iloc[0]) == N_PAIRS


def test_hostile_names_are_shown_as_text(app_test, demo_store_copy: Store):
    hostile = "<img src=x onerror=alert(1)> **bold** [link](http://example.com)"
    ratings.create_queue(demo_store_copy, "demo", hostile, "sample", n=2, seed=1, role="researcher")
    at = _open(app_test, demo_store_copy, {"rater": hostile})
    _score_input(at).set_value(2)
    _click(at, "Save and next (Enter)")
    assert ratings.latest_ratings(demo_store_copy, "demo", role=RESEARCHER)["rater"].tolist() == [hostile]
    rendered = [m.value for m in at.markdown] + [c.value for c in at.caption] + [s.value for s in at.success]
    rendered.append(at.get("progress")[0].proto.text)
    unescaped = re.compile(r"(?<!\\)<img|(?<!\\)\*(?<!\\)\*bold|(?<!\\)\]\(http")
    assert not [r for r in rendered if unescaped.search(r)]
    assert any("\\<img" in r for r in rendered)  # the name is there, escaped


AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "x" * 32,
        "client_id": "radconcord", "client_secret": "y" * 16,
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}


class _SignedIn:
    """Stands in for ``st.user`` of a visitor signed in through the configured OIDC provider."""

    is_logged_in = True

    def __init__(self, email: str):
        self.email = email

    def get(self, key, default=None):
        return {"email": self.email, "name": "Carol"}.get(key, default)


def _disagreeing_ratings(store: Store) -> None:
    queue_id = ratings.create_queue(store, "demo", "q", "sample", n=3, seed=9, role="researcher")
    for pid in ratings.queue_pair_ids(store, queue_id):
        ratings.save_rating(store, pid, "Dr A", score=1, queue_id=queue_id)
        ratings.save_rating(store, pid, "Dr B", score=5, queue_id=queue_id)


def _form_blocks(node) -> list:
    found = []
    proto = getattr(node, "proto", None)
    if type(proto).__name__ == "Block" and proto.HasField("form"):
        found.append(proto.form)
    for child in getattr(node, "children", {}).values():
        found.extend(_form_blocks(child))
    return found


def test_with_sign_in_configured_the_url_rater_cannot_write(app_test, demo_store_copy: Store):
    store = demo_store_copy
    _disagreeing_ratings(store)
    at = _open(app_test, store, {"view": "agreement", "rater": "Dr Impostor"}, auth=AUTH)
    _click(at, "Save adjudication")
    assert any("Sign in with your organisation's account first" in e.value for e in at.error)
    assert ratings.adjudicated_values(store, "demo", role=RESEARCHER).empty  # nothing stored, under no name
    _section(at, "queues")
    at.text_input(key="ann_q_name").set_value("impostor's queue")
    _click(at, "Create queue")
    assert any("Sign in" in e.value for e in at.error)
    assert ratings.list_queues(store, "demo")["name"].tolist() == ["q"]


def test_a_signed_in_write_carries_the_signed_in_identity_not_the_urls(app_test, demo_store_copy: Store,
                                                                        monkeypatch):
    import streamlit

    store = demo_store_copy
    _disagreeing_ratings(store)
    monkeypatch.setattr(streamlit, "user", _SignedIn("carol@hospital.org"))
    at = _open(app_test, store, {"view": "agreement", "rater": "Dr Impostor"}, auth=AUTH)
    _click(at, "Save adjudication")
    adj = ratings.adjudicated_values(store, "demo", role=RESEARCHER)
    assert adj["adjudicator"].tolist() == ["carol@hospital.org"]
    _section(at, "queues")
    at.text_input(key="ann_q_name").set_value("round 2")
    _click(at, "Create queue")
    queues = ratings.list_queues(store, "demo").set_index("name")
    assert queues.loc["round 2", "created_by"] == "carol@hospital.org"


def test_queue_names_are_unique_and_enter_does_not_submit_the_form(app_test, demo_store_copy: Store):
    store = demo_store_copy
    at = _open(app_test, store)
    _section(at, "queues")
    forms = {f.form_id: f for f in _form_blocks(at._tree)}
    assert forms["ann_new_queue"].enter_to_submit is False  # Enter in Name or Number of pairs: nothing happens
    for _ in range(2):
        at.text_input(key="ann_q_name").set_value("pilot")
        _click(at, "Create queue")
    assert ratings.list_queues(store, "demo")["name"].tolist() == ["pilot"]
    assert any("a queue named 'pilot' already exists" in e.value.replace("\\", "") for e in at.error)
    with pytest.raises(ValueError, match="already exists"):
        ratings.create_queue(store, "demo", " PILOT ", "sample", n=3, role="researcher")


def test_the_ratings_of_selector_shows_its_choice(app_test, demo_store_copy: Store):
    store = demo_store_copy
    _disagreeing_ratings(store)
    at = _open(app_test, store, {"view": "agreement"})
    box = at.selectbox(key="ann_agree_queue")
    assert box.label == "Ratings of" and box.value is not None
    assert box.format_func(box.value) == "all ratings on this dataset"
