"""Inventory service tools: products, their variants, stock levels, price history and stock corrections."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, select

from ...errors import Conflict, Forbidden, InvalidArgument
from ...schema.commerce.inventory import STOCK_REASONS, PriceChange, Product, ProductStyle, StockAdjustment
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Statement, contains

Sku = Annotated[str, Field(description="The product SKU, e.g. SKU-445")]
WriteOffReason = Literal[tuple(r for r in STOCK_REASONS if r != "cycle_count")]  # type: ignore[valid-type]
RECOUNT_THRESHOLD = 20  # a count that moves stock by more than this needs a supervisor's recount
_PRODUCTS, _STYLES = Product.__table__, ProductStyle.__table__
PRODUCTS = Filtered(
    select(_PRODUCTS),
    (_PRODUCTS.c.name, _PRODUCTS.c.sku),
    query=contains(_PRODUCTS.c.name, "query"),
    category=_PRODUCTS.c.category == bindparam("category"),
)
VARIANTS = Statement.of(
    select(_PRODUCTS)
    .join(_STYLES, _STYLES.c.sku == _PRODUCTS.c.sku)
    .where(_STYLES.c.style == bindparam("style"))
    .order_by(_PRODUCTS.c.sku)
)


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


# --- finding products, their variants, and correcting stock --------------------------------------


@tool("inventory", "GET", "/inventory/search")
def inventory_search(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the product's name, e.g. 'table lamp'")] = None,
    category: Annotated[str | None, Field(description="Only this category, e.g. kitchen, home, apparel")] = None,
    page: Annotated[int, Field(ge=1, description="Page number, from 1")] = 1,
    per_page: Annotated[int, Field(ge=1, le=20, description="Products per page, at most 20")] = 20,
) -> Any:
    """Find products by a text in their name and by category, with price and stock, by name."""
    found = ctx.rows.page(PRODUCTS, page, per_page, query=None if query is None else query.strip(), category=category)
    return {"page": page, "per_page": per_page, "total": found["total"], "products": found["rows"]}


@tool("inventory", "GET", "/inventory/variants")
def inventory_variants(ctx: ToolContext, sku: Sku) -> Any:
    """The other sizes or colours of a product (its style), with their price and stock: what it can be
    exchanged for."""
    product = ctx.rows.need(Product, sku, "product")
    style = ctx.rows.get(ProductStyle, sku)
    variants = [] if style is None else ctx.rows.all(VARIANTS, style=style["style"])
    return {
        "sku": sku,
        "name": product["name"],
        "style": None if style is None else style["style"],
        "variants": [v for v in variants if v["sku"] != sku],
    }


@tool("inventory", "GET", "/inventory/stock-ledger")
def inventory_stock_ledger(ctx: ToolContext, sku: Sku) -> Any:
    """A product's stock corrections (counts and write-offs), newest first, with its current stock."""
    product = ctx.rows.need(Product, sku, "product")
    entries = ctx.rows.find(StockAdjustment, ("created_at", "id"), sku=sku)
    return {"sku": sku, "stock": product["stock"], "adjustments": [e for e in reversed(entries)]}


def _ledger(ctx: ToolContext, product: dict[str, Any], delta: int, reason_code: str, note: str | None) -> Any:
    stock = product["stock"] + delta
    entry = {
        "id": ctx.rows.next_id(StockAdjustment),
        "sku": product["sku"],
        "delta": delta,
        "stock_after": stock,
        "reason_code": reason_code,
        "note": note,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(StockAdjustment, entry)
    ctx.rows.update(Product, product["sku"], {"stock": stock})
    return {**entry, "previous_stock": product["stock"]}


@tool("inventory", "POST", "/inventory/record-count")
def inventory_record_count(
    ctx: ToolContext,
    sku: Sku,
    counted: Annotated[int, Field(ge=0, le=100_000, description="The units counted on the shelf")],
    note: Annotated[Text | None, Field(description="Where and by whom it was counted, if known")] = None,
) -> Any:
    """Record a stock count: the stock becomes the units counted, and the difference goes in the stock ledger.
    A difference of more than 20 units is not entered: it needs a supervisor's recount first."""
    product = ctx.rows.need(Product, sku, "product")
    delta = counted - product["stock"]
    if delta == 0:
        raise Conflict(f"{sku} already shows {counted} in stock: nothing to correct", error="no_difference")
    if abs(delta) > RECOUNT_THRESHOLD:
        raise Forbidden(
            f"the count differs from the {product['stock']} units on record by {abs(delta)} (more than "
            f"{RECOUNT_THRESHOLD}): a supervisor must recount before it is entered",
            error="recount_required",
        )
    return _ledger(ctx, product, delta, "cycle_count", note)


@tool("inventory", "POST", "/inventory/write-off")
def inventory_write_off(
    ctx: ToolContext,
    sku: Sku,
    quantity: Annotated[int, Field(ge=1, le=100_000, description="Units taken out of stock")],
    reason_code: Annotated[WriteOffReason, Field(description="Why the units are written off")],
    note: Annotated[Text, Field(description="What happened to them, in a sentence")],
) -> Any:
    """Write units off stock (damaged, expired, lost or recalled), recorded in the stock ledger; never more
    than are in stock."""
    product = ctx.rows.need(Product, sku, "product")
    if quantity > product["stock"]:
        raise Conflict(
            f"only {product['stock']} units of {sku} in stock; cannot write off {quantity} (count the shelf first)",
            error="insufficient_stock",
        )
    return _ledger(ctx, product, -quantity, reason_code, note)
