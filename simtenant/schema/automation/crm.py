"""CRM: companies (customers, prospects, churned accounts), their contacts, the deal pipeline and
activity notes."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, Float, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

LIFECYCLES = ("prospect", "customer", "churned")
DEAL_STAGES = ("prospecting", "qualified", "proposal", "negotiation", "closed_won", "closed_lost")
OPEN_STAGES = DEAL_STAGES[:4]
CLOSED_STAGES = DEAL_STAGES[4:]


class CrmCompany(Base):
    """An organization the company sells to (or buys from), with its account owner."""

    __tablename__ = "crm_companies"
    __table_args__ = (enum_check("lifecycle", LIFECYCLES), {"info": {"id_format": "CMP-{:03d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    domain: Mapped[str] = mapped_column(String, unique=True)
    industry: Mapped[str] = mapped_column(String)
    owner_email: Mapped[str] = mapped_column(String)
    lifecycle: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)


class CrmContact(Base):
    """A person at a CRM company."""

    __tablename__ = "crm_contacts"
    __table_args__ = ({"info": {"id_format": "CON-{:03d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("crm_companies.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    email: Mapped[str] = mapped_column(String, unique=True)
    title: Mapped[str | None] = mapped_column(String, info=TEXT)
    phone: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)


class CrmDeal(Base):
    """A sales opportunity with a company, moving through the pipeline stages."""

    __tablename__ = "crm_deals"
    __table_args__ = (
        enum_check("stage", DEAL_STAGES),
        CheckConstraint("amount >= 0", name="amount_nonneg"),
        {"info": {"id_format": "DEAL-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("crm_companies.id"), index=True)
    contact_id: Mapped[str | None] = mapped_column(ForeignKey("crm_contacts.id"))
    name: Mapped[str] = mapped_column(String, info=TEXT)
    amount: Mapped[float] = mapped_column(Float)
    stage: Mapped[str] = mapped_column(String)
    owner_email: Mapped[str] = mapped_column(String)
    close_date: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class CrmNote(Base):
    """An activity note on a company, optionally about one of its contacts or deals."""

    __tablename__ = "crm_notes"
    __table_args__ = ({"info": {"id_format": "NOTE-{:04d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    company_id: Mapped[str] = mapped_column(ForeignKey("crm_companies.id"), index=True)
    contact_id: Mapped[str | None] = mapped_column(ForeignKey("crm_contacts.id"))
    deal_id: Mapped[str | None] = mapped_column(ForeignKey("crm_deals.id"), index=True)
    author_email: Mapped[str] = mapped_column(String)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
