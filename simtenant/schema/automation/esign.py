"""E-signature: envelopes (what is sent for signing), their documents (each a copy of a drive file's
text as it was when added) and their recipients: signers, who sign in routing order, and people who
get a copy (cc) once everyone has signed."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

ENVELOPE_STATUSES = ("draft", "sent", "completed", "declined", "voided", "expired")
OPEN_ENVELOPE = ("sent",)
RECIPIENT_ROLES = ("signer", "cc")
# waiting: an earlier routing order has not signed yet (a cc: the envelope is not completed yet);
# sent: it is their turn (a cc: they were sent the completed copy)
RECIPIENT_STATUSES = ("waiting", "sent", "signed", "declined")


class EsignEnvelope(Base):
    """An envelope: drafted by its sender, sent, then completed when every signer has signed (or
    declined, voided by the sender, or expired). ``reference`` is free text tying it to other work,
    e.g. a CRM deal id."""

    __tablename__ = "esign_envelopes"
    __table_args__ = (enum_check("status", ENVELOPE_STATUSES), {"info": {"id_format": "ENV-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    subject: Mapped[str] = mapped_column(String, info=TEXT)
    message: Mapped[str | None] = mapped_column(Text, info=TEXT)
    reference: Mapped[str | None] = mapped_column(String)
    sender: Mapped[str] = mapped_column(String, index=True)
    status: Mapped[str] = mapped_column(String, default="draft")
    expires_on: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    sent_at: Mapped[str | None] = mapped_column(String)
    completed_at: Mapped[str | None] = mapped_column(String)
    voided_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)


class EsignDocument(Base):
    """A document of an envelope: the text of a drive file (``file_id``) as it was when added."""

    __tablename__ = "esign_documents"
    __table_args__ = ({"info": {"id_format": "EDOC-{:04d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    envelope_id: Mapped[str] = mapped_column(ForeignKey("esign_envelopes.id"), index=True)
    file_id: Mapped[str] = mapped_column(ForeignKey("files_files.id"), index=True)
    name: Mapped[str] = mapped_column(String, info=TEXT)
    content: Mapped[str] = mapped_column(Text, info=TEXT)


class EsignRecipient(Base):
    """A recipient of an envelope: a signer at a routing order (1 signs first; signers sharing an
    order sign in parallel) or a cc (no order: they get the completed copy), with where they stand."""

    __tablename__ = "esign_recipients"
    __table_args__ = (
        enum_check("role", RECIPIENT_ROLES),
        enum_check("status", RECIPIENT_STATUSES),
        CheckConstraint(
            "(role = 'signer' AND routing_order >= 1) OR (role = 'cc' AND routing_order IS NULL)",
            name="routing_order_of_signers",
        ),
        {"info": {"id_format": "RCP-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    envelope_id: Mapped[str] = mapped_column(ForeignKey("esign_envelopes.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    email: Mapped[str] = mapped_column(String, index=True)
    role: Mapped[str] = mapped_column(String, default="signer")
    routing_order: Mapped[int | None] = mapped_column(Integer)  # a signer's turn; null for a cc
    status: Mapped[str] = mapped_column(String, default="waiting")
    signed_at: Mapped[str | None] = mapped_column(String)
    declined_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    last_reminded_at: Mapped[str | None] = mapped_column(String)
