"""Notifications sent to users about records."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

CHANNELS = ("email", "sms", "portal")
# scheduled: waits for scheduled_for, and may still be changed or withdrawn; sent: out, not read (yet);
# read: the recipient opened it (read_at); failed: it could not be delivered
NOTIFICATION_STATUSES = ("scheduled", "sent", "read", "failed")


class Notification(Base):
    __tablename__ = "notifications"
    __table_args__ = (enum_check("channel", CHANNELS), enum_check("status", NOTIFICATION_STATUSES))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    recipient_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"), index=True)
    channel: Mapped[str] = mapped_column(String)
    subject: Mapped[str] = mapped_column(String, info=TEXT)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    record_table: Mapped[str | None] = mapped_column(String)
    record_id: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="sent")
    scheduled_for: Mapped[str | None] = mapped_column(String)  # when a scheduled notification goes out
    read_at: Mapped[str | None] = mapped_column(String)
