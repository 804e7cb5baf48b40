"""Inventory (ERP) tools: warehouses, vendors, items by SKU, stock levels per warehouse (with what is
on order), stock movements (adjustments, shipments, transfers), and purchase orders to vendors
(draft -> submitted -> ordered, or pending approval above the limit -> received, or cancelled).

The rules the tools keep: stock never goes below zero; a closed warehouse takes no stock; an item is
bought from its own vendor, which must be active, and a discontinued item is not bought; a purchase
order changes its lines only as a draft; one totalling over $10,000 waits for the Operations
Manager's or the CEO's approval, and nobody else approves it; goods are received only against an
ordered PO and never beyond what it ordered; a PO with goods received cannot be cancelled."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, literal, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.automation.hr import HrEmployee
from ...schema.automation.inventory import (
    ITEM_STATUSES,
    MOVEMENT_KINDS,
    OPEN_PO_STATUSES,
    PO_STATUSES,
    VENDOR_STATUSES,
    WAREHOUSE_STATUSES,
    InvItem,
    InvMovement,
    InvPoLine,
    InvPurchaseOrder,
    InvStock,
    InvVendor,
    InvWarehouse,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.inventory"
APPROVAL_LIMIT = 10_000.0  # purchase orders above this wait for an approver
APPROVER_TITLES = ("Operations Manager", "CEO")

ItemId = Annotated[str, Field(description="An inventory item id, e.g. ITM-0011 (find it by SKU with inv_list_items)")]
WarehouseId = Annotated[str, Field(description="A warehouse id, e.g. WH-01")]
VendorId = Annotated[str, Field(description="A vendor (supplier) id, e.g. VEN-002")]
PoId = Annotated[str, Field(description="A purchase order number, e.g. PO-0103")]
Units = Annotated[int, Field(ge=1, le=100_000, description="A number of units")]
Cost = Annotated[float, Field(ge=0, le=1_000_000, allow_inf_nan=False, description="Cost of one unit, USD")]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
ItemStatus = Literal[ITEM_STATUSES]  # type: ignore[valid-type]
VendorStatus = Literal[VENDOR_STATUSES]  # type: ignore[valid-type]
WarehouseStatus = Literal[WAREHOUSE_STATUSES]  # type: ignore[valid-type]
MovementKind = Literal[MOVEMENT_KINDS]  # type: ignore[valid-type]
PoStatus = Literal[PO_STATUSES]  # type: ignore[valid-type]
EDITABLE = ("draft",)
RECEIVABLE = OPEN_PO_STATUSES
CANCELLABLE = ("draft", "pending_approval", "ordered")
CLOSED = ("received", "cancelled")

_WAREHOUSES, _VENDORS, _ITEMS = InvWarehouse.__table__, InvVendor.__table__, InvItem.__table__
_STOCK, _MOVES, _POS, _LINES = (
    InvStock.__table__,
    InvMovement.__table__,
    InvPurchaseOrder.__table__,
    InvPoLine.__table__,
)
_EMPLOYEES = HrEmployee.__table__

# units still to arrive on ordered purchase orders, for the stock row's item and warehouse
_ON_ORDER = (
    select(func.coalesce(func.sum(_LINES.c.quantity - _LINES.c.received_qty), 0))
    .select_from(_LINES.join(_POS, _POS.c.id == _LINES.c.po_id))
    .where(
        _LINES.c.item_id == _STOCK.c.item_id,
        _POS.c.warehouse_id == _STOCK.c.warehouse_id,
        _POS.c.status.in_([literal(s) for s in OPEN_PO_STATUSES]),
    )
    .scalar_subquery()
)
ON_ORDER = Statement.of(
    select(func.coalesce(func.sum(_LINES.c.quantity - _LINES.c.received_qty), 0).label("units"))
    .select_from(_LINES.join(_POS, _POS.c.id == _LINES.c.po_id))
    .where(
        _LINES.c.item_id == bindparam("item_id"),
        _POS.c.warehouse_id == bindparam("warehouse_id"),
        _POS.c.status.in_([literal(s) for s in OPEN_PO_STATUSES]),
    )
)
WAREHOUSES = Filtered(select(_WAREHOUSES), (_WAREHOUSES.c.id,), status=_WAREHOUSES.c.status == bindparam("status"))
VENDORS = Filtered(
    select(_VENDORS),
    (_VENDORS.c.name, _VENDORS.c.id),
    query=or_(
        contains(_VENDORS.c.name, "query"),
        contains(_VENDORS.c.email, "query"),
        contains(_VENDORS.c.contact_name, "query"),
    ),
    status=_VENDORS.c.status == bindparam("status"),
)
VENDOR_NAME_TAKEN = Statement.of(
    select(_VENDORS.c.id).where(func.lower(_VENDORS.c.name) == bindparam("name")).order_by(_VENDORS.c.id)
)
ITEMS = Filtered(
    select(_ITEMS),
    (_ITEMS.c.sku, _ITEMS.c.id),
    query=or_(contains(_ITEMS.c.sku, "query"), contains(_ITEMS.c.name, "query")),
    sku=func.lower(_ITEMS.c.sku) == func.lower(bindparam("sku")),
    category=contains(_ITEMS.c.category, "category"),
    vendor_id=_ITEMS.c.vendor_id == bindparam("vendor_id"),
    status=_ITEMS.c.status == bindparam("status"),
)
SKU_TAKEN = Statement.of(select(_ITEMS.c.id).where(func.lower(_ITEMS.c.sku) == bindparam("sku")))
_STOCK_VIEW = select(
    _STOCK.c.item_id,
    _ITEMS.c.sku,
    _ITEMS.c.name.label("item_name"),
    _ITEMS.c.status.label("item_status"),
    _ITEMS.c.vendor_id,
    _STOCK.c.warehouse_id,
    _WAREHOUSES.c.name.label("warehouse_name"),
    _STOCK.c.on_hand,
    _STOCK.c.reorder_point,
    _ON_ORDER.label("on_order"),
    _STOCK.c.bin,
    _STOCK.c.updated_at,
).select_from(
    _STOCK.join(_ITEMS, _ITEMS.c.id == _STOCK.c.item_id).join(_WAREHOUSES, _WAREHOUSES.c.id == _STOCK.c.warehouse_id)
)
STOCK = Filtered(
    _STOCK_VIEW,
    (_STOCK.c.warehouse_id, _ITEMS.c.sku),
    warehouse_id=_STOCK.c.warehouse_id == bindparam("warehouse_id"),
    item_id=_STOCK.c.item_id == bindparam("item_id"),
    sku=or_(contains(_ITEMS.c.sku, "sku"), contains(_ITEMS.c.name, "sku")),
    category=contains(_ITEMS.c.category, "category"),
    vendor_id=_ITEMS.c.vendor_id == bindparam("vendor_id"),
    below_reorder=(_STOCK.c.on_hand + _ON_ORDER) < _STOCK.c.reorder_point,
    in_stock=_STOCK.c.on_hand > 0,
)
ITEM_STOCK = Statement.of(_STOCK_VIEW.where(_STOCK.c.item_id == bindparam("item_id")).order_by(_STOCK.c.warehouse_id))
MOVEMENTS = Filtered(
    select(_MOVES, _ITEMS.c.sku).select_from(_MOVES.join(_ITEMS, _ITEMS.c.id == _MOVES.c.item_id)),
    (_MOVES.c.created_at.desc(), _MOVES.c.id.desc()),
    item_id=_MOVES.c.item_id == bindparam("item_id"),
    warehouse_id=_MOVES.c.warehouse_id == bindparam("warehouse_id"),
    kind=_MOVES.c.kind == bindparam("kind"),
    po_id=_MOVES.c.po_id == bindparam("po_id"),
    reference=contains(_MOVES.c.reference, "reference"),
)
_LINE_VIEW = select(
    _LINES,
    _ITEMS.c.sku,
    _ITEMS.c.name.label("item_name"),
    (_LINES.c.quantity - _LINES.c.received_qty).label("outstanding"),
    func.round(_LINES.c.quantity * _LINES.c.unit_cost, 2).label("amount"),
).select_from(_LINES.join(_ITEMS, _ITEMS.c.id == _LINES.c.item_id))
PO_LINES = Statement.of(_LINE_VIEW.where(_LINES.c.po_id == bindparam("po_id")).order_by(_LINES.c.id))
PO_LINE = Statement.of(_LINE_VIEW.where(_LINES.c.po_id == bindparam("po_id"), _LINES.c.item_id == bindparam("item_id")))
PO_TOTAL = Statement.of(
    select(func.coalesce(func.sum(func.round(_LINES.c.quantity * _LINES.c.unit_cost, 2)), 0.0).label("total")).where(
        _LINES.c.po_id == bindparam("po_id")
    )
)
PO_OUTSTANDING = Statement.of(
    select(func.coalesce(func.sum(_LINES.c.quantity - _LINES.c.received_qty), 0).label("units")).where(
        _LINES.c.po_id == bindparam("po_id")
    )
)
PO_RECEIVED = Statement.of(
    select(func.coalesce(func.sum(_LINES.c.received_qty), 0).label("units")).where(_LINES.c.po_id == bindparam("po_id"))
)
_OPEN_PO = _POS.c.status.not_in([literal(s) for s in CLOSED])
PURCHASE_ORDERS = Filtered(
    select(_POS, _VENDORS.c.name.label("vendor_name")).select_from(
        _POS.join(_VENDORS, _VENDORS.c.id == _POS.c.vendor_id)
    ),
    (_POS.c.id,),
    vendor_id=_POS.c.vendor_id == bindparam("vendor_id"),
    status=_POS.c.status == bindparam("status"),
    warehouse_id=_POS.c.warehouse_id == bindparam("warehouse_id"),
    buyer_email=func.lower(_POS.c.buyer_email) == bindparam("buyer_email"),
    item_id=_POS.c.id.in_(select(_LINES.c.po_id).where(_LINES.c.item_id == bindparam("item_id"))),
    open_only=_OPEN_PO,
)
ITEM_OPEN_LINES = Statement.of(
    select(
        _POS.c.id.label("po_id"),
        _POS.c.status,
        _POS.c.warehouse_id,
        _POS.c.expected_date,
        _LINES.c.quantity,
        _LINES.c.received_qty,
    )
    .select_from(_LINES.join(_POS, _POS.c.id == _LINES.c.po_id))
    .where(_LINES.c.item_id == bindparam("item_id"), _OPEN_PO)
    .order_by(_POS.c.id)
)
VENDOR_OPEN_POS = Statement.of(
    select(_POS.c.id, _POS.c.status, _POS.c.total, _POS.c.expected_date)
    .where(_POS.c.vendor_id == bindparam("vendor_id"), _OPEN_PO)
    .order_by(_POS.c.id)
)
EMPLOYEE = Statement.of(
    select(_EMPLOYEES.c.name, _EMPLOYEES.c.title, _EMPLOYEES.c.status).where(
        func.lower(_EMPLOYEES.c.email) == bindparam("email")
    )
)


class PoLineInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    item_id: str = Field(description="The item id, e.g. ITM-0011")
    quantity: int = Field(ge=1, le=100_000, description="Units to order")
    unit_cost: float | None = Field(
        default=None, ge=0, le=1_000_000, allow_inf_nan=False, description="Cost of one unit, USD (default: the item's)"
    )


class ReceivedLine(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    item_id: str = Field(description="The item id of a line of the purchase order, e.g. ITM-0014")
    quantity: int = Field(ge=1, le=100_000, description="Units that arrived")


# --- lookups -------------------------------------------------------------------------------------


def _today(ctx: ToolContext) -> str:
    return ctx.timestamp[:10]


def _date(text: str, what: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise InvalidArgument(f"{what}: {text!r} is not a valid date (YYYY-MM-DD)", error="invalid_date") from None


def _warehouse(ctx: ToolContext, warehouse_id: str) -> Row:
    return ctx.rows.need(InvWarehouse, warehouse_id, "warehouse")


def _open_warehouse(ctx: ToolContext, warehouse_id: str) -> Row:
    warehouse = _warehouse(ctx, warehouse_id)
    if warehouse["status"] != "active":
        raise Conflict(f"warehouse {warehouse_id} ({warehouse['name']}) is closed", error="warehouse_closed")
    return warehouse


def _vendor(ctx: ToolContext, vendor_id: str) -> Row:
    return ctx.rows.need(InvVendor, vendor_id, "vendor")


def _active_vendor(ctx: ToolContext, vendor_id: str) -> Row:
    vendor = _vendor(ctx, vendor_id)
    if vendor["status"] != "active":
        raise Conflict(f"vendor {vendor_id} ({vendor['name']}) is inactive", error="vendor_inactive")
    return vendor


def _item(ctx: ToolContext, item_id: str) -> Row:
    return ctx.rows.need(InvItem, item_id, "item")


def _orderable(ctx: ToolContext, item_id: str, vendor_id: str) -> Row:
    """An item that may be bought from ``vendor_id``: active, and that vendor's."""
    item = _item(ctx, item_id)
    if item["status"] != "active":
        raise Conflict(
            f"item {item_id} ({item['sku']}) is discontinued and is not reordered", error="item_discontinued"
        )
    if item["vendor_id"] != vendor_id:
        raise Conflict(
            f"item {item_id} ({item['sku']}) is bought from {item['vendor_id']}, not {vendor_id}",
            error="item_not_from_vendor",
        )
    return item


def _po(ctx: ToolContext, po_id: str) -> Row:
    return ctx.rows.need(InvPurchaseOrder, po_id, "purchase order")


def _draft(ctx: ToolContext, po_id: str) -> Row:
    po = _po(ctx, po_id)
    if po["status"] not in EDITABLE:
        raise Conflict(f"{po_id} is {po['status']}; only a draft purchase order changes its lines", error="not_draft")
    return po


def _employee(ctx: ToolContext, email: str) -> Row | None:
    return ctx.rows.one(EMPLOYEE, email=email.lower())


def _stock_row(ctx: ToolContext, item_id: str, warehouse_id: str) -> Row:
    """The item's stock row in the warehouse, made (empty) when it has none yet."""
    found = ctx.rows.get(InvStock, (item_id, warehouse_id))
    if found is None:
        found = {
            "item_id": item_id,
            "warehouse_id": warehouse_id,
            "on_hand": 0,
            "reorder_point": 0,
            "bin": None,
            "updated_at": ctx.timestamp,
        }
        ctx.rows.insert(InvStock, found)
    return found


def _move(
    ctx: ToolContext,
    item: Row,
    warehouse_id: str,
    kind: str,
    quantity: int,
    reference: str | None,
    note: str | None,
    po_id: str | None = None,
) -> Row:
    """Change the item's stock in the warehouse by ``quantity`` and record the movement (never below zero)."""
    stock = _stock_row(ctx, item["id"], warehouse_id)
    left = stock["on_hand"] + quantity
    if left < 0:
        raise Conflict(
            f"only {stock['on_hand']} of {item['sku']} on hand in {warehouse_id}; cannot take {-quantity}",
            error="insufficient_stock",
        )
    ctx.rows.change(InvStock, stock, {"on_hand": left, "updated_at": ctx.timestamp})
    movement = {
        "id": ctx.rows.next_id(InvMovement),
        "item_id": item["id"],
        "warehouse_id": warehouse_id,
        "kind": kind,
        "quantity": quantity,
        "po_id": po_id,
        "reference": reference,
        "note": note,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(InvMovement, movement)
    return {**movement, "sku": item["sku"], "on_hand_after": left}


def _po_view(ctx: ToolContext, po: Row) -> dict[str, Any]:
    vendor = ctx.rows.get(InvVendor, po["vendor_id"])
    warehouse = ctx.rows.get(InvWarehouse, po["warehouse_id"])
    return {
        **po,
        "vendor_name": vendor["name"] if vendor else None,
        "vendor_email": vendor["email"] if vendor else None,
        "warehouse_name": warehouse["name"] if warehouse else None,
        "lines": ctx.rows.all(PO_LINES, po_id=po["id"]),
        "receipts": ctx.rows.all(MOVEMENTS, po_id=po["id"]),
    }


def _retotal(ctx: ToolContext, po: Row) -> None:
    total = round(ctx.rows.value(PO_TOTAL, po_id=po["id"]), 2)
    ctx.rows.change(InvPurchaseOrder, po, {"total": total, "updated_at": ctx.timestamp})


def _is_approver(ctx: ToolContext) -> bool:
    employee = _employee(ctx, me(ctx))
    return employee is not None and employee["status"] != "terminated" and employee["title"] in APPROVER_TITLES


def _ordered(ctx: ToolContext, approved_by: str | None) -> dict[str, Any]:
    changes: dict[str, Any] = {"status": "ordered", "ordered_at": ctx.timestamp, "updated_at": ctx.timestamp}
    if approved_by is not None:
        changes["approved_by"] = approved_by
    return changes


# --- warehouses ----------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/inventory/warehouses")
def inv_list_warehouses(
    ctx: ToolContext,
    status: Annotated[WarehouseStatus | None, Field(description="Only warehouses that are active or closed")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List the warehouses (sites and showrooms that hold stock) with their address and whether they are
    active or closed."""
    return ctx.rows.page(WAREHOUSES, page, per_page, status=status)


# --- items ---------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/inventory/items")
def inv_list_items(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the item's SKU or name, e.g. LP-UMB or 'umbrella'")] = None,
    sku: Annotated[str | None, Field(description="Exactly this SKU, e.g. LP-HW-KIT-B")] = None,
    category: Annotated[str | None, Field(description="Text in the category, e.g. Seating, Parts, Textiles")] = None,
    vendor_id: Annotated[str | None, Field(description="Only items bought from this vendor id")] = None,
    status: Annotated[ItemStatus | None, Field(description="Only active or discontinued items")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """List or search inventory items (products and parts, by SKU) by SKU, name, category, vendor or status."""
    return ctx.rows.page(
        ITEMS, page, per_page, query=query, sku=sku, category=category, vendor_id=vendor_id, status=status
    )


@tool(SERVICE, "GET", "/inventory/items/{item_id}")
def inv_get_item(ctx: ToolContext, item_id: ItemId) -> dict[str, Any]:
    """Get one item (SKU) with its vendor, its stock in every warehouse and the purchase orders still to
    arrive for it."""
    item = _item(ctx, item_id)
    vendor = ctx.rows.get(InvVendor, item["vendor_id"]) if item["vendor_id"] else None
    return {
        **item,
        "vendor_name": vendor["name"] if vendor else None,
        "stock": ctx.rows.all(ITEM_STOCK, item_id=item["id"]),
        "open_purchase_orders": ctx.rows.all(ITEM_OPEN_LINES, item_id=item["id"]),
    }


@tool(SERVICE, "POST", "/inventory/items")
def inv_create_item(
    ctx: ToolContext,
    sku: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9-]{1,39}$", description="The new SKU, e.g. LP-CHS-AL")],
    name: Annotated[Text, Field(description="The product or part name")],
    category: Annotated[Text, Field(description="Its category, e.g. Seating, Dining, Parts")],
    unit_cost: Cost,
    vendor_id: Annotated[str | None, Field(description="The vendor it is bought from (an active vendor)")] = None,
) -> dict[str, Any]:
    """Create an inventory item (a new SKU) with its cost and vendor; a SKU already in use is refused (409)."""
    sku = sku.upper()
    taken = ctx.rows.value(SKU_TAKEN, sku=sku.lower())
    if taken is not None:
        raise Conflict(f"SKU {sku} already belongs to item {taken}", error="duplicate_sku")
    if vendor_id is not None:
        _active_vendor(ctx, vendor_id)
    item = {
        "id": ctx.rows.next_id(InvItem),
        "sku": sku,
        "name": name,
        "category": category,
        "unit_cost": round(unit_cost, 2),
        "vendor_id": vendor_id,
        "status": "active",
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(InvItem, item)
    return item


@tool(SERVICE, "PATCH", "/inventory/items/{item_id}")
def inv_update_item(
    ctx: ToolContext,
    item_id: ItemId,
    name: Annotated[Text | None, Field(description="New name")] = None,
    category: Annotated[Text | None, Field(description="New category")] = None,
    unit_cost: Annotated[Cost | None, Field(description="New standard unit cost, USD")] = None,
    vendor_id: Annotated[str | None, Field(description="New vendor id it is bought from (an active vendor)")] = None,
    status: Annotated[
        ItemStatus | None, Field(description="discontinued to stop reordering it, active to bring it back")
    ] = None,
) -> dict[str, Any]:
    """Update an item's name, category, unit cost or vendor, or discontinue it (an item on a purchase order
    still to arrive cannot be discontinued or change vendor)."""
    item = _item(ctx, item_id)
    if vendor_id is not None:
        _active_vendor(ctx, vendor_id)
    if (status == "discontinued" or (vendor_id is not None and vendor_id != item["vendor_id"])) and ctx.rows.all(
        ITEM_OPEN_LINES, item_id=item["id"]
    ):
        raise Conflict(f"item {item_id} is on an open purchase order", error="item_on_open_order")
    changed = update_given(
        ctx,
        InvItem,
        item,
        name=name,
        category=category,
        unit_cost=None if unit_cost is None else round(unit_cost, 2),
        vendor_id=vendor_id,
        status=status,
    )
    if changed:
        ctx.rows.change(InvItem, item, {"updated_at": ctx.timestamp})
    return item


# --- stock ---------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/inventory/stock")
def inv_list_stock_levels(
    ctx: ToolContext,
    warehouse_id: Annotated[str | None, Field(description="Only stock in this warehouse, e.g. WH-01")] = None,
    item_id: Annotated[str | None, Field(description="Only this item's stock")] = None,
    sku: Annotated[str | None, Field(description="Text in the item's SKU or name")] = None,
    category: Annotated[str | None, Field(description="Text in the item's category")] = None,
    vendor_id: Annotated[str | None, Field(description="Only items bought from this vendor id")] = None,
    below_reorder_only: Annotated[
        bool,
        Field(description="Only low stock: on hand plus on order below the reorder point (what needs reordering)"),
    ] = False,
    in_stock_only: Annotated[bool, Field(description="Only rows with units on hand")] = False,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """List stock levels (inventory on hand) per item and warehouse: units on hand, the reorder point, units on
    order from vendors and the bin; filter by warehouse, item, SKU, category, vendor, or low stock to reorder."""
    return ctx.rows.page(
        STOCK,
        page,
        per_page,
        warehouse_id=warehouse_id,
        item_id=item_id,
        sku=sku,
        category=category,
        vendor_id=vendor_id,
        below_reorder=below_reorder_only or None,
        in_stock=in_stock_only or None,
    )


@tool(SERVICE, "PATCH", "/inventory/stock/{item_id}/{warehouse_id}")
def inv_update_stock_settings(
    ctx: ToolContext,
    item_id: ItemId,
    warehouse_id: WarehouseId,
    reorder_point: Annotated[
        int | None, Field(ge=0, le=100_000, description="New reorder point (minimum stock) in this warehouse")
    ] = None,
    bin: Annotated[Text | None, Field(max_length=40, description="New bin or shelf location, e.g. C-01")] = None,
) -> dict[str, Any]:
    """Set an item's reorder point (minimum stock level) or bin location in one warehouse (not its quantity)."""
    item = _item(ctx, item_id)
    _open_warehouse(ctx, warehouse_id)
    stock = _stock_row(ctx, item["id"], warehouse_id)
    if update_given(ctx, InvStock, stock, reorder_point=reorder_point, bin=bin):
        ctx.rows.change(InvStock, stock, {"updated_at": ctx.timestamp})
    return {**stock, "sku": item["sku"]}


@tool(SERVICE, "POST", "/inventory/stock/adjustments")
def inv_adjust_stock(
    ctx: ToolContext,
    item_id: ItemId,
    warehouse_id: WarehouseId,
    reason: Annotated[
        Text, Field(description="Why the stock changes, e.g. 'Cycle count 2026-09-18' or 'water damage'")
    ],
    change: Annotated[
        int | None, Field(ge=-100_000, le=100_000, description="Units to add (+) or remove (-), e.g. -3 written off")
    ] = None,
    counted: Annotated[
        int | None,
        Field(ge=0, le=100_000, description="Or: the quantity counted on the shelf; the difference is booked"),
    ] = None,
) -> dict[str, Any]:
    """Adjust an item's stock count in a warehouse: correct it after a stock take / cycle count, or write off
    damaged, lost or scrapped units (give the change, or the counted quantity); recorded as a stock movement."""
    if (change is None) == (counted is None):
        raise InvalidArgument("give either change or counted, not both", error="change_or_counted")
    item = _item(ctx, item_id)
    warehouse = _warehouse(ctx, warehouse_id)
    if counted is not None:
        current = ctx.rows.get(InvStock, (item["id"], warehouse_id))
        change = counted - (current["on_hand"] if current else 0)
    if change == 0:
        raise Conflict(
            f"{item['sku']} in {warehouse_id} is already at that count; nothing to adjust", error="no_change"
        )
    if change > 0 and warehouse["status"] != "active":
        raise Conflict(f"warehouse {warehouse_id} ({warehouse['name']}) is closed", error="warehouse_closed")
    return _move(ctx, item, warehouse_id, "adjustment", change, None, reason)


@tool(SERVICE, "POST", "/inventory/stock/shipments")
def inv_ship_stock(
    ctx: ToolContext,
    item_id: ItemId,
    warehouse_id: WarehouseId,
    quantity: Annotated[Units, Field(description="Units shipped out")],
    reference: Annotated[
        Text,
        Field(max_length=100, description="What the shipment is for: order, invoice or ticket number, e.g. HD-1015"),
    ],
    note: Annotated[Text | None, Field(description="Optional note, e.g. who it goes to")] = None,
) -> dict[str, Any]:
    """Ship or issue units of an item out of a warehouse to a customer (an order, a replacement part for a support
    ticket); takes them off the stock on hand. More than is on hand is refused (409)."""
    item = _item(ctx, item_id)
    _open_warehouse(ctx, warehouse_id)
    return _move(ctx, item, warehouse_id, "shipment", -quantity, reference, note)


@tool(SERVICE, "POST", "/inventory/stock/transfers")
def inv_transfer_stock(
    ctx: ToolContext,
    item_id: ItemId,
    from_warehouse_id: Annotated[str, Field(description="The warehouse the units leave, e.g. WH-01")],
    to_warehouse_id: Annotated[str, Field(description="The warehouse they go to, e.g. WH-02 (must be active)")],
    quantity: Annotated[Units, Field(description="Units moved")],
    note: Annotated[Text | None, Field(description="Optional note, e.g. 'Riverside move, load 2'")] = None,
) -> dict[str, Any]:
    """Transfer (move) units of an item from one warehouse to another: one movement out, one in."""
    if from_warehouse_id == to_warehouse_id:
        raise InvalidArgument("the two warehouses are the same", error="same_warehouse")
    item = _item(ctx, item_id)
    _warehouse(ctx, from_warehouse_id)
    _open_warehouse(ctx, to_warehouse_id)
    out = _move(ctx, item, from_warehouse_id, "transfer_out", -quantity, None, note)
    into = _move(ctx, item, to_warehouse_id, "transfer_in", quantity, None, note)
    return {"item_id": item["id"], "sku": item["sku"], "quantity": quantity, "movements": [out, into]}


@tool(SERVICE, "GET", "/inventory/movements")
def inv_list_stock_movements(
    ctx: ToolContext,
    item_id: Annotated[str | None, Field(description="Only this item's movements")] = None,
    warehouse_id: Annotated[str | None, Field(description="Only movements in this warehouse")] = None,
    kind: Annotated[
        MovementKind | None,
        Field(description="Only receipt, shipment, adjustment, transfer_out or transfer_in movements"),
    ] = None,
    po_id: Annotated[str | None, Field(description="Only receipts of this purchase order")] = None,
    reference: Annotated[str | None, Field(description="Text in the reference (delivery note, ticket, order)")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """List stock movements (the inventory history: receipts, shipments, adjustments, transfers), newest first."""
    return ctx.rows.page(
        MOVEMENTS,
        page,
        per_page,
        item_id=item_id,
        warehouse_id=warehouse_id,
        kind=kind,
        po_id=po_id,
        reference=reference,
    )


# --- vendors -------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/inventory/vendors")
def inv_list_vendors(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the vendor's name, contact or email")] = None,
    status: Annotated[VendorStatus | None, Field(description="Only active or inactive vendors")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search vendors (suppliers we buy from) by name, contact person, email or status."""
    return ctx.rows.page(VENDORS, page, per_page, query=query, status=status)


@tool(SERVICE, "GET", "/inventory/vendors/{vendor_id}")
def inv_get_vendor(ctx: ToolContext, vendor_id: VendorId) -> dict[str, Any]:
    """Get one vendor (supplier) with the items bought from it and its purchase orders in progress."""
    vendor = _vendor(ctx, vendor_id)
    items = ctx.rows.find(InvItem, ("sku",), vendor_id=vendor["id"])
    return {
        **vendor,
        "items": [{k: i[k] for k in ("id", "sku", "name", "unit_cost", "status")} for i in items],
        "open_purchase_orders": ctx.rows.all(VENDOR_OPEN_POS, vendor_id=vendor["id"]),
    }


@tool(SERVICE, "POST", "/inventory/vendors")
def inv_create_vendor(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The supplier's company name (unique)")],
    email: Annotated[Email, Field(description="Where purchase orders are sent")],
    contact_name: Annotated[Text | None, Field(description="The contact person")] = None,
    phone: Annotated[Text | None, Field(description="Phone number")] = None,
    payment_terms_days: Annotated[int, Field(ge=0, le=120, description="Days we have to pay its bills")] = 30,
    lead_time_days: Annotated[int, Field(ge=0, le=365, description="Days from order to delivery")] = 14,
    notes: Annotated[Text | None, Field(description="What they supply, anything to know")] = None,
) -> dict[str, Any]:
    """Create (onboard) a vendor, a supplier we buy from; a name already in use is refused (409)."""
    taken = ctx.rows.value(VENDOR_NAME_TAKEN, name=name.lower())
    if taken is not None:
        raise Conflict(f"a vendor named {name!r} already exists ({taken})", error="duplicate_vendor")
    vendor = {
        "id": ctx.rows.next_id(InvVendor),
        "name": name,
        "contact_name": contact_name,
        "email": email.lower(),
        "phone": phone,
        "payment_terms_days": payment_terms_days,
        "lead_time_days": lead_time_days,
        "status": "active",
        "notes": notes,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(InvVendor, vendor)
    return vendor


@tool(SERVICE, "PATCH", "/inventory/vendors/{vendor_id}")
def inv_update_vendor(
    ctx: ToolContext,
    vendor_id: VendorId,
    contact_name: Annotated[Text | None, Field(description="New contact person")] = None,
    email: Annotated[Email | None, Field(description="New email for purchase orders")] = None,
    phone: Annotated[Text | None, Field(description="New phone number")] = None,
    payment_terms_days: Annotated[int | None, Field(ge=0, le=120, description="New payment terms, days")] = None,
    lead_time_days: Annotated[int | None, Field(ge=0, le=365, description="New lead time, days")] = None,
    status: Annotated[VendorStatus | None, Field(description="inactive to stop buying from it, or active")] = None,
    notes: Annotated[Text | None, Field(description="New notes (replace the old ones)")] = None,
) -> dict[str, Any]:
    """Update a vendor's contact, email, phone, payment terms, lead time or notes, or deactivate it (a vendor
    with purchase orders in progress cannot be deactivated)."""
    vendor = _vendor(ctx, vendor_id)
    if status == "inactive" and ctx.rows.all(VENDOR_OPEN_POS, vendor_id=vendor["id"]):
        raise Conflict(f"vendor {vendor_id} has open purchase orders", error="vendor_has_open_orders")
    update_given(
        ctx,
        InvVendor,
        vendor,
        contact_name=contact_name,
        email=None if email is None else email.lower(),
        phone=phone,
        payment_terms_days=payment_terms_days,
        lead_time_days=lead_time_days,
        status=status,
        notes=notes,
    )
    return vendor


# --- purchase orders -----------------------------------------------------------------------------


@tool(SERVICE, "GET", "/inventory/purchase-orders")
def inv_list_purchase_orders(
    ctx: ToolContext,
    vendor_id: Annotated[str | None, Field(description="Only orders to this vendor id")] = None,
    status: Annotated[PoStatus | None, Field(description="Only orders in this status")] = None,
    warehouse_id: Annotated[str | None, Field(description="Only orders delivered to this warehouse")] = None,
    item_id: Annotated[str | None, Field(description="Only orders with a line for this item")] = None,
    buyer_email: Annotated[str | None, Field(description="Only orders owned by this buyer (employee email)")] = None,
    open_only: Annotated[bool, Field(description="Only orders not yet received nor cancelled")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search purchase orders (POs to suppliers) by vendor, status, warehouse, item or buyer, or
    those still in progress."""
    return ctx.rows.page(
        PURCHASE_ORDERS,
        page,
        per_page,
        vendor_id=vendor_id,
        status=status,
        warehouse_id=warehouse_id,
        item_id=item_id,
        buyer_email=None if buyer_email is None else buyer_email.lower(),
        open_only=open_only or None,
    )


@tool(SERVICE, "GET", "/inventory/purchase-orders/{po_id}")
def inv_get_purchase_order(ctx: ToolContext, po_id: PoId) -> dict[str, Any]:
    """Get one purchase order in full: its lines (ordered, received, outstanding) and the receipts booked on it."""
    return _po_view(ctx, _po(ctx, po_id))


@tool(SERVICE, "POST", "/inventory/purchase-orders")
def inv_create_purchase_order(
    ctx: ToolContext,
    vendor_id: VendorId,
    warehouse_id: Annotated[str, Field(description="The warehouse it is delivered to, e.g. WH-01")],
    lines: Annotated[list[PoLineInput], Field(min_length=1, max_length=50, description="The items ordered")],
    expected_date: Annotated[Day | None, Field(description="Expected delivery date (default: lead time)")] = None,
    notes: Annotated[Text | None, Field(description="Notes for the order")] = None,
    buyer_email: Annotated[
        Email | None, Field(description="The buyer who owns it (employee email); default you")
    ] = None,
) -> dict[str, Any]:
    """Create a draft purchase order (PO) to a vendor with its lines: each item bought from that vendor, at the
    item's cost unless given; the total is computed. Submit it to send it."""
    _active_vendor(ctx, vendor_id)
    _open_warehouse(ctx, warehouse_id)
    seen = [line.item_id for line in lines]
    if len(set(seen)) != len(seen):
        raise InvalidArgument("an item appears on two lines; give each item once", error="duplicate_item")
    items = [_orderable(ctx, line.item_id, vendor_id) for line in lines]
    buyer = _buyer(ctx, buyer_email)
    po = {
        "id": ctx.rows.next_id(InvPurchaseOrder),
        "vendor_id": vendor_id,
        "warehouse_id": warehouse_id,
        "status": "draft",
        "buyer_email": buyer,
        "total": 0.0,
        "expected_date": None if expected_date is None else _date(expected_date, "expected_date"),
        "notes": notes,
        "submitted_at": None,
        "approved_by": None,
        "ordered_at": None,
        "cancel_reason": None,
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(InvPurchaseOrder, po)
    for line, item in zip(lines, items, strict=True):
        cost = item["unit_cost"] if line.unit_cost is None else line.unit_cost
        ctx.rows.insert(
            InvPoLine,
            {
                "id": ctx.rows.next_id(InvPoLine),
                "po_id": po["id"],
                "item_id": item["id"],
                "quantity": line.quantity,
                "unit_cost": round(cost, 2),
                "received_qty": 0,
            },
        )
    _retotal(ctx, po)
    return _po_view(ctx, po)


def _buyer(ctx: ToolContext, email: str | None) -> str:
    buyer = (email or me(ctx)).lower()
    employee = _employee(ctx, buyer)
    if employee is None or employee["status"] == "terminated":
        raise InvalidArgument(f"{buyer} is not a current employee", error="unknown_employee")
    return buyer


@tool(SERVICE, "PUT", "/inventory/purchase-orders/{po_id}/lines/{item_id}")
def inv_set_purchase_order_line(
    ctx: ToolContext,
    po_id: PoId,
    item_id: ItemId,
    quantity: Annotated[int, Field(ge=0, le=100_000, description="Units to order; 0 removes the item")],
    unit_cost: Annotated[
        Cost | None, Field(description="Cost of one unit (default: the line's, else the item's)")
    ] = None,
) -> dict[str, Any]:
    """Add an item to a draft purchase order, change its quantity or unit cost, or remove it (quantity 0)."""
    po = _draft(ctx, po_id)
    line = ctx.rows.one(PO_LINE, po_id=po["id"], item_id=item_id)
    if quantity == 0:
        if line is None:
            raise NotFound(f"{po_id} has no line for item {item_id}")
        ctx.rows.delete(InvPoLine, line["id"])
    elif line is None:
        item = _orderable(ctx, item_id, po["vendor_id"])
        cost = item["unit_cost"] if unit_cost is None else unit_cost
        row = {
            "id": ctx.rows.next_id(InvPoLine),
            "po_id": po["id"],
            "item_id": item["id"],
            "quantity": quantity,
            "unit_cost": round(cost, 2),
            "received_qty": 0,
        }
        ctx.rows.insert(InvPoLine, row)
    else:
        stored = ctx.rows.need(InvPoLine, line["id"])
        changes: dict[str, Any] = {"quantity": quantity}
        if unit_cost is not None:
            changes["unit_cost"] = round(unit_cost, 2)
        ctx.rows.change(InvPoLine, stored, changes)
    _retotal(ctx, po)
    return _po_view(ctx, po)


@tool(SERVICE, "PATCH", "/inventory/purchase-orders/{po_id}")
def inv_update_purchase_order(
    ctx: ToolContext,
    po_id: PoId,
    expected_date: Annotated[Day | None, Field(description="New expected delivery date")] = None,
    notes: Annotated[Text | None, Field(description="New notes (replace the old ones)")] = None,
    buyer_email: Annotated[Email | None, Field(description="Hand the order to another buyer (employee email)")] = None,
) -> dict[str, Any]:
    """Update a purchase order's expected delivery date, notes or buyer (a received or cancelled order takes
    notes only)."""
    po = _po(ctx, po_id)
    if po["status"] in CLOSED and (expected_date is not None or buyer_email is not None):
        raise Conflict(f"{po_id} is {po['status']}; only its notes can change", error="po_closed")
    changed = update_given(
        ctx,
        InvPurchaseOrder,
        po,
        expected_date=None if expected_date is None else _date(expected_date, "expected_date"),
        notes=notes,
        buyer_email=None if buyer_email is None else _buyer(ctx, buyer_email),
    )
    if changed:
        ctx.rows.change(InvPurchaseOrder, po, {"updated_at": ctx.timestamp})
    return _po_view(ctx, po)


@tool(SERVICE, "POST", "/inventory/purchase-orders/{po_id}/submit")
def inv_submit_purchase_order(ctx: ToolContext, po_id: PoId) -> dict[str, Any]:
    """Submit (place) a draft purchase order with the vendor: it is ordered at once, or, when it totals over
    $10,000 and you are not the Operations Manager or the CEO, it waits for their sign-off first."""
    po = _draft(ctx, po_id)
    if not ctx.rows.count(InvPoLine, po_id=po["id"]):
        raise Conflict(f"{po_id} has no lines; add items before submitting", error="empty_po")
    vendor = _active_vendor(ctx, po["vendor_id"])
    _open_warehouse(ctx, po["warehouse_id"])
    changes: dict[str, Any] = {"submitted_at": ctx.timestamp, "updated_at": ctx.timestamp}
    if po["expected_date"] is None:
        changes["expected_date"] = (
            date.fromisoformat(_today(ctx)) + timedelta(days=vendor["lead_time_days"])
        ).isoformat()
    if po["total"] <= APPROVAL_LIMIT:
        changes.update(_ordered(ctx, None))
    elif _is_approver(ctx):
        changes.update(_ordered(ctx, me(ctx)))
    else:
        changes["status"] = "pending_approval"
    ctx.rows.change(InvPurchaseOrder, po, changes)
    return _po_view(ctx, po)


@tool(SERVICE, "POST", "/inventory/purchase-orders/{po_id}/approve")
def inv_approve_purchase_order(ctx: ToolContext, po_id: PoId) -> dict[str, Any]:
    """Approve a purchase order that waits for sign-off (over $10,000), which orders it from the vendor; only the
    Operations Manager or the CEO may sign it off (403 for anyone else)."""
    po = _po(ctx, po_id)
    if po["status"] != "pending_approval":
        raise Conflict(f"{po_id} is {po['status']}, not waiting for approval", error="not_pending_approval")
    if not _is_approver(ctx):
        raise Forbidden(
            f"purchase orders over ${APPROVAL_LIMIT:,.0f} are approved only by the Operations Manager or the CEO",
            error="not_an_approver",
        )
    ctx.rows.change(InvPurchaseOrder, po, _ordered(ctx, me(ctx)))
    return _po_view(ctx, po)


@tool(SERVICE, "POST", "/inventory/purchase-orders/{po_id}/receive")
def inv_receive_purchase_order(
    ctx: ToolContext,
    po_id: PoId,
    lines: Annotated[list[ReceivedLine], Field(min_length=1, max_length=50, description="What arrived, item by item")],
    reference: Annotated[
        Text, Field(max_length=100, description="The vendor's delivery note or packing list number, e.g. SW-2231")
    ],
    note: Annotated[Text | None, Field(description="Optional note, e.g. what is still back-ordered")] = None,
) -> dict[str, Any]:
    """Receive goods (a vendor delivery) against an ordered purchase order: each item's units are added to the
    PO's warehouse stock as a receipt; the PO becomes partially_received or received. Receiving more than is
    still outstanding on a line is refused (409)."""
    po = _po(ctx, po_id)
    if po["status"] not in RECEIVABLE:
        raise Conflict(f"{po_id} is {po['status']}; goods are received only on an ordered PO", error="not_receivable")
    _open_warehouse(ctx, po["warehouse_id"])
    seen = [line.item_id for line in lines]
    if len(set(seen)) != len(seen):
        raise InvalidArgument("an item appears twice; give each item once", error="duplicate_item")
    planned = []
    for received in lines:
        line = ctx.rows.one(PO_LINE, po_id=po["id"], item_id=received.item_id)
        if line is None:
            raise InvalidArgument(f"{po_id} has no line for item {received.item_id}", error="item_not_on_po")
        if received.quantity > line["outstanding"]:
            raise Conflict(
                f"{po_id} has {line['outstanding']} of {line['sku']} outstanding; cannot receive {received.quantity}",
                error="over_receipt",
            )
        planned.append((line, received.quantity))
    movements = []
    for line, quantity in planned:
        stored = ctx.rows.need(InvPoLine, line["id"])
        ctx.rows.change(InvPoLine, stored, {"received_qty": stored["received_qty"] + quantity})
        item = _item(ctx, line["item_id"])
        movements.append(_move(ctx, item, po["warehouse_id"], "receipt", quantity, reference, note, po["id"]))
    left = ctx.rows.value(PO_OUTSTANDING, po_id=po["id"])
    status = "received" if left == 0 else "partially_received"
    ctx.rows.change(InvPurchaseOrder, po, {"status": status, "updated_at": ctx.timestamp})
    return {**_po_view(ctx, po), "received": movements}


@tool(SERVICE, "POST", "/inventory/purchase-orders/{po_id}/cancel")
def inv_cancel_purchase_order(
    ctx: ToolContext,
    po_id: PoId,
    reason: Annotated[Text, Field(description="Why the order is cancelled")],
) -> dict[str, Any]:
    """Cancel a purchase order that nothing has been received on (draft, awaiting sign-off, or ordered)."""
    po = _po(ctx, po_id)
    if po["status"] not in CANCELLABLE:
        error = "has_receipts" if ctx.rows.value(PO_RECEIVED, po_id=po["id"]) else "po_closed"
        raise Conflict(f"{po_id} is {po['status']} and cannot be cancelled", error=error)
    ctx.rows.change(InvPurchaseOrder, po, {"status": "cancelled", "cancel_reason": reason, "updated_at": ctx.timestamp})
    return _po_view(ctx, po)
