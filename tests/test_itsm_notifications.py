"""ITSM notifications beyond sending: scheduling one for later, changing or withdrawing it while it is
still scheduled (never once it went out), and the analytics of what went out — per status (read or
not), per record, per recipient — agreeing with SQL over the records the acting user may read."""

from __future__ import annotations

import json

from support import episode_fixture, ok, refused, rows

from simtenant.episode import Episode

MANAGER, AGENT, REPORTER, INACTIVE = "USR-0002", "USR-0003", "USR-0005", "USR-0010"
NOW = "2026-05-18T09:00:00Z"

episode = episode_fixture("notifications", "itsm", "notifications", AGENT, current_time=NOW)


def world(episode: Episode) -> list[tuple]:
    return rows(episode.path, "SELECT * FROM notifications ORDER BY id") + rows(
        episode.path, "SELECT * FROM audit_log ORDER BY id"
    )


def audit_of(episode: Episode, tool: str) -> list[tuple]:
    return rows(
        episode.path,
        "SELECT actor_id, action, record_table, record_id, fields FROM audit_log WHERE tool = ? ORDER BY id",
        tool,
    )


def test_a_notification_is_sent_now_or_scheduled_for_later(episode: Episode) -> None:
    base = {"recipient_id": "USR-0020", "channel": "email", "subject": "VPN fix", "body": "Tonight at 22:00 UTC."}
    sent = ok(episode, "send_notification", base)
    assert (sent["status"], sent["scheduled_for"], sent["read_at"], sent["created_at"]) == ("sent", None, None, NOW)
    later = ok(episode, "send_notification", {**base, "scheduled_for": "2026-05-20T16:00:00Z"})
    assert (later["status"], later["scheduled_for"]) == ("scheduled", "2026-05-20T16:00:00Z")
    assert json.loads(audit_of(episode, "send_notification")[-1][4]) == sorted(
        ["org_id", "recipient_id", "channel", "subject", "body", "created_at", "status", "scheduled_for"]
    )
    for when in ("2026-05-18T08:59:00Z", NOW, "tomorrow", "2026-05-20 16:00"):
        refused(episode, "send_notification", {**base, "scheduled_for": when}, 400, "invalid_value", world)
    assert [n["id"] for n in ok(episode, "list_notifications", {"status": "scheduled"})["rows"]] == [
        15,
        16,
        later["id"],
    ]


def test_a_scheduled_notification_is_changed_before_it_goes_out(episode: Episode) -> None:
    changed = ok(
        episode,
        "update_notification",
        {"notification_id": 15, "scheduled_for": "2026-05-20T20:00:00Z", "channel": "sms",
         "subject": "VPN fix at 22:00"},
    )  # fmt: skip
    assert changed["changed"] == ["channel", "subject", "scheduled_for"]
    assert (changed["status"], changed["recipient_name"]) == ("scheduled", "Siobhan Murphy")
    assert rows(episode.path, "SELECT channel, subject, scheduled_for FROM notifications WHERE id = 15") == [
        ("sms", "VPN fix at 22:00", "2026-05-20T20:00:00Z")
    ]
    assert audit_of(episode, "update_notification") == [
        (AGENT, "update", "notifications", "15", json.dumps(["channel", "scheduled_for", "subject"]))
    ]
    assert ok(episode, "update_notification", {"notification_id": 15, "recipient_id": "USR-0015"})["changed"] == [
        "recipient_id"
    ]
    for args, code, error in [
        ({"notification_id": 5, "subject": "x"}, 409, "already_sent"),  # sent, not read
        ({"notification_id": 1, "subject": "x"}, 409, "already_sent"),  # read
        ({"notification_id": 13, "channel": "email"}, 409, "already_sent"),  # failed: a new one is sent instead
        ({"notification_id": 15}, 400, "missing_field"),
        ({"notification_id": 15, "recipient_id": INACTIVE}, 409, "inactive_user"),
        ({"notification_id": 15, "scheduled_for": "2026-05-17T10:00:00Z"}, 400, "invalid_value"),
        ({"notification_id": 99, "subject": "x"}, 404, "not_found"),
    ]:
        refused(episode, "update_notification", args, code, error, world)
    refused(episode, "update_notification", {"notification_id": 15, "subject": "x"}, 403, "forbidden", world,
            actor=REPORTER)  # fmt: skip


def test_a_scheduled_notification_is_withdrawn_but_one_that_went_out_stays(episode: Episode) -> None:
    deleted = ok(episode, "delete_notification", {"notification_id": 16})
    assert (deleted["id"], deleted["deleted"], deleted["record_id"]) == (16, True, "CHG0000202")
    assert rows(episode.path, "SELECT count(*) FROM notifications WHERE id = 16") == [(0,)]
    (entry,) = audit_of(episode, "delete_notification")
    assert entry[:4] == (AGENT, "delete", "notifications", "16") and "scheduled_for" in json.loads(entry[4])
    for number in (9, 11, 13):  # sent, read, failed
        refused(episode, "delete_notification", {"notification_id": number}, 409, "already_sent", world)
    assert "correction" in episode.call("delete_notification", {"notification_id": 9}).error["message"]
    refused(episode, "delete_notification", {"notification_id": 16}, 404, "not_found", world)
    assert ok(episode, "get_notification", {"notification_id": 13})["status"] == "failed"


def test_analytics_say_what_went_out_to_whom_and_what_was_read(episode: Episode) -> None:
    about = {"record_table": "incidents", "record_id": "INC0001017"}
    by_status = ok(episode, "count_notifications_by_status", about)
    assert by_status == {
        "group_by": "status",
        "counts": [{"key": "failed", "count": 1}, {"key": "read", "count": 2}, {"key": "sent", "count": 1}],
        "total": 4,
    }
    by_recipient = ok(episode, "count_notifications_by_recipient", about)["counts"]
    assert [(r["key"], r["name"], r["read"], r["unread"], r["failed"]) for r in by_recipient] == [
        ("USR-0005", "Sara Ito", 1, 0, 0),
        ("USR-0016", "Henry Adeyemi", 1, 0, 0),
        ("USR-0024", "Hannah Brooks", 0, 1, 0),
        ("USR-0025", "Diego Ramirez", 0, 0, 1),
    ]
    by_record = ok(episode, "count_notifications_by_record", {"record_table": "incidents"})
    counts = {r["key"]: (r["count"], r["read"], r["unread"], r["scheduled"]) for r in by_record["counts"]}
    assert counts == {
        "INC0001001": (1, 1, 0, 0),
        "INC0001007": (2, 2, 0, 0),
        "INC0001008": (1, 1, 0, 0),
        "INC0001013": (2, 0, 1, 1),
        "INC0001017": (4, 2, 1, 0),
    }
    assert (by_record["records"], by_record["average_per_record"]) == (5, 2.0)
    # every count agrees with SQL over the whole table (one organization here)
    everything = ok(episode, "count_notifications_by_status", {})
    assert {r["key"]: r["count"] for r in everything["counts"]} == dict(
        rows(episode.path, "SELECT status, count(*) FROM notifications GROUP BY status")
    )
    unread = ok(episode, "count_notifications_by_recipient", {"status": "sent"})["counts"]
    assert {r["key"]: r["count"] for r in unread} == dict(
        rows(episode.path, "SELECT recipient_id, count(*) FROM notifications WHERE status = 'sent' GROUP BY 1")
    )
    assert ok(episode, "count_notifications_by_record", {"status": "scheduled"})["average_per_record"] == 1.0
    # reporters may not read notifications
    refused(episode, "count_notifications_by_status", {}, 403, "forbidden", actor=REPORTER)
    refused(episode, "count_notifications_by_status", {"org_id": "ORG-NONE"}, 404, "not_found", actor=MANAGER)
