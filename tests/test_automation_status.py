"""The automation world's status page: components and their state, incidents with their public timeline
(resolving restores the components), maintenance windows from scheduled to completed or cancelled, and
the subscribers each notice is sent to."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

ACTOR = "grace.liu@lumenpine.example"

episode = episode_fixture("status", "automation", "status-tools", ACTOR)


def states(episode) -> dict[str, str]:
    return dict(rows(episode.path, "SELECT id, status FROM status_components ORDER BY id"))


def written(episode) -> tuple:
    return rows(
        episode.path,
        "SELECT (SELECT count(*) FROM status_incidents), (SELECT count(*) FROM status_incident_updates), "
        "(SELECT count(*) FROM status_maintenances), (SELECT count(*) FROM status_subscribers)",
    )[0]


def test_components_hide_the_archived_look_alike(episode):
    shown = ok(episode, "status_list_components", {"query": "portal"})
    assert [(c["id"], c["name"]) for c in shown["rows"]] == [("COMP-02", "Trade Portal")]
    every = ok(episode, "status_list_components", {"query": "portal", "include_archived": True})
    assert [(c["id"], c["archived"]) for c in every["rows"]] == [("COMP-02", False), ("COMP-07", True)]
    refused(
        episode,
        "status_update_component",
        {"component_id": "COMP-07", "status": "major_outage"},
        409,
        "component_archived",
    )
    degraded = ok(episode, "status_update_component", {"component_id": "COMP-06", "status": "degraded_performance"})
    assert (degraded["status"], degraded["updated_at"]) == ("degraded_performance", "2026-09-14T09:00:00Z")
    refused(
        episode,
        "status_update_component",
        {"component_id": "COMP-06", "name": "Online store"},
        409,
        "duplicate_component",
    )
    added = ok(
        episode, "status_create_component", {"name": "Showroom booking", "description": "Book a showroom visit."}
    )
    assert (added["id"], added["position"], added["status"]) == ("COMP-08", 8, "operational")


def test_an_incident_marks_its_components_and_resolving_restores_them(episode):
    before = written(episode)
    refused(
        episode,
        "status_create_incident",
        {"title": "x", "component_ids": ["COMP-07"], "component_status": "major_outage", "message": "m"},
        409,
        "component_archived",
    )
    refused(
        episode,
        "status_create_incident",
        {"title": "x", "component_ids": ["COMP-03"], "component_status": "operational", "message": "m"},
        400,
        "invalid_state",
    )
    assert written(episode) == before
    incident = ok(
        episode,
        "status_create_incident",
        {
            "title": "Order tracking links show no data",
            "component_ids": ["COMP-03"],
            "component_status": "partial_outage",
            "message": "Tracking links show no data. We are investigating.",
        },
    )
    assert (incident["id"], incident["status"], incident["impact"]) == ("INC-0004", "investigating", "minor")
    # Order tracking's active subscribers (Olivia, Noah) and everyone's (Rita, Grace)
    assert [(u["status"], u["notified"]) for u in incident["updates"]] == [("investigating", 4)]
    assert states(episode)["COMP-03"] == "partial_outage"
    second = ok(
        episode,
        "status_create_incident",
        {
            "title": "Carrier feed down",
            "component_ids": ["COMP-03", "COMP-04"],
            "component_status": "major_outage",
            "message": "m",
            "notify": False,
        },
    )
    assert second["updates"][0]["notified"] == 0
    ok(
        episode,
        "status_post_incident_update",
        {
            "incident_id": "INC-0004",
            "status": "identified",
            "message": "Carrier API outage.",
            "component_status": "degraded_performance",
        },
    )
    resolved = ok(
        episode, "status_post_incident_update", {"incident_id": "INC-0005", "status": "resolved", "message": "Fixed."}
    )
    assert (resolved["status"], resolved["resolved_at"]) == ("resolved", "2026-09-14T09:00:00Z")
    # Delivery scheduling is back; Order tracking still has INC-0004 open
    assert (states(episode)["COMP-03"], states(episode)["COMP-04"]) == ("degraded_performance", "operational")
    ok(episode, "status_post_incident_update", {"incident_id": "INC-0004", "status": "resolved", "message": "Fixed."})
    assert states(episode)["COMP-03"] == "operational"
    refused(
        episode,
        "status_post_incident_update",
        {"incident_id": "INC-0004", "status": "monitoring", "message": "again"},
        409,
        "incident_resolved",
    )
    timeline = ok(episode, "status_get_incident", {"incident_id": "INC-0004"})
    assert [u["status"] for u in timeline["updates"]] == ["investigating", "identified", "resolved"]
    ongoing = ok(episode, "status_list_incidents", {"open_only": True})
    assert ongoing["total"] == 0
    history = ok(episode, "status_list_incidents", {"component_id": "COMP-03"})
    assert [i["id"] for i in history["rows"]] == ["INC-0005", "INC-0004", "INC-0002"]


def test_an_incident_grows_to_more_components(episode):
    ok(
        episode,
        "status_create_incident",
        {
            "title": "Trade Portal login errors",
            "component_ids": ["COMP-02"],
            "component_status": "partial_outage",
            "message": "m",
            "impact": "major",
        },
    )
    changed = ok(
        episode,
        "status_update_incident",
        {"incident_id": "INC-0004", "add_component_ids": ["COMP-04"], "impact": "critical"},
    )
    assert [c["id"] for c in changed["components"]] == ["COMP-02", "COMP-04"] and changed["impact"] == "critical"
    assert states(episode)["COMP-04"] == "partial_outage"
    refused(
        episode,
        "status_update_incident",
        {"incident_id": "INC-0004", "add_component_ids": ["COMP-02"]},
        409,
        "already_affected",
    )
    refused(episode, "status_update_incident", {"incident_id": "INC-0004"}, 400, "missing_field")
    refused(episode, "status_update_incident", {"incident_id": "INC-0001", "title": "x"}, 409, "incident_resolved")


def test_maintenance_windows_from_scheduled_to_completed_or_cancelled(episode):
    before = written(episode)
    window = {
        "title": "Trade Portal database upgrade",
        "description": "The Trade Portal and delivery scheduling are unavailable.",
        "component_ids": ["COMP-02", "COMP-04"],
        "starts_at": "2026-09-26T06:00:00Z",
        "ends_at": "2026-09-26T08:00:00Z",
    }
    refused(episode, "status_schedule_maintenance", {**window, "starts_at": "2026-09-10T06:00:00Z"}, 400, "in_the_past")
    refused(episode, "status_schedule_maintenance", {**window, "ends_at": "2026-09-26T05:00:00Z"}, 400, "invalid_range")
    refused(
        episode,
        "status_schedule_maintenance",
        {**window, "component_ids": ["COMP-02", "COMP-02"]},
        400,
        "duplicate_component",
    )
    assert written(episode) == before
    planned = ok(episode, "status_schedule_maintenance", window)
    # Trade Portal: Karen, Paul, Elle, Karen Ito-Lang; every component: Rita, Grace
    assert (planned["id"], planned["status"], planned["notified"]) == ("MNT-0004", "scheduled", 6)
    moved = ok(
        episode,
        "status_update_maintenance",
        {"maintenance_id": "MNT-0004", "starts_at": "2026-09-26T07:00:00Z", "ends_at": "2026-09-26T09:00:00Z"},
    )
    assert (moved["starts_at"], moved["ends_at"]) == ("2026-09-26T07:00:00Z", "2026-09-26T09:00:00Z")
    refused(
        episode,
        "status_update_maintenance",
        {"maintenance_id": "MNT-0004", "ends_at": "2026-09-26T06:00:00Z"},
        400,
        "invalid_range",
    )
    ok(episode, "status_start_maintenance", {"maintenance_id": "MNT-0004"})
    assert states(episode)["COMP-02"] == "under_maintenance"
    refused(episode, "status_cancel_maintenance", {"maintenance_id": "MNT-0004", "reason": "x"}, 409, "wrong_state")
    ok(episode, "status_complete_maintenance", {"maintenance_id": "MNT-0004"})
    assert (states(episode)["COMP-02"], states(episode)["COMP-04"]) == ("operational", "operational")
    store = ok(episode, "status_list_maintenances", {"component_id": "COMP-01"})
    assert [(w["id"], w["status"]) for w in store["rows"]] == [("MNT-0002", "cancelled"), ("MNT-0003", "scheduled")]
    cancelled = ok(episode, "status_cancel_maintenance", {"maintenance_id": "MNT-0003", "reason": "Vendor delay"})
    assert (cancelled["status"], cancelled["cancel_reason"]) == ("cancelled", "Vendor delay")
    refused(episode, "status_update_maintenance", {"maintenance_id": "MNT-0002", "title": "x"}, 409, "wrong_state")
    on_day = ok(
        episode, "status_list_maintenances", {"after": "2026-09-24T00:00:00Z", "before": "2026-09-25T00:00:00Z"}
    )
    assert [w["id"] for w in on_day["rows"]] == ["MNT-0003"]


def test_subscribers_once_per_component_and_unsubscribing(episode):
    before = written(episode)
    refused(episode, "status_add_subscriber", {"email": "Rita@greenleaf.example"}, 409, "already_subscribed")
    refused(
        episode,
        "status_add_subscriber",
        {"email": "karen@harborview.example", "component_id": "COMP-02"},
        409,
        "already_subscribed",
    )
    refused(
        episode, "status_add_subscriber", {"email": "a@b.example", "component_id": "COMP-07"}, 409, "component_archived"
    )
    assert written(episode) == before
    added = ok(
        episode,
        "status_add_subscriber",
        {"email": "Elle@SummitResorts.example", "name": "Elle Park", "component_id": "COMP-03"},
    )
    assert (added["id"], added["email"], added["component_id"]) == ("SBR-0013", "elle@summitresorts.example", "COMP-03")
    removed = ok(episode, "status_remove_subscriber", {"subscriber_id": "SBR-0004"})
    assert (removed["status"], removed["unsubscribed_at"]) == ("unsubscribed", "2026-09-14T09:00:00Z")
    refused(episode, "status_remove_subscriber", {"subscriber_id": "SBR-0006"}, 409, "already_unsubscribed")
    refused(episode, "status_remove_subscriber", {"subscriber_id": "SBR-9999"}, 404, "not_found")
    again = ok(episode, "status_add_subscriber", {"email": "mia@coastline.example", "component_id": "COMP-01"})
    assert again["id"] == "SBR-0014"  # an unsubscribed address may subscribe again
    tracking = ok(episode, "status_list_subscribers", {"component_id": "COMP-03", "status": "active"})
    assert [s["email"] for s in tracking["rows"]] == [
        "olivia@baysideliving.example",
        "noah.evans@lumenpine.example",
        "elle@summitresorts.example",
    ]
    everyone = ok(episode, "status_list_subscribers", {"every_component_only": True})
    assert [(s["email"], s["status"]) for s in everyone["rows"]] == [
        ("rita@greenleaf.example", "active"),
        ("ivan@northwindpatio.example", "unsubscribed"),
        ("grace.liu@lumenpine.example", "active"),
    ]
