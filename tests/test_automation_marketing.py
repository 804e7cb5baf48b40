"""The automation world's marketing app: mailing lists, subscribers and email campaigns."""

from __future__ import annotations

from support import episode_fixture, ok, refused

from simtenant.episode import Episode

ACTOR = "jade.kim@lumenpine.example"

episode = episode_fixture("mkt", "automation", "marketing-tools", ACTOR)


def test_lists_and_subscribers(episode: Episode) -> None:
    lists = ok(episode, "mkt_list_lists", {})
    assert [r["name"] for r in lists["rows"]][:3] == ["Newsletter", "Trade customers", "Webinar Sept 2026"]
    trade = ok(episode, "mkt_get_list", {"list_id": "LIST-02"})
    assert trade["counts"] == {"subscribed": 8, "unsubscribed": 1, "bounced": 1}
    refused(episode, "mkt_get_list", {"list_id": "LIST-99"}, 404, "not_found")
    olivia = ok(episode, "mkt_list_subscribers", {"query": "olivia@"})
    assert [r["list_id"] for r in olivia["rows"]] == ["LIST-02", "LIST-03"]
    bounced = ok(episode, "mkt_list_subscribers", {"list_id": "LIST-01", "status": "bounced"})
    assert [r["email"] for r in bounced["rows"]] == ["felix.braun@inbox.example", "olga.ivanova@mailbox.example"]


def test_subscriber_changes(episode: Episode) -> None:
    refused(
        episode,
        "mkt_add_subscriber",
        {"list_id": "LIST-02", "email": "Sam@Harborview.example"},
        409,
        "duplicate_subscriber",
    )
    refused(episode, "mkt_add_subscriber", {"list_id": "LIST-02", "email": "not-an-email"}, 400, "invalid_arguments")
    added = ok(
        episode,
        "mkt_add_subscriber",
        {"list_id": "LIST-03", "email": "Karen@Harborview.example", "name": "Karen Ito", "source": "crm"},
    )
    assert (added["id"], added["email"], added["status"], added["subscribed_at"]) == (
        "SUB-0039",
        "karen@harborview.example",
        "subscribed",
        "2026-09-14T09:00:00Z",
    )
    out = ok(episode, "mkt_update_subscriber", {"subscriber_id": "SUB-0002", "status": "unsubscribed"})
    assert (out["status"], out["unsubscribed_at"]) == ("unsubscribed", "2026-09-14T09:00:00Z")
    back = ok(episode, "mkt_update_subscriber", {"subscriber_id": "SUB-0004", "status": "subscribed"})
    assert (back["status"], back["unsubscribed_at"]) == ("subscribed", None)
    refused(
        episode, "mkt_update_subscriber", {"subscriber_id": "SUB-0006", "status": "subscribed"}, 409, "bounced_address"
    )
    refused(
        episode, "mkt_update_subscriber", {"subscriber_id": "SUB-0006", "status": "bounced"}, 400, "invalid_arguments"
    )
    removed = ok(episode, "mkt_remove_subscriber", {"subscriber_id": "SUB-0011"})
    assert removed["removed"]["email"] == "sara.lind@mailbox.example"
    refused(episode, "mkt_remove_subscriber", {"subscriber_id": "SUB-0011"}, 404, "not_found")


def test_campaigns(episode: Episode) -> None:
    drafts = ok(episode, "mkt_list_campaigns", {"status": "draft"})
    assert [r["id"] for r in drafts["rows"]] == ["CMP-006", "CMP-005"]
    assert "body" not in drafts["rows"][0]
    reminder = ok(episode, "mkt_get_campaign", {"campaign_id": "CMP-005"})
    assert reminder["list_name"] == "Webinar Sept 2026" and reminder["body"]
    refused(
        episode,
        "mkt_schedule_campaign",
        {"campaign_id": "CMP-006", "scheduled_for": "2026-09-20T15:00:00Z"},
        409,
        "incomplete",
    )
    refused(
        episode,
        "mkt_schedule_campaign",
        {"campaign_id": "CMP-005", "scheduled_for": "2026-09-13T15:00:00Z"},
        400,
        "time_in_past",
    )
    refused(episode, "mkt_update_campaign", {"campaign_id": "CMP-004", "subject": "New"}, 409, "not_draft")
    updated = ok(episode, "mkt_update_campaign", {"campaign_id": "CMP-006", "body": "Fall is here: care guide inside."})
    assert updated["updated_at"] == "2026-09-14T09:00:00Z"
    scheduled = ok(episode, "mkt_schedule_campaign", {"campaign_id": "CMP-006", "scheduled_for": "2026-09-20T15:00Z"})
    assert (scheduled["status"], scheduled["scheduled_for"]) == ("scheduled", "2026-09-20T15:00:00Z")
    made = ok(episode, "mkt_create_campaign", {"name": "Trade follow-up", "list_id": "LIST-02", "subject": "Thanks"})
    assert (made["id"], made["status"], made["created_by"], made["body"]) == ("CMP-007", "draft", ACTOR, None)
    refused(episode, "mkt_create_campaign", {"name": "x", "list_id": "LIST-09"}, 404, "not_found")
    cancelled = ok(episode, "mkt_cancel_campaign", {"campaign_id": "CMP-004"})
    assert cancelled["status"] == "cancelled"
    refused(episode, "mkt_cancel_campaign", {"campaign_id": "CMP-001"}, 409, "not_cancellable")
    refused(episode, "mkt_cancel_campaign", {"campaign_id": "CMP-004"}, 409, "not_cancellable")
    assert ok(episode, "mkt_list_campaigns", {})["total"] == 7
