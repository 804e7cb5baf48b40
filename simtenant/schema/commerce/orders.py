"""Order service: orders, their line items and coupons, and refunds."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Float, ForeignKey, Integer, String, Text
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
COUPON_KINDS = ("percent", "fixed")
COUPON_BASES = ("list_price", "subtotal")


class Order(Base):
    """An order; ``total`` is what the customer was charged."""

    __tablename__ = "orders"
    __table_args__ = (
        enum_check("status", ORDER_STATUSES),
        CheckConstraint("subtotal >= 0", name="subtotal_nonneg"),
        CheckConstraint("total >= 0", name="total_nonneg"),
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    status: Mapped[str] = mapped_column(String)
    placed_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)
    shipping_address: Mapped[str] = mapped_column(String)
    subtotal: Mapped[float] = mapped_column(Float)
    total: Mapped[float] = mapped_column(Float)
    return_eligible: Mapped[bool] = mapped_column(Boolean)


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
