"""The automation world's payments app: charges (capture, void, refunds, receipts), disputes and payouts,
and the shop orders they keep in step."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

from simtenant.episode import Episode

ACTOR = "hannah.moore@lumenpine.example"

episode = episode_fixture("pay", "automation", "payments-tools", ACTOR)  # 2026-09-14 09:00
late = episode_fixture("pay", "automation", "payments-late", ACTOR, current_time="2026-09-26T09:00:00Z")


def _money(episode: Episode, charge_id: str) -> tuple:
    return rows(
        episode.path,
        "SELECT c.status, c.amount_captured, c.amount_refunded, o.payment_status, o.refunded_total "
        "FROM pay_charges c LEFT JOIN store_orders o ON o.id = c.order_id WHERE c.id = ?",
        charge_id,
    )[0]


def test_charges_are_found_by_invoice_order_customer_and_date(episode: Episode) -> None:
    invoices = ok(episode, "pay_list_charges", {"query": "invoice"})
    assert [(r["id"], r["invoice_id"]) for r in invoices["rows"]] == [
        ("CHG-00033", "INV-0117"),
        ("CHG-00032", "INV-0103"),
    ]
    assert ok(episode, "pay_list_charges", {"order_id": "SO-1025"})["rows"][0]["id"] == "CHG-00025"
    walsh = ok(episode, "pay_list_charges", {"query": "kevin.walsh"})
    assert [r["order_id"] for r in walsh["rows"]] == ["SO-1021", "SO-1004"]
    week = ok(episode, "pay_list_charges", {"created_from": "2026-09-08", "created_to": "2026-09-09"})
    assert [r["id"] for r in week["rows"]] == ["CHG-00033", "CHG-00030"]
    charge = ok(episode, "pay_get_charge", {"charge_id": "CHG-00021"})
    assert (charge["refundable"], [d["id"] for d in charge["disputes"]]) == (465.0, ["DSP-0003"])
    refused(episode, "pay_get_charge", {"charge_id": "CHG-99999"}, 404, "not_found")


def test_capturing_and_voiding_an_authorization(episode: Episode) -> None:
    refused(episode, "pay_capture_charge", {"charge_id": "CHG-00029", "amount": 400}, 409, "over_capture")
    captured = ok(episode, "pay_capture_charge", {"charge_id": "CHG-00029", "amount": 329})
    assert (captured["status"], captured["amount_captured"], captured["fee"], captured["captured_at"]) == (
        "succeeded",
        329.0,
        9.84,
        "2026-09-14T09:00:00Z",
    )
    assert _money(episode, "CHG-00029")[3] == "paid"
    refused(episode, "pay_capture_charge", {"charge_id": "CHG-00029"}, 409, "not_authorized")
    refused(episode, "pay_void_charge", {"charge_id": "CHG-00029"}, 409, "not_authorized")


def test_an_authorization_expires_after_seven_days(late: Episode) -> None:
    refused(
        late,
        "pay_capture_charge",
        {"charge_id": "CHG-00029"},
        409,
        "authorization_expired",
        state=lambda e: _money(e, "CHG-00029"),
    )
    voided = ok(late, "pay_void_charge", {"charge_id": "CHG-00029"})
    assert voided["status"] == "voided" and _money(late, "CHG-00029")[3] == "voided"


def test_refunds_keep_the_order_in_step_and_respect_disputes(episode: Episode) -> None:
    refused(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00021", "amount": 465, "reason": "requested_by_customer"},
        409,
        "charge_disputed",
        state=lambda e: _money(e, "CHG-00021"),
    )
    refused(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00018", "amount": 1, "reason": "duplicate"},
        409,
        "not_captured",
    )
    refused(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00025", "amount": 300, "reason": "damaged_item"},
        409,
        "over_refund",
    )
    refused(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00025", "amount": 1.005, "reason": "damaged_item"},
        400,
        "invalid_amount",
    )
    refund = ok(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00025", "amount": 39, "reason": "requested_by_customer", "note": "Care kit not needed"},
    )
    assert (refund["id"], refund["created_by"], refund["charge"]["refundable"]) == ("RFD-00003", ACTOR, 258.0)
    assert _money(episode, "CHG-00025") == ("succeeded", 297.0, 39.0, "partially_refunded", 39.0)
    listed = ok(episode, "pay_list_refunds", {"order_id": "SO-1025"})
    assert [r["id"] for r in listed["rows"]] == ["RFD-00003"]


def test_a_return_is_refunded_by_its_policy(episode: Episode) -> None:
    kept = ok(
        episode,
        "store_create_return",
        {"order_id": "SO-1026", "sku": "LP-CSH-DIN", "quantity": 2, "reason": "changed_mind"},
    )
    refused(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00026", "amount": 98, "reason": "returned_item", "return_id": kept["id"]},
        409,
        "return_not_received",
    )
    refused(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00025", "amount": 98, "reason": "returned_item", "return_id": kept["id"]},
        400,
        "return_not_for_charge",
    )
    ok(episode, "store_receive_return", {"return_id": kept["id"]})
    refused(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00026", "amount": 120, "reason": "returned_item", "return_id": kept["id"]},
        409,
        "over_return_value",
    )
    ok(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00026", "amount": 98, "reason": "returned_item", "return_id": kept["id"]},
    )
    assert rows(
        episode.path, "SELECT status, refund_amount, restocked FROM store_returns WHERE id = ?", kept["id"]
    ) == [("refunded", 98.0, 1)]
    refused(
        episode,
        "pay_refund_charge",
        {"charge_id": "CHG-00026", "amount": 1, "reason": "returned_item", "return_id": kept["id"]},
        409,
        "return_closed",
    )


def test_receipts(episode: Episode) -> None:
    sent = ok(episode, "pay_send_receipt", {"charge_id": "CHG-00030", "email": "Emma.Lawson@work.example"})
    assert (sent["receipt_sent_to"], sent["receipt_sent_at"]) == ("emma.lawson@work.example", "2026-09-14T09:00:00Z")
    refused(episode, "pay_send_receipt", {"charge_id": "CHG-00029"}, 409, "not_captured")


def test_disputes_are_fought_with_the_delivered_shipment_or_accepted(episode: Episode) -> None:
    open_ = ok(episode, "pay_list_disputes", {"status": "needs_response"})
    assert [(r["id"], r["order_id"]) for r in open_["rows"]] == [("DSP-0003", "SO-1021"), ("DSP-0004", "SO-1022")]
    returned = ok(episode, "ship_get_shipment", {"shipment_id": "SHP-00022"})["tracking_number"]
    delivered = ok(episode, "ship_get_shipment", {"shipment_id": "SHP-00021"})["tracking_number"]
    unchanged = lambda e: rows(e.path, "SELECT status, evidence FROM pay_disputes ORDER BY id")  # noqa: E731
    refused(
        episode,
        "pay_submit_dispute_evidence",
        {"dispute_id": "DSP-0003", "explanation": "x"},
        400,
        "evidence_incomplete",
    )
    refused(
        episode,
        "pay_submit_dispute_evidence",
        {"dispute_id": "DSP-0003", "explanation": "x", "tracking_number": returned},
        400,
        "tracking_mismatch",
        state=unchanged,
    )
    refused(
        episode,
        "pay_submit_dispute_evidence",
        {"dispute_id": "DSP-0004", "explanation": "x", "tracking_number": returned},
        409,
        "not_delivered",
        state=unchanged,
    )
    fought = ok(
        episode,
        "pay_submit_dispute_evidence",
        {
            "dispute_id": "DSP-0003",
            "explanation": "Delivered 2026-08-19, signed.",
            "tracking_number": delivered.lower(),
        },
    )
    assert (fought["status"], fought["evidence_tracking_number"], fought["submitted_at"]) == (
        "under_review",
        delivered,
        "2026-09-14T09:00:00Z",
    )
    refused(episode, "pay_accept_dispute", {"dispute_id": "DSP-0003"}, 409, "not_open")
    accepted = ok(episode, "pay_accept_dispute", {"dispute_id": "DSP-0004"})
    assert (accepted["status"], accepted["closed_at"]) == ("lost", "2026-09-14T09:00:00Z")
    assert ok(episode, "pay_get_dispute", {"dispute_id": "DSP-0004"})["charge"]["customer_name"] == "Sophie Lindqvist"


def test_evidence_after_the_due_date_is_refused(late: Episode) -> None:
    tracking = ok(late, "ship_get_shipment", {"shipment_id": "SHP-00021"})["tracking_number"]
    refused(
        late,
        "pay_submit_dispute_evidence",
        {"dispute_id": "DSP-0003", "explanation": "Delivered.", "tracking_number": tracking},
        409,
        "evidence_overdue",
    )


def test_payouts_add_up(episode: Episode) -> None:
    payouts = ok(episode, "pay_list_payouts", {})
    assert payouts["rows"][0]["status"] == "in_transit" and payouts["total"] == 18
    for listed in payouts["rows"]:
        payout = ok(episode, "pay_get_payout", {"payout_id": listed["id"]})
        assert payout["net"] == payout["amount"], payout["id"]
    with_refund = ok(episode, "pay_get_payout", {"payout_id": "PYO-0006"})
    assert [r["id"] for r in with_refund["refunds"]] == ["RFD-00001"]
    balance = ok(episode, "pay_get_balance", {})
    assert balance == {"available": 0.0, "on_the_way": payouts["rows"][0]["amount"], "currency": "usd"}
    ok(episode, "pay_capture_charge", {"charge_id": "CHG-00029"})
    assert ok(episode, "pay_get_balance", {})["available"] == round(364 - 10.86, 2)
