"""Order service tools: look up orders, change their status, issue refunds."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, select

from ...errors import Conflict
from ...schema.commerce.orders import ORDER_STATUSES, ORDER_TRANSITIONS, Coupon, Order, OrderCoupon, OrderItem, Refund
from ...schema.commerce.users import User
from ..engine.dispatch import ToolContext
from ..engine.money import cents, total
from ..engine.registry import Text, tool
from ..engine.rows import Row, Statement

OrderId = Annotated[str, Field(description="The order id, e.g. ORD-1005")]
OrderStatus = Literal[ORDER_STATUSES]  # type: ignore[valid-type]
_APPLIED, _COUPONS = OrderCoupon.__table__, Coupon.__table__
COUPONS_APPLIED = Statement.of(
    select(
        _APPLIED.c.coupon_code.label("code"),
        _COUPONS.c.description,
        _COUPONS.c.kind,
        _COUPONS.c.value,
        _COUPONS.c.basis,
        _APPLIED.c.adjustment,
    )
    .join(_COUPONS, _COUPONS.c.code == _APPLIED.c.coupon_code)
    .where(_APPLIED.c.order_id == bindparam("order_id"))
    .order_by(_APPLIED.c.coupon_code)
)


def order_view(ctx: ToolContext, order: Row) -> dict[str, Any]:
    """An order with its line items, the coupons as applied, and its refunds."""
    items = ctx.rows.find(OrderItem, ("id",), order_id=order["id"])
    refunds = ctx.rows.find(Refund, ("id",), order_id=order["id"])
    return {
        **order,
        "items": [{k: v for k, v in item.items() if k not in ("id", "order_id")} for item in items],
        "coupons_applied": ctx.rows.all(COUPONS_APPLIED, order_id=order["id"]),
        "refunds": [{k: v for k, v in r.items() if k != "order_id"} for r in refunds],
        "refunded_total": float(total(r["amount"] for r in refunds)),
    }


@tool("orders", "GET", "/orders/lookup")
def orders_lookup(ctx: ToolContext, order_id: OrderId) -> Any:
    """Look up one order: status, charged total, line items, coupons applied and refunds."""
    return order_view(ctx, ctx.rows.need(Order, order_id, "order"))


@tool("orders", "GET", "/orders/by-user")
def orders_by_user(ctx: ToolContext, user_id: Annotated[str, Field(description="The user id, e.g. USR-001")]) -> Any:
    """List every order a customer placed, oldest first."""
    ctx.rows.need(User, user_id, "user")
    orders = ctx.rows.find(Order, ("placed_at", "id"), user_id=user_id)
    return {"user_id": user_id, "orders": [order_view(ctx, o) for o in orders]}


@tool("orders", "POST", "/orders/update-status")
def orders_update_status(
    ctx: ToolContext,
    order_id: OrderId,
    new_status: Annotated[OrderStatus, Field(description="The status to move the order to")],
) -> Any:
    """Move an order to a new status. Allowed moves: pending→processing|cancelled,
    processing→shipped|cancelled, shipped→delivered, delivered→returned (return-eligible orders only)."""
    order = ctx.rows.need(Order, order_id, "order")
    previous = order["status"]
    if new_status not in ORDER_TRANSITIONS[previous]:
        allowed = ", ".join(ORDER_TRANSITIONS[previous]) or "none"
        raise Conflict(
            f"order {order_id} cannot go from {previous} to {new_status} (allowed: {allowed})",
            error="illegal_transition",
        )
    if new_status == "returned" and not order["return_eligible"]:
        raise Conflict(f"order {order_id} is not eligible for return", error="not_return_eligible")
    ctx.rows.update(Order, order_id, {"status": new_status, "updated_at": ctx.timestamp})
    return {"order_id": order_id, "previous_status": previous, "status": new_status}


@tool("orders", "POST", "/orders/process-refund")
def orders_process_refund(
    ctx: ToolContext,
    order_id: OrderId,
    amount: Annotated[
        float, Field(gt=0, allow_inf_nan=False, description="Amount to refund in dollars, at most two decimals")
    ],
    reason: Annotated[Text, Field(description="Why the money is refunded")],
) -> Any:
    """Refund part or all of what a customer was charged for an order."""
    value = cents(amount)
    order = ctx.rows.need(Order, order_id, "order")
    if order["status"] == "pending":
        raise Conflict(f"order {order_id} is pending: nothing has been charged yet", error="not_charged")
    refunds = ctx.rows.find(Refund, ("id",), order_id=order_id)
    if any(total([r["amount"]]) == value for r in refunds):
        raise Conflict(f"a refund of {value} was already issued for order {order_id}", error="duplicate_refund")
    refundable = total([order["total"]]) - total(r["amount"] for r in refunds)
    if value > refundable:
        raise Conflict(
            f"refund {value} exceeds what remains refundable on order {order_id} ({refundable})",
            error="exceeds_refundable",
        )
    refund = {
        "id": ctx.rows.next_id(Refund),
        "order_id": order_id,
        "amount": float(value),
        "reason": reason,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(Refund, refund)
    return {**refund, "remaining_refundable": float(refundable - value)}
