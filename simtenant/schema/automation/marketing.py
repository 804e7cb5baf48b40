"""Marketing: mailing lists, their subscribers (one row per list and address) and email campaigns."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

SUBSCRIBER_STATUSES = ("subscribed", "unsubscribed", "bounced")
SUBSCRIBER_SOURCES = ("website", "import", "event", "crm", "manual")
CAMPAIGN_STATUSES = ("draft", "scheduled", "sent", "cancelled")


class MktList(Base):
    __tablename__ = "mkt_lists"
    __table_args__ = ({"info": {"id_format": "LIST-{:02d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    description: Mapped[str] = mapped_column(String, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)


class MktSubscriber(Base):
    __tablename__ = "mkt_subscribers"
    __table_args__ = (
        enum_check("status", SUBSCRIBER_STATUSES),
        enum_check("source", SUBSCRIBER_SOURCES),
        UniqueConstraint("list_id", "email", name="list_email"),
        {"info": {"id_format": "SUB-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    list_id: Mapped[str] = mapped_column(ForeignKey("mkt_lists.id"), index=True)
    email: Mapped[str] = mapped_column(String)
    name: Mapped[str | None] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="subscribed")
    source: Mapped[str] = mapped_column(String)
    subscribed_at: Mapped[str] = mapped_column(String)
    unsubscribed_at: Mapped[str | None] = mapped_column(String)


class MktCampaign(Base):
    __tablename__ = "mkt_campaigns"
    __table_args__ = (
        enum_check("status", CAMPAIGN_STATUSES),
        {"info": {"id_format": "CMP-{:03d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, info=TEXT)
    list_id: Mapped[str] = mapped_column(ForeignKey("mkt_lists.id"), index=True)
    subject: Mapped[str | None] = mapped_column(String, info=TEXT)
    body: Mapped[str | None] = mapped_column(Text, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="draft")
    scheduled_for: Mapped[str | None] = mapped_column(String)
    sent_at: Mapped[str | None] = mapped_column(String)
    recipients: Mapped[int | None] = mapped_column(Integer)  # subscribed addresses it went to, once sent
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)
