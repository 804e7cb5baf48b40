"""Incidents: templates, the incidents themselves, work notes and affected CIs."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

CATEGORIES = ("hardware", "software", "network", "access", "database", "inquiry", "security")
INCIDENT_STATUSES = ("new", "in_progress", "on_hold", "resolved", "closed", "cancelled")
HOLD_REASONS = ("awaiting_caller", "awaiting_change", "awaiting_problem", "awaiting_vendor")
RESOLUTION_CODES = ("solved_workaround", "solved_permanently", "not_reproducible", "duplicate", "user_error")


class IncidentTemplate(Base):
    __tablename__ = "incident_templates"
    __table_args__ = (enum_check("category", CATEGORIES), {"info": {"id_format": "TPL-{:03d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    short_description: Mapped[str] = mapped_column(String)
    category: Mapped[str] = mapped_column(String)
    impact: Mapped[int] = mapped_column(Integer)
    urgency: Mapped[int] = mapped_column(Integer)
    assignment_group_id: Mapped[str | None] = mapped_column(ForeignKey("user_groups.id"))
    service_id: Mapped[str | None] = mapped_column(ForeignKey("services.id"))
    active: Mapped[bool] = mapped_column(Boolean, default=True)  # an inactive template cannot be used


class Incident(Base):
    """An incident; ``id`` is its number (INC…). Priority follows from impact × urgency."""

    __tablename__ = "incidents"
    __table_args__ = (
        enum_check("category", CATEGORIES),
        enum_check("status", INCIDENT_STATUSES),
        enum_check("hold_reason", HOLD_REASONS),
        enum_check("resolution_code", RESOLUTION_CODES),
        CheckConstraint("impact BETWEEN 1 AND 3", name="impact_range"),
        CheckConstraint("urgency BETWEEN 1 AND 3", name="urgency_range"),
        CheckConstraint("priority BETWEEN 1 AND 5", name="priority_range"),
        {"info": {"id_format": "INC{:07d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    caller_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"), index=True)
    short_description: Mapped[str] = mapped_column(String, info=TEXT)
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    category: Mapped[str] = mapped_column(String)
    impact: Mapped[int] = mapped_column(Integer)
    urgency: Mapped[int] = mapped_column(Integer)
    priority: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String, default="new")
    assignment_group_id: Mapped[str | None] = mapped_column(ForeignKey("user_groups.id"), index=True)
    assigned_to_id: Mapped[str | None] = mapped_column(ForeignKey("sys_users.id"), index=True)
    service_id: Mapped[str | None] = mapped_column(ForeignKey("services.id"))
    offering_id: Mapped[str | None] = mapped_column(ForeignKey("service_offerings.id"))
    ci_id: Mapped[str | None] = mapped_column(ForeignKey("configuration_items.id"))
    problem_id: Mapped[str | None] = mapped_column(ForeignKey("problems.id"))
    change_id: Mapped[str | None] = mapped_column(ForeignKey("change_requests.id"))
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("incidents.id"), index=True)
    hold_reason: Mapped[str | None] = mapped_column(String)
    resolution_code: Mapped[str | None] = mapped_column(String)
    resolution_notes: Mapped[str | None] = mapped_column(Text, info=TEXT)
    close_notes: Mapped[str | None] = mapped_column(Text, info=TEXT)
    resolved_by_id: Mapped[str | None] = mapped_column(ForeignKey("sys_users.id"))
    resolved_at: Mapped[str | None] = mapped_column(String)
    opened_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class IncidentWorkNote(Base):
    __tablename__ = "incident_work_notes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), index=True)
    author_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"))
    note: Mapped[str] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)


class IncidentAffectedCI(Base):
    __tablename__ = "incident_affected_cis"

    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), primary_key=True)
    ci_id: Mapped[str] = mapped_column(ForeignKey("configuration_items.id"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
