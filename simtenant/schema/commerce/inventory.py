"""Inventory service: the product catalogue, stock levels, price history and the stock ledger."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

STOCK_REASONS = ("cycle_count", "damaged", "expired", "lost", "recalled")


class Product(Base):
    __tablename__ = "products"
    __table_args__ = (
        CheckConstraint("price >= 0", name="price_nonneg"),
        CheckConstraint("list_price >= 0", name="list_price_nonneg"),
        CheckConstraint("stock >= 0", name="stock_nonneg"),
    )

    sku: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    category: Mapped[str] = mapped_column(String)
    price: Mapped[float] = mapped_column(Float)
    list_price: Mapped[float] = mapped_column(Float)
    stock: Mapped[int] = mapped_column(Integer)


class ProductStyle(Base):
    """The product line (style) a size or colour variant belongs to: exchanges stay within one style."""

    __tablename__ = "product_styles"

    sku: Mapped[str] = mapped_column(ForeignKey("products.sku"), primary_key=True)
    style: Mapped[str] = mapped_column(String, index=True)


class PriceChange(Base):
    """One entry of a product's price history: the price from a date on."""

    __tablename__ = "price_history"
    __table_args__ = (
        CheckConstraint("price >= 0", name="price_nonneg"),
        UniqueConstraint("sku", "effective_date", name="sku_date"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sku: Mapped[str] = mapped_column(ForeignKey("products.sku"), index=True)
    effective_date: Mapped[str] = mapped_column(String)
    price: Mapped[float] = mapped_column(Float)
    note: Mapped[str | None] = mapped_column(String, info=TEXT)


class StockAdjustment(Base):
    """A correction of a product's stock outside sales and returns: a count or a write-off."""

    __tablename__ = "stock_adjustments"
    __table_args__ = (
        enum_check("reason_code", STOCK_REASONS),
        CheckConstraint("delta != 0", name="delta_nonzero"),
        CheckConstraint("stock_after >= 0", name="stock_after_nonneg"),
        {"info": {"id_format": "ADJ-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    sku: Mapped[str] = mapped_column(ForeignKey("products.sku"), index=True)
    delta: Mapped[int] = mapped_column(Integer)
    stock_after: Mapped[int] = mapped_column(Integer)
    reason_code: Mapped[str] = mapped_column(String)
    note: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
