"""The audit log: every mutating tool writes who did what to which record, and when."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from ..base import Base


class AuditEntry(Base):
    """Not part of the row diff: two valid ways to the same records leave different trails (other
    tools, other field lists). Tasks that care about the trail check it with SQL."""

    __tablename__ = "audit_log"
    __table_args__ = ({"info": {"graded": False}},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    actor_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"), index=True)
    tool: Mapped[str] = mapped_column(String)
    action: Mapped[str] = mapped_column(String)  # create | update | delete
    record_table: Mapped[str] = mapped_column(String)
    record_id: Mapped[str] = mapped_column(String)
    fields: Mapped[Any] = mapped_column(JSON)
    created_at: Mapped[str] = mapped_column(String)
