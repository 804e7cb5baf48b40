"""ITSM identity tools: the organization, locations, users (onboarding, changes, unlock,
offboarding), roles and permissions, groups; the acting user's scope; the audit trail.

The helpers at the top are shared with test_itsm_services.py and test_itsm_cmdb.py."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simtenant.episode import Episode
from simtenant.task import Task

NOW = "2026-05-18T09:00:00Z"
ADMIN, MANAGER, AGENT, NETWORK, REPORTER, DBA, FORMER = (
    "USR-0001",
    "USR-0002",
    "USR-0003",
    "USR-0004",
    "USR-0005",
    "USR-0006",
    "USR-0010",
)


# --- helpers ------------------------------------------------------------------------------------------


def make_task(actor: str | None) -> Task:
    return Task.model_validate(
        {
            "id": "itsm/test",
            "world": "itsm",
            "description": "test",
            "instruction": "test",
            "current_time": NOW,
            "actor": actor,
            "gold": [],
            "hash": "test",
        }
    )


@pytest.fixture
def play(tmp_path: Path) -> Iterator[Callable[..., Episode]]:
    """Start an itsm episode acting as the given user; closed at the end."""
    opened: list[Episode] = []

    def start(actor: str | None = AGENT) -> Episode:
        episode = Episode.start(make_task(actor), tmp_path / f"episode-{len(opened)}.db")
        opened.append(episode)
        return episode

    yield start
    for episode in opened:
        episode.close()


def ok(episode: Episode, tool: str, **args: Any) -> Any:
    outcome = episode.call(tool, args)
    assert outcome.ok, outcome.error
    return outcome.result


def refused(episode: Episode, world_rows, tool: str, code: int, error: str | None = None, **args: Any) -> str:
    """Call a tool that must be refused with ``code`` (and ``error``) and must write nothing."""
    before = world_rows(episode.path)
    outcome = episode.call(tool, args)
    assert not outcome.ok, outcome.result
    assert outcome.error["code"] == code, outcome.error
    if error is not None:
        assert outcome.error["error"] == error, outcome.error
    assert world_rows(episode.path) == before
    return outcome.error["message"]


def rows(episode: Episode, sql: str, *params: Any) -> list[tuple]:
    connection = sqlite3.connect(episode.path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def execute(episode: Episode, sql: str, *params: Any) -> None:
    """Change the episode's world directly, to set a scene the seed does not have."""
    connection = sqlite3.connect(episode.path)
    try:
        connection.execute(sql, params)
        connection.commit()
    finally:
        connection.close()


def audits(episode: Episode) -> list[tuple]:
    """The audit entries this episode wrote: (actor, tool, action, table, record, fields)."""
    return rows(
        episode,
        "SELECT actor_id, tool, action, record_table, record_id, fields FROM audit_log WHERE created_at = ? "
        "ORDER BY id",
        NOW,
    )


def add_other_org(episode: Episode) -> None:
    """Another organization with a location, a user and a CI: outside every seeded user's scope."""
    execute(episode, "INSERT INTO organizations (id, name, kind, active) VALUES ('ORG-ZETA', 'Zeta', 'client', 1)")
    execute(
        episode,
        "INSERT INTO locations (id, org_id, name, city, country) "
        "VALUES ('LOC-901', 'ORG-ZETA', 'Zeta HQ', 'Oslo', 'NO')",
    )
    execute(
        episode,
        "INSERT INTO sys_users (id, org_id, name, email, active, locked) "
        "VALUES ('USR-0901', 'ORG-ZETA', 'Zed Zeta', 'zed@zeta.example', 1, 0)",
    )
    execute(
        episode,
        "INSERT INTO configuration_items (id, org_id, name, ci_class, serial_number, status, cost) "
        "VALUES ('CI-90001', 'ORG-ZETA', 'zeta-laptop', 'laptop', 'ZETA-SN-1', 'in_stock', 0)",
    )


# --- scope and the acting user ------------------------------------------------------------------------


def test_an_inactive_or_missing_acting_user_can_do_nothing(play, world_rows):
    refused(play(FORMER), world_rows, "get_organization", 403, "inactive_actor")
    refused(play(None), world_rows, "list_users", 403, "no_actor")
    locked = play(AGENT)
    execute(locked, "UPDATE sys_users SET locked = 1 WHERE id = ?", AGENT)
    refused(locked, world_rows, "get_user_by_id", 403, "inactive_actor", user_id=AGENT)


def test_records_of_another_organization_are_not_found(play, world_rows):
    episode = play(ADMIN)
    add_other_org(episode)
    refused(episode, world_rows, "get_user_by_id", 404, "not_found", user_id="USR-0901")
    refused(episode, world_rows, "get_user_by_email", 404, "not_found", email="zed@zeta.example")
    refused(episode, world_rows, "get_location", 404, "not_found", location_id="LOC-901")
    refused(episode, world_rows, "get_organization", 404, "not_found", org_id="ORG-ZETA")
    refused(episode, world_rows, "add_group_member", 404, "not_found", group_id="GRP-001", user_id="USR-0901")
    refused(episode, world_rows, "offboard_user", 404, "not_found", user_id="USR-0901")
    assert "USR-0901" not in {u["id"] for u in ok(episode, "list_users", per_page=50)["rows"]}


# --- reads --------------------------------------------------------------------------------------------


def test_organization_and_locations(play):
    episode = play(AGENT)
    assert ok(episode, "get_organization") == {
        "id": "ORG-ACME",
        "name": "Acme Robotics",
        "kind": "company",
        "active": True,
    }
    locations = ok(episode, "list_locations")
    assert {"LOC-001", "LOC-002", "LOC-003"} <= {row["id"] for row in locations["rows"]}
    assert ok(episode, "get_location", location_id="LOC-002")["name"] == "Austin Office"


def test_user_lookups(play):
    episode = play(REPORTER)
    priya = ok(episode, "get_user_by_id", user_id=AGENT)
    assert priya["name"] == "Priya Nair" and priya["email"] == "priya.nair@acme-robotics.example"
    assert ok(episode, "get_user_by_email", email="Priya.NAIR@acme-robotics.example")["id"] == AGENT
    found = ok(episode, "find_users_by_name", name="nair")
    assert [row["id"] for row in found["rows"]] == [AGENT]
    inactive = ok(episode, "list_users", active=False, per_page=50)["rows"]
    assert FORMER in {row["id"] for row in inactive} and all(not row["active"] for row in inactive)
    reports = ok(episode, "list_users", manager_id=MANAGER, per_page=50)["rows"]
    assert reports and all(row["manager_id"] == MANAGER for row in reports)
    first, second = ok(episode, "list_users", per_page=2), ok(episode, "list_users", page=2, per_page=2)
    assert first["total"] == second["total"] >= 10 and len(first["rows"]) == 2
    assert not {row["id"] for row in first["rows"]} & {row["id"] for row in second["rows"]}
    department = priya["department"]
    same = ok(episode, "list_users", department=department.upper(), per_page=50)["rows"]
    assert AGENT in {row["id"] for row in same} and {row["department"] for row in same} == {department}
    located = ok(episode, "list_users", location_id=priya["location_id"], per_page=50)["rows"]
    assert AGENT in {row["id"] for row in located}


def test_roles_and_permissions(play, world_rows):
    episode = play(AGENT)
    assert {row["id"] for row in ok(episode, "list_roles")} == {"admin", "manager", "agent", "reporter"}
    assert ok(episode, "get_user_roles", user_id=ADMIN)["roles"] == ["admin", "manager"]
    reporter = ok(episode, "get_role_permissions", role_id="reporter")["permissions"]
    assert reporter and {p["action"] for p in reporter} == {"read"}
    assert {p["resource"] for p in reporter} == {
        "incident",
        "knowledge",
        "service",
        "catalog",
        "request",
        "user",
        "location",
        "group",
    }
    assert ok(episode, "check_user_permission", user_id=REPORTER, resource="incident", action="read")["allowed"]
    assert not ok(episode, "check_user_permission", user_id=REPORTER, resource="incident", action="crud")["allowed"]
    assert not ok(episode, "check_user_permission", user_id=AGENT, resource="audit", action="read")["allowed"]
    assert ok(episode, "check_user_permission", user_id=MANAGER, resource="audit", action="read")["allowed"]
    refused(episode, world_rows, "get_role_permissions", 404, "not_found", role_id="superuser")
    # a reporter may not read roles
    refused(play(REPORTER), world_rows, "get_user_roles", 403, "forbidden", user_id=AGENT)


def test_groups(play):
    episode = play(REPORTER)
    groups = ok(episode, "list_groups")
    assert {"GRP-001", "GRP-002", "GRP-003", "GRP-004", "GRP-005"} <= {row["id"] for row in groups["rows"]}
    desk = ok(episode, "get_group_by_name", name="service desk")
    assert desk["id"] == "GRP-001" and desk["manager_id"] == MANAGER and desk["manager_name"] == "Marcus Lee"
    members = ok(episode, "list_group_members", group_id="GRP-001", per_page=50)
    member_ids = {row["id"] for row in members["rows"]}
    assert members["total"] == desk["member_count"] == len(member_ids) and member_ids
    some = sorted(member_ids)[0]
    assert "GRP-001" in {g["id"] for g in ok(episode, "list_user_groups", user_id=some)["groups"]}


# --- onboarding ---------------------------------------------------------------------------------------


NEW_HIRE = {
    "name": "Noor Haddad",
    "email": "noor.haddad@acme-robotics.example",
    "title": "Service desk agent",
    "department": "IT",
    "location_id": "LOC-002",
    "manager_id": MANAGER,
    "role_ids": ["agent"],
    "group_ids": ["GRP-001", "GRP-004"],
}


def test_onboarding_creates_the_user_roles_and_groups_in_one_call(play):
    episode = play(MANAGER)
    user = ok(episode, "onboard_user", **{**NEW_HIRE, "email": "Noor.Haddad@Acme-Robotics.example"})
    uid = user["id"]
    assert user["email"] == NEW_HIRE["email"] and user["active"] and not user["locked"]
    assert rows(episode, "SELECT org_id, location_id, manager_id FROM sys_users WHERE id = ?", uid) == [
        ("ORG-ACME", "LOC-002", MANAGER)
    ]
    assert rows(episode, "SELECT role_id, org_id FROM user_roles WHERE user_id = ?", uid) == [("agent", "ORG-ACME")]
    assert rows(episode, "SELECT group_id FROM group_members WHERE user_id = ? ORDER BY 1", uid) == [
        ("GRP-001",),
        ("GRP-004",),
    ]
    assert [(a[1], a[2], a[3]) for a in audits(episode)] == [
        ("onboard_user", "create", "sys_users"),
        ("onboard_user", "create", "user_roles"),
        ("onboard_user", "create", "group_members"),
        ("onboard_user", "create", "group_members"),
    ]
    assert {a[0] for a in audits(episode)} == {MANAGER}


def test_onboarding_refusals_write_nothing(play, world_rows):
    episode = play(MANAGER)
    taken = "PRIYA.nair@acme-robotics.example"
    refused(episode, world_rows, "onboard_user", 409, "duplicate", **{**NEW_HIRE, "email": taken})
    refused(episode, world_rows, "onboard_user", 400, "invalid_value", **{**NEW_HIRE, "email": "noor at acme"})
    refused(episode, world_rows, "onboard_user", 404, "not_found", **{**NEW_HIRE, "role_ids": ["agent", "wizard"]})
    refused(episode, world_rows, "onboard_user", 404, "not_found", **{**NEW_HIRE, "group_ids": ["GRP-999"]})
    refused(episode, world_rows, "onboard_user", 404, "not_found", **{**NEW_HIRE, "location_id": "LOC-999"})
    refused(episode, world_rows, "onboard_user", 409, "inactive_user", **{**NEW_HIRE, "manager_id": FORMER})
    refused(episode, world_rows, "onboard_user", 400, "invalid_arguments", **{**NEW_HIRE, "name": "  "})
    refused(play(AGENT), world_rows, "onboard_user", 403, "forbidden", **NEW_HIRE)


# --- changing users -----------------------------------------------------------------------------------


def test_update_user_changes_only_what_is_given(play, world_rows):
    episode = play(MANAGER)
    result = ok(episode, "update_user", user_id=AGENT, title="Senior service desk agent", location_id="LOC-003")
    assert result["changed"] == ["location_id", "title"] and result["location_name"] == "Dublin Office"
    assert audits(episode) == [(MANAGER, "update_user", "update", "sys_users", AGENT, '["location_id", "title"]')]
    refused(
        episode, world_rows, "update_user", 409, "duplicate", user_id=AGENT, email="tom.becker@acme-robotics.example"
    )
    refused(episode, world_rows, "update_user", 400, "missing_field", user_id=AGENT)
    refused(episode, world_rows, "update_user", 409, "cycle", user_id=MANAGER, manager_id=AGENT)
    refused(episode, world_rows, "update_user", 409, "cycle", user_id=AGENT, manager_id=AGENT)
    refused(play(AGENT), world_rows, "update_user", 403, "forbidden", user_id=REPORTER, title="Analyst")


def test_unlock_needs_verified_identity(play, world_rows):
    episode = play(MANAGER)
    execute(episode, "UPDATE sys_users SET locked = 1 WHERE id = ?", REPORTER)
    refused(episode, world_rows, "unlock_user", 409, "identity_not_verified", user_id=REPORTER, verified=False)
    assert ok(episode, "unlock_user", user_id=REPORTER, verified=True)["locked"] is False
    assert rows(episode, "SELECT locked FROM sys_users WHERE id = ?", REPORTER) == [(0,)]
    assert audits(episode) == [(MANAGER, "unlock_user", "update", "sys_users", REPORTER, '["locked"]')]
    refused(episode, world_rows, "unlock_user", 409, "not_locked", user_id=REPORTER, verified=True)
    refused(episode, world_rows, "unlock_user", 409, "inactive_user", user_id=FORMER, verified=True)
    refused(play(AGENT), world_rows, "unlock_user", 403, "forbidden", user_id=REPORTER, verified=True)


def test_roles_are_granted_and_revoked(play, world_rows):
    episode = play(MANAGER)
    assert ok(episode, "assign_role", user_id=REPORTER, role_id="agent")["roles"] == ["agent", "reporter"]
    refused(episode, world_rows, "assign_role", 409, "duplicate", user_id=REPORTER, role_id="agent")
    refused(episode, world_rows, "assign_role", 404, "not_found", user_id=REPORTER, role_id="wizard")
    refused(episode, world_rows, "assign_role", 409, "inactive_user", user_id=FORMER, role_id="agent")
    assert ok(episode, "revoke_role", user_id=REPORTER, role_id="reporter")["roles"] == ["agent"]
    refused(episode, world_rows, "revoke_role", 404, "not_found", user_id=REPORTER, role_id="reporter")
    assert [(a[1], a[2], a[4]) for a in audits(episode)] == [
        ("assign_role", "create", f"{REPORTER}/agent/ORG-ACME"),
        ("revoke_role", "delete", f"{REPORTER}/reporter/ORG-ACME"),
    ]
    refused(play(AGENT), world_rows, "assign_role", 403, "forbidden", user_id=REPORTER, role_id="admin")


def test_group_membership_and_manager(play, world_rows):
    episode = play(MANAGER)
    assert ok(episode, "add_group_member", group_id="GRP-002", user_id=REPORTER)["id"] == "GRP-002"
    assert rows(episode, "SELECT org_id FROM group_members WHERE group_id = 'GRP-002' AND user_id = ?", REPORTER)
    refused(episode, world_rows, "add_group_member", 409, "duplicate", group_id="GRP-002", user_id=REPORTER)
    refused(episode, world_rows, "add_group_member", 409, "inactive_user", group_id="GRP-002", user_id=FORMER)
    refused(episode, world_rows, "add_group_member", 404, "not_found", group_id="GRP-999", user_id=REPORTER)
    ok(episode, "remove_group_member", group_id="GRP-002", user_id=REPORTER)
    refused(episode, world_rows, "remove_group_member", 404, "not_found", group_id="GRP-002", user_id=REPORTER)
    result = ok(episode, "set_group_manager", group_id="GRP-002", manager_id=DBA)
    assert result["manager_id"] == DBA and result["changed"] == ["manager_id"]
    refused(episode, world_rows, "set_group_manager", 409, "inactive_user", group_id="GRP-002", manager_id=FORMER)
    assert [(a[1], a[2], a[3]) for a in audits(episode)] == [
        ("add_group_member", "create", "group_members"),
        ("remove_group_member", "delete", "group_members"),
        ("set_group_manager", "update", "user_groups"),
    ]
    refused(play(AGENT), world_rows, "add_group_member", 403, "forbidden", group_id="GRP-001", user_id=REPORTER)


# --- offboarding --------------------------------------------------------------------------------------


def test_offboarding_deactivates_removes_access_and_unassigns_open_incidents(play):
    episode = play(MANAGER)
    busiest = rows(
        episode,
        "SELECT assigned_to_id FROM incidents WHERE status IN ('new', 'in_progress', 'on_hold') "
        "AND assigned_to_id IS NOT NULL AND assigned_to_id NOT IN (?, ?) GROUP BY assigned_to_id "
        "ORDER BY count(*) DESC, assigned_to_id LIMIT 1",
        MANAGER,
        ADMIN,
    )
    uid = busiest[0][0] if busiest else NETWORK
    open_before = rows(
        episode,
        "SELECT id FROM incidents WHERE assigned_to_id = ? AND status IN ('new', 'in_progress', 'on_hold') ORDER BY id",
        uid,
    )
    closed_before = rows(
        episode,
        "SELECT id FROM incidents WHERE assigned_to_id = ? AND status NOT IN ('new', 'in_progress', 'on_hold')",
        uid,
    )
    roles = rows(episode, "SELECT role_id FROM user_roles WHERE user_id = ? ORDER BY 1", uid)
    groups = rows(episode, "SELECT group_id FROM group_members WHERE user_id = ? ORDER BY 1", uid)
    result = ok(episode, "offboard_user", user_id=uid)
    assert result["user"]["active"] is False
    assert result["roles_removed"] == [r for (r,) in roles] and result["groups_removed"] == [g for (g,) in groups]
    assert result["incidents_unassigned"] == [i for (i,) in open_before]
    assert rows(episode, "SELECT active FROM sys_users WHERE id = ?", uid) == [(0,)]
    assert rows(episode, "SELECT * FROM user_roles WHERE user_id = ?", uid) == []
    assert rows(episode, "SELECT * FROM group_members WHERE user_id = ?", uid) == []
    for (incident,) in open_before:
        assert rows(episode, "SELECT assigned_to_id, updated_at FROM incidents WHERE id = ?", incident) == [(None, NOW)]
        notes = rows(
            episode, "SELECT note FROM incident_work_notes WHERE incident_id = ? AND created_at = ?", incident, NOW
        )
        assert len(notes) == 1 and uid in notes[0][0]
    for (incident,) in closed_before:  # resolved, closed or cancelled incidents keep their assignee
        assert rows(episode, "SELECT assigned_to_id FROM incidents WHERE id = ?", incident) == [(uid,)]
    actions = [(a[2], a[3]) for a in audits(episode)]
    assert actions.count(("update", "sys_users")) == 1
    assert actions.count(("delete", "user_roles")) == len(roles)
    assert actions.count(("delete", "group_members")) == len(groups)
    assert (
        actions.count(("update", "incidents")) == actions.count(("create", "incident_work_notes")) == len(open_before)
    )


def test_offboarding_refusals_write_nothing(play, world_rows):
    episode = play(MANAGER)
    refused(episode, world_rows, "offboard_user", 409, "inactive_user", user_id=FORMER)
    refused(episode, world_rows, "offboard_user", 409, "self_offboard", user_id=MANAGER)
    refused(episode, world_rows, "offboard_user", 404, "not_found", user_id="USR-9999")
    refused(play(AGENT), world_rows, "offboard_user", 403, "forbidden", user_id=NETWORK)


# --- the audit log ------------------------------------------------------------------------------------


def test_the_audit_log_is_read_by_managers_only(play, world_rows):
    episode = play(MANAGER)
    ok(episode, "update_user", user_id=AGENT, title="Lead agent")
    ok(episode, "update_user", user_id=REPORTER, title="Senior analyst")
    mine = ok(episode, "list_audit_entries", actor_id=MANAGER, tool_name="update_user", per_page=50)
    assert [row["record_id"] for row in mine["rows"] if row["created_at"] == NOW] == [AGENT, REPORTER]
    about = ok(episode, "list_audit_entries", record_table="sys_users", record_id=REPORTER)["rows"]
    assert about[-1]["fields"] == ["title"] and about[-1]["action"] == "update"
    refused(play(REPORTER), world_rows, "list_audit_entries", 403, "forbidden")
    refused(play(AGENT), world_rows, "list_audit_entries", 403, "forbidden")


# --- locations: opening, changing and closing a site --------------------------------------------------


def test_a_manager_opens_a_site_and_places_people_and_devices_there(play, world_rows):
    episode = play(MANAGER)
    site = ok(
        episode, "create_location", name="Lisbon Lab", city="Lisbon", country="Portugal", address="Rua Augusta 27"
    )
    assert site == {
        "id": "LOC-004",
        "org_id": "ORG-ACME",
        "name": "Lisbon Lab",
        "city": "Lisbon",
        "country": "Portugal",
        "address": "Rua Augusta 27",
        "active": True,
    }
    assert rows(episode, "SELECT name, city, country, address, active FROM locations WHERE id = 'LOC-004'") == [
        ("Lisbon Lab", "Lisbon", "Portugal", "Rua Augusta 27", 1)
    ]
    assert audits(episode) == [
        (MANAGER, "create_location", "create", "locations", "LOC-004", '["active", "address", "city", "country", '
         '"name", "org_id"]'),
    ]  # fmt: skip
    hire = ok(episode, "onboard_user", name="Rui Costa", email="rui.costa@acme-robotics.example", location_id="LOC-004")
    assert hire["location_name"] == "Lisbon Lab"
    ci = ok(episode, "register_configuration_item", name="LIS-LT-0001", ci_class="laptop", location_id="LOC-004",
            owner_id=hire["id"])  # fmt: skip
    assert (ci["location_id"], ci["status"]) == ("LOC-004", "in_use")
    assert ok(episode, "list_locations", name_contains="lisbon")["rows"] == [site]
    assert [r["id"] for r in ok(episode, "list_locations", city="DUBLIN")["rows"]] == ["LOC-003"]
    # a second site of the same name (whatever its case) is refused, and nothing is written
    refused(episode, world_rows, "create_location", 409, "duplicate", name="lisbon lab", city="Lisbon", country="PT")
    refused(episode, world_rows, "create_location", 400, "invalid_arguments", name=" ", city="Lisbon", country="PT")
    # agents and reporters only read locations
    for actor in (AGENT, REPORTER):
        refused(play(actor), world_rows, "create_location", 403, "forbidden", name="Porto", city="Porto", country="PT")


def test_a_site_is_closed_only_once_nobody_and_nothing_is_left_there(play, world_rows):
    episode = play(MANAGER)
    message = refused(episode, world_rows, "update_location", 409, "in_use", location_id="LOC-002", active=False)
    assert "USR-0004" in message and "CI-00004" in message and "CI-00026" not in message  # a retired CI may stay
    empty = ok(episode, "create_location", name="Austin Annex", city="Austin", country="United States")["id"]
    closed = ok(episode, "update_location", location_id=empty, active=False, address="500 W 2nd St")
    assert (closed["active"], closed["changed"]) == (False, ["address", "active"])
    assert [r["id"] for r in ok(episode, "list_locations", active=False)["rows"]] == [empty]
    # a closed site takes nobody and nothing new
    refused(episode, world_rows, "onboard_user", 409, "inactive_location", name="x", email="x@acme-robotics.example",
            location_id=empty)  # fmt: skip
    refused(episode, world_rows, "update_user", 409, "inactive_location", user_id=REPORTER, location_id=empty)
    refused(episode, world_rows, "register_configuration_item", 409, "inactive_location", name="x",
            ci_class="laptop", location_id=empty)  # fmt: skip
    refused(episode, world_rows, "update_configuration_item", 409, "inactive_location", ci_id="CI-00020",
            location_id=empty)  # fmt: skip
    # renaming to a name in use, giving nothing, an unknown site: refused
    refused(episode, world_rows, "update_location", 409, "duplicate", location_id=empty, name="boston hq")
    refused(episode, world_rows, "update_location", 400, "missing_field", location_id=empty)
    refused(episode, world_rows, "update_location", 404, "not_found", location_id="LOC-999", city="Austin")
    refused(play(AGENT), world_rows, "update_location", 403, "forbidden", location_id="LOC-001", address="x")
    # reopened, it takes people again; a change to nothing new writes nothing
    assert ok(episode, "update_location", location_id=empty, active=True)["changed"] == ["active"]
    assert ok(episode, "update_user", user_id=REPORTER, location_id=empty)["location_id"] == empty
    assert ok(episode, "update_location", location_id=empty, city="Austin")["changed"] == []
    assert [a[1:5] for a in audits(episode)] == [
        ("create_location", "create", "locations", empty),
        ("update_location", "update", "locations", empty),
        ("update_location", "update", "locations", empty),
        ("update_user", "update", "sys_users", REPORTER),
    ]


# --- groups: creating, changing and deactivating a group ----------------------------------------------


def test_a_manager_creates_a_group_and_changes_it(play, world_rows):
    episode = play(MANAGER)
    group = ok(episode, "create_group", name="Robotics Lab Support", email="LabSupport@acme-robotics.example",
               manager_id="USR-0022", description="Second line for the robotics labs")  # fmt: skip
    assert (group["id"], group["org_id"], group["email"], group["manager_id"], group["active"]) == (
        "GRP-006",
        "ORG-ACME",
        "labsupport@acme-robotics.example",
        "USR-0022",
        True,
    )
    assert (group["manager_name"], group["member_count"]) == ("Olga Sorensen", 0)
    assert audits(episode)[-1][1:5] == ("create_group", "create", "user_groups", "GRP-006")
    refused(episode, world_rows, "create_group", 409, "duplicate", name="service desk")
    refused(
        episode, world_rows, "create_group", 409, "duplicate", name="Lab Two", email="labsupport@acme-robotics.example"
    )
    refused(episode, world_rows, "create_group", 400, "invalid_value", name="Lab Two", email="not-an-address")
    refused(episode, world_rows, "create_group", 409, "inactive_user", name="Lab Two", manager_id=FORMER)
    refused(episode, world_rows, "create_group", 404, "not_found", name="Lab Two", manager_id="USR-0999")
    refused(play(AGENT), world_rows, "create_group", 403, "forbidden", name="Lab Two")
    changed = ok(episode, "update_group", group_id="GRP-006", name="Robotics Lab IT", description="Lab IT support")
    assert changed["changed"] == ["name", "description"]
    assert rows(episode, "SELECT name, description FROM user_groups WHERE id = 'GRP-006'") == [
        ("Robotics Lab IT", "Lab IT support")
    ]
    fields = '["description", "name"]'
    assert audits(episode)[-1] == (MANAGER, "update_group", "update", "user_groups", "GRP-006", fields)
    refused(episode, world_rows, "update_group", 409, "duplicate", group_id="GRP-006", name="End-User Computing")
    refused(episode, world_rows, "update_group", 400, "missing_field", group_id="GRP-006")
    refused(play(AGENT), world_rows, "update_group", 403, "forbidden", group_id="GRP-004", description="x")


def test_a_group_is_deactivated_only_once_its_work_has_moved_and_then_takes_none(play, world_rows):
    episode = play(MANAGER)
    message = refused(episode, world_rows, "update_group", 409, "in_use", group_id="GRP-004", active=False)
    assert "open incidents" in message and "services it owns" in message
    spare = ok(episode, "create_group", name="Print Room")["id"]
    ok(episode, "add_group_member", group_id=spare, user_id="USR-0008")
    assert ok(episode, "update_group", group_id=spare, active=False)["changed"] == ["active"]
    assert [g["id"] for g in ok(episode, "list_groups", active=False)["rows"]] == [spare]
    # an inactive group takes no new members, work, services or templates
    refused(episode, world_rows, "add_group_member", 409, "inactive_group", group_id=spare, user_id="USR-0019")
    refused(episode, world_rows, "onboard_user", 409, "inactive_group", name="x", email="x@acme-robotics.example",
            group_ids=[spare])  # fmt: skip
    refused(episode, world_rows, "create_incident", 409, "inactive_group", caller_id=REPORTER, short_description="x",
            category="hardware", impact=3, urgency=3, assignment_group_id=spare)  # fmt: skip
    refused(episode, world_rows, "update_incident", 409, "inactive_group", incident_number="INC0001027",
            assignment_group_id=spare)  # fmt: skip
    refused(episode, world_rows, "assign_incident", 409, "inactive_group", incident_number="INC0001027",
            assigned_to_id="USR-0008", assignment_group_id=spare)  # fmt: skip
    refused(episode, world_rows, "create_problem", 409, "inactive_group", short_description="x", impact=3, urgency=3,
            assignment_group_id=spare)  # fmt: skip
    refused(episode, world_rows, "create_service", 409, "inactive_group", name="Printing", owner_group_id=spare)
    refused(episode, world_rows, "create_incident_template", 409, "inactive_group", name="x", short_description="x",
            category="hardware", impact=3, urgency=3, assignment_group_id=spare)  # fmt: skip
    # reactivated, it takes work again
    ok(episode, "update_group", group_id=spare, active=True)
    ok(episode, "add_group_member", group_id=spare, user_id="USR-0019")
