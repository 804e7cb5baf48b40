"""Commerce's order service beyond ServiceBench's: returns and exchanges, coupons, price protection, shipping
addresses, cancellations and shipments, and searching orders — each rule of the policy enforced, every refusal
a structured error that writes nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

TASK = "commerce/order-status"  # the seed world; its clock is 2026-03-14T10:00:00Z
NOW = "2026-03-14T10:00:00Z"


def query(path: Path, sql: str, *params: Any) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def stock(path: Path, sku: str) -> int:
    return query(path, "SELECT stock FROM products WHERE sku = ?", sku)[0][0]


def back(sku: str, quantity: int = 1) -> dict[str, Any]:
    return {"sku": sku, "quantity": quantity}


# --- returns -------------------------------------------------------------------------------------


def test_a_partial_return_refunds_the_units_less_their_share_of_the_coupon_and_restocks(start_episode):
    episode = start_episode(TASK)
    args = {"order_id": "ORD-1066", "items": [back("SKU-547", 2)], "reason_code": "changed_mind", "note": "too many"}
    result = episode.call("orders_return_items", args).result
    # 2 x 36.00 = 72.00, less 72/153 of LOYAL5's 7.65 = 3.60
    assert (result["return_id"], result["refund_id"], result["refunded"], result["capped"]) == (
        "RET-0005",
        "RF-0007",
        68.4,
        False,
    )
    assert result["order_status"] == "delivered"  # a pack and the wallet are kept
    assert query(episode.path, "SELECT amount, reason FROM refunds WHERE id = 'RF-0007'") == [(68.4, "too many")]
    assert query(episode.path, "SELECT kind, reason_code, note, refund_id FROM returns WHERE id = 'RET-0005'") == [
        ("refund", "changed_mind", "too many", "RF-0007")
    ]
    assert query(
        episode.path, "SELECT sku, quantity, amount, restocked FROM return_items WHERE return_id = 'RET-0005'"
    ) == [("SKU-547", 2, 68.4, 1)]
    assert stock(episode.path, "SKU-547") == 85
    # the third pack can still come back, but not a fourth
    over = episode.call("orders_return_items", {**args, "items": [back("SKU-547", 2)]})
    assert (over.error["code"], over.error["error"]) == (409, "exceeds_returnable")


def test_damaged_units_on_a_final_sale_order_come_back_unstocked_and_close_the_order(start_episode):
    episode = start_episode(TASK)
    args = {"order_id": "ORD-1072", "items": [back("SKU-330")], "reason_code": "changed_mind", "note": "meh"}
    refused = episode.call("orders_return_items", args)
    assert (refused.error["code"], refused.error["error"]) == (409, "final_sale")
    done = episode.call("orders_return_items", {**args, "reason_code": "damaged", "note": "cracked"}).result
    assert (done["refunded"], done["order_status"], done["items"][0]["restocked"]) == (99.3, "returned", False)
    assert stock(episode.path, "SKU-330") == 42
    assert query(episode.path, "SELECT status, updated_at FROM orders WHERE id = 'ORD-1072'") == [("returned", NOW)]
    again = episode.call("orders_return_items", {**args, "reason_code": "damaged"})
    assert again.error["error"] == "already_returned"


@pytest.mark.parametrize(
    ("args", "code", "error"),
    [
        (
            {"order_id": "ORD-1070", "items": [back("SKU-296")], "reason_code": "changed_mind"},
            409,
            "outside_return_window",
        ),
        (
            {"order_id": "ORD-1070", "items": [back("SKU-296")], "reason_code": "wrong_size"},
            409,
            "outside_return_window",
        ),
        ({"order_id": "ORD-1071", "items": [back("SKU-615", 2)], "reason_code": "changed_mind"}, 409, "final_sale"),
        ({"order_id": "ORD-1009", "items": [back("SKU-212")], "reason_code": "changed_mind"}, 409, "final_sale"),
        ({"order_id": "ORD-1071", "items": [back("SKU-445")], "reason_code": "damaged"}, 409, "not_in_order"),
        ({"order_id": "ORD-1071", "items": [back("SKU-275", 2)], "reason_code": "damaged"}, 409, "exceeds_returnable"),
        (
            {"order_id": "ORD-1071", "items": [back("SKU-275"), back("SKU-275")], "reason_code": "damaged"},
            400,
            "duplicate_sku",
        ),
        ({"order_id": "ORD-1079", "items": [back("SKU-153")], "reason_code": "damaged"}, 409, "not_delivered"),
        ({"order_id": "ORD-1074", "items": [back("SKU-610")], "reason_code": "damaged"}, 409, "not_delivered"),
        ({"order_id": "ORD-1008", "items": [back("SKU-287")], "reason_code": "damaged"}, 409, "already_returned"),
        (
            {"order_id": "ORD-1065", "items": [back("SKU-547")], "reason_code": "defective"},
            409,
            "outside_return_window",
        ),
        ({"order_id": "ORD-9999", "items": [back("SKU-547")], "reason_code": "defective"}, 404, "not_found"),
        ({"order_id": "ORD-1071", "items": [], "reason_code": "damaged"}, 400, "invalid_arguments"),
        ({"order_id": "ORD-1071", "items": [back("SKU-275", 0)], "reason_code": "damaged"}, 400, "invalid_arguments"),
        ({"order_id": "ORD-1071", "items": [back("SKU-275")], "reason_code": "unwanted"}, 400, "invalid_arguments"),
    ],
)
def test_return_refusals_write_nothing(start_episode, world_rows, args, code, error):
    episode = start_episode(TASK)
    before = world_rows(episode.path)
    outcome = episode.call("orders_return_items", {"note": "n", **args})
    assert (outcome.error["code"], outcome.error["error"]) == (code, error), outcome.error["message"]
    assert world_rows(episode.path) == before


def test_a_fault_return_is_taken_within_60_days_and_a_defective_beauty_item_too(start_episode):
    episode = start_episode(TASK)
    headlamp = episode.call(
        "orders_return_items",
        {"order_id": "ORD-1070", "items": [back("SKU-469")], "reason_code": "defective", "note": "won't charge"},
    ).result
    assert (headlamp["refunded"], headlamp["items"][0]["restocked"]) == (36.5, False)
    serum = episode.call(
        "orders_return_items",
        {"order_id": "ORD-1071", "items": [back("SKU-615")], "reason_code": "damaged", "note": "leaked"},
    ).result
    assert serum["refunded"] == 28.0


def test_a_return_refund_is_capped_by_what_remains_refundable(start_episode):
    episode = start_episode(TASK)
    assert episode.call("orders_process_refund", {"order_id": "ORD-1069", "amount": 100.0, "reason": "goodwill"}).ok
    result = episode.call(
        "orders_return_items",
        {"order_id": "ORD-1069", "items": [back("SKU-461")], "reason_code": "changed_mind", "note": "small"},
    ).result
    assert (result["amount_due"], result["refunded"], result["capped"]) == (84.0, 20.5, True)
    assert query(episode.path, "SELECT sum(amount) FROM refunds WHERE order_id = 'ORD-1069'") == [(120.5,)]


# --- exchanges -----------------------------------------------------------------------------------


def test_an_exchange_ships_the_variant_as_a_no_charge_order(start_episode):
    episode = start_episode(TASK)
    args = {
        "order_id": "ORD-1068",
        "sku": "SKU-581",
        "new_sku": "SKU-582",
        "quantity": 1,
        "reason_code": "wrong_size",
        "note": "too small",
    }
    result = episode.call("orders_exchange_item", args).result
    assert (result["replacement_order_id"], result["order_status"]) == ("ORD-1096", "delivered")
    assert query(
        episode.path,
        "SELECT user_id, status, placed_at, shipping_address, subtotal, total, return_eligible "
        "FROM orders WHERE id = 'ORD-1096'",
    ) == [("USR-027", "processing", NOW, "911 Camino Alto, Santa Fe, NM 87501", 0.0, 0.0, 0)]
    assert query(
        episode.path, "SELECT sku, quantity, unit_price, list_price FROM order_items WHERE order_id = 'ORD-1096'"
    ) == [("SKU-582", 1, 0.0, 72.0)]
    assert query(episode.path, "SELECT kind, refund_id, exchange_order_id FROM returns WHERE id = 'RET-0005'") == [
        ("exchange", None, "ORD-1096")
    ]
    assert (stock(episode.path, "SKU-581"), stock(episode.path, "SKU-582")) == (83, 13)
    assert query(episode.path, "SELECT count(*) FROM refunds WHERE order_id = 'ORD-1068'") == [(0,)]


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"new_sku": "SKU-583"}, "out_of_stock"),  # the XL: none in stock
        ({"new_sku": "SKU-581"}, "not_a_variant"),  # itself
        ({"new_sku": "SKU-445"}, "not_a_variant"),  # another product
        ({"order_id": "ORD-1069", "sku": "SKU-461", "new_sku": "SKU-462"}, "price_differs"),  # 18L 84.00, 24L 98.00
        ({"order_id": "ORD-1090"}, "outside_return_window"),  # the same hoodie, bought in November
        ({"sku": "SKU-668", "new_sku": "SKU-582", "reason_code": "damaged"}, "not_a_variant"),
        ({"quantity": 2}, "exceeds_returnable"),
    ],
)
def test_exchange_refusals_write_nothing(start_episode, world_rows, changes, error):
    episode = start_episode(TASK)
    before = world_rows(episode.path)
    args = {
        "order_id": "ORD-1068",
        "sku": "SKU-581",
        "new_sku": "SKU-582",
        "quantity": 1,
        "reason_code": "wrong_size",
        "note": "n",
        **changes,
    }
    outcome = episode.call("orders_exchange_item", args)
    assert (outcome.error["code"], outcome.error["error"]) == (409, error), outcome.error["message"]
    assert world_rows(episode.path) == before


# --- coupons -------------------------------------------------------------------------------------


def test_a_coupon_on_a_charged_order_is_refunded_and_on_a_pending_one_lowers_the_total(start_episode):
    episode = start_episode(TASK)
    charged = episode.call("orders_apply_coupon", {"order_id": "ORD-1073", "code": " spring15 "}).result
    assert charged == {
        "order_id": "ORD-1073",
        "code": "SPRING15",
        "discount": 21.44,
        "applied_as": "refund",
        "refund_id": "RF-0007",
        "total": 142.96,
    }
    assert query(episode.path, "SELECT adjustment FROM order_coupons WHERE order_id = 'ORD-1073'") == [(-21.44,)]
    pending = episode.call("orders_apply_coupon", {"order_id": "ORD-1074", "code": "FREESHIP5"}).result
    assert (pending["applied_as"], pending["total"], pending["refund_id"]) == ("lower_total", 150.7, None)
    assert query(episode.path, "SELECT total, updated_at FROM orders WHERE id = 'ORD-1074'") == [(150.7, NOW)]


@pytest.mark.parametrize(
    ("order_id", "code", "error"),
    [
        ("ORD-1073", "SPRING25", "coupon_not_valid"),  # spring 2025 only
        ("ORD-1073", "HOLIDAY25", "coupon_not_valid"),
        ("ORD-1074", "TAKE15", "one_coupon_per_order"),  # WELCOME10 is on it
        ("ORD-1074", "WELCOME10", "already_applied"),
        ("ORD-1056", "FREESHIP5", "already_applied"),
        ("ORD-1056", "LOYAL5", "one_coupon_per_order"),  # WELCOME10 and the stackable FREESHIP5 already
        ("ORD-1077", "TAKE15", "below_minimum"),  # 46.99 < 75
        ("ORD-1077", "SPRING15", "below_minimum"),
        ("ORD-1076", "LOYAL5", "too_late_for_coupon"),  # charged, placed 22 days ago
        ("ORD-1020", "LOYAL5", "order_closed"),
        ("ORD-1073", "NOPE", "not_found"),
    ],
)
def test_coupon_refusals_write_nothing(start_episode, world_rows, order_id, code, error):
    episode = start_episode(TASK)
    before = world_rows(episode.path)
    outcome = episode.call("orders_apply_coupon", {"order_id": order_id, "code": code})
    assert outcome.error["error"] == error, outcome.error["message"]
    assert world_rows(episode.path) == before


def test_a_stackable_coupon_joins_one_other_only(start_episode):
    episode = start_episode(TASK)
    # ORD-1006 already carries FREESHIP5 (stackable): one non-stackable coupon may join it
    assert episode.call("orders_apply_coupon", {"order_id": "ORD-1006", "code": "TAKE15"}).error["error"] == (
        "below_minimum"
    )
    joined = episode.call("orders_apply_coupon", {"order_id": "ORD-1006", "code": "WELCOME10"})
    assert joined.ok, joined.error
    assert joined.result["discount"] == 7.0  # 10% of the 69.99 subtotal, to the cent
    third = episode.call("orders_apply_coupon", {"order_id": "ORD-1006", "code": "LOYAL5"})
    assert third.error["error"] == "one_coupon_per_order"


def test_coupon_lookup_shows_its_terms(start_episode):
    coupon = start_episode(TASK).call("orders_coupon_lookup", {"code": "spring25"}).result
    assert (coupon["valid_from"], coupon["valid_until"], coupon["min_subtotal"], coupon["stackable"]) == (
        "2025-03-01",
        "2025-03-31",
        100.0,
        False,
    )


# --- price protection ----------------------------------------------------------------------------


def test_price_protection_refunds_the_drop_once_per_line_for_the_units_kept(start_episode):
    episode = start_episode(TASK)
    speaker = episode.call("orders_price_adjustment", {"order_id": "ORD-1075", "sku": "SKU-330"}).result
    assert {k: speaker[k] for k in ("id", "quantity", "paid_price", "new_price", "amount", "refund_id")} == {
        "id": "PA-0001",
        "quantity": 1,
        "paid_price": 149.0,
        "new_price": 104.3,
        "amount": 44.7,
        "refund_id": "RF-0007",
    }
    again = episode.call("orders_price_adjustment", {"order_id": "ORD-1075", "sku": "SKU-330"})
    assert again.error["error"] == "already_adjusted"
    # a riser returned first: only the one kept is adjusted
    assert episode.call(
        "orders_return_items",
        {"order_id": "ORD-1075", "items": [back("SKU-725")], "reason_code": "changed_mind", "note": "one is enough"},
    ).ok
    riser = episode.call("orders_price_adjustment", {"order_id": "ORD-1075", "sku": "SKU-725"}).result
    assert (riser["quantity"], riser["amount"]) == (1, 15.6)


@pytest.mark.parametrize(
    ("order_id", "sku", "code", "error"),
    [
        ("ORD-1076", "SKU-468", 409, "outside_price_protection"),  # placed 22 days ago
        ("ORD-1077", "SKU-204", 409, "no_price_drop"),
        ("ORD-1075", "SKU-739", 409, "no_price_drop"),
        ("ORD-1075", "SKU-445", 404, "not_found"),
        ("ORD-1074", "SKU-610", 409, "not_adjustable"),  # pending: not charged
    ],
)
def test_price_protection_refusals_write_nothing(start_episode, world_rows, order_id, sku, code, error):
    episode = start_episode(TASK)
    before = world_rows(episode.path)
    outcome = episode.call("orders_price_adjustment", {"order_id": order_id, "sku": sku})
    assert (outcome.error["code"], outcome.error["error"]) == (code, error), outcome.error["message"]
    assert world_rows(episode.path) == before


# --- shipping address, cancellation, shipments, search -------------------------------------------


def test_an_unshipped_order_goes_only_to_the_address_on_the_account(start_episode, world_rows):
    episode = start_episode(TASK)
    new = "740 Grand Ave Apt 3, St Paul, MN 55105"
    before = world_rows(episode.path)
    early = episode.call("orders_update_shipping_address", {"order_id": "ORD-1078", "address": new})
    assert early.error["error"] == "address_not_on_account"
    assert world_rows(episode.path) == before
    verified = {"phone_last4": "0190", "postal_code": "55405"}
    assert episode.call(
        "users_update", {"user_id": "USR-039", "updates": {"address": new}, "verification": verified}
    ).ok
    done = episode.call("orders_update_shipping_address", {"order_id": "ORD-1078", "address": new}).result
    assert done == {
        "order_id": "ORD-1078",
        "previous_address": "2208 Lyndale Ave S, Minneapolis, MN 55405",
        "shipping_address": new,
    }
    shipped = episode.call("orders_update_shipping_address", {"order_id": "ORD-1079", "address": new})
    assert shipped.error["error"] == "not_redirectable"
    assert (
        episode.call("orders_update_shipping_address", {"order_id": "ORD-1078", "address": new}).error["error"]
        == "unchanged"
    )


def test_cancelling_a_charged_order_refunds_it_and_restocks(start_episode):
    episode = start_episode(TASK)
    result = episode.call("orders_update_status", {"order_id": "ORD-1082", "new_status": "cancelled"}).result
    assert result["refund"]["amount"] == 119.0 and result["restocked"] == [{"sku": "SKU-205", "quantity": 1}]
    assert stock(episode.path, "SKU-205") == 96
    pending = episode.call("orders_update_status", {"order_id": "ORD-1074", "new_status": "cancelled"}).result
    assert pending["refund"] is None  # never charged
    assert query(episode.path, "SELECT count(*) FROM refunds WHERE order_id = 'ORD-1074'") == [(0,)]


def test_shipping_and_delivering_record_the_shipment(start_episode):
    episode = start_episode(TASK)
    assert episode.call("orders_update_status", {"order_id": "ORD-1078", "new_status": "shipped"}).ok
    assert query(episode.path, "SELECT shipped_at, delivered_at FROM shipments WHERE order_id = 'ORD-1078'") == [
        (NOW, None)
    ]
    assert episode.call("orders_update_status", {"order_id": "ORD-1079", "new_status": "delivered"}).ok
    assert query(episode.path, "SELECT carrier, shipped_at, delivered_at FROM shipments WHERE order_id = 'ORD-1079'")[
        0
    ][1:] == ("2026-03-12T09:15:00Z", NOW)
    view = episode.call("orders_lookup", {"order_id": "ORD-1079"}).result
    assert view["shipment"]["delivered_at"] == NOW and view["returns"] == []


def test_orders_search_filters_and_pages(start_episode):
    episode = start_episode(TASK)
    recalled = episode.call("orders_search", {"sku": "SKU-458", "placed_from": "2026-01-15"}).result
    assert [o["id"] for o in recalled["orders"]] == ["ORD-1051", "ORD-1029", "ORD-1084", "ORD-1085"]
    through = episode.call("orders_search", {"sku": "SKU-458", "placed_to": "2026-01-12"}).result
    assert [o["id"] for o in through["orders"]] == ["ORD-1060", "ORD-1091"]
    shipped = episode.call("orders_search", {"status": "shipped", "user_id": "USR-039"}).result
    assert [o["id"] for o in shipped["orders"]] == ["ORD-1079"]
    page = episode.call("orders_search", {"status": "delivered", "per_page": 3, "page": 2}).result
    assert page["total"] > 40 and len(page["orders"]) == 3
    bad = episode.call("orders_search", {"placed_from": "March 1"})
    assert bad.error["error"] == "invalid_arguments"


def test_a_return_after_price_protection_refunds_only_what_was_paid_net_of_it(start_episode):
    episode = start_episode(TASK)
    assert episode.call("orders_price_adjustment", {"order_id": "ORD-1075", "sku": "SKU-725"}).result["amount"] == 31.2
    result = episode.call(
        "orders_return_items",
        {"order_id": "ORD-1075", "items": [back("SKU-725")], "reason_code": "changed_mind", "note": "one too many"},
    ).result
    assert result["refunded"] == 36.4  # paid 52.00, of which 15.60 came back already
