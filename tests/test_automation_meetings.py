"""The automation world's video meetings: calls with hosts and participants, recordings (shared, held,
deleted), transcripts (confidential ones for participants only) and follow-ups."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

MARCUS = "marcus.webb@lumenpine.example"
CHLOE = "chloe.dubois@lumenpine.example"
RAFAEL = "rafael.ortiz@lumenpine.example"

episode = episode_fixture("meetings", "automation", "meetings-tools", MARCUS)


def recording_row(recording_id):
    return lambda e: rows(e.path, "SELECT * FROM mtg_recordings WHERE id = ?", recording_id)


def meeting_rows(e):
    return (
        rows(e.path, "SELECT * FROM mtg_meetings ORDER BY id"),
        rows(e.path, "SELECT * FROM mtg_participants ORDER BY id"),
        rows(e.path, "SELECT * FROM mtg_follow_ups ORDER BY id"),
    )


def test_calls_named_alike_are_told_apart_by_date_status_and_agenda(episode):
    found = ok(episode, "mtg_list_video_calls", {"query": "summit"})
    assert [(r["id"], r["status"]) for r in found["rows"]] == [
        ("MTG-0005", "ended"),
        ("MTG-0004", "ended"),
        ("MTG-0003", "cancelled"),
    ]
    trainings = ok(
        episode, "mtg_list_video_calls", {"query": "assembly training", "start_from": "2026-09-01T00:00:00Z"}
    )
    assert [r["id"] for r in trainings["rows"]] == ["MTG-0011"]
    hosted = ok(
        episode,
        "mtg_list_video_calls",
        {"participant": "mia@coastline.example", "host_email": "Victor.Alvarez@lumenpine.example"},
    )
    assert [r["id"] for r in hosted["rows"]] == ["MTG-0014", "MTG-0015"]
    call = ok(episode, "mtg_get_video_call", {"call_id": "MTG-0005"})
    assert [(p["email"], p["role"]) for p in call["participants"]][:2] == [
        (MARCUS, "host"),
        ("tom.becker@lumenpine.example", "co_host"),
    ]
    assert call["has_transcript"] and [r["id"] for r in call["recordings"]] == ["REC-0004"]
    refused(episode, "mtg_get_video_call", {"call_id": "MTG-9999"}, 404, "not_found")


def test_schedule_reschedule_invite_and_cancel_as_host(episode):
    call = ok(
        episode,
        "mtg_schedule_video_call",
        {
            "title": "Summit Resorts - contract review",
            "start_at": "2026-09-21T15:00:00Z",
            "duration_minutes": 45,
            "participants": ["Jonas@summitresorts.example", MARCUS, "jonas@summitresorts.example"],
            "agenda": "  ",
        },
    )
    assert (call["id"], call["host_email"], call["join_url"], call["agenda"], call["status"]) == (
        "MTG-0020",
        MARCUS,
        "https://meet.lumenpine.example/j/mtg-0020",
        None,
        "scheduled",
    )
    assert [(p["email"], p["role"]) for p in call["participants"]] == [
        (MARCUS, "host"),
        ("jonas@summitresorts.example", "attendee"),
    ]
    refused(episode, "mtg_schedule_video_call", {"title": "x", "start_at": "2026-09-14T08:00:00Z"}, 400, "past_start")
    refused(
        episode,
        "mtg_schedule_video_call",
        {"title": "x", "start_at": "2026-09-20T08:00:00Z", "calendar_event_id": "EVT-9999"},
        404,
        "not_found",
    )
    moved = ok(episode, "mtg_update_video_call", {"call_id": "MTG-0020", "start_at": "2026-09-22T15:00:00Z"})
    assert (moved["changed"], moved["start_at"], moved["join_url"]) == (
        ["start_at"],
        "2026-09-22T15:00:00Z",
        call["join_url"],
    )
    added = ok(
        episode,
        "mtg_add_participants",
        {"call_id": "MTG-0020", "emails": ["elle@summitresorts.example"], "role": "co_host"},
    )
    assert added["participants"][-1] == {
        "email": "elle@summitresorts.example",
        "role": "co_host",
        "joined_at": None,
        "minutes_attended": None,
    }
    refused(
        episode,
        "mtg_add_participants",
        {"call_id": "MTG-0020", "emails": ["ELLE@summitresorts.example", "x@y.example"]},
        409,
        "already_invited",
        meeting_rows,
    )
    refused(episode, "mtg_remove_participant", {"call_id": "MTG-0020", "email": MARCUS}, 400, "is_host")
    refused(episode, "mtg_remove_participant", {"call_id": "MTG-0020", "email": "x@y.example"}, 404, "not_invited")
    ok(episode, "mtg_remove_participant", {"call_id": "MTG-0020", "email": "jonas@summitresorts.example"})
    cancelled = ok(episode, "mtg_cancel_video_call", {"call_id": "MTG-0020", "reason": "Moved to the site visit."})
    assert (cancelled["status"], cancelled["cancel_reason"]) == ("cancelled", "Moved to the site visit.")
    refused(episode, "mtg_update_video_call", {"call_id": "MTG-0020", "title": "y"}, 409, "meeting_cancelled")
    refused(episode, "mtg_update_video_call", {"call_id": "MTG-0005", "title": "y"}, 409, "meeting_ended")


def test_only_the_host_or_a_co_host_changes_a_call(episode):
    # Rafael hosts the Redwood review; Marcus is not in it, Hannah is an attendee
    refused(
        episode, "mtg_update_video_call", {"call_id": "MTG-0016", "duration_minutes": 90}, 403, "not_host", meeting_rows
    )
    refused(
        episode,
        "mtg_cancel_video_call",
        {"call_id": "MTG-0016"},
        403,
        "not_host",
        meeting_rows,
        actor="hannah.moore@lumenpine.example",
    )
    # a co-host may change the all-hands but only its host may cancel it
    assert (
        ok(episode, "mtg_update_video_call", {"call_id": "MTG-0007", "duration_minutes": 75}, actor=CHLOE)[
            "duration_minutes"
        ]
        == 75
    )
    refused(episode, "mtg_cancel_video_call", {"call_id": "MTG-0007"}, 403, "not_host", meeting_rows)
    refused(episode, "mtg_update_video_call", {"call_id": "MTG-0016"}, 403, "not_host")


def test_recordings_shared_by_link_kept_on_legal_hold_and_deleted(episode):
    episode.actor = "noah.evans@lumenpine.example"
    listed = ok(episode, "mtg_list_recordings", {"query": "bistro set assembly"})
    assert [(r["id"], r["status"]) for r in listed["rows"]] == [("REC-0010", "available")]
    every = ok(episode, "mtg_list_recordings", {"query": "bistro set assembly", "include_deleted": True})
    assert [r["id"] for r in every["rows"]] == ["REC-0010", "REC-0011"]
    shared = ok(episode, "mtg_share_recording", {"recording_id": "REC-0010", "scope": "link"})
    assert shared["share_url"].startswith("https://meet.lumenpine.example/rec/") and shared["changed"]
    again = ok(episode, "mtg_share_recording", {"recording_id": "REC-0010", "scope": "link"})
    assert (again["share_url"], again["changed"]) == (shared["share_url"], False)
    assert ok(episode, "mtg_get_recording", {"recording_id": "REC-0010"})["share_url"] == shared["share_url"]
    refused(episode, "mtg_share_recording", {"recording_id": "REC-0011", "scope": "link"}, 409, "recording_deleted")
    refused(
        episode,
        "mtg_share_recording",
        {"recording_id": "REC-0007", "scope": "private"},
        403,
        "not_host",
        recording_row("REC-0007"),
    )
    # the near-miss review is on legal hold: made private, never deleted
    episode.actor = CHLOE
    refused(episode, "mtg_delete_recording", {"recording_id": "REC-0007"}, 403, "legal_hold", recording_row("REC-0007"))
    private = ok(episode, "mtg_share_recording", {"recording_id": "REC-0007", "scope": "private"})
    assert (private["share_scope"], private["status"]) == ("private", "available")
    refused(
        episode,
        "mtg_delete_recording",
        {"recording_id": "REC-0008"},
        403,
        "not_host",
        recording_row("REC-0008"),
        actor=RAFAEL,
    )
    # a confidential call's recording is never shared by link; its host may delete one not on hold
    episode.actor = "dana.reyes@lumenpine.example"
    refused(
        episode,
        "mtg_share_recording",
        {"recording_id": "REC-0006", "scope": "link"},
        403,
        "confidential_meeting",
        recording_row("REC-0006"),
    )
    assert ok(episode, "mtg_share_recording", {"recording_id": "REC-0006", "scope": "company"})["share_url"] is None
    deleted = ok(episode, "mtg_delete_recording", {"recording_id": "REC-0005"})
    assert (deleted["status"], deleted["deleted_at"], deleted["share_scope"]) == (
        "deleted",
        "2026-09-14T09:00:00Z",
        "private",
    )
    refused(episode, "mtg_delete_recording", {"recording_id": "REC-0005"}, 409, "recording_deleted")


def test_transcripts_read_and_searched_confidential_ones_by_participants_only(episode):
    transcript = ok(episode, "mtg_get_transcript", {"call_id": "MTG-0005"})
    assert "$82,500" in transcript["content"] and transcript["title"].startswith("Summit Resorts")
    found = ok(episode, "mtg_search_transcripts", {"query": "79,000"})
    assert [r["meeting_id"] for r in found["rows"]] == ["MTG-0004"]
    assert found["rows"][0]["lines"] == [
        "[14:05] Marcus Webb: We can go down to $79,000 and still keep our margin. Let's not say that number out loud."
    ]
    assert ok(episode, "mtg_search_transcripts", {"query": "Harbor St lease"})["total"] == 1  # Marcus was there
    episode.actor = "lena.fischer@lumenpine.example"
    assert ok(episode, "mtg_search_transcripts", {"query": "Harbor St lease"})["total"] == 0
    refused(episode, "mtg_get_transcript", {"call_id": "MTG-0008"}, 403, "not_a_participant")
    refused(episode, "mtg_get_recording", {"recording_id": "REC-0006"}, 403, "not_a_participant")
    refused(episode, "mtg_get_transcript", {"call_id": "MTG-0003"}, 404, "no_transcript")


def test_follow_ups_owned_by_participants_or_colleagues(episode):
    made = ok(
        episode,
        "mtg_create_follow_up",
        {
            "call_id": "MTG-0005",
            "description": "Send our loading dock schedule",
            "owner_email": "Elle@summitresorts.example",
            "due_date": "2026-09-15",
        },
    )
    assert (made["id"], made["owner_email"], made["status"], made["created_by"]) == (
        "FU-0008",
        "elle@summitresorts.example",
        "open",
        MARCUS,
    )
    colleague = ok(
        episode,
        "mtg_create_follow_up",
        {"call_id": "MTG-0005", "description": "Book the van", "owner_email": "ben.carter@lumenpine.example"},
    )
    assert colleague["due_date"] is None
    for args, code, error in [
        ({"owner_email": "tom.baker@lumenpine.example"}, 400, "owner_not_eligible"),  # a former employee
        ({"owner_email": "karen@harborview.example"}, 400, "owner_not_eligible"),  # not in this call
        ({"owner_email": MARCUS, "due_date": "2026-09-13"}, 400, "past_due_date"),
        ({"owner_email": MARCUS, "due_date": "2026-02-30"}, 400, "invalid_value"),
    ]:
        refused(
            episode,
            "mtg_create_follow_up",
            {"call_id": "MTG-0005", "description": "x", **args},
            code,
            error,
            meeting_rows,
        )
    refused(
        episode,
        "mtg_create_follow_up",
        {"call_id": "MTG-0003", "description": "x", "owner_email": MARCUS},
        409,
        "meeting_cancelled",
    )
    done = ok(episode, "mtg_update_follow_up", {"follow_up_id": made["id"], "status": "done"})
    assert (done["changed"], done["completed_at"]) == (["status"], "2026-09-14T09:00:00Z")
    reopened = ok(
        episode,
        "mtg_update_follow_up",
        {"follow_up_id": made["id"], "status": "open", "owner_email": "jonas@summitresorts.example"},
    )
    assert (reopened["owner_email"], reopened["completed_at"]) == ("jonas@summitresorts.example", None)
    refused(episode, "mtg_update_follow_up", {"follow_up_id": made["id"]}, 400, "missing_field")
    listed = ok(episode, "mtg_list_follow_ups", {"call_id": "MTG-0005"})
    assert [r["id"] for r in listed["rows"]] == ["FU-0008", "FU-0009"]  # dated first, undated last
    overdue = ok(episode, "mtg_list_follow_ups", {"status": "open", "due_before": "2026-09-13"})
    assert [(r["id"], r["meeting_title"]) for r in overdue["rows"]] == [
        ("FU-0007", "Bayside Living - cushion fabric review")
    ]
