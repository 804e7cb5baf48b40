"""Payments tools: the card processor — charges (search, one charge, capturing or voiding an
authorization, refunds, receipts), disputes (chargebacks: evidence or acceptance), payouts to the bank
and the balance. A shop order's payment status follows its charges."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.payments import (
    AUTHORIZATION_DAYS,
    CHARGE_STATUSES,
    DISPUTE_REASONS,
    DISPUTE_STATUSES,
    FEE_FIXED,
    FEE_RATE,
    OPEN_DISPUTES,
    PAYOUT_STATUSES,
    REFUND_REASONS,
    PayCharge,
    PayDispute,
    PayPayout,
    PayRefund,
)
from ...schema.automation.shipping import ShipShipment
from ...schema.automation.store import OUR_FAULT, StoreOrder, StoreOrderLine, StoreReturn
from ..engine.dispatch import ToolContext
from ..engine.money import cents
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me

SERVICE = "automation.payments"

ChargeId = Annotated[str, Field(description="A card charge id, e.g. CHG-00012")]
DisputeId = Annotated[str, Field(description="A dispute (chargeback) id, e.g. DSP-0003")]
PayoutId = Annotated[str, Field(description="A payout id, e.g. PYO-0004")]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
Money = Annotated[float, Field(gt=0, le=1_000_000, allow_inf_nan=False, description="An amount in USD")]
ChargeStatus = Literal[CHARGE_STATUSES]  # type: ignore[valid-type]
RefundReason = Literal[REFUND_REASONS]  # type: ignore[valid-type]
DisputeStatus = Literal[DISPUTE_STATUSES]  # type: ignore[valid-type]
DisputeReason = Literal[DISPUTE_REASONS]  # type: ignore[valid-type]
PayoutStatus = Literal[PAYOUT_STATUSES]  # type: ignore[valid-type]

_CHARGES, _REFUNDS, _DISPUTES = PayCharge.__table__, PayRefund.__table__, PayDispute.__table__
_PAYOUTS = PayPayout.__table__
CHARGES = Filtered(
    select(_CHARGES),
    (_CHARGES.c.created_at.desc(), _CHARGES.c.id.desc()),
    query=or_(
        contains(_CHARGES.c.id, "query"),
        contains(_CHARGES.c.customer_name, "query"),
        contains(_CHARGES.c.customer_email, "query"),
        contains(_CHARGES.c.description, "query"),
    ),
    status=_CHARGES.c.status == bindparam("status"),
    order_id=_CHARGES.c.order_id == bindparam("order_id"),
    invoice_id=_CHARGES.c.invoice_id == bindparam("invoice_id"),
    payout_id=_CHARGES.c.payout_id == bindparam("payout_id"),
    created_from=_CHARGES.c.created_at >= bindparam("created_from"),
    created_to=_CHARGES.c.created_at < bindparam("created_to"),
)
REFUNDS = Filtered(
    select(_REFUNDS, _CHARGES.c.order_id, _CHARGES.c.customer_name).join(
        _CHARGES, _CHARGES.c.id == _REFUNDS.c.charge_id
    ),
    (_REFUNDS.c.created_at.desc(), _REFUNDS.c.id.desc()),
    charge_id=_REFUNDS.c.charge_id == bindparam("charge_id"),
    order_id=_CHARGES.c.order_id == bindparam("order_id"),
    reason=_REFUNDS.c.reason == bindparam("reason"),
    created_from=_REFUNDS.c.created_at >= bindparam("created_from"),
)
DISPUTES = Filtered(
    select(_DISPUTES, _CHARGES.c.order_id, _CHARGES.c.customer_name, _CHARGES.c.customer_email).join(
        _CHARGES, _CHARGES.c.id == _DISPUTES.c.charge_id
    ),
    (_DISPUTES.c.evidence_due_by, _DISPUTES.c.id),
    status=_DISPUTES.c.status == bindparam("status"),
    reason=_DISPUTES.c.reason == bindparam("reason"),
    charge_id=_DISPUTES.c.charge_id == bindparam("charge_id"),
)
PAYOUTS = Filtered(
    select(_PAYOUTS),
    (_PAYOUTS.c.arrival_date.desc(), _PAYOUTS.c.id.desc()),
    status=_PAYOUTS.c.status == bindparam("status"),
)
UNPAID_OUT = Statement.of(  # captured money not yet in a payout, less fees
    select(func.coalesce(func.sum(_CHARGES.c.amount_captured - _CHARGES.c.fee), 0.0).label("net")).where(
        _CHARGES.c.status == "succeeded", _CHARGES.c.payout_id.is_(None)
    )
)
REFUNDS_NOT_PAID_OUT = Statement.of(
    select(func.coalesce(func.sum(_REFUNDS.c.amount), 0.0).label("total")).where(_REFUNDS.c.payout_id.is_(None))
)
ON_THE_WAY = Statement.of(
    select(func.coalesce(func.sum(_PAYOUTS.c.amount), 0.0).label("total")).where(
        _PAYOUTS.c.status.in_(("pending", "in_transit"))
    )
)


def _today(ctx: ToolContext) -> str:
    return ctx.timestamp[:10]


def _day(text: str, what: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise InvalidArgument(f"{what}: {text!r} is not a valid date (YYYY-MM-DD)", error="invalid_date") from None


def _charge(ctx: ToolContext, charge_id: str) -> Row:
    return ctx.rows.need(PayCharge, charge_id, "charge")


def _charge_view(ctx: ToolContext, charge: Row) -> dict[str, Any]:
    return {
        **charge,
        "refundable": round(charge["amount_captured"] - charge["amount_refunded"], 2),
        "refunds": ctx.rows.find(PayRefund, ("created_at", "id"), charge_id=charge["id"]),
        "disputes": ctx.rows.find(PayDispute, ("created_at", "id"), charge_id=charge["id"]),
    }


def _order_payment(ctx: ToolContext, charge: Row, status: str | None = None, refunded: float = 0.0) -> None:
    """Keep the shop order of ``charge`` in step: its payment status, and what was refunded on it."""
    if charge["order_id"] is None:
        return
    order = ctx.rows.need(StoreOrder, charge["order_id"], "order")
    changes: dict[str, Any] = {}
    if refunded:
        total = round(order["refunded_total"] + refunded, 2)
        changes["refunded_total"] = total
        status = "refunded" if total >= order["total"] else "partially_refunded"
    if status is not None:
        changes["payment_status"] = status
    ctx.rows.change(StoreOrder, order, changes)


# --- charges -------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/payments/charges")
def pay_list_charges(
    ctx: ToolContext,
    query: Annotated[
        str | None, Field(description="Text in the charge id, cardholder's name or email, or the description")
    ] = None,
    status: Annotated[
        ChargeStatus | None, Field(description="authorized (not captured yet), succeeded, failed or voided")
    ] = None,
    order_id: Annotated[str | None, Field(description="Only charges of this shop order, e.g. SO-1012")] = None,
    invoice_id: Annotated[str | None, Field(description="Only card payments of this invoice, e.g. INV-0111")] = None,
    payout_id: Annotated[str | None, Field(description="Only charges paid out in this payout")] = None,
    created_from: Annotated[Day | None, Field(description="Made on or after this date")] = None,
    created_to: Annotated[Day | None, Field(description="Made on or before this date")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """Find, list or search card payments (charges), newest first, by customer, status, shop order, invoice or date."""
    until = None
    if created_to is not None:
        until = (date.fromisoformat(_day(created_to, "created_to")) + timedelta(days=1)).isoformat()
    return ctx.rows.page(
        CHARGES,
        page,
        per_page,
        query=query,
        status=status,
        order_id=order_id,
        invoice_id=invoice_id,
        payout_id=payout_id,
        created_from=None if created_from is None else _day(created_from, "created_from"),
        created_to=until,
    )


@tool(SERVICE, "GET", "/payments/charges/{charge_id}")
def pay_get_charge(ctx: ToolContext, charge_id: ChargeId) -> Any:
    """Get one card charge with what is still refundable, its refunds and any dispute (chargeback)."""
    return _charge_view(ctx, _charge(ctx, charge_id))


@tool(SERVICE, "POST", "/payments/charges/{charge_id}/capture")
def pay_capture_charge(
    ctx: ToolContext,
    charge_id: ChargeId,
    amount: Annotated[Money | None, Field(description="Capture less than authorized (default: all of it)")] = None,
) -> Any:
    """Capture an authorized card payment (collect the money held at checkout), e.g. before shipping an order.
    An authorization expires 7 days after it was made."""
    charge = _charge(ctx, charge_id)
    if charge["status"] != "authorized":
        raise Conflict(f"charge {charge_id} is {charge['status']}, not an authorization", error="not_authorized")
    expires = date.fromisoformat(charge["created_at"][:10]) + timedelta(days=AUTHORIZATION_DAYS)
    if _today(ctx) > expires.isoformat():
        raise Conflict(
            f"the authorization of {charge_id} expired on {expires.isoformat()}; ask the customer to pay again",
            error="authorization_expired",
        )
    captured = float(cents(amount if amount is not None else charge["amount"]))
    if captured > charge["amount"]:
        raise Conflict(f"only {charge['amount']:.2f} was authorized", error="over_capture")
    ctx.rows.change(
        PayCharge,
        charge,
        {
            "status": "succeeded",
            "amount_captured": captured,
            "fee": round(captured * FEE_RATE + FEE_FIXED, 2),
            "captured_at": ctx.timestamp,
        },
    )
    _order_payment(ctx, charge, "paid")
    return _charge_view(ctx, charge)


@tool(SERVICE, "POST", "/payments/charges/{charge_id}/void")
def pay_void_charge(ctx: ToolContext, charge_id: ChargeId) -> Any:
    """Void (cancel) a card authorization that was not captured: the hold on the card is released and nothing
    is charged.

    Do it before cancelling the order it was for."""
    charge = _charge(ctx, charge_id)
    if charge["status"] != "authorized":
        raise Conflict(
            f"charge {charge_id} is {charge['status']}: only an authorization can be voided (refund a captured one)",
            error="not_authorized",
        )
    ctx.rows.change(PayCharge, charge, {"status": "voided"})
    _order_payment(ctx, charge, "voided")
    return _charge_view(ctx, charge)


@tool(SERVICE, "POST", "/payments/charges/{charge_id}/refunds")
def pay_refund_charge(
    ctx: ToolContext,
    charge_id: ChargeId,
    amount: Annotated[Money, Field(description="How much to give back, USD (at most what is refundable)")],
    reason: Annotated[
        RefundReason,
        Field(
            description="requested_by_customer, damaged_item, returned_item, duplicate, fraudulent or order_cancelled"
        ),
    ],
    note: Annotated[Text | None, Field(description="An internal note: why, which item")] = None,
    return_id: Annotated[
        str | None, Field(description="The shop return (RMA) this refund is for, e.g. RMA-0004")
    ] = None,
) -> Any:
    """Refund a customer's card payment (a captured charge) in full or in part, optionally for a shop return
    (RMA). A charge under dispute cannot be refunded; a change-of-mind return is refunded once received."""
    charge = _charge(ctx, charge_id)
    if charge["status"] != "succeeded":
        raise Conflict(f"charge {charge_id} is {charge['status']}: nothing captured to refund", error="not_captured")
    for dispute in ctx.rows.find(PayDispute, ("id",), charge_id=charge["id"]):
        if dispute["status"] in (*OPEN_DISPUTES, "lost"):
            raise Conflict(
                f"charge {charge_id} is disputed ({dispute['id']}, {dispute['status']}): answer or accept the "
                "dispute instead of refunding",
                error="charge_disputed",
            )
    value = float(cents(amount))
    refundable = round(charge["amount_captured"] - charge["amount_refunded"], 2)
    if value > refundable:
        raise Conflict(f"only {refundable:.2f} of {charge_id} is left to refund", error="over_refund")
    rma = None
    if return_id is not None:
        rma = ctx.rows.need(StoreReturn, return_id, "return")
        if rma["order_id"] != charge["order_id"]:
            raise InvalidArgument(f"return {return_id} is not for this charge's order", error="return_not_for_charge")
        if rma["status"] in ("refunded", "cancelled"):
            raise Conflict(f"return {return_id} is already {rma['status']}", error="return_closed")
        if rma["reason"] not in OUR_FAULT and rma["status"] != "received":
            raise Conflict(
                f"return {return_id} ({rma['reason']}) is refunded once the item is received back",
                error="return_not_received",
            )
        line = ctx.rows.need(StoreOrderLine, rma["line_id"], "order line")
        worth = round(line["unit_price"] * rma["quantity"], 2)
        if value > worth:
            raise Conflict(
                f"return {return_id} is worth {rma['quantity']} x {line['unit_price']:.2f} = {worth:.2f} at most",
                error="over_return_value",
            )
    refund = {
        "id": ctx.rows.next_id(PayRefund),
        "charge_id": charge["id"],
        "return_id": return_id,
        "amount": value,
        "reason": reason,
        "note": note,
        "payout_id": None,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(PayRefund, refund)
    ctx.rows.change(PayCharge, charge, {"amount_refunded": round(charge["amount_refunded"] + value, 2)})
    if rma is not None:
        ctx.rows.change(StoreReturn, rma, {"status": "refunded", "refund_amount": value, "updated_at": ctx.timestamp})
    _order_payment(ctx, charge, refunded=value)
    return {**refund, "charge": _charge_view(ctx, charge)}


@tool(SERVICE, "GET", "/payments/refunds")
def pay_list_refunds(
    ctx: ToolContext,
    charge_id: Annotated[str | None, Field(description="Only refunds of this charge")] = None,
    order_id: Annotated[str | None, Field(description="Only refunds of this shop order's charges")] = None,
    reason: Annotated[RefundReason | None, Field(description="Only refunds given for this reason")] = None,
    created_from: Annotated[Day | None, Field(description="Made on or after this date")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the refunds already given, newest first, by charge, shop order, reason or date."""
    return ctx.rows.page(
        REFUNDS,
        page,
        per_page,
        charge_id=charge_id,
        order_id=order_id,
        reason=reason,
        created_from=None if created_from is None else _day(created_from, "created_from"),
    )


@tool(SERVICE, "POST", "/payments/charges/{charge_id}/receipt")
def pay_send_receipt(
    ctx: ToolContext,
    charge_id: ChargeId,
    email: Annotated[Email | None, Field(description="Where to send it (default: the cardholder's email)")] = None,
) -> Any:
    """Send (or resend) the payment receipt of a captured card charge by email."""
    charge = _charge(ctx, charge_id)
    if charge["status"] != "succeeded":
        raise Conflict(f"charge {charge_id} is {charge['status']}: no receipt for it", error="not_captured")
    ctx.rows.change(
        PayCharge,
        charge,
        {"receipt_sent_to": (email or charge["customer_email"]).lower(), "receipt_sent_at": ctx.timestamp},
    )
    return charge


# --- disputes ------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/payments/disputes")
def pay_list_disputes(
    ctx: ToolContext,
    status: Annotated[
        DisputeStatus | None, Field(description="needs_response (answer by the due date), under_review, won or lost")
    ] = None,
    reason: Annotated[DisputeReason | None, Field(description="The cardholder's reason")] = None,
    charge_id: Annotated[str | None, Field(description="Only disputes of this charge")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List disputes (chargebacks) of card payments, soonest evidence due date first, by status or reason."""
    return ctx.rows.page(DISPUTES, page, per_page, status=status, reason=reason, charge_id=charge_id)


@tool(SERVICE, "GET", "/payments/disputes/{dispute_id}")
def pay_get_dispute(ctx: ToolContext, dispute_id: DisputeId) -> Any:
    """Get one dispute (chargeback) with the cardholder's claim, its due date and the disputed charge."""
    dispute = ctx.rows.need(PayDispute, dispute_id, "dispute")
    return {**dispute, "charge": _charge(ctx, dispute["charge_id"])}


def _open_dispute(ctx: ToolContext, dispute_id: str) -> Row:
    dispute = ctx.rows.need(PayDispute, dispute_id, "dispute")
    if dispute["status"] != "needs_response":
        raise Conflict(f"dispute {dispute_id} is {dispute['status']}, not awaiting a response", error="not_open")
    return dispute


@tool(SERVICE, "POST", "/payments/disputes/{dispute_id}/evidence")
def pay_submit_dispute_evidence(
    ctx: ToolContext,
    dispute_id: DisputeId,
    explanation: Annotated[Text, Field(description="Our case for the bank: what was sold, shipped and delivered")],
    tracking_number: Annotated[
        str | None,
        Field(
            max_length=40,
            description="The tracking number of the delivered shipment (required for product_not_received)",
        ),
    ] = None,
) -> Any:
    """Respond to a dispute (chargeback) with evidence: fight / contest it before its due date; the bank then
    reviews it. For a product-not-received dispute, give the tracking number of the delivered shipment."""
    dispute = _open_dispute(ctx, dispute_id)
    if _today(ctx) > dispute["evidence_due_by"]:
        raise Conflict(f"evidence for {dispute_id} was due by {dispute['evidence_due_by']}", error="evidence_overdue")
    charge = _charge(ctx, dispute["charge_id"])
    if tracking_number is not None:
        shipments = ctx.rows.find(ShipShipment, ("id",), tracking_number=tracking_number.strip().upper())
        if not shipments or shipments[0]["order_id"] is None or shipments[0]["order_id"] != charge["order_id"]:
            raise InvalidArgument(
                f"{tracking_number} is not a shipment of the disputed order {charge['order_id']}",
                error="tracking_mismatch",
            )
        if shipments[0]["status"] != "delivered":
            raise Conflict(
                f"shipment {shipments[0]['id']} ({tracking_number}) is {shipments[0]['status']}, not delivered",
                error="not_delivered",
            )
        tracking_number = shipments[0]["tracking_number"]
    elif dispute["reason"] == "product_not_received":
        raise InvalidArgument(
            "a product_not_received dispute needs the tracking number of the delivered shipment",
            error="evidence_incomplete",
        )
    ctx.rows.change(
        PayDispute,
        dispute,
        {
            "status": "under_review",
            "evidence": explanation,
            "evidence_tracking_number": tracking_number,
            "submitted_at": ctx.timestamp,
        },
    )
    return dispute


@tool(SERVICE, "POST", "/payments/disputes/{dispute_id}/accept")
def pay_accept_dispute(ctx: ToolContext, dispute_id: DisputeId) -> Any:
    """Accept (concede, do not contest) a dispute: it is closed as lost and the cardholder keeps the money."""
    dispute = _open_dispute(ctx, dispute_id)
    ctx.rows.change(PayDispute, dispute, {"status": "lost", "closed_at": ctx.timestamp})
    return dispute


# --- payouts -------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/payments/payouts")
def pay_list_payouts(
    ctx: ToolContext,
    status: Annotated[PayoutStatus | None, Field(description="pending, in_transit, paid or failed")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List payouts (transfers of card money to the company's bank account), latest arrival first."""
    return ctx.rows.page(PAYOUTS, page, per_page, status=status)


@tool(SERVICE, "GET", "/payments/payouts/{payout_id}")
def pay_get_payout(ctx: ToolContext, payout_id: PayoutId) -> Any:
    """Get one payout with the charges and refunds in it and its breakdown: gross, fees, refunds, net."""
    payout = ctx.rows.need(PayPayout, payout_id, "payout")
    charges = ctx.rows.find(PayCharge, ("captured_at", "id"), payout_id=payout["id"])
    refunds = ctx.rows.find(PayRefund, ("created_at", "id"), payout_id=payout["id"])
    gross = round(sum(c["amount_captured"] for c in charges), 2)
    fees = round(sum(c["fee"] for c in charges), 2)
    refunded = round(sum(r["amount"] for r in refunds), 2)
    return {
        **payout,
        "gross": gross,
        "fees": fees,
        "refunds_total": refunded,
        "net": round(gross - fees - refunded, 2),
        "charges": charges,
        "refunds": refunds,
    }


@tool(SERVICE, "GET", "/payments/balance")
def pay_get_balance(ctx: ToolContext) -> Any:
    """The payments balance: money captured and not yet paid out (net of fees and refunds), and payouts on the
    way to the bank."""
    available = ctx.rows.value(UNPAID_OUT) - ctx.rows.value(REFUNDS_NOT_PAID_OUT)
    return {"available": round(available, 2), "on_the_way": round(ctx.rows.value(ON_THE_WAY), 2), "currency": "usd"}
