"""Status page: the company's customer-facing services (components) and their state, incidents with
their timeline of updates, scheduled maintenance, and the people subscribed to notices."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

COMPONENT_STATES = ("operational", "degraded_performance", "partial_outage", "major_outage", "under_maintenance")
INCIDENT_STATUSES = ("investigating", "identified", "monitoring", "resolved")
IMPACTS = ("none", "minor", "major", "critical")
MAINTENANCE_STATUSES = ("scheduled", "in_progress", "completed", "cancelled")
SUBSCRIBER_STATUSES = ("active", "unsubscribed")


class StatusComponent(Base):
    """A service shown on the status page with its current state; an archived one is no longer shown."""

    __tablename__ = "status_components"
    __table_args__ = (enum_check("status", COMPONENT_STATES), {"info": {"id_format": "COMP-{:02d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    description: Mapped[str] = mapped_column(String, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="operational")
    archived: Mapped[bool] = mapped_column(Boolean, default=False)
    position: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[str] = mapped_column(String)


class StatusIncident(Base):
    """An unplanned disruption of one or more components, open until resolved."""

    __tablename__ = "status_incidents"
    __table_args__ = (
        enum_check("status", INCIDENT_STATUSES),
        enum_check("impact", IMPACTS),
        {"info": {"id_format": "INC-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="investigating")
    impact: Mapped[str] = mapped_column(String, default="minor")
    created_by: Mapped[str] = mapped_column(String)
    started_at: Mapped[str] = mapped_column(String)
    resolved_at: Mapped[str | None] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class StatusIncidentComponent(Base):
    """A component an incident affects."""

    __tablename__ = "status_incident_components"

    incident_id: Mapped[str] = mapped_column(ForeignKey("status_incidents.id"), primary_key=True)
    component_id: Mapped[str] = mapped_column(ForeignKey("status_components.id"), primary_key=True, index=True)


class StatusIncidentUpdate(Base):
    """A public update on an incident's timeline, and how many subscribers it was sent to."""

    __tablename__ = "status_incident_updates"
    __table_args__ = (enum_check("status", INCIDENT_STATUSES), {"info": {"id_format": "UPD-{:05d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    incident_id: Mapped[str] = mapped_column(ForeignKey("status_incidents.id"), index=True)
    status: Mapped[str] = mapped_column(String)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    notified: Mapped[int] = mapped_column(Integer, default=0)
    posted_by: Mapped[str] = mapped_column(String)
    posted_at: Mapped[str] = mapped_column(String)


class StatusMaintenance(Base):
    """A planned maintenance window on one or more components."""

    __tablename__ = "status_maintenances"
    __table_args__ = (
        enum_check("status", MAINTENANCE_STATUSES),
        {"info": {"id_format": "MNT-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    description: Mapped[str] = mapped_column(Text, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="scheduled")
    starts_at: Mapped[str] = mapped_column(String)
    ends_at: Mapped[str] = mapped_column(String)
    notified: Mapped[int] = mapped_column(Integer, default=0)
    cancel_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class StatusMaintenanceComponent(Base):
    """A component a maintenance window covers."""

    __tablename__ = "status_maintenance_components"

    maintenance_id: Mapped[str] = mapped_column(ForeignKey("status_maintenances.id"), primary_key=True)
    component_id: Mapped[str] = mapped_column(ForeignKey("status_components.id"), primary_key=True, index=True)


class StatusSubscriber(Base):
    """Someone who gets the status page's notices: of every component, or of one."""

    __tablename__ = "status_subscribers"
    __table_args__ = (enum_check("status", SUBSCRIBER_STATUSES), {"info": {"id_format": "SBR-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    email: Mapped[str] = mapped_column(String, index=True)
    name: Mapped[str | None] = mapped_column(String)
    component_id: Mapped[str | None] = mapped_column(ForeignKey("status_components.id"))  # None: every component
    status: Mapped[str] = mapped_column(String, default="active")
    created_at: Mapped[str] = mapped_column(String)
    unsubscribed_at: Mapped[str | None] = mapped_column(String)
