"""The automation world's chat: channels, private membership, posts, threads, DMs and edits."""

from __future__ import annotations

from functools import partial

import support
from support import episode_fixture

ACTOR = "priya.shah@lumenpine.example"
LEADER = "dana.reyes@lumenpine.example"

episode = episode_fixture("chat", "automation", "chat-tools", ACTOR)
ok = partial(support.ok, actor=ACTOR)
refused = partial(support.refused, actor=ACTOR)


def test_channels_and_the_private_one(episode):
    names = [c["name"] for c in ok(episode, "chat_list_channels")["rows"]]
    assert names == ["general", "marketing", "ops", "sales", "support"]
    assert [c["name"] for c in ok(episode, "chat_list_channels", actor=LEADER)["rows"]] == [
        "general",
        "leadership",
        "marketing",
        "ops",
        "sales",
        "support",
    ]
    assert "dm-marcus.webb--priya.shah" in [
        c["name"] for c in ok(episode, "chat_list_channels", {"include_direct": True})["rows"]
    ]
    sales = ok(episode, "chat_get_channel", {"channel_name": "#sales"})
    assert ACTOR in sales["members"] and sales["is_private"] is False
    refused(episode, "chat_get_channel", {"channel_name": "leadership"}, 403, "not_a_member")
    refused(episode, "chat_post_message", {"channel_name": "leadership", "text": "hi"}, 403, "not_a_member")
    refused(episode, "chat_get_channel", {"channel_name": "random"}, 404, "not_found")
    assert ok(episode, "chat_search_messages", {"query": "salary"})["total"] == 0
    assert ok(episode, "chat_search_messages", {"query": "salary"}, actor=LEADER)["total"] == 1


def test_post_reply_and_edit(episode):
    post = ok(
        episode, "chat_post_message", {"channel_name": "sales", "text": "Won: Harborview pool loungers, $48,600!"}
    )
    assert (post["channel_id"], post["author_email"], post["posted_at"], post["parent_id"]) == (
        "CH-002",
        ACTOR,
        "2026-09-14T09:00:00Z",
        None,
    )
    reply = ok(episode, "chat_reply_in_thread", {"message_id": post["id"], "text": "Congrats!"}, actor=LEADER)
    nested = ok(episode, "chat_reply_in_thread", {"message_id": reply["id"], "text": "Thanks!"})
    assert reply["parent_id"] == nested["parent_id"] == post["id"]
    thread = ok(episode, "chat_list_messages", {"channel_name": "sales", "thread_id": post["id"]})
    assert [m["id"] for m in thread["rows"]] == [post["id"], reply["id"], nested["id"]]
    edited = ok(
        episode, "chat_edit_message", {"message_id": post["id"], "text": "Won: Harborview pool loungers, $51,000!"}
    )
    assert (edited["text"], edited["edited_at"]) == ("Won: Harborview pool loungers, $51,000!", "2026-09-14T09:00:00Z")
    refused(episode, "chat_edit_message", {"message_id": reply["id"], "text": "hijack"}, 403, "not_author")
    refused(episode, "chat_post_message", {"channel_name": "sales", "text": "   "}, 400, "invalid_arguments")
    refused(episode, "chat_reply_in_thread", {"message_id": "CM-00033", "text": "peek"}, 404, "not_found")
    found = ok(episode, "chat_search_messages", {"query": "harborview", "channel_name": "sales"})
    assert found["rows"][0]["id"] == post["id"]


def test_create_channel_members_and_direct_messages(episode):
    channel = ok(
        episode,
        "chat_create_channel",
        {
            "name": "harborview-rollout",
            "topic": "Delivery of the pool loungers",
            "members": ["sofia.rossi@lumenpine.example"],
        },
    )
    assert channel["members"] == [ACTOR, "sofia.rossi@lumenpine.example"] and channel["id"] == "CH-008"
    refused(episode, "chat_create_channel", {"name": "sales"}, 409, "duplicate_channel")
    refused(episode, "chat_create_channel", {"name": "Bad Name"}, 400, "invalid_arguments")
    member = ok(
        episode, "chat_add_member", {"channel_name": "harborview-rollout", "email": "ben.carter@lumenpine.example"}
    )
    assert member == {
        "channel_id": "CH-008",
        "member_email": "ben.carter@lumenpine.example",
        "joined_at": "2026-09-14T09:00:00Z",
    }
    refused(
        episode,
        "chat_add_member",
        {"channel_name": "harborview-rollout", "email": "ben.carter@lumenpine.example"},
        409,
        "already_member",
    )
    refused(
        episode,
        "chat_add_member",
        {"channel_name": "sales", "email": "karen@harborview.example"},
        400,
        "not_a_colleague",
    )
    dm = ok(episode, "chat_send_direct_message", {"email": "tom.becker@lumenpine.example", "text": "Got a minute?"})
    assert dm["channel_name"] == "dm-priya.shah--tom.becker"
    again = ok(
        episode,
        "chat_send_direct_message",
        {"email": "priya.shah@lumenpine.example", "text": "Sure"},
        actor="tom.becker@lumenpine.example",
    )
    assert again["channel_id"] == dm["channel_id"]
    refused(episode, "chat_send_direct_message", {"email": ACTOR, "text": "me"}, 400, "self_message")
    refused(
        episode, "chat_get_channel", {"channel_name": "dm-priya.shah--tom.becker"}, 403, "not_a_member", actor=LEADER
    )
