"""CRM tools: companies, contacts, the deal pipeline (stage moves) and activity notes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import or_, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.automation.crm import (
    CLOSED_STAGES,
    DEAL_STAGES,
    LIFECYCLES,
    CrmCompany,
    CrmContact,
    CrmDeal,
    CrmNote,
)
from ..engine.dispatch import ToolContext, paged, row_dict
from ..engine.registry import Text, tool
from .common import Email, Page, PerPage, apply_updates, containing, me, where_given

SERVICE = "automation.crm"

CompanyId = Annotated[str, Field(description="A CRM company id, e.g. CMP-001")]
ContactId = Annotated[str, Field(description="A CRM contact id, e.g. CON-001")]
DealId = Annotated[str, Field(description="A CRM deal id, e.g. DEAL-0001")]
Lifecycle = Literal[LIFECYCLES]  # type: ignore[valid-type]
Stage = Literal[DEAL_STAGES]  # type: ignore[valid-type]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
Amount = Annotated[float, Field(ge=0, allow_inf_nan=False, description="The deal value in USD")]
Domain = Annotated[
    str, Field(pattern=r"^[a-z0-9-]+(\.[a-z0-9-]+)+$", description="The company's web/email domain, e.g. acme.example")
]


def _company(ctx: ToolContext, company_id: str) -> CrmCompany:
    return ctx.get(CrmCompany, company_id, "company")


def _contact_of(ctx: ToolContext, contact_id: str, company_id: str) -> CrmContact:
    contact = ctx.get(CrmContact, contact_id, "contact")
    if contact.company_id != company_id:
        raise InvalidArgument(
            f"contact {contact_id} works at {contact.company_id}, not {company_id}", error="contact_not_at_company"
        )
    return contact


def _open_deal(ctx: ToolContext, deal_id: str) -> CrmDeal:
    deal = ctx.get(CrmDeal, deal_id, "deal")
    if deal.stage in CLOSED_STAGES:
        raise Conflict(f"deal {deal.id} is {deal.stage}: a closed deal can no longer change", error="deal_closed")
    return deal


# --- companies -----------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/crm/companies")
def crm_search_companies(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the company's name or domain")] = None,
    lifecycle: Annotated[Lifecycle | None, Field(description="Only companies at this lifecycle stage")] = None,
    industry: Annotated[str | None, Field(description="Text in the industry, e.g. hospitality")] = None,
    owner_email: Annotated[str | None, Field(description="Only accounts owned by this employee email")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search CRM companies (customer accounts and prospects) by name, domain, lifecycle, industry or owner."""
    text = None if query is None else or_(containing(CrmCompany.name, query), containing(CrmCompany.domain, query))
    statement = where_given(
        select(CrmCompany),
        text,
        None if lifecycle is None else CrmCompany.lifecycle == lifecycle,
        containing(CrmCompany.industry, industry),
        None if owner_email is None else CrmCompany.owner_email == owner_email.lower(),
    )
    return paged(ctx, statement.order_by(CrmCompany.name, CrmCompany.id), page, per_page)


@tool(SERVICE, "GET", "/crm/companies/{company_id}")
def crm_get_company(ctx: ToolContext, company_id: CompanyId) -> dict[str, Any]:
    """Get one CRM company with its contacts and deals."""
    company = _company(ctx, company_id)
    contacts = ctx.session.scalars(
        select(CrmContact).where(CrmContact.company_id == company.id).order_by(CrmContact.id)
    )
    deals = ctx.session.scalars(select(CrmDeal).where(CrmDeal.company_id == company.id).order_by(CrmDeal.id))
    return {**row_dict(company), "contacts": [row_dict(c) for c in contacts], "deals": [row_dict(d) for d in deals]}


@tool(SERVICE, "POST", "/crm/companies")
def crm_create_company(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The company's name")],
    domain: Domain,
    industry: Annotated[Text, Field(description="The company's industry, e.g. hospitality, retail")],
    owner_email: Annotated[Email | None, Field(description="Account owner (employee email); default: you")] = None,
    lifecycle: Annotated[Lifecycle, Field(description="prospect (default), customer or churned")] = "prospect",
) -> dict[str, Any]:
    """Create a CRM company (account); its domain must be new."""
    if ctx.session.scalar(select(CrmCompany).where(CrmCompany.domain == domain)) is not None:
        raise Conflict(f"a company with domain {domain} already exists", error="duplicate_domain")
    company = CrmCompany(
        id=ctx.next_id(CrmCompany),
        name=name,
        domain=domain,
        industry=industry,
        owner_email=(owner_email or me(ctx)).lower(),
        lifecycle=lifecycle,
        created_at=ctx.timestamp,
    )
    ctx.session.add(company)
    return row_dict(company)


@tool(SERVICE, "PATCH", "/crm/companies/{company_id}")
def crm_update_company(
    ctx: ToolContext,
    company_id: CompanyId,
    name: Annotated[Text | None, Field(description="New name")] = None,
    industry: Annotated[Text | None, Field(description="New industry")] = None,
    owner_email: Annotated[Email | None, Field(description="New account owner (employee email)")] = None,
    lifecycle: Annotated[Lifecycle | None, Field(description="New lifecycle: prospect, customer or churned")] = None,
) -> dict[str, Any]:
    """Update a CRM company's name, industry, account owner or lifecycle stage."""
    company = _company(ctx, company_id)
    apply_updates(
        company,
        name=name,
        industry=industry,
        owner_email=None if owner_email is None else owner_email.lower(),
        lifecycle=lifecycle,
    )
    return row_dict(company)


# --- contacts ------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/crm/contacts")
def crm_search_contacts(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the contact's name, email or title")] = None,
    company_id: Annotated[str | None, Field(description="Only contacts of this company id")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search CRM contacts (people at customer and prospect companies) by name, email, title or company."""
    text = None
    if query is not None:
        text = or_(
            containing(CrmContact.name, query), containing(CrmContact.email, query), containing(CrmContact.title, query)
        )
    statement = where_given(
        select(CrmContact), text, None if company_id is None else CrmContact.company_id == company_id
    )
    return paged(ctx, statement.order_by(CrmContact.name, CrmContact.id), page, per_page)


@tool(SERVICE, "GET", "/crm/contacts/{contact_id}")
def crm_get_contact(ctx: ToolContext, contact_id: ContactId) -> dict[str, Any]:
    """Get one CRM contact, with the name of their company."""
    contact = ctx.get(CrmContact, contact_id, "contact")
    return {**row_dict(contact), "company_name": _company(ctx, contact.company_id).name}


@tool(SERVICE, "POST", "/crm/contacts")
def crm_create_contact(
    ctx: ToolContext,
    company_id: CompanyId,
    name: Annotated[Text, Field(description="The person's full name")],
    email: Email,
    title: Annotated[str | None, Field(description="Job title")] = None,
    phone: Annotated[str | None, Field(description="Phone number")] = None,
) -> dict[str, Any]:
    """Create a contact (a person) at a CRM company; the email must be new."""
    company = _company(ctx, company_id)
    email = email.lower()
    if ctx.session.scalar(select(CrmContact).where(CrmContact.email == email)) is not None:
        raise Conflict(f"a contact with email {email} already exists", error="duplicate_email")
    contact = CrmContact(
        id=ctx.next_id(CrmContact),
        company_id=company.id,
        name=name,
        email=email,
        title=title,
        phone=phone,
        created_at=ctx.timestamp,
    )
    ctx.session.add(contact)
    return row_dict(contact)


@tool(SERVICE, "PATCH", "/crm/contacts/{contact_id}")
def crm_update_contact(
    ctx: ToolContext,
    contact_id: ContactId,
    name: Annotated[Text | None, Field(description="New full name")] = None,
    email: Annotated[Email | None, Field(description="New email address")] = None,
    title: Annotated[Text | None, Field(description="New job title")] = None,
    phone: Annotated[Text | None, Field(description="New phone number")] = None,
) -> dict[str, Any]:
    """Update a CRM contact's name, email, job title or phone."""
    contact = ctx.get(CrmContact, contact_id, "contact")
    if email is not None:
        email = email.lower()
        other = ctx.session.scalar(select(CrmContact).where(CrmContact.email == email, CrmContact.id != contact.id))
        if other is not None:
            raise Conflict(f"contact {other.id} already has email {email}", error="duplicate_email")
    apply_updates(contact, name=name, email=email, title=title, phone=phone)
    return row_dict(contact)


# --- deals ---------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/crm/deals")
def crm_search_deals(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the deal's name")] = None,
    company_id: Annotated[str | None, Field(description="Only deals of this company id")] = None,
    stage: Annotated[Stage | None, Field(description="Only deals at this pipeline stage")] = None,
    owner_email: Annotated[str | None, Field(description="Only deals owned by this employee email")] = None,
    open_only: Annotated[bool, Field(description="Only open deals (not closed_won/closed_lost)")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search deals (sales opportunities) in the pipeline by name, company, stage or owner."""
    statement = where_given(
        select(CrmDeal),
        containing(CrmDeal.name, query),
        None if company_id is None else CrmDeal.company_id == company_id,
        None if stage is None else CrmDeal.stage == stage,
        None if owner_email is None else CrmDeal.owner_email == owner_email.lower(),
        CrmDeal.stage.not_in(CLOSED_STAGES) if open_only else None,
    )
    return paged(ctx, statement.order_by(CrmDeal.close_date, CrmDeal.id), page, per_page)


@tool(SERVICE, "GET", "/crm/deals/{deal_id}")
def crm_get_deal(ctx: ToolContext, deal_id: DealId) -> dict[str, Any]:
    """Get one deal, with its company's name and its notes."""
    deal = ctx.get(CrmDeal, deal_id, "deal")
    notes = ctx.session.scalars(
        select(CrmNote).where(CrmNote.deal_id == deal.id).order_by(CrmNote.created_at, CrmNote.id)
    )
    return {
        **row_dict(deal),
        "company_name": _company(ctx, deal.company_id).name,
        "notes": [row_dict(n) for n in notes],
    }


@tool(SERVICE, "POST", "/crm/deals")
def crm_create_deal(
    ctx: ToolContext,
    company_id: CompanyId,
    name: Annotated[Text, Field(description="The deal's name, e.g. 'Harborview - Pool deck loungers'")],
    amount: Amount,
    close_date: Annotated[Day, Field(description="Expected close date, YYYY-MM-DD")],
    stage: Annotated[
        Stage, Field(description="Starting stage (default prospecting); not a closed stage")
    ] = "prospecting",
    contact_id: Annotated[str | None, Field(description="The main contact id at the company")] = None,
    owner_email: Annotated[Email | None, Field(description="Deal owner (employee email); default: you")] = None,
) -> dict[str, Any]:
    """Create a deal (sales opportunity) for a CRM company in the pipeline."""
    company = _company(ctx, company_id)
    if stage in CLOSED_STAGES:
        raise InvalidArgument(
            "a new deal starts at an open stage; close it with crm_move_deal_stage", error="bad_stage"
        )
    if contact_id is not None:
        _contact_of(ctx, contact_id, company.id)
    deal = CrmDeal(
        id=ctx.next_id(CrmDeal),
        company_id=company.id,
        contact_id=contact_id,
        name=name,
        amount=round(amount, 2),
        stage=stage,
        owner_email=(owner_email or me(ctx)).lower(),
        close_date=close_date,
        created_at=ctx.timestamp,
        updated_at=ctx.timestamp,
    )
    ctx.session.add(deal)
    return row_dict(deal)


@tool(SERVICE, "PATCH", "/crm/deals/{deal_id}")
def crm_update_deal(
    ctx: ToolContext,
    deal_id: DealId,
    name: Annotated[Text | None, Field(description="New deal name")] = None,
    amount: Annotated[Amount | None, Field(description="New deal value in USD")] = None,
    close_date: Annotated[Day | None, Field(description="New expected close date, YYYY-MM-DD")] = None,
    owner_email: Annotated[Email | None, Field(description="New deal owner (employee email)")] = None,
    contact_id: Annotated[str | None, Field(description="New main contact id at the deal's company")] = None,
) -> dict[str, Any]:
    """Update an open deal's name, amount, expected close date, owner or contact (stage: crm_move_deal_stage)."""
    deal = _open_deal(ctx, deal_id)
    if contact_id is not None:
        _contact_of(ctx, contact_id, deal.company_id)
    changed = apply_updates(
        deal,
        name=name,
        amount=None if amount is None else round(amount, 2),
        close_date=close_date,
        owner_email=None if owner_email is None else owner_email.lower(),
        contact_id=contact_id,
    )
    if changed:
        deal.updated_at = ctx.timestamp
    return row_dict(deal)


@tool(SERVICE, "POST", "/crm/deals/{deal_id}/stage")
def crm_move_deal_stage(
    ctx: ToolContext,
    deal_id: DealId,
    stage: Annotated[
        Stage,
        Field(description="The new stage: prospecting, qualified, proposal, negotiation, closed_won or closed_lost"),
    ],
    note: Annotated[Text | None, Field(description="Optional note on the deal explaining the move")] = None,
) -> dict[str, Any]:
    """Move an open deal to another pipeline stage, e.g. mark it won (closed_won) or lost (closed_lost).

    Closing a deal sets its close date to today; winning one makes a prospect company a customer."""
    deal = _open_deal(ctx, deal_id)
    if deal.stage == stage:
        raise Conflict(f"deal {deal.id} is already at {stage}", error="same_stage")
    deal.stage = stage
    deal.updated_at = ctx.timestamp
    if stage in CLOSED_STAGES:
        deal.close_date = ctx.timestamp[:10]
    if stage == "closed_won":
        company = _company(ctx, deal.company_id)
        if company.lifecycle != "customer":
            company.lifecycle = "customer"
    if note is not None:
        ctx.session.add(_note(ctx, deal.company_id, None, deal.id, note))
    return row_dict(deal)


# --- notes ---------------------------------------------------------------------------------------


def _note(ctx: ToolContext, company_id: str, contact_id: str | None, deal_id: str | None, body: str) -> CrmNote:
    return CrmNote(
        id=ctx.next_id(CrmNote),
        company_id=company_id,
        contact_id=contact_id,
        deal_id=deal_id,
        author_email=me(ctx),
        body=body,
        created_at=ctx.timestamp,
    )


@tool(SERVICE, "POST", "/crm/notes")
def crm_add_note(
    ctx: ToolContext,
    body: Annotated[Text, Field(description="The note text (call summary, next step, ...)")],
    company_id: Annotated[str | None, Field(description="The company the note is about")] = None,
    contact_id: Annotated[str | None, Field(description="The contact the note is about")] = None,
    deal_id: Annotated[str | None, Field(description="The deal the note is about")] = None,
) -> dict[str, Any]:
    """Log an activity note on a CRM company, contact or deal (give at least one; they must belong together)."""
    if company_id is None and contact_id is None and deal_id is None:
        raise InvalidArgument("give a company_id, contact_id or deal_id", error="missing_field")
    companies = set()
    if company_id is not None:
        companies.add(_company(ctx, company_id).id)
    if contact_id is not None:
        companies.add(ctx.get(CrmContact, contact_id, "contact").company_id)
    if deal_id is not None:
        companies.add(ctx.get(CrmDeal, deal_id, "deal").company_id)
    if len(companies) > 1:
        raise InvalidArgument("the company, contact and deal given belong to different companies", error="mismatch")
    note = _note(ctx, companies.pop(), contact_id, deal_id, body)
    ctx.session.add(note)
    return row_dict(note)


@tool(SERVICE, "GET", "/crm/notes")
def crm_list_notes(
    ctx: ToolContext,
    company_id: Annotated[
        str | None, Field(description="Only notes on this company (and its contacts and deals)")
    ] = None,
    contact_id: Annotated[str | None, Field(description="Only notes about this contact")] = None,
    deal_id: Annotated[str | None, Field(description="Only notes about this deal")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List CRM activity notes, newest first, of a company, contact or deal."""
    for model, key in ((CrmCompany, company_id), (CrmContact, contact_id), (CrmDeal, deal_id)):
        if key is not None and ctx.session.get(model, key) is None:
            raise NotFound(f"{model.__tablename__[4:-1]} {key!r} not found")
    statement = where_given(
        select(CrmNote),
        None if company_id is None else CrmNote.company_id == company_id,
        None if contact_id is None else CrmNote.contact_id == contact_id,
        None if deal_id is None else CrmNote.deal_id == deal_id,
    )
    return paged(ctx, statement.order_by(CrmNote.created_at.desc(), CrmNote.id.desc()), page, per_page)
