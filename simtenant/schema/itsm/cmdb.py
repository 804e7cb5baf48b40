"""The CMDB: configuration items and how they relate."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Float, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import Base, enum_check

CI_CLASSES = (
    "laptop",
    "desktop",
    "server",
    "virtual_machine",
    "network_device",
    "printer",
    "mobile",
    "application",
    "database",
)
CI_STATUSES = ("in_stock", "in_use", "in_maintenance", "retired")
RELATIONS = ("depends_on", "runs_on", "connected_to")


class ConfigurationItem(Base):
    __tablename__ = "configuration_items"
    __table_args__ = (
        enum_check("ci_class", CI_CLASSES),
        enum_check("status", CI_STATUSES),
        CheckConstraint("cost >= 0", name="cost_nonneg"),
        {"info": {"id_format": "CI-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    ci_class: Mapped[str] = mapped_column(String)
    serial_number: Mapped[str | None] = mapped_column(String, unique=True)
    status: Mapped[str] = mapped_column(String, default="in_stock")
    owner_id: Mapped[str | None] = mapped_column(ForeignKey("sys_users.id"), index=True)
    location_id: Mapped[str | None] = mapped_column(ForeignKey("locations.id"))
    cost: Mapped[float] = mapped_column(Float, default=0.0)


class CIRelationship(Base):
    __tablename__ = "ci_relationships"
    __table_args__ = (
        enum_check("kind", RELATIONS),
        UniqueConstraint("parent_id", "child_id", "kind", name="edge"),
        CheckConstraint("parent_id != child_id", name="no_self_edge"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    parent_id: Mapped[str] = mapped_column(ForeignKey("configuration_items.id"), index=True)
    child_id: Mapped[str] = mapped_column(ForeignKey("configuration_items.id"), index=True)
    kind: Mapped[str] = mapped_column(String)
