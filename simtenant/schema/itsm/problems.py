"""Problems and the incidents linked to them."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

PROBLEM_STATUSES = ("new", "assessed", "root_cause_analysis", "fix_in_progress", "resolved", "closed")


class Problem(Base):
    __tablename__ = "problems"
    __table_args__ = (
        enum_check("status", PROBLEM_STATUSES),
        CheckConstraint("priority BETWEEN 1 AND 5", name="priority_range"),
        {"info": {"id_format": "PRB{:07d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    short_description: Mapped[str] = mapped_column(String, info=TEXT)
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="new")
    priority: Mapped[int] = mapped_column(Integer)
    assignment_group_id: Mapped[str | None] = mapped_column(ForeignKey("user_groups.id"))
    assigned_to_id: Mapped[str | None] = mapped_column(ForeignKey("sys_users.id"))
    root_cause: Mapped[str | None] = mapped_column(Text, info=TEXT)
    workaround: Mapped[str | None] = mapped_column(Text, info=TEXT)
    opened_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class ProblemIncident(Base):
    __tablename__ = "problem_incidents"

    problem_id: Mapped[str] = mapped_column(ForeignKey("problems.id"), primary_key=True)
    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
