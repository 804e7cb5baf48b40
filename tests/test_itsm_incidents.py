"""The ITSM incident and SLA tools: every tool's result, every enforced rule refusing with its
code and writing nothing, role permissions, and the audit entries of mutations."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from simtenant.episode import Episode
from simtenant.task import Task

AGENT, MANAGER, REPORTER, INACTIVE = "USR-0003", "USR-0002", "USR-0005", "USR-0010"
Rows = Callable[[Path], dict[str, list[tuple]]]


@pytest.fixture
def ep(tmp_path: Path) -> Iterator[Episode]:
    task = Task.model_validate(
        {
            "id": "itsm/test",
            "world": "itsm",
            "description": "t",
            "instruction": "t",
            "current_time": "2026-05-18T09:00:00Z",
            "actor": AGENT,
            "gold": [],
            "hash": "test",
        }
    )
    episode = Episode.start(task, tmp_path / "e.db")
    yield episode
    episode.close()


def ok(episode: Episode, tool: str, actor: str = AGENT, **args: Any) -> Any:
    episode.actor = actor
    outcome = episode.call(tool, args)
    assert outcome.ok, outcome.error
    return outcome.result


def refused(
    episode: Episode, rows: Rows, tool: str, code: int, error: str | None = None, actor: str = AGENT, **args: Any
) -> dict[str, Any]:
    """The call fails with ``code`` (and ``error``) and the world's rows are unchanged."""
    before = rows(episode.path)
    episode.actor = actor
    outcome = episode.call(tool, args)
    assert not outcome.ok, outcome.result
    assert outcome.error["code"] == code, outcome.error
    if error is not None:
        assert outcome.error["error"] == error, outcome.error
    assert rows(episode.path) == before
    return outcome.error


def sql(episode: Episode, query: str, *params: Any) -> list[tuple]:
    connection = sqlite3.connect(episode.path)
    try:
        with connection:
            return connection.execute(query, params).fetchall()
    finally:
        connection.close()


def audits(episode: Episode, tool: str) -> list[tuple]:
    return sql(episode, "SELECT action, record_table, record_id, actor_id FROM audit_log WHERE tool = ?", tool)


def new_incident(episode: Episode, **args: Any) -> dict[str, Any]:
    fields = {
        "caller_id": REPORTER,
        "short_description": "Laptop fan is very loud",
        "category": "hardware",
        "impact": 3,
        "urgency": 3,
        **args,
    }
    return ok(episode, "create_incident", **fields)


def published_article(episode: Episode, keywords: list[str]) -> str:
    article = ok(
        episode,
        "create_knowledge_article",
        title="Calibrating the flux capacitor",
        body="Turn it off and on again.",
        category="hardware",
        keywords=keywords,
    )["id"]
    ok(episode, "submit_article_for_review", article_id=article)
    ok(episode, "publish_article", actor=MANAGER, article_id=article)
    return article


# --- create ---------------------------------------------------------------------------------------


def test_create_derives_priority_starts_slas_and_suggests_knowledge(ep: Episode) -> None:
    article = published_article(ep, ["flux capacitor", "zzq-unlikely"])
    made = new_incident(
        ep,
        short_description="The Flux Capacitor in lab 3 will not start",
        impact=2,
        urgency=1,
        assignment_group_id="GRP-001",
        description="Nothing happens when powered.",
    )
    assert (made["priority"], made["status"], made["opened_at"]) == (2, "new", "2026-05-18T09:00:00Z")
    assert made["id"].startswith("INC")
    clocks = sql(
        ep, "SELECT sla_id, stage, state, started_at, breach_at FROM incident_slas WHERE incident_id = ?", made["id"]
    )
    assert sorted(clocks) == [
        ("SLA-P2-RES", "resolution", "in_progress", "2026-05-18T09:00:00Z", "2026-05-18T17:00:00Z"),
        ("SLA-P2-RESP", "response", "in_progress", "2026-05-18T09:00:00Z", "2026-05-18T09:30:00Z"),
    ]
    links = sql(ep, "SELECT article_id, relation FROM incident_knowledge WHERE incident_id = ?", made["id"])
    assert (article, "suggested") in links
    assert made["suggested_knowledge"][0]["article_id"] in {a for a, _ in links}
    entries = audits(ep, "create_incident")
    assert ("create", "incidents", made["id"], AGENT) in entries
    assert sum(1 for e in entries if e[1] == "incident_slas") == 2
    assert ("create", "incident_knowledge", f"{made['id']}/{article}", AGENT) in entries


def test_create_suggests_only_published_whole_word_matches(ep: Episode) -> None:
    draft = ok(ep, "create_knowledge_article", title="t", body="b", category="c", keywords=["qqxwidget"])["id"]
    published = published_article(ep, ["qqxgadget"])
    made = new_incident(ep, short_description="qqxwidget and qqxgadgets broken")
    linked = {a for (a,) in sql(ep, "SELECT article_id FROM incident_knowledge WHERE incident_id = ?", made["id"])}
    assert draft not in linked and published not in linked
    again = new_incident(ep, short_description="QQXGADGET broken")
    assert [a["article_id"] for a in again["suggested_knowledge"]] == [published]


def test_create_from_template_fills_defaults(ep: Episode) -> None:
    template = ok(ep, "list_incident_templates")["templates"][0]
    made = ok(ep, "create_incident", caller_id=REPORTER, template_id=template["id"])
    for field in ("short_description", "category", "impact", "urgency", "assignment_group_id"):
        assert made[field] == template[field]
    assert made["priority"] == template["impact"] + template["urgency"] - 1
    override = ok(ep, "create_incident", caller_id=REPORTER, template_id=template["id"], impact=1, urgency=1)
    assert (override["priority"], override["short_description"]) == (1, template["short_description"])


def test_create_refusals_write_nothing(ep: Episode, world_rows: Rows) -> None:
    base = {"caller_id": REPORTER, "short_description": "x", "category": "hardware", "impact": 1, "urgency": 1}
    refused(ep, world_rows, "create_incident", 400, "missing_field", caller_id=REPORTER, short_description="x")
    refused(ep, world_rows, "create_incident", 400, "invalid_arguments", **base, priority=1)
    refused(ep, world_rows, "create_incident", 400, "invalid_arguments", **{**base, "impact": 4})
    refused(ep, world_rows, "create_incident", 403, actor=REPORTER, **base)
    refused(ep, world_rows, "create_incident", 409, "inactive_user", **{**base, "caller_id": INACTIVE})
    refused(ep, world_rows, "create_incident", 404, **{**base, "caller_id": "USR-9999"})
    refused(ep, world_rows, "create_incident", 404, **base, assignment_group_id="GRP-999")
    refused(ep, world_rows, "create_incident", 404, **base, template_id="TPL-999")


# --- reads ----------------------------------------------------------------------------------------


def test_reads_and_filters(ep: Episode, world_rows: Rows) -> None:
    made = new_incident(ep, category="network", assignment_group_id="GRP-002", short_description="qqx vpn drops")
    got = ok(ep, "get_incident_by_number", actor=REPORTER, incident_number=made["id"])
    assert (got["caller_name"], got["assignment_group_id"], got["child_incidents"]) == ("Sara Ito", "GRP-002", [])
    listed = ok(ep, "list_incidents", actor=REPORTER, short_description_contains="QQX VPN")
    assert [r["id"] for r in listed["rows"]] == [made["id"]]
    by_group = ok(ep, "list_incidents", assignment_group_id="GRP-002", category="network", status="new", per_page=50)
    assert made["id"] in [r["id"] for r in by_group["rows"]]
    assert all(r["assignment_group_id"] == "GRP-002" for r in by_group["rows"])
    page = ok(ep, "list_incidents", per_page=1, page=2)
    assert len(page["rows"]) == 1 and page["total"] >= 2
    mine = ok(ep, "get_incidents_by_caller", caller_id=REPORTER, per_page=50)
    assert all(r["caller_id"] == REPORTER for r in mine["rows"]) and made["id"] in [r["id"] for r in mine["rows"]]
    refused(ep, world_rows, "get_incident_by_number", 404, incident_number="INC9999999")
    ok(ep, "cancel_incident", incident_number=made["id"])
    still_open = ok(ep, "list_incidents", open_only=True, short_description_contains="qqx vpn")
    assert still_open["total"] == 0
    refused(ep, world_rows, "get_incidents_by_caller", 404, caller_id="USR-9999")


# --- update and assign ----------------------------------------------------------------------------


def test_update_recomputes_priority(ep: Episode, world_rows: Rows) -> None:
    made = new_incident(ep)
    updated = ok(ep, "update_incident", incident_number=made["id"], impact=1, description="Now smoking")
    assert (updated["priority"], updated["impact"], updated["urgency"]) == (3, 1, 3)
    assert set(updated["changed"]) == {"impact", "priority", "description"}
    ((fields,),) = sql(ep, "SELECT fields FROM audit_log WHERE tool = 'update_incident'")
    assert json.loads(fields) == ["description", "impact", "priority"]
    refused(ep, world_rows, "update_incident", 400, "missing_field", incident_number=made["id"])
    refused(ep, world_rows, "update_incident", 400, "invalid_arguments", incident_number=made["id"], priority=1)
    refused(ep, world_rows, "update_incident", 403, actor=REPORTER, incident_number=made["id"], urgency=1)
    refused(ep, world_rows, "update_incident", 404, incident_number=made["id"], service_id="SVC-999")


def test_assign_rules(ep: Episode, world_rows: Rows) -> None:
    made = new_incident(ep, assignment_group_id="GRP-001")
    first, second = (
        [
            u
            for (u,) in sql(
                ep,
                "SELECT m.user_id FROM group_members m JOIN sys_users u ON u.id = m.user_id "
                "WHERE m.group_id = 'GRP-001' AND u.active ORDER BY 1",
            )
        ]
        + [None, None]
    )[:2]
    assert first and second, "GRP-001 needs two active members"
    outsider = sql(
        ep,
        "SELECT id FROM sys_users WHERE active AND id NOT IN (SELECT user_id FROM group_members "
        "WHERE group_id = 'GRP-001') ORDER BY id",
    )[0][0]
    refused(ep, world_rows, "assign_incident", 403, actor=REPORTER, incident_number=made["id"], assigned_to_id=first)
    refused(ep, world_rows, "assign_incident", 409, "not_in_group", incident_number=made["id"], assigned_to_id=outsider)
    assigned = ok(ep, "assign_incident", incident_number=made["id"], assigned_to_id=first)
    assert (assigned["assigned_to_id"], assigned["previous_assignee"], assigned["work_note"]) == (first, None, None)
    refused(ep, world_rows, "assign_incident", 400, "missing_field", incident_number=made["id"], assigned_to_id=second)
    moved = ok(ep, "assign_incident", incident_number=made["id"], assigned_to_id=second, work_note="Shift change")
    assert moved["assigned_to_id"] == second
    theirs = ok(ep, "get_incidents_assigned_to", user_id=second, open_only=True, per_page=50)["rows"]
    assert made["id"] in [r["id"] for r in theirs] and all(r["assigned_to_id"] == second for r in theirs)
    assert made["id"] not in [r["id"] for r in ok(ep, "get_incidents_assigned_to", user_id=first)["rows"]]
    (note,) = sql(ep, "SELECT note, author_id FROM incident_work_notes WHERE incident_id = ?", made["id"])
    assert first in note[0] and "Shift change" in note[0] and note[1] == AGENT
    assert [e[1] for e in audits(ep, "assign_incident")] == ["incidents", "incidents", "incident_work_notes"]
    # a new group the current assignee is not in is refused
    other = sql(
        ep,
        "SELECT id FROM user_groups WHERE id NOT IN (SELECT group_id FROM group_members WHERE user_id = ?) ORDER BY id",
        second,
    )[0][0]
    refused(
        ep, world_rows, "update_incident", 409, "not_in_group", incident_number=made["id"], assignment_group_id=other
    )


def test_assign_refuses_inactive_member(ep: Episode, world_rows: Rows) -> None:
    if not sql(ep, "SELECT 1 FROM group_members WHERE group_id = 'GRP-001' AND user_id = ?", INACTIVE):
        sql(ep, "INSERT INTO group_members (group_id, user_id, org_id) VALUES ('GRP-001', ?, 'ORG-ACME')", INACTIVE)
    made = new_incident(ep, assignment_group_id="GRP-001")
    error = refused(ep, world_rows, "assign_incident", 409, "not_in_group", incident_number=made["id"],
                    assigned_to_id=INACTIVE)  # fmt: skip
    assert "inactive" in error["message"]


# --- lifecycle ------------------------------------------------------------------------------------


def test_lifecycle_through_close(ep: Episode, world_rows: Rows) -> None:
    number = new_incident(ep)["id"]
    refused(ep, world_rows, "put_incident_on_hold", 400, "invalid_arguments", incident_number=number)
    held = ok(ep, "put_incident_on_hold", incident_number=number, hold_reason="awaiting_caller")
    assert (held["status"], held["hold_reason"], held["previous_status"]) == ("on_hold", "awaiting_caller", "new")
    error = refused(ep, world_rows, "reopen_incident", 409, "illegal_transition", incident_number=number)
    assert "resume_incident" in error["message"]
    resumed = ok(ep, "resume_incident", incident_number=number)
    assert (resumed["status"], resumed["hold_reason"]) == ("in_progress", None)
    refused(ep, world_rows, "resume_incident", 409, "illegal_transition", incident_number=number)
    refused(
        ep,
        world_rows,
        "close_incident",
        409,
        "illegal_transition",
        actor=MANAGER,
        incident_number=number,
        close_notes="done",
    )
    refused(
        ep,
        world_rows,
        "resolve_incident",
        400,
        "invalid_arguments",
        incident_number=number,
        resolution_code="solved_permanently",
    )
    refused(
        ep,
        world_rows,
        "resolve_incident",
        403,
        actor=REPORTER,
        incident_number=number,
        resolution_code="solved_permanently",
        resolution_notes="Replaced the fan",
    )
    resolved = ok(
        ep,
        "resolve_incident",
        incident_number=number,
        resolution_code="solved_permanently",
        resolution_notes="Replaced the fan",
    )
    assert (resolved["status"], resolved["resolved_by_id"], resolved["resolved_at"]) == (
        "resolved",
        AGENT,
        "2026-05-18T09:00:00Z",
    )
    clocks = sql(ep, "SELECT state, completed_at, breached FROM incident_slas WHERE incident_id = ?", number)
    assert clocks == [("completed", "2026-05-18T09:00:00Z", 0)] * 2
    refused(ep, world_rows, "close_incident", 403, "role_required", incident_number=number, close_notes="done")
    refused(
        ep,
        world_rows,
        "close_incident",
        400,
        "invalid_arguments",
        actor=MANAGER,
        incident_number=number,
        close_notes="  ",
    )
    closed = ok(ep, "close_incident", actor=MANAGER, incident_number=number, close_notes="Confirmed with caller")
    assert (closed["status"], closed["close_notes"]) == ("closed", "Confirmed with caller")
    for tool, args in [
        ("reopen_incident", {}),
        ("start_incident_work", {}),
        ("cancel_incident", {}),
        ("put_incident_on_hold", {"hold_reason": "awaiting_vendor"}),
        ("resolve_incident", {"resolution_code": "duplicate", "resolution_notes": "x"}),
    ]:
        refused(ep, world_rows, tool, 409, "record_closed", incident_number=number, **args)
    for tool, args in [("add_work_note", {"note": "late note"}), ("update_incident", {"urgency": 1})]:
        refused(ep, world_rows, tool, 409, "record_closed", incident_number=number, **args)
    assert [e[0] for e in audits(ep, "close_incident")] == ["update"]
    assert len(audits(ep, "resolve_incident")) == 3  # the incident and its two clocks


def test_resolve_marks_breached_clocks_and_reopen_clears_resolution(ep: Episode) -> None:
    number = new_incident(ep, impact=1, urgency=1)["id"]  # P1: response 15 min, resolution 240 min
    ok(ep, "start_incident_work", incident_number=number)
    ep.now = datetime(2026, 5, 18, 10, 0, tzinfo=UTC)
    ok(ep, "resolve_incident", incident_number=number, resolution_code="solved_workaround", resolution_notes="Rebooted")
    clocks = sql(
        ep, "SELECT stage, breached, completed_at FROM incident_slas WHERE incident_id = ? ORDER BY stage", number
    )
    assert clocks == [("resolution", 0, "2026-05-18T10:00:00Z"), ("response", 1, "2026-05-18T10:00:00Z")]
    reopened = ok(ep, "reopen_incident", incident_number=number, reason="It came back")
    assert reopened["status"] == "in_progress"
    assert [reopened[f] for f in ("resolution_code", "resolution_notes", "resolved_by_id", "resolved_at")] == [None] * 4
    assert sql(ep, "SELECT note FROM incident_work_notes WHERE incident_id = ?", number) == [
        ("Reopened: It came back",)
    ]


def test_cancel(ep: Episode, world_rows: Rows) -> None:
    number = new_incident(ep)["id"]
    ok(ep, "put_incident_on_hold", incident_number=number, hold_reason="awaiting_caller")
    started = ok(ep, "start_incident_work", incident_number=number)
    assert (started["status"], started["hold_reason"], started["previous_status"]) == ("in_progress", None, "on_hold")
    ok(ep, "put_incident_on_hold", incident_number=number, hold_reason="awaiting_vendor")
    cancelled = ok(ep, "cancel_incident", incident_number=number, reason="Logged twice")
    assert (cancelled["status"], cancelled["hold_reason"]) == ("cancelled", None)
    refused(ep, world_rows, "reopen_incident", 409, "record_closed", incident_number=number)
    refused(ep, world_rows, "cancel_incident", 409, "record_closed", incident_number=number)
    states = sql(ep, "SELECT DISTINCT state, completed_at FROM incident_slas WHERE incident_id = ?", number)
    assert states == [("cancelled", "2026-05-18T09:00:00Z")]


# --- work notes, children, affected CIs -----------------------------------------------------------


def test_work_notes(ep: Episode, world_rows: Rows) -> None:
    number = new_incident(ep)["id"]
    note = ok(ep, "add_work_note", incident_number=number, note="Checked the BIOS fan curve")
    assert (note["author_id"], note["incident_id"]) == (AGENT, number)
    listed = ok(ep, "list_work_notes", actor=REPORTER, incident_number=number)
    assert [n["note"] for n in listed["work_notes"]] == ["Checked the BIOS fan curve"]
    assert audits(ep, "add_work_note") == [("create", "incident_work_notes", str(note["id"]), AGENT)]
    refused(ep, world_rows, "add_work_note", 403, actor=REPORTER, incident_number=number, note="hi")
    refused(ep, world_rows, "add_work_note", 400, "invalid_arguments", incident_number=number, note=" ")


def test_child_incidents(ep: Episode, world_rows: Rows) -> None:
    parent, child, grandchild = (new_incident(ep)["id"] for _ in range(3))
    made = ok(ep, "add_child_incident", parent_number=parent, child_number=child)
    assert (made["parent_id"], made["previous_parent_id"]) == (parent, None)
    ok(ep, "add_child_incident", parent_number=child, child_number=grandchild)
    assert [c["id"] for c in ok(ep, "list_child_incidents", incident_number=parent)["children"]] == [child]
    assert ok(ep, "get_incident_by_number", incident_number=parent)["child_incidents"] == [child]
    refused(ep, world_rows, "add_child_incident", 409, "cycle", parent_number=parent, child_number=parent)
    refused(ep, world_rows, "add_child_incident", 409, "cycle", parent_number=grandchild, child_number=parent)
    refused(ep, world_rows, "add_child_incident", 409, "duplicate", parent_number=parent, child_number=child)
    refused(ep, world_rows, "add_child_incident", 404, parent_number="INC9999999", child_number=child)
    assert audits(ep, "add_child_incident") == [
        ("update", "incidents", child, AGENT),
        ("update", "incidents", grandchild, AGENT),
    ]


def test_affected_cis(ep: Episode, world_rows: Rows) -> None:
    number = new_incident(ep)["id"]
    ci = sql(ep, "SELECT id FROM configuration_items ORDER BY id LIMIT 1")[0][0]
    linked = ok(ep, "link_affected_ci", incident_number=number, ci_id=ci)
    assert (linked["incident_id"], linked["ci_id"]) == (number, ci)
    refused(ep, world_rows, "link_affected_ci", 409, "duplicate", incident_number=number, ci_id=ci)
    refused(ep, world_rows, "link_affected_ci", 404, incident_number=number, ci_id="CI-99999")
    listed = ok(ep, "list_affected_cis", incident_number=number)["affected_cis"]
    assert [c["ci_id"] for c in listed] == [ci] and "name" in listed[0]
    assert "name" not in ok(ep, "list_affected_cis", actor=REPORTER, incident_number=number)["affected_cis"][0]
    refused(ep, world_rows, "unlink_affected_ci", 403, actor=REPORTER, incident_number=number, ci_id=ci)
    assert ok(ep, "unlink_affected_ci", incident_number=number, ci_id=ci)["unlinked"] is True
    refused(ep, world_rows, "unlink_affected_ci", 404, incident_number=number, ci_id=ci)
    assert [e[0] for e in audits(ep, "link_affected_ci") + audits(ep, "unlink_affected_ci")] == ["create", "delete"]


# --- SLA ------------------------------------------------------------------------------------------


def test_sla_definitions_and_clocks(ep: Episode, world_rows: Rows) -> None:
    p1 = ok(ep, "list_sla_definitions", priority=1)["definitions"]
    assert sorted((d["stage"], d["target_minutes"]) for d in p1) == [("resolution", 240), ("response", 15)]
    assert len(ok(ep, "list_sla_definitions", stage="response")["definitions"]) == 5
    number = new_incident(ep, impact=1, urgency=2)["id"]
    slas = ok(ep, "get_incident_slas", incident_number=number)
    assert slas["priority"] == 2 and {c["target_minutes"] for c in slas["slas"]} == {30, 480}
    assert not any(c["overdue"] for c in slas["slas"])
    refused(ep, world_rows, "get_incident_slas", 403, actor=REPORTER, incident_number=number)
    refused(ep, world_rows, "link_new_incident_sla", 409, "duplicate", incident_number=number)


def test_link_new_incident_sla_for_an_incident_lacking_one(ep: Episode, world_rows: Rows) -> None:
    number = new_incident(ep, impact=2, urgency=2)["id"]
    sql(ep, "DELETE FROM incident_slas WHERE incident_id = ?", number)
    ep.now = datetime(2026, 5, 18, 11, 0, tzinfo=UTC)
    refused(ep, world_rows, "link_new_incident_sla", 403, actor=REPORTER, incident_number=number)
    made = ok(ep, "link_new_incident_sla", incident_number=number)
    assert sorted((c["sla_id"], c["breach_at"]) for c in made["slas"]) == [
        ("SLA-P3-RES", "2026-05-19T11:00:00Z"),
        ("SLA-P3-RESP", "2026-05-18T12:00:00Z"),
    ]
    assert [e[1] for e in audits(ep, "link_new_incident_sla")] == ["incident_slas", "incident_slas"]
    refused(ep, world_rows, "link_new_incident_sla", 409, "duplicate", incident_number=number)


# --- identity and scope ---------------------------------------------------------------------------


def test_inactive_actor_can_do_nothing(ep: Episode, world_rows: Rows) -> None:
    refused(ep, world_rows, "list_incidents", 403, "inactive_actor", actor=INACTIVE)
    refused(ep, world_rows, "create_incident", 403, "inactive_actor", actor=INACTIVE, caller_id=REPORTER,
            short_description="x", category="hardware", impact=1, urgency=1)  # fmt: skip


def test_other_organizations_records_are_not_found(ep: Episode, world_rows: Rows) -> None:
    sql(ep, "INSERT INTO organizations (id, name, kind, active) VALUES ('ORG-ZZZ', 'Elsewhere Ltd', 'client', 1)")
    sql(
        ep,
        "INSERT INTO sys_users (id, org_id, name, email, active, locked) "
        "VALUES ('USR-9001', 'ORG-ZZZ', 'Eve Else', 'eve@elsewhere.example', 1, 0)",
    )
    sql(
        ep,
        "INSERT INTO incidents (id, org_id, caller_id, short_description, category, impact, urgency, priority, "
        "status, opened_at, updated_at) VALUES ('INC9000001', 'ORG-ZZZ', 'USR-9001', 'Elsewhere', 'software', "
        "2, 2, 3, 'new', '2026-05-18T08:00:00Z', '2026-05-18T08:00:00Z')",
    )
    number = "INC9000001"
    refused(ep, world_rows, "get_incident_by_number", 404, incident_number=number)
    refused(ep, world_rows, "add_work_note", 404, incident_number=number, note="x")
    refused(ep, world_rows, "add_child_incident", 404, parent_number=new_incident(ep)["id"], child_number=number)
    refused(ep, world_rows, "create_incident", 404, caller_id="USR-9001", short_description="x", category="inquiry",
            impact=3, urgency=3)  # fmt: skip
    refused(ep, world_rows, "get_incidents_by_caller", 404, caller_id="USR-9001")
    assert ok(ep, "list_incidents", short_description_contains="Elsewhere")["total"] == 0


def test_children_are_moved_and_detached_with_a_reason(ep: Episode, world_rows: Rows) -> None:
    first, second, child, closed = (new_incident(ep)["id"] for _ in range(4))
    ok(ep, "add_child_incident", parent_number=first, child_number=child)
    moved = ok(ep, "update_child_incident", child_number=child, parent_number=second, current_parent_number=first,
               work_note="Reported from the Austin lab: part of the lab outage")  # fmt: skip
    assert (moved["parent_id"], moved["previous_parent_id"]) == (second, first)
    assert moved["work_note"]["note"] == (
        f"Moved from parent {first} to parent {second}: Reported from the Austin lab: part of the lab outage"
    )
    assert [c["id"] for c in ok(ep, "list_child_incidents", incident_number=second)["children"]] == [child]
    assert ok(ep, "list_child_incidents", incident_number=first)["children"] == []
    ok(ep, "cancel_incident", incident_number=closed, reason="Logged twice")
    for args, code, error in [
        ({"child_number": first, "parent_number": second, "work_note": "x"}, 409, "not_a_child"),
        ({"child_number": child, "parent_number": first, "current_parent_number": first, "work_note": "x"}, 409,
         "not_a_child"),
        ({"child_number": child, "parent_number": second, "work_note": "x"}, 409, "duplicate"),
        ({"child_number": child, "parent_number": child, "work_note": "x"}, 409, "cycle"),
        ({"child_number": child, "parent_number": closed, "work_note": "x"}, 409, "record_closed"),
        ({"child_number": child, "parent_number": first, "work_note": " "}, 400, "invalid_arguments"),
        ({"child_number": child, "parent_number": "INC9999999", "work_note": "x"}, 404, "not_found"),
    ]:  # fmt: skip
        refused(ep, world_rows, "update_child_incident", code, error, **args)
    refused(ep, world_rows, "update_child_incident", 403, "forbidden", actor=REPORTER, child_number=child,
            parent_number=first, work_note="x")  # fmt: skip
    refused(ep, world_rows, "add_child_incident", 409, "record_closed", parent_number=closed, child_number=first)
    detached = ok(ep, "remove_child_incident", child_number=child, parent_number=second,
                  work_note="A separate fault: the dock, not the network")  # fmt: skip
    assert (detached["parent_id"], detached["previous_parent_id"]) == (None, second)
    assert sql(ep, "SELECT parent_id FROM incidents WHERE id = ?", child) == [(None,)]
    assert [n["note"] for n in ok(ep, "list_work_notes", incident_number=child)["work_notes"]][-1] == (
        f"Detached from parent {second}: A separate fault: the dock, not the network"
    )
    refused(ep, world_rows, "remove_child_incident", 409, "not_a_child", child_number=child, work_note="x")
    refused(ep, world_rows, "remove_child_incident", 409, "not_a_child", child_number="INC0001018",
            parent_number=first, work_note="x")  # fmt: skip
    refused(ep, world_rows, "remove_child_incident", 400, "invalid_arguments", child_number="INC0001018")
    assert audits(ep, "update_child_incident") == [
        ("update", "incidents", child, AGENT),
        ("create", "incident_work_notes", str(moved["work_note"]["id"]), AGENT),
    ]
    assert [a[:3] for a in audits(ep, "remove_child_incident")] == [
        ("update", "incidents", child),
        ("create", "incident_work_notes", str(detached["work_note"]["id"])),
    ]


# --- incident templates ----------------------------------------------------------------------------


def test_a_manager_creates_and_changes_templates_an_agent_only_uses_them(ep: Episode, world_rows: Rows) -> None:
    made = ok(ep, "create_incident_template", actor=MANAGER, name="Wi-Fi drops in meeting rooms",
              short_description="Wi-Fi drops in a meeting room", category="network", impact=2, urgency=2,
              assignment_group_id="GRP-002", service_id="SVC-004")  # fmt: skip
    assert (made["id"], made["org_id"], made["service_id"], made["active"]) == ("TPL-006", "ORG-ACME", "SVC-004", True)
    assert audits(ep, "create_incident_template") == [("create", "incident_templates", "TPL-006", MANAGER)]
    incident = ok(ep, "create_incident", caller_id=REPORTER, template_id="TPL-006")
    assert (incident["service_id"], incident["assignment_group_id"], incident["priority"]) == ("SVC-004", "GRP-002", 3)
    given = ok(ep, "create_incident", caller_id=REPORTER, template_id="TPL-006", service_id="SVC-001")
    assert given["service_id"] == "SVC-001"  # what is given wins over the template
    template = {"name": "x", "short_description": "x", "category": "inquiry", "impact": 3, "urgency": 3}
    refused(ep, world_rows, "create_incident_template", 403, "role_required", **template)  # an agent
    refused(ep, world_rows, "update_incident_template", 403, "role_required", template_id="TPL-006", urgency=1)
    refused(ep, world_rows, "create_incident_template", 403, "forbidden", actor=REPORTER, **template)
    refused(ep, world_rows, "create_incident_template", 409, "duplicate", actor=MANAGER,
            **{**template, "name": "vpn connection failure"})  # fmt: skip
    refused(ep, world_rows, "create_incident_template", 404, "not_found", actor=MANAGER,
            **{**template, "service_id": "SVC-999"})  # fmt: skip
    refused(ep, world_rows, "create_incident_template", 400, "invalid_arguments", actor=MANAGER,
            **{**template, "impact": 4})  # fmt: skip
    changed = ok(ep, "update_incident_template", actor=MANAGER, template_id="TPL-003", assignment_group_id="GRP-001",
                 urgency=2)  # fmt: skip
    assert changed["changed"] == ["urgency", "assignment_group_id"]
    assert audits(ep, "update_incident_template") == [("update", "incident_templates", "TPL-003", MANAGER)]
    refused(ep, world_rows, "update_incident_template", 400, "missing_field", actor=MANAGER, template_id="TPL-003")
    refused(ep, world_rows, "update_incident_template", 409, "duplicate", actor=MANAGER, template_id="TPL-003",
            name="ERP slow or timing out")  # fmt: skip
    withdrawn = ok(ep, "update_incident_template", actor=MANAGER, template_id="TPL-003", active=False)
    assert withdrawn["changed"] == ["active"]
    assert [t["id"] for t in ok(ep, "list_incident_templates", active=False)["templates"]] == ["TPL-003"]
    refused(ep, world_rows, "create_incident", 409, "inactive_template", caller_id=REPORTER, template_id="TPL-003")
    # a retired service is no template's default
    ok(ep, "update_incident_template", actor=MANAGER, template_id="TPL-006", active=False)
    execute_sql(ep, "UPDATE incidents SET status = 'resolved' WHERE service_id = 'SVC-004'")
    ok(ep, "update_service_status", actor=MANAGER, service_id="SVC-004", status="retired")
    refused(ep, world_rows, "update_incident_template", 409, "retired_service", actor=MANAGER, template_id="TPL-001",
            service_id="SVC-004")  # fmt: skip


def execute_sql(episode: Episode, query: str) -> None:
    connection = sqlite3.connect(episode.path)
    try:
        connection.execute(query)
        connection.commit()
    finally:
        connection.close()


def test_a_withdrawn_template_is_restored_only_if_still_usable(ep: Episode, world_rows: Rows) -> None:
    ok(ep, "update_incident_template", actor=MANAGER, template_id="TPL-001", service_id="SVC-004", active=False)
    execute_sql(ep, "UPDATE incidents SET status = 'resolved' WHERE service_id = 'SVC-004'")
    ok(ep, "update_service_status", actor=MANAGER, service_id="SVC-004", status="retired")
    refused(ep, world_rows, "update_incident_template", 409, "retired_service", actor=MANAGER, template_id="TPL-001",
            active=True)  # fmt: skip
    restored = ok(ep, "update_incident_template", actor=MANAGER, template_id="TPL-001", active=True,
                  service_id="SVC-002")  # fmt: skip
    assert (restored["active"], restored["service_id"]) == (True, "SVC-002")
