"""Organization scope in a tenant of several organizations.

The test builds its own small multi-organization world through a task's ``seed_changes``: a client
organization ORG-BETA beside Acme, with users, groups, a service, the catalog, CIs, incidents,
knowledge, problems, changes, SLA definitions and more, and one Acme user (USR-0003, a
provider-style agent) who also holds the agent role in ORG-BETA. Acme's manager USR-0002 holds no
role there: to them ORG-BETA must be invisible.

Every tool of the world is covered by name (a new tool fails the coverage assertions until it is
added here): every read answers the outsider exactly as if ORG-BETA did not exist (404 for a
look-up, nothing in a list or count), and every write is refused and writes nothing; the same
calls by ORG-BETA's own manager succeed, so the refusals are the scope's and not the arguments'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simtenant.episode import Episode
from simtenant.task import Task
from simtenant.tools.engine.dispatch import Memo, Outcome
from simtenant.tools.engine.rows import driver
from simtenant.world import get_task, get_world

WORLD = get_world("itsm")
TOOLS = {t.name: t for t in WORLD.tools}
NOW = "2026-05-18T09:00:00Z"
T0 = "2026-05-10T08:00:00Z"  # when ORG-BETA's seeded records were made
ORG = "ORG-BETA"
OUTSIDER = "USR-0002"  # Acme's service desk manager: no role in ORG-BETA
PROVIDER = "USR-0003"  # an Acme agent who also holds the agent role in ORG-BETA
BETA_MANAGER = "USR-0903"  # ORG-BETA's own manager (no role at Acme)
ACME_REPORTER = "USR-0005"
ACME_INCIDENT, ACME_CI, ACME_ARTICLE = "INC0001020", "CI-00001", "KB0000301"
ACME_PROBLEM, ACME_CHANGE = "PRB0000106", "CHG0000207"

Rows = Callable[[Path], dict[str, list[tuple]]]


def beta(**row: Any) -> dict[str, Any]:
    return {"org_id": ORG, **row}


def mail(name: str) -> str:
    return f"{name}@beta-logistics.example"


RESPONSE = {1: 20, 2: 45, 3: 90, 4: 240, 5: 600}  # minutes; Acme's targets all differ from these
RESOLUTION = {1: 180, 2: 600, 3: 1200, 4: 2880, 5: 5760}

# fmt: off
BETA: dict[str, list[dict[str, Any]]] = {
    "organizations": [{"id": ORG, "name": "Beta Logistics", "kind": "client", "active": True}],
    "locations": [beta(id="LOC-901", name="Beta Rotterdam Hub", city="Rotterdam", country="NL")],
    "sys_users": [
        beta(id="USR-0903", name="Femke Jansen", email=mail("femke.jansen"), title="IT Manager", location_id="LOC-901"),
        beta(id="USR-0901", name="Bram Visser", email=mail("bram.visser"), title="Support Engineer",
             location_id="LOC-901", manager_id="USR-0903"),
        beta(id="USR-0902", name="Lotte de Vries", email=mail("lotte.devries"), title="Warehouse Planner",
             location_id="LOC-901", manager_id="USR-0903"),
        beta(id="USR-0904", name="Joris Bakker", email=mail("joris.bakker"), title="Driver", locked=True),
    ],
    "user_roles": [
        {"user_id": "USR-0903", "role_id": "manager", "org_id": ORG},
        {"user_id": "USR-0901", "role_id": "agent", "org_id": ORG},
        {"user_id": "USR-0902", "role_id": "reporter", "org_id": ORG},
        {"user_id": "USR-0904", "role_id": "reporter", "org_id": ORG},
        {"user_id": PROVIDER, "role_id": "agent", "org_id": ORG},
    ],
    "user_groups": [
        beta(id="GRP-901", name="Beta Service Desk", email=mail("servicedesk"), manager_id="USR-0903"),
        beta(id="GRP-902", name="Change Advisory Board", email=mail("cab"), manager_id="USR-0903"),
    ],
    "group_members": [
        beta(group_id="GRP-901", user_id="USR-0901"),
        beta(group_id="GRP-901", user_id="USR-0903"),
        beta(group_id="GRP-902", user_id="USR-0903"),
    ],
    "services": [beta(id="SVC-901", name="Warehouse Management", owner_group_id="GRP-901", status="operational")],
    "service_offerings": [beta(id="OFR-901", service_id="SVC-901", name="Warehouse Management - Scanners")],
    "catalog_items": [
        beta(id="CAT-901", name="Rugged handheld scanner", category="hardware", price=899.0,
             fulfillment_group_id="GRP-901", needs_approval=True, active=True),
    ],
    "catalog_requests": [
        beta(id="REQ0009001", item_id="CAT-901", requested_for_id="USR-0902", requested_by_id="USR-0901",
             quantity=1, status="submitted", created_at=T0, updated_at=T0),
        beta(id="REQ0009002", item_id="CAT-901", requested_for_id="USR-0902", requested_by_id="USR-0901",
             quantity=2, status="approved", created_at=T0, updated_at=T0),
    ],
    "configuration_items": [
        beta(id="CI-09001", name="RTM-LT-0001 ThinkPad T14", ci_class="laptop", serial_number="BETA-SN-0001",
             status="in_use", owner_id="USR-0902", location_id="LOC-901", cost=1200.0),
        beta(id="CI-09002", name="wms-app-01", ci_class="server", serial_number="BETA-SN-0002", status="in_use",
             location_id="LOC-901", cost=5000.0),
        beta(id="CI-09003", name="wms-db-01", ci_class="database", serial_number="BETA-SN-0003",
             status="in_stock", location_id="LOC-901", cost=0.0),
    ],
    "ci_relationships": [beta(id=9001, parent_id="CI-09002", child_id="CI-09003", kind="depends_on")],
    "incident_templates": [
        beta(id="TPL-901", name="Scanner fault", short_description="Handheld scanner fault", category="hardware",
             impact=3, urgency=3, assignment_group_id="GRP-901"),
    ],
    "sla_definitions": [  # all but P5 resolution, which the SLA tools add
        beta(id=f"SLA-BETA-P{p}-{code}", name=f"Beta P{p} {stage}", priority=p, stage=stage, target_minutes=t[p])
        for p in range(1, 6)
        for code, stage, t in (("RESP", "response", RESPONSE), ("RES", "resolution", RESOLUTION))
        if (p, stage) != (5, "resolution")
    ],
    "knowledge_articles": [
        beta(id="KB0009001", title="Re-pairing a handheld scanner", body="Dock it, hold the trigger 10 s.",
             category="hardware", keywords="scanner,handheld", state="published", author_id="USR-0901",
             created_at=T0, updated_at=T0),
        beta(id="KB0009002", title="Dock door sensors", body="Draft.", category="hardware", keywords="dock",
             state="draft", author_id="USR-0901", created_at=T0, updated_at=T0),
        beta(id="KB0009003", title="Label printer queues", body="In review.", category="hardware",
             keywords="label printer", state="review", author_id="USR-0901", created_at=T0, updated_at=T0),
    ],
    "problems": [
        beta(id="PRB0009001", short_description="Scanners lose their pairing", status="new", priority=3,
             assignment_group_id="GRP-901", opened_at=T0, updated_at=T0),
        beta(id="PRB0009002", short_description="WMS slow at shift change", status="resolved", priority=4,
             root_cause="Batch job at 06:00", opened_at=T0, updated_at=T0),
    ],
    "change_requests": [
        beta(id="CHG0009001", short_description="Patch wms-app-01", category="normal", risk="low", impact=3,
             cab_required=False, status="new", requested_by_id="USR-0901", assignment_group_id="GRP-901",
             ci_id="CI-09002", created_at=T0, updated_at=T0),
        beta(id="CHG0009002", short_description="Move the WMS database", category="normal", risk="moderate",
             impact=2, cab_required=False, status="review", requested_by_id="USR-0901",
             implementation_plan="Move it.", test_plan="Test it.", backout_plan="Move it back.",
             start_at="2026-05-12T20:00:00Z", end_at="2026-05-12T22:00:00Z", created_at=T0, updated_at=T0),
        beta(id="CHG0009003", short_description="Replace the core switch", category="normal", risk="high",
             impact=2, cab_required=True, status="authorize", requested_by_id="USR-0901",
             implementation_plan="Swap it.", test_plan="Ping.", backout_plan="Swap back.",
             created_at=T0, updated_at=T0),
    ],
    "change_approvals": [beta(id=9001, change_id="CHG0009003", approver_id="USR-0903", state="requested")],
    "incidents": [
        beta(id="INC0009001", caller_id="USR-0902", short_description="Handheld scanner will not sync",
             category="hardware", impact=2, urgency=2, priority=3, status="in_progress",
             assignment_group_id="GRP-901", assigned_to_id="USR-0901", service_id="SVC-901", offering_id="OFR-901",
             ci_id="CI-09001", problem_id="PRB0009001", opened_at=T0, updated_at=T0),
        beta(id="INC0009002", caller_id="USR-0902", short_description="Warehouse Management is slow",
             category="software", impact=3, urgency=3, priority=5, status="resolved", assignment_group_id="GRP-901",
             assigned_to_id="USR-0901", resolution_code="solved_permanently", resolution_notes="Moved the batch.",
             resolved_by_id="USR-0901", resolved_at=T0, opened_at=T0, updated_at=T0),
        beta(id="INC0009003", caller_id="USR-0902", short_description="Label printer offline", category="hardware",
             impact=2, urgency=3, priority=4, status="new", opened_at=T0, updated_at=T0),
        beta(id="INC0009004", caller_id="USR-0902", short_description="Dock door sensor fault", category="hardware",
             impact=3, urgency=2, priority=4, status="on_hold", hold_reason="awaiting_caller",
             assignment_group_id="GRP-901", parent_id="INC0009001", opened_at=T0, updated_at=T0),
    ],
    "problem_incidents": [beta(problem_id="PRB0009001", incident_id="INC0009001")],
    "incident_work_notes": [
        beta(id=9001, incident_id="INC0009001", author_id="USR-0901", note="Re-paired the cradle.", created_at=T0),
    ],
    "incident_affected_cis": [beta(incident_id="INC0009001", ci_id="CI-09001")],
    "incident_knowledge": [beta(incident_id="INC0009001", article_id="KB0009001", relation="suggested")],
    "incident_slas": [
        beta(id=9001, incident_id="INC0009001", sla_id="SLA-BETA-P3-RESP", stage="response", state="in_progress",
             started_at=T0, breach_at="2026-05-10T09:30:00Z", breached=False),
        beta(id=9002, incident_id="INC0009001", sla_id="SLA-BETA-P3-RES", stage="resolution", state="in_progress",
             started_at=T0, breach_at="2026-05-11T04:00:00Z", breached=False),
    ],
    "notifications": [
        beta(id=9001, recipient_id="USR-0902", channel="email", subject="Your scanner", body="We are on it.",
             record_table="incidents", record_id="INC0009001", created_at=T0),
        beta(id=9002, recipient_id="USR-0902", channel="portal", subject="Scanner swap", body="Tomorrow at 07:00.",
             record_table="incidents", record_id="INC0009001", created_at=T0, status="scheduled",
             scheduled_for="2026-05-19T06:00:00Z"),
    ],
    "audit_log": [
        beta(id=9001, actor_id="USR-0901", tool="create_incident", action="create", record_table="incidents",
             record_id="INC0009001", fields=["caller_id"], created_at=T0),
    ],
}
# fmt: on

# What only ORG-BETA's records hold: their ids (all distinct from Acme's) and its mail domain.
BETA_TOKENS = {ORG} | {
    r["id"] for rows in BETA.values() for r in rows if r.get("org_id") == ORG and isinstance(r.get("id"), str)
}


def leaks(value: Any) -> list[str]:
    """The ORG-BETA identifiers (or addresses) anywhere in a result."""
    if isinstance(value, dict):
        return [leak for v in value.values() for leak in leaks(v)]
    if isinstance(value, list):
        return [leak for v in value for leak in leaks(v)]
    if isinstance(value, str) and (value in BETA_TOKENS or "beta-logistics" in value):
        return [value]
    return []


def task(changes: dict[str, list[dict[str, Any]]], name: str) -> Task:
    return Task.model_validate(
        {
            "id": f"itsm/scope-{name}",
            "world": "itsm",
            "description": "t",
            "instruction": "t",
            "current_time": NOW,
            "actor": OUTSIDER,
            "seed_changes": changes,
            "gold": [],
            "hash": f"scope-{name}",
        }
    )


BASE_TASK = task({}, "base")  # Acme alone: what the outsider must see in the world with ORG-BETA too
BETA_TASK = task(BETA, "beta")


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Episode]]:
    opened: list[Episode] = []

    def begin(which: Task, name: str) -> Episode:
        episode = Episode.start(which, tmp_path / f"{name}.db")
        opened.append(episode)
        return episode

    yield begin
    for episode in opened:
        episode.close()


@pytest.fixture
def ep(start: Callable[..., Episode]) -> Episode:
    return start(BETA_TASK, "beta")


def call(episode: Episode, actor: str, tool: str, args: dict[str, Any] | None = None) -> Outcome:
    episode.actor = actor
    return episode.call(tool, args or {})


def ok(episode: Episode, actor: str, tool: str, **args: Any) -> Any:
    outcome = call(episode, actor, tool, args)
    assert outcome.ok, (tool, outcome.error)
    return outcome.result


def refused(episode: Episode, rows: Rows, actor: str, tool: str, code: int, error: str | None = None, **args: Any):
    before = rows(episode.path)
    outcome = call(episode, actor, tool, args)
    assert not outcome.ok and outcome.error["code"] == code, (tool, outcome.error or outcome.result)
    if error is not None:
        assert outcome.error["error"] == error, (tool, outcome.error)
    assert rows(episode.path) == before, f"{tool} wrote while refused"
    return outcome.error


# --- every read tool --------------------------------------------------------------------------------

# Look-ups of ORG-BETA's records: 404 for the outsider, found for ORG-BETA's manager.
LOOKUPS: dict[str, dict[str, Any]] = {
    "get_organization": {"org_id": ORG},
    "get_location": {"location_id": "LOC-901"},
    "get_user_by_id": {"user_id": "USR-0902"},
    "get_user_by_email": {"email": mail("lotte.devries")},
    "get_user_roles": {"user_id": "USR-0902"},
    "check_user_permission": {"user_id": "USR-0902", "resource": "incident", "action": "read"},
    "get_group_by_name": {"name": "Beta Service Desk"},
    "list_group_members": {"group_id": "GRP-901"},
    "list_user_groups": {"user_id": "USR-0901"},
    "get_service_by_name": {"name": "Warehouse Management"},
    "get_catalog_item": {"item_id": "CAT-901"},
    "get_request": {"request_id": "REQ0009001"},
    "get_configuration_item": {"ci_id": "CI-09001"},
    "find_configuration_item_by_serial_number": {"serial_number": "beta-sn-0001"},
    "list_ci_relationships": {"ci_id": "CI-09002"},
    "get_incident_by_number": {"incident_number": "INC0009001"},
    "get_incidents_assigned_to": {"user_id": "USR-0901"},
    "get_incidents_by_caller": {"caller_id": "USR-0902"},
    "list_work_notes": {"incident_number": "INC0009001"},
    "list_child_incidents": {"incident_number": "INC0009001"},
    "list_affected_cis": {"incident_number": "INC0009001"},
    "list_incident_knowledge": {"incident_number": "INC0009001"},
    "get_incident_slas": {"incident_number": "INC0009001"},
    "get_problem": {"problem_id": "PRB0009001"},
    "list_problem_incidents": {"problem_id": "PRB0009001"},
    "get_change_request": {"change_id": "CHG0009003"},
    "list_change_approvals": {"change_id": "CHG0009003"},
    "get_knowledge_article": {"article_id": "KB0009001"},
    "get_notification": {"notification_id": 9001},
}

# Lists and aggregations, with arguments that pick ORG-BETA's records: called so and without
# arguments, the outsider sees exactly what they see when ORG-BETA does not exist.
LISTS: dict[str, dict[str, Any]] = {
    "list_locations": {"per_page": 50},
    "find_users_by_name": {"name": "visser"},
    "list_users": {"location_id": "LOC-901"},
    "list_groups": {"per_page": 50},
    "list_services": {"status": "operational"},
    "list_service_offerings": {"service_id": "SVC-901"},
    "list_catalog_items": {"category": "hardware", "per_page": 50},
    "list_requests": {"item_id": "CAT-901"},
    "list_configuration_items": {"owner_id": "USR-0902"},
    "list_incidents": {"caller_id": "USR-0902"},
    "list_incident_templates": {},
    "list_problems": {"assignment_group_id": "GRP-901"},
    "list_change_requests": {"requested_by_id": "USR-0901"},
    "search_knowledge": {"query": "scanner"},
    "list_sla_definitions": {"priority": 3},
    "list_notifications": {"recipient_id": "USR-0902"},
    "list_audit_entries": {"record_id": "INC0009001"},
    "count_incidents_by_priority": {"assignment_group_id": "GRP-901"},
    "count_incidents_by_group": {"open_only": True},
    "count_incidents_by_status": {"assignment_group_id": "GRP-901"},
    "count_open_incidents_by_assignee": {"assignment_group_id": "GRP-901"},
    "count_breached_slas_by_stage": {"priority": 3},
    "count_notifications_by_channel": {"recipient_id": "USR-0902"},
    "count_notifications_by_status": {"recipient_id": "USR-0902"},
    "count_notifications_by_record": {"recipient_id": "USR-0902"},
    "count_notifications_by_recipient": {"record_id": "INC0009001"},
    "average_sla_target_by_priority": {"stage": "response"},
    "count_changes_by_state": {"category": "normal"},
    "count_configuration_items_by_class": {"status": "in_use"},
}

# Reference data every organization shares (the role definitions): no organization's records.
SHARED: dict[str, dict[str, Any]] = {"list_roles": {}, "get_role_permissions": {"role_id": "agent"}}
# The actor's scope itself: the organizations they may work in (no org filter: it is the list of them).
SCOPE: dict[str, dict[str, Any]] = {"list_organizations": {}}


def test_every_read_tool_is_covered():
    reads = {t.name for t in WORLD.tools if not t.writes}
    assert set(LOOKUPS) | set(LISTS) | set(SHARED) | set(SCOPE) == reads
    assert not (set(LOOKUPS) & set(LISTS)) and not (set(LOOKUPS) & set(SHARED))


def test_reads_show_nothing_of_an_organization_outside_scope(start):
    world, alone = start(BETA_TASK, "beta"), start(BASE_TASK, "base")
    for tool, args in LOOKUPS.items():
        outside = call(world, OUTSIDER, tool, args)
        assert not outside.ok and outside.error["code"] == 404, (tool, outside.error or outside.result)
        assert outside.error == call(alone, OUTSIDER, tool, args).error, tool  # as if it did not exist
        inside = call(world, BETA_MANAGER, tool, args)
        assert inside.ok and leaks(inside.result), (tool, inside.error)
    for tool, args in {**LISTS, **SHARED, **SCOPE}.items():
        required = [n for n, f in TOOLS[tool].arguments.model_fields.items() if f.is_required()]
        for given in ({n: args[n] for n in required}, args):
            outside = call(world, OUTSIDER, tool, given)
            assert outside.ok, (tool, outside.error)
            assert not leaks(outside.result), (tool, leaks(outside.result))
            assert outside.result == call(alone, OUTSIDER, tool, given).result, (tool, given)
        if tool in LISTS:  # the arguments do pick records, which ORG-BETA's manager sees
            inside = call(world, BETA_MANAGER, tool, args)
            assert inside.ok and inside.result != outside.result, (tool, inside.error)
            assert leaks(inside.result) or tool.startswith(("count_", "average_")), tool


def test_a_provider_agent_sees_both_organizations_and_an_acme_agent_only_acme(ep):
    acme = ok(ep, OUTSIDER, "list_incidents", per_page=50)["total"]
    both = ok(ep, PROVIDER, "list_incidents", per_page=50)
    assert both["total"] == acme + 4 and {r["org_id"] for r in both["rows"]} == {"ORG-ACME", ORG}
    assert ok(ep, PROVIDER, "get_incident_by_number", incident_number="INC0009001")["org_id"] == ORG
    assert ok(ep, "USR-0004", "list_incidents", per_page=50)["total"] == acme
    assert call(ep, "USR-0004", "get_incident_by_number", {"incident_number": "INC0009001"}).error["code"] == 404
    counts = ok(ep, PROVIDER, "count_incidents_by_group", open_only=True)["counts"]
    assert {"key": "GRP-901", "count": 2, "name": "Beta Service Desk"} in counts
    assert ok(ep, PROVIDER, "get_organization", org_id=ORG)["kind"] == "client"


# --- every write tool -------------------------------------------------------------------------------

# Each call acts on ORG-BETA's records (or creates in ORG-BETA) and succeeds for ORG-BETA's manager.
WRITES: dict[str, dict[str, Any]] = {
    "onboard_user": {"name": "Sanne Smit", "email": mail("sanne.smit"), "location_id": "LOC-901",
                     "manager_id": "USR-0903", "role_ids": ["reporter"], "group_ids": ["GRP-901"], "org_id": ORG},
    "update_user": {"user_id": "USR-0902", "title": "Shift Lead"},
    "offboard_user": {"user_id": "USR-0901"},
    "unlock_user": {"user_id": "USR-0904", "verified": True},
    "assign_role": {"user_id": "USR-0902", "role_id": "agent"},
    "revoke_role": {"user_id": "USR-0902", "role_id": "reporter"},
    "add_group_member": {"group_id": "GRP-902", "user_id": "USR-0901"},
    "remove_group_member": {"group_id": "GRP-901", "user_id": "USR-0901"},
    "set_group_manager": {"group_id": "GRP-901", "manager_id": "USR-0901"},
    "update_service_status": {"service_id": "SVC-901", "status": "degraded"},
    "request_catalog_item": {"item_id": "CAT-901", "requested_for_id": "USR-0902"},
    "approve_request": {"request_id": "REQ0009001"},
    "reject_request": {"request_id": "REQ0009001", "reason": "Budget"},
    "fulfil_request": {"request_id": "REQ0009002"},
    "cancel_request": {"request_id": "REQ0009001", "reason": "No longer needed"},
    "register_configuration_item": {"name": "RTM-LT-0002", "ci_class": "laptop", "serial_number": "BETA-SN-0009",
                                    "location_id": "LOC-901", "org_id": ORG},
    "update_configuration_item": {"ci_id": "CI-09001", "cost": 1100.0},
    "assign_configuration_item": {"ci_id": "CI-09003", "owner_id": "USR-0901"},
    "retire_configuration_item": {"ci_id": "CI-09003"},
    "add_ci_relationship": {"parent_id": "CI-09001", "child_id": "CI-09002", "kind": "connected_to"},
    "remove_ci_relationship": {"parent_id": "CI-09002", "child_id": "CI-09003", "kind": "depends_on"},
    "create_incident": {"caller_id": "USR-0902", "short_description": "Scanner battery swelling",
                        "category": "hardware", "impact": 2, "urgency": 2, "assignment_group_id": "GRP-901"},
    "update_incident": {"incident_number": "INC0009001", "impact": 1},
    "assign_incident": {"incident_number": "INC0009004", "assigned_to_id": "USR-0901"},
    "start_incident_work": {"incident_number": "INC0009003"},
    "put_incident_on_hold": {"incident_number": "INC0009001", "hold_reason": "awaiting_vendor"},
    "resume_incident": {"incident_number": "INC0009004"},
    "resolve_incident": {"incident_number": "INC0009001", "resolution_code": "solved_workaround",
                         "resolution_notes": "Swapped the cradle."},
    "close_incident": {"incident_number": "INC0009002", "close_notes": "Confirmed by the caller."},
    "reopen_incident": {"incident_number": "INC0009002", "reason": "Slow again"},
    "cancel_incident": {"incident_number": "INC0009003", "reason": "Logged twice"},
    "add_work_note": {"incident_number": "INC0009001", "note": "Vendor contacted."},
    "add_child_incident": {"parent_number": "INC0009001", "child_number": "INC0009003"},
    "link_affected_ci": {"incident_number": "INC0009001", "ci_id": "CI-09002"},
    "unlink_affected_ci": {"incident_number": "INC0009001", "ci_id": "CI-09001"},
    "create_problem": {"short_description": "Sensors drop off the network", "impact": 2, "urgency": 2,
                       "assignment_group_id": "GRP-901", "org_id": ORG},
    "update_problem": {"problem_id": "PRB0009001", "root_cause": "Firmware 4.2"},
    "advance_problem": {"problem_id": "PRB0009001", "status": "assessed"},
    "set_problem_workaround": {"problem_id": "PRB0009001", "workaround": "Re-pair at shift start."},
    "link_incident_to_problem": {"problem_id": "PRB0009001", "incident_number": "INC0009003"},
    "unlink_incident_from_problem": {"problem_id": "PRB0009001", "incident_number": "INC0009001"},
    "close_problem": {"problem_id": "PRB0009002"},
    "create_change_request": {"short_description": "Upgrade scanner firmware", "category": "normal", "risk": "low",
                              "impact": 3, "assignment_group_id": "GRP-901", "ci_id": "CI-09002", "org_id": ORG},
    "update_change_request": {"change_id": "CHG0009001", "risk": "moderate"},
    "advance_change": {"change_id": "CHG0009001", "status": "assess"},
    "cancel_change": {"change_id": "CHG0009001", "reason": "Superseded"},
    "close_change": {"change_id": "CHG0009002", "close_code": "successful", "close_notes": "Done."},
    "request_change_approval": {"change_id": "CHG0009001", "approver_id": "USR-0903"},
    "approve_change": {"change_id": "CHG0009003", "comments": "Go"},
    "reject_change": {"change_id": "CHG0009003", "comments": "Not in peak season"},
    "link_change_to_incident": {"change_id": "CHG0009001", "incident_number": "INC0009001"},
    "create_knowledge_article": {"title": "Scanner batteries", "body": "Replace swollen ones.",
                                 "category": "hardware", "org_id": ORG},
    "update_knowledge_article": {"article_id": "KB0009002", "title": "Dock door sensors: resets"},
    "submit_article_for_review": {"article_id": "KB0009002"},
    "publish_article": {"article_id": "KB0009003"},
    "retire_article": {"article_id": "KB0009001"},
    "link_knowledge_to_incident": {"incident_number": "INC0009001", "article_id": "KB0009001",
                                   "relation": "resolution"},
    "link_new_incident_sla": {"incident_number": "INC0009003"},
    "send_notification": {"recipient_id": "USR-0902", "channel": "email", "subject": "Scanner",
                          "body": "Fixed.", "record_table": "incidents", "record_id": "INC0009001"},
    "update_notification": {"notification_id": 9002, "subject": "Scanner swap at 07:00"},
    "delete_notification": {"notification_id": 9002},
    "create_location": {"name": "Beta Antwerp Depot", "city": "Antwerp", "country": "BE", "org_id": ORG},
    "update_location": {"location_id": "LOC-901", "address": "Waalhaven 12"},
    "create_group": {"name": "Beta Night Shift", "manager_id": "USR-0903", "org_id": ORG},
    "update_group": {"group_id": "GRP-901", "description": "First line for the hubs"},
    "create_service": {"name": "Yard Management", "owner_group_id": "GRP-901", "org_id": ORG},
    "update_service": {"service_id": "SVC-901", "criticality": "critical"},
    "update_service_offering": {"offering_id": "OFR-901", "name": "Warehouse Management - Handheld scanners"},
    "create_sla_definition": {"name": "Beta P5 resolution", "priority": 5, "stage": "resolution",
                              "target_minutes": 5760, "org_id": ORG},
    "update_sla_definition": {"sla_id": "SLA-BETA-P3-RES", "target_minutes": 1000},
    "create_incident_template": {"name": "Dock door fault", "short_description": "Dock door sensor fault",
                                 "category": "hardware", "impact": 3, "urgency": 2, "assignment_group_id": "GRP-901",
                                 "org_id": ORG},
    "update_incident_template": {"template_id": "TPL-901", "service_id": "SVC-901"},
    "update_child_incident": {"child_number": "INC0009004", "parent_number": "INC0009003",
                              "work_note": "A fault of the dock, not of the scanners"},
    "remove_child_incident": {"child_number": "INC0009004", "work_note": "A separate fault"},
}  # fmt: skip


def test_every_write_tool_is_covered():
    assert set(WRITES) == {t.name for t in WORLD.tools if t.writes}


def test_writes_refuse_an_organization_outside_scope_and_write_nothing(start, world_rows):
    alone = start(BASE_TASK, "base")
    for tool, args in WRITES.items():
        world = start(BETA_TASK, tool)
        error = refused(world, world_rows, OUTSIDER, tool, 404, **args)
        assert error == call(alone, OUTSIDER, tool, args).error, tool  # as if ORG-BETA did not exist
        assert not leaks(error["message"]), (tool, error)
        done = call(world, BETA_MANAGER, tool, args)  # the same call, in scope
        assert done.ok, (tool, done.error)
        world.close()


def test_a_related_record_outside_scope_is_not_found(ep, world_rows):
    """An Acme record written with a reference to one of ORG-BETA's: 404, as for an unknown id."""
    for tool, args in {
        "create_incident": {"caller_id": ACME_REPORTER, "short_description": "x", "category": "inquiry", "impact": 3,
                            "urgency": 3, "assignment_group_id": "GRP-901"},
        "update_incident": {"incident_number": ACME_INCIDENT, "ci_id": "CI-09001"},
        "assign_incident": {"incident_number": ACME_INCIDENT, "assigned_to_id": "USR-0901", "work_note": "x"},
        "link_affected_ci": {"incident_number": ACME_INCIDENT, "ci_id": "CI-09001"},
        "link_knowledge_to_incident": {"incident_number": ACME_INCIDENT, "article_id": "KB0009001",
                                       "relation": "applied"},
        "add_child_incident": {"parent_number": "INC0009001", "child_number": ACME_INCIDENT},
        "add_ci_relationship": {"parent_id": ACME_CI, "child_id": "CI-09001", "kind": "depends_on"},
        "create_problem": {"short_description": "x", "impact": 3, "urgency": 3, "assigned_to_id": "USR-0901"},
        "create_change_request": {"short_description": "x", "category": "normal", "risk": "low", "impact": 3,
                                  "ci_id": "CI-09002"},
        "request_change_approval": {"change_id": ACME_CHANGE, "approver_id": "USR-0903"},
        "send_notification": {"recipient_id": ACME_REPORTER, "channel": "email", "subject": "x", "body": "x",
                              "record_table": "incidents", "record_id": "INC0009001"},
        "assign_configuration_item": {"ci_id": ACME_CI, "owner_id": "USR-0902"},
        "add_group_member": {"group_id": "GRP-001", "user_id": "USR-0901"},
        "update_user": {"user_id": ACME_REPORTER, "manager_id": "USR-0903"},
        "onboard_user": {"name": "x", "email": "x@acme-robotics.example", "group_ids": ["GRP-901"]},
        "register_configuration_item": {"name": "x", "ci_class": "laptop", "location_id": "LOC-901"},
        "create_service": {"name": "x", "owner_group_id": "GRP-901"},
        "create_group": {"name": "x", "manager_id": "USR-0903"},
        "create_incident_template": {"name": "x", "short_description": "x", "category": "inquiry", "impact": 3,
                                     "urgency": 3, "service_id": "SVC-901"},
        "update_child_incident": {"child_number": "INC0001018", "parent_number": "INC0009001", "work_note": "x"},
    }.items():  # fmt: skip
        refused(ep, world_rows, OUTSIDER, tool, 404, "not_found", **args)


# --- a provider-style user working in a client organization ----------------------------------------


def test_a_provider_agent_creates_an_incident_in_the_client_organization(ep):
    created = ok(ep, PROVIDER, "create_incident", caller_id="USR-0902", short_description="Handheld scanner is dead",
                 category="hardware", impact=2, urgency=2, assignment_group_id="GRP-901", service_id="SVC-901",
                 ci_id="CI-09001")  # fmt: skip
    assert created["org_id"] == ORG and created["priority"] == 3 and created["id"] == "INC0009005"
    assert [(c["org_id"], c["sla_id"], c["stage"], c["breach_at"]) for c in created["slas"]] == [
        (ORG, "SLA-BETA-P3-RES", "resolution", "2026-05-19T05:00:00Z"),  # 1200 minutes
        (ORG, "SLA-BETA-P3-RESP", "response", "2026-05-18T10:30:00Z"),  # 90 minutes
    ]
    assert created["suggested_knowledge"] == [{"article_id": "KB0009001", "title": "Re-pairing a handheld scanner"}]
    audit = ok(ep, BETA_MANAGER, "list_audit_entries", record_id="INC0009005")["rows"]
    assert {(a["org_id"], a["actor_id"], a["tool"]) for a in audit} == {(ORG, PROVIDER, "create_incident")}
    assert ok(ep, BETA_MANAGER, "get_incident_by_number", incident_number="INC0009005")["caller_name"] == (
        "Lotte de Vries"
    )
    assert call(ep, OUTSIDER, "get_incident_by_number", {"incident_number": "INC0009005"}).error["code"] == 404
    # an Acme caller's incident stays at Acme, with Acme's SLAs
    acme = ok(ep, PROVIDER, "create_incident", caller_id=ACME_REPORTER, short_description="Monitor flickers",
              category="hardware", impact=2, urgency=2)  # fmt: skip
    assert acme["org_id"] == "ORG-ACME" and {c["sla_id"][:6] for c in acme["slas"]} == {"SLA-P3"}


def test_records_without_an_anchor_go_to_the_org_id_given_or_home(ep, world_rows):
    problem = ok(ep, PROVIDER, "create_problem", short_description="Scanners drop", impact=2, urgency=3,
                 assignment_group_id="GRP-901", assigned_to_id="USR-0901", org_id=ORG)  # fmt: skip
    assert problem["org_id"] == ORG
    assert ok(ep, PROVIDER, "create_problem", short_description="Ours", impact=3, urgency=3)["org_id"] == "ORG-ACME"
    article = ok(ep, PROVIDER, "create_knowledge_article", title="Scanner resets", body="b", category="hardware",
                 org_id=ORG)  # fmt: skip
    assert (article["org_id"], article["author_id"]) == (ORG, PROVIDER)
    ci = ok(ep, PROVIDER, "register_configuration_item", name="RTM-LT-0003", ci_class="laptop",
            owner_id="USR-0902", org_id=ORG)  # fmt: skip
    assert (ci["org_id"], ci["status"]) == (ORG, "in_use")
    change = ok(ep, PROVIDER, "create_change_request", short_description="Firmware", category="standard",
                risk="low", impact=3, ci_id="CI-09002", org_id=ORG)  # fmt: skip
    assert (change["org_id"], change["requested_by_id"]) == (ORG, PROVIDER)
    # an organization outside scope (or none at all) is not found; one without change rights is 403
    refused(ep, world_rows, PROVIDER, "create_problem", 404, "not_found", short_description="x", impact=3,
            urgency=3, org_id="ORG-NOPE")  # fmt: skip
    refused(ep, world_rows, ACME_REPORTER, "create_knowledge_article", 404, "not_found", title="x", body="x",
            category="x", org_id=ORG)  # fmt: skip
    refused(ep, world_rows, PROVIDER, "onboard_user", 403, "forbidden", name="x", email=mail("x"), org_id=ORG)
    refused(ep, world_rows, PROVIDER, "close_incident", 403, "role_required", incident_number="INC0009002",
            close_notes="x")  # fmt: skip


def test_a_related_record_of_another_organization_in_scope_is_cross_organization(ep, world_rows):
    """The provider sees both organizations; a record of one never refers to a record of the other."""
    for tool, args in {
        "create_incident": {"caller_id": "USR-0902", "short_description": "x", "category": "inquiry", "impact": 3,
                            "urgency": 3, "assignment_group_id": "GRP-001"},
        "update_incident": {"incident_number": "INC0009001", "service_id": "SVC-001"},
        "assign_incident": {"incident_number": "INC0009004", "assigned_to_id": OUTSIDER},  # no role there
        "link_affected_ci": {"incident_number": "INC0009001", "ci_id": ACME_CI},
        "link_knowledge_to_incident": {"incident_number": "INC0009001", "article_id": ACME_ARTICLE,
                                       "relation": "applied"},
        "add_child_incident": {"parent_number": ACME_INCIDENT, "child_number": "INC0009003"},
        "add_ci_relationship": {"parent_id": "CI-09002", "child_id": ACME_CI, "kind": "depends_on"},
        "link_incident_to_problem": {"problem_id": ACME_PROBLEM, "incident_number": "INC0009003"},
        "link_change_to_incident": {"change_id": ACME_CHANGE, "incident_number": "INC0009003"},
        "create_problem": {"short_description": "x", "impact": 3, "urgency": 3, "assignment_group_id": "GRP-901"},
        "create_change_request": {"short_description": "x", "category": "normal", "risk": "low", "impact": 3,
                                  "requested_by_id": ACME_REPORTER, "org_id": ORG},
        "register_configuration_item": {"name": "x", "ci_class": "laptop", "owner_id": ACME_REPORTER, "org_id": ORG},
        "send_notification": {"recipient_id": "USR-0902", "channel": "email", "subject": "x", "body": "x",
                              "record_table": "incidents", "record_id": ACME_INCIDENT},
        "update_notification": {"notification_id": 9002, "recipient_id": ACME_REPORTER},
        "update_child_incident": {"child_number": "INC0009004", "parent_number": ACME_INCIDENT, "work_note": "x"},
    }.items():  # fmt: skip
        error = refused(ep, world_rows, PROVIDER, tool, 400, "cross_organization", **args)
        assert "belongs to" in error["message"], error


def test_provider_staff_with_a_role_in_the_client_work_on_its_records(start):
    """Holding a role in the client counts as working there: a provider agent may be a member of the
    client's group and the assignee of its incident; an Acme user without a role there may not."""
    changes = {**BETA, "group_members": [*BETA.get("group_members", []),
                                         {"group_id": "GRP-901", "user_id": PROVIDER, "org_id": ORG}]}  # fmt: skip
    episode = start(task(changes, "provider"), "provider")
    assigned = ok(episode, PROVIDER, "assign_incident", incident_number="INC0009004", assigned_to_id=PROVIDER)
    assert (assigned["org_id"], assigned["assigned_to_id"]) == (ORG, PROVIDER)
    error = call(
        episode,
        PROVIDER,
        "assign_incident",
        {"incident_number": "INC0009004", "assigned_to_id": OUTSIDER, "work_note": "Handing over"},
    )
    assert error.error["error"] == "cross_organization"


def test_find_one_skips_rows_the_user_may_not_read(start, world_rows):
    """A look-up by name does not stop at a match the user may not read: it goes on to the next one."""
    changes = {
        **BETA,
        "roles": [{"id": "billing", "name": "billing", "description": "Reads the catalog only"}],
        "role_permissions": [{"role_id": "billing", "permission_id": "PERM-catalog-read"}],
        "user_roles": [*BETA["user_roles"], {"user_id": BETA_MANAGER, "role_id": "billing", "org_id": "ORG-ACME"}],
        "user_groups": [*BETA["user_groups"], {"id": "GRP-901", "name": "Service Desk"}],  # Acme's GRP-001's name
    }
    episode = start(task(changes, "billing"), "billing")
    assert ok(episode, BETA_MANAGER, "get_group_by_name", name="service desk")["id"] == "GRP-901"
    assert ok(episode, OUTSIDER, "get_group_by_name", name="service desk")["id"] == "GRP-001"
    # the only match is one they may not read: refused, as before
    refused(episode, world_rows, BETA_MANAGER, "get_service_by_name", 403, "forbidden", name="email")
    items = ok(episode, BETA_MANAGER, "list_catalog_items", per_page=50)["rows"]
    assert {i["org_id"] for i in items} == {"ORG-ACME", ORG}
    assert ok(episode, BETA_MANAGER, "list_groups")["total"] == 2  # groups: ORG-BETA's only


def test_hidden_duplicates_do_not_say_whose_they_are(ep, world_rows):
    error = refused(ep, world_rows, OUTSIDER, "onboard_user", 409, "duplicate", name="x", email=mail("bram.visser"))
    assert "USR-0901" not in error["message"] and "Bram Visser" not in error["message"]
    error = refused(ep, world_rows, OUTSIDER, "register_configuration_item", 409, "duplicate", name="x",
                    ci_class="laptop", serial_number="BETA-SN-0001")  # fmt: skip
    assert "CI-09001" not in error["message"] and "RTM" not in error["message"]
    error = refused(ep, world_rows, PROVIDER, "register_configuration_item", 409, "duplicate", name="x",
                    ci_class="laptop", serial_number="BETA-SN-0001")  # fmt: skip
    assert "CI-09001" in error["message"]  # in scope: named


def test_the_acting_users_grants_are_read_once_until_a_call_writes_their_tables(ep):
    """Read once, however many calls use them (reads and writes alike); again for another actor, and
    after a call that writes a table they come from (a role granted)."""
    statements: list[str] = []
    connection = driver(ep.session)
    connection.set_trace_callback(statements.append)  # every statement run, the session's and Rows' alike
    for actor, tool, args, reads_of_grants in [
        (PROVIDER, "create_incident", WRITES["create_incident"], 1),
        (PROVIDER, "get_incident_by_number", {"incident_number": "INC0009001"}, 0),
        (PROVIDER, "list_incidents", {"per_page": 50}, 0),
        (PROVIDER, "count_incidents_by_group", {}, 0),
        (PROVIDER, "link_knowledge_to_incident", {"incident_number": "INC0009001", "article_id": "KB0009001",
                                                  "relation": "applied"}, 0),
        (PROVIDER, "send_notification", WRITES["send_notification"], 0),
        (PROVIDER, "get_group_by_name", {"name": "Beta Service Desk"}, 0),
        (BETA_MANAGER, "list_incidents", {"per_page": 50}, 1),  # another actor: their own grants
        (BETA_MANAGER, "assign_role", WRITES["assign_role"], 0),
        (BETA_MANAGER, "list_incidents", {"per_page": 50}, 1),  # a role was granted: read again
        (BETA_MANAGER, "list_incidents", {"per_page": 50}, 0),
    ]:  # fmt: skip
        statements.clear()
        outcome = call(ep, actor, tool, args)
        assert outcome.ok, (tool, outcome.error)
        assert sum("FROM user_roles JOIN organizations" in s for s in statements) == reads_of_grants, (tool, statements)
    connection.set_trace_callback(None)


def test_a_failed_call_forgets_what_was_read_from_the_tables_it_wrote():
    """Its writes are rolled back, and anything read after them with them; other entries stay."""
    memo = Memo()
    memo.put("grants", "read from roles", ["user_roles", "sys_users"])
    memo.put("catalogue", "read from services", ["services"])
    memo.forget({"incidents"})
    assert memo.get("grants") and memo.get("catalogue")
    memo.forget({"user_roles", "audit_log"})
    assert memo.get("grants") is None and memo.get("catalogue")
    memo.forget(None)  # a call that wrote through the session: its tables are not known
    assert memo.get("catalogue") is None


# --- one organization at a time: the org_id filter of lists and reports ------------------------------

BETA_AGENT = "USR-0901"  # ORG-BETA's own agent: the same role there as PROVIDER, and nothing else


def test_every_list_and_report_takes_an_org_filter():
    for tool in LISTS:
        assert "org_id" in TOOLS[tool].arguments.model_fields, tool


def test_the_org_filter_shows_that_organization_alone_and_refuses_one_outside_scope(ep, world_rows):
    for tool, args in LISTS.items():
        # the provider agent, limited to ORG-BETA, sees what ORG-BETA's own agent sees there
        narrowed = call(ep, PROVIDER, tool, {**args, "org_id": ORG})
        own = call(ep, BETA_AGENT, tool, args)
        assert (narrowed.ok, narrowed.result) == (own.ok, own.result), tool
        assert (narrowed.error or {}).get("code") == (own.error or {}).get("code"), tool
        # and limited to Acme, nothing of ORG-BETA
        acme = call(ep, PROVIDER, tool, {**args, "org_id": "ORG-ACME"})
        assert not acme.ok or not leaks(acme.result), (tool, acme.result)
        # an organization outside the scope is not found, exactly as one that does not exist
        outside = refused(ep, world_rows, OUTSIDER, tool, 404, "not_found", **{**args, "org_id": ORG})
        assert call(ep, OUTSIDER, tool, {**args, "org_id": "ORG-NONE"}).error == {
            **outside,
            "message": outside["message"].replace(ORG, "ORG-NONE"),
        }, tool


# --- inactive organizations are read-only -----------------------------------------------------------

INACTIVE_TASK = task({**BETA, "organizations": [{**BETA["organizations"][0], "active": False}]}, "inactive")


TAKING_ACCESS_AWAY = {"revoke_role"}  # allowed in an inactive organization: no contract is needed for it


def test_every_write_in_an_inactive_organization_is_refused_and_writes_nothing(start, world_rows):
    world = start(INACTIVE_TASK, "inactive")
    for tool, args in WRITES.items():
        if tool in TAKING_ACCESS_AWAY:
            continue
        error = refused(world, world_rows, BETA_MANAGER, tool, 409, **args)
        assert error["error"] == "inactive_organization", (tool, error)


def test_access_to_an_inactive_organization_can_still_be_taken_away(start):
    world = start(INACTIVE_TASK, "inactive")
    assert ok(world, BETA_MANAGER, "revoke_role", user_id=PROVIDER, role_id="agent", org_id=ORG)["roles"] == []
    assert call(world, PROVIDER, "get_incident_by_number", {"incident_number": "INC0009001"}).error["code"] == 404


def test_an_inactive_organizations_records_stay_readable(start):
    world = start(INACTIVE_TASK, "inactive")
    for tool, args in LOOKUPS.items():
        assert call(world, BETA_MANAGER, tool, args).ok, tool
    assert ok(world, PROVIDER, "count_incidents_by_status", org_id=ORG)["total"] == 4
    # the provider's own organization is not affected
    assert ok(world, PROVIDER, "add_work_note", incident_number=ACME_INCIDENT, note="Still on it.")


# --- roles held in other organizations --------------------------------------------------------------

ROLES_TASK = task(
    {**BETA, "user_roles": [*BETA["user_roles"], {"user_id": OUTSIDER, "role_id": "manager", "org_id": ORG}]},
    "roles",
)


def test_a_provider_user_is_granted_and_revoked_a_role_in_a_client(start, world_rows):
    """With Acme as the provider, its manager (also a manager in ORG-BETA) grants an Acme agent the agent
    role in ORG-BETA, which puts ORG-BETA in that agent's scope, and takes it away again."""
    world = start(task({**ROLES_TASK.seed_changes, "organizations": [*BETA["organizations"],
                  {"id": "ORG-ACME", "kind": "provider"}]}, "provider-roles"), "provider-roles")  # fmt: skip
    agent = "USR-0004"
    assert call(world, agent, "get_incident_by_number", {"incident_number": "INC0009001"}).error["code"] == 404
    granted = ok(world, OUTSIDER, "assign_role", user_id=agent, role_id="agent", org_id=ORG)
    assert granted == {"user_id": agent, "org_id": ORG, "roles": ["agent"]}
    assert ok(world, agent, "get_incident_by_number", incident_number="INC0009001")["org_id"] == ORG
    roles = ok(world, OUTSIDER, "get_user_roles", user_id=agent)
    assert roles["org_id"] == "ORG-ACME" and roles["other_organizations"] == [{"org_id": ORG, "roles": ["agent"]}]
    assert ok(world, OUTSIDER, "get_user_roles", user_id=agent, org_id=ORG)["roles"] == ["agent"]
    check = ok(world, OUTSIDER, "check_user_permission", user_id=agent, resource="incident", action="crud", org_id=ORG)
    assert check["allowed"] is True
    refused(world, world_rows, OUTSIDER, "assign_role", 409, "duplicate", user_id=agent, role_id="agent", org_id=ORG)
    assert ok(world, OUTSIDER, "revoke_role", user_id=agent, role_id="agent", org_id=ORG)["roles"] == []
    assert call(world, agent, "get_incident_by_number", {"incident_number": "INC0009001"}).error["code"] == 404


def test_only_a_providers_staff_hold_roles_in_another_organization(start, world_rows):
    world = start(ROLES_TASK, "roles")  # Acme is a company here, not a provider
    refused(world, world_rows, OUTSIDER, "assign_role", 400, "cross_organization", user_id="USR-0004",
            role_id="agent", org_id=ORG)  # fmt: skip
    refused(world, world_rows, OUTSIDER, "assign_role", 400, "cross_organization", user_id="USR-0902",
            role_id="agent", org_id="ORG-ACME")  # fmt: skip


def test_a_grant_needs_the_right_to_change_users_in_that_organization(ep, world_rows):
    # PROVIDER is an agent in ORG-BETA (may read users there, not change them); OUTSIDER has no role there
    refused(ep, world_rows, PROVIDER, "assign_role", 403, "forbidden", user_id=PROVIDER, role_id="manager", org_id=ORG)
    refused(ep, world_rows, OUTSIDER, "assign_role", 404, "not_found", user_id="USR-0004", role_id="agent", org_id=ORG)
    refused(ep, world_rows, OUTSIDER, "revoke_role", 404, "not_found", user_id=PROVIDER, role_id="agent", org_id=ORG)


def test_the_clients_own_people_refer_to_provider_staff_who_work_there(start, world_rows):
    """ORG-BETA's manager may assign an incident to the provider agent who holds a role in ORG-BETA and
    sits in its group, notify him about ORG-BETA's records, list his incidents and manage his roles
    there, but not look him up in the provider's directory or notify him about nothing of ORG-BETA's."""
    changes = {**BETA, "group_members": [*BETA["group_members"],
                                         {"group_id": "GRP-901", "user_id": PROVIDER, "org_id": ORG}]}  # fmt: skip
    world = start(task(changes, "client-refers"), "client-refers")
    assigned = ok(world, BETA_MANAGER, "assign_incident", incident_number="INC0009004", assigned_to_id=PROVIDER)
    assert assigned["assigned_to_id"] == PROVIDER
    note = ok(world, BETA_MANAGER, "send_notification", recipient_id=PROVIDER, channel="email", subject="INC0009004",
              body="Yours now.", record_table="incidents", record_id="INC0009004")  # fmt: skip
    assert note["org_id"] == ORG
    assert {r["id"] for r in ok(world, BETA_MANAGER, "get_incidents_assigned_to", user_id=PROVIDER)["rows"]} == {
        "INC0009004"
    }
    assert ok(world, BETA_MANAGER, "get_user_roles", user_id=PROVIDER) == {
        "user_id": PROVIDER,
        "org_id": ORG,
        "roles": ["agent"],
        "other_organizations": [],
    }
    refused(world, world_rows, BETA_MANAGER, "get_user_by_id", 404, "not_found", user_id=PROVIDER)
    refused(world, world_rows, BETA_MANAGER, "send_notification", 404, "not_found", recipient_id=PROVIDER,
            channel="email", subject="Hi", body="Hello.")  # fmt: skip
    refused(world, world_rows, BETA_MANAGER, "update_user", 404, "not_found", user_id=PROVIDER, title="x")
    # an Acme user with no role in ORG-BETA stays unknown to its people
    refused(world, world_rows, BETA_MANAGER, "assign_incident", 404, "not_found", incident_number="INC0009004",
            assigned_to_id=OUTSIDER, work_note="x")  # fmt: skip


def test_look_ups_by_name_take_an_organization(start, world_rows):
    changes = {**BETA, "user_groups": [*BETA["user_groups"], beta(id="GRP-903", name="Service Desk")]}
    world = start(task(changes, "names"), "names")
    assert ok(world, PROVIDER, "get_group_by_name", name="service desk")["id"] == "GRP-001"  # Acme's comes first
    assert ok(world, PROVIDER, "get_group_by_name", name="service desk", org_id=ORG)["id"] == "GRP-903"
    assert ok(world, BETA_MANAGER, "get_service_by_name", name="Warehouse Management", org_id=ORG)["id"] == "SVC-901"
    refused(world, world_rows, OUTSIDER, "get_group_by_name", 404, "not_found", name="service desk", org_id=ORG)
    refused(world, world_rows, OUTSIDER, "get_service_by_name", 404, "not_found", name="email", org_id=ORG)


def test_a_role_granted_by_a_write_is_honoured_by_the_next_read(tmp_path):
    """Reads share the acting user's grants until a write: the role assigned here is seen at once."""
    task = get_task("itsm-msp/inc-lindqvist-assign-after-granting-client-access")
    with Episode.start(task, tmp_path / "e.db") as episode:
        incident = {"incident_number": "INC0000011"}
        assert call(episode, "USR-0018", "get_incident_by_number", incident).error["code"] == 404  # not her client
        grant = {"user_id": "USR-0018", "role_id": "agent", "org_id": "ORG-C03"}
        assert call(episode, task.actor, "assign_role", grant).ok
        assert call(episode, "USR-0018", "get_incident_by_number", incident).ok
