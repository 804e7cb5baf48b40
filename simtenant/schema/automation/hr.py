"""HR: the company's employees (who reports to whom) and their time-off requests."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

DEPARTMENTS = ("Executive", "Sales", "Marketing", "Operations", "Support", "Finance", "People", "Engineering")
EMPLOYEE_STATUSES = ("active", "on_leave", "terminated")
TIME_OFF_KINDS = ("vacation", "sick", "parental")
TIME_OFF_STATUSES = ("pending", "approved", "denied")


class HrEmployee(Base):
    __tablename__ = "hr_employees"
    __table_args__ = (
        enum_check("department", DEPARTMENTS),
        enum_check("status", EMPLOYEE_STATUSES),
        CheckConstraint("annual_vacation_days BETWEEN 0 AND 60", name="vacation_days_range"),
        {"info": {"id_format": "EMP-{:03d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    email: Mapped[str] = mapped_column(String, unique=True)
    department: Mapped[str] = mapped_column(String)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    manager_id: Mapped[str | None] = mapped_column(ForeignKey("hr_employees.id"), index=True)
    start_date: Mapped[str] = mapped_column(String)
    end_date: Mapped[str | None] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="active")
    location: Mapped[str] = mapped_column(String, info=TEXT)
    annual_vacation_days: Mapped[int] = mapped_column(Integer, default=20)
    termination_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)


class HrTimeOff(Base):
    __tablename__ = "hr_time_off"
    __table_args__ = (
        enum_check("kind", TIME_OFF_KINDS),
        enum_check("status", TIME_OFF_STATUSES),
        CheckConstraint("days > 0", name="days_positive"),
        CheckConstraint("end_date >= start_date", name="date_order"),
        {"info": {"id_format": "PTO-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    employee_id: Mapped[str] = mapped_column(ForeignKey("hr_employees.id"), index=True)
    kind: Mapped[str] = mapped_column(String)
    start_date: Mapped[str] = mapped_column(String)
    end_date: Mapped[str] = mapped_column(String)
    days: Mapped[int] = mapped_column(Integer)  # working days (Monday to Friday) in the range
    status: Mapped[str] = mapped_column(String, default="pending")
    note: Mapped[str | None] = mapped_column(Text, info=TEXT)
    approver_id: Mapped[str | None] = mapped_column(ForeignKey("hr_employees.id"))
    decision_note: Mapped[str | None] = mapped_column(Text, info=TEXT)
    requested_at: Mapped[str] = mapped_column(String)
    decided_at: Mapped[str | None] = mapped_column(String)
