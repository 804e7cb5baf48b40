"""Home-services front office: businesses, their service areas and pricing playbooks, the lead
inbox, what each lead's customer knows and does (their scripted twists: haggling, changing a
detail, pleading for an exception), conversations, quotes and the closing report."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, CheckConstraint, Float, ForeignKey, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from ..base import PRESENT, TEXT, Base, enum_check

TRADES = (
    "towing",
    "junk_removal",
    "dumpster_rental",
    "gutter_cleaning",
    "window_cleaning",
    "lawn_care",
    "pressure_washing",
    "moving",
)
PRICE_KINDS = ("base", "per_unit", "tier", "surcharge", "minimum")
CHANNELS = ("email", "sms", "web_form", "voicemail")
LEAD_STATUSES = ("NEW", "NEED_INFO", "QUOTED", "DECLINED", "SPAM")
ROLES = ("agent", "customer")
MESSAGE_KINDS = ("message", "quote")
TWIST_KINDS = ("haggle", "change", "exception")
TWIST_CUES = ("first_answer", "quote")


class Business(Base):
    __tablename__ = "businesses"
    __table_args__ = (enum_check("trade", TRADES),)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    trade: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String)
    phone: Mapped[str] = mapped_column(String)
    hours: Mapped[str] = mapped_column(String)
    timezone: Mapped[str] = mapped_column(String)
    policy: Mapped[str] = mapped_column(Text)


class ServiceArea(Base):
    __tablename__ = "service_areas"

    business_id: Mapped[str] = mapped_column(ForeignKey("businesses.id"), primary_key=True)
    zip: Mapped[str] = mapped_column(String, primary_key=True)
    place: Mapped[str] = mapped_column(String)


class PriceItem(Base):
    """A line of the pricing playbook; ``applies_when`` says when it is charged."""

    __tablename__ = "price_items"
    __table_args__ = (enum_check("kind", PRICE_KINDS), CheckConstraint("amount > 0", name="amount_pos"))

    id: Mapped[str] = mapped_column(String, primary_key=True)
    business_id: Mapped[str] = mapped_column(ForeignKey("businesses.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String)
    unit: Mapped[str] = mapped_column(String)
    amount: Mapped[float] = mapped_column(Float)
    applies_when: Mapped[str] = mapped_column(Text)
    position: Mapped[int] = mapped_column(Integer)


class Lead(Base):
    __tablename__ = "leads"
    __table_args__ = (enum_check("channel", CHANNELS), enum_check("status", LEAD_STATUSES))

    id: Mapped[str] = mapped_column(String, primary_key=True)
    business_id: Mapped[str] = mapped_column(ForeignKey("businesses.id"), index=True)
    channel: Mapped[str] = mapped_column(String)
    received_at: Mapped[str] = mapped_column(String)
    customer_name: Mapped[str] = mapped_column(String)
    zip: Mapped[str | None] = mapped_column(String)
    text: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String, default="NEW")
    silent: Mapped[bool] = mapped_column(Boolean, default=False)  # the sender never replies (spam)
    # the customer answers one question a message: asked for several details, they give the first
    piecemeal: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class LeadFact(Base):
    """Something a lead's customer knows. ``given``: already in the lead's text; ``required``:
    missing, and needed before a quote. ``available`` false: the customer cannot tell yet."""

    __tablename__ = "lead_facts"

    lead_id: Mapped[str] = mapped_column(ForeignKey("leads.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[str] = mapped_column(String)
    reveal: Mapped[str] = mapped_column(Text)
    triggers: Mapped[Any] = mapped_column(JSON)
    given: Mapped[bool] = mapped_column(Boolean, default=False)
    required: Mapped[bool] = mapped_column(Boolean, default=False)
    available: Mapped[bool] = mapped_column(Boolean, default=True)
    # whether it was asked and revealed is the outcome; which message did it is the conversation's
    asked_message_id: Mapped[int | None] = mapped_column(ForeignKey("lead_messages.id"), info=PRESENT)
    revealed_message_id: Mapped[int | None] = mapped_column(ForeignKey("lead_messages.id"), info=PRESENT)


class LeadMessage(Base):
    """The conversation with a lead's customer, in order; ``redundant``: asked for a known fact.

    Not in the row diff: how many messages it took is the conversation, not the outcome (which facts
    were asked for and revealed, the quotes, the statuses, the report); the rubric grades it."""

    __tablename__ = "lead_messages"
    __table_args__ = (enum_check("role", ROLES), enum_check("kind", MESSAGE_KINDS), {"info": {"graded": False}})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lead_id: Mapped[str] = mapped_column(ForeignKey("leads.id"), index=True)
    role: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String, default="message")
    text: Mapped[str] = mapped_column(Text, info=TEXT)
    redundant: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[str] = mapped_column(String)


class LeadTwist(Base):
    """Something a lead's customer does on cue, scripted: an adversarial customer.

    ``kind``: ``haggle`` (asks for a discount or a price match: answered by a reply that restates the
    quoted total, the price held; a lower quote is refused), ``change`` (changes or corrects a detail
    given before, ``fact_key``, to ``value``: answered by a new quote, which must follow it), or
    ``exception`` (asks to be served anyway after a decline: answered by a reply; the decline
    stands). ``cue``: ``first_answer``, the customer's first reply to a message; ``quote``, their
    reply to the lead's first quote. ``text`` is what they say on cue, ``answer`` what they say once
    answered. Whether it was made and answered is the outcome; by which message is the conversation's."""

    __tablename__ = "lead_twists"
    __table_args__ = (
        enum_check("kind", TWIST_KINDS),
        enum_check("cue", TWIST_CUES),
        CheckConstraint(
            "(kind = 'change') = (fact_key IS NOT NULL AND value IS NOT NULL AND reveal IS NOT NULL)",
            name="change_names_a_fact",
        ),
        CheckConstraint("kind != 'haggle' OR cue = 'quote'", name="haggle_on_quote"),
    )

    lead_id: Mapped[str] = mapped_column(ForeignKey("leads.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String, primary_key=True)
    kind: Mapped[str] = mapped_column(String)
    cue: Mapped[str] = mapped_column(String)
    text: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(Text)
    # a change: the lead fact it changes (the lead's own ``lead_facts.key``), its new value and how the
    # customer states it from then on
    fact_key: Mapped[str | None] = mapped_column(String)
    value: Mapped[str | None] = mapped_column(String)
    reveal: Mapped[str | None] = mapped_column(Text)
    made_message_id: Mapped[int | None] = mapped_column(ForeignKey("lead_messages.id"), info=PRESENT)
    answered_message_id: Mapped[int | None] = mapped_column(ForeignKey("lead_messages.id"), info=PRESENT)


class Quote(Base):
    __tablename__ = "quotes"
    __table_args__ = (CheckConstraint("total >= 0", name="total_nonneg"), {"info": {"id_format": "Q-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    lead_id: Mapped[str] = mapped_column(ForeignKey("leads.id"), index=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("lead_messages.id"), info=PRESENT)
    total: Mapped[float] = mapped_column(Float)
    created_at: Mapped[str] = mapped_column(String)


class QuoteLine(Base):
    __tablename__ = "quote_lines"
    __table_args__ = (CheckConstraint("quantity > 0", name="quantity_pos"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    quote_id: Mapped[str] = mapped_column(ForeignKey("quotes.id"), index=True)
    price_item_id: Mapped[str] = mapped_column(ForeignKey("price_items.id"))
    quantity: Mapped[float] = mapped_column(Float)
    unit_amount: Mapped[float] = mapped_column(Float)
    amount: Mapped[float] = mapped_column(Float)


class Report(Base):
    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    business_id: Mapped[str] = mapped_column(ForeignKey("businesses.id"))
    summary: Mapped[str] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
