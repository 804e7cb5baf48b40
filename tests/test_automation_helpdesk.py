"""The helpdesk app of the automation world: tickets searched, opened, changed, answered, solved and
merged; refusals write nothing."""

from __future__ import annotations

from functools import partial

import support
from support import episode_fixture, ok, rows

from simtenant.episode import Episode

ACTOR = "noah.evans@lumenpine.example"

episode = episode_fixture("helpdesk", "automation", "helpdesk-sweep", ACTOR)


def counts(episode: Episode) -> tuple:
    return rows(
        episode.path,
        "SELECT (SELECT group_concat(id || status || priority || coalesce(assignee, '') || tags) FROM hd_tickets),"
        " (SELECT count(*) FROM hd_comments)",
    )[0]


refused = partial(support.refused, state=counts)


def test_searches_tickets_and_reads_one_with_its_conversation(episode):
    karen = ok(episode, "hd_list_tickets", {"requester_email": "karen@harborview.example"})
    assert karen["total"] == 3 and [t["created_at"] for t in karen["rows"]] == sorted(
        (t["created_at"] for t in karen["rows"]), reverse=True
    )
    open_karen = ok(episode, "hd_list_tickets", {"requester_email": "karen@harborview.example", "status": "open"})
    assert [t["subject"] for t in open_karen["rows"]] == ["Damaged lounge chairs in September delivery"]
    umbrella = ok(episode, "hd_list_tickets", {"query": "umbrella base"})
    assert {t["status"] for t in umbrella["rows"]} == {"new", "solved"}
    damaged = ok(episode, "hd_list_tickets", {"tag": "damaged"})
    assert damaged["total"] == 3
    unassigned = ok(episode, "hd_list_tickets", {"unassigned": True, "per_page": 100})
    assert all(t["assignee"] is None for t in unassigned["rows"]) and unassigned["total"] >= 5
    ticket = ok(episode, "hd_get_ticket", {"ticket_id": open_karen["rows"][0]["id"]})
    assert [c["public"] for c in ticket["comments"]] == [True, True, False]
    refused(episode, "hd_get_ticket", {"ticket_id": "HD-9999"}, 404, "not_found")
    refused(episode, "hd_list_tickets", {"status": "waiting"}, 400, "invalid_arguments")


def test_creates_updates_and_tags_a_ticket(episode):
    created = ok(
        episode,
        "hd_create_ticket",
        {
            "requester_email": "Olivia@baysideliving.example",
            "requester_name": "Olivia Grant",
            "subject": "Broken umbrella crank",
            "description": "The crank on a 9 ft market umbrella snapped.",
            "tags": ["Parts", "shade"],
        },
    )
    assert (created["id"], created["status"], created["tags"]) == ("HD-1026", "new", "parts,shade")
    assert created["requester_email"] == "olivia@baysideliving.example" and created["comments"] == []
    assigned = ok(episode, "hd_assign_ticket", {"ticket_id": "HD-1026", "assignee": "ava.brooks@lumenpine.example"})
    assert (assigned["status"], assigned["assignee"]) == ("open", "ava.brooks@lumenpine.example")
    refused(
        episode,
        "hd_assign_ticket",
        {"ticket_id": "HD-1026", "assignee": "karen@harborview.example"},
        400,
        "not_an_employee",
    )
    updated = ok(episode, "hd_update_ticket", {"ticket_id": "HD-1026", "priority": "high", "status": "pending"})
    assert updated["changed"] == ["status", "priority"]
    tagged = ok(episode, "hd_tag_ticket", {"ticket_id": "HD-1026", "add": ["warranty"], "remove": ["parts"]})
    assert tagged["tags"] == "shade,warranty"
    refused(episode, "hd_tag_ticket", {"ticket_id": "HD-1026", "remove": ["parts"]}, 400, "unknown_tag")
    refused(episode, "hd_update_ticket", {"ticket_id": "HD-1026"}, 400, "missing_field")
    refused(episode, "hd_update_ticket", {"ticket_id": "HD-1026", "status": "closed"}, 409, "not_solved")
    refused(episode, "hd_update_ticket", {"ticket_id": "HD-1001", "priority": "low"}, 409, "ticket_closed")


def test_replies_notes_and_solves(episode):
    note = ok(
        episode, "hd_add_comment", {"ticket_id": "HD-1019", "body": "Slats are part LP-ADR-SLAT.", "public": False}
    )
    assert (note["author"], note["public"], note["ticket_status"]) == (ACTOR, False, "new")
    refused(episode, "hd_solve_ticket", {"ticket_id": "HD-1019"}, 409, "reply_required")
    reply = ok(episode, "hd_add_comment", {"ticket_id": "HD-1019", "body": "Hi Linda, a replacement slat is $12."})
    assert reply["public"] is True and reply["ticket_status"] == "open"
    solved = ok(episode, "hd_solve_ticket", {"ticket_id": "HD-1019"})
    assert (solved["status"], solved["solved_at"]) == ("solved", "2026-09-14T09:00:00Z")
    refused(episode, "hd_solve_ticket", {"ticket_id": "HD-1019", "comment": "again"}, 409, "already_solved")
    with_comment = ok(
        episode, "hd_solve_ticket", {"ticket_id": "HD-1021", "comment": "Forwarded to purchasing, thanks Nina."}
    )
    assert with_comment["comments"][-1]["public"] is True and with_comment["status"] == "solved"
    closed = ok(episode, "hd_update_ticket", {"ticket_id": "HD-1021", "status": "closed"})
    assert closed["status"] == "closed"
    refused(episode, "hd_add_comment", {"ticket_id": "HD-1021", "body": "late"}, 409, "ticket_closed")
    refused(episode, "hd_add_comment", {"ticket_id": "HD-1020", "body": "   "}, 400, "invalid_arguments")


def test_merges_a_duplicate(episode):
    merged = ok(episode, "hd_merge_ticket", {"ticket_id": "HD-1016", "into_ticket_id": "HD-1014"})
    assert (merged["merged"]["status"], merged["merged"]["merged_into"]) == ("closed", "HD-1014")
    assert merged["into"]["comments"][-1]["public"] is False and "HD-1016" in merged["into"]["comments"][-1]["body"]
    refused(episode, "hd_merge_ticket", {"ticket_id": "HD-1022", "into_ticket_id": "HD-1022"}, 400, "same_ticket")
    refused(episode, "hd_merge_ticket", {"ticket_id": "HD-1022", "into_ticket_id": "HD-1002"}, 409, "target_solved")
    refused(episode, "hd_merge_ticket", {"ticket_id": "HD-1016", "into_ticket_id": "HD-1014"}, 409, "ticket_closed")
