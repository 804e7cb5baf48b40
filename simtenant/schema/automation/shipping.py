"""Shipping: the carriers the warehouse ships with (their services and contract rates), shipments
(labels bought for shop orders, returns and anything else the company sends), their packages, the
carriers' tracking events and claims for lost or damaged shipments."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import IGNORE, TEXT, Base, enum_check

CARRIER_MODES = ("parcel", "freight")
CARRIER_STATUSES = ("active", "inactive")
SERVICES = ("ground", "express", "freight")
SHIPMENT_STATUSES = (
    "label_created",
    "in_transit",
    "out_for_delivery",
    "delivered",
    "exception",
    "returned_to_sender",
    "voided",
)
DIRECTIONS = ("outbound", "return")
CLAIM_KINDS = ("lost", "damaged")
CLAIM_STATUSES = ("open", "approved", "denied", "paid")
CLAIM_WINDOW_DAYS = 60  # a claim is filed within this many days of the label
WAREHOUSE = "Lumen & Pine Outdoor Co. warehouse, 2100 NW Front Ave, Portland, OR 97209"


class ShipCarrier(Base):
    """A carrier we have an account with; ``regions`` lists the states it delivers to (every state
    when empty); a parcel carrier takes packages up to ``max_package_lb`` each."""

    __tablename__ = "ship_carriers"
    __table_args__ = (
        enum_check("mode", CARRIER_MODES),
        enum_check("status", CARRIER_STATUSES),
        CheckConstraint("max_package_lb > 0", name="max_package_positive"),
        {"info": {"id_format": "CAR-{:02d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    code: Mapped[str] = mapped_column(String, unique=True)  # tracking numbers start with it
    mode: Mapped[str] = mapped_column(String)
    max_package_lb: Mapped[float] = mapped_column(Float)
    regions: Mapped[str] = mapped_column(String, default="")  # "OR,WA"
    account_number: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="active")
    note: Mapped[str | None] = mapped_column(Text, info=TEXT)


class ShipService(Base):
    """A carrier's service level and its contract rate: ``base_rate`` per shipment plus ``per_lb``."""

    __tablename__ = "ship_services"
    __table_args__ = (
        enum_check("service", SERVICES),
        CheckConstraint("base_rate >= 0 AND per_lb >= 0", name="rates_nonneg"),
        CheckConstraint("transit_days > 0", name="transit_positive"),
    )

    carrier_id: Mapped[str] = mapped_column(ForeignKey("ship_carriers.id"), primary_key=True)
    service: Mapped[str] = mapped_column(String, primary_key=True)
    base_rate: Mapped[float] = mapped_column(Float)
    per_lb: Mapped[float] = mapped_column(Float)
    transit_days: Mapped[int] = mapped_column(Integer)


class ShipShipment(Base):
    """A label bought with a carrier: for a shop order (outbound), a shop return (from the customer back
    to the warehouse) or anything else (an order of none). ``replacement_of`` names the lost or damaged
    shipment it replaces; ``declared_value`` is what a claim may ask for."""

    __tablename__ = "ship_shipments"
    __table_args__ = (
        enum_check("service", SERVICES),
        enum_check("status", SHIPMENT_STATUSES),
        enum_check("direction", DIRECTIONS),
        CheckConstraint("cost >= 0 AND declared_value >= 0 AND weight_lb > 0", name="amounts_range"),
        {"info": {"id_format": "SHP-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    order_id: Mapped[str | None] = mapped_column(ForeignKey("store_orders.id"), index=True)
    return_id: Mapped[str | None] = mapped_column(ForeignKey("store_returns.id"), index=True)
    replacement_of: Mapped[str | None] = mapped_column(ForeignKey("ship_shipments.id"))
    carrier_id: Mapped[str] = mapped_column(ForeignKey("ship_carriers.id"), index=True)
    service: Mapped[str] = mapped_column(String)
    direction: Mapped[str] = mapped_column(String, default="outbound")
    # made from the shipment's number by the carrier's code: not an outcome of its own
    tracking_number: Mapped[str] = mapped_column(String, unique=True, info=IGNORE)
    status: Mapped[str] = mapped_column(String, default="label_created")
    recipient_name: Mapped[str] = mapped_column(String, info=TEXT)
    address: Mapped[str] = mapped_column(String, info=TEXT)
    reference: Mapped[str | None] = mapped_column(Text, info=TEXT)
    weight_lb: Mapped[float] = mapped_column(Float)
    cost: Mapped[float] = mapped_column(Float)
    declared_value: Mapped[float] = mapped_column(Float, default=0.0)
    exception_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    shipped_at: Mapped[str | None] = mapped_column(String)
    estimated_delivery: Mapped[str | None] = mapped_column(String)
    delivered_at: Mapped[str | None] = mapped_column(String)


class ShipPackage(Base):
    """One box (or pallet) of a shipment."""

    __tablename__ = "ship_packages"
    __table_args__ = (CheckConstraint("weight_lb > 0", name="weight_positive"), {"info": {"id_format": "PKG-{:05d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    shipment_id: Mapped[str] = mapped_column(ForeignKey("ship_shipments.id"), index=True)
    weight_lb: Mapped[float] = mapped_column(Float)
    contents: Mapped[str] = mapped_column(String, info=TEXT)


class ShipTrackingEvent(Base):
    """A scan the carrier reported for a shipment."""

    __tablename__ = "ship_tracking_events"
    __table_args__ = (enum_check("status", SHIPMENT_STATUSES), {"info": {"id_format": "TRK-{:05d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    shipment_id: Mapped[str] = mapped_column(ForeignKey("ship_shipments.id"), index=True)
    occurred_at: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String)
    location: Mapped[str] = mapped_column(String)
    description: Mapped[str] = mapped_column(String, info=TEXT)


class ShipClaim(Base):
    """A claim against the carrier for a lost or damaged shipment, up to its declared value."""

    __tablename__ = "ship_claims"
    __table_args__ = (
        enum_check("kind", CLAIM_KINDS),
        enum_check("status", CLAIM_STATUSES),
        CheckConstraint("amount > 0", name="amount_positive"),
        {"info": {"id_format": "CLM-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    shipment_id: Mapped[str] = mapped_column(ForeignKey("ship_shipments.id"), index=True)
    kind: Mapped[str] = mapped_column(String)
    amount: Mapped[float] = mapped_column(Float)
    description: Mapped[str] = mapped_column(Text, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="open")
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
