"""Inventory (ERP): warehouses, vendors, items by SKU, stock levels per item and warehouse with the
movements that changed them, and purchase orders to vendors with their lines and what was received."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

WAREHOUSE_STATUSES = ("active", "closed")
VENDOR_STATUSES = ("active", "inactive")
ITEM_STATUSES = ("active", "discontinued")
MOVEMENT_KINDS = ("receipt", "shipment", "adjustment", "transfer_out", "transfer_in")
PO_STATUSES = ("draft", "pending_approval", "ordered", "partially_received", "received", "cancelled")
OPEN_PO_STATUSES = ("ordered", "partially_received")  # sent to the vendor, still awaiting goods: "on order"


class InvWarehouse(Base):
    """A site that holds stock; a closed one takes no new stock."""

    __tablename__ = "inv_warehouses"
    __table_args__ = (enum_check("status", WAREHOUSE_STATUSES), {"info": {"id_format": "WH-{:02d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    address: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="active")
    created_at: Mapped[str] = mapped_column(String)


class InvVendor(Base):
    """A supplier the company buys items from."""

    __tablename__ = "inv_vendors"
    __table_args__ = (
        enum_check("status", VENDOR_STATUSES),
        CheckConstraint("payment_terms_days BETWEEN 0 AND 120", name="payment_terms_range"),
        CheckConstraint("lead_time_days BETWEEN 0 AND 365", name="lead_time_range"),
        {"info": {"id_format": "VEN-{:03d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    contact_name: Mapped[str | None] = mapped_column(String)
    email: Mapped[str] = mapped_column(String)  # where purchase orders go
    phone: Mapped[str | None] = mapped_column(String)
    payment_terms_days: Mapped[int] = mapped_column(Integer, default=30)
    lead_time_days: Mapped[int] = mapped_column(Integer, default=14)
    status: Mapped[str] = mapped_column(String, default="active")
    notes: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)


class InvItem(Base):
    """A stocked product or part, known by its SKU, with its standard cost and preferred vendor."""

    __tablename__ = "inv_items"
    __table_args__ = (
        enum_check("status", ITEM_STATUSES),
        CheckConstraint("unit_cost >= 0", name="unit_cost_nonneg"),
        {"info": {"id_format": "ITM-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    sku: Mapped[str] = mapped_column(String, unique=True)
    name: Mapped[str] = mapped_column(String)
    category: Mapped[str] = mapped_column(String)
    unit_cost: Mapped[float] = mapped_column(Float)
    vendor_id: Mapped[str | None] = mapped_column(ForeignKey("inv_vendors.id"), index=True)
    status: Mapped[str] = mapped_column(String, default="active")
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class InvStock(Base):
    """An item's stock in one warehouse: units on hand, the reorder point and the bin it sits in."""

    __tablename__ = "inv_stock"
    __table_args__ = (
        CheckConstraint("on_hand >= 0", name="on_hand_nonneg"),
        CheckConstraint("reorder_point >= 0", name="reorder_point_nonneg"),
    )

    item_id: Mapped[str] = mapped_column(ForeignKey("inv_items.id"), primary_key=True)
    warehouse_id: Mapped[str] = mapped_column(ForeignKey("inv_warehouses.id"), primary_key=True, index=True)
    on_hand: Mapped[int] = mapped_column(Integer, default=0)
    reorder_point: Mapped[int] = mapped_column(Integer, default=0)
    bin: Mapped[str | None] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class InvMovement(Base):
    """One change of an item's stock in a warehouse (signed quantity), with why it happened."""

    __tablename__ = "inv_movements"
    __table_args__ = (
        enum_check("kind", MOVEMENT_KINDS),
        CheckConstraint("quantity != 0", name="quantity_nonzero"),
        {"info": {"id_format": "MOV-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    item_id: Mapped[str] = mapped_column(ForeignKey("inv_items.id"), index=True)
    warehouse_id: Mapped[str] = mapped_column(ForeignKey("inv_warehouses.id"))
    kind: Mapped[str] = mapped_column(String)
    quantity: Mapped[int] = mapped_column(Integer)  # + into the warehouse, - out of it
    po_id: Mapped[str | None] = mapped_column(ForeignKey("inv_purchase_orders.id"), index=True)
    reference: Mapped[str | None] = mapped_column(String, info=TEXT)  # delivery note, ticket, order number
    note: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)


class InvPurchaseOrder(Base):
    """An order to a vendor, delivered to one warehouse: draft -> (pending_approval ->) ordered ->
    partially_received -> received, or cancelled before anything arrives."""

    __tablename__ = "inv_purchase_orders"
    __table_args__ = (
        enum_check("status", PO_STATUSES),
        CheckConstraint("total >= 0", name="total_nonneg"),
        {"info": {"id_format": "PO-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    vendor_id: Mapped[str] = mapped_column(ForeignKey("inv_vendors.id"), index=True)
    warehouse_id: Mapped[str] = mapped_column(ForeignKey("inv_warehouses.id"))
    status: Mapped[str] = mapped_column(String, default="draft")
    buyer_email: Mapped[str] = mapped_column(String, index=True)  # the employee who owns the order
    total: Mapped[float] = mapped_column(Float, default=0.0)
    expected_date: Mapped[str | None] = mapped_column(String)
    notes: Mapped[str | None] = mapped_column(Text, info=TEXT)
    submitted_at: Mapped[str | None] = mapped_column(String)
    approved_by: Mapped[str | None] = mapped_column(String)
    ordered_at: Mapped[str | None] = mapped_column(String)
    cancel_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class InvPoLine(Base):
    """One item of a purchase order: the quantity ordered, its unit cost and how many have arrived."""

    __tablename__ = "inv_po_lines"
    __table_args__ = (
        CheckConstraint("quantity > 0", name="quantity_positive"),
        CheckConstraint("unit_cost >= 0", name="unit_cost_nonneg"),
        CheckConstraint("received_qty >= 0 AND received_qty <= quantity", name="received_range"),
        UniqueConstraint("po_id", "item_id", name="po_item"),
        {"info": {"id_format": "POL-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    po_id: Mapped[str] = mapped_column(ForeignKey("inv_purchase_orders.id"), index=True)
    item_id: Mapped[str] = mapped_column(ForeignKey("inv_items.id"))
    quantity: Mapped[int] = mapped_column(Integer)
    unit_cost: Mapped[float] = mapped_column(Float)
    received_qty: Mapped[int] = mapped_column(Integer, default=0)
