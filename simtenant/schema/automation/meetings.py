"""Video meetings: meetings with a host and participants (with their attendance once a meeting has
ended), the recordings of a meeting and how each is shared, its transcript, and the follow-ups (action
items) agreed in it."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import PRESENT, TEXT, Base, enum_check

MEETING_STATUSES = ("scheduled", "ended", "cancelled")
ROLES = ("host", "co_host", "attendee")
RECORDING_STATUSES = ("processing", "available", "deleted")
SHARE_SCOPES = ("private", "company", "link")
FOLLOW_UP_STATUSES = ("open", "done", "cancelled")


class MtgMeeting(Base):
    """A video meeting; times are UTC ISO text. A confidential meeting's recordings and transcript are
    for its participants only, and its recordings are never shared by public link."""

    __tablename__ = "mtg_meetings"
    __table_args__ = (
        enum_check("status", MEETING_STATUSES),
        CheckConstraint("duration_minutes BETWEEN 5 AND 600", name="duration_range"),
        {"info": {"id_format": "MTG-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    host_email: Mapped[str] = mapped_column(String, index=True)
    start_at: Mapped[str] = mapped_column(String, index=True)
    duration_minutes: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String, default="scheduled")
    agenda: Mapped[str | None] = mapped_column(Text, info=TEXT)
    confidential: Mapped[bool] = mapped_column(Boolean, default=False)
    auto_record: Mapped[bool] = mapped_column(Boolean, default=False)
    # made from the meeting's number when it is scheduled: which number a new meeting got is no outcome
    join_url: Mapped[str] = mapped_column(String, info=PRESENT)
    calendar_event_id: Mapped[str | None] = mapped_column(ForeignKey("cal_events.id"))
    cancel_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class MtgParticipant(Base):
    """Someone invited to a meeting (the host included), with their attendance once it has ended
    (``joined_at`` empty: did not join)."""

    __tablename__ = "mtg_participants"
    __table_args__ = (
        enum_check("role", ROLES),
        UniqueConstraint("meeting_id", "email", name="meeting_email"),
        {"info": {"id_format": "PAR-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    meeting_id: Mapped[str] = mapped_column(ForeignKey("mtg_meetings.id"), index=True)
    email: Mapped[str] = mapped_column(String, index=True)
    role: Mapped[str] = mapped_column(String, default="attendee")
    joined_at: Mapped[str | None] = mapped_column(String)
    minutes_attended: Mapped[int | None] = mapped_column(Integer)


class MtgRecording(Base):
    """A cloud recording of a meeting (a meeting whose connection dropped has several parts), and who
    may watch it: ``private`` (the host and co-hosts), ``company`` (every employee) or ``link``
    (anyone with ``share_url``). A recording on legal hold cannot be deleted."""

    __tablename__ = "mtg_recordings"
    __table_args__ = (
        enum_check("status", RECORDING_STATUSES),
        enum_check("share_scope", SHARE_SCOPES),
        CheckConstraint("duration_minutes > 0", name="duration_positive"),
        {"info": {"id_format": "REC-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    meeting_id: Mapped[str] = mapped_column(ForeignKey("mtg_meetings.id"), index=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    started_at: Mapped[str] = mapped_column(String)
    duration_minutes: Mapped[int] = mapped_column(Integer)
    size_mb: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String, default="available")
    share_scope: Mapped[str] = mapped_column(String, default="private")
    share_url: Mapped[str | None] = mapped_column(String)
    legal_hold: Mapped[bool] = mapped_column(Boolean, default=False)
    hold_reason: Mapped[str | None] = mapped_column(String, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
    deleted_at: Mapped[str | None] = mapped_column(String)


class MtgTranscript(Base):
    """The transcript of a meeting: one line per turn, ``[HH:MM] Speaker: words``."""

    __tablename__ = "mtg_transcripts"
    __table_args__ = ({"info": {"id_format": "TRN-{:04d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    meeting_id: Mapped[str] = mapped_column(ForeignKey("mtg_meetings.id"), unique=True)
    language: Mapped[str] = mapped_column(String, default="en")
    content: Mapped[str] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)


class MtgFollowUp(Base):
    """A follow-up (action item) agreed in a meeting: what, who owns it and by when."""

    __tablename__ = "mtg_follow_ups"
    __table_args__ = (enum_check("status", FOLLOW_UP_STATUSES), {"info": {"id_format": "FU-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    meeting_id: Mapped[str] = mapped_column(ForeignKey("mtg_meetings.id"), index=True)
    description: Mapped[str] = mapped_column(Text, info=TEXT)
    owner_email: Mapped[str] = mapped_column(String, index=True)
    due_date: Mapped[str | None] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="open")
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    completed_at: Mapped[str | None] = mapped_column(String)
