"""Services, their offerings, and the service catalog with its requests."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

SERVICE_STATUSES = ("operational", "degraded", "outage", "retired")
CRITICALITIES = ("critical", "high", "medium", "low")
REQUEST_STATUSES = ("submitted", "approved", "fulfilled", "rejected", "cancelled")


class Service(Base):
    __tablename__ = "services"
    __table_args__ = (
        enum_check("status", SERVICE_STATUSES),
        enum_check("criticality", CRITICALITIES),
        {"info": {"id_format": "SVC-{:03d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    owner_group_id: Mapped[str | None] = mapped_column(ForeignKey("user_groups.id"))
    status: Mapped[str] = mapped_column(String, default="operational")
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    criticality: Mapped[str] = mapped_column(String, default="medium")  # how much the business depends on it


class ServiceOffering(Base):
    __tablename__ = "service_offerings"
    __table_args__ = ({"info": {"id_format": "OFR-{:03d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    service_id: Mapped[str] = mapped_column(ForeignKey("services.id"), index=True)
    name: Mapped[str] = mapped_column(String)


class CatalogItem(Base):
    __tablename__ = "catalog_items"
    __table_args__ = (CheckConstraint("price >= 0", name="price_nonneg"), {"info": {"id_format": "CAT-{:03d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    category: Mapped[str] = mapped_column(String)
    price: Mapped[float] = mapped_column(Float)
    fulfillment_group_id: Mapped[str | None] = mapped_column(ForeignKey("user_groups.id"))
    needs_approval: Mapped[bool] = mapped_column(Boolean, default=False)
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class CatalogRequest(Base):
    __tablename__ = "catalog_requests"
    __table_args__ = (
        enum_check("status", REQUEST_STATUSES),
        CheckConstraint("quantity > 0", name="quantity_pos"),
        {"info": {"id_format": "REQ{:07d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    item_id: Mapped[str] = mapped_column(ForeignKey("catalog_items.id"), index=True)
    requested_for_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"), index=True)
    requested_by_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"))
    quantity: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String, default="submitted")
    notes: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)
