"""Chat: channels (public, private, and direct-message channels between two people), their members
and messages, with one level of threaded replies."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base


class ChatChannel(Base):
    """A channel, e.g. ``sales``; a direct-message channel is private and named ``dm-<a>--<b>``."""

    __tablename__ = "chat_channels"
    __table_args__ = ({"info": {"id_format": "CH-{:03d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    topic: Mapped[str] = mapped_column(String, default="", info=TEXT)
    is_private: Mapped[bool] = mapped_column(Boolean, default=False)
    is_direct: Mapped[bool] = mapped_column(Boolean, default=False)
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)


class ChatMember(Base):
    __tablename__ = "chat_members"

    channel_id: Mapped[str] = mapped_column(ForeignKey("chat_channels.id"), primary_key=True)
    member_email: Mapped[str] = mapped_column(String, primary_key=True)
    joined_at: Mapped[str] = mapped_column(String)


class ChatMessage(Base):
    """A message in a channel; ``parent_id`` is the thread's first message for a reply in a thread."""

    __tablename__ = "chat_messages"
    __table_args__ = ({"info": {"id_format": "CM-{:05d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    channel_id: Mapped[str] = mapped_column(ForeignKey("chat_channels.id"), index=True)
    author_email: Mapped[str] = mapped_column(String)
    text: Mapped[str] = mapped_column(Text, info=TEXT)
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("chat_messages.id"), index=True)
    posted_at: Mapped[str] = mapped_column(String)
    edited_at: Mapped[str | None] = mapped_column(String)
