"""The managed-service-provider world on its own data: a provider and twenty clients in one tenant.

Every list and report answers each actor with records of their scope only (the organizations they
hold a role in), reports add up per organization, inactive clients are read-only, and the policy
the agent reads is the itsm one plus the provider's section.
"""

from __future__ import annotations

from typing import Any

import pytest
from support import episode_fixture, ok, refused, rows

from simtenant import seeds
from simtenant.episode import Episode
from simtenant.world import get_world

WORLD = get_world("itsm-msp")
TOOLS = {t.name: t for t in WORLD.tools}
PROVIDER_AGENT = "USR-0006"  # agent in ORG-C01..C05 and the provider
PROVIDER_MANAGER = "USR-0002"  # manager in seven clients, two of them inactive
PROVIDER_REPORTER = "USR-0005"  # reporter in the provider only
CLIENT_MANAGER = "USR-0028"  # Lindqvist Architects' (ORG-C03) own manager
ACTORS = (PROVIDER_AGENT, PROVIDER_MANAGER, PROVIDER_REPORTER, CLIENT_MANAGER)
# the read tools that need no argument: every list and aggregation of the world
SWEEPS = sorted(
    name
    for name, t in TOOLS.items()
    if not t.writes and "org_id" in t.arguments.model_fields and name != "get_organization"
)


episode = episode_fixture("msp", "itsm-msp", "scope-sweep", PROVIDER_AGENT, current_time="2026-06-01T09:00:00Z")


def snapshot_rows(query: str, *params: Any) -> list[tuple]:
    return rows(seeds.snapshot(WORLD), query, *params)


def scope_of(user_id: str) -> set[str]:
    return {org for (org,) in snapshot_rows("SELECT org_id FROM user_roles WHERE user_id = ?", user_id)}


def org_ids(value: Any) -> set[str]:
    """Every ``org_id`` anywhere in a result."""
    if isinstance(value, dict):
        found = {value["org_id"]} if isinstance(value.get("org_id"), str) else set()
        return found.union(*(org_ids(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(org_ids(v) for v in value))
    return set()


def call(episode: Episode, actor: str, tool: str, args: dict[str, Any]) -> Any:
    episode.actor = actor
    return episode.call(tool, args)


def test_the_world_is_a_provider_and_twenty_clients_two_inactive():
    organizations = snapshot_rows("SELECT kind, active, count(*) FROM organizations GROUP BY kind, active")
    assert sorted(organizations) == [("client", 0, 2), ("client", 1, 18), ("provider", 1, 1)]
    (users,) = snapshot_rows("SELECT count(*) FROM sys_users")[0]
    assert 90 <= users <= 110
    # provider staff hold roles in clients; a client's users only in their own organization
    assert snapshot_rows(
        "SELECT count(*) FROM user_roles r JOIN sys_users u ON u.id = r.user_id "
        "JOIN organizations o ON o.id = u.org_id WHERE o.kind = 'client' AND r.org_id != u.org_id"
    ) == [(0,)]
    assert len(scope_of(PROVIDER_MANAGER)) == 8


@pytest.mark.parametrize("actor", ACTORS)
def test_lists_and_reports_show_only_the_actors_scope(episode, actor):
    scope = scope_of(actor)
    answered = 0
    for tool in SWEEPS:
        required = [n for n, f in TOOLS[tool].arguments.model_fields.items() if f.is_required()]
        if required:
            continue
        outcome = call(
            episode, actor, tool, {"per_page": 50} if "per_page" in TOOLS[tool].arguments.model_fields else {}
        )
        if not outcome.ok:
            assert outcome.error["code"] == 403, (tool, outcome.error)  # a resource the roles do not reach
            continue
        answered += 1
        assert org_ids(outcome.result) <= scope, (tool, org_ids(outcome.result) - scope)
    assert answered >= 10


@pytest.mark.parametrize("tool", [t for t in SWEEPS if t.startswith(("count_", "average_"))])
def test_reports_add_up_over_the_organizations_of_the_scope(episode, tool):
    whole = call(episode, PROVIDER_MANAGER, tool, {})
    assert whole.ok, whole.error
    per_org: dict[Any, int] = {}
    for org in sorted(scope_of(PROVIDER_MANAGER)):
        part = call(episode, PROVIDER_MANAGER, tool, {"org_id": org})
        assert part.ok, (tool, org, part.error)
        for row in part.result["counts"]:
            per_org[row["key"]] = per_org.get(row["key"], 0) + row["count"]
    assert {r["key"]: r["count"] for r in whole.result["counts"]} == per_org


def test_incident_counts_agree_with_sql_over_the_scope(episode):
    for actor in (PROVIDER_AGENT, PROVIDER_MANAGER, CLIENT_MANAGER):
        orgs = sorted(scope_of(actor))
        marks = ", ".join("?" for _ in orgs)
        expected = dict(
            snapshot_rows(f"SELECT status, count(*) FROM incidents WHERE org_id IN ({marks}) GROUP BY status", *orgs)
        )
        counts = call(episode, actor, "count_incidents_by_status", {}).result["counts"]
        assert {r["key"]: r["count"] for r in counts} == expected, actor


def test_a_client_outside_the_scope_is_not_found(episode):
    for tool in ("list_incidents", "count_incidents_by_priority", "list_users"):
        outcome = call(episode, PROVIDER_AGENT, tool, {"org_id": "ORG-C12"})
        assert outcome.error["code"] == 404 and outcome.error["error"] == "not_found", tool
    (incident,) = snapshot_rows("SELECT id FROM incidents WHERE org_id = 'ORG-C12' LIMIT 1")[0]
    outcome = call(episode, CLIENT_MANAGER, "get_incident_by_number", {"incident_number": incident})
    assert outcome.error["code"] == 404


def test_an_inactive_client_can_be_read_but_not_changed(episode):
    (incident,) = snapshot_rows("SELECT id FROM incidents WHERE org_id = 'ORG-C07' LIMIT 1")[0]
    assert call(episode, PROVIDER_MANAGER, "get_incident_by_number", {"incident_number": incident}).ok
    assert call(episode, PROVIDER_MANAGER, "count_incidents_by_status", {"org_id": "ORG-C07"}).ok
    refused = call(episode, PROVIDER_MANAGER, "add_work_note", {"incident_number": incident, "note": "Checked."})
    assert (refused.error["code"], refused.error["error"]) == (409, "inactive_organization")
    (caller,) = snapshot_rows("SELECT id FROM sys_users WHERE org_id = 'ORG-C07' AND active LIMIT 1")[0]
    args = {"caller_id": caller, "short_description": "Printer offline", "category": "hardware", "impact": 3,
            "urgency": 3}  # fmt: skip
    refused = call(episode, PROVIDER_MANAGER, "create_incident", args)
    assert refused.error["error"] == "inactive_organization"


def test_the_policy_is_the_itsm_policy_and_the_providers_section():
    policy = WORLD.policy
    assert policy.startswith(get_world("itsm").policy.strip())
    assert "## 18. Working for a managed-service provider's clients" in policy
    assert "inactive_organization" in policy and "org_id" in policy


def test_a_tasks_stated_scope_is_told_to_the_agent_and_checked_against_the_world():
    from simtenant.grader.validate import validate_task
    from simtenant.world import get_task

    task = get_task("itsm/agent-cannot-close")
    right = task.model_copy(update={"scope": ["ORG-ACME"]})
    assert right.briefing.endswith("The organizations in your scope: ORG-ACME.")
    assert validate_task(right).ok
    wrong = task.model_copy(update={"scope": ["ORG-ACME", "ORG-C01"]})
    problems = validate_task(wrong).problems
    assert problems == [f"the task states the scope ORG-ACME, ORG-C01, but {task.actor} holds roles in ORG-ACME"]


@pytest.mark.parametrize("actor", ACTORS)
def test_list_organizations_names_exactly_the_organizations_the_actor_may_look_up(episode: Episode, actor: str) -> None:
    listed = ok(episode, "list_organizations", actor=actor)["organizations"]
    readable = [org for org in sorted(scope_of(actor)) if episode.call("get_organization", {"org_id": org}).ok]
    assert [o["id"] for o in listed] == readable and all(o["name"] and o["kind"] for o in listed)
    assert actor == PROVIDER_REPORTER or len(listed) >= 1


def test_a_group_named_after_its_client_is_found_by_the_rest_of_its_name(episode: Episode) -> None:
    client = sorted(scope_of(PROVIDER_AGENT) - {"ORG-PROV"})[0]
    name = snapshot_rows("SELECT name FROM organizations WHERE id = ?", client)[0][0]
    desk = ok(episode, "get_group_by_name", {"name": "service desk", "org_id": client}, actor=PROVIDER_AGENT)
    assert desk["name"] == f"{name} Service Desk" and desk["org_id"] == client
    assert ok(episode, "get_group_by_name", {"name": f"{name} Service Desk"})["id"] == desk["id"]  # the full name
    refused(episode, "get_group_by_name", {"name": "Service Desk"}, 400, "ambiguous_name")  # which client's?
    refused(episode, "get_group_by_name", {"name": "Front Desk", "org_id": client}, 404, "not_found")


def test_a_persons_groups_are_listed_only_in_the_actors_scope(episode):
    """Provider staff hold groups in many clients: a manager sees those in their own scope alone."""
    engineer = "USR-0016"  # Tara Chen, in groups of clients outside PROVIDER_MANAGER's scope
    every = snapshot_rows(
        "SELECT g.id, g.org_id FROM user_groups g JOIN group_members m ON m.group_id = g.id WHERE m.user_id = ?",
        engineer,
    )
    seen = ok(episode, "list_user_groups", {"user_id": engineer}, actor=PROVIDER_MANAGER)["groups"]
    visible = sorted(g for g, org in every if org in scope_of(PROVIDER_MANAGER))
    assert [g["id"] for g in seen] == visible and len(visible) < len(every)
