"""Order service tools: look up and search orders, change their status and shipping address, refunds,
returns and exchanges, coupons and price adjustments.

The shop's policy (``seeds/commerce/policy.md``) is enforced here: the return windows and final sale,
refunds never above what was charged net of earlier refunds, one coupon per order, price protection,
orders shipped only to the address on the account.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.commerce.inventory import Product, ProductStyle
from ...schema.commerce.orders import (
    CHARGED_STATUSES,
    ORDER_STATUSES,
    ORDER_TRANSITIONS,
    PREFERENCE_REASONS,
    RESTOCKED_REASONS,
    RETURN_REASONS,
    Coupon,
    Order,
    OrderCoupon,
    OrderItem,
    PriceAdjustment,
    Refund,
    Return,
    ReturnItem,
    Shipment,
)
from ...schema.commerce.users import User
from ..engine.dispatch import ToolContext
from ..engine.money import cents, to_decimal, total
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement

RETURN_WINDOW_DAYS = 30  # a change of mind (or size), from delivery
FAULT_WINDOW_DAYS = 60  # damaged, defective, wrong or not as described, from delivery
FINAL_SALE_CATEGORIES = ("beauty",)  # opened or not: hygiene
PRICE_PROTECTION_DAYS = 14  # from the day the order was placed
COUPON_GRACE_DAYS = 14  # a coupon forgotten at checkout, from the day the order was placed
CENT = Decimal("0.01")

OrderId = Annotated[str, Field(description="The order id, e.g. ORD-1005")]
Sku = Annotated[str, Field(description="The product SKU, e.g. SKU-445")]
OrderStatus = Literal[ORDER_STATUSES]  # type: ignore[valid-type]
ReturnReason = Literal[RETURN_REASONS]  # type: ignore[valid-type]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
_APPLIED, _COUPONS = OrderCoupon.__table__, Coupon.__table__
_ORDERS, _ITEMS = Order.__table__, OrderItem.__table__
_RETURNS, _RETURNED = Return.__table__, ReturnItem.__table__
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
COUPON_TERMS = Statement.of(
    select(_COUPONS.c.code, _COUPONS.c.stackable)
    .join(_APPLIED, _APPLIED.c.coupon_code == _COUPONS.c.code)
    .where(_APPLIED.c.order_id == bindparam("order_id"))
    .order_by(_COUPONS.c.code)
)
# units of each SKU of an order already returned (for a refund or an exchange)
RETURNED_UNITS = Statement.of(
    select(_RETURNED.c.sku, func.sum(_RETURNED.c.quantity).label("quantity"))
    .join(_RETURNS, _RETURNS.c.id == _RETURNED.c.return_id)
    .where(_RETURNS.c.order_id == bindparam("order_id"))
    .group_by(_RETURNED.c.sku)
    .order_by(_RETURNED.c.sku)
)
SEARCH = Filtered(
    select(_ORDERS),
    (_ORDERS.c.placed_at, _ORDERS.c.id),
    sku=_ORDERS.c.id.in_(select(_ITEMS.c.order_id).where(_ITEMS.c.sku == bindparam("sku"))),
    status=_ORDERS.c.status == bindparam("status"),
    user_id=_ORDERS.c.user_id == bindparam("user_id"),
    placed_from=func.substr(_ORDERS.c.placed_at, 1, 10) >= bindparam("placed_from"),
    placed_to=func.substr(_ORDERS.c.placed_at, 1, 10) <= bindparam("placed_to"),
)


def rounded(value: Decimal) -> Decimal:
    return value.quantize(CENT, ROUND_HALF_UP)


def _day(moment: str) -> date:
    return date.fromisoformat(moment[:10])


def order_view(ctx: ToolContext, order: Row) -> dict[str, Any]:
    """An order with its line items, the coupons as applied, its refunds, its shipment and its returns."""
    items = ctx.rows.find(OrderItem, ("id",), order_id=order["id"])
    refunds = ctx.rows.find(Refund, ("id",), order_id=order["id"])
    shipment = ctx.rows.get(Shipment, order["id"])
    returns = ctx.rows.find(Return, ("id",), order_id=order["id"])
    return {
        **order,
        "items": [{k: v for k, v in item.items() if k not in ("id", "order_id")} for item in items],
        "coupons_applied": ctx.rows.all(COUPONS_APPLIED, order_id=order["id"]),
        "refunds": [{k: v for k, v in r.items() if k != "order_id"} for r in refunds],
        "refunded_total": float(total(r["amount"] for r in refunds)),
        "shipment": None if shipment is None else {k: v for k, v in shipment.items() if k != "order_id"},
        "returns": [
            {
                **{k: v for k, v in r.items() if k != "order_id"},
                "items": [
                    {k: v for k, v in line.items() if k not in ("id", "return_id")}
                    for line in ctx.rows.find(ReturnItem, ("id",), return_id=r["id"])
                ],
            }
            for r in returns
        ],
    }


def refundable(ctx: ToolContext, order: Row) -> Decimal:
    """What remains refundable on an order: its charged total less every refund already made."""
    refunds = ctx.rows.find(Refund, ("id",), order_id=order["id"])
    return total([order["total"]]) - total(r["amount"] for r in refunds)


def issue_refund(ctx: ToolContext, order: Row, amount: Decimal, reason: str) -> Row:
    """A refund row for ``order`` (the caller has checked it is due and within what remains)."""
    refund = {
        "id": ctx.rows.next_id(Refund),
        "order_id": order["id"],
        "amount": float(amount),
        "reason": reason,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(Refund, refund)
    return refund


def _restock(ctx: ToolContext, sku: str, quantity: int) -> None:
    product = ctx.rows.need(Product, sku, "product")
    ctx.rows.update(Product, sku, {"stock": product["stock"] + quantity})


@tool("orders", "GET", "/orders/lookup")
def orders_lookup(ctx: ToolContext, order_id: OrderId) -> Any:
    """Look up one order: status, charged total, line items, coupons applied, refunds, shipment and returns."""
    return order_view(ctx, ctx.rows.need(Order, order_id, "order"))


@tool("orders", "GET", "/orders/by-user")
def orders_by_user(ctx: ToolContext, user_id: Annotated[str, Field(description="The user id, e.g. USR-001")]) -> Any:
    """List every order a customer placed, oldest first."""
    ctx.rows.need(User, user_id, "user")
    orders = ctx.rows.find(Order, ("placed_at", "id"), user_id=user_id)
    return {"user_id": user_id, "orders": [order_view(ctx, o) for o in orders]}


@tool("orders", "GET", "/orders/search")
def orders_search(
    ctx: ToolContext,
    sku: Annotated[str | None, Field(description="Only orders with a line of this SKU")] = None,
    status: Annotated[OrderStatus | None, Field(description="Only orders in this status")] = None,
    user_id: Annotated[str | None, Field(description="Only this customer's orders")] = None,
    placed_from: Annotated[Day | None, Field(description="Only orders placed on or after this day")] = None,
    placed_to: Annotated[Day | None, Field(description="Only orders placed on or before this day")] = None,
    page: Annotated[int, Field(ge=1, description="Page number, from 1")] = 1,
    per_page: Annotated[int, Field(ge=1, le=20, description="Orders per page, at most 20")] = 20,
) -> Any:
    """Search orders across customers by SKU, status, customer or the day they were placed, oldest first."""
    found = ctx.rows.page(
        SEARCH,
        page,
        per_page,
        sku=sku,
        status=status,
        user_id=user_id,
        placed_from=placed_from,
        placed_to=placed_to,
    )
    return {"page": page, "per_page": per_page, "total": found["total"], "orders": found["rows"]}


def _cancel(ctx: ToolContext, order: Row) -> dict[str, Any]:
    """What a cancellation does besides the status: the units go back to stock, and a charged order is
    refunded whatever remains refundable."""
    done: dict[str, Any] = {"restocked": [], "refund": None}
    for item in ctx.rows.find(OrderItem, ("id",), order_id=order["id"]):
        _restock(ctx, item["sku"], item["quantity"])
        done["restocked"].append({"sku": item["sku"], "quantity": item["quantity"]})
    if order["status"] in CHARGED_STATUSES:
        remaining = refundable(ctx, order)
        if remaining > 0:
            reason = f"Order {order['id']} cancelled before shipping: the charge is refunded in full."
            done["refund"] = issue_refund(ctx, order, remaining, reason)
    return done


@tool("orders", "POST", "/orders/update-status")
def orders_update_status(
    ctx: ToolContext,
    order_id: OrderId,
    new_status: Annotated[OrderStatus, Field(description="The status to move the order to")],
) -> Any:
    """Move an order to a new status. Allowed moves: pending→processing|cancelled,
    processing→shipped|cancelled, shipped→delivered, delivered→returned (return-eligible orders only).
    Cancelling puts the units back in stock and refunds a charged (processing) order in full."""
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
    result: dict[str, Any] = {"order_id": order_id, "previous_status": previous, "status": new_status}
    if new_status == "cancelled":
        result.update(_cancel(ctx, order))
    shipment = ctx.rows.get(Shipment, order_id)
    if new_status == "shipped" and shipment is None:
        ctx.rows.insert(
            Shipment,
            {"order_id": order_id, "carrier": None, "tracking_number": None, "shipped_at": ctx.timestamp},
        )
    elif new_status == "delivered":
        if shipment is None:
            ctx.rows.insert(
                Shipment,
                {
                    "order_id": order_id,
                    "carrier": None,
                    "tracking_number": None,
                    "shipped_at": ctx.timestamp,
                    "delivered_at": ctx.timestamp,
                },
            )
        else:
            ctx.rows.update(Shipment, order_id, {"delivered_at": ctx.timestamp})
    ctx.rows.update(Order, order_id, {"status": new_status, "updated_at": ctx.timestamp})
    return result


@tool("orders", "POST", "/orders/process-refund")
def orders_process_refund(
    ctx: ToolContext,
    order_id: OrderId,
    amount: Annotated[
        float, Field(gt=0, allow_inf_nan=False, description="Amount to refund in dollars, at most two decimals")
    ],
    reason: Annotated[Text, Field(description="Why the money is refunded")],
) -> Any:
    """Refund part or all of what a customer was charged for an order, without goods coming back (a billing
    error, a goodwill credit, an item the customer need not return); never above what remains refundable."""
    value = cents(amount)
    order = ctx.rows.need(Order, order_id, "order")
    if order["status"] == "pending":
        raise Conflict(f"order {order_id} is pending: nothing has been charged yet", error="not_charged")
    refunds = ctx.rows.find(Refund, ("id",), order_id=order_id)
    if any(total([r["amount"]]) == value for r in refunds):
        raise Conflict(f"a refund of {value} was already issued for order {order_id}", error="duplicate_refund")
    remaining = total([order["total"]]) - total(r["amount"] for r in refunds)
    if value > remaining:
        raise Conflict(
            f"refund {value} exceeds what remains refundable on order {order_id} ({remaining})",
            error="exceeds_refundable",
        )
    refund = issue_refund(ctx, order, value, reason)
    return {**refund, "remaining_refundable": float(remaining - value)}


@tool("orders", "POST", "/orders/update-shipping-address")
def orders_update_shipping_address(
    ctx: ToolContext,
    order_id: OrderId,
    address: Annotated[Text, Field(description="The address to ship to: the one now on the customer's account")],
) -> Any:
    """Send an order that has not shipped yet (pending or processing) to the address on the customer's account."""
    order = ctx.rows.need(Order, order_id, "order")
    if order["status"] not in ("pending", "processing"):
        raise Conflict(
            f"order {order_id} is {order['status']}: only a pending or processing order can be redirected",
            error="not_redirectable",
        )
    user = ctx.rows.need(User, order["user_id"], "user")
    if address != (user["address"] or ""):
        raise Conflict(
            f"an order ships only to the address on the customer's account ({user['address']}); change the "
            "account's address first (with the customer's verification)",
            error="address_not_on_account",
        )
    if address == order["shipping_address"]:
        raise Conflict(f"order {order_id} already ships to {address}", error="unchanged")
    ctx.rows.update(Order, order_id, {"shipping_address": address, "updated_at": ctx.timestamp})
    return {"order_id": order_id, "previous_address": order["shipping_address"], "shipping_address": address}


# --- returns and exchanges -----------------------------------------------------------------------


class ReturnLine(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    sku: str = Field(description="A SKU of the order, e.g. SKU-445")
    quantity: int = Field(ge=1, le=1000, description="How many of its units come back")


def _returnable(ctx: ToolContext, order: Row, reason_code: str) -> tuple[int, list[Row]]:
    """The order's lines, once the order may take back units for ``reason_code`` (the windows, final sale);
    and the days since it was delivered."""
    if order["status"] == "returned":
        raise Conflict(f"order {order['id']} has been returned in full already", error="already_returned")
    if order["status"] != "delivered":
        raise Conflict(
            f"order {order['id']} is {order['status']}: only a delivered order can be returned or exchanged",
            error="not_delivered",
        )
    shipment = ctx.rows.get(Shipment, order["id"])
    delivered = shipment["delivered_at"] if shipment and shipment["delivered_at"] else order["updated_at"]
    days = (ctx.now.date() - _day(delivered)).days
    window = RETURN_WINDOW_DAYS if reason_code in PREFERENCE_REASONS else FAULT_WINDOW_DAYS
    if days > window:
        raise Conflict(
            f"order {order['id']} was delivered {days} days ago ({delivered[:10]}): a {reason_code} return is "
            f"accepted within {window} days of delivery",
            error="outside_return_window",
        )
    if reason_code in PREFERENCE_REASONS and not order["return_eligible"]:
        raise Conflict(
            f"order {order['id']} was sold as final sale: it is taken back only if damaged, defective, wrong "
            "or not as described",
            error="final_sale",
        )
    return days, ctx.rows.find(OrderItem, ("id",), order_id=order["id"])


def _lines_back(ctx: ToolContext, order: Row, lines: list[Row], wanted: list[ReturnLine], reason_code: str) -> list:
    """Each wanted line matched to the order's line, checked: in the order, not returned already, not final sale."""
    skus = [w.sku for w in wanted]
    if len(set(skus)) != len(skus):
        raise InvalidArgument("name each SKU once", error="duplicate_sku")
    by_sku = {line["sku"]: line for line in lines}
    back = {r["sku"]: r["quantity"] for r in ctx.rows.all(RETURNED_UNITS, order_id=order["id"])}
    matched = []
    for want in wanted:
        line = by_sku.get(want.sku)
        if line is None:
            raise Conflict(f"{want.sku} is not a line of order {order['id']}", error="not_in_order")
        left = line["quantity"] - back.get(want.sku, 0)
        if want.quantity > left:
            raise Conflict(
                f"order {order['id']} has {left} unit(s) of {want.sku} left to return "
                f"({line['quantity']} bought, {back.get(want.sku, 0)} returned already)",
                error="exceeds_returnable",
            )
        product = ctx.rows.need(Product, want.sku, "product")
        if reason_code in PREFERENCE_REASONS and product["category"] in FINAL_SALE_CATEGORIES:
            raise Conflict(
                f"{want.sku} ({product['name']}) is a {product['category']} item: final sale, taken back only if "
                "damaged, defective, wrong or not as described",
                error="final_sale",
            )
        matched.append((want, line, product))
    return matched


def _paid_for(ctx: ToolContext, order: Row, discount: Decimal, line: Row, quantity: int) -> Decimal:
    """What the customer paid for ``quantity`` units of a line: their price less their share of the order's
    coupon discounts (in proportion to their value in the subtotal), to the cent; less what price protection
    already gave back for them (it covered every unit still held)."""
    gross = to_decimal(line["unit_price"]) * quantity
    subtotal = to_decimal(order["subtotal"])
    share = discount * gross / subtotal if subtotal > 0 else Decimal(0)
    protected = ctx.rows.find(PriceAdjustment, (), order_id=order["id"], sku=line["sku"])
    given = sum((to_decimal(a["paid_price"]) - to_decimal(a["new_price"]) for a in protected), Decimal(0)) * quantity
    return max(Decimal(0), rounded(gross - share - given))


def _discount(ctx: ToolContext, order: Row) -> Decimal:
    """The order's coupon discounts (a coupon added to the total instead is no discount)."""
    adjustments = total(c["adjustment"] for c in ctx.rows.all(COUPONS_APPLIED, order_id=order["id"]))
    return max(Decimal(0), -adjustments)


def _all_back(ctx: ToolContext, order: Row, lines: list[Row]) -> bool:
    back = {r["sku"]: r["quantity"] for r in ctx.rows.all(RETURNED_UNITS, order_id=order["id"])}
    return all(back.get(line["sku"], 0) >= line["quantity"] for line in lines)


def _record_return(
    ctx: ToolContext, order: Row, kind: str, reason_code: str, note: str, lines: list[tuple[int, Row, str, Decimal]]
) -> tuple[Row, list[Row]]:
    """The return and its lines ((quantity, order line, sku, amount) each); resalable units back in stock."""
    record = {
        "id": ctx.rows.next_id(Return),
        "order_id": order["id"],
        "kind": kind,
        "reason_code": reason_code,
        "note": note,
        "refund_id": None,
        "exchange_order_id": None,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(Return, record)
    restock = reason_code in RESTOCKED_REASONS
    items = []
    for quantity, _, sku, amount in lines:
        item = {"return_id": record["id"], "sku": sku, "quantity": quantity, "amount": float(amount)}
        ctx.rows.insert(ReturnItem, {**item, "restocked": restock})
        if restock:
            _restock(ctx, sku, quantity)
        items.append({**item, "restocked": restock})
    return record, items


def _close_if_all_back(ctx: ToolContext, order: Row, lines: list[Row]) -> str:
    if _all_back(ctx, order, lines):
        ctx.rows.update(Order, order["id"], {"status": "returned", "updated_at": ctx.timestamp})
        return "returned"
    return order["status"]


@tool("orders", "POST", "/orders/return-items")
def orders_return_items(
    ctx: ToolContext,
    order_id: OrderId,
    items: Annotated[
        list[ReturnLine], Field(min_length=1, max_length=50, description="The SKUs and units that come back")
    ],
    reason_code: Annotated[
        ReturnReason,
        Field(
            description="Why: changed_mind or wrong_size (the customer's choice: 30 days, never final sale); "
            "not_as_described, wrong_item, damaged or defective (60 days)"
        ),
    ],
    note: Annotated[Text, Field(description="What happened, in a sentence: kept on the return and the refund")],
) -> Any:
    """Take back units of a delivered order and refund what was paid for them (their price less their share of
    the order's coupons, within what remains refundable); resalable units go back to stock, and the order is
    marked returned once every unit has come back. Enforces the return windows and final sale."""
    order = ctx.rows.need(Order, order_id, "order")
    _, lines = _returnable(ctx, order, reason_code)
    matched = _lines_back(ctx, order, lines, items, reason_code)
    discount = _discount(ctx, order)
    priced = [
        (want.quantity, line, want.sku, _paid_for(ctx, order, discount, line, want.quantity))
        for want, line, _ in matched
    ]
    due = sum((amount for *_, amount in priced), Decimal(0))
    remaining = refundable(ctx, order)
    refund_amount = min(due, max(remaining, Decimal(0)))
    record, returned = _record_return(ctx, order, "refund", reason_code, note, priced)
    refund = None
    if refund_amount > 0:
        refund = issue_refund(ctx, order, refund_amount, note)
        ctx.rows.update(Return, record["id"], {"refund_id": refund["id"]})
    status = _close_if_all_back(ctx, order, lines)
    return {
        "return_id": record["id"],
        "order_id": order_id,
        "reason_code": reason_code,
        "items": returned,
        "amount_due": float(due),
        "refund_id": None if refund is None else refund["id"],
        "refunded": float(refund_amount),
        "capped": refund_amount < due,  # what remained refundable was less than the units' value
        "order_status": status,
    }


@tool("orders", "POST", "/orders/exchange-item")
def orders_exchange_item(
    ctx: ToolContext,
    order_id: OrderId,
    sku: Annotated[str, Field(description="The SKU of the order that comes back, e.g. SKU-123")],
    new_sku: Annotated[str, Field(description="The variant sent instead (same style and price), e.g. SKU-124")],
    quantity: Annotated[int, Field(ge=1, le=1000, description="How many units are exchanged")],
    reason_code: Annotated[
        ReturnReason,
        Field(description="Why: wrong_size or changed_mind (30 days, never final sale); the others 60 days"),
    ],
    note: Annotated[Text, Field(description="What the customer asked for, in a sentence")],
) -> Any:
    """Exchange units of a delivered order for another size or colour of the same product (same style, same
    list price, in stock): the units come back and the new ones ship as a no-charge replacement order."""
    order = ctx.rows.need(Order, order_id, "order")
    _, lines = _returnable(ctx, order, reason_code)
    [(_, line, product)] = _lines_back(ctx, order, lines, [ReturnLine(sku=sku, quantity=quantity)], reason_code)
    new = ctx.rows.need(Product, new_sku, "product")
    style = ctx.rows.get(ProductStyle, sku)
    new_style = ctx.rows.get(ProductStyle, new_sku)
    if new_sku == sku or style is None or new_style is None or style["style"] != new_style["style"]:
        raise Conflict(
            f"{new_sku} ({new['name']}) is not another variant of {sku} ({product['name']}): exchanges are for "
            "another size or colour of the same product; return it for a refund instead",
            error="not_a_variant",
        )
    if total([new["list_price"]]) != total([product["list_price"]]):
        raise Conflict(
            f"{new_sku} lists at {new['list_price']} and {sku} at {product['list_price']}: an exchange is only "
            "for the same price; return it for a refund and order the other one",
            error="price_differs",
        )
    if new["stock"] < quantity:
        raise Conflict(f"only {new['stock']} unit(s) of {new_sku} in stock", error="out_of_stock")
    record, returned = _record_return(ctx, order, "exchange", reason_code, note, [(quantity, line, sku, Decimal(0))])
    replacement = {
        "id": ctx.rows.next_id(Order),
        "user_id": order["user_id"],
        "status": "processing",
        "placed_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
        "shipping_address": order["shipping_address"],
        "subtotal": 0.0,
        "total": 0.0,
        "return_eligible": False,
    }
    ctx.rows.insert(Order, replacement)
    ctx.rows.insert(
        OrderItem,
        {
            "order_id": replacement["id"],
            "sku": new_sku,
            "quantity": quantity,
            "unit_price": 0.0,
            "list_price": new["list_price"],
        },
    )
    ctx.rows.update(Product, new_sku, {"stock": new["stock"] - quantity})
    ctx.rows.update(Return, record["id"], {"exchange_order_id": replacement["id"]})
    status = _close_if_all_back(ctx, order, lines)
    return {
        "return_id": record["id"],
        "order_id": order_id,
        "items": returned,
        "replacement_order_id": replacement["id"],
        "replacement": {"sku": new_sku, "name": new["name"], "quantity": quantity, "charged": 0.0},
        "order_status": status,
    }


# --- coupons and price protection ----------------------------------------------------------------


@tool("orders", "GET", "/orders/coupon")
def orders_coupon_lookup(
    ctx: ToolContext, code: Annotated[str, Field(min_length=1, description="The coupon code, e.g. SAVE20")]
) -> Any:
    """Look up a coupon's terms: its discount, the days orders must be placed on, the minimum subtotal, and
    whether it combines with another coupon."""
    return ctx.rows.need(Coupon, code.strip().upper(), "coupon")


def _coupon_discount(ctx: ToolContext, order: Row, coupon: Row) -> Decimal:
    value = to_decimal(coupon["value"])
    subtotal = to_decimal(order["subtotal"])
    if coupon["kind"] == "fixed":
        return min(value, subtotal)
    if coupon["basis"] == "subtotal":
        base = subtotal
    else:
        base = total(i["list_price"] * i["quantity"] for i in ctx.rows.find(OrderItem, ("id",), order_id=order["id"]))
    return rounded(base * value / 100)


@tool("orders", "POST", "/orders/apply-coupon")
def orders_apply_coupon(
    ctx: ToolContext,
    order_id: OrderId,
    code: Annotated[str, Field(min_length=1, description="The coupon code, e.g. SPRING15")],
) -> Any:
    """Apply a coupon to an order: to a pending order it lowers the total; to one already charged it is honoured
    as a refund of the discount, within 14 days of the order. One coupon per order (a stackable one may join
    one other); the order must have been placed while the coupon was valid and meet its minimum subtotal."""
    order = ctx.rows.need(Order, order_id, "order")
    coupon = ctx.rows.need(Coupon, code.strip().upper(), "coupon")
    code = coupon["code"]
    if order["status"] in ("cancelled", "returned"):
        raise Conflict(f"order {order_id} is {order['status']}", error="order_closed")
    placed = order["placed_at"][:10]
    if (coupon["valid_from"] and placed < coupon["valid_from"]) or (
        coupon["valid_until"] and placed > coupon["valid_until"]
    ):
        raise Conflict(
            f"{code} is valid for orders placed from {coupon['valid_from'] or 'any day'} to "
            f"{coupon['valid_until'] or 'any day'}; order {order_id} was placed on {placed}",
            error="coupon_not_valid",
        )
    if total([order["subtotal"]]) < total([coupon["min_subtotal"]]):
        raise Conflict(
            f"{code} needs a subtotal of at least {coupon['min_subtotal']}; order {order_id}'s is {order['subtotal']}",
            error="below_minimum",
        )
    applied = ctx.rows.all(COUPON_TERMS, order_id=order_id)
    if any(c["code"] == code for c in applied):
        raise Conflict(f"{code} is already applied to order {order_id}", error="already_applied")
    if any(bool(c["stackable"]) == bool(coupon["stackable"]) for c in applied):
        held = ", ".join(c["code"] for c in applied)
        raise Conflict(
            f"order {order_id} already carries {held}: one coupon per order (a stackable one may join one other)",
            error="one_coupon_per_order",
        )
    charged = order["status"] in CHARGED_STATUSES
    days = (ctx.now.date() - _day(order["placed_at"])).days
    if charged and days > COUPON_GRACE_DAYS:
        raise Conflict(
            f"order {order_id} was placed {days} days ago: a coupon is honoured after checkout only within "
            f"{COUPON_GRACE_DAYS} days",
            error="too_late_for_coupon",
        )
    discount = _coupon_discount(ctx, order, coupon)
    if not charged:
        discount = min(discount, total([order["total"]]))
    else:
        discount = min(discount, max(refundable(ctx, order), Decimal(0)))
    if discount <= 0:
        raise Conflict(f"{code} takes nothing more off order {order_id}", error="nothing_to_discount")
    ctx.rows.insert(OrderCoupon, {"order_id": order_id, "coupon_code": code, "adjustment": -float(discount)})
    result: dict[str, Any] = {"order_id": order_id, "code": code, "discount": float(discount)}
    if charged:
        refund = issue_refund(ctx, order, discount, f"Coupon {code} honoured after checkout: {discount} off.")
        result.update({"applied_as": "refund", "refund_id": refund["id"], "total": order["total"]})
    else:
        new_total = float(total([order["total"]]) - discount)
        ctx.rows.update(Order, order_id, {"total": new_total, "updated_at": ctx.timestamp})
        result.update({"applied_as": "lower_total", "refund_id": None, "total": new_total})
    return result


@tool("orders", "POST", "/orders/price-adjustment")
def orders_price_adjustment(ctx: ToolContext, order_id: OrderId, sku: Sku) -> Any:
    """Price protection: when an item's price has dropped since the order was placed, refund the difference for
    the units the customer kept, if claimed within 14 days of placing the order; once per line."""
    order = ctx.rows.need(Order, order_id, "order")
    if order["status"] not in CHARGED_STATUSES:
        raise Conflict(f"order {order_id} is {order['status']}: nothing to adjust", error="not_adjustable")
    days = (ctx.now.date() - _day(order["placed_at"])).days
    if days > PRICE_PROTECTION_DAYS:
        raise Conflict(
            f"order {order_id} was placed {days} days ago ({order['placed_at'][:10]}): price protection is claimed "
            f"within {PRICE_PROTECTION_DAYS} days of the order",
            error="outside_price_protection",
        )
    line = next((i for i in ctx.rows.find(OrderItem, ("id",), order_id=order_id) if i["sku"] == sku), None)
    if line is None:
        raise NotFound(f"{sku} is not a line of order {order_id}")
    if ctx.rows.find(PriceAdjustment, (), order_id=order_id, sku=sku):
        raise Conflict(f"{sku} on order {order_id} was price-adjusted already", error="already_adjusted")
    product = ctx.rows.need(Product, sku, "product")
    paid, now = to_decimal(line["unit_price"]), to_decimal(product["price"])
    if now >= paid:
        raise Conflict(
            f"{sku} sells at {product['price']} now, not below the {line['unit_price']} paid", error="no_price_drop"
        )
    back = {r["sku"]: r["quantity"] for r in ctx.rows.all(RETURNED_UNITS, order_id=order_id)}
    kept = line["quantity"] - back.get(sku, 0)
    if kept <= 0:
        raise Conflict(f"every unit of {sku} on order {order_id} was returned", error="nothing_kept")
    amount = min((paid - now) * kept, max(refundable(ctx, order), Decimal(0)))
    if amount <= 0:
        raise Conflict(f"nothing remains refundable on order {order_id}", error="exceeds_refundable")
    reason = f"Price protection: {sku} dropped from {line['unit_price']} to {product['price']}, {kept} unit(s)."
    refund = issue_refund(ctx, order, amount, reason)
    adjustment = {
        "id": ctx.rows.next_id(PriceAdjustment),
        "order_id": order_id,
        "sku": sku,
        "quantity": kept,
        "paid_price": line["unit_price"],
        "new_price": product["price"],
        "amount": float(amount),
        "refund_id": refund["id"],
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(PriceAdjustment, adjustment)
    return adjustment
