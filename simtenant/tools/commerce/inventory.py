"""Inventory service tools: products, stock levels and price history."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import select

from ...errors import Conflict, InvalidArgument
from ...schema.commerce.inventory import PriceChange, Product
from ..engine.dispatch import ToolContext, row_dict
from ..engine.registry import tool

Sku = Annotated[str, Field(description="The product SKU, e.g. SKU-445")]


@tool("inventory", "GET", "/inventory/lookup")
def inventory_lookup(ctx: ToolContext, sku: Sku) -> Any:
    """Look up a product by SKU: name, category, current and list price, stock."""
    return row_dict(ctx.get(Product, sku, "product"))


@tool("inventory", "GET", "/inventory/check-stock")
def inventory_check_stock(ctx: ToolContext, sku: Sku) -> Any:
    """Current stock level of a product."""
    product = ctx.get(Product, sku, "product")
    return {"sku": sku, "stock": product.stock, "in_stock": product.stock > 0}


@tool("inventory", "GET", "/inventory/price-history")
def inventory_price_history(ctx: ToolContext, sku: Sku) -> Any:
    """A product's price changes, oldest first: each price holds from its effective date on."""
    ctx.get(Product, sku, "product")
    changes = ctx.session.scalars(
        select(PriceChange).where(PriceChange.sku == sku).order_by(PriceChange.effective_date)
    )
    return {
        "sku": sku,
        "history": [{k: v for k, v in row_dict(c).items() if k not in ("id", "sku")} for c in changes],
    }


@tool("inventory", "POST", "/inventory/update-stock")
def inventory_update_stock(
    ctx: ToolContext,
    sku: Sku,
    adjustment: Annotated[int, Field(description="Units to add (positive) or remove (negative); not zero")],
) -> Any:
    """Adjust a product's stock by a number of units; stock never goes below zero."""
    if adjustment == 0:
        raise InvalidArgument("adjustment must not be zero", error="invalid_value")
    product = ctx.get(Product, sku, "product")
    if product.stock + adjustment < 0:
        raise Conflict(
            f"only {product.stock} units of {sku} in stock; cannot remove {-adjustment}",
            error="insufficient_stock",
        )
    product.stock += adjustment
    return {"sku": sku, "previous_stock": product.stock - adjustment, "stock": product.stock}
