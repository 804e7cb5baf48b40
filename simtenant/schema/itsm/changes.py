"""Change requests and their approvals (the CAB)."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

CHANGE_CATEGORIES = ("standard", "normal", "emergency")
RISKS = ("low", "moderate", "high")
CHANGE_STATUSES = ("new", "assess", "authorize", "scheduled", "implement", "review", "closed", "cancelled")
CLOSE_CODES = ("successful", "successful_with_issues", "unsuccessful")
APPROVAL_STATES = ("requested", "approved", "rejected")


class ChangeRequest(Base):
    __tablename__ = "change_requests"
    __table_args__ = (
        enum_check("category", CHANGE_CATEGORIES),
        enum_check("risk", RISKS),
        enum_check("status", CHANGE_STATUSES),
        enum_check("close_code", CLOSE_CODES),
        CheckConstraint("impact BETWEEN 1 AND 3", name="impact_range"),
        {"info": {"id_format": "CHG{:07d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    short_description: Mapped[str] = mapped_column(String, info=TEXT)
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    category: Mapped[str] = mapped_column(String)
    risk: Mapped[str] = mapped_column(String)
    impact: Mapped[int] = mapped_column(Integer)
    cab_required: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String, default="new")
    requested_by_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"))
    assignment_group_id: Mapped[str | None] = mapped_column(ForeignKey("user_groups.id"))
    ci_id: Mapped[str | None] = mapped_column(ForeignKey("configuration_items.id"))
    start_at: Mapped[str | None] = mapped_column(String)
    end_at: Mapped[str | None] = mapped_column(String)
    implementation_plan: Mapped[str | None] = mapped_column(Text, info=TEXT)
    test_plan: Mapped[str | None] = mapped_column(Text, info=TEXT)
    backout_plan: Mapped[str | None] = mapped_column(Text, info=TEXT)
    close_code: Mapped[str | None] = mapped_column(String)
    close_notes: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class ChangeApproval(Base):
    __tablename__ = "change_approvals"
    __table_args__ = (enum_check("state", APPROVAL_STATES),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    change_id: Mapped[str] = mapped_column(ForeignKey("change_requests.id"), index=True)
    approver_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"))
    state: Mapped[str] = mapped_column(String, default="requested")
    comments: Mapped[str | None] = mapped_column(Text, info=TEXT)
    decided_at: Mapped[str | None] = mapped_column(String)
