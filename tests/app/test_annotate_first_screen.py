"""A clinician's first screen on Annotate (issue 43, point 6): before any rating queue exists it says what
rating is, what to do now and whom to ask (the researchers of the team's settings), not only "No rating
queue on this dataset yet" with nothing to do."""

from __future__ import annotations

from core.access import researcher_contacts
from core.store.db import Store
from tests.app.test_access import AUTH, _team_app


def test_researcher_contacts_are_the_addresses_of_the_teams_researchers():
    roles = {"researchers": ["Lead@Hospital.org", "@hospital.org", "b@uni.edu"], "viewers": ["@hospital.org"]}
    assert researcher_contacts({"auth": AUTH, "radconcord": {"roles": roles}}) == ("lead@hospital.org", "b@uni.edu")
    assert researcher_contacts({}) == ()
    assert researcher_contacts({"radconcord": {"roles": {"researchers": "one@x.org"}}}) == ()  # malformed: nobody


def test_a_clinician_without_a_queue_is_told_what_to_do_and_whom_to_ask(app_test, demo_store_copy: Store,
                                                                        monkeypatch):
    at = _team_app(app_test, demo_store_copy, monkeypatch, "nurse@hospital.org", "pages/annotate.py")
    (first,) = [i.value for i in at.info]
    assert "Nothing to rate on demo yet" in first
    assert "overall score from 0 to 5" in first and "Save" in first  # what rating will be
    assert "Ask lead@hospital\\.org (the researchers of this dashboard) to create a rating queue" in first
    assert not at.text_input  # nothing to type before there is something to rate


def test_a_researcher_without_a_queue_is_sent_to_queues(app_test, demo_store_copy: Store, monkeypatch):
    at = _team_app(app_test, demo_store_copy, monkeypatch, "lead@hospital.org", "pages/annotate.py")
    assert any("Make one under **Queues**" in i.value for i in at.info)
