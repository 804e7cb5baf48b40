"""Inventory service tools: products, stock levels and price history."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ...errors import Conflict, InvalidArgument
from ...schema.commerce.inventory import PriceChange, Product
from ..engine.dispatch import ToolContext
from ..engine.registry import tool

Sku = Annotated[str, Field(description="The product SKU, e.g. SKU-445")]


@tool("inventory", "GET", "/inventory/lookup")
def inventory_lookup(ctx: ToolContext, sku: Sku) -> Any:
    """Look up a product by SKU: name, category, current and list price, stock."""
    return ctx.rows.need(Product, sku, "product")


@tool("inventory", "GET", "/inventory/check-stock")
def inventory_check_stock(ctx: ToolContext, sku: Sku) -> Any:
    """Current stock level of a product."""
    stock = ctx.rows.need(Product, sku, "product")["stock"]
    return {"sku": sku, "stock": stock, "in_stock": stock > 0}


@tool("inventory", "GET", "/inventory/price-history")
def inventory_price_history(ctx: ToolContext, sku: Sku) -> Any:
    """A product's price changes, oldest first: each price holds from its effective date on."""
    ctx.rows.need(Product, sku, "product")
    changes = ctx.rows.find(PriceChange, ("effective_date",), sku=sku)
    return {"sku": sku, "history": [{k: v for k, v in c.items() if k not in ("id", "sku")} for c in changes]}


@tool("inventory", "POST", "/inventory/update-stock")
def inventory_update_stock(
    ctx: ToolContext,
    sku: Sku,
    adjustment: Annotated[int, Field(description="Units to add (positive) or remove (negative); not zero")],
) -> Any:
    """Adjust a product's stock by a number of units; stock never goes below zero."""
    if adjustment == 0:
        raise InvalidArgument("adjustment must not be zero", error="invalid_value")
    stock = ctx.rows.need(Product, sku, "product")["stock"]
    if stock + adjustment < 0:
        raise Conflict(
            f"only {stock} units of {sku} in stock; cannot remove {-adjustment}",
            error="insufficient_stock",
        )
    ctx.rows.update(Product, sku, {"stock": stock + adjustment})
    return {"sku": sku, "previous_stock": stock, "stock": stock + adjustment}
