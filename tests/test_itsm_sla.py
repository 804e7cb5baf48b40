"""ITSM SLA definitions: added and changed by managers of the organization, one per priority and
stage, their targets kept consistent; a changed target applies to clocks started from then on.

Acme (the itsm world) has every definition; Halvorsen Engineering (ORG-C15 in itsm-msp) has none
for P4 and P5 yet, so the definitions are added there."""

from __future__ import annotations

import json
from typing import Any

from support import episode_fixture, ok, refused, rows

from simtenant.episode import Episode

MANAGER, AGENT = "USR-0002", "USR-0003"  # Acme
HUGO, URSULA, FARID = "USR-0004", "USR-0008", "USR-0002"  # itsm-msp: manager in C15, agent in C15, no role in C15
NOW = "2026-05-18T09:00:00Z"

acme = episode_fixture("sla-acme", "itsm", "sla-acme", MANAGER, current_time=NOW)
msp = episode_fixture("sla-msp", "itsm-msp", "sla-msp", HUGO, current_time="2026-06-01T09:00:00Z")


def world(episode: Episode) -> list[tuple]:
    return rows(episode.path, "SELECT * FROM sla_definitions ORDER BY id") + rows(
        episode.path, "SELECT * FROM audit_log ORDER BY id"
    )


def audit_of(episode: Episode, tool: str) -> list[tuple]:
    return rows(
        episode.path,
        "SELECT org_id, actor_id, action, record_table, record_id, fields FROM audit_log WHERE tool = ? ORDER BY id",
        tool,
    )


def test_a_manager_changes_a_target_and_new_clocks_use_it(acme: Episode) -> None:
    changed = ok(acme, "update_sla_definition", {"sla_id": "SLA-P1-RESP", "target_minutes": 10})
    assert (changed["target_minutes"], changed["changed"]) == (10, ["target_minutes"])
    assert audit_of(acme, "update_sla_definition") == [
        ("ORG-ACME", MANAGER, "update", "sla_definitions", "SLA-P1-RESP", json.dumps(["target_minutes"]))
    ]
    created = ok(
        acme,
        "create_incident",
        {"caller_id": "USR-0005", "short_description": "Everything is down", "category": "network", "impact": 1,
         "urgency": 1},
    )  # fmt: skip
    response = [c for c in created["slas"] if c["stage"] == "response"]
    assert [c["breach_at"] for c in response] == ["2026-05-18T09:10:00Z"]
    renamed = ok(acme, "update_sla_definition", {"sla_id": "SLA-P1-RESP", "name": "P1 Critical - first response"})
    assert renamed["changed"] == ["name"]
    assert ok(acme, "update_sla_definition", {"sla_id": "SLA-P1-RESP", "target_minutes": 10})["changed"] == []


def test_targets_stay_consistent(acme: Episode) -> None:
    args: dict[str, Any]
    for args, clash in [
        ({"sla_id": "SLA-P3-RES", "target_minutes": 360}, "SLA-P2-RES"),  # P3 tighter than P2 (480)
        ({"sla_id": "SLA-P2-RES", "target_minutes": 1500}, "SLA-P3-RES"),  # P2 looser than P3 (1440)
        ({"sla_id": "SLA-P2-RESP", "target_minutes": 480}, "SLA-P2-RES"),  # response not shorter than resolution
    ]:
        before = world(acme)
        outcome = acme.call("update_sla_definition", args)
        assert (outcome.error["code"], outcome.error["error"]) == (409, "inconsistent_targets"), outcome.error
        assert clash in outcome.error["message"]
        assert world(acme) == before
    ok(acme, "update_sla_definition", {"sla_id": "SLA-P3-RES", "target_minutes": 480})  # equal to P2's is fine
    refused(acme, "update_sla_definition", {"sla_id": "SLA-P3-RES"}, 400, "missing_field", world)
    refused(acme, "update_sla_definition", {"sla_id": "SLA-P3-RES", "target_minutes": 0}, 400, "invalid_arguments")
    refused(acme, "update_sla_definition", {"sla_id": "SLA-P9-RES", "target_minutes": 60}, 404, "not_found", world)
    refused(acme, "create_sla_definition", {"name": "P3 again", "priority": 3, "stage": "response",
                                            "target_minutes": 60}, 409, "duplicate", world)  # fmt: skip
    refused(acme, "update_sla_definition", {"sla_id": "SLA-P1-RES", "target_minutes": 200}, 403, "forbidden", world,
            actor=AGENT)  # fmt: skip


def test_a_clients_missing_targets_are_added_in_the_client(msp: Episode) -> None:
    assert ok(msp, "list_sla_definitions", {"org_id": "ORG-C15", "priority": 4})["definitions"] == []
    p4 = ok(msp, "create_sla_definition", {"name": "P4 Low - response", "priority": 4, "stage": "response",
                                           "target_minutes": 960, "org_id": "ORG-C15"})  # fmt: skip
    assert p4 == {
        "id": "SLA-001",
        "org_id": "ORG-C15",
        "name": "P4 Low - response",
        "priority": 4,
        "stage": "response",
        "target_minutes": 960,
    }
    assert audit_of(msp, "create_sla_definition") == [
        ("ORG-C15", HUGO, "create", "sla_definitions", "SLA-001",
         json.dumps(["name", "org_id", "priority", "stage", "target_minutes"]))
    ]  # fmt: skip
    # INC0000066 is Halvorsen's open P4 incident without clocks: it gets the one P4 SLA there is now
    clocks = ok(msp, "link_new_incident_sla", {"incident_number": "INC0000066"})["slas"]
    assert [(c["sla_id"], c["stage"], c["breach_at"]) for c in clocks] == [
        ("SLA-001", "response", "2026-06-02T01:00:00Z")  # 16 hours from 09:00
    ]
    for args, error in [
        ({"priority": 4, "stage": "response", "target_minutes": 900}, "duplicate"),
        ({"priority": 4, "stage": "resolution", "target_minutes": 900}, "inconsistent_targets"),  # under its response
        ({"priority": 5, "stage": "response", "target_minutes": 600}, "inconsistent_targets"),  # tighter than P4
        ({"priority": 4, "stage": "resolution", "target_minutes": 2000}, "inconsistent_targets"),  # under P3's 2880
    ]:
        refused(msp, "create_sla_definition", {"name": "x", "org_id": "ORG-C15", **args}, 409, error, world)
    p5 = {"name": "P5 Planning - resolution", "priority": 5, "stage": "resolution", "target_minutes": 20160}
    refused(msp, "create_sla_definition", {**p5, "org_id": "ORG-C01"}, 404, "not_found", world)  # not Hugo's client
    refused(msp, "create_sla_definition", p5, 409, "duplicate", world)  # left out: the provider's own, which has one
    refused(msp, "create_sla_definition", {**p5, "org_id": "ORG-C15"}, 403, "forbidden", world, actor=URSULA)
    refused(msp, "create_sla_definition", {**p5, "org_id": "ORG-C15"}, 404, "not_found", world, actor=FARID)
    assert ok(msp, "create_sla_definition", {**p5, "org_id": "ORG-C15"}, actor=HUGO)["id"] == "SLA-002"
