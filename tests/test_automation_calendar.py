"""The calendar app of the automation world: events by range and person, invitations, changes by
the organizer only, responses and free slots; refusals write nothing."""

from __future__ import annotations

from functools import partial

import support
from support import episode_fixture, ok, rows

from simtenant.episode import Episode

ACTOR = "maya.patel@lumenpine.example"

episode = episode_fixture("calendar", "automation", "calendar-sweep", ACTOR)


def counts(episode: Episode) -> tuple:
    return rows(
        episode.path,
        "SELECT (SELECT count(*) FROM cal_events), (SELECT count(*) FROM cal_attendees),"
        " (SELECT group_concat(status || start_at || end_at || title) FROM cal_events),"
        " (SELECT group_concat(email || response) FROM cal_attendees)",
    )[0]


refused = partial(support.refused, state=counts)


def test_lists_events_in_a_range_and_of_a_person(episode):
    week = ok(episode, "cal_list_events", {"start": "2026-09-14T00:00:00Z", "end": "2026-09-19T00:00:00Z"})
    titles = [e["title"] for e in week["rows"]]
    assert "Weekly Sales Sync" in titles and "All-hands: Q3 results and fall plans" in titles
    assert [e["start_at"] for e in week["rows"]] == sorted(e["start_at"] for e in week["rows"])
    assert all(e["status"] == "confirmed" for e in week["rows"])  # the cancelled draft is left out
    cancelled = ok(episode, "cal_list_events", {"query": "Harborview", "include_cancelled": True})
    assert {e["status"] for e in cancelled["rows"]} == {"confirmed", "cancelled"}
    karen = ok(episode, "cal_list_events", {"attendee": "karen@harborview.example"})
    assert all("karen@harborview.example" in [a["email"] for a in e["attendees"]] for e in karen["rows"])
    assert not any("Group" in e["title"] for e in karen["rows"])  # the look-alike prospect is another person
    event = ok(episode, "cal_get_event", {"event_id": karen["rows"][0]["id"]})
    assert event["organizer"] == "priya.shah@lumenpine.example"
    refused(episode, "cal_get_event", {"event_id": "EVT-9999"}, 404, "not_found")


def test_creates_updates_and_cancels_an_event_as_its_organizer(episode):
    created = ok(
        episode,
        "cal_create_event",
        {
            "title": "Warehouse move - carrier decision",
            "start_at": "2026-09-16T11:00:00Z",
            "end_at": "2026-09-16T11:30:00Z",
            "attendees": ["Rafael.Ortiz@lumenpine.example", "sofia.rossi@lumenpine.example", ACTOR],
            "location": "Warehouse office",
        },
    )
    assert created["organizer"] == ACTOR and created["created_at"] == "2026-09-14T09:00:00Z"
    assert created["attendees"] == [
        {"email": ACTOR, "response": "accepted"},
        {"email": "rafael.ortiz@lumenpine.example", "response": "needs_action"},
        {"email": "sofia.rossi@lumenpine.example", "response": "needs_action"},
    ]
    event_id = created["id"]
    moved = ok(
        episode,
        "cal_update_event",
        {"event_id": event_id, "start_at": "2026-09-16T12:00:00Z", "end_at": "2026-09-16T12:30:00Z"},
    )
    assert moved["changed"] == ["start_at", "end_at"]
    added = ok(episode, "cal_add_attendee", {"event_id": event_id, "email": "ben.carter@lumenpine.example"})
    assert added["attendees"][-1] == {"email": "ben.carter@lumenpine.example", "response": "needs_action"}
    refused(
        episode,
        "cal_add_attendee",
        {"event_id": event_id, "email": "ben.carter@lumenpine.example"},
        409,
        "already_invited",
    )
    removed = ok(episode, "cal_remove_attendee", {"event_id": event_id, "email": "sofia.rossi@lumenpine.example"})
    assert "sofia.rossi@lumenpine.example" not in [a["email"] for a in removed["attendees"]]
    refused(episode, "cal_remove_attendee", {"event_id": event_id, "email": ACTOR}, 409, "organizer")
    refused(
        episode,
        "cal_update_event",
        {"event_id": event_id, "end_at": "2026-09-16T11:00:00Z"},
        400,
        "invalid_range",
    )
    assert ok(episode, "cal_cancel_event", {"event_id": event_id})["status"] == "cancelled"
    refused(episode, "cal_update_event", {"event_id": event_id, "title": "x"}, 409, "event_cancelled")


def test_refuses_bad_new_events_and_others_events(episode):
    base = {"title": "Check", "start_at": "2026-09-16T11:00:00Z", "end_at": "2026-09-16T10:00:00Z"}
    refused(episode, "cal_create_event", base, 400, "invalid_range")
    refused(episode, "cal_create_event", {**base, "end_at": "2026-13-16T10:00:00Z"}, 400, "invalid_value")
    refused(episode, "cal_create_event", {**base, "start_at": "Sep 16 10am"}, 400, "invalid_arguments")
    sync = ok(episode, "cal_list_events", {"query": "Weekly Sales Sync", "start": "2026-09-14T00:00:00Z"})["rows"][0]
    refused(episode, "cal_update_event", {"event_id": sync["id"], "title": "Mine now"}, 403, "not_organizer")
    refused(episode, "cal_cancel_event", {"event_id": sync["id"]}, 403, "not_organizer")


def test_responds_to_an_invitation(episode):
    review = ok(episode, "cal_list_events", {"query": "design review"})["rows"][0]
    answered = ok(episode, "cal_respond_to_event", {"event_id": review["id"], "response": "declined"})
    assert {"email": ACTOR, "response": "declined"} in answered["attendees"]
    sync = ok(episode, "cal_list_events", {"query": "Weekly Sales Sync"})["rows"][0]
    refused(episode, "cal_respond_to_event", {"event_id": sync["id"], "response": "accepted"}, 403, "not_invited")
    refused(episode, "cal_respond_to_event", {"event_id": review["id"], "response": "maybe"}, 400, "invalid_arguments")


def test_finds_free_slots_shared_by_several_people(episode):
    people = ["priya.shah@lumenpine.example", "marcus.webb@lumenpine.example"]
    found = ok(episode, "cal_find_free_slots", {"emails": people, "date": "2026-09-16", "duration_minutes": 60})
    starts = [s["start_at"] for s in found["slots"]]
    assert starts[0] == "2026-09-16T09:00:00Z"
    assert not any("2026-09-16T13:30:00Z" <= s < "2026-09-16T15:00:00Z" for s in starts)  # the Harborview review
    out = ok(episode, "cal_find_free_slots", {"emails": ["isla.novak@lumenpine.example"], "date": "2026-09-16"})
    assert out["slots"] == []  # on leave all month
    refused(
        episode,
        "cal_find_free_slots",
        {"emails": people, "date": "2026-09-16", "day_start": 17, "day_end": 9},
        400,
        "invalid_range",
    )
