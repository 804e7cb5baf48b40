"""The automation world's inventory (ERP): warehouses, vendors, items by SKU, stock levels with what is on
order, movements (adjustments, shipments, transfers), and purchase orders from draft to received, with
the approval limit, over-receipt and stock-below-zero rules the tools keep."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

BUYER = "sofia.rossi@lumenpine.example"  # Logistics Coordinator: not an approver
APPROVER = "rafael.ortiz@lumenpine.example"  # Operations Manager

episode = episode_fixture("inventory", "automation", "inventory-tools", BUYER)


def stock(episode, item_id: str, warehouse_id: str) -> int | None:
    found = rows(
        episode.path, "SELECT on_hand FROM inv_stock WHERE item_id = ? AND warehouse_id = ?", item_id, warehouse_id
    )
    return found[0][0] if found else None


def counts(episode) -> tuple:
    return rows(
        episode.path,
        "SELECT (SELECT count(*) FROM inv_movements), (SELECT count(*) FROM inv_purchase_orders), "
        "(SELECT count(*) FROM inv_po_lines), (SELECT sum(on_hand) FROM inv_stock)",
    )[0]


def test_low_stock_counts_what_is_on_order_and_look_alikes_stay_apart(episode):
    low = ok(episode, "inv_list_stock_levels", {"warehouse_id": "WH-01", "below_reorder_only": True})
    assert [(r["sku"], r["on_hand"], r["on_order"], r["reorder_point"]) for r in low["rows"]] == [
        ("LP-ADR-CD", 36, 0, 40),
        ("LP-HW-KIT-B", 12, 0, 40),
        ("LP-PRT-SLAT-CD", 0, 0, 10),
        ("LP-UMB-BASE", 18, 0, 30),
    ]  # LP-LNG-TK (58 + 12 on PO-0109) and LP-DIN-8 (9 + 11 on PO-0106) are covered; a draft is not on order
    table = ok(episode, "inv_get_item", {"item_id": "ITM-0007"})
    assert table["sku"] == "LP-DIN-8" and table["vendor_name"] == "Redwood Timber Co"
    assert [(s["warehouse_id"], s["on_hand"], s["on_order"]) for s in table["stock"]] == [
        ("WH-01", 9, 11),
        ("WH-03", 1, 0),
    ]
    assert [p["po_id"] for p in table["open_purchase_orders"]] == ["PO-0106"]  # not the cancelled PO-0107
    bistro = ok(episode, "inv_list_items", {"query": "bistro set"})
    assert [(r["sku"], r["status"]) for r in bistro["rows"]] == [
        ("LP-BIS-2", "active"),
        ("LP-BIS-2-24", "discontinued"),
    ]
    assert ok(episode, "inv_list_items", {"sku": "lp-hw-kit-b"})["rows"][0]["id"] == "ITM-0015"
    vendors = ok(episode, "inv_list_vendors", {"query": "steelworks"})
    assert [(v["id"], v["status"]) for v in vendors["rows"]] == [("VEN-002", "active"), ("VEN-004", "inactive")]
    refused(episode, "inv_get_item", {"item_id": "ITM-9999"}, 404, "not_found")


def test_a_draft_po_is_completed_and_submitted_under_the_limit(episode):
    refused(
        episode,
        "inv_set_purchase_order_line",
        {"po_id": "PO-0103", "item_id": "ITM-0014", "quantity": 5},
        409,
        "not_draft",
    )
    refused(
        episode,
        "inv_set_purchase_order_line",
        {"po_id": "PO-0108", "item_id": "ITM-0002", "quantity": 5},
        409,
        "item_not_from_vendor",
        counts,
    )
    refused(
        episode,
        "inv_set_purchase_order_line",
        {"po_id": "PO-0108", "item_id": "ITM-0023", "quantity": 5},
        409,
        "item_discontinued",
        counts,
    )
    ok(episode, "inv_set_purchase_order_line", {"po_id": "PO-0108", "item_id": "ITM-0011", "quantity": 42})
    po = ok(episode, "inv_set_purchase_order_line", {"po_id": "PO-0108", "item_id": "ITM-0015", "quantity": 68})
    assert [(line["sku"], line["quantity"], line["unit_cost"]) for line in po["lines"]] == [
        ("LP-UMB-BASE", 42, 42.0),
        ("LP-HW-KIT-B", 68, 6.5),
    ]
    assert po["total"] == 2206.0 and po["status"] == "draft"
    sent = ok(episode, "inv_submit_purchase_order", {"po_id": "PO-0108"})
    assert (sent["status"], sent["ordered_at"], sent["expected_date"]) == (
        "ordered",
        "2026-09-14T09:00:00Z",
        "2026-09-24",
    )
    assert sent["approved_by"] is None  # under the limit: no approval needed
    after = ok(episode, "inv_list_stock_levels", {"warehouse_id": "WH-01", "below_reorder_only": True})
    assert [r["sku"] for r in after["rows"]] == ["LP-ADR-CD", "LP-PRT-SLAT-CD"]
    refused(episode, "inv_submit_purchase_order", {"po_id": "PO-0108"}, 409, "not_draft")


def test_over_the_limit_a_po_waits_for_the_operations_manager(episode):
    lines = [{"item_id": "ITM-0002", "quantity": 44}, {"item_id": "ITM-0004", "quantity": 50}]
    po = ok(episode, "inv_create_purchase_order", {"vendor_id": "VEN-001", "warehouse_id": "WH-01", "lines": lines})
    assert (po["id"], po["total"], po["buyer_email"], po["status"]) == ("PO-0110", 15530.0, BUYER, "draft")
    waiting = ok(episode, "inv_submit_purchase_order", {"po_id": "PO-0110"})
    assert (waiting["status"], waiting["ordered_at"]) == ("pending_approval", None)
    state = lambda e: rows(e.path, "SELECT status, approved_by FROM inv_purchase_orders WHERE id = 'PO-0110'")  # noqa: E731
    refused(episode, "inv_approve_purchase_order", {"po_id": "PO-0110"}, 403, "not_an_approver", state)
    approved = ok(episode, "inv_approve_purchase_order", {"po_id": "PO-0110"}, actor=APPROVER)
    assert (approved["status"], approved["approved_by"]) == ("ordered", APPROVER)
    refused(episode, "inv_approve_purchase_order", {"po_id": "PO-0110"}, 409, "not_pending_approval")
    own = ok(
        episode,
        "inv_create_purchase_order",
        {"vendor_id": "VEN-001", "warehouse_id": "WH-02", "lines": [{"item_id": "ITM-0006", "quantity": 20}]},
    )
    assert ok(episode, "inv_submit_purchase_order", {"po_id": own["id"]})["approved_by"] == APPROVER  # 12,800 by Rafael


def test_creating_a_po_checks_vendor_warehouse_items_and_buyer(episode):
    line = [{"item_id": "ITM-0025", "quantity": 10}]
    refused(
        episode,
        "inv_create_purchase_order",
        {"vendor_id": "VEN-004", "warehouse_id": "WH-01", "lines": line},
        409,
        "vendor_inactive",
        counts,
    )
    good = [{"item_id": "ITM-0011", "quantity": 10}]
    refused(
        episode,
        "inv_create_purchase_order",
        {"vendor_id": "VEN-002", "warehouse_id": "WH-04", "lines": good},
        409,
        "warehouse_closed",
        counts,
    )
    refused(
        episode,
        "inv_create_purchase_order",
        {"vendor_id": "VEN-002", "warehouse_id": "WH-01", "lines": good * 2},
        400,
        "duplicate_item",
        counts,
    )
    refused(
        episode,
        "inv_create_purchase_order",
        {"vendor_id": "VEN-002", "warehouse_id": "WH-01", "lines": good, "buyer_email": "tom.baker@lumenpine.example"},
        400,
        "unknown_employee",
        counts,
    )
    po = ok(
        episode,
        "inv_create_purchase_order",
        {
            "vendor_id": "VEN-002",
            "warehouse_id": "WH-01",
            "lines": [{"item_id": "ITM-0011", "quantity": 10, "unit_cost": 40}],
        },
    )
    assert po["total"] == 400.0 and po["lines"][0]["unit_cost"] == 40.0
    emptied = ok(episode, "inv_set_purchase_order_line", {"po_id": po["id"], "item_id": "ITM-0011", "quantity": 0})
    assert emptied["lines"] == [] and emptied["total"] == 0.0
    refused(episode, "inv_submit_purchase_order", {"po_id": po["id"]}, 409, "empty_po")
    cancelled = ok(episode, "inv_cancel_purchase_order", {"po_id": po["id"], "reason": "Raised by mistake"})
    assert (cancelled["status"], cancelled["cancel_reason"]) == ("cancelled", "Raised by mistake")


def test_receiving_books_stock_and_refuses_more_than_ordered(episode):
    before = counts(episode)
    refused(
        episode,
        "inv_receive_purchase_order",
        {"po_id": "PO-0103", "lines": [{"item_id": "ITM-0014", "quantity": 121}], "reference": "BT-7781"},
        409,
        "over_receipt",
    )
    refused(
        episode,
        "inv_receive_purchase_order",
        {"po_id": "PO-0103", "lines": [{"item_id": "ITM-0011", "quantity": 1}], "reference": "BT-7781"},
        400,
        "item_not_on_po",
    )
    refused(
        episode,
        "inv_receive_purchase_order",
        {"po_id": "PO-0108", "lines": [{"item_id": "ITM-0011", "quantity": 1}], "reference": "X"},
        409,
        "not_receivable",
    )
    assert counts(episode) == before
    lines = [{"item_id": "ITM-0014", "quantity": 80}, {"item_id": "ITM-0013", "quantity": 60}]
    po = ok(episode, "inv_receive_purchase_order", {"po_id": "PO-0103", "lines": lines, "reference": "BT-7781"})
    assert po["status"] == "partially_received"
    assert [(line["sku"], line["received_qty"], line["outstanding"]) for line in po["lines"]] == [
        ("LP-CSH-DIN", 80, 40),
        ("LP-CSH-LNG", 60, 0),
    ]
    assert (stock(episode, "ITM-0014", "WH-01"), stock(episode, "ITM-0013", "WH-01")) == (175, 210)
    assert rows(
        episode.path, "SELECT kind, quantity, reference, po_id FROM inv_movements WHERE po_id = 'PO-0103' ORDER BY id"
    ) == [
        ("receipt", 80, "BT-7781", "PO-0103"),
        ("receipt", 60, "BT-7781", "PO-0103"),
    ]
    refused(episode, "inv_cancel_purchase_order", {"po_id": "PO-0103", "reason": "x"}, 409, "has_receipts")
    done = ok(
        episode,
        "inv_receive_purchase_order",
        {"po_id": "PO-0103", "lines": [{"item_id": "ITM-0014", "quantity": 40}], "reference": "BT-7790"},
    )
    assert done["status"] == "received"
    refused(episode, "inv_cancel_purchase_order", {"po_id": "PO-0101", "reason": "x"}, 409, "has_receipts")
    refused(episode, "inv_cancel_purchase_order", {"po_id": "PO-0105", "reason": "x"}, 409, "po_closed")


def test_shipments_and_transfers_never_take_stock_below_zero(episode):
    before = counts(episode)
    refused(
        episode,
        "inv_ship_stock",
        {"item_id": "ITM-0019", "warehouse_id": "WH-01", "quantity": 1, "reference": "HD-1019"},
        409,
        "insufficient_stock",
    )
    refused(
        episode,
        "inv_transfer_stock",
        {"item_id": "ITM-0009", "from_warehouse_id": "WH-01", "to_warehouse_id": "WH-04", "quantity": 1},
        409,
        "warehouse_closed",
    )
    refused(
        episode,
        "inv_transfer_stock",
        {"item_id": "ITM-0009", "from_warehouse_id": "WH-01", "to_warehouse_id": "WH-01", "quantity": 1},
        400,
        "same_warehouse",
    )
    assert counts(episode) == before
    shipped = ok(
        episode,
        "inv_ship_stock",
        {"item_id": "ITM-0019", "warehouse_id": "WH-02", "quantity": 1, "reference": "HD-1019", "note": "Linda Hart"},
    )
    assert (shipped["kind"], shipped["quantity"], shipped["on_hand_after"]) == ("shipment", -1, 24)
    moved = ok(
        episode,
        "inv_transfer_stock",
        {"item_id": "ITM-0009", "from_warehouse_id": "WH-01", "to_warehouse_id": "WH-02", "quantity": 120},
    )
    assert [(m["warehouse_id"], m["kind"], m["quantity"]) for m in moved["movements"]] == [
        ("WH-01", "transfer_out", -120),
        ("WH-02", "transfer_in", 120),
    ]
    assert (stock(episode, "ITM-0009", "WH-01"), stock(episode, "ITM-0009", "WH-02")) == (0, 120)  # a new stock row
    # leftovers may leave a closed warehouse
    ok(
        episode,
        "inv_transfer_stock",
        {"item_id": "ITM-0024", "from_warehouse_id": "WH-04", "to_warehouse_id": "WH-01", "quantity": 6},
    )
    assert stock(episode, "ITM-0024", "WH-04") == 0


def test_adjustments_by_change_or_count_and_stock_settings(episode):
    refused(
        episode,
        "inv_adjust_stock",
        {"item_id": "ITM-0015", "warehouse_id": "WH-01", "reason": "count", "change": -2, "counted": 10},
        400,
        "change_or_counted",
    )
    refused(
        episode,
        "inv_adjust_stock",
        {"item_id": "ITM-0015", "warehouse_id": "WH-01", "reason": "count", "counted": 12},
        409,
        "no_change",
    )
    refused(
        episode,
        "inv_adjust_stock",
        {"item_id": "ITM-0015", "warehouse_id": "WH-01", "reason": "scrap", "change": -13},
        409,
        "insufficient_stock",
    )
    counted = ok(
        episode,
        "inv_adjust_stock",
        {"item_id": "ITM-0015", "warehouse_id": "WH-01", "reason": "Cycle count", "counted": 10},
    )
    assert (counted["quantity"], counted["on_hand_after"], counted["note"]) == (-2, 10, "Cycle count")
    found = ok(
        episode, "inv_adjust_stock", {"item_id": "ITM-0021", "warehouse_id": "WH-01", "reason": "Found", "change": 3}
    )
    assert found["on_hand_after"] == 9
    refused(
        episode,
        "inv_adjust_stock",
        {"item_id": "ITM-0024", "warehouse_id": "WH-04", "reason": "x", "change": 1},
        409,
        "warehouse_closed",
    )
    settings = ok(
        episode,
        "inv_update_stock_settings",
        {"item_id": "ITM-0009", "warehouse_id": "WH-02", "reorder_point": 50, "bin": "R-C-01"},
    )
    assert (settings["reorder_point"], settings["bin"], settings["on_hand"]) == (50, "R-C-01", 0)
    refused(
        episode, "inv_update_stock_settings", {"item_id": "ITM-0009", "warehouse_id": "WH-02"}, 400, "missing_field"
    )
    history = ok(episode, "inv_list_stock_movements", {"item_id": "ITM-0015"})
    assert [(m["kind"], m["quantity"]) for m in history["rows"]] == [("adjustment", -2), ("adjustment", -3)]


def test_items_vendors_and_po_updates(episode):
    item = ok(
        episode,
        "inv_create_item",
        {
            "sku": "lp-chs-al",
            "name": "Chaise - Aluminum",
            "category": "Seating",
            "unit_cost": 130,
            "vendor_id": "VEN-002",
        },
    )
    assert (item["id"], item["sku"], item["status"]) == ("ITM-0027", "LP-CHS-AL", "active")
    refused(
        episode,
        "inv_create_item",
        {"sku": "LP-CHS-AL", "name": "x", "category": "x", "unit_cost": 1},
        409,
        "duplicate_sku",
    )
    refused(episode, "inv_update_item", {"item_id": "ITM-0007", "status": "discontinued"}, 409, "item_on_open_order")
    assert ok(episode, "inv_update_item", {"item_id": "ITM-0027", "unit_cost": 128.5})["unit_cost"] == 128.5
    vendor = ok(episode, "inv_create_vendor", {"name": "Cascade Castings", "email": "Sales@CascadeCastings.example"})
    assert (vendor["id"], vendor["email"], vendor["status"]) == ("VEN-006", "sales@cascadecastings.example", "active")
    refused(
        episode, "inv_create_vendor", {"name": "steelworks hardware", "email": "a@b.example"}, 409, "duplicate_vendor"
    )
    refused(episode, "inv_update_vendor", {"vendor_id": "VEN-002", "status": "inactive"}, 409, "vendor_has_open_orders")
    assert ok(episode, "inv_update_vendor", {"vendor_id": "VEN-005", "lead_time_days": 5})["lead_time_days"] == 5
    steelworks = ok(episode, "inv_get_vendor", {"vendor_id": "VEN-002"})
    assert [p["id"] for p in steelworks["open_purchase_orders"]] == ["PO-0104", "PO-0108"]
    handed = ok(
        episode,
        "inv_update_purchase_order",
        {"po_id": "PO-0106", "buyer_email": "Ben.Carter@lumenpine.example", "notes": "Sofia on leave; Ben follows up."},
    )
    assert handed["buyer_email"] == "ben.carter@lumenpine.example"
    refused(
        episode,
        "inv_update_purchase_order",
        {"po_id": "PO-0101", "buyer_email": "ben.carter@lumenpine.example"},
        409,
        "po_closed",
    )
    assert ok(episode, "inv_update_purchase_order", {"po_id": "PO-0101", "notes": "Invoice RT-88001 paid."})["notes"]
    mine = ok(episode, "inv_list_purchase_orders", {"buyer_email": BUYER, "open_only": True})
    assert [p["id"] for p in mine["rows"]] == ["PO-0103", "PO-0104", "PO-0109"]
    assert (
        ok(episode, "inv_list_purchase_orders", {"item_id": "ITM-0007"})["total"] == 2
    )  # PO-0106 and the cancelled PO-0107
    warehouses = ok(episode, "inv_list_warehouses", {"status": "active"})
    assert [w["name"] for w in warehouses["rows"]] == [
        "Harbor St Warehouse",
        "Riverside Warehouse",
        "Portland Showroom (display stock)",
    ]
