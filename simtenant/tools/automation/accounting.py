"""Accounting: customers, invoices (draft -> sent -> partially_paid / paid, or overdue past their due
date, or void), invoice lines and the payments recorded against invoices."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, literal, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.accounting import (
    INVOICE_STATUSES,
    PAYMENT_METHODS,
    AcctCustomer,
    AcctInvoice,
    AcctInvoiceLine,
    AcctPayment,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me

SERVICE = "automation.accounting"
CustomerId = Annotated[str, Field(description="The accounting customer id, e.g. CUST-001")]
InvoiceId = Annotated[str, Field(description="The invoice number, e.g. INV-0101")]
InvoiceStatus = Literal[INVOICE_STATUSES]  # type: ignore[valid-type]
PaymentMethod = Literal[PAYMENT_METHODS]  # type: ignore[valid-type]
DateText = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
Money = Annotated[float, Field(gt=0, le=10_000_000, allow_inf_nan=False, description="An amount in USD")]
OPEN = ("sent", "partially_paid", "overdue")  # invoices that still await money

_CUSTOMERS, _INVOICES, _PAYMENTS = AcctCustomer.__table__, AcctInvoice.__table__, AcctPayment.__table__
_AWAITING = _INVOICES.c.status.in_([literal(status) for status in OPEN])
CUSTOMERS = Filtered(
    select(_CUSTOMERS),
    (_CUSTOMERS.c.name, _CUSTOMERS.c.id),
    query=or_(contains(_CUSTOMERS.c.name, "query"), contains(_CUSTOMERS.c.email, "query")),
)
NAME_TAKEN = Statement.of(
    select(_CUSTOMERS.c.id).where(func.lower(_CUSTOMERS.c.name) == bindparam("name")).order_by(_CUSTOMERS.c.id)
)
CUSTOMER_INVOICES = Statement.of(
    select(
        func.count(_INVOICES.c.id).label("count"),
        func.coalesce(func.sum(_INVOICES.c.balance).filter(_AWAITING), 0.0).label("outstanding"),
    ).where(_INVOICES.c.customer_id == bindparam("customer_id"))
)
INVOICES = Filtered(
    select(_INVOICES),
    (_INVOICES.c.id.desc(),),
    customer_id=_INVOICES.c.customer_id == bindparam("customer_id"),
    status=_INVOICES.c.status == bindparam("status"),
    today=_AWAITING & (_INVOICES.c.due_date < bindparam("today")) & (_INVOICES.c.balance > 0),
)
PAYMENTS = Filtered(
    select(_PAYMENTS),
    (_PAYMENTS.c.paid_on.desc(), _PAYMENTS.c.id.desc()),
    invoice_id=_PAYMENTS.c.invoice_id == bindparam("invoice_id"),
    method=_PAYMENTS.c.method == bindparam("method"),
    customer_id=_PAYMENTS.c.invoice_id.in_(
        select(_INVOICES.c.id).where(_INVOICES.c.customer_id == bindparam("customer_id"))
    ),
)


class InvoiceLineInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    description: Text = Field(description="What is billed, e.g. 'Teak lounge chair, natural'")
    quantity: float = Field(gt=0, le=100_000, allow_inf_nan=False, description="How many units")
    unit_price: float = Field(ge=0, le=1_000_000, allow_inf_nan=False, description="Price of one unit, USD")


def _date(text: str, what: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidArgument(f"{what}: {text!r} is not a valid date (YYYY-MM-DD)", error="invalid_date") from None


def _today(ctx: ToolContext) -> str:
    return ctx.timestamp[:10]


def _invoice(ctx: ToolContext, invoice_id: str) -> Row:
    return ctx.rows.need(AcctInvoice, invoice_id, "invoice")


def _draft(ctx: ToolContext, invoice_id: str) -> Row:
    invoice = _invoice(ctx, invoice_id)
    if invoice["status"] != "draft":
        raise Conflict(f"invoice {invoice_id} is {invoice['status']}; only a draft can change", error="not_draft")
    return invoice


def _line(ctx: ToolContext, invoice_id: str, line: InvoiceLineInput) -> Row:
    """A new invoice line (its id taken, not yet written)."""
    return {
        "id": ctx.rows.next_id(AcctInvoiceLine),
        "invoice_id": invoice_id,
        "description": line.description,
        "quantity": line.quantity,
        "unit_price": round(line.unit_price, 2),
        "amount": round(line.quantity * line.unit_price, 2),
    }


def _view(ctx: ToolContext, invoice: Row) -> dict[str, Any]:
    customer = ctx.rows.get(AcctCustomer, invoice["customer_id"])
    return {
        **invoice,
        "customer_name": customer["name"] if customer else None,
        "lines": ctx.rows.find(AcctInvoiceLine, ("id",), invoice_id=invoice["id"]),
        "payments": ctx.rows.find(AcctPayment, ("id",), invoice_id=invoice["id"]),
    }


@tool(SERVICE, "GET", "/accounting/customers")
def acct_list_customers(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Only customers whose name or email contains this")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the accounting (billing) customers, by name, optionally searching name or email."""
    return ctx.rows.page(CUSTOMERS, page, per_page, query=query)


@tool(SERVICE, "GET", "/accounting/customers/{customer_id}")
def acct_get_customer(ctx: ToolContext, customer_id: CustomerId) -> Any:
    """Get one billing customer with its payment terms, number of invoices and total outstanding balance."""
    customer = ctx.rows.need(AcctCustomer, customer_id, "customer")
    invoices = ctx.rows.one(CUSTOMER_INVOICES, customer_id=customer_id)
    assert invoices is not None  # an aggregate's one row
    return {
        **customer,
        "invoice_count": invoices["count"],
        "outstanding_balance": round(invoices["outstanding"], 2),
    }


@tool(SERVICE, "POST", "/accounting/customers")
def acct_create_customer(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The customer's company name (unique)")],
    email: Annotated[Email, Field(description="Where invoices are sent (accounts payable address)")],
    billing_address: Annotated[Text, Field(description="The postal billing address")],
    payment_terms_days: Annotated[int, Field(ge=0, le=120, description="Days from issue to due date, e.g. 30")] = 30,
) -> Any:
    """Create a billing customer (a company we invoice); a name already in use is refused (409)."""
    taken = ctx.rows.value(NAME_TAKEN, name=name.lower())
    if taken is not None:
        raise Conflict(f"a customer named {name!r} already exists ({taken})", error="duplicate_customer")
    customer = {
        "id": ctx.rows.next_id(AcctCustomer),
        "name": name,
        "email": email.lower(),
        "billing_address": billing_address,
        "payment_terms_days": payment_terms_days,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(AcctCustomer, customer)
    return customer


@tool(SERVICE, "GET", "/accounting/invoices")
def acct_list_invoices(
    ctx: ToolContext,
    customer_id: Annotated[str | None, Field(description="Only this customer's invoices, e.g. CUST-001")] = None,
    status: Annotated[InvoiceStatus | None, Field(description="Only invoices in this status")] = None,
    overdue_only: Annotated[
        bool, Field(description="Only unpaid invoices past their due date as of today (whatever their status)")
    ] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List invoices (newest number first) by customer or status, or those overdue as of today."""
    today = _today(ctx) if overdue_only else None
    return ctx.rows.page(INVOICES, page, per_page, customer_id=customer_id, status=status, today=today)


@tool(SERVICE, "GET", "/accounting/invoices/{invoice_id}")
def acct_get_invoice(ctx: ToolContext, invoice_id: InvoiceId) -> Any:
    """Get one invoice with its customer name, lines and the payments recorded against it."""
    return _view(ctx, _invoice(ctx, invoice_id))


@tool(SERVICE, "POST", "/accounting/invoices")
def acct_create_invoice(
    ctx: ToolContext,
    customer_id: CustomerId,
    lines: Annotated[list[InvoiceLineInput], Field(min_length=1, max_length=50, description="The lines billed")],
    issue_date: Annotated[DateText | None, Field(description="Issue date, YYYY-MM-DD (default today)")] = None,
    due_date: Annotated[
        DateText | None, Field(description="Due date, YYYY-MM-DD (default issue date + customer's payment terms)")
    ] = None,
    memo: Annotated[Text | None, Field(description="A note printed on the invoice, e.g. the PO number")] = None,
) -> Any:
    """Create a draft invoice for a customer with its lines; line amounts, total and balance are computed."""
    customer = ctx.rows.need(AcctCustomer, customer_id, "customer")
    issued = _date(issue_date, "issue_date") if issue_date else _date(_today(ctx), "today")
    due = _date(due_date, "due_date") if due_date else issued + timedelta(days=customer["payment_terms_days"])
    if due < issued:
        raise InvalidArgument("due_date is before issue_date", error="invalid_dates")
    invoice = {
        "id": ctx.rows.next_id(AcctInvoice),
        "customer_id": customer["id"],
        "issue_date": issued.isoformat(),
        "due_date": due.isoformat(),
        "status": "draft",
        "total": 0.0,
        "balance": 0.0,
        "memo": memo,
        "sent_at": None,
        "void_reason": None,
        "created_at": ctx.timestamp,
    }
    rows = [_line(ctx, invoice["id"], line) for line in lines]
    for row in rows:
        invoice["total"] = round(invoice["total"] + row["amount"], 2)
    invoice["balance"] = invoice["total"]
    ctx.rows.insert(AcctInvoice, invoice)
    for row in rows:
        ctx.rows.insert(AcctInvoiceLine, row)
    return _view(ctx, invoice)


@tool(SERVICE, "POST", "/accounting/invoices/{invoice_id}/lines")
def acct_add_invoice_line(
    ctx: ToolContext,
    invoice_id: InvoiceId,
    description: Annotated[Text, Field(description="What is billed")],
    quantity: Annotated[float, Field(gt=0, le=100_000, allow_inf_nan=False, description="How many units")],
    unit_price: Annotated[float, Field(ge=0, le=1_000_000, allow_inf_nan=False, description="Price of one unit, USD")],
) -> Any:
    """Add a line to a draft invoice (409 once sent); the invoice total and balance follow."""
    invoice = _draft(ctx, invoice_id)
    line = _line(
        ctx, invoice["id"], InvoiceLineInput(description=description, quantity=quantity, unit_price=unit_price)
    )
    ctx.rows.insert(AcctInvoiceLine, line)
    total = round(invoice["total"] + line["amount"], 2)
    ctx.rows.change(AcctInvoice, invoice, {"total": total, "balance": total})
    return _view(ctx, invoice)


@tool(SERVICE, "POST", "/accounting/invoices/{invoice_id}/send")
def acct_send_invoice(ctx: ToolContext, invoice_id: InvoiceId) -> Any:
    """Send (issue) a draft invoice to the customer: draft -> sent. An invoice totalling 0 is refused."""
    invoice = _draft(ctx, invoice_id)
    if invoice["total"] <= 0:
        raise Conflict(f"invoice {invoice_id} totals 0; add lines before sending", error="empty_invoice")
    ctx.rows.change(AcctInvoice, invoice, {"status": "sent", "sent_at": ctx.timestamp})
    return _view(ctx, invoice)


@tool(SERVICE, "POST", "/accounting/invoices/{invoice_id}/payments")
def acct_record_payment(
    ctx: ToolContext,
    invoice_id: InvoiceId,
    amount: Annotated[Money, Field(description="The amount received, USD (at most the invoice balance)")],
    method: Annotated[PaymentMethod, Field(description="How it was paid")],
    paid_on: Annotated[DateText | None, Field(description="The date received, YYYY-MM-DD (default today)")] = None,
    reference: Annotated[str | None, Field(max_length=100, description="Bank or check reference")] = None,
) -> Any:
    """Record a customer's payment against a sent, partially paid or overdue invoice: the balance goes
    down and the status becomes partially_paid or paid. Paying more than the balance is refused (409)."""
    invoice = _invoice(ctx, invoice_id)
    if invoice["status"] not in OPEN:
        raise Conflict(f"invoice {invoice_id} is {invoice['status']} and takes no payment", error="not_payable")
    amount = round(amount, 2)
    if amount <= 0:
        raise InvalidArgument("amount rounds to 0.00; give at least 0.01", error="invalid_amount")
    if amount > round(invoice["balance"], 2):
        raise Conflict(
            f"payment {amount:.2f} exceeds the balance {invoice['balance']:.2f} of {invoice_id}", error="overpayment"
        )
    received = _date(paid_on, "paid_on").isoformat() if paid_on else _today(ctx)
    if received > _today(ctx):
        raise InvalidArgument("paid_on is in the future", error="invalid_date")
    payment = {
        "id": ctx.rows.next_id(AcctPayment),
        "invoice_id": invoice["id"],
        "amount": amount,
        "paid_on": received,
        "method": method,
        "reference": reference,
        "recorded_by": me(ctx),
    }
    ctx.rows.insert(AcctPayment, payment)
    balance = round(invoice["balance"] - amount, 2)
    ctx.rows.change(AcctInvoice, invoice, {"balance": balance, "status": "paid" if balance == 0 else "partially_paid"})
    return _view(ctx, invoice)


@tool(SERVICE, "POST", "/accounting/invoices/{invoice_id}/void")
def acct_void_invoice(
    ctx: ToolContext,
    invoice_id: InvoiceId,
    reason: Annotated[Text, Field(description="Why the invoice is cancelled")],
) -> Any:
    """Void (cancel) an invoice issued in error; one with any payment recorded, or already void, is refused (409)."""
    invoice = _invoice(ctx, invoice_id)
    if invoice["status"] == "void":
        raise Conflict(f"invoice {invoice_id} is already void", error="already_void")
    paid = ctx.rows.count(AcctPayment, invoice_id=invoice_id)
    if invoice["status"] in ("paid", "partially_paid") or paid:
        raise Conflict(f"invoice {invoice_id} has payments recorded and cannot be voided", error="has_payments")
    ctx.rows.change(AcctInvoice, invoice, {"status": "void", "balance": 0.0, "void_reason": reason})
    return _view(ctx, invoice)


@tool(SERVICE, "GET", "/accounting/payments")
def acct_list_payments(
    ctx: ToolContext,
    invoice_id: Annotated[str | None, Field(description="Only payments of this invoice")] = None,
    customer_id: Annotated[str | None, Field(description="Only payments from this customer")] = None,
    method: Annotated[PaymentMethod | None, Field(description="Only payments made this way")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List payments received (newest first), by invoice, customer or method."""
    return ctx.rows.page(PAYMENTS, page, per_page, invoice_id=invoice_id, customer_id=customer_id, method=method)
