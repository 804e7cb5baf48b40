"""Inventory service: the product catalogue, stock levels and price history."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Float, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base


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
