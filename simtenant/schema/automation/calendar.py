"""Calendar: events with an organizer, a time range and a place, and the people invited to each
with their response."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

EVENT_STATUSES = ("confirmed", "cancelled")
RESPONSES = ("needs_action", "accepted", "declined", "tentative")


class CalEvent(Base):
    """A calendar event; times are UTC ISO text, ``end_at`` after ``start_at``."""

    __tablename__ = "cal_events"
    __table_args__ = (enum_check("status", EVENT_STATUSES), {"info": {"id_format": "EVT-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    organizer: Mapped[str] = mapped_column(String, index=True)
    start_at: Mapped[str] = mapped_column(String, index=True)
    end_at: Mapped[str] = mapped_column(String)
    location: Mapped[str | None] = mapped_column(String, info=TEXT)
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="confirmed")
    created_at: Mapped[str] = mapped_column(String)


class CalAttendee(Base):
    """Someone invited to an event (the organizer included) and their answer."""

    __tablename__ = "cal_attendees"
    __table_args__ = (
        enum_check("response", RESPONSES),
        UniqueConstraint("event_id", "email"),
        {"info": {"id_format": "ATT-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    event_id: Mapped[str] = mapped_column(ForeignKey("cal_events.id"), index=True)
    email: Mapped[str] = mapped_column(String, index=True)
    response: Mapped[str] = mapped_column(String, default="needs_action")
