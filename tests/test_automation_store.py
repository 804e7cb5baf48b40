"""The automation world's online store: catalog, customer accounts, orders, returns under the policy and
discount codes."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

from simtenant.episode import Episode

ACTOR = "ava.brooks@lumenpine.example"

episode = episode_fixture("store", "automation", "store-tools", ACTOR, current_time="2026-09-15T10:00:00Z")
FLOOR_MODEL_SOLD = {  # a delivered order of the clearance floor model (final sale)
    "store_orders": [
        {
            "id": "SO-1032",
            "customer_id": "SCU-0019",
            "payment_status": "paid",
            "fulfillment_status": "delivered",
            "subtotal": 299.0,
            "total": 299.0,
            "shipping_address": "210 Main St, Vancouver, WA 98660",
            "placed_at": "2026-09-01T10:00:00Z",
            "delivered_at": "2026-09-05T12:00:00Z",
        }
    ],
    "store_order_lines": [
        {
            "id": "SOL-00038",
            "order_id": "SO-1032",
            "variant_id": "VAR-0019",
            "sku": "LP-LNG-TK-FM",
            "title": "Lounge Chair - Teak, floor model",
            "quantity": 1,
            "unit_price": 299.0,
            "amount": 299.0,
        }
    ],
}
clearance = episode_fixture(
    "store", "automation", "store-clearance", ACTOR, current_time="2026-09-15T10:00:00Z", seed_changes=FLOOR_MODEL_SOLD
)


def _order(episode: Episode, order_id: str) -> tuple:
    return rows(
        episode.path,
        "SELECT status, payment_status, fulfillment_status, shipping_address FROM store_orders WHERE id = ?",
        order_id,
    )[0]


def test_catalog_search_finds_skus_and_the_archived_look_alike(episode: Episode) -> None:
    found = ok(episode, "store_list_products", {"query": "adirondack"})
    assert [(r["id"], r["status"]) for r in found["rows"]] == [("PRD-001", "active"), ("PRD-013", "archived")]
    assert [v["sku"] for v in found["rows"][0]["variants"]] == ["LP-ADR-TK", "LP-ADR-CD"]
    by_sku = ok(episode, "store_list_products", {"query": "LP-PLN-CD-S"})
    assert [r["id"] for r in by_sku["rows"]] == ["PRD-006"]
    clearance = ok(episode, "store_get_product", {"product_id": "PRD-014"})
    assert clearance["final_sale"] is True and clearance["variants"][0]["sku"] == "LP-LNG-TK-FM"
    refused(episode, "store_get_product", {"product_id": "PRD-999"}, 404, "not_found")


def test_products_and_variants_change(episode: Episode) -> None:
    made = ok(
        episode,
        "store_create_product",
        {
            "title": "Teak Footstool",
            "category": "Seating",
            "description": "A footstool for the lounge chair.",
            "variants": [{"sku": "lp-fst-tk", "option": "Teak", "price": 149.999, "weight_lb": 12.0}],
        },
    )
    assert (made["id"], made["status"], made["variants"][0]["sku"], made["variants"][0]["price"]) == (
        "PRD-016",
        "draft",
        "LP-FST-TK",
        150.0,
    )
    sku_taken = {
        "title": "Dup",
        "category": "Seating",
        "description": "x",
        "variants": [{"sku": "LP-ADR-TK", "option": "Teak", "price": 1.0, "weight_lb": 1.0}],
    }
    refused(episode, "store_create_product", sku_taken, 409, "duplicate_sku")
    archived = ok(episode, "store_update_product", {"product_id": "PRD-016", "status": "archived"})
    assert (archived["status"], archived["updated_at"]) == ("archived", "2026-09-15T10:00:00Z")
    variant = ok(episode, "store_update_variant", {"variant_id": "VAR-0009", "price": 119.0, "inventory": 100})
    assert (variant["price"], variant["inventory"]) == (119.0, 100)
    refused(episode, "store_update_variant", {"variant_id": "VAR-0009"}, 400, "missing_field")
    refused(episode, "store_update_variant", {"variant_id": "VAR-0009", "inventory": -1}, 400, "invalid_arguments")


def test_customers_tags_and_the_look_alike_names(episode: Episode) -> None:
    harpers = ok(episode, "store_list_customers", {"query": "harper"})
    assert [(r["name"], r["email"]) for r in harpers["rows"]] == [
        ("John Harper", "john.harper@fastmail.example"),
        ("Jon Harper", "jon.harper@mailbox.example"),
    ]
    staff = ok(episode, "store_list_customers", {"tag": "staff"})
    assert [r["id"] for r in staff["rows"]] == ["SCU-0015", "SCU-0007", "SCU-0006", "SCU-0004", "SCU-0005"]
    consenting = ok(episode, "store_list_customers", {"accepts_marketing": False, "per_page": 100})
    assert "SCU-0009" in {r["id"] for r in consenting["rows"]} and consenting["total"] == 9
    customer = ok(episode, "store_get_customer", {"customer_id": "SCU-0012"})
    assert [o["id"] for o in customer["orders"]] == ["SO-1025", "SO-1008"]
    updated = ok(
        episode,
        "store_update_customer",
        {"customer_id": "SCU-0007", "remove_tags": ["STAFF"], "add_tags": ["ambassador"]},
    )
    assert updated["tags"] == "ambassador,vip"
    refused(
        episode,
        "store_update_customer",
        {"customer_id": "SCU-0004", "remove_tags": ["vip"]},
        409,
        "no_such_tag",
        state=lambda e: rows(e.path, "SELECT tags FROM store_customers WHERE id = 'SCU-0004'"),
    )
    refused(
        episode,
        "store_update_customer",
        {"customer_id": "SCU-0002", "email": "JOHN.HARPER@fastmail.example"},
        409,
        "duplicate_email",
    )


def test_orders_search_and_one_order_in_full(episode: Episode) -> None:
    teak = ok(episode, "store_list_orders", {"sku": "LP-BEN-TK"})
    assert [(r["id"], r["customer_name"]) for r in teak["rows"]] == [
        ("SO-1021", "Kevin Walsh"),
        ("SO-1017", "Rosa Martinez"),
    ]
    waiting = ok(episode, "store_list_orders", {"status": "open", "fulfillment_status": "unfulfilled"})
    assert [r["id"] for r in waiting["rows"]] == ["SO-1029"]
    september = ok(episode, "store_list_orders", {"placed_from": "2026-09-05", "placed_to": "2026-09-05"})
    assert [r["id"] for r in september["rows"]] == ["SO-1028", "SO-1027"]
    order = ok(episode, "store_get_order", {"order_id": "SO-1015"})
    assert order["customer"]["email"] == "john.harper@fastmail.example"
    assert [(line["sku"], line["returned_quantity"]) for line in order["lines"]] == [
        ("LP-LNG-TK", 0),
        ("LP-CSH-LNG", 1),
    ]
    assert [c["id"] for c in order["charges"]] == ["CHG-00015"] and order["payment_status"] == "partially_refunded"
    assert order["shipments"][0]["status"] == "delivered" and order["returns"][0]["id"] == "RMA-0002"
    refused(episode, "store_list_orders", {"placed_to": "2026-02-30"}, 400, "invalid_date")


def test_an_address_changes_only_before_the_label_and_holds(episode: Episode) -> None:
    refused(
        episode,
        "store_update_order",
        {"order_id": "SO-1031", "shipping_address": "1 New St, Vancouver, WA 98660"},
        409,
        "already_fulfilled",
        state=lambda e: _order(e, "SO-1031"),
    )
    moved = ok(
        episode, "store_update_order", {"order_id": "SO-1029", "shipping_address": "5 Elm St, Corvallis, OR 97333"}
    )
    assert moved["shipping_address"] == "5 Elm St, Corvallis, OR 97333"
    held = ok(episode, "store_update_order", {"order_id": "SO-1029", "on_hold": True, "hold_reason": "Address check"})
    assert (held["on_hold"], held["hold_reason"]) == (True, "Address check")
    released = ok(episode, "store_update_order", {"order_id": "SO-1029", "on_hold": False})
    assert (released["on_hold"], released["hold_reason"]) == (False, None)
    refused(episode, "store_update_order", {"order_id": "SO-1029", "hold_reason": "x"}, 400, "missing_field")
    refused(episode, "store_update_order", {"order_id": "SO-1018", "note": "x"}, 409, "order_cancelled")


def test_cancelling_needs_the_payment_released_first(episode: Episode) -> None:
    refused(
        episode,
        "store_cancel_order",
        {"order_id": "SO-1029", "reason": "Customer changed his mind"},
        409,
        "payment_outstanding",
        state=lambda e: (_order(e, "SO-1029"), rows(e.path, "SELECT inventory FROM store_variants")),
    )
    refused(episode, "store_cancel_order", {"order_id": "SO-1025", "reason": "x"}, 409, "already_fulfilled")
    ok(episode, "pay_void_charge", {"charge_id": "CHG-00029"})
    before = rows(episode.path, "SELECT inventory FROM store_variants WHERE sku = 'LP-HTR-PAT'")[0][0]
    cancelled = ok(episode, "store_cancel_order", {"order_id": "SO-1029", "reason": "Customer changed his mind"})
    assert (cancelled["status"], cancelled["payment_status"], cancelled["cancel_reason"]) == (
        "cancelled",
        "voided",
        "Customer changed his mind",
    )
    assert rows(episode.path, "SELECT inventory FROM store_variants WHERE sku = 'LP-HTR-PAT'")[0][0] == before + 1
    refused(episode, "store_cancel_order", {"order_id": "SO-1029", "reason": "x"}, 409, "already_cancelled")


def test_returns_follow_the_policy(episode: Episode) -> None:
    nothing = lambda e: rows(e.path, "SELECT count(*) FROM store_returns")  # noqa: E731
    refused(
        episode,
        "store_create_return",
        {"order_id": "SO-1017", "sku": "LP-BEN-TK", "quantity": 1, "reason": "changed_mind"},
        403,
        "return_window_closed",
        state=nothing,
    )
    refused(
        episode,
        "store_create_return",
        {"order_id": "SO-1029", "sku": "LP-HTR-PAT", "quantity": 1, "reason": "defective"},
        409,
        "not_delivered",
    )
    refused(
        episode,
        "store_create_return",
        {"order_id": "SO-1025", "sku": "LP-PLN-CD-L", "quantity": 3, "reason": "damaged"},
        409,
        "over_returned",
    )
    refused(
        episode,
        "store_create_return",
        {"order_id": "SO-1025", "sku": "LP-BEN-TK", "quantity": 1, "reason": "damaged"},
        400,
        "line_not_in_order",
    )
    refused(
        episode,
        "store_create_return",
        {"order_id": "SO-1025", "quantity": 1, "reason": "damaged"},
        400,
        "missing_field",
    )
    rma = ok(
        episode,
        "store_create_return",
        {"order_id": "SO-1025", "sku": "lp-pln-cd-l", "quantity": 1, "reason": "damaged", "note": "Split side"},
    )
    assert (rma["id"], rma["line_id"], rma["status"], rma["unit_price"], rma["created_by"]) == (
        "RMA-0003",
        "SOL-00030",
        "approved",
        129.0,
        ACTOR,
    )
    listed = ok(episode, "store_list_returns", {"customer_id": "SCU-0012"})
    assert [r["id"] for r in listed["rows"]] == ["RMA-0003"] and listed["rows"][0]["sku"] == "LP-PLN-CD-L"
    refused(episode, "store_receive_return", {"return_id": "RMA-0003", "restock": True}, 409, "not_restockable")
    received = ok(episode, "store_receive_return", {"return_id": "RMA-0003"})
    assert (received["status"], received["restocked"]) == ("received", False)
    refused(episode, "store_receive_return", {"return_id": "RMA-0003"}, 409, "not_awaited")


def test_final_sale_items_cannot_come_back(clearance: Episode) -> None:
    refused(
        clearance,
        "store_create_return",
        {"order_id": "SO-1032", "sku": "LP-LNG-TK-FM", "quantity": 1, "reason": "changed_mind"},
        403,
        "final_sale",
        state=lambda e: rows(e.path, "SELECT count(*) FROM store_returns"),
    )


def test_discount_codes(episode: Episode) -> None:
    valid = ok(episode, "store_list_discounts", {"valid_on": "2026-09-15", "status": "active"})
    assert [r["code"] for r in valid["rows"]] == ["SHIPFREE", "STAFF30", "WELCOME10"]
    refused(
        episode,
        "store_create_discount",
        {"code": "fall15", "kind": "percent", "value": 15, "ends_on": "2026-10-18"},
        409,
        "duplicate_code",
    )
    refused(
        episode,
        "store_create_discount",
        {"code": "HALFOFF", "kind": "percent", "value": 60, "ends_on": "2026-10-18"},
        403,
        "discount_too_deep",
    )
    refused(
        episode,
        "store_create_discount",
        {"code": "OLD", "kind": "fixed", "value": 5, "ends_on": "2026-09-01"},
        400,
        "invalid_dates",
    )
    made = ok(
        episode,
        "store_create_discount",
        {"code": "winter10", "kind": "percent", "value": 10, "starts_on": "2026-12-01", "ends_on": "2026-12-31"},
    )
    assert (made["id"], made["code"], made["status"], made["created_by"]) == ("DSC-007", "WINTER10", "active", ACTOR)
    relaunched = ok(
        episode,
        "store_update_discount",
        {"discount_id": "DSC-003", "starts_on": "2026-09-21", "ends_on": "2026-10-18", "status": "active"},
    )
    assert (relaunched["starts_on"], relaunched["ends_on"], relaunched["status"]) == (
        "2026-09-21",
        "2026-10-18",
        "active",
    )
    refused(episode, "store_update_discount", {"discount_id": "DSC-006", "value": 75}, 403, "discount_too_deep")
