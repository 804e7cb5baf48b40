"""ITSM service tools: services and offerings, the catalog, catalog requests and their approval
flow; notifications."""

from __future__ import annotations

from test_itsm_identity import (  # the shared itsm test helpers
    AGENT,
    FORMER,
    MANAGER,
    NOW,
    REPORTER,
    audits,
    execute,
    ok,
    play,
    refused,
    rows,
)

__all__ = ["play"]  # a fixture, used by name


def item(episode, needs_approval: bool) -> str:
    """An active catalog item that does (or does not) need approval."""
    found = rows(
        episode,
        "SELECT id FROM catalog_items WHERE active = 1 AND needs_approval = ? ORDER BY id LIMIT 1",
        int(needs_approval),
    )
    assert found, "the seed has no such catalog item"
    return found[0][0]


# --- services -----------------------------------------------------------------------------------------


def test_services_and_offerings(play):
    episode = play(REPORTER)
    services = ok(episode, "list_services")
    assert {"SVC-001", "SVC-002", "SVC-003", "SVC-004", "SVC-005"} <= {row["id"] for row in services["rows"]}
    vpn = ok(episode, "get_service_by_name", name="vpn")
    assert vpn["id"] == "SVC-002" and vpn["offerings"]
    offerings = ok(episode, "list_service_offerings", service_id="SVC-002")["rows"]
    assert {o["id"] for o in offerings} == {o["id"] for o in vpn["offerings"]}
    operational = ok(episode, "list_services", status="operational", per_page=50)["rows"]
    assert all(row["status"] == "operational" for row in operational)


def test_service_status_is_changed_by_those_allowed(play, world_rows):
    episode = play(MANAGER)
    result = ok(episode, "update_service_status", service_id="SVC-002", status="degraded")
    assert result["status"] == "degraded" and result["changed"] == ["status"]
    assert rows(episode, "SELECT status FROM services WHERE id = 'SVC-002'") == [("degraded",)]
    assert audits(episode) == [(MANAGER, "update_service_status", "update", "services", "SVC-002", '["status"]')]
    refused(episode, world_rows, "update_service_status", 400, "invalid_arguments", service_id="SVC-002", status="down")
    refused(episode, world_rows, "update_service_status", 404, "not_found", service_id="SVC-999", status="outage")
    refused(play(AGENT), world_rows, "update_service_status", 403, "forbidden", service_id="SVC-002", status="outage")


def test_the_catalog(play):
    episode = play(REPORTER)
    items = ok(episode, "list_catalog_items", per_page=50)["rows"]
    assert items and {i["id"] for i in items} == {r[0] for r in rows(episode, "SELECT id FROM catalog_items")}
    active = ok(episode, "list_catalog_items", active=True, per_page=50)["rows"]
    assert active and all(i["active"] for i in active)
    first = items[0]
    assert ok(episode, "get_catalog_item", item_id=first["id"]) == first
    same = ok(episode, "list_catalog_items", category=first["category"].upper(), per_page=50)["rows"]
    assert first in same and {i["category"] for i in same} == {first["category"]}


# --- requests -----------------------------------------------------------------------------------------


def test_an_item_that_needs_approval_is_approved_by_a_manager_before_fulfilment(play, world_rows):
    episode = play(MANAGER)
    cat = item(episode, True)
    request = ok(episode, "request_catalog_item", item_id=cat, requested_for_id=REPORTER, quantity=2, notes="For Q3")
    rid = request["id"]
    assert request["status"] == "submitted" and request["requested_by_id"] == MANAGER and request["created_at"] == NOW
    refused(episode, world_rows, "fulfil_request", 409, "not_approved", request_id=rid)
    assert ok(episode, "approve_request", request_id=rid, comments="Budget ok")["status"] == "approved"
    refused(episode, world_rows, "approve_request", 409, "illegal_transition", request_id=rid)
    fulfilled = ok(episode, "fulfil_request", request_id=rid, notes="Delivered to desk")
    assert fulfilled["status"] == "fulfilled" and fulfilled["notes"].splitlines() == [
        "For Q3",
        "Approved: Budget ok",
        "Fulfilled: Delivered to desk",
    ]
    refused(episode, world_rows, "cancel_request", 409, "illegal_transition", request_id=rid, reason="Too late")
    assert [(a[1], a[2], a[4]) for a in audits(episode)] == [
        ("request_catalog_item", "create", rid),
        ("approve_request", "update", rid),
        ("fulfil_request", "update", rid),
    ]


def test_an_agent_requests_but_may_not_approve(play, world_rows):
    episode = play(AGENT)
    rid = ok(episode, "request_catalog_item", item_id=item(episode, True), requested_for_id=REPORTER)["id"]
    refused(episode, world_rows, "approve_request", 403, "role_required", request_id=rid)
    refused(episode, world_rows, "reject_request", 403, "role_required", request_id=rid, reason="No budget")
    assert ok(episode, "cancel_request", request_id=rid, reason="Ordered twice")["status"] == "cancelled"
    assert ok(episode, "get_request", request_id=rid)["notes"] == "Cancelled: Ordered twice"


def test_an_item_without_approval_is_fulfilled_directly(play, world_rows):
    episode = play(MANAGER)
    rid = ok(episode, "request_catalog_item", item_id=item(episode, False), requested_for_id=AGENT)["id"]
    refused(episode, world_rows, "approve_request", 409, "approval_not_required", request_id=rid)
    assert ok(episode, "fulfil_request", request_id=rid)["status"] == "fulfilled"


def test_a_manager_rejects_a_request(play, world_rows):
    episode = play(MANAGER)
    rid = ok(episode, "request_catalog_item", item_id=item(episode, True), requested_for_id=AGENT)["id"]
    rejected = ok(episode, "reject_request", request_id=rid, reason="Not in budget")
    assert rejected["status"] == "rejected" and rejected["notes"] == "Rejected: Not in budget"
    refused(episode, world_rows, "fulfil_request", 409, "illegal_transition", request_id=rid)


def test_request_refusals_write_nothing(play, world_rows):
    episode = play(MANAGER)
    execute(episode, "UPDATE catalog_items SET active = 0 WHERE id = ?", item(episode, False))
    inactive = rows(episode, "SELECT id FROM catalog_items WHERE active = 0 ORDER BY id LIMIT 1")[0][0]
    refused(episode, world_rows, "request_catalog_item", 409, "inactive_item", item_id=inactive, requested_for_id=AGENT)
    cat = item(episode, True)
    refused(episode, world_rows, "request_catalog_item", 409, "inactive_user", item_id=cat, requested_for_id=FORMER)
    refused(episode, world_rows, "request_catalog_item", 404, "not_found", item_id=cat, requested_for_id="USR-9999")
    refused(episode, world_rows, "request_catalog_item", 404, "not_found", item_id="CAT-999", requested_for_id=AGENT)
    refused(
        episode,
        world_rows,
        "request_catalog_item",
        400,
        "invalid_arguments",
        item_id=cat,
        requested_for_id=AGENT,
        quantity=0,
    )
    refused(
        play(REPORTER), world_rows, "request_catalog_item", 403, "forbidden", item_id=cat, requested_for_id=REPORTER
    )


def test_requests_are_listed_and_read(play):
    episode = play(MANAGER)
    rid = ok(episode, "request_catalog_item", item_id=item(episode, True), requested_for_id=REPORTER)["id"]
    mine = ok(episode, "list_requests", requested_by_id=MANAGER, per_page=50)["rows"]
    assert rid in {r["id"] for r in mine} and all(r["requested_by_id"] == MANAGER for r in mine)
    submitted = ok(episode, "list_requests", status="submitted", requested_for_id=REPORTER, per_page=50)["rows"]
    assert rid in {r["id"] for r in submitted}
    request = ok(episode, "get_request", request_id=rid)
    assert request["requested_for_id"] == REPORTER and request["item_name"] and request["needs_approval"]
    reader = play(REPORTER)
    seeded = ok(reader, "list_requests", per_page=1)["rows"]
    assert seeded and ok(reader, "get_request", request_id=seeded[0]["id"])["id"] == seeded[0]["id"]


# --- notifications ------------------------------------------------------------------------------------


def test_notifications_are_sent_and_listed(play, world_rows):
    episode = play(AGENT)
    incident = rows(episode, "SELECT id FROM incidents ORDER BY id LIMIT 1")[0][0]
    sent = ok(
        episode,
        "send_notification",
        recipient_id=REPORTER,
        channel="email",
        subject="Your incident",
        body="We are on it.",
        record_table="incidents",
        record_id=incident,
    )
    assert sent["org_id"] == "ORG-ACME" and sent["created_at"] == NOW
    listed = ok(episode, "list_notifications", record_table="incidents", record_id=incident)["rows"]
    assert listed[-1] == sent
    assert [a[:5] for a in audits(episode)] == [
        (AGENT, "send_notification", "create", "notifications", str(sent["id"]))
    ]
    refused(
        episode,
        world_rows,
        "send_notification",
        400,
        "missing_field",
        recipient_id=REPORTER,
        channel="sms",
        subject="Hi",
        body="Hello",
        record_table="incidents",
    )
    refused(
        episode,
        world_rows,
        "send_notification",
        404,
        "not_found",
        recipient_id=REPORTER,
        channel="sms",
        subject="Hi",
        body="Hello",
        record_table="incidents",
        record_id="INC9999999",
    )
    refused(
        episode,
        world_rows,
        "send_notification",
        409,
        "inactive_user",
        recipient_id=FORMER,
        channel="portal",
        subject="Hi",
        body="Hello",
    )
    refused(
        play(REPORTER),
        world_rows,
        "send_notification",
        403,
        "forbidden",
        recipient_id=AGENT,
        channel="portal",
        subject="Hi",
        body="Hello",
    )
    refused(play(REPORTER), world_rows, "list_notifications", 403, "forbidden")


# --- services: created, changed, their offerings moved, retired ---------------------------------------


def test_a_manager_creates_and_changes_a_service(play, world_rows):
    episode = play(MANAGER)
    service = ok(episode, "create_service", name="People Hub", owner_group_id="GRP-003",
                 description="Workday-based HR self-service", criticality="high")  # fmt: skip
    assert service == {
        "id": "SVC-006",
        "org_id": "ORG-ACME",
        "name": "People Hub",
        "owner_group_id": "GRP-003",
        "status": "operational",
        "description": "Workday-based HR self-service",
        "criticality": "high",
    }
    assert audits(episode)[-1][1:5] == ("create_service", "create", "services", "SVC-006")
    assert [s["id"] for s in ok(episode, "list_services", criticality="high")["rows"]] == ["SVC-006"]
    refused(episode, world_rows, "create_service", 409, "duplicate", name="hr portal")
    refused(episode, world_rows, "create_service", 400, "invalid_arguments", name="Old thing", status="retired")
    refused(episode, world_rows, "create_service", 404, "not_found", name="Robots", owner_group_id="GRP-999")
    refused(play(AGENT), world_rows, "create_service", 403, "forbidden", name="Robots")
    changed = ok(episode, "update_service", service_id="SVC-006", criticality="critical", owner_group_id="GRP-001")
    assert (changed["criticality"], changed["owner_group_id"], changed["changed"]) == (
        "critical",
        "GRP-001",
        ["owner_group_id", "criticality"],
    )
    assert audits(episode)[-1][1:6] == (
        "update_service", "update", "services", "SVC-006", '["criticality", "owner_group_id"]'
    )  # fmt: skip
    refused(episode, world_rows, "update_service", 409, "duplicate", service_id="SVC-006", name="VPN")
    refused(episode, world_rows, "update_service", 400, "missing_field", service_id="SVC-006")
    refused(play(AGENT), world_rows, "update_service", 403, "forbidden", service_id="SVC-001", description="x")


def test_a_successor_takes_over_the_offerings_and_the_old_service_is_retired(play, world_rows):
    episode = play(MANAGER)
    # HR Portal's open incident INC0001024 still names it: it cannot be retired yet
    message = refused(episode, world_rows, "update_service_status", 409, "in_use", service_id="SVC-005",
                      status="retired")  # fmt: skip
    assert "INC0001024" in message
    new = ok(episode, "create_service", name="People Hub", owner_group_id="GRP-003")["id"]
    moved = ok(episode, "update_service_offering", offering_id="OFR-010", service_id=new)
    assert (moved["service_id"], moved["changed"], moved["incidents_moved"]) == (new, ["service_id"], ["INC0001024"])
    assert rows(episode, "SELECT service_id, offering_id FROM incidents WHERE id = 'INC0001024'") == [(new, "OFR-010")]
    assert rows(episode, "SELECT service_id FROM incidents WHERE id = 'INC0001010'") == [("SVC-005",)]  # resolved
    assert ok(episode, "update_service_offering", offering_id="OFR-009", service_id=new)["incidents_moved"] == []
    renamed = ok(episode, "update_service_offering", offering_id="OFR-009", name="Leave and absence (Workday)")
    assert renamed["changed"] == ["name"]
    retired = ok(episode, "update_service_status", service_id="SVC-005", status="retired")
    assert retired["status"] == "retired"
    # retiring is final: no status or detail changes, no incidents or offerings recorded against it
    refused(episode, world_rows, "update_service_status", 409, "record_closed", service_id="SVC-005",
            status="operational")  # fmt: skip
    refused(episode, world_rows, "update_service", 409, "record_closed", service_id="SVC-005", description="x")
    refused(episode, world_rows, "update_service_offering", 409, "record_closed", offering_id="OFR-009",
            service_id="SVC-005")  # fmt: skip
    refused(episode, world_rows, "create_incident", 409, "retired_service", caller_id=REPORTER,
            short_description="x", category="software", impact=3, urgency=3, service_id="SVC-005")  # fmt: skip
    refused(episode, world_rows, "update_incident", 409, "retired_service", incident_number="INC0001026",
            service_id="SVC-005", offering_id="OFR-009")  # fmt: skip
    refused(episode, world_rows, "update_service_offering", 400, "missing_field", offering_id="OFR-009")
    refused(play(AGENT), world_rows, "update_service_offering", 403, "forbidden", offering_id="OFR-001", name="x")
    assert [(a[1], a[3], a[4]) for a in audits(episode)] == [
        ("create_service", "services", new),
        ("update_service_offering", "incidents", "INC0001024"),
        ("update_service_offering", "service_offerings", "OFR-010"),
        ("update_service_offering", "service_offerings", "OFR-009"),
        ("update_service_offering", "service_offerings", "OFR-009"),
        ("update_service_status", "services", "SVC-005"),
    ]


def test_a_service_named_by_an_active_template_is_not_retired(play, world_rows):
    episode = play(MANAGER)
    ok(episode, "update_incident_template", template_id="TPL-001", service_id="SVC-004")
    execute(episode, "UPDATE incidents SET status = 'resolved' WHERE service_id = 'SVC-004'")
    message = refused(episode, world_rows, "update_service_status", 409, "in_use", service_id="SVC-004",
                      status="retired")  # fmt: skip
    assert "TPL-001" in message
    ok(episode, "update_incident_template", template_id="TPL-001", active=False)
    assert ok(episode, "update_service_status", service_id="SVC-004", status="retired")["changed"] == ["status"]
