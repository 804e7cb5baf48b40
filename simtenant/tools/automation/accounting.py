"""Accounting: customers, invoices (draft -> sent -> partially_paid / paid, or overdue past their due
date, or void), invoice lines and the payments recorded against invoices."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.accounting import (
    INVOICE_STATUSES,
    PAYMENT_METHODS,
    AcctCustomer,
    AcctInvoice,
    AcctInvoiceLine,
    AcctPayment,
)
from ..engine.dispatch import ToolContext, paged, row_dict
from ..engine.registry import Text, tool
from .common import Email, Page, PerPage, containing, me, where_given

SERVICE = "automation.accounting"
CustomerId = Annotated[str, Field(description="The accounting customer id, e.g. CUST-001")]
InvoiceId = Annotated[str, Field(description="The invoice number, e.g. INV-0101")]
InvoiceStatus = Literal[INVOICE_STATUSES]  # type: ignore[valid-type]
PaymentMethod = Literal[PAYMENT_METHODS]  # type: ignore[valid-type]
DateText = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
Money = Annotated[float, Field(gt=0, le=10_000_000, allow_inf_nan=False, description="An amount in USD")]
OPEN = ("sent", "partially_paid", "overdue")  # invoices that still await money


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


def _invoice(ctx: ToolContext, invoice_id: str) -> AcctInvoice:
    return ctx.get(AcctInvoice, invoice_id, "invoice")


def _draft(ctx: ToolContext, invoice_id: str) -> AcctInvoice:
    invoice = _invoice(ctx, invoice_id)
    if invoice.status != "draft":
        raise Conflict(f"invoice {invoice_id} is {invoice.status}; only a draft can change", error="not_draft")
    return invoice


def _add_line(ctx: ToolContext, invoice: AcctInvoice, line: InvoiceLineInput) -> AcctInvoiceLine:
    amount = round(line.quantity * line.unit_price, 2)
    row = AcctInvoiceLine(
        id=ctx.next_id(AcctInvoiceLine),
        invoice_id=invoice.id,
        description=line.description,
        quantity=line.quantity,
        unit_price=round(line.unit_price, 2),
        amount=amount,
    )
    ctx.session.add(row)
    invoice.total = round(invoice.total + amount, 2)
    invoice.balance = invoice.total
    return row


def _view(ctx: ToolContext, invoice: AcctInvoice) -> dict[str, Any]:
    customer = ctx.session.get(AcctCustomer, invoice.customer_id)
    lines = ctx.session.scalars(
        select(AcctInvoiceLine).where(AcctInvoiceLine.invoice_id == invoice.id).order_by(AcctInvoiceLine.id)
    )
    payments = ctx.session.scalars(
        select(AcctPayment).where(AcctPayment.invoice_id == invoice.id).order_by(AcctPayment.id)
    )
    return {
        **row_dict(invoice),
        "customer_name": customer.name if customer else None,
        "lines": [row_dict(r) for r in lines],
        "payments": [row_dict(p) for p in payments],
    }


@tool(SERVICE, "GET", "/accounting/customers")
def acct_list_customers(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Only customers whose name or email contains this")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the accounting (billing) customers, by name, optionally searching name or email."""
    selected = select(AcctCustomer)
    if query is not None:
        selected = selected.where(or_(containing(AcctCustomer.name, query), containing(AcctCustomer.email, query)))
    return paged(ctx, selected.order_by(AcctCustomer.name, AcctCustomer.id), page, per_page)


@tool(SERVICE, "GET", "/accounting/customers/{customer_id}")
def acct_get_customer(ctx: ToolContext, customer_id: CustomerId) -> Any:
    """Get one billing customer with its payment terms, number of invoices and total outstanding balance."""
    customer = ctx.get(AcctCustomer, customer_id, "customer")
    count, outstanding = ctx.session.execute(
        select(
            func.count(AcctInvoice.id),
            func.coalesce(func.sum(AcctInvoice.balance).filter(AcctInvoice.status.in_(OPEN)), 0.0),
        ).where(AcctInvoice.customer_id == customer_id)
    ).one()
    return {**row_dict(customer), "invoice_count": count, "outstanding_balance": round(outstanding, 2)}


@tool(SERVICE, "POST", "/accounting/customers")
def acct_create_customer(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The customer's company name (unique)")],
    email: Annotated[Email, Field(description="Where invoices are sent (accounts payable address)")],
    billing_address: Annotated[Text, Field(description="The postal billing address")],
    payment_terms_days: Annotated[int, Field(ge=0, le=120, description="Days from issue to due date, e.g. 30")] = 30,
) -> Any:
    """Create a billing customer (a company we invoice); a name already in use is refused (409)."""
    taken = ctx.session.scalar(select(AcctCustomer.id).where(func.lower(AcctCustomer.name) == name.lower()))
    if taken is not None:
        raise Conflict(f"a customer named {name!r} already exists ({taken})", error="duplicate_customer")
    customer = AcctCustomer(
        id=ctx.next_id(AcctCustomer),
        name=name,
        email=email.lower(),
        billing_address=billing_address,
        payment_terms_days=payment_terms_days,
        created_at=ctx.timestamp,
    )
    ctx.session.add(customer)
    return row_dict(customer)


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
    query = where_given(
        select(AcctInvoice),
        None if customer_id is None else AcctInvoice.customer_id == customer_id,
        None if status is None else AcctInvoice.status == status,
    )
    if overdue_only:
        query = query.where(AcctInvoice.status.in_(OPEN), AcctInvoice.due_date < _today(ctx), AcctInvoice.balance > 0)
    return paged(ctx, query.order_by(AcctInvoice.id.desc()), page, per_page)


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
    customer = ctx.get(AcctCustomer, customer_id, "customer")
    issued = _date(issue_date, "issue_date") if issue_date else _date(_today(ctx), "today")
    due = _date(due_date, "due_date") if due_date else issued + timedelta(days=customer.payment_terms_days)
    if due < issued:
        raise InvalidArgument("due_date is before issue_date", error="invalid_dates")
    invoice = AcctInvoice(
        id=ctx.next_id(AcctInvoice),
        customer_id=customer.id,
        issue_date=issued.isoformat(),
        due_date=due.isoformat(),
        status="draft",
        total=0.0,
        balance=0.0,
        memo=memo,
        created_at=ctx.timestamp,
    )
    ctx.session.add(invoice)
    for line in lines:
        _add_line(ctx, invoice, line)
    ctx.session.flush()
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
    _add_line(ctx, invoice, InvoiceLineInput(description=description, quantity=quantity, unit_price=unit_price))
    ctx.session.flush()
    return _view(ctx, invoice)


@tool(SERVICE, "POST", "/accounting/invoices/{invoice_id}/send")
def acct_send_invoice(ctx: ToolContext, invoice_id: InvoiceId) -> Any:
    """Send (issue) a draft invoice to the customer: draft -> sent. An invoice totalling 0 is refused."""
    invoice = _draft(ctx, invoice_id)
    if invoice.total <= 0:
        raise Conflict(f"invoice {invoice_id} totals 0; add lines before sending", error="empty_invoice")
    invoice.status = "sent"
    invoice.sent_at = ctx.timestamp
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
    if invoice.status not in OPEN:
        raise Conflict(f"invoice {invoice_id} is {invoice.status} and takes no payment", error="not_payable")
    amount = round(amount, 2)
    if amount <= 0:
        raise InvalidArgument("amount rounds to 0.00; give at least 0.01", error="invalid_amount")
    if amount > round(invoice.balance, 2):
        raise Conflict(
            f"payment {amount:.2f} exceeds the balance {invoice.balance:.2f} of {invoice_id}", error="overpayment"
        )
    received = _date(paid_on, "paid_on").isoformat() if paid_on else _today(ctx)
    if received > _today(ctx):
        raise InvalidArgument("paid_on is in the future", error="invalid_date")
    payment = AcctPayment(
        id=ctx.next_id(AcctPayment),
        invoice_id=invoice.id,
        amount=amount,
        paid_on=received,
        method=method,
        reference=reference,
        recorded_by=me(ctx),
    )
    ctx.session.add(payment)
    invoice.balance = round(invoice.balance - amount, 2)
    invoice.status = "paid" if invoice.balance == 0 else "partially_paid"
    ctx.session.flush()
    return _view(ctx, invoice)


@tool(SERVICE, "POST", "/accounting/invoices/{invoice_id}/void")
def acct_void_invoice(
    ctx: ToolContext,
    invoice_id: InvoiceId,
    reason: Annotated[Text, Field(description="Why the invoice is cancelled")],
) -> Any:
    """Void (cancel) an invoice issued in error; one with any payment recorded, or already void, is refused (409)."""
    invoice = _invoice(ctx, invoice_id)
    if invoice.status == "void":
        raise Conflict(f"invoice {invoice_id} is already void", error="already_void")
    paid = ctx.session.scalar(select(func.count()).where(AcctPayment.invoice_id == invoice_id))
    if invoice.status in ("paid", "partially_paid") or paid:
        raise Conflict(f"invoice {invoice_id} has payments recorded and cannot be voided", error="has_payments")
    invoice.status = "void"
    invoice.balance = 0.0
    invoice.void_reason = reason
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
    query = where_given(
        select(AcctPayment),
        None if invoice_id is None else AcctPayment.invoice_id == invoice_id,
        None if method is None else AcctPayment.method == method,
        None
        if customer_id is None
        else AcctPayment.invoice_id.in_(select(AcctInvoice.id).where(AcctInvoice.customer_id == customer_id)),
    )
    return paged(ctx, query.order_by(AcctPayment.paid_on.desc(), AcctPayment.id.desc()), page, per_page)
