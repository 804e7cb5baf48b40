"""Order service: orders, their line items and coupons, refunds, returns and exchanges, price adjustments."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

ORDER_STATUSES = ("pending", "processing", "shipped", "delivered", "cancelled", "returned")
ORDER_TRANSITIONS: dict[str, tuple[str, ...]] = {
    "pending": ("processing", "cancelled"),
    "processing": ("shipped", "cancelled"),
    "shipped": ("delivered",),
    "delivered": ("returned",),
    "cancelled": (),
    "returned": (),
}
CHARGED_STATUSES = ("processing", "shipped", "delivered")  # a pending order has not been charged yet
RETURN_KINDS = ("refund", "exchange")
RETURN_REASONS = ("changed_mind", "wrong_size", "not_as_described", "wrong_item", "damaged", "defective")
PREFERENCE_REASONS = ("changed_mind", "wrong_size")  # the customer's choice: 30 days, not on final sale
RESTOCKED_REASONS = ("changed_mind", "wrong_size", "not_as_described", "wrong_item")  # resalable units
COUPON_KINDS = ("percent", "fixed")
COUPON_BASES = ("list_price", "subtotal")


class Order(Base):
    """An order; ``total`` is what the customer was charged (or, while pending, will be)."""

    __tablename__ = "orders"
    __table_args__ = (
        enum_check("status", ORDER_STATUSES),
        CheckConstraint("subtotal >= 0", name="subtotal_nonneg"),
        CheckConstraint("total >= 0", name="total_nonneg"),
        {"info": {"id_format": "ORD-{:04d}"}},  # exchanges ship as new orders
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    status: Mapped[str] = mapped_column(String)
    placed_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)
    shipping_address: Mapped[str] = mapped_column(String)
    subtotal: Mapped[float] = mapped_column(Float)
    total: Mapped[float] = mapped_column(Float)
    return_eligible: Mapped[bool] = mapped_column(Boolean)  # false: sold as final sale


class Shipment(Base):
    """An order's parcel: when it left the warehouse and, once it arrived, when it was delivered."""

    __tablename__ = "shipments"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), primary_key=True)
    carrier: Mapped[str | None] = mapped_column(String)
    tracking_number: Mapped[str | None] = mapped_column(String)
    shipped_at: Mapped[str] = mapped_column(String)
    delivered_at: Mapped[str | None] = mapped_column(String)


class OrderItem(Base):
    """A line of an order, priced as it was when the order was placed."""

    __tablename__ = "order_items"
    __table_args__ = (
        CheckConstraint("quantity > 0", name="quantity_pos"),
        CheckConstraint("unit_price >= 0", name="unit_price_nonneg"),
        CheckConstraint("list_price >= 0", name="list_price_nonneg"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    sku: Mapped[str] = mapped_column(ForeignKey("products.sku"), index=True)
    quantity: Mapped[int] = mapped_column(Integer)
    unit_price: Mapped[float] = mapped_column(Float)
    list_price: Mapped[float] = mapped_column(Float)


class Coupon(Base):
    __tablename__ = "coupons"
    __table_args__ = (
        enum_check("kind", COUPON_KINDS),
        enum_check("basis", COUPON_BASES),
        CheckConstraint("value > 0", name="value_pos"),
    )

    code: Mapped[str] = mapped_column(String, primary_key=True)
    description: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String)
    value: Mapped[float] = mapped_column(Float)
    basis: Mapped[str] = mapped_column(String)
    # the days (YYYY-MM-DD, inclusive) an order must have been placed on for the coupon to apply
    valid_from: Mapped[str | None] = mapped_column(String)
    valid_until: Mapped[str | None] = mapped_column(String)
    min_subtotal: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    stackable: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")  # joins one other coupon


class OrderCoupon(Base):
    """A coupon as it was applied to an order: ``adjustment`` was added to the total."""

    __tablename__ = "order_coupons"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), primary_key=True)
    coupon_code: Mapped[str] = mapped_column(ForeignKey("coupons.code"), primary_key=True)
    adjustment: Mapped[float] = mapped_column(Float)


class Refund(Base):
    __tablename__ = "refunds"
    __table_args__ = (
        CheckConstraint("amount > 0", name="amount_pos"),
        {"info": {"id_format": "RF-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    amount: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)


class Return(Base):
    """Units of an order that came back: refunded (``refund_id``) or exchanged for a variant that ships
    as a new no-charge order (``exchange_order_id``)."""

    __tablename__ = "returns"
    __table_args__ = (
        enum_check("kind", RETURN_KINDS),
        enum_check("reason_code", RETURN_REASONS),
        {"info": {"id_format": "RET-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    kind: Mapped[str] = mapped_column(String)
    reason_code: Mapped[str] = mapped_column(String)
    note: Mapped[str] = mapped_column(Text, info=TEXT)
    refund_id: Mapped[str | None] = mapped_column(ForeignKey("refunds.id"))
    exchange_order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"))
    created_at: Mapped[str] = mapped_column(String)


class ReturnItem(Base):
    """A line of a return: units of one SKU, what was refunded for them, whether they went back to stock."""

    __tablename__ = "return_items"
    __table_args__ = (
        CheckConstraint("quantity > 0", name="quantity_pos"),
        CheckConstraint("amount >= 0", name="amount_nonneg"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    return_id: Mapped[str] = mapped_column(ForeignKey("returns.id"), index=True)
    sku: Mapped[str] = mapped_column(ForeignKey("products.sku"))
    quantity: Mapped[int] = mapped_column(Integer)
    amount: Mapped[float] = mapped_column(Float)
    restocked: Mapped[bool] = mapped_column(Boolean)


class PriceAdjustment(Base):
    """A price-protection refund: an item's price dropped soon after the order, the difference refunded."""

    __tablename__ = "price_adjustments"
    __table_args__ = (
        CheckConstraint("quantity > 0", name="quantity_pos"),
        CheckConstraint("amount > 0", name="amount_pos"),
        UniqueConstraint("order_id", "sku", name="order_sku"),
        {"info": {"id_format": "PA-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    sku: Mapped[str] = mapped_column(ForeignKey("products.sku"))
    quantity: Mapped[int] = mapped_column(Integer)
    paid_price: Mapped[float] = mapped_column(Float)
    new_price: Mapped[float] = mapped_column(Float)
    amount: Mapped[float] = mapped_column(Float)
    refund_id: Mapped[str] = mapped_column(ForeignKey("refunds.id"))
    created_at: Mapped[str] = mapped_column(String)
