"""ITSM problems and changes: lifecycles one step at a time, the change gates (plans, CAB
approvals, schedule), CAB approvals by the approvers themselves, incident links, refusals that
write nothing, and the audit trail of every mutation."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simtenant import seeds
from simtenant.episode import Episode
from simtenant.task import Task
from simtenant.world import get_world

MANAGER = "USR-0009"  # Lina Park, change manager (role manager), manages the CAB
REPORTER = "USR-0005"  # Sara Ito, finance analyst (role reporter)
PLANS = {"implementation_plan": "Apply the patch", "test_plan": "Run the smoke tests", "backout_plan": "Roll back"}
SCHEDULE = {"start_at": "2026-05-20T22:00:00Z", "end_at": "2026-05-20T23:00:00Z"}


def task(actor: str) -> Task:
    return Task.model_validate(
        {
            "id": "itsm/test",
            "world": "itsm",
            "description": "t",
            "instruction": "t",
            "current_time": "2026-05-18T09:00:00Z",
            "actor": actor,
            "gold": [],
            "hash": "test",
        }
    )


@pytest.fixture(scope="module")
def snap() -> Path:
    return seeds.snapshot(get_world("itsm"))


def query(path: Path, sql: str, *params: Any) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Episode]]:
    opened: list[Episode] = []

    def open_episode(actor: str = MANAGER) -> Episode:
        episode = Episode.start(task(actor), tmp_path / f"e{len(opened)}.db")
        opened.append(episode)
        return episode

    yield open_episode
    for episode in opened:
        episode.close()


@pytest.fixture
def ep(start) -> Episode:
    return start()


@pytest.fixture
def refused(world_rows) -> Callable[..., dict[str, Any]]:
    """Call a tool that must fail with ``code``/``error``, and prove it wrote nothing."""

    def check(episode: Episode, tool: str, args: dict[str, Any], code: int, error: str | None = None) -> dict:
        before = world_rows(episode.path)
        outcome = episode.call(tool, args)
        assert not outcome.ok, outcome.result
        assert outcome.error["code"] == code, outcome.error
        if error is not None:
            assert outcome.error["error"] == error, outcome.error
        assert world_rows(episode.path) == before
        return outcome.error

    return check


def ok(episode: Episode, tool: str, args: dict[str, Any] | None = None) -> Any:
    outcome = episode.call(tool, args or {})
    assert outcome.ok, outcome.error
    return outcome.result


def cab_members(snap: Path) -> list[str]:
    rows = query(
        snap,
        "SELECT m.user_id FROM group_members m JOIN user_groups g ON g.id = m.group_id JOIN sys_users u"
        " ON u.id = m.user_id WHERE g.name = 'Change Advisory Board' AND u.active ORDER BY m.user_id",
    )
    return [r for (r,) in rows]


def non_cab_user(snap: Path) -> str:
    (row,) = query(
        snap,
        "SELECT id FROM sys_users WHERE active AND id NOT IN (SELECT m.user_id FROM group_members m"
        " JOIN user_groups g ON g.id = m.group_id WHERE g.name = 'Change Advisory Board') ORDER BY id LIMIT 1",
    )
    return row[0]


def free_incident(snap: Path) -> str:
    (row,) = query(
        snap,
        "SELECT id FROM incidents WHERE problem_id IS NULL AND change_id IS NULL"
        " AND status NOT IN ('closed', 'cancelled') ORDER BY id LIMIT 1",
    )
    return row[0]


def audits(episode: Episode, record_id: str) -> list[tuple]:
    return query(
        episode.path,
        "SELECT tool, action, record_table, actor_id, fields, created_at FROM audit_log"
        " WHERE record_id = ? ORDER BY id",
        record_id,
    )


def new_change(episode: Episode, **extra: Any) -> dict[str, Any]:
    args = {"short_description": "Patch the core switch", "category": "normal", "risk": "high", "impact": 2}
    return ok(episode, "create_change_request", {**args, **extra})


def advance(episode: Episode, change_id: str, *states: str) -> None:
    for state in states:
        assert ok(episode, "advance_change", {"change_id": change_id, "status": state})["status"] == state


# --- changes: creation and cab_required ------------------------------------------------------------


@pytest.mark.parametrize(
    ("category", "risk", "impact", "cab"),
    [
        ("normal", "high", 3, True),
        ("normal", "low", 1, True),
        ("normal", "moderate", 2, False),
        ("emergency", "low", 3, True),
        ("standard", "high", 1, False),
    ],
)
def test_cab_required_is_computed(ep, category, risk, impact, cab):
    change = new_change(ep, category=category, risk=risk, impact=impact)
    assert change["cab_required"] is cab and change["status"] == "new"
    assert change["requested_by_id"] == MANAGER and change["approvals"] == []


def test_cab_required_cannot_be_given(ep, refused):
    args = {"short_description": "x", "category": "standard", "risk": "low", "impact": 3, "cab_required": True}
    refused(ep, "create_change_request", args, 400, "invalid_arguments")


def test_create_writes_the_change_and_its_audit_entry(ep):
    change = new_change(ep, **PLANS)
    (row,) = query(ep.path, "SELECT status, cab_required, created_at FROM change_requests WHERE id = ?", change["id"])
    assert row == ("new", 1, "2026-05-18T09:00:00Z")
    ((tool, action, table, actor, fields, at),) = audits(ep, change["id"])
    assert (tool, action, table, actor, at) == (
        "create_change_request",
        "create",
        "change_requests",
        MANAGER,
        "2026-05-18T09:00:00Z",
    )
    assert "implementation_plan" in fields and "cab_required" in fields


def test_bad_schedules_are_refused(ep, refused):
    base = {"short_description": "x", "category": "standard", "risk": "low", "impact": 3}
    refused(ep, "create_change_request", {**base, "start_at": "tomorrow"}, 400)
    refused(ep, "create_change_request", {**base, "start_at": SCHEDULE["end_at"], "end_at": SCHEDULE["start_at"]}, 400)
    change = new_change(ep, **SCHEDULE)
    refused(ep, "update_change_request", {"change_id": change["id"], "end_at": "2026-05-20T21:00:00Z"}, 400)


def test_update_cannot_touch_the_status(ep, refused):
    change = new_change(ep)
    refused(ep, "update_change_request", {"change_id": change["id"], "status": "assess"}, 400, "invalid_arguments")
    updated = ok(ep, "update_change_request", {"change_id": change["id"], **PLANS})
    assert sorted(updated["changed"]) == sorted(PLANS)
    assert audits(ep, change["id"])[-1][:2] == ("update_change_request", "update")


# --- changes: the lifecycle and its gates ----------------------------------------------------------


def test_a_cab_change_goes_from_new_to_closed_with_approvals(start, snap):
    members = cab_members(snap)
    assert len(members) >= 2, "the seed's CAB needs at least two active members"
    ep = start()
    change = new_change(ep, **PLANS, **SCHEDULE)
    cid = change["id"]
    advance(ep, cid, "assess", "authorize")
    for member in members[:2]:
        approval = ok(ep, "request_change_approval", {"change_id": cid, "approver_id": member})
        assert approval["state"] == "requested" and approval["approver_id"] == member
    for member in members[:2]:
        ep.actor = member  # each approver decides for themself
        decided = ok(ep, "approve_change", {"change_id": cid, "comments": "Fine by me"})
        assert decided["state"] == "approved" and decided["decided_at"] == "2026-05-18T09:00:00Z"
    ep.actor = MANAGER
    listed = ok(ep, "list_change_approvals", {"change_id": cid})
    assert [a["state"] for a in listed["approvals"]] == ["approved", "approved"]
    advance(ep, cid, "scheduled", "implement", "review")
    closed = ok(ep, "close_change", {"change_id": cid, "close_code": "successful", "close_notes": "Done, no issues"})
    assert closed["status"] == "closed" and closed["previous_status"] == "review"
    (row,) = query(ep.path, "SELECT status, close_code, close_notes FROM change_requests WHERE id = ?", cid)
    assert row == ("closed", "successful", "Done, no issues")
    tools = [a[0] for a in audits(ep, cid)]
    assert tools == ["create_change_request", *["advance_change"] * 5, "close_change"]
    approval_audits = query(
        ep.path, "SELECT tool, action, actor_id FROM audit_log WHERE record_table = 'change_approvals' ORDER BY id"
    )
    assert approval_audits == [
        ("request_change_approval", "create", MANAGER),
        ("request_change_approval", "create", MANAGER),
        ("approve_change", "update", members[0]),
        ("approve_change", "update", members[1]),
    ]


def test_illegal_transitions_are_refused(ep, refused):
    cid = new_change(ep, **PLANS, **SCHEDULE, category="standard", risk="low")["id"]
    refused(ep, "advance_change", {"change_id": cid, "status": "authorize"}, 409, "illegal_transition")
    refused(ep, "advance_change", {"change_id": cid, "status": "new"}, 409, "illegal_transition")
    refused(ep, "advance_change", {"change_id": cid, "status": "cancelled"}, 409, "illegal_transition")
    refused(ep, "close_change", {"change_id": cid, "close_code": "successful", "close_notes": "x"}, 409)
    advance(ep, cid, "assess", "authorize", "scheduled", "implement", "review")
    refused(ep, "advance_change", {"change_id": cid, "status": "closed"}, 409, "illegal_transition")
    ok(ep, "close_change", {"change_id": cid, "close_code": "successful", "close_notes": "ok"})
    refused(ep, "cancel_change", {"change_id": cid, "reason": "too late"}, 409, "illegal_transition")
    refused(ep, "advance_change", {"change_id": cid, "status": "review"}, 409, "illegal_transition")
    refused(ep, "update_change_request", {"change_id": cid, "description": "more"}, 409)


def test_close_needs_code_and_notes(ep, refused):
    cid = new_change(ep, **PLANS, **SCHEDULE, category="standard", risk="low")["id"]
    advance(ep, cid, "assess", "authorize", "scheduled", "implement", "review")
    refused(ep, "close_change", {"change_id": cid, "close_code": "successful"}, 400)
    refused(ep, "close_change", {"change_id": cid, "close_code": "successful", "close_notes": "  "}, 400)
    refused(ep, "close_change", {"change_id": cid, "close_code": "great", "close_notes": "x"}, 400)


def test_cancel_from_any_open_state(ep):
    cid = new_change(ep)["id"]
    advance(ep, cid, "assess")
    cancelled = ok(ep, "cancel_change", {"change_id": cid, "reason": "Superseded by CHG-next"})
    assert cancelled["status"] == "cancelled" and cancelled["close_notes"] == "Superseded by CHG-next"
    assert audits(ep, cid)[-1][0] == "cancel_change"


def test_leaving_assess_needs_the_three_plans(ep, refused):
    cid = new_change(ep, implementation_plan="Apply it", **SCHEDULE)["id"]
    advance(ep, cid, "assess")
    error = refused(ep, "advance_change", {"change_id": cid, "status": "authorize"}, 409, "missing_plans")
    assert "test_plan" in error["message"] and "backout_plan" in error["message"]
    ok(ep, "update_change_request", {"change_id": cid, "test_plan": "Test", "backout_plan": "Back out"})
    advance(ep, cid, "authorize")


def test_leaving_authorize_needs_every_cab_approval(start, snap, refused):
    member, other = cab_members(snap)[:2]
    ep = start()
    cid = new_change(ep, **PLANS, **SCHEDULE)["id"]
    advance(ep, cid, "assess", "authorize")
    to_scheduled = {"change_id": cid, "status": "scheduled"}
    refused(ep, "advance_change", to_scheduled, 409, "not_approved")  # none requested
    ok(ep, "request_change_approval", {"change_id": cid, "approver_id": member})
    refused(ep, "advance_change", to_scheduled, 409, "not_approved")  # one still requested
    ok(ep, "request_change_approval", {"change_id": cid, "approver_id": other})
    ep.actor = member
    ok(ep, "approve_change", {"change_id": cid})
    ep.actor = other
    ok(ep, "reject_change", {"change_id": cid, "comments": "Not during quarter close"})
    ep.actor = MANAGER
    error = refused(ep, "advance_change", to_scheduled, 409, "not_approved")  # one rejected
    assert other in error["message"]


def test_a_change_without_cab_needs_no_approval(ep):
    cid = new_change(ep, **PLANS, **SCHEDULE, risk="low", impact=3)["id"]
    advance(ep, cid, "assess", "authorize", "scheduled")


def test_entering_scheduled_needs_a_schedule(ep, refused):
    cid = new_change(ep, **PLANS, risk="low", impact=3)["id"]
    advance(ep, cid, "assess", "authorize")
    refused(ep, "advance_change", {"change_id": cid, "status": "scheduled"}, 409, "missing_schedule")
    ok(ep, "update_change_request", {"change_id": cid, "start_at": SCHEDULE["start_at"]})
    refused(ep, "advance_change", {"change_id": cid, "status": "scheduled"}, 409, "missing_schedule")
    ok(ep, "update_change_request", {"change_id": cid, "end_at": SCHEDULE["end_at"]})
    advance(ep, cid, "scheduled")


# --- approvals ---------------------------------------------------------------------------------------


def test_only_cab_members_can_be_asked_to_approve(ep, snap, refused):
    cid = new_change(ep)["id"]
    refused(ep, "request_change_approval", {"change_id": cid, "approver_id": non_cab_user(snap)}, 409, "not_cab_member")
    refused(ep, "request_change_approval", {"change_id": cid, "approver_id": "USR-9999"}, 404)
    member = cab_members(snap)[0]
    ok(ep, "request_change_approval", {"change_id": cid, "approver_id": member})
    refused(ep, "request_change_approval", {"change_id": cid, "approver_id": member}, 409, "duplicate")


def test_only_the_approver_decides(ep, snap, refused):
    member, other = cab_members(snap)[:2]
    cid = new_change(ep)["id"]
    ok(ep, "request_change_approval", {"change_id": cid, "approver_id": member})
    ep.actor = other  # a CAB member, but not asked
    refused(ep, "approve_change", {"change_id": cid}, 403, "not_approver")
    refused(ep, "reject_change", {"change_id": cid, "comments": "no"}, 403, "not_approver")
    ep.actor = member
    refused(ep, "reject_change", {"change_id": cid}, 400)  # a rejection says why
    ok(ep, "approve_change", {"change_id": cid})
    refused(ep, "approve_change", {"change_id": cid}, 409, "already_decided")


# --- permissions and scope ---------------------------------------------------------------------------


def test_a_reporter_may_neither_read_nor_change_changes(start, snap, refused):
    (cid,) = query(snap, "SELECT id FROM change_requests ORDER BY id LIMIT 1")[0]
    ep = start(REPORTER)
    refused(
        ep, "create_change_request", {"short_description": "x", "category": "normal", "risk": "low", "impact": 3}, 403
    )
    refused(ep, "get_change_request", {"change_id": cid}, 403)
    refused(ep, "list_change_requests", {}, 403)
    refused(ep, "create_problem", {"short_description": "x", "impact": 2, "urgency": 2}, 403)


def test_inactive_users_can_do_nothing(start, snap, refused):
    ((inactive,),) = query(snap, "SELECT id FROM sys_users WHERE NOT active ORDER BY id LIMIT 1")
    ep = start(inactive)
    refused(ep, "list_change_requests", {}, 403)
    refused(ep, "create_problem", {"short_description": "x", "impact": 2, "urgency": 2}, 403)


def test_unknown_records_are_not_found(ep, refused):
    refused(ep, "get_change_request", {"change_id": "CHG9999999"}, 404)
    refused(ep, "get_problem", {"problem_id": "PRB9999999"}, 404)
    refused(ep, "advance_change", {"change_id": "CHG9999999", "status": "assess"}, 404)


def test_linking_a_change_to_an_incident(ep, snap, refused):
    incident = free_incident(snap)
    cid = new_change(ep)["id"]
    ok(ep, "link_change_to_incident", {"change_id": cid, "incident_number": incident})
    assert query(ep.path, "SELECT change_id FROM incidents WHERE id = ?", incident) == [(cid,)]
    assert audits(ep, incident)[-1][:2] == ("link_change_to_incident", "update")
    refused(ep, "link_change_to_incident", {"change_id": cid, "incident_number": incident}, 409, "duplicate")
    refused(ep, "link_change_to_incident", {"change_id": "CHG9999999", "incident_number": incident}, 404)
    ((closed,),) = query(snap, "SELECT id FROM incidents WHERE status = 'closed' AND change_id IS NULL LIMIT 1")
    refused(ep, "link_change_to_incident", {"change_id": cid, "incident_number": closed}, 409, "record_closed")


# --- problems ----------------------------------------------------------------------------------------


def new_problem(episode: Episode, **extra: Any) -> dict[str, Any]:
    args = {"short_description": "Repeated VPN drops", "impact": 2, "urgency": 1}
    return ok(episode, "create_problem", {**args, **extra})


def test_problem_priority_follows_impact_and_urgency(ep, refused):
    problem = new_problem(ep)
    assert problem["priority"] == 2 and problem["status"] == "new" and problem["id"].startswith("PRB")
    refused(ep, "create_problem", {"short_description": "x", "impact": 2, "urgency": 2, "priority": 1}, 400)
    refused(ep, "update_problem", {"problem_id": problem["id"], "impact": 3}, 400, "missing_field")
    updated = ok(ep, "update_problem", {"problem_id": problem["id"], "impact": 3, "urgency": 3})
    assert updated["priority"] == 5 and updated["changed"] == ["priority"]
    assert [a[:2] for a in audits(ep, problem["id"])] == [("create_problem", "create"), ("update_problem", "update")]


def test_a_problem_moves_one_step_at_a_time_and_resolves_with_a_root_cause(ep, refused):
    pid = new_problem(ep)["id"]
    refused(ep, "advance_problem", {"problem_id": pid, "status": "root_cause_analysis"}, 409, "illegal_transition")
    for state in ("assessed", "root_cause_analysis", "fix_in_progress"):
        assert ok(ep, "advance_problem", {"problem_id": pid, "status": state})["status"] == state
    refused(ep, "advance_problem", {"problem_id": pid, "status": "resolved"}, 400, "missing_field")
    refused(ep, "close_problem", {"problem_id": pid}, 409, "illegal_transition")
    resolved = ok(ep, "advance_problem", {"problem_id": pid, "status": "resolved", "root_cause": "Expired cert"})
    assert resolved["root_cause"] == "Expired cert"
    refused(ep, "advance_problem", {"problem_id": pid, "status": "closed"}, 409, "illegal_transition")
    assert ok(ep, "close_problem", {"problem_id": pid})["status"] == "closed"
    refused(ep, "set_problem_workaround", {"problem_id": pid, "workaround": "Reconnect"}, 409)
    tools = [a[0] for a in audits(ep, pid)]
    assert tools == ["create_problem", *["advance_problem"] * 4, "close_problem"]


def test_a_root_cause_recorded_earlier_is_enough(ep):
    pid = new_problem(ep)["id"]
    ok(ep, "update_problem", {"problem_id": pid, "root_cause": "A memory leak"})
    ok(ep, "set_problem_workaround", {"problem_id": pid, "workaround": "Restart nightly"})
    for state in ("assessed", "root_cause_analysis", "fix_in_progress", "resolved"):
        ok(ep, "advance_problem", {"problem_id": pid, "status": state})


def test_linking_incidents_to_a_problem(ep, snap, refused):
    incident = free_incident(snap)
    pid = new_problem(ep)["id"]
    ok(ep, "link_incident_to_problem", {"problem_id": pid, "incident_number": incident})
    assert query(ep.path, "SELECT problem_id FROM incidents WHERE id = ?", incident) == [(pid,)]
    assert query(ep.path, "SELECT incident_id FROM problem_incidents WHERE problem_id = ?", pid) == [(incident,)]
    assert ok(ep, "get_problem", {"problem_id": pid})["incident_ids"] == [incident]
    assert [r["id"] for r in ok(ep, "list_problem_incidents", {"problem_id": pid})["rows"]] == [incident]
    refused(ep, "link_incident_to_problem", {"problem_id": pid, "incident_number": incident}, 409, "duplicate")
    other = new_problem(ep)["id"]
    refused(ep, "link_incident_to_problem", {"problem_id": other, "incident_number": incident}, 409, "already_linked")
    refused(ep, "link_incident_to_problem", {"problem_id": pid, "incident_number": "INC9999999"}, 404)
    assert audits(ep, incident)[-1][:2] == ("link_incident_to_problem", "update")
    assert audits(ep, f"{pid}/{incident}")[0][:3] == ("link_incident_to_problem", "create", "problem_incidents")
    ok(ep, "unlink_incident_from_problem", {"problem_id": pid, "incident_number": incident})
    assert query(ep.path, "SELECT problem_id FROM incidents WHERE id = ?", incident) == [(None,)]
    ok(ep, "link_incident_to_problem", {"problem_id": other, "incident_number": incident})


def test_lists_filter_and_page(ep):
    new_problem(ep)
    page = ok(ep, "list_problems", {"status": "new", "per_page": 1})
    assert page["per_page"] == 1 and len(page["rows"]) == 1 and page["total"] >= 1
    assert all(r["status"] == "new" for r in page["rows"])
    changes = ok(ep, "list_change_requests", {"cab_required": True, "per_page": 50})
    assert all(r["cab_required"] for r in changes["rows"])


def test_changing_category_risk_or_impact_recomputes_cab_required(ep):
    cid = new_change(ep)["id"]  # normal, high risk: the CAB is required
    lowered = ok(ep, "update_change_request", {"change_id": cid, "risk": "low"})
    assert lowered["cab_required"] is False and lowered["changed"] == ["cab_required", "risk"]
    assert ok(ep, "update_change_request", {"change_id": cid, "impact": 1})["cab_required"] is True
    assert ok(ep, "update_change_request", {"change_id": cid, "category": "standard"})["cab_required"] is False
    (fields,) = query(ep.path, "SELECT fields FROM audit_log WHERE record_id = ? ORDER BY id DESC LIMIT 1", cid)[0]
    assert fields == '["cab_required", "category"]'


def test_records_of_another_organization_are_not_found(ep, refused, snap):
    connection = sqlite3.connect(ep.path)
    with connection:
        connection.execute("INSERT INTO organizations (id, name, kind, active) VALUES ('ORG-X', 'Other', 'client', 1)")
        connection.execute(
            "INSERT INTO change_requests (id, org_id, short_description, category, risk, impact, cab_required,"
            " status, requested_by_id, created_at, updated_at) VALUES ('CHG0009999', 'ORG-X', 'theirs', 'normal',"
            " 'low', 3, 0, 'new', 'USR-0001', '2026-05-01T00:00:00Z', '2026-05-01T00:00:00Z')"
        )
        connection.execute(
            "INSERT INTO problems (id, org_id, short_description, status, priority, opened_at, updated_at)"
            " VALUES ('PRB0009999', 'ORG-X', 'theirs', 'new', 3, '2026-05-01T00:00:00Z', '2026-05-01T00:00:00Z')"
        )
    connection.close()
    refused(ep, "get_change_request", {"change_id": "CHG0009999"}, 404)
    refused(ep, "advance_change", {"change_id": "CHG0009999", "status": "assess"}, 404)
    refused(ep, "link_change_to_incident", {"change_id": "CHG0009999", "incident_number": free_incident(snap)}, 404)
    refused(ep, "get_problem", {"problem_id": "PRB0009999"}, 404)
    refused(ep, "link_incident_to_problem", {"problem_id": "PRB0009999", "incident_number": free_incident(snap)}, 404)
    assert "CHG0009999" not in [r["id"] for r in ok(ep, "list_change_requests", {"per_page": 50})["rows"]]
    states = {r["key"]: r["count"] for r in ok(ep, "count_changes_by_state")["counts"]}
    assert states == dict(query(snap, "SELECT status, COUNT(*) FROM change_requests GROUP BY 1"))
