"""Payments: the card processor behind the online shop and card-paid invoices — charges
(authorized, then captured), refunds, disputes (chargebacks) and the payouts that move the money to
the company's bank account."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Float, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

CHARGE_STATUSES = ("authorized", "succeeded", "failed", "voided")
REFUND_REASONS = (
    "requested_by_customer",
    "damaged_item",
    "returned_item",
    "duplicate",
    "fraudulent",
    "order_cancelled",
)
DISPUTE_REASONS = (
    "fraudulent",
    "product_not_received",
    "product_unacceptable",
    "duplicate",
    "credit_not_processed",
    "general",
)
DISPUTE_STATUSES = ("needs_response", "under_review", "won", "lost")
OPEN_DISPUTES = ("needs_response", "under_review")
PAYOUT_STATUSES = ("pending", "in_transit", "paid", "failed")
AUTHORIZATION_DAYS = 7  # an authorization not captured within this many days expires
FEE_RATE, FEE_FIXED = 0.029, 0.30  # the processor's fee on a captured charge


class PayPayout(Base):
    """A transfer of the processor's balance to the company's bank account."""

    __tablename__ = "pay_payouts"
    __table_args__ = (enum_check("status", PAYOUT_STATUSES), {"info": {"id_format": "PYO-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    amount: Mapped[float] = mapped_column(Float)  # net: captured - fees - refunds
    status: Mapped[str] = mapped_column(String)
    bank_account: Mapped[str] = mapped_column(String)
    arrival_date: Mapped[str] = mapped_column(String)
    failure_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)


class PayCharge(Base):
    """A card payment: for a shop order or for an invoice paid by card. Authorized first (the money
    held), then captured (``succeeded``), or voided; ``amount_refunded`` is the sum of its refunds."""

    __tablename__ = "pay_charges"
    __table_args__ = (
        enum_check("status", CHARGE_STATUSES),
        CheckConstraint("amount > 0", name="amount_positive"),
        CheckConstraint(
            "amount_captured >= 0 AND amount_captured <= amount AND amount_refunded >= 0 "
            "AND amount_refunded <= amount_captured",
            name="amounts_range",
        ),
        {"info": {"id_format": "CHG-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    order_id: Mapped[str | None] = mapped_column(ForeignKey("store_orders.id"), index=True)
    invoice_id: Mapped[str | None] = mapped_column(ForeignKey("acct_invoices.id"), index=True)
    customer_name: Mapped[str] = mapped_column(String)
    customer_email: Mapped[str] = mapped_column(String, index=True)
    description: Mapped[str] = mapped_column(String, info=TEXT)
    amount: Mapped[float] = mapped_column(Float)  # authorized (or attempted) amount, USD
    amount_captured: Mapped[float] = mapped_column(Float, default=0.0)
    amount_refunded: Mapped[float] = mapped_column(Float, default=0.0)
    fee: Mapped[float] = mapped_column(Float, default=0.0)
    status: Mapped[str] = mapped_column(String)
    card_brand: Mapped[str] = mapped_column(String)
    card_last4: Mapped[str] = mapped_column(String)
    failure_reason: Mapped[str | None] = mapped_column(String)
    payout_id: Mapped[str | None] = mapped_column(ForeignKey("pay_payouts.id"), index=True)
    receipt_sent_to: Mapped[str | None] = mapped_column(String)
    receipt_sent_at: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    captured_at: Mapped[str | None] = mapped_column(String)


class PayRefund(Base):
    """Money given back on a captured charge (part or all of it), optionally for a shop return."""

    __tablename__ = "pay_refunds"
    __table_args__ = (
        enum_check("reason", REFUND_REASONS),
        CheckConstraint("amount > 0", name="amount_positive"),
        {"info": {"id_format": "RFD-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    charge_id: Mapped[str] = mapped_column(ForeignKey("pay_charges.id"), index=True)
    return_id: Mapped[str | None] = mapped_column(ForeignKey("store_returns.id"))
    amount: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(String)
    note: Mapped[str | None] = mapped_column(Text, info=TEXT)
    payout_id: Mapped[str | None] = mapped_column(ForeignKey("pay_payouts.id"))
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)


class PayDispute(Base):
    """A chargeback: the cardholder's bank disputes a charge. We answer with evidence by the due date
    (then the bank decides: won or lost) or accept it (lost)."""

    __tablename__ = "pay_disputes"
    __table_args__ = (
        enum_check("reason", DISPUTE_REASONS),
        enum_check("status", DISPUTE_STATUSES),
        CheckConstraint("amount > 0", name="amount_positive"),
        {"info": {"id_format": "DSP-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    charge_id: Mapped[str] = mapped_column(ForeignKey("pay_charges.id"), index=True)
    amount: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="needs_response")
    claim: Mapped[str | None] = mapped_column(Text, info=TEXT)  # what the cardholder told their bank
    evidence_due_by: Mapped[str] = mapped_column(String)
    evidence: Mapped[str | None] = mapped_column(Text, info=TEXT)
    evidence_tracking_number: Mapped[str | None] = mapped_column(String)
    submitted_at: Mapped[str | None] = mapped_column(String)
    closed_at: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
