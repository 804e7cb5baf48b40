"""SLA definitions and the SLA clocks of incidents."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

STAGES = ("response", "resolution")
CLOCK_STATES = ("in_progress", "paused", "completed", "cancelled")


class SLADefinition(Base):
    __tablename__ = "sla_definitions"
    __table_args__ = (
        enum_check("stage", STAGES),
        CheckConstraint("priority BETWEEN 1 AND 5", name="priority_range"),
        CheckConstraint("target_minutes > 0", name="target_pos"),
        UniqueConstraint("org_id", "priority", "stage", name="one_per_priority_stage"),
        {"info": {"id_format": "SLA-{:03d}"}},  # new definitions; the seeded ones have descriptive ids
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    name: Mapped[str] = mapped_column(String, info=TEXT)
    priority: Mapped[int] = mapped_column(Integer)
    stage: Mapped[str] = mapped_column(String)
    target_minutes: Mapped[int] = mapped_column(Integer)


class IncidentSLA(Base):
    __tablename__ = "incident_slas"
    __table_args__ = (enum_check("stage", STAGES), enum_check("state", CLOCK_STATES))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), index=True)
    sla_id: Mapped[str] = mapped_column(ForeignKey("sla_definitions.id"))
    stage: Mapped[str] = mapped_column(String)
    state: Mapped[str] = mapped_column(String, default="in_progress")
    started_at: Mapped[str] = mapped_column(String)
    breach_at: Mapped[str] = mapped_column(String)
    completed_at: Mapped[str | None] = mapped_column(String)
    breached: Mapped[bool] = mapped_column(Boolean, default=False)
