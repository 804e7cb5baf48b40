"""ITSM CMDB tools: configuration items (unique serials, status rules, ownership) and their
relationships (no self-edges, no duplicates)."""

from __future__ import annotations

from test_itsm_identity import (  # the shared itsm test helpers
    AGENT,
    DBA,
    FORMER,
    REPORTER,
    add_other_org,
    audits,
    ok,
    play,
    refused,
    rows,
)

__all__ = ["play"]  # a fixture, used by name


def ci_where(episode, condition: str) -> str:
    found = rows(episode, f"SELECT id FROM configuration_items WHERE {condition} ORDER BY id LIMIT 1")
    assert found, f"the seed has no CI with {condition}"
    return found[0][0]


def test_configuration_items_are_found(play):
    episode = play(AGENT)
    cid = ci_where(episode, "serial_number IS NOT NULL AND owner_id IS NOT NULL")
    ci = ok(episode, "get_configuration_item", ci_id=cid)
    assert ci["owner_name"] == rows(episode, "SELECT name FROM sys_users WHERE id = ?", ci["owner_id"])[0][0]
    by_serial = ok(episode, "find_configuration_item_by_serial_number", serial_number=ci["serial_number"].lower())
    assert by_serial == ci
    laptops = ok(episode, "list_configuration_items", ci_class="laptop", status="in_stock", per_page=50)
    assert all(row["ci_class"] == "laptop" and row["status"] == "in_stock" for row in laptops["rows"])
    assert (
        laptops["total"]
        == rows(episode, "SELECT count(*) FROM configuration_items WHERE ci_class = 'laptop' AND status = 'in_stock'")[
            0
        ][0]
    )
    owned = ok(episode, "list_configuration_items", owner_id=ci["owner_id"], per_page=50)["rows"]
    assert cid in {row["id"] for row in owned}


def test_cmdb_reads_need_permission_and_scope(play, world_rows):
    refused(play(REPORTER), world_rows, "list_configuration_items", 403, "forbidden")
    episode = play(AGENT)
    add_other_org(episode)
    refused(episode, world_rows, "get_configuration_item", 404, "not_found", ci_id="CI-90001")
    refused(
        episode, world_rows, "find_configuration_item_by_serial_number", 404, "not_found", serial_number="ZETA-SN-1"
    )


def test_registering_a_ci(play, world_rows):
    episode = play(AGENT)
    stock = ok(
        episode,
        "register_configuration_item",
        name="LT-AUS-0100",
        ci_class="laptop",
        serial_number="PF-NEW-0100",
        location_id="LOC-002",
        cost=1350,
    )
    assert stock["status"] == "in_stock" and stock["owner_id"] is None and stock["cost"] == 1350.0
    issued = ok(episode, "register_configuration_item", name="PH-0101", ci_class="mobile", owner_id=REPORTER)
    assert issued["status"] == "in_use" and issued["owner_id"] == REPORTER
    assert [(a[1], a[2], a[4]) for a in audits(episode)] == [
        ("register_configuration_item", "create", stock["id"]),
        ("register_configuration_item", "create", issued["id"]),
    ]
    taken = rows(episode, "SELECT serial_number FROM configuration_items WHERE serial_number IS NOT NULL LIMIT 1")[0][0]
    refused(
        episode,
        world_rows,
        "register_configuration_item",
        409,
        "duplicate",
        name="Dup",
        ci_class="laptop",
        serial_number=f" {taken.lower()} ",
    )
    refused(
        episode,
        world_rows,
        "register_configuration_item",
        409,
        "inactive_user",
        name="X",
        ci_class="laptop",
        owner_id=FORMER,
    )
    refused(
        episode,
        world_rows,
        "register_configuration_item",
        404,
        "not_found",
        name="X",
        ci_class="laptop",
        location_id="LOC-999",
    )
    refused(episode, world_rows, "register_configuration_item", 400, "invalid_arguments", name="X", ci_class="toaster")
    refused(
        episode,
        world_rows,
        "register_configuration_item",
        400,
        "invalid_arguments",
        name="X",
        ci_class="laptop",
        cost=-1,
    )
    refused(play(REPORTER), world_rows, "register_configuration_item", 403, "forbidden", name="X", ci_class="laptop")


def test_updating_a_ci_keeps_status_rules(play, world_rows):
    episode = play(AGENT)
    stock = ci_where(episode, "status = 'in_stock'")
    result = ok(episode, "update_configuration_item", ci_id=stock, name="Renamed", cost=999.5, status="in_maintenance")
    assert result["changed"] == ["cost", "name", "status"] and result["status"] == "in_maintenance"
    assert audits(episode)[-1][1:] == (
        "update_configuration_item",
        "update",
        "configuration_items",
        stock,
        '["cost", "name", "status"]',
    )
    refused(episode, world_rows, "update_configuration_item", 409, "no_owner", ci_id=stock, status="in_use")
    refused(episode, world_rows, "update_configuration_item", 400, "missing_field", ci_id=stock)
    other = rows(
        episode, "SELECT serial_number FROM configuration_items WHERE serial_number IS NOT NULL AND id != ?", stock
    )
    refused(episode, world_rows, "update_configuration_item", 409, "duplicate", ci_id=stock, serial_number=other[0][0])
    owned = ci_where(episode, "status = 'in_use' AND owner_id IS NOT NULL")
    back = ok(episode, "update_configuration_item", ci_id=owned, status="in_stock")
    assert back["status"] == "in_stock" and back["owner_id"] is None and back["changed"] == ["owner_id", "status"]


def test_assigning_and_retiring(play, world_rows):
    episode = play(AGENT)
    stock = ci_where(episode, "status = 'in_stock'")
    assigned = ok(episode, "assign_configuration_item", ci_id=stock, owner_id=REPORTER, location_id="LOC-003")
    assert (assigned["status"], assigned["owner_id"], assigned["location_id"]) == ("in_use", REPORTER, "LOC-003")
    moved = ok(episode, "assign_configuration_item", ci_id=stock, owner_id=DBA)
    assert (moved["owner_id"], moved["changed"]) == (DBA, ["owner_id"])
    refused(episode, world_rows, "assign_configuration_item", 409, "inactive_user", ci_id=stock, owner_id=FORMER)
    refused(episode, world_rows, "assign_configuration_item", 404, "not_found", ci_id="CI-99999", owner_id=DBA)
    retired = ok(episode, "retire_configuration_item", ci_id=stock)
    assert (retired["status"], retired["owner_id"], retired["changed"]) == ("retired", None, ["owner_id", "status"])
    assert rows(episode, "SELECT status, owner_id FROM configuration_items WHERE id = ?", stock) == [("retired", None)]
    refused(episode, world_rows, "retire_configuration_item", 409, "illegal_transition", ci_id=stock)
    refused(episode, world_rows, "assign_configuration_item", 409, "illegal_transition", ci_id=stock, owner_id=DBA)
    refused(episode, world_rows, "update_configuration_item", 409, "illegal_transition", ci_id=stock, name="Zombie")
    assert [a[1] for a in audits(episode)] == [
        "assign_configuration_item",
        "assign_configuration_item",
        "retire_configuration_item",
    ]
    refused(play(REPORTER), world_rows, "retire_configuration_item", 403, "forbidden", ci_id=stock)


def test_relationships(play, world_rows):
    episode = play(AGENT)
    first, second = rows(
        episode,
        "SELECT a.id, b.id FROM configuration_items a JOIN configuration_items b ON a.id < b.id "
        "WHERE NOT EXISTS (SELECT 1 FROM ci_relationships r WHERE r.parent_id IN (a.id, b.id) AND r.child_id IN "
        "(a.id, b.id)) ORDER BY a.id, b.id LIMIT 1",
    )[0]
    edge = ok(episode, "add_ci_relationship", parent_id=first, child_id=second, kind="connected_to")
    assert (edge["parent_id"], edge["child_id"], edge["kind"]) == (first, second, "connected_to")
    listed = ok(episode, "list_ci_relationships", ci_id=second)["relationships"]
    assert {"parent_id": first, "child_id": second, "kind": "connected_to"}.items() <= listed[-1].items()
    refused(
        episode,
        world_rows,
        "add_ci_relationship",
        409,
        "duplicate",
        parent_id=first,
        child_id=second,
        kind="connected_to",
    )
    refused(
        episode,
        world_rows,
        "add_ci_relationship",
        409,
        "duplicate",
        parent_id=second,
        child_id=first,
        kind="connected_to",
    )
    refused(
        episode,
        world_rows,
        "add_ci_relationship",
        400,
        "invalid_value",
        parent_id=first,
        child_id=first,
        kind="depends_on",
    )
    refused(
        episode,
        world_rows,
        "add_ci_relationship",
        404,
        "not_found",
        parent_id=first,
        child_id="CI-99999",
        kind="depends_on",
    )
    ok(episode, "add_ci_relationship", parent_id=second, child_id=first, kind="depends_on")
    removed = ok(episode, "remove_ci_relationship", parent_id=first, child_id=second, kind="connected_to")
    assert removed["removed"]["id"] == edge["id"]
    refused(
        episode,
        world_rows,
        "remove_ci_relationship",
        404,
        "not_found",
        parent_id=first,
        child_id=second,
        kind="connected_to",
    )
    assert [(a[1], a[2], a[3]) for a in audits(episode)] == [
        ("add_ci_relationship", "create", "ci_relationships"),
        ("add_ci_relationship", "create", "ci_relationships"),
        ("remove_ci_relationship", "delete", "ci_relationships"),
    ]
    assert rows(
        episode, "SELECT count(*) FROM ci_relationships WHERE parent_id = ? AND child_id = ?", first, second
    ) == [(0,)]
    refused(
        play(REPORTER),
        world_rows,
        "add_ci_relationship",
        403,
        "forbidden",
        parent_id=first,
        child_id=second,
        kind="depends_on",
    )
