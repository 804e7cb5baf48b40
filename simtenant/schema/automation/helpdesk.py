"""Help desk: customer support tickets and their comments (public replies the requester sees,
internal notes they do not)."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

TICKET_STATUSES = ("new", "open", "pending", "solved", "closed")
TICKET_PRIORITIES = ("low", "normal", "high", "urgent")


class HdTicket(Base):
    """A support ticket; ``tags`` is a comma-separated list; ``merged_into`` names the ticket a
    closed duplicate was merged into."""

    __tablename__ = "hd_tickets"
    __table_args__ = (
        enum_check("status", TICKET_STATUSES),
        enum_check("priority", TICKET_PRIORITIES),
        {"info": {"id_format": "HD-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    requester_email: Mapped[str] = mapped_column(String, index=True)
    requester_name: Mapped[str] = mapped_column(String)
    subject: Mapped[str] = mapped_column(String, info=TEXT)
    description: Mapped[str] = mapped_column(Text, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="new")
    priority: Mapped[str] = mapped_column(String, default="normal")
    assignee: Mapped[str | None] = mapped_column(String, index=True)
    tags: Mapped[str] = mapped_column(String, default="")
    merged_into: Mapped[str | None] = mapped_column(ForeignKey("hd_tickets.id"))
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)
    solved_at: Mapped[str | None] = mapped_column(String)


class HdComment(Base):
    """A comment on a ticket: a public reply (emailed to the requester) or an internal note."""

    __tablename__ = "hd_comments"
    __table_args__ = ({"info": {"id_format": "HDC-{:05d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    ticket_id: Mapped[str] = mapped_column(ForeignKey("hd_tickets.id"), index=True)
    author: Mapped[str] = mapped_column(String)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[str] = mapped_column(String)
