"""Store: the company's online shop (shop.lumenpine.example) — products and their variants (one SKU
each, with price, stock and shipping weight), customer accounts, orders with their lines, returns
(RMAs) and discount codes.

An order moves on three axes: ``status`` (open or cancelled), ``payment_status`` (kept by the
payments app: pending, authorized, paid, partially_refunded, refunded, voided) and
``fulfillment_status`` (kept by the shipping app: unfulfilled, fulfilled once a label is bought,
delivered)."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

PRODUCT_STATUSES = ("active", "draft", "archived")
ORDER_STATUSES = ("open", "cancelled")
PAYMENT_STATUSES = ("pending", "authorized", "paid", "partially_refunded", "refunded", "voided")
FULFILLMENT_STATUSES = ("unfulfilled", "fulfilled", "delivered")
RETURN_REASONS = ("damaged", "defective", "wrong_item", "not_as_described", "changed_mind")
RETURN_STATUSES = ("approved", "received", "refunded", "cancelled")
DISCOUNT_KINDS = ("percent", "fixed")
DISCOUNT_STATUSES = ("active", "disabled")
RETURN_WINDOW_DAYS = 30  # from delivery
# reasons the shop answers for: refunded at once, without waiting for the item to come back
OUR_FAULT = ("damaged", "defective", "wrong_item")


class StoreProduct(Base):
    """A product of the online shop; its variants carry the SKUs. A final-sale product (clearance,
    floor models) cannot be returned."""

    __tablename__ = "store_products"
    __table_args__ = (enum_check("status", PRODUCT_STATUSES), {"info": {"id_format": "PRD-{:03d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    category: Mapped[str] = mapped_column(String)
    description: Mapped[str] = mapped_column(Text, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="active")
    final_sale: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class StoreVariant(Base):
    """One purchasable version of a product (a finish, a size), with its SKU, price, stock on hand
    for the shop and shipping weight of one unit (packed)."""

    __tablename__ = "store_variants"
    __table_args__ = (
        CheckConstraint("price >= 0", name="price_nonneg"),
        CheckConstraint("inventory >= 0", name="inventory_nonneg"),
        CheckConstraint("weight_lb > 0", name="weight_positive"),
        {"info": {"id_format": "VAR-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    product_id: Mapped[str] = mapped_column(ForeignKey("store_products.id"), index=True)
    sku: Mapped[str] = mapped_column(String, unique=True)
    option: Mapped[str] = mapped_column(String, info=TEXT)  # "Teak", "Large"
    price: Mapped[float] = mapped_column(Float)
    inventory: Mapped[int] = mapped_column(Integer, default=0)
    weight_lb: Mapped[float] = mapped_column(Float)


class StoreCustomer(Base):
    """A shopper's account; ``tags`` is a comma-separated list (``staff`` gives the staff discount,
    ``vip``, ``wholesale-lead``...); ``accepts_marketing`` is their consent to marketing email."""

    __tablename__ = "store_customers"
    __table_args__ = ({"info": {"id_format": "SCU-{:04d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    email: Mapped[str] = mapped_column(String, unique=True)
    phone: Mapped[str | None] = mapped_column(String)
    address: Mapped[str | None] = mapped_column(String, info=TEXT)  # default shipping address
    tags: Mapped[str] = mapped_column(String, default="")
    accepts_marketing: Mapped[bool] = mapped_column(Boolean, default=False)
    note: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)


class StoreOrder(Base):
    """An order placed in the shop (Oregon: no sales tax). ``total`` = subtotal - discount + shipping;
    ``refunded_total`` is what the payments app has refunded on it. An order on hold (fraud review)
    may not be shipped."""

    __tablename__ = "store_orders"
    __table_args__ = (
        enum_check("status", ORDER_STATUSES),
        enum_check("payment_status", PAYMENT_STATUSES),
        enum_check("fulfillment_status", FULFILLMENT_STATUSES),
        CheckConstraint("total >= 0 AND refunded_total >= 0 AND refunded_total <= total", name="amounts_range"),
        {"info": {"id_format": "SO-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)  # the order number
    customer_id: Mapped[str] = mapped_column(ForeignKey("store_customers.id"), index=True)
    status: Mapped[str] = mapped_column(String, default="open")
    payment_status: Mapped[str] = mapped_column(String, default="pending")
    fulfillment_status: Mapped[str] = mapped_column(String, default="unfulfilled")
    subtotal: Mapped[float] = mapped_column(Float)
    discount_code: Mapped[str | None] = mapped_column(String)
    discount_total: Mapped[float] = mapped_column(Float, default=0.0)
    shipping_total: Mapped[float] = mapped_column(Float, default=0.0)
    total: Mapped[float] = mapped_column(Float)
    refunded_total: Mapped[float] = mapped_column(Float, default=0.0)
    shipping_address: Mapped[str] = mapped_column(String, info=TEXT)
    on_hold: Mapped[bool] = mapped_column(Boolean, default=False)
    hold_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    note: Mapped[str | None] = mapped_column(Text, info=TEXT)
    placed_at: Mapped[str] = mapped_column(String)
    fulfilled_at: Mapped[str | None] = mapped_column(String)
    delivered_at: Mapped[str | None] = mapped_column(String)
    cancelled_at: Mapped[str | None] = mapped_column(String)
    cancel_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)


class StoreOrderLine(Base):
    """One line of an order: a variant, how many and at what unit price."""

    __tablename__ = "store_order_lines"
    __table_args__ = (CheckConstraint("quantity > 0", name="quantity_positive"), {"info": {"id_format": "SOL-{:05d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("store_orders.id"), index=True)
    variant_id: Mapped[str] = mapped_column(ForeignKey("store_variants.id"))
    sku: Mapped[str] = mapped_column(String)
    title: Mapped[str] = mapped_column(String)
    quantity: Mapped[int] = mapped_column(Integer)
    unit_price: Mapped[float] = mapped_column(Float)
    amount: Mapped[float] = mapped_column(Float)


class StoreReturn(Base):
    """A return authorization (RMA) for units of one order line: approved -> received (back in the
    warehouse) -> refunded, or cancelled. ``refund_amount`` is what the payments app refunded for it."""

    __tablename__ = "store_returns"
    __table_args__ = (
        enum_check("reason", RETURN_REASONS),
        enum_check("status", RETURN_STATUSES),
        CheckConstraint("quantity > 0", name="quantity_positive"),
        {"info": {"id_format": "RMA-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("store_orders.id"), index=True)
    line_id: Mapped[str] = mapped_column(ForeignKey("store_order_lines.id"))
    quantity: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="approved")
    note: Mapped[str | None] = mapped_column(Text, info=TEXT)
    restocked: Mapped[bool] = mapped_column(Boolean, default=False)
    refund_amount: Mapped[float | None] = mapped_column(Float)
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class StoreDiscount(Base):
    """A discount code shoppers enter at checkout: a percentage or a fixed amount off the order,
    valid from ``starts_on`` to ``ends_on`` (inclusive), optionally once per customer."""

    __tablename__ = "store_discounts"
    __table_args__ = (
        enum_check("kind", DISCOUNT_KINDS),
        enum_check("status", DISCOUNT_STATUSES),
        CheckConstraint("value > 0", name="value_positive"),
        CheckConstraint("ends_on >= starts_on", name="date_order"),
        {"info": {"id_format": "DSC-{:03d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    code: Mapped[str] = mapped_column(String, unique=True)  # upper case
    kind: Mapped[str] = mapped_column(String)
    value: Mapped[float] = mapped_column(Float)  # percent (1-100) or USD
    minimum_subtotal: Mapped[float] = mapped_column(Float, default=0.0)
    starts_on: Mapped[str] = mapped_column(String)
    ends_on: Mapped[str] = mapped_column(String)
    once_per_customer: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String, default="active")
    times_used: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
