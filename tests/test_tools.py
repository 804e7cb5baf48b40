"""The commerce tools through ``Episode.call``: results, structured errors, no partial writes,
the ``_calls`` record, atomicity of the one transaction, determinism and the JSON Schemas."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from simtenant.agents import oracle
from simtenant.errors import Conflict
from simtenant.schema.commerce.orders import Refund
from simtenant.tools import canonical_json
from simtenant.world import get_world, worlds

NOW = "2026-03-14T10:00:00Z"
TOOL_NAMES = [
    "users_lookup",
    "users_list",
    "users_search",
    "users_verify_identity",
    "users_update",
    "orders_lookup",
    "orders_by_user",
    "orders_search",
    "orders_update_status",
    "orders_process_refund",
    "orders_update_shipping_address",
    "orders_return_items",
    "orders_exchange_item",
    "orders_coupon_lookup",
    "orders_apply_coupon",
    "orders_price_adjustment",
    "inventory_lookup",
    "inventory_check_stock",
    "inventory_price_history",
    "inventory_update_stock",
    "inventory_search",
    "inventory_variants",
    "inventory_stock_ledger",
    "inventory_record_count",
    "inventory_write_off",
    "finish",
]
JANE_VERIFIED = {"phone_last4": "0154", "postal_code": "97401"}  # her phone's last digits and ZIP on file
JANE = {
    "id": "USR-001",
    "email": "jane.doe@example.com",
    "name": "Jane Doe",
    "phone": "+1-720-555-0154",
    "address": "1207 Alder Hollow St, Eugene, OR 97401",
    "tier": "platinum",
    "created_at": "2024-10-16T09:41:00Z",
}


# --- helpers -------------------------------------------------------------------------------------


def query(path: Path, sql: str, *params: Any) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def calls(path: Path) -> list[dict[str, Any]]:
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in connection.execute("SELECT * FROM _calls ORDER BY seq")]
    finally:
        connection.close()


def sequences(path: Path) -> list[tuple]:
    return query(path, "SELECT name, next_value FROM _sequences ORDER BY name")


def changes(before: dict[str, list[tuple]], after: dict[str, list[tuple]]) -> dict[str, tuple[set, set]]:
    """Per changed table: (rows gone, rows new)."""
    found = {}
    for table in sorted(set(before) | set(after)):
        old, new = set(before.get(table, [])), set(after.get(table, []))
        if old != new:
            found[table] = (old - new, new - old)
    return found


def assert_recorded(path: Path, outcome: Any, tool: str, args: Any) -> None:
    """The last ``_calls`` row is this call, with result or error as canonical JSON."""
    row = calls(path)[-1]
    assert row["seq"] == outcome.seq
    assert row["tool"] == tool
    assert json.loads(row["args"]) == (args if isinstance(args, dict) else {"__invalid__": args})
    assert bool(row["ok"]) is outcome.ok
    if outcome.ok:
        assert row["error"] is None
        assert row["result"] == canonical_json(outcome.result)
    else:
        assert row["result"] is None
        assert row["error"] == canonical_json(outcome.error)
        assert json.loads(row["error"]) == outcome.error


# --- every tool succeeds on valid input ------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        {"email": "jane.doe@example.com"},
        {"email": "Jane.Doe@EXAMPLE.com"},
        {"email": "  JANE.DOE@example.com "},
        {"user_id": "USR-001"},
        {"user_id": "USR-001", "email": "jane.doe@example.com"},
    ],
)
def test_users_lookup_by_email_any_case_or_by_id(start_episode, args):
    episode = start_episode()
    outcome = episode.call("users_lookup", args)
    assert outcome.ok, outcome.error
    assert outcome.result == JANE


@pytest.mark.parametrize(
    ("args", "expected_ids"),
    [
        ({}, ["USR-001", "USR-002", "USR-003", "USR-004", "USR-005"]),
        ({"page": 1, "per_page": 5}, ["USR-001", "USR-002", "USR-003", "USR-004", "USR-005"]),
        ({"page": 2}, ["USR-006", "USR-007", "USR-008", "USR-009", "USR-010"]),
        ({"page": 5, "per_page": 5}, ["USR-021", "USR-022", "USR-023", "USR-024", "USR-025"]),
        ({"page": 9, "per_page": 5}, ["USR-041", "USR-042"]),
        ({"page": 10, "per_page": 5}, []),
        ({"page": 3, "per_page": 2}, ["USR-005", "USR-006"]),
        ({"page": 24, "per_page": 1}, ["USR-024"]),
    ],
)
def test_users_list_pages(start_episode, args, expected_ids):
    episode = start_episode()
    outcome = episode.call("users_list", args)
    assert outcome.ok, outcome.error
    assert outcome.result["total"] == 42
    assert outcome.result["page"] == args.get("page", 1)
    assert outcome.result["per_page"] == args.get("per_page", 5)
    assert [u["id"] for u in outcome.result["users"]] == expected_ids


def test_users_list_pages_cover_every_user_once(start_episode):
    episode = start_episode()
    seen = []
    for page in range(1, 10):
        outcome = episode.call("users_list", {"page": page, "per_page": 5})
        seen += [u["id"] for u in outcome.result["users"]]
    assert seen == [f"USR-{n:03d}" for n in range(1, 43)]
    assert outcome.result["users"][-1]["email"] == "felix.wagner@example.com"


@pytest.mark.parametrize(
    ("updates", "stored"),
    [
        ({"name": "Jane Q. Doe"}, {"name": "Jane Q. Doe"}),
        ({"tier": "gold"}, {"tier": "gold"}),
        ({"phone": "+1-720-555-0000", "address": "1 Main St"}, {"phone": "+1-720-555-0000", "address": "1 Main St"}),
        ({"email": " Jane.New@Example.COM "}, {"email": "jane.new@example.com"}),
        ({"email": "JANE.DOE@example.com"}, {"email": "jane.doe@example.com"}),  # her own address, any case
    ],
)
def test_users_update_writes_only_that_user(start_episode, world_rows, updates, stored):
    episode = start_episode()
    before = world_rows(episode.path)
    args = {"user_id": "USR-001", "updates": updates}
    if {"email", "phone", "address"} & set(updates):  # contact details change only with verification
        args["verification"] = JANE_VERIFIED
    outcome = episode.call("users_update", args)
    assert outcome.ok, outcome.error
    assert outcome.result == {**JANE, **stored}
    expected = {**JANE, **stored}
    assert query(episode.path, "SELECT email, name, phone, address, tier FROM users WHERE id = 'USR-001'") == [
        (expected["email"], expected["name"], expected["phone"], expected["address"], expected["tier"])
    ]
    changed = changes(before, world_rows(episode.path))
    assert set(changed) <= {"users"}
    if changed:
        (gone,), (new,) = changed["users"]
        assert gone[0] == new[0] == "USR-001"


def test_orders_lookup_shows_items_coupons_and_no_refunds(start_episode):
    episode = start_episode()
    outcome = episode.call("orders_lookup", {"order_id": "ORD-1005"})
    assert outcome.ok, outcome.error
    result = outcome.result
    assert (result["id"], result["user_id"], result["status"]) == ("ORD-1005", "USR-001", "delivered")
    assert (result["total"], result["return_eligible"]) == (77.99, True)
    assert result["items"] == [
        {"sku": "SKU-445", "quantity": 1, "unit_price": 49.99, "list_price": 49.99},
        {"sku": "SKU-447", "quantity": 1, "unit_price": 28.0, "list_price": 28.0},
    ]
    assert result["coupons_applied"] == []
    assert result["refunds"] == []
    assert result["refunded_total"] == 0.0


def test_orders_lookup_shows_the_coupon_as_applied(start_episode):
    episode = start_episode()
    result = episode.call("orders_lookup", {"order_id": "ORD-1009"}).result
    assert [(i["sku"], i["quantity"], i["unit_price"]) for i in result["items"]] == [
        ("SKU-212", 1, 95.6),
        ("SKU-318", 1, 51.2),
        ("SKU-376", 2, 25.6),
    ]
    assert result["coupons_applied"] == [
        {
            "code": "SAVE20",
            "description": "20% off the regular (list) price of the items in the order",
            "kind": "percent",
            "value": 20.0,
            "basis": "list_price",
            "adjustment": 49.5,
        }
    ]
    assert result["total"] == 247.5


def test_orders_lookup_lists_coupons_by_code_and_refunds(start_episode):
    episode = start_episode()
    two_coupons = episode.call("orders_lookup", {"order_id": "ORD-1056"}).result
    assert [(c["code"], c["adjustment"]) for c in two_coupons["coupons_applied"]] == [
        ("FREESHIP5", -5.0),
        ("WELCOME10", -38.75),
    ]
    refunded = episode.call("orders_lookup", {"order_id": "ORD-1001"}).result
    assert refunded["refunds"] == [
        {
            "id": "RF-0001",
            "amount": 7.5,
            "reason": "Partial refund: delivery arrived four days late, goodwill credit for shipping.",
            "created_at": "2025-11-09T21:23:00Z",
        }
    ]
    assert refunded["refunded_total"] == 7.5


@pytest.mark.parametrize(
    ("user_id", "order_ids"),
    [
        ("USR-001", ["ORD-1001", "ORD-1005"]),
        ("USR-018", ["ORD-1057", "ORD-1037", "ORD-1008", "ORD-1006", "ORD-1027"]),  # oldest first, not by id
        ("USR-024", ["ORD-1032"]),
    ],
)
def test_orders_by_user_oldest_first(start_episode, user_id, order_ids):
    episode = start_episode()
    outcome = episode.call("orders_by_user", {"user_id": user_id})
    assert outcome.ok, outcome.error
    assert outcome.result["user_id"] == user_id
    assert [o["id"] for o in outcome.result["orders"]] == order_ids
    assert all({"items", "coupons_applied", "refunds"} <= set(o) for o in outcome.result["orders"])


@pytest.mark.parametrize(
    ("order_id", "previous", "new", "tables"),
    [
        ("ORD-1054", "pending", "processing", ["orders"]),
        ("ORD-1054", "pending", "cancelled", ["orders", "products"]),  # units back in stock, nothing charged
        ("ORD-1027", "processing", "shipped", ["orders", "shipments"]),  # its parcel leaves
        ("ORD-1027", "processing", "cancelled", ["orders", "products", "refunds"]),  # charged: refunded
        ("ORD-1006", "shipped", "delivered", ["orders", "shipments"]),  # its parcel arrives
        ("ORD-1005", "delivered", "returned", ["orders"]),  # return-eligible
    ],
)
def test_orders_update_status_legal_transition(start_episode, world_rows, order_id, previous, new, tables):
    episode = start_episode()
    before = world_rows(episode.path)
    outcome = episode.call("orders_update_status", {"order_id": order_id, "new_status": new})
    assert outcome.ok, outcome.error
    assert {k: outcome.result[k] for k in ("order_id", "previous_status", "status")} == {
        "order_id": order_id,
        "previous_status": previous,
        "status": new,
    }
    assert query(episode.path, "SELECT status, updated_at FROM orders WHERE id = ?", order_id) == [(new, NOW)]
    assert sorted(changes(before, world_rows(episode.path))) == tables


def test_orders_update_status_walks_the_whole_chain(start_episode):
    episode = start_episode()
    for status in ("processing", "shipped", "delivered"):
        assert episode.call("orders_update_status", {"order_id": "ORD-1054", "new_status": status}).ok
    outcome = episode.call("orders_update_status", {"order_id": "ORD-1054", "new_status": "returned"})
    assert outcome.error["code"] == 409
    assert outcome.error["error"] == "not_return_eligible"
    assert query(episode.path, "SELECT status FROM orders WHERE id = 'ORD-1054'") == [("delivered",)]


def test_orders_process_refund_creates_rf_0007_with_the_frozen_clock(start_episode, world_rows):
    episode = start_episode()
    assert query(episode.path, "SELECT id FROM refunds ORDER BY id") == [(f"RF-000{n}",) for n in range(1, 7)]
    before = world_rows(episode.path)
    outcome = episode.call(
        "orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99, "reason": " SKU-445 arrived damaged "}
    )
    assert outcome.ok, outcome.error
    assert outcome.result == {
        "id": "RF-0007",
        "order_id": "ORD-1005",
        "amount": 49.99,
        "reason": "SKU-445 arrived damaged",
        "created_at": NOW,
        "remaining_refundable": 28.0,
    }
    assert changes(before, world_rows(episode.path)) == {
        "refunds": (set(), {("RF-0007", "ORD-1005", 49.99, "SKU-445 arrived damaged", NOW)})
    }
    assert ("refunds", 8) in sequences(episode.path)
    second = episode.call("orders_process_refund", {"order_id": "ORD-1005", "amount": 28, "reason": "rest"})
    assert second.ok, second.error
    assert (second.result["id"], second.result["amount"], second.result["remaining_refundable"]) == (
        "RF-0008",
        28.0,
        0.0,
    )


def test_orders_process_refund_up_to_exactly_what_remains(start_episode):
    episode = start_episode()
    # ORD-1001: charged 79.00, RF-0001 already refunded 7.50
    outcome = episode.call("orders_process_refund", {"order_id": "ORD-1001", "amount": 71.5, "reason": "all of it"})
    assert outcome.ok, outcome.error
    assert outcome.result["remaining_refundable"] == 0.0
    after = episode.call("orders_lookup", {"order_id": "ORD-1001"}).result
    assert [r["id"] for r in after["refunds"]] == ["RF-0001", "RF-0007"]
    assert after["refunded_total"] == 79.0


@pytest.mark.parametrize(
    ("tool", "sku", "expected"),
    [
        (
            "inventory_lookup",
            "SKU-445",
            {
                "sku": "SKU-445",
                "name": "Ceramic Pour-Over Coffee Set",
                "category": "kitchen",
                "price": 49.99,
                "list_price": 49.99,
                "stock": 37,
            },
        ),
        ("inventory_check_stock", "SKU-445", {"sku": "SKU-445", "stock": 37, "in_stock": True}),
        ("inventory_check_stock", "SKU-282", {"sku": "SKU-282", "stock": 0, "in_stock": False}),
        (
            "inventory_price_history",
            "SKU-212",
            {
                "sku": "SKU-212",
                "history": [
                    {"effective_date": "2025-08-22", "price": 119.5, "note": "launch price"},
                    {"effective_date": "2026-02-15", "price": 95.6, "note": "spring sale 20% off"},
                    {"effective_date": "2026-03-10", "price": 119.5, "note": "spring sale ended, back to list price"},
                ],
            },
        ),
    ],
)
def test_inventory_reads(start_episode, world_rows, tool, sku, expected):
    episode = start_episode()
    before = world_rows(episode.path)
    outcome = episode.call(tool, {"sku": sku})
    assert outcome.ok, outcome.error
    assert outcome.result == expected
    assert world_rows(episode.path) == before


@pytest.mark.parametrize(
    ("sku", "adjustment", "previous", "stock"),
    [
        ("SKU-445", 5, 37, 42),
        ("SKU-445", -37, 37, 0),  # down to exactly zero is allowed
        ("SKU-282", 12, 0, 12),
    ],
)
def test_inventory_update_stock(start_episode, world_rows, sku, adjustment, previous, stock):
    episode = start_episode()
    before = world_rows(episode.path)
    outcome = episode.call("inventory_update_stock", {"sku": sku, "adjustment": adjustment})
    assert outcome.ok, outcome.error
    assert outcome.result == {"sku": sku, "previous_stock": previous, "stock": stock}
    assert query(episode.path, "SELECT stock FROM products WHERE sku = ?", sku) == [(stock,)]
    assert list(changes(before, world_rows(episode.path))) == ["products"]


def test_finish_records_the_answer_and_ends_the_episode(start_episode, world_rows):
    episode = start_episode()
    before = world_rows(episode.path)
    outcome = episode.call("finish", {"answer": "done: 49.99"})
    assert outcome.ok, outcome.error
    assert outcome.result == {"finished": True}
    assert episode.done
    assert query(episode.path, "SELECT status, answer FROM _episode") == [("finished", "done: 49.99")]
    assert world_rows(episode.path) == before


def test_finish_without_answer_records_empty_answer(start_episode):
    episode = start_episode()
    assert episode.call("finish").ok
    assert query(episode.path, "SELECT status, answer FROM _episode") == [("finished", "")]


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("users_lookup", {"user_id": "USR-003"}),
        ("users_list", {"page": 2, "per_page": 3}),
        ("orders_lookup", {"order_id": "ORD-1009"}),
        ("orders_by_user", {"user_id": "USR-003"}),
        ("inventory_lookup", {"sku": "SKU-212"}),
        ("inventory_check_stock", {"sku": "SKU-212"}),
        ("inventory_price_history", {"sku": "SKU-212"}),
    ],
)
def test_read_tools_write_nothing_and_are_recorded(start_episode, world_rows, tool, args):
    episode = start_episode()
    before = world_rows(episode.path)
    outcome = episode.call(tool, args)
    assert outcome.ok, outcome.error
    assert world_rows(episode.path) == before
    assert_recorded(episode.path, outcome, tool, args)


# --- every error class, with no partial write and a record in _calls -------------------------

PRIYA = {"phone_last4": "0197", "postal_code": "04101"}  # USR-002's phone digits and ZIP on file
ERRORS = [
    # unknown tool
    ("no_such_tool", {}, 404, "unknown_tool"),
    ("Users_Lookup", {"user_id": "USR-001"}, 404, "unknown_tool"),
    # arguments not a JSON object
    ("orders_lookup", ["ORD-1005"], 400, "invalid_arguments"),
    ("orders_lookup", "ORD-1005", 400, "invalid_arguments"),
    ("orders_process_refund", 49.99, 400, "invalid_arguments"),
    # wrong types (strict: no coercion)
    ("inventory_update_stock", {"sku": "SKU-445", "adjustment": "5"}, 400, "invalid_arguments"),
    ("inventory_update_stock", {"sku": "SKU-445", "adjustment": 5.0}, 400, "invalid_arguments"),
    ("inventory_update_stock", {"sku": "SKU-445", "adjustment": True}, 400, "invalid_arguments"),
    ("users_list", {"page": "2"}, 400, "invalid_arguments"),
    ("orders_lookup", {"order_id": 1005}, 400, "invalid_arguments"),
    ("orders_lookup", {"order_id": None}, 400, "invalid_arguments"),
    ("users_lookup", {"user_id": 1}, 400, "invalid_arguments"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": "49.99", "reason": "x"}, 400, "invalid_arguments"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": True, "reason": "x"}, 400, "invalid_arguments"),
    ("users_update", {"user_id": "USR-001", "updates": {"tier": 1}}, 400, "invalid_arguments"),
    ("users_update", {"user_id": "USR-001", "updates": [["tier", "gold"]]}, 400, "invalid_arguments"),
    ("finish", {"answer": 5}, 400, "invalid_arguments"),
    # missing required arguments
    ("orders_lookup", {}, 400, "invalid_arguments"),
    ("orders_by_user", {}, 400, "invalid_arguments"),
    ("orders_update_status", {"order_id": "ORD-1054"}, 400, "invalid_arguments"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99}, 400, "invalid_arguments"),
    ("users_update", {"user_id": "USR-001"}, 400, "invalid_arguments"),
    ("inventory_lookup", {}, 400, "invalid_arguments"),
    ("inventory_update_stock", {"sku": "SKU-445"}, 400, "invalid_arguments"),
    # extra arguments
    ("orders_lookup", {"order_id": "ORD-1005", "verbose": True}, 400, "invalid_arguments"),
    ("users_list", {"page": 1, "limit": 5}, 400, "invalid_arguments"),
    ("inventory_check_stock", {"sku": "SKU-445", "warehouse": "A"}, 400, "invalid_arguments"),
    ("finish", {"answer": "x", "confidence": 1}, 400, "invalid_arguments"),
    # unknown ids
    ("users_lookup", {"user_id": "USR-999"}, 404, "not_found"),
    ("users_lookup", {"email": "nobody@example.com"}, 404, "not_found"),
    ("users_lookup", {"user_id": "USR-002", "email": "jane.doe@example.com"}, 404, "not_found"),
    ("users_update", {"user_id": "USR-999", "updates": {"name": "X"}}, 404, "not_found"),
    ("orders_lookup", {"order_id": "ORD-9999"}, 404, "not_found"),
    ("orders_lookup", {"order_id": "ord-1005"}, 404, "not_found"),
    ("orders_by_user", {"user_id": "USR-999"}, 404, "not_found"),
    ("orders_update_status", {"order_id": "ORD-9999", "new_status": "shipped"}, 404, "not_found"),
    ("orders_process_refund", {"order_id": "ORD-9999", "amount": 1.0, "reason": "x"}, 404, "not_found"),
    ("inventory_lookup", {"sku": "SKU-000"}, 404, "not_found"),
    ("inventory_check_stock", {"sku": "SKU-000"}, 404, "not_found"),
    ("inventory_price_history", {"sku": "SKU-000"}, 404, "not_found"),
    ("inventory_update_stock", {"sku": "SKU-000", "adjustment": 1}, 404, "not_found"),
    # users_lookup with neither argument
    ("users_lookup", {}, 400, "missing_argument"),
    ("users_lookup", {"email": None, "user_id": None}, 400, "missing_argument"),
    # users_list bounds
    ("users_list", {"per_page": 6}, 400, "invalid_arguments"),
    ("users_list", {"per_page": 0}, 400, "invalid_arguments"),
    ("users_list", {"page": 0}, 400, "invalid_arguments"),
    # users_update
    ("users_update", {"user_id": "USR-001", "updates": {"id": "USR-999"}}, 400, "invalid_field"),
    ("users_update", {"user_id": "USR-001", "updates": {"created_at": NOW}}, 400, "invalid_field"),
    ("users_update", {"user_id": "USR-001", "updates": {"name": "X", "role": "admin"}}, 400, "invalid_field"),
    (
        "users_update",
        {"user_id": "USR-002", "updates": {"email": "jane.doe@example.com"}, "verification": PRIYA},
        409,
        "duplicate_email",
    ),
    (
        "users_update",
        {"user_id": "USR-002", "updates": {"email": " Jane.Doe@Example.COM"}, "verification": PRIYA},
        409,
        "duplicate_email",
    ),
    ("users_update", {"user_id": "USR-002", "updates": {"email": "p@example.org"}}, 403, "verification_required"),
    (
        "users_update",
        {
            "user_id": "USR-001",
            "updates": {"address": "1 Main St"},
            "verification": {"phone_last4": "0154", "postal_code": "97402"},
        },
        403,
        "verification_failed",
    ),
    (
        "users_update",
        {
            "user_id": "USR-001",
            "updates": {"phone": "+1-720-555-0000"},
            "verification": {"phone_last4": "0155", "postal_code": "97401"},
        },
        403,
        "verification_failed",
    ),
    ("users_update", {"user_id": "USR-001", "updates": {"tier": "diamond"}}, 400, "invalid_value"),
    ("users_update", {"user_id": "USR-001", "updates": {"tier": "Gold"}}, 400, "invalid_value"),
    ("users_update", {"user_id": "USR-001", "updates": {"name": "  "}}, 400, "invalid_value"),
    ("users_update", {"user_id": "USR-001", "updates": {}}, 400, "missing_argument"),
    # orders_update_status
    ("orders_update_status", {"order_id": "ORD-1054", "new_status": "lost"}, 400, "invalid_arguments"),
    ("orders_update_status", {"order_id": "ORD-1054", "new_status": "Processing"}, 400, "invalid_arguments"),
    ("orders_update_status", {"order_id": "ORD-1005", "new_status": "processing"}, 409, "illegal_transition"),
    ("orders_update_status", {"order_id": "ORD-1005", "new_status": "delivered"}, 409, "illegal_transition"),
    ("orders_update_status", {"order_id": "ORD-1054", "new_status": "delivered"}, 409, "illegal_transition"),
    ("orders_update_status", {"order_id": "ORD-1011", "new_status": "processing"}, 409, "illegal_transition"),
    ("orders_update_status", {"order_id": "ORD-1008", "new_status": "returned"}, 409, "illegal_transition"),
    ("orders_update_status", {"order_id": "ORD-1006", "new_status": "returned"}, 409, "illegal_transition"),
    ("orders_update_status", {"order_id": "ORD-1001", "new_status": "returned"}, 409, "not_return_eligible"),
    ("orders_update_status", {"order_id": "ORD-1009", "new_status": "returned"}, 409, "not_return_eligible"),
    # orders_process_refund
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 0, "reason": "x"}, 400, "invalid_arguments"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 0.0, "reason": "x"}, 400, "invalid_arguments"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": -5.0, "reason": "x"}, 400, "invalid_arguments"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 10.005, "reason": "x"}, 400, "invalid_amount"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 49.999, "reason": "x"}, 400, "invalid_amount"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 0.001, "reason": "x"}, 400, "invalid_amount"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 1.0, "reason": ""}, 400, "invalid_arguments"),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 78.0, "reason": "x"}, 409, "exceeds_refundable"),
    ("orders_process_refund", {"order_id": "ORD-1001", "amount": 71.51, "reason": "x"}, 409, "exceeds_refundable"),
    ("orders_process_refund", {"order_id": "ORD-1008", "amount": 0.01, "reason": "x"}, 409, "exceeds_refundable"),
    ("orders_process_refund", {"order_id": "ORD-1001", "amount": 7.5, "reason": "again"}, 409, "duplicate_refund"),
    ("orders_process_refund", {"order_id": "ORD-1008", "amount": 59.99, "reason": "x"}, 409, "duplicate_refund"),
    ("orders_process_refund", {"order_id": "ORD-1054", "amount": 10.0, "reason": "x"}, 409, "not_charged"),
    # inventory_update_stock
    ("inventory_update_stock", {"sku": "SKU-445", "adjustment": 0}, 400, "invalid_value"),
    ("inventory_update_stock", {"sku": "SKU-445", "adjustment": -38}, 409, "insufficient_stock"),
    ("inventory_update_stock", {"sku": "SKU-282", "adjustment": -1}, 409, "insufficient_stock"),
]


@pytest.mark.parametrize(("tool", "args", "code", "error"), ERRORS)
def test_error_is_structured_writes_nothing_and_is_recorded(start_episode, world_rows, tool, args, code, error):
    episode = start_episode()
    before, before_sequences = world_rows(episode.path), sequences(episode.path)
    outcome = episode.call(tool, args)
    assert not outcome.ok
    assert outcome.result is None
    assert set(outcome.error) == {"code", "error", "message"}
    assert (outcome.error["code"], outcome.error["error"]) == (code, error), outcome.error["message"]
    assert outcome.error["message"]
    assert "Traceback" not in outcome.error["message"]
    assert world_rows(episode.path) == before
    assert sequences(episode.path) == before_sequences
    assert_recorded(episode.path, outcome, tool, args)
    assert not episode.done


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({"order_id": "ORD-1005", "amount": "49.99", "reason": "x"}, "amount"),
        ({"order_id": "ORD-1005", "amount": 49.99}, "reason"),
        ({"order_id": "ORD-1005", "amount": 49.99, "reason": "x", "note": "y"}, "note"),
    ],
)
def test_invalid_arguments_message_names_the_field(start_episode, args, fragment):
    outcome = start_episode().call("orders_process_refund", args)
    assert outcome.error["error"] == "invalid_arguments"
    assert fragment in outcome.error["message"]


def test_second_refund_of_the_same_amount_is_refused(start_episode, world_rows):
    episode = start_episode()
    args = {"order_id": "ORD-1005", "amount": 10.0, "reason": "goodwill"}
    assert episode.call("orders_process_refund", args).result["id"] == "RF-0007"
    before = world_rows(episode.path)
    again = episode.call("orders_process_refund", {**args, "amount": 10, "reason": "goodwill again"})
    assert (again.error["code"], again.error["error"]) == (409, "duplicate_refund")
    assert world_rows(episode.path) == before
    assert query(episode.path, "SELECT id, amount FROM refunds WHERE order_id = 'ORD-1005'") == [("RF-0007", 10.0)]
    assert ("refunds", 8) in sequences(episode.path)


def test_refunds_beyond_the_total_are_refused_after_partial_refunds(start_episode):
    episode = start_episode()
    assert episode.call("orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99, "reason": "a"}).ok
    over = episode.call("orders_process_refund", {"order_id": "ORD-1005", "amount": 28.01, "reason": "b"})
    assert (over.error["code"], over.error["error"]) == (409, "exceeds_refundable")
    assert episode.call("orders_process_refund", {"order_id": "ORD-1005", "amount": 28.0, "reason": "b"}).ok
    assert query(episode.path, "SELECT id, amount FROM refunds WHERE order_id = 'ORD-1005' ORDER BY id") == [
        ("RF-0007", 49.99),
        ("RF-0008", 28.0),
    ]
    assert episode.call("orders_lookup", {"order_id": "ORD-1005"}).result["refunded_total"] == 77.99


def test_a_failed_call_does_not_end_or_burn_an_id(start_episode):
    episode = start_episode()
    assert not episode.call("finish", {"answer": 1}).ok
    assert not episode.done
    assert not episode.call("orders_process_refund", {"order_id": "ORD-1005", "amount": 99.0, "reason": "x"}).ok
    outcome = episode.call("orders_process_refund", {"order_id": "ORD-1005", "amount": 1.0, "reason": "x"})
    assert outcome.result["id"] == "RF-0007"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("users_lookup", {"user_id": "USR-001"}),
        ("users_list", {}),
        ("users_update", {"user_id": "USR-001", "updates": {"tier": "gold"}}),
        ("orders_lookup", {"order_id": "ORD-1005"}),
        ("orders_by_user", {"user_id": "USR-001"}),
        ("orders_update_status", {"order_id": "ORD-1005", "new_status": "returned"}),
        ("orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99, "reason": "late"}),
        ("inventory_lookup", {"sku": "SKU-445"}),
        ("inventory_check_stock", {"sku": "SKU-445"}),
        ("inventory_price_history", {"sku": "SKU-445"}),
        ("inventory_update_stock", {"sku": "SKU-445", "adjustment": 1}),
        ("finish", {"answer": "twice"}),
        ("finish", {}),
        ("orders_lookup", ["not", "a", "dict"]),
    ],
)
def test_no_call_after_finish(start_episode, world_rows, tool, args):
    episode = start_episode()
    assert episode.call("finish", {"answer": "first"}).ok
    before = world_rows(episode.path)
    outcome = episode.call(tool, args)
    assert (outcome.error["code"], outcome.error["error"]) == (409, "episode_finished")
    assert world_rows(episode.path) == before
    assert query(episode.path, "SELECT status, answer FROM _episode") == [("finished", "first")]
    assert_recorded(episode.path, outcome, tool, args)


def test_unknown_tool_after_finish_is_still_unknown(start_episode):
    episode = start_episode()
    episode.call("finish", {})
    outcome = episode.call("no_such_tool", {})
    assert (outcome.error["code"], outcome.error["error"]) == (404, "unknown_tool")


def test_every_call_is_recorded_in_order(start_episode):
    episode = start_episode()
    script = [
        ("users_lookup", {"email": "JANE.DOE@example.com"}),
        ("orders_lookup", {"order_id": "ORD-9999"}),
        ("orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99, "reason": "damaged"}),
        ("no_such_tool", {"x": 1}),
        ("orders_lookup", "ORD-1005"),
        ("inventory_update_stock", {"sku": "SKU-445", "adjustment": 0}),
        ("finish", {"answer": "ok"}),
        ("users_list", {}),
    ]
    outcomes = [episode.call(tool, args) for tool, args in script]
    rows = calls(episode.path)
    assert {"seq", "tool", "args", "ok", "result", "error"} <= set(rows[0])
    assert [r["seq"] for r in rows] == [o.seq for o in outcomes] == list(range(1, len(script) + 1))
    assert [r["tool"] for r in rows] == [tool for tool, _ in script]
    assert [bool(r["ok"]) for r in rows] == [True, False, True, False, False, False, True, False]
    for row, outcome, (_, args) in zip(rows, outcomes, script, strict=True):
        assert json.loads(row["args"]) == (args if isinstance(args, dict) else {"__invalid__": args})
        if outcome.ok:
            assert row["error"] is None
            assert json.loads(row["result"]) == outcome.result
        else:
            assert row["result"] is None
            assert json.loads(row["error"]) == outcome.error
    assert json.loads(rows[2]["result"])["id"] == "RF-0007"
    assert json.loads(rows[7]["error"])["error"] == "episode_finished"


# --- atomicity: one transaction per call ---------------------------------------------------------


def replace_tool(episode, name, fn):
    episode.tools[name] = dataclasses.replace(episode.tools[name], fn=fn)


def test_a_tool_failing_half_way_writes_nothing(start_episode, world_rows):
    episode = start_episode()
    real = episode.tools["orders_process_refund"].fn

    def refund_then_fail(ctx, **args):
        real(ctx, **args)  # bumps _sequences and adds the refund
        ctx.session.flush()  # the writes reach the database inside the transaction
        raise Conflict("injected")

    replace_tool(episode, "orders_process_refund", refund_then_fail)
    before, before_sequences = world_rows(episode.path), sequences(episode.path)
    args = {"order_id": "ORD-1005", "amount": 49.99, "reason": "damaged"}
    outcome = episode.call("orders_process_refund", args)
    assert not outcome.ok
    assert outcome.error == {"code": 409, "error": "conflict", "message": "injected"}
    assert world_rows(episode.path) == before
    assert query(episode.path, "SELECT id FROM refunds ORDER BY id") == [(f"RF-000{n}",) for n in range(1, 7)]
    assert sequences(episode.path) == before_sequences
    assert ("refunds", 7) in before_sequences
    assert_recorded(episode.path, outcome, "orders_process_refund", args)

    replace_tool(episode, "orders_process_refund", real)
    again = episode.call("orders_process_refund", args)
    assert again.ok, again.error
    assert again.result["id"] == "RF-0007"
    assert ("refunds", 8) in sequences(episode.path)


def test_a_tool_bug_is_a_structured_500_without_traceback(start_episode, world_rows):
    episode = start_episode()
    real = episode.tools["orders_process_refund"].fn

    def refund_then_crash(ctx, **args):
        real(ctx, **args)
        ctx.session.flush()
        raise RuntimeError("secret internal detail")

    replace_tool(episode, "orders_process_refund", refund_then_crash)
    before, before_sequences = world_rows(episode.path), sequences(episode.path)
    args = {"order_id": "ORD-1005", "amount": 49.99, "reason": "damaged"}
    outcome = episode.call("orders_process_refund", args)
    assert outcome.error == {
        "code": 500,
        "error": "internal_error",
        "message": "tool orders_process_refund failed: RuntimeError",
    }
    assert "Traceback" not in calls(episode.path)[-1]["error"]
    assert world_rows(episode.path) == before
    assert sequences(episode.path) == before_sequences
    assert_recorded(episode.path, outcome, "orders_process_refund", args)


def test_a_foreign_key_violation_is_a_409_and_writes_nothing(start_episode, world_rows):
    episode = start_episode()

    def orphan_refund(ctx, **args):
        ctx.session.add(Refund(id="RF-9999", order_id="ORD-0000", amount=1.0, reason="x", created_at=ctx.timestamp))
        return {}

    replace_tool(episode, "orders_process_refund", orphan_refund)
    before = world_rows(episode.path)
    outcome = episode.call("orders_process_refund", {"order_id": "ORD-1005", "amount": 1.0, "reason": "x"})
    assert (outcome.error["code"], outcome.error["error"]) == (409, "constraint_violation")
    assert "FOREIGN KEY" in outcome.error["message"]
    assert world_rows(episode.path) == before


# --- determinism and database integrity ----------------------------------------------------------

SCRIPT = [
    ("users_lookup", {"email": "jane.doe@example.com"}),
    ("orders_lookup", {"order_id": "ORD-1005"}),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 78.0, "reason": "too much"}),
    ("orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99, "reason": "damaged"}),
    ("orders_update_status", {"order_id": "ORD-1005", "new_status": "returned"}),
    ("users_update", {"user_id": "USR-001", "updates": {"tier": "gold", "email": "Jane@Example.com"}}),
    ("inventory_update_stock", {"sku": "SKU-445", "adjustment": 1}),
    ("orders_lookup", "bad"),
    ("finish", {"answer": "done"}),
    ("users_list", {}),
]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_same_calls_give_byte_identical_episode_files(start_episode):
    paths = []
    for name in ("first.db", "second.db"):
        episode = start_episode(name=name)
        for tool, args in SCRIPT:
            episode.call(tool, args)
        episode.close()
        paths.append(episode.path)
    assert sha256(paths[0]) == sha256(paths[1])
    assert query(paths[0], "SELECT count(*) FROM _calls") == [(len(SCRIPT),)]


def test_foreign_keys_are_enforced_on_the_episode_connection(start_episode):
    episode = start_episode()
    assert episode.connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    with pytest.raises(IntegrityError), episode.session.begin():
        episode.session.connection().exec_driver_sql(
            "INSERT INTO refunds (id, order_id, amount, reason, created_at) "
            "VALUES ('RF-9999', 'ORD-0000', 1.0, 'x', '2026-03-14T10:00:00Z')"
        )
    assert query(episode.path, "SELECT count(*) FROM refunds WHERE id = 'RF-9999'") == [(0,)]


@pytest.mark.parametrize("task_id", ["commerce/refund-damaged-item", "commerce/billing-discrepancy"])
def test_episode_file_is_sound_after_the_oracle(start_episode, task_id):
    episode = start_episode(task_id)
    outcomes = oracle(episode)
    assert all(o.ok for o in outcomes)
    episode.close()
    assert query(episode.path, "PRAGMA integrity_check") == [("ok",)]
    assert query(episode.path, "PRAGMA foreign_key_check") == []


# --- JSON Schemas --------------------------------------------------------------------------------

REQUIRED = {
    "users_lookup": set(),
    "users_list": set(),
    "users_search": {"query"},
    "users_verify_identity": {"user_id", "phone_last4", "postal_code"},
    "users_update": {"user_id", "updates"},
    "orders_lookup": {"order_id"},
    "orders_by_user": {"user_id"},
    "orders_search": set(),
    "orders_update_status": {"order_id", "new_status"},
    "orders_process_refund": {"order_id", "amount", "reason"},
    "orders_update_shipping_address": {"order_id", "address"},
    "orders_return_items": {"order_id", "items", "reason_code", "note"},
    "orders_exchange_item": {"order_id", "sku", "new_sku", "quantity", "reason_code", "note"},
    "orders_coupon_lookup": {"code"},
    "orders_apply_coupon": {"order_id", "code"},
    "orders_price_adjustment": {"order_id", "sku"},
    "inventory_lookup": {"sku"},
    "inventory_check_stock": {"sku"},
    "inventory_price_history": {"sku"},
    "inventory_update_stock": {"sku", "adjustment"},
    "inventory_search": set(),
    "inventory_variants": {"sku"},
    "inventory_stock_ledger": {"sku"},
    "inventory_record_count": {"sku", "counted"},
    "inventory_write_off": {"sku", "quantity", "reason_code", "note"},
    "finish": set(),
}


def test_commerce_offers_exactly_these_tools(start_episode):
    assert [t.name for t in get_world("commerce").all_tools()] == TOOL_NAMES
    assert list(start_episode().tools) == TOOL_NAMES


@pytest.mark.parametrize("tool", get_world("commerce").all_tools(), ids=lambda t: t.name)
def test_json_schema_is_closed_and_lists_required(tool):
    schema = tool.json_schema()
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema.get("required", [])) == REQUIRED[tool.name]
    assert set(schema["properties"]) == set(tool.arguments.model_fields)
    assert all(p.get("description") for p in schema["properties"].values())
    assert "title" not in json.dumps(schema)
    json.dumps(schema)  # plain JSON


@pytest.mark.parametrize("tool", get_world("commerce").all_tools(), ids=lambda t: t.name)
def test_openai_function_calling_shape(tool):
    spec = tool.openai()
    assert set(spec) == {"type", "function"}
    assert spec["type"] == "function"
    assert set(spec["function"]) == {"name", "description", "parameters"}
    assert spec["function"]["name"] == tool.name
    assert spec["function"]["description"] == tool.description != ""
    assert spec["function"]["parameters"] == tool.json_schema()


def test_schema_constraints_match_the_validation():
    tools = {t.name: t for t in get_world("commerce").all_tools()}
    per_page = tools["users_list"].json_schema()["properties"]["per_page"]
    assert (per_page["type"], per_page["minimum"], per_page["maximum"]) == ("integer", 1, 5)
    status = tools["orders_update_status"].json_schema()["properties"]["new_status"]
    assert status["enum"] == ["pending", "processing", "shipped", "delivered", "cancelled", "returned"]
    amount = tools["orders_process_refund"].json_schema()["properties"]["amount"]
    assert (amount["type"], amount["exclusiveMinimum"]) == ("number", 0)


# --- fixed bugs, kept as regressions ---


def test_huge_refund_amount_is_exceeds_refundable(start_episode):
    outcome = start_episode().call("orders_process_refund", {"order_id": "ORD-1005", "amount": 1e30, "reason": "x"})
    assert (outcome.error["code"], outcome.error["error"]) == (409, "exceeds_refundable")


def test_infinite_refund_amount_is_a_400(start_episode):
    outcome = start_episode().call(
        "orders_process_refund", {"order_id": "ORD-1005", "amount": float("inf"), "reason": "x"}
    )
    assert outcome.error["code"] == 400


def test_blank_refund_reason_is_refused(start_episode, world_rows):
    episode = start_episode()
    before = world_rows(episode.path)
    outcome = episode.call("orders_process_refund", {"order_id": "ORD-1005", "amount": 1.0, "reason": "   "})
    assert world_rows(episode.path) == before
    assert outcome.error["code"] == 400


def test_non_json_argument_values_are_a_400_not_an_exception(start_episode):
    episode = start_episode()
    outcome = episode.call("orders_lookup", {"order_id": b"ORD-1005"})
    assert (outcome.error["code"], outcome.error["error"]) == (400, "invalid_arguments")
    assert len(calls(episode.path)) == 1


def test_users_lookup_empty_user_id_message_names_the_user_id(start_episode):
    outcome = start_episode().call("users_lookup", {"user_id": ""})
    assert outcome.error["code"] == 404
    assert "user_id" in outcome.error["message"]


COMBINATORS = {"oneOf", "anyOf", "allOf", "not", "if", "then", "else", "enum", "const"}


@pytest.mark.parametrize("world", sorted(worlds()))
def test_every_tool_schema_is_a_plain_object_the_strictest_hosts_accept(world):
    """Function-calling APIs and MCP hosts refuse a tool whose input schema is not an object at the top
    level, or combines schemas there: every tool an agent may be shown, in every task's offer, is plain."""
    found = get_world(world)
    shown = {t.name: t for t in found.all_tools(with_user=True)}
    for task in found.tasks.values():
        shown |= {t.name: t for t in found.offered(task)}
    for name, tool in shown.items():
        schema = tool.json_schema()
        assert schema.get("type") == "object" and isinstance(schema.get("properties"), dict), name
        assert not COMBINATORS & set(schema), (name, sorted(COMBINATORS & set(schema)))
        assert set(schema.get("required", [])) <= set(schema["properties"]), name
        assert tool.openai()["function"]["parameters"] == schema, name
