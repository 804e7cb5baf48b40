"""Store tools: the online shop's catalog (products, variants with SKU, price and stock), customer
accounts (tags, marketing consent, default address), orders (search, one order with its lines,
payments and shipments, address changes, cancelling), returns (RMAs, under the return policy) and
discount codes. Payments (capture, refunds) are the payments app's; labels the shipping app's."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, literal, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument
from ...schema.automation.payments import PayCharge
from ...schema.automation.shipping import ShipCarrier, ShipShipment
from ...schema.automation.store import (
    DISCOUNT_KINDS,
    FULFILLMENT_STATUSES,
    ORDER_STATUSES,
    PAYMENT_STATUSES,
    PRODUCT_STATUSES,
    RETURN_REASONS,
    RETURN_STATUSES,
    RETURN_WINDOW_DAYS,
    StoreCustomer,
    StoreDiscount,
    StoreOrder,
    StoreOrderLine,
    StoreProduct,
    StoreReturn,
    StoreVariant,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.store"
MAX_PERCENT_OFF = 50  # deeper discounts need the CEO, outside the shop
MAX_FIXED_OFF = 500.0

ProductId = Annotated[str, Field(description="A shop product id, e.g. PRD-001")]
VariantId = Annotated[str, Field(description="A product variant id, e.g. VAR-0001")]
CustomerId = Annotated[str, Field(description="A shop customer id, e.g. SCU-0001")]
OrderId = Annotated[str, Field(description="A shop order number, e.g. SO-1012")]
ReturnId = Annotated[str, Field(description="A return authorization (RMA) id, e.g. RMA-0003")]
DiscountId = Annotated[str, Field(description="A discount id, e.g. DSC-001")]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
Price = Annotated[float, Field(ge=0, le=100_000, allow_inf_nan=False, description="A price in USD")]
Stock = Annotated[int, Field(ge=0, le=1_000_000, description="Units in stock")]
Weight = Annotated[float, Field(gt=0, le=5_000, allow_inf_nan=False, description="Packed weight of one unit, lb")]
Tag = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[\w-]+$", description="A tag, e.g. staff or vip")]
Sku = Annotated[
    str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9-]+$", description="A SKU, e.g. LP-ADR-TK")
]
ProductStatus = Literal[PRODUCT_STATUSES]  # type: ignore[valid-type]
OrderStatus = Literal[ORDER_STATUSES]  # type: ignore[valid-type]
PaymentStatus = Literal[PAYMENT_STATUSES]  # type: ignore[valid-type]
FulfillmentStatus = Literal[FULFILLMENT_STATUSES]  # type: ignore[valid-type]
ReturnReason = Literal[RETURN_REASONS]  # type: ignore[valid-type]
ReturnStatus = Literal[RETURN_STATUSES]  # type: ignore[valid-type]
DiscountKind = Literal[DISCOUNT_KINDS]  # type: ignore[valid-type]

_PRODUCTS, _VARIANTS, _CUSTOMERS = StoreProduct.__table__, StoreVariant.__table__, StoreCustomer.__table__
_ORDERS, _LINES, _RETURNS = StoreOrder.__table__, StoreOrderLine.__table__, StoreReturn.__table__
_DISCOUNTS, _CHARGES, _SHIPMENTS = StoreDiscount.__table__, PayCharge.__table__, ShipShipment.__table__
_CARRIERS = ShipCarrier.__table__

PRODUCTS = Filtered(
    select(_PRODUCTS),
    (_PRODUCTS.c.title, _PRODUCTS.c.id),
    query=or_(
        contains(_PRODUCTS.c.title, "query"),
        contains(_PRODUCTS.c.description, "query"),
        _PRODUCTS.c.id.in_(
            select(_VARIANTS.c.product_id).where(
                or_(contains(_VARIANTS.c.sku, "query"), contains(_VARIANTS.c.option, "query"))
            )
        ),
    ),
    category=contains(_PRODUCTS.c.category, "category"),
    status=_PRODUCTS.c.status == bindparam("status"),
)
VARIANTS_OF = Statement.of(
    select(_VARIANTS).where(_VARIANTS.c.product_id == bindparam("product_id")).order_by(_VARIANTS.c.id)
)
SKU_TAKEN = Statement.of(select(_VARIANTS.c.id).where(func.lower(_VARIANTS.c.sku) == bindparam("sku")))
CUSTOMERS = Filtered(
    select(_CUSTOMERS),
    (_CUSTOMERS.c.name, _CUSTOMERS.c.id),
    query=or_(
        contains(_CUSTOMERS.c.name, "query"),
        contains(_CUSTOMERS.c.email, "query"),
        contains(_CUSTOMERS.c.phone, "query"),
    ),
    tag=contains("," + _CUSTOMERS.c.tags + ",", "tag"),  # bound as ",tag,"
    accepts_marketing=_CUSTOMERS.c.accepts_marketing == bindparam("accepts_marketing"),
)
EMAIL_TAKEN = Statement.of(
    select(_CUSTOMERS.c.id).where(_CUSTOMERS.c.email == bindparam("email"), _CUSTOMERS.c.id != bindparam("id"))
)
_ORDER_ROWS = select(
    _ORDERS, _CUSTOMERS.c.name.label("customer_name"), _CUSTOMERS.c.email.label("customer_email")
).join(_CUSTOMERS, _CUSTOMERS.c.id == _ORDERS.c.customer_id)
_LINES_MATCHING = select(_LINES.c.order_id).where(
    or_(contains(_LINES.c.sku, "query"), contains(_LINES.c.title, "query"))
)
ORDERS = Filtered(
    _ORDER_ROWS,
    (_ORDERS.c.placed_at.desc(), _ORDERS.c.id.desc()),
    customer_id=_ORDERS.c.customer_id == bindparam("customer_id"),
    query=or_(
        contains(_ORDERS.c.id, "query"),
        contains(_CUSTOMERS.c.name, "query"),
        contains(_CUSTOMERS.c.email, "query"),
        _ORDERS.c.id.in_(_LINES_MATCHING),
    ),
    sku=_ORDERS.c.id.in_(select(_LINES.c.order_id).where(contains(_LINES.c.sku, "sku"))),
    status=_ORDERS.c.status == bindparam("status"),
    payment_status=_ORDERS.c.payment_status == bindparam("payment_status"),
    fulfillment_status=_ORDERS.c.fulfillment_status == bindparam("fulfillment_status"),
    on_hold=_ORDERS.c.on_hold == bindparam("on_hold"),
    placed_from=_ORDERS.c.placed_at >= bindparam("placed_from"),
    placed_to=_ORDERS.c.placed_at < bindparam("placed_to"),
)
ORDER_SUMMARIES = Statement.of(
    select(
        _ORDERS.c.id,
        _ORDERS.c.placed_at,
        _ORDERS.c.status,
        _ORDERS.c.payment_status,
        _ORDERS.c.fulfillment_status,
        _ORDERS.c.total,
    )
    .where(_ORDERS.c.customer_id == bindparam("customer_id"))
    .order_by(_ORDERS.c.placed_at.desc(), _ORDERS.c.id.desc())
)
ORDER_CHARGES = Statement.of(
    select(
        _CHARGES.c.id,
        _CHARGES.c.status,
        _CHARGES.c.amount,
        _CHARGES.c.amount_captured,
        _CHARGES.c.amount_refunded,
        _CHARGES.c.card_brand,
        _CHARGES.c.card_last4,
        _CHARGES.c.created_at,
    )
    .where(_CHARGES.c.order_id == bindparam("order_id"))
    .order_by(_CHARGES.c.created_at, _CHARGES.c.id)
)
ORDER_SHIPMENTS = Statement.of(
    select(
        _SHIPMENTS.c.id,
        _SHIPMENTS.c.direction,
        _CARRIERS.c.name.label("carrier"),
        _SHIPMENTS.c.service,
        _SHIPMENTS.c.tracking_number,
        _SHIPMENTS.c.status,
        _SHIPMENTS.c.created_at,
        _SHIPMENTS.c.delivered_at,
    )
    .join(_CARRIERS, _CARRIERS.c.id == _SHIPMENTS.c.carrier_id)
    .where(_SHIPMENTS.c.order_id == bindparam("order_id"))
    .order_by(_SHIPMENTS.c.created_at, _SHIPMENTS.c.id)
)
_RETURN_ROWS = select(_RETURNS, _LINES.c.sku, _LINES.c.title).join(_LINES, _LINES.c.id == _RETURNS.c.line_id)
RETURNS = Filtered(
    _RETURN_ROWS,
    (_RETURNS.c.created_at.desc(), _RETURNS.c.id.desc()),
    order_id=_RETURNS.c.order_id == bindparam("order_id"),
    status=_RETURNS.c.status == bindparam("status"),
    customer_id=_RETURNS.c.order_id.in_(select(_ORDERS.c.id).where(_ORDERS.c.customer_id == bindparam("customer_id"))),
)
RETURNED = Statement.of(  # units of a line already under a return that is not cancelled
    select(func.coalesce(func.sum(_RETURNS.c.quantity), 0).label("units")).where(
        _RETURNS.c.line_id == bindparam("line_id"), _RETURNS.c.status != literal("cancelled")
    )
)
DISCOUNTS = Filtered(
    select(_DISCOUNTS),
    (_DISCOUNTS.c.code, _DISCOUNTS.c.id),
    query=contains(_DISCOUNTS.c.code, "query"),
    status=_DISCOUNTS.c.status == bindparam("status"),
    valid_on=(_DISCOUNTS.c.starts_on <= bindparam("valid_on")) & (_DISCOUNTS.c.ends_on >= bindparam("valid_on")),
)
CODE_TAKEN = Statement.of(select(_DISCOUNTS.c.id).where(func.upper(_DISCOUNTS.c.code) == bindparam("code")))


class VariantInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    sku: Sku
    option: Text = Field(description="What tells it apart, e.g. 'Teak' or 'Large'")
    price: Price
    weight_lb: Weight
    inventory: Stock = 0


def today(ctx: ToolContext) -> str:
    return ctx.timestamp[:10]


def _days_between(start: str, end: str) -> int:
    return (date.fromisoformat(end[:10]) - date.fromisoformat(start[:10])).days


def tags_text(tags: set[str]) -> str:
    return ",".join(sorted(tags))


def tag_set(text: str) -> set[str]:
    return {t.strip().lower() for t in text.split(",") if t.strip()}


def order_of(ctx: ToolContext, order_id: str) -> Row:
    return ctx.rows.need(StoreOrder, order_id, "order")


def order_view(ctx: ToolContext, order: Row) -> dict[str, Any]:
    """An order with its customer, lines (and units already under return), returns, card charges and
    shipments."""
    customer = ctx.rows.need(StoreCustomer, order["customer_id"], "customer")
    lines = ctx.rows.find(StoreOrderLine, ("id",), order_id=order["id"])
    for line in lines:
        line["returned_quantity"] = ctx.rows.value(RETURNED, line_id=line["id"])
    return {
        **order,
        "customer": {k: customer[k] for k in ("id", "name", "email", "phone")},
        "lines": lines,
        "returns": ctx.rows.find(StoreReturn, ("id",), order_id=order["id"]),
        "charges": ctx.rows.all(ORDER_CHARGES, order_id=order["id"]),
        "shipments": ctx.rows.all(ORDER_SHIPMENTS, order_id=order["id"]),
    }


def restock_units(ctx: ToolContext, variant_id: str, units: int) -> None:
    """Put ``units`` back in (or, negative, take them out of) the shop's stock of a variant."""
    variant = ctx.rows.need(StoreVariant, variant_id, "variant")
    left = variant["inventory"] + units
    if left < 0:
        raise Conflict(
            f"only {variant['inventory']} of {variant['sku']} in stock, {-units} needed", error="out_of_stock"
        )
    ctx.rows.change(StoreVariant, variant, {"inventory": left})


def _product_view(ctx: ToolContext, product: Row) -> dict[str, Any]:
    return {**product, "variants": ctx.rows.all(VARIANTS_OF, product_id=product["id"])}


# --- catalog -------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/store/products")
def store_list_products(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the product's title or description, or a SKU")] = None,
    category: Annotated[str | None, Field(description="Only this category, e.g. Seating, Dining, Shade")] = None,
    status: Annotated[ProductStatus | None, Field(description="active, draft or archived")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List or search the online shop's products (the catalog) with their variants, SKUs, prices and stock."""
    found = ctx.rows.page(PRODUCTS, page, per_page, query=query, category=category, status=status)
    found["rows"] = [_product_view(ctx, product) for product in found["rows"]]
    return found


@tool(SERVICE, "GET", "/store/products/{product_id}")
def store_get_product(ctx: ToolContext, product_id: ProductId) -> Any:
    """Get one shop product with its variants (SKU, option, price, stock on hand, shipping weight)."""
    return _product_view(ctx, ctx.rows.need(StoreProduct, product_id, "product"))


@tool(SERVICE, "POST", "/store/products")
def store_create_product(
    ctx: ToolContext,
    title: Annotated[Text, Field(max_length=200, description="The product's name in the shop")],
    category: Annotated[Text, Field(max_length=60, description="The category, e.g. Seating")],
    description: Annotated[Text, Field(description="The product description shoppers read")],
    variants: Annotated[list[VariantInput], Field(min_length=1, max_length=20, description="Its variants")],
    status: Annotated[ProductStatus, Field(description="draft (default: not yet for sale) or active")] = "draft",
    final_sale: Annotated[bool, Field(description="Final sale: cannot be returned (clearance)")] = False,
) -> Any:
    """Add a new product to the shop catalog with its variants (SKUs must be new)."""
    skus = [v.sku.upper() for v in variants]
    if len(set(skus)) != len(skus):
        raise InvalidArgument("two variants have the same SKU", error="duplicate_sku")
    for sku in skus:
        if ctx.rows.value(SKU_TAKEN, sku=sku.lower()) is not None:
            raise Conflict(f"SKU {sku} is already in the catalog", error="duplicate_sku")
    product = {
        "id": ctx.rows.next_id(StoreProduct),
        "title": title,
        "category": category,
        "description": description,
        "status": status,
        "final_sale": final_sale,
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(StoreProduct, product)
    for given in variants:
        ctx.rows.insert(
            StoreVariant,
            {
                "id": ctx.rows.next_id(StoreVariant),
                "product_id": product["id"],
                "sku": given.sku.upper(),
                "option": given.option,
                "price": round(given.price, 2),
                "inventory": given.inventory,
                "weight_lb": given.weight_lb,
            },
        )
    return _product_view(ctx, product)


@tool(SERVICE, "PATCH", "/store/products/{product_id}")
def store_update_product(
    ctx: ToolContext,
    product_id: ProductId,
    title: Annotated[Text | None, Field(max_length=200, description="New title")] = None,
    category: Annotated[Text | None, Field(max_length=60, description="New category")] = None,
    description: Annotated[Text | None, Field(description="New description")] = None,
    status: Annotated[
        ProductStatus | None, Field(description="active (on sale), draft (hidden) or archived (retired)")
    ] = None,
    final_sale: Annotated[bool | None, Field(description="Whether it is final sale (not returnable)")] = None,
) -> Any:
    """Update a shop product's title, category, description or final-sale flag, or archive / publish it."""
    product = ctx.rows.need(StoreProduct, product_id, "product")
    changed = update_given(
        ctx,
        StoreProduct,
        product,
        title=title,
        category=category,
        description=description,
        status=status,
        final_sale=final_sale,
    )
    if changed:
        ctx.rows.change(StoreProduct, product, {"updated_at": ctx.timestamp})
    return _product_view(ctx, product)


@tool(SERVICE, "PATCH", "/store/variants/{variant_id}")
def store_update_variant(
    ctx: ToolContext,
    variant_id: VariantId,
    price: Annotated[Price | None, Field(description="New price, USD")] = None,
    inventory: Annotated[Stock | None, Field(description="New stock on hand (a stock count or correction)")] = None,
    option: Annotated[Text | None, Field(max_length=60, description="New option name")] = None,
    weight_lb: Annotated[Weight | None, Field(description="New packed weight of one unit, lb")] = None,
) -> Any:
    """Change a product's price or stock level (inventory): update one of its variants (SKUs), option or weight."""
    variant = ctx.rows.need(StoreVariant, variant_id, "variant")
    changed = update_given(
        ctx,
        StoreVariant,
        variant,
        price=None if price is None else round(price, 2),
        inventory=inventory,
        option=option,
        weight_lb=weight_lb,
    )
    if changed:
        product = ctx.rows.need(StoreProduct, variant["product_id"], "product")
        ctx.rows.change(StoreProduct, product, {"updated_at": ctx.timestamp})
    return variant


# --- customers -----------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/store/customers")
def store_list_customers(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the customer's name, email or phone")] = None,
    tag: Annotated[Tag | None, Field(description="Only customers with this tag, e.g. staff")] = None,
    accepts_marketing: Annotated[
        bool | None, Field(description="Only customers who did (true) or did not (false) opt in to marketing email")
    ] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List or search the shop's customer accounts (shoppers) by name, email, phone, tag or marketing consent."""
    return ctx.rows.page(
        CUSTOMERS,
        page,
        per_page,
        query=query,
        tag=f",{tag.lower()}," if tag else None,
        accepts_marketing=accepts_marketing,
    )


@tool(SERVICE, "GET", "/store/customers/{customer_id}")
def store_get_customer(ctx: ToolContext, customer_id: CustomerId) -> Any:
    """Get one shop customer's account (address, tags, marketing consent) with their orders, newest first."""
    customer = ctx.rows.need(StoreCustomer, customer_id, "customer")
    return {**customer, "orders": ctx.rows.all(ORDER_SUMMARIES, customer_id=customer["id"])}


@tool(SERVICE, "PATCH", "/store/customers/{customer_id}")
def store_update_customer(
    ctx: ToolContext,
    customer_id: CustomerId,
    name: Annotated[Text | None, Field(max_length=120, description="New full name")] = None,
    email: Annotated[Email | None, Field(description="New email address (must not be another account's)")] = None,
    phone: Annotated[Text | None, Field(max_length=40, description="New phone number")] = None,
    address: Annotated[
        Text | None, Field(max_length=300, description="New default shipping address, 'street, city, ST 12345'")
    ] = None,
    accepts_marketing: Annotated[bool | None, Field(description="Their consent to marketing email")] = None,
    add_tags: Annotated[list[Tag] | None, Field(max_length=20, description="Tags to add, e.g. ['vip']")] = None,
    remove_tags: Annotated[list[Tag] | None, Field(max_length=20, description="Tags to remove, e.g. ['staff']")] = None,
    note: Annotated[Text | None, Field(description="A note on the account (replaces the old one)")] = None,
) -> Any:
    """Update a shop customer: add or remove tags (staff, vip), or change their name, email, phone, default
    address, marketing consent or note (the staff tag gives the staff discount)."""
    customer = ctx.rows.need(StoreCustomer, customer_id, "customer")
    if email is not None:
        email = email.lower()
        other = ctx.rows.value(EMAIL_TAKEN, email=email, id=customer["id"])
        if other is not None:
            raise Conflict(f"customer {other} already has email {email}", error="duplicate_email")
    tags = None
    if add_tags or remove_tags:
        current = tag_set(customer["tags"])
        removing = {t.lower() for t in remove_tags or []}
        missing = sorted(removing - current)
        if missing:
            raise Conflict(f"{customer['id']} has no tag {', '.join(missing)}", error="no_such_tag")
        tags = tags_text((current | {t.lower() for t in add_tags or []}) - removing)
    update_given(
        ctx,
        StoreCustomer,
        customer,
        name=name,
        email=email,
        phone=phone,
        address=address,
        accepts_marketing=accepts_marketing,
        tags=tags,
        note=note,
    )
    return customer


# --- orders --------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/store/orders")
def store_list_orders(
    ctx: ToolContext,
    customer_id: Annotated[str | None, Field(description="Only this customer's orders, e.g. SCU-0001")] = None,
    query: Annotated[
        str | None, Field(description="Text in the order number, customer name or email, or a line's product/SKU")
    ] = None,
    sku: Annotated[str | None, Field(description="Only orders with a line whose SKU contains this")] = None,
    status: Annotated[OrderStatus | None, Field(description="open or cancelled")] = None,
    payment_status: Annotated[
        PaymentStatus | None,
        Field(description="pending, authorized (to capture), paid, partially_refunded, refunded or voided"),
    ] = None,
    fulfillment_status: Annotated[
        FulfillmentStatus | None, Field(description="unfulfilled (not shipped), fulfilled (label bought) or delivered")
    ] = None,
    on_hold: Annotated[bool | None, Field(description="Only orders on (true) or off (false) fraud hold")] = None,
    placed_from: Annotated[Day | None, Field(description="Placed on or after this date")] = None,
    placed_to: Annotated[Day | None, Field(description="Placed on or before this date")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """Find, list or search the online store's orders, newest first, by customer, product/SKU, status or date."""
    placed_until = None
    if placed_to is not None:
        placed_until = (date.fromisoformat(_checked_day(placed_to, "placed_to")) + timedelta(days=1)).isoformat()
    return ctx.rows.page(
        ORDERS,
        page,
        per_page,
        customer_id=customer_id,
        query=query,
        sku=sku,
        status=status,
        payment_status=payment_status,
        fulfillment_status=fulfillment_status,
        on_hold=on_hold,
        placed_from=None if placed_from is None else _checked_day(placed_from, "placed_from"),
        placed_to=placed_until,
    )


def _checked_day(text: str, what: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise InvalidArgument(f"{what}: {text!r} is not a valid date (YYYY-MM-DD)", error="invalid_date") from None


@tool(SERVICE, "GET", "/store/orders/{order_id}")
def store_get_order(ctx: ToolContext, order_id: OrderId) -> Any:
    """Look up (get) one shop order in full: customer, lines (SKU, quantity, price), totals, payment and
    fulfillment status, shipping address, returns, its card charges and its shipments with tracking numbers."""
    return order_view(ctx, order_of(ctx, order_id))


@tool(SERVICE, "PATCH", "/store/orders/{order_id}")
def store_update_order(
    ctx: ToolContext,
    order_id: OrderId,
    shipping_address: Annotated[
        Text | None,
        Field(max_length=300, description="New delivery address, 'street, city, ST 12345' (only before shipping)"),
    ] = None,
    note: Annotated[Text | None, Field(description="An internal note on the order (replaces the old one)")] = None,
    on_hold: Annotated[bool | None, Field(description="Put the order on hold (true) or release it (false)")] = None,
    hold_reason: Annotated[Text | None, Field(description="Why it is on hold (with on_hold true)")] = None,
) -> Any:
    """Change an order's shipping (delivery) address before it ships, its internal note, or its hold. Once a
    label is bought the address is the shipment's: void the label in shipping first."""
    order = order_of(ctx, order_id)
    if order["status"] == "cancelled":
        raise Conflict(f"order {order_id} is cancelled", error="order_cancelled")
    if shipping_address is not None and order["fulfillment_status"] != "unfulfilled":
        raise Conflict(
            f"order {order_id} is {order['fulfillment_status']}: its label carries the address; void the "
            "shipment (ship_cancel_shipment) before changing it",
            error="already_fulfilled",
        )
    if hold_reason is not None and on_hold is not True:
        raise InvalidArgument("a hold_reason goes with on_hold true", error="missing_field")
    updates = {"shipping_address": shipping_address, "note": note, "on_hold": on_hold, "hold_reason": hold_reason}
    given = {k: v for k, v in updates.items() if v is not None}
    if not given:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if on_hold is False:
        given["hold_reason"] = None
    ctx.rows.change(StoreOrder, order, given)
    return order_view(ctx, order)


@tool(SERVICE, "POST", "/store/orders/{order_id}/cancel")
def store_cancel_order(
    ctx: ToolContext,
    order_id: OrderId,
    reason: Annotated[Text, Field(description="Why it is cancelled")],
) -> Any:
    """Cancel an open order that has not shipped; its units go back in stock. Its card payment must be voided
    (an authorization) or refunded in the payments app first."""
    order = order_of(ctx, order_id)
    if order["status"] == "cancelled":
        raise Conflict(f"order {order_id} is already cancelled", error="already_cancelled")
    if order["fulfillment_status"] != "unfulfilled":
        raise Conflict(f"order {order_id} has shipped ({order['fulfillment_status']})", error="already_fulfilled")
    if order["payment_status"] in ("authorized", "paid", "partially_refunded"):
        raise Conflict(
            f"order {order_id} is {order['payment_status']}: void the authorization or refund the charge in "
            "payments before cancelling",
            error="payment_outstanding",
        )
    for line in ctx.rows.find(StoreOrderLine, ("id",), order_id=order["id"]):
        restock_units(ctx, line["variant_id"], line["quantity"])
    ctx.rows.change(StoreOrder, order, {"status": "cancelled", "cancelled_at": ctx.timestamp, "cancel_reason": reason})
    return order_view(ctx, order)


# --- returns -------------------------------------------------------------------------------------


@tool(SERVICE, "POST", "/store/orders/{order_id}/returns")
def store_create_return(
    ctx: ToolContext,
    order_id: OrderId,
    quantity: Annotated[int, Field(ge=1, le=1000, description="How many units come back")],
    reason: Annotated[
        ReturnReason,
        Field(
            description="damaged, defective, wrong_item (our fault: refundable at once), not_as_described or "
            "changed_mind (refunded once received)"
        ),
    ],
    sku: Annotated[Sku | None, Field(description="The SKU of the order line returned")] = None,
    line_id: Annotated[str | None, Field(description="Or the order line id, e.g. SOL-00012")] = None,
    note: Annotated[Text | None, Field(description="What the customer reported")] = None,
) -> Any:
    """Approve a return (create an RMA) for units of a delivered order line. Return policy: within 30 days of
    delivery, not for final-sale items, not more units than were bought."""
    order = order_of(ctx, order_id)
    if (sku is None) == (line_id is None):
        raise InvalidArgument("give the line's sku or its line_id (one of them)", error="missing_field")
    lines = ctx.rows.find(StoreOrderLine, ("id",), order_id=order["id"])
    if line_id is not None:
        matching = [line for line in lines if line["id"] == line_id]
    else:
        matching = [line for line in lines if line["sku"].upper() == (sku or "").upper()]
    if not matching:
        raise InvalidArgument(f"order {order_id} has no line {line_id or sku}", error="line_not_in_order")
    line = matching[0]
    if order["status"] == "cancelled":
        raise Conflict(f"order {order_id} is cancelled", error="order_cancelled")
    if order["fulfillment_status"] != "delivered" or not order["delivered_at"]:
        raise Conflict(f"order {order_id} has not been delivered yet", error="not_delivered")
    age = _days_between(order["delivered_at"], ctx.timestamp)
    if age > RETURN_WINDOW_DAYS:
        raise Forbidden(
            f"order {order_id} was delivered on {order['delivered_at'][:10]}, {age} days ago: returns are accepted "
            f"within {RETURN_WINDOW_DAYS} days of delivery",
            error="return_window_closed",
        )
    variant = ctx.rows.need(StoreVariant, line["variant_id"], "variant")
    product = ctx.rows.need(StoreProduct, variant["product_id"], "product")
    if product["final_sale"]:
        raise Forbidden(f"{line['sku']} ({product['title']}) was sold as final sale", error="final_sale")
    already = ctx.rows.value(RETURNED, line_id=line["id"])
    if already + quantity > line["quantity"]:
        raise Conflict(
            f"line {line['id']} has {line['quantity']} unit(s), {already} already under return", error="over_returned"
        )
    rma = {
        "id": ctx.rows.next_id(StoreReturn),
        "order_id": order["id"],
        "line_id": line["id"],
        "quantity": quantity,
        "reason": reason,
        "status": "approved",
        "note": note,
        "restocked": False,
        "refund_amount": None,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(StoreReturn, rma)
    return {**rma, "sku": line["sku"], "title": line["title"], "unit_price": line["unit_price"]}


@tool(SERVICE, "GET", "/store/returns")
def store_list_returns(
    ctx: ToolContext,
    order_id: Annotated[str | None, Field(description="Only returns of this order")] = None,
    customer_id: Annotated[str | None, Field(description="Only returns of this customer's orders")] = None,
    status: Annotated[ReturnStatus | None, Field(description="approved, received, refunded or cancelled")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List return authorizations (RMAs), newest first, by order, customer or status."""
    return ctx.rows.page(RETURNS, page, per_page, order_id=order_id, customer_id=customer_id, status=status)


@tool(SERVICE, "POST", "/store/returns/{return_id}/receive")
def store_receive_return(
    ctx: ToolContext,
    return_id: ReturnId,
    restock: Annotated[
        bool | None, Field(description="Put the units back in stock (default: yes, unless damaged or defective)")
    ] = None,
) -> Any:
    """Mark a returned item as received back at the warehouse, optionally restocking it; a change-of-mind
    return can then be refunded."""
    rma = ctx.rows.need(StoreReturn, return_id, "return")
    if rma["status"] != "approved":
        raise Conflict(f"return {return_id} is {rma['status']}, not awaiting the item", error="not_awaited")
    broken = rma["reason"] in ("damaged", "defective")
    if restock and broken:
        raise Conflict(f"a {rma['reason']} item cannot go back in stock", error="not_restockable")
    restocking = not broken if restock is None else restock
    if restocking:
        line = ctx.rows.need(StoreOrderLine, rma["line_id"], "order line")
        restock_units(ctx, line["variant_id"], rma["quantity"])
    ctx.rows.change(StoreReturn, rma, {"status": "received", "restocked": restocking, "updated_at": ctx.timestamp})
    return rma


# --- discounts -----------------------------------------------------------------------------------


def _discount_rules(kind: str, value: float, starts_on: str, ends_on: str, today_: str) -> None:
    if kind == "percent" and value > MAX_PERCENT_OFF:
        raise Forbidden(f"percent discounts go up to {MAX_PERCENT_OFF}% in the shop", error="discount_too_deep")
    if kind == "fixed" and value > MAX_FIXED_OFF:
        raise Forbidden(f"fixed discounts go up to ${MAX_FIXED_OFF:.0f} in the shop", error="discount_too_deep")
    if ends_on < starts_on:
        raise InvalidArgument("ends_on is before starts_on", error="invalid_dates")
    if ends_on < today_:
        raise InvalidArgument(f"ends_on {ends_on} is in the past", error="invalid_dates")


@tool(SERVICE, "GET", "/store/discounts")
def store_list_discounts(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the code")] = None,
    status: Annotated[Literal["active", "disabled"] | None, Field(description="active or disabled")] = None,
    valid_on: Annotated[Day | None, Field(description="Only codes valid on this date")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the shop's discount (coupon / promo) codes with their value, dates and uses."""
    return ctx.rows.page(
        DISCOUNTS,
        page,
        per_page,
        query=query,
        status=status,
        valid_on=None if valid_on is None else _checked_day(valid_on, "valid_on"),
    )


@tool(SERVICE, "POST", "/store/discounts")
def store_create_discount(
    ctx: ToolContext,
    code: Annotated[
        str, Field(min_length=3, max_length=30, pattern=r"^[A-Za-z0-9_-]+$", description="The code, e.g. FALL15")
    ],
    kind: Annotated[DiscountKind, Field(description="percent (off the order) or fixed (USD off)")],
    value: Annotated[float, Field(gt=0, le=10_000, allow_inf_nan=False, description="The percent or USD off")],
    ends_on: Annotated[Day, Field(description="Last day it can be used, YYYY-MM-DD")],
    starts_on: Annotated[Day | None, Field(description="First day it can be used (default today)")] = None,
    minimum_subtotal: Annotated[
        float, Field(ge=0, le=100_000, allow_inf_nan=False, description="Smallest order subtotal it applies to")
    ] = 0.0,
    once_per_customer: Annotated[bool, Field(description="Each customer may use it only once")] = False,
) -> Any:
    """Create a discount (coupon / promo) code for the shop; codes are unique, percent ones at most 50% off."""
    start = _checked_day(starts_on, "starts_on") if starts_on else today(ctx)
    end = _checked_day(ends_on, "ends_on")
    _discount_rules(kind, value, start, end, today(ctx))
    taken = ctx.rows.value(CODE_TAKEN, code=code.upper())
    if taken is not None:
        raise Conflict(f"code {code.upper()} already exists ({taken}); update that one", error="duplicate_code")
    discount = {
        "id": ctx.rows.next_id(StoreDiscount),
        "code": code.upper(),
        "kind": kind,
        "value": round(value, 2),
        "minimum_subtotal": round(minimum_subtotal, 2),
        "starts_on": start,
        "ends_on": end,
        "once_per_customer": once_per_customer,
        "status": "active",
        "times_used": 0,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(StoreDiscount, discount)
    return discount


@tool(SERVICE, "PATCH", "/store/discounts/{discount_id}")
def store_update_discount(
    ctx: ToolContext,
    discount_id: DiscountId,
    value: Annotated[
        float | None, Field(gt=0, le=10_000, allow_inf_nan=False, description="New percent or USD off")
    ] = None,
    starts_on: Annotated[Day | None, Field(description="New first day")] = None,
    ends_on: Annotated[Day | None, Field(description="New last day (extend or shorten it)")] = None,
    minimum_subtotal: Annotated[
        float | None, Field(ge=0, le=100_000, allow_inf_nan=False, description="New minimum subtotal")
    ] = None,
    once_per_customer: Annotated[bool | None, Field(description="Each customer may use it only once")] = None,
    status: Annotated[
        Literal["active", "disabled"] | None, Field(description="disabled: stop it working; active: re-enable")
    ] = None,
) -> Any:
    """Change a discount (promo) code's value, dates, minimum or once-per-customer rule, or stop it working
    (disable) or re-enable it."""
    discount = ctx.rows.need(StoreDiscount, discount_id, "discount")
    start = _checked_day(starts_on, "starts_on") if starts_on else discount["starts_on"]
    end = _checked_day(ends_on, "ends_on") if ends_on else discount["ends_on"]
    if value is not None or starts_on is not None or ends_on is not None:
        _discount_rules(discount["kind"], value or discount["value"], start, end, today(ctx))
    update_given(
        ctx,
        StoreDiscount,
        discount,
        value=None if value is None else round(value, 2),
        starts_on=None if starts_on is None else start,
        ends_on=None if ends_on is None else end,
        minimum_subtotal=None if minimum_subtotal is None else round(minimum_subtotal, 2),
        once_per_customer=once_per_customer,
        status=status,
    )
    return discount
