"""Accounting: customers, their invoices with lines, and the payments received against them."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

INVOICE_STATUSES = ("draft", "sent", "partially_paid", "paid", "overdue", "void")
PAYMENT_METHODS = ("bank_transfer", "card", "check", "cash")


class AcctCustomer(Base):
    __tablename__ = "acct_customers"
    __table_args__ = (
        CheckConstraint("payment_terms_days BETWEEN 0 AND 120", name="payment_terms_range"),
        {"info": {"id_format": "CUST-{:03d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    email: Mapped[str] = mapped_column(String)  # where invoices go (accounts payable)
    billing_address: Mapped[str] = mapped_column(String, info=TEXT)
    payment_terms_days: Mapped[int] = mapped_column(Integer, default=30)
    created_at: Mapped[str] = mapped_column(String)


class AcctInvoice(Base):
    __tablename__ = "acct_invoices"
    __table_args__ = (
        enum_check("status", INVOICE_STATUSES),
        CheckConstraint("balance >= 0 AND balance <= total", name="balance_range"),
        {"info": {"id_format": "INV-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)  # the invoice number
    customer_id: Mapped[str] = mapped_column(ForeignKey("acct_customers.id"), index=True)
    issue_date: Mapped[str] = mapped_column(String)
    due_date: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="draft")
    total: Mapped[float] = mapped_column(Float, default=0.0)
    balance: Mapped[float] = mapped_column(Float, default=0.0)
    memo: Mapped[str | None] = mapped_column(Text, info=TEXT)
    sent_at: Mapped[str | None] = mapped_column(String)
    void_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)


class AcctInvoiceLine(Base):
    __tablename__ = "acct_invoice_lines"
    __table_args__ = (
        CheckConstraint("quantity > 0", name="quantity_positive"),
        {"info": {"id_format": "LINE-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    invoice_id: Mapped[str] = mapped_column(ForeignKey("acct_invoices.id"), index=True)
    description: Mapped[str] = mapped_column(String, info=TEXT)
    quantity: Mapped[float] = mapped_column(Float)
    unit_price: Mapped[float] = mapped_column(Float)
    amount: Mapped[float] = mapped_column(Float)


class AcctPayment(Base):
    __tablename__ = "acct_payments"
    __table_args__ = (
        enum_check("method", PAYMENT_METHODS),
        CheckConstraint("amount > 0", name="amount_positive"),
        {"info": {"id_format": "PAY-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    invoice_id: Mapped[str] = mapped_column(ForeignKey("acct_invoices.id"), index=True)
    amount: Mapped[float] = mapped_column(Float)
    paid_on: Mapped[str] = mapped_column(String)
    method: Mapped[str] = mapped_column(String)
    reference: Mapped[str | None] = mapped_column(String, info=TEXT)  # "CHK 10577" or "check no. 10577"
    recorded_by: Mapped[str] = mapped_column(String)
