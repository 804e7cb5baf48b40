"""The automation world's accounting app: customers, invoices with lines, payments and voids."""

from __future__ import annotations

from support import episode_fixture, ok, refused

from simtenant.episode import Episode

ACTOR = "victor.alvarez@lumenpine.example"

episode = episode_fixture("acct", "automation", "accounting-tools", ACTOR)


def test_customers(episode: Episode) -> None:
    found = ok(episode, "acct_list_customers", {"query": "harbor"})
    assert [r["name"] for r in found["rows"]] == ["Harbor View Hotels Group", "Harborview Hotels"]
    customer = ok(episode, "acct_get_customer", {"customer_id": "CUST-001"})
    assert customer["outstanding_balance"] == 12710.0 + 2480.0
    refused(episode, "acct_get_customer", {"customer_id": "CUST-999"}, 404, "not_found")
    refused(
        episode,
        "acct_create_customer",
        {"name": "harborview hotels", "email": "x@y.example", "billing_address": "1 St"},
        409,
        "duplicate_customer",
    )
    made = ok(
        episode,
        "acct_create_customer",
        {
            "name": "Pinecrest Outdoor",
            "email": "AP@pinecrest.example",
            "billing_address": "3 Pine Rd",
            "payment_terms_days": 15,
        },
    )
    assert (made["id"], made["email"], made["payment_terms_days"]) == ("CUST-008", "ap@pinecrest.example", 15)


def test_listing_invoices(episode: Episode) -> None:
    overdue = ok(episode, "acct_list_invoices", {"overdue_only": True})
    assert {r["id"] for r in overdue["rows"]} == {
        "INV-0106",
        "INV-0107",
        "INV-0108",
        "INV-0110",
        "INV-0111",
        "INV-0113",
    }
    drafts = ok(episode, "acct_list_invoices", {"status": "draft", "customer_id": "CUST-001"})
    assert [r["id"] for r in drafts["rows"]] == ["INV-0119"]
    invoice = ok(episode, "acct_get_invoice", {"invoice_id": "INV-0108"})
    assert (invoice["status"], invoice["total"], invoice["balance"]) == ("partially_paid", 12850.0, 7850.0)
    assert invoice["customer_name"] == "Greenleaf Garden Centers"
    assert len(invoice["lines"]) == 2 and [p["amount"] for p in invoice["payments"]] == [5000.0]
    payments = ok(episode, "acct_list_payments", {"customer_id": "CUST-004"})
    assert [p["id"] for p in payments["rows"]] == ["PAY-0005", "PAY-0004"]


def test_invoice_lifecycle(episode: Episode) -> None:
    invoice = ok(
        episode,
        "acct_create_invoice",
        {
            "customer_id": "CUST-003",
            "lines": [{"description": "Bistro set", "quantity": 3, "unit_price": 310}],
            "memo": "Patio refresh",
        },
    )
    number = invoice["id"]
    assert (number, invoice["status"], invoice["issue_date"], invoice["due_date"]) == (
        "INV-0121",
        "draft",
        "2026-09-14",
        "2026-09-29",
    )
    invoice = ok(
        episode,
        "acct_add_invoice_line",
        {"invoice_id": number, "description": "Freight", "quantity": 1, "unit_price": 75.5},
    )
    assert (invoice["total"], invoice["balance"], len(invoice["lines"])) == (1005.5, 1005.5, 2)
    refused(episode, "acct_record_payment", {"invoice_id": number, "amount": 10, "method": "card"}, 409, "not_payable")
    sent = ok(episode, "acct_send_invoice", {"invoice_id": number})
    assert (sent["status"], sent["sent_at"]) == ("sent", "2026-09-14T09:00:00Z")
    refused(episode, "acct_send_invoice", {"invoice_id": number}, 409, "not_draft")
    refused(
        episode,
        "acct_add_invoice_line",
        {"invoice_id": number, "description": "x", "quantity": 1, "unit_price": 1},
        409,
        "not_draft",
    )
    refused(
        episode, "acct_record_payment", {"invoice_id": number, "amount": 2000, "method": "card"}, 409, "overpayment"
    )
    paid = ok(
        episode, "acct_record_payment", {"invoice_id": number, "amount": 500, "method": "card", "reference": "V-1"}
    )
    assert (paid["status"], paid["balance"]) == ("partially_paid", 505.5)
    assert paid["payments"][0]["recorded_by"] == ACTOR
    refused(episode, "acct_void_invoice", {"invoice_id": number, "reason": "oops"}, 409, "has_payments")
    paid = ok(episode, "acct_record_payment", {"invoice_id": number, "amount": 505.5, "method": "bank_transfer"})
    assert (paid["status"], paid["balance"]) == ("paid", 0.0)


def test_overdue_payment_and_void(episode: Episode) -> None:
    paid = ok(
        episode,
        "acct_record_payment",
        {"invoice_id": "INV-0108", "amount": 7850, "method": "check", "paid_on": "2026-09-11"},
    )
    assert (paid["status"], paid["payments"][-1]["paid_on"]) == ("paid", "2026-09-11")
    voided = ok(episode, "acct_void_invoice", {"invoice_id": "INV-0118", "reason": "Order moved to next quarter"})
    assert (voided["status"], voided["balance"]) == ("void", 0.0)
    refused(episode, "acct_void_invoice", {"invoice_id": "INV-0118", "reason": "again"}, 409, "already_void")
    refused(episode, "acct_void_invoice", {"invoice_id": "INV-0101", "reason": "x"}, 409, "has_payments")
    refused(episode, "acct_send_invoice", {"invoice_id": "INV-0999"}, 404, "not_found")
    refused(
        episode,
        "acct_create_invoice",
        {"customer_id": "CUST-001", "lines": [], "issue_date": "2026-09-14"},
        400,
        "invalid_arguments",
    )
    refused(
        episode,
        "acct_create_invoice",
        {
            "customer_id": "CUST-001",
            "lines": [{"description": "x", "quantity": 1, "unit_price": 1}],
            "issue_date": "2026-09-14",
            "due_date": "2026-09-01",
        },
        400,
        "invalid_dates",
    )
    # nothing of the refused calls was written: INV-0122 does not exist
    refused(episode, "acct_get_invoice", {"invoice_id": "INV-0122"}, 404, "not_found")
