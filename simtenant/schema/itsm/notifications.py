"""Notifications sent to users about records."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

CHANNELS = ("email", "sms", "portal")


class Notification(Base):
    __tablename__ = "notifications"
    __table_args__ = (enum_check("channel", CHANNELS),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    recipient_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"), index=True)
    channel: Mapped[str] = mapped_column(String)
    subject: Mapped[str] = mapped_column(String, info=TEXT)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    record_table: Mapped[str | None] = mapped_column(String)
    record_id: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
