"""The automation world's mail: each employee's mailbox, sending, replies, forwards and folders."""

from __future__ import annotations

from functools import partial
from typing import Any

import support
from support import episode_fixture

from simtenant.episode import Episode

ACTOR = "priya.shah@lumenpine.example"

episode = episode_fixture("mail", "automation", "mail-tools", ACTOR)
ok = partial(support.ok, actor=ACTOR)
refused = partial(support.refused, actor=ACTOR)


def inbox_of(episode: Episode, actor: str) -> list[dict[str, Any]]:
    return ok(episode, "mail_list_messages", {"folder": "inbox", "per_page": 100}, actor=actor)["rows"]


def test_the_mailbox_is_the_actors_own(episode):
    unread = ok(episode, "mail_list_messages", {"folder": "inbox", "unread_only": True})
    assert unread["total"] == 6
    assert all(r["mailbox"] == ACTOR and not r["read"] for r in unread["rows"])
    karen = ok(episode, "mail_list_messages", {"from_address": "harborview.example"})
    assert [r["subject"] for r in karen["rows"]] == [
        "Order inquiry: 120 pool loungers and 30 side tables",
        "Re: Proposal: pool deck loungers for Harborview Bay",
    ]
    found = ok(episode, "mail_search_messages", {"query": "side tables"})
    assert [r["from_address"] for r in found["rows"]] == ["karen@harborview.example"]
    inquiry = found["rows"][0]
    assert ok(episode, "mail_get_message", {"message_id": inquiry["id"]})["body"].startswith("Hi Priya")
    someone_elses = ok(episode, "mail_list_messages", {"per_page": 1}, actor="victor.alvarez@lumenpine.example")
    refused(episode, "mail_get_message", {"message_id": someone_elses["rows"][0]["id"]}, 404, "not_found")
    thread = ok(episode, "mail_get_thread", {"thread_id": "MSG-00021"})
    assert [m["folder"] for m in thread["messages"]] == ["sent", "archive"]


def test_send_delivers_to_colleagues_inboxes(episode):
    sent = ok(
        episode,
        "mail_send_email",
        {
            "to": ["Karen@harborview.example", "tom.becker@lumenpine.example"],
            "cc": ["marcus.webb@lumenpine.example"],
            "subject": "Harborview order",
            "body": "Confirming the order.",
        },
    )
    assert (sent["mailbox"], sent["folder"], sent["from_address"], sent["read"]) == (ACTOR, "sent", ACTOR, True)
    assert sent["to_addresses"] == "karen@harborview.example, tom.becker@lumenpine.example"
    assert sent["thread_id"] == sent["id"] and sent["sent_at"] == "2026-09-14T09:00:00Z"
    for colleague in ("tom.becker@lumenpine.example", "marcus.webb@lumenpine.example"):
        copy = inbox_of(episode, colleague)[0]
        assert (copy["subject"], copy["thread_id"], copy["read"]) == ("Harborview order", sent["id"], False)
    before = ok(episode, "mail_list_messages", {"folder": "sent"})["total"]
    refused(
        episode,
        "mail_send_email",
        {"to": ["tom.becker@lumenpine.example", "nobody@lumenpine.example"], "subject": "x", "body": "y"},
        404,
        "unknown_mailbox",
    )
    refused(episode, "mail_send_email", {"to": [], "subject": "x", "body": "y"}, 400, "no_recipients")
    refused(
        episode, "mail_send_email", {"to": ["not-an-address"], "subject": "x", "body": "y"}, 400, "invalid_arguments"
    )
    assert ok(episode, "mail_list_messages", {"folder": "sent"})["total"] == before


def test_a_new_hire_has_a_mailbox_from_the_company_directory(episode):
    hire = {
        "name": "Alex Moreno",
        "email": "alex.moreno@lumenpine.example",
        "department": "Operations",
        "title": "Warehouse Associate",
        "manager_id": "EMP-010",
        "start_date": "2026-09-21",
        "location": "Portland, OR",
    }
    refused(
        episode, "mail_send_email", {"to": [hire["email"]], "subject": "Hi", "body": "Welcome"}, 404, "unknown_mailbox"
    )
    ok(episode, "hr_onboard_employee", hire)
    ok(episode, "mail_send_email", {"to": [hire["email"]], "subject": "Welcome", "body": "Welcome to Lumen & Pine!"})
    assert [m["subject"] for m in inbox_of(episode, hire["email"])] == ["Welcome"]
    # a former employee's address has none: Tom Baker (EMP-021) was terminated
    former = "tom.baker@lumenpine.example"
    refused(episode, "mail_send_email", {"to": [former], "subject": "Hi", "body": "x"}, 404, "unknown_mailbox")


def test_reply_and_forward(episode):
    complaint = ok(episode, "mail_search_messages", {"query": "cracked back slats"})["rows"][0]
    reply = ok(
        episode, "mail_reply_to_email", {"message_id": complaint["id"], "body": "So sorry, Mia.", "reply_all": True}
    )
    assert reply["subject"] == "Re: Damaged chairs in our delivery"
    assert (reply["to_addresses"], reply["cc_addresses"]) == ("mia@coastline.example, grace.liu@lumenpine.example", "")
    assert (reply["thread_id"], reply["in_reply_to"]) == (complaint["thread_id"], complaint["id"])
    assert ok(episode, "mail_get_message", {"message_id": complaint["id"]})["read"] is True
    grace = inbox_of(episode, "grace.liu@lumenpine.example")[0]
    assert (grace["subject"], grace["thread_id"]) == ("Re: Damaged chairs in our delivery", complaint["thread_id"])
    again = ok(episode, "mail_reply_to_email", {"message_id": reply["id"], "body": "Following up."})
    assert (again["subject"], again["to_addresses"]) == ("Re: Damaged chairs in our delivery", reply["to_addresses"])
    forward = ok(
        episode,
        "mail_forward_email",
        {"message_id": complaint["id"], "to": ["noah.evans@lumenpine.example"], "note": "Please open a ticket."},
    )
    assert forward["subject"] == "Fwd: Damaged chairs in our delivery"
    assert forward["body"].startswith("Please open a ticket.\n\n---------- Forwarded message ----------")
    assert "cracked back slats" in forward["body"] and forward["thread_id"] == forward["id"]
    refused(episode, "mail_reply_to_email", {"message_id": "MSG-99999", "body": "x"}, 404, "not_found")


def test_read_flags_archive_and_trash(episode):
    spam = ok(episode, "mail_list_messages", {"folder": "inbox", "subject": "lounger samples"})["rows"][0]
    assert ok(episode, "mail_mark_message", {"message_id": spam["id"]})["read"] is True
    assert ok(episode, "mail_mark_message", {"message_id": spam["id"], "read": False})["read"] is False
    assert ok(episode, "mail_archive_message", {"message_id": spam["id"]})["folder"] == "archive"
    refused(episode, "mail_archive_message", {"message_id": spam["id"]}, 409, "already_archived")
    assert ok(episode, "mail_trash_message", {"message_id": spam["id"]})["folder"] == "trash"
    refused(episode, "mail_trash_message", {"message_id": spam["id"]}, 409, "already_in_trash")
    assert ok(episode, "mail_list_messages", {"folder": "trash"})["total"] == 2
