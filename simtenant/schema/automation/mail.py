"""Mail: every employee's mailbox. One row is one copy of a message in one mailbox and folder; a
sent email is a row in the sender's sent folder plus an inbox row for each colleague it reaches."""

from __future__ import annotations

from sqlalchemy import Boolean, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

FOLDERS = ("inbox", "sent", "archive", "trash")
COMPANY_DOMAIN = "lumenpine.example"


class MailMessage(Base):
    """One message in one mailbox. Address lists are lowercase, separated by ", "."""

    __tablename__ = "mail_messages"
    __table_args__ = (enum_check("folder", FOLDERS), {"info": {"id_format": "MSG-{:05d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    mailbox: Mapped[str] = mapped_column(String, index=True)
    folder: Mapped[str] = mapped_column(String)
    from_address: Mapped[str] = mapped_column(String)
    to_addresses: Mapped[str] = mapped_column(String)
    cc_addresses: Mapped[str] = mapped_column(String, default="")
    subject: Mapped[str] = mapped_column(String, info=TEXT)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    # keys of other messages, kept without a constraint (a thread starts with its own id): the diff
    # follows them to the rows they name, so messages sent in another order still match
    thread_id: Mapped[str] = mapped_column(String, index=True, info={"refers_to": "mail_messages"})
    in_reply_to: Mapped[str | None] = mapped_column(String, info={"refers_to": "mail_messages"})
    sent_at: Mapped[str] = mapped_column(String)
    read: Mapped[bool] = mapped_column(Boolean, default=False)
