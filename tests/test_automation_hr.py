"""The automation world's HR app: the employee directory, on- and offboarding, and time off."""

from __future__ import annotations

from support import episode_fixture, ok, refused

from simtenant.episode import Episode

ACTOR = "chloe.dubois@lumenpine.example"  # EMP-016, HR manager

episode = episode_fixture("hr", "automation", "hr-tools", ACTOR)


def test_directory(episode: Episode) -> None:
    sales = ok(episode, "hr_list_employees", {"manager_id": "EMP-002", "status": "active"})
    assert [r["id"] for r in sales["rows"]] == ["EMP-003", "EMP-004", "EMP-005"]
    assert ok(episode, "hr_list_employees", {"status": "on_leave"})["rows"][0]["name"] == "Isla Novak"
    assert ok(episode, "hr_list_employees", {})["total"] == 21
    found = ok(episode, "hr_find_employees", {"query": "tom b"})
    assert [(r["id"], r["status"]) for r in found["rows"]] == [("EMP-004", "active"), ("EMP-021", "terminated")]
    rafael = ok(episode, "hr_get_employee", {"employee_id": "EMP-008"})
    assert rafael["manager_name"] == "Dana Reyes"
    assert rafael["direct_report_ids"] == ["EMP-009", "EMP-010", "EMP-011", "EMP-018", "EMP-019"]
    refused(episode, "hr_get_employee", {"employee_id": "EMP-999"}, 404, "not_found")


def test_onboard_update_and_terminate(episode: Episode) -> None:
    hire = {
        "name": "Alex Moreno",
        "email": "alex.moreno@lumenpine.example",
        "department": "Support",
        "title": "Support Specialist",
        "manager_id": "EMP-011",
        "start_date": "2026-09-21",
        "location": "Portland, OR",
    }
    refused(episode, "hr_onboard_employee", {**hire, "email": "jade.kim@lumenpine.example"}, 409, "duplicate_email")
    refused(episode, "hr_onboard_employee", {**hire, "manager_id": "EMP-021"}, 409, "terminated_employee")
    refused(episode, "hr_onboard_employee", {**hire, "department": "Legal"}, 400, "invalid_arguments")
    alex = ok(episode, "hr_onboard_employee", hire)
    assert (alex["id"], alex["status"], alex["manager_name"]) == ("EMP-022", "active", "Grace Liu")
    moved = ok(episode, "hr_update_employee", {"employee_id": "EMP-012", "title": "Senior Support Specialist"})
    assert moved["title"] == "Senior Support Specialist"
    refused(episode, "hr_update_employee", {"employee_id": "EMP-008", "manager_id": "EMP-011"}, 409, "manager_loop")
    refused(episode, "hr_update_employee", {"employee_id": "EMP-012"}, 400, "missing_field")
    refused(episode, "hr_update_employee", {"employee_id": "EMP-021", "title": "x"}, 409, "terminated_employee")
    refused(
        episode, "hr_terminate_employee", {"employee_id": "EMP-011", "reason": "Resigned"}, 409, "has_direct_reports"
    )
    gone = ok(
        episode, "hr_terminate_employee", {"employee_id": "EMP-009", "reason": "Resigned", "end_date": "2026-09-30"}
    )
    assert (gone["status"], gone["end_date"], gone["termination_reason"]) == ("terminated", "2026-09-30", "Resigned")
    withdrawn = ok(episode, "hr_list_time_off", {"employee_id": "EMP-009"})["rows"]
    assert [(r["id"], r["status"]) for r in withdrawn] == [("PTO-0010", "denied")]


def test_time_off(episode: Episode) -> None:
    pending = ok(episode, "hr_list_time_off", {"status": "pending", "manager_id": "EMP-002"})
    assert [r["id"] for r in pending["rows"]] == ["PTO-0011", "PTO-0013"]
    balance = ok(episode, "hr_get_time_off_balance", {"employee_id": "EMP-004"})
    assert balance["vacation"] == {"allowance": 20, "approved": 5, "pending": 9, "remaining": 6}
    refused(
        episode,
        "hr_request_time_off",
        {"employee_id": "EMP-004", "kind": "vacation", "start_date": "2026-11-02", "end_date": "2026-11-13"},
        409,
        "insufficient_balance",
    )
    refused(
        episode,
        "hr_request_time_off",
        {"employee_id": "EMP-004", "kind": "sick", "start_date": "2026-12-30", "end_date": "2026-12-30"},
        409,
        "overlapping_request",
    )
    refused(
        episode,
        "hr_request_time_off",
        {"employee_id": "EMP-004", "kind": "vacation", "start_date": "2026-09-19", "end_date": "2026-09-20"},
        400,
        "no_working_days",
    )
    made = ok(
        episode,
        "hr_request_time_off",
        {
            "employee_id": "EMP-007",
            "kind": "vacation",
            "start_date": "2026-10-19",
            "end_date": "2026-10-23",
            "note": "Trip",
        },
    )
    assert (made["id"], made["days"], made["status"]) == ("PTO-0014", 5, "pending")
    approved = ok(episode, "hr_approve_time_off", {"request_id": "PTO-0014"})
    assert (approved["status"], approved["approver_id"], approved["decided_at"]) == (
        "approved",
        "EMP-016",
        "2026-09-14T09:00:00Z",
    )
    refused(episode, "hr_approve_time_off", {"request_id": "PTO-0014"}, 409, "not_pending")
    denied = ok(episode, "hr_deny_time_off", {"request_id": "PTO-0012", "reason": "Design review that week"})
    assert (denied["status"], denied["decision_note"]) == ("denied", "Design review that week")
    refused(episode, "hr_deny_time_off", {"request_id": "PTO-0009", "reason": "  "}, 400, "invalid_arguments")
    refused(episode, "hr_approve_time_off", {"request_id": "PTO-0999"}, 404, "not_found")
    episode.actor = "ethan.park@lumenpine.example"
    try:
        refused(episode, "hr_approve_time_off", {"request_id": "PTO-0008"}, 403, "own_request")
    finally:
        episode.actor = ACTOR
    assert ok(episode, "hr_list_time_off", {"employee_id": "EMP-017"})["rows"][0]["status"] == "pending"
