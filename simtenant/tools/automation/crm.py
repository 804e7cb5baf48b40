"""CRM tools: companies, contacts, the deal pipeline (stage moves) and activity notes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, literal, or_, select

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
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me, update_given

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

_COMPANIES, _CONTACTS = CrmCompany.__table__, CrmContact.__table__
_DEALS, _NOTES = CrmDeal.__table__, CrmNote.__table__
COMPANIES = Filtered(
    select(_COMPANIES),
    (_COMPANIES.c.name, _COMPANIES.c.id),
    query=or_(contains(_COMPANIES.c.name, "query"), contains(_COMPANIES.c.domain, "query")),
    lifecycle=_COMPANIES.c.lifecycle == bindparam("lifecycle"),
    industry=contains(_COMPANIES.c.industry, "industry"),
    owner_email=_COMPANIES.c.owner_email == bindparam("owner_email"),
)
CONTACTS = Filtered(
    select(_CONTACTS),
    (_CONTACTS.c.name, _CONTACTS.c.id),
    query=or_(
        contains(_CONTACTS.c.name, "query"), contains(_CONTACTS.c.email, "query"), contains(_CONTACTS.c.title, "query")
    ),
    company_id=_CONTACTS.c.company_id == bindparam("company_id"),
)
# another contact with an email (emails are unique)
EMAIL_TAKEN = Statement.of(
    select(_CONTACTS.c.id)
    .where(_CONTACTS.c.email == bindparam("email"), _CONTACTS.c.id != bindparam("id"))
    .order_by(_CONTACTS.c.id)
)
DEALS = Filtered(
    select(_DEALS),
    (_DEALS.c.close_date, _DEALS.c.id),
    query=contains(_DEALS.c.name, "query"),
    company_id=_DEALS.c.company_id == bindparam("company_id"),
    stage=_DEALS.c.stage == bindparam("stage"),
    owner_email=_DEALS.c.owner_email == bindparam("owner_email"),
    open_only=_DEALS.c.stage.not_in([literal(stage) for stage in CLOSED_STAGES]),
)
NOTES = Filtered(
    select(_NOTES),
    (_NOTES.c.created_at.desc(), _NOTES.c.id.desc()),
    company_id=_NOTES.c.company_id == bindparam("company_id"),
    contact_id=_NOTES.c.contact_id == bindparam("contact_id"),
    deal_id=_NOTES.c.deal_id == bindparam("deal_id"),
)


def _lower(email: str | None) -> str | None:
    return None if email is None else email.lower()


def _company(ctx: ToolContext, company_id: str) -> Row:
    return ctx.rows.need(CrmCompany, company_id, "company")


def _contact_of(ctx: ToolContext, contact_id: str, company_id: str) -> Row:
    contact = ctx.rows.need(CrmContact, contact_id, "contact")
    if contact["company_id"] != company_id:
        raise InvalidArgument(
            f"contact {contact_id} works at {contact['company_id']}, not {company_id}", error="contact_not_at_company"
        )
    return contact


def _open_deal(ctx: ToolContext, deal_id: str) -> Row:
    deal = ctx.rows.need(CrmDeal, deal_id, "deal")
    if deal["stage"] in CLOSED_STAGES:
        raise Conflict(f"deal {deal['id']} is {deal['stage']}: a closed deal can no longer change", error="deal_closed")
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
    return ctx.rows.page(
        COMPANIES,
        page,
        per_page,
        query=query,
        lifecycle=lifecycle,
        industry=industry,
        owner_email=_lower(owner_email),
    )


@tool(SERVICE, "GET", "/crm/companies/{company_id}")
def crm_get_company(ctx: ToolContext, company_id: CompanyId) -> dict[str, Any]:
    """Get one CRM company with its contacts and deals."""
    company = _company(ctx, company_id)
    return {
        **company,
        "contacts": ctx.rows.find(CrmContact, ("id",), company_id=company["id"]),
        "deals": ctx.rows.find(CrmDeal, ("id",), company_id=company["id"]),
    }


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
    if ctx.rows.count(CrmCompany, domain=domain):
        raise Conflict(f"a company with domain {domain} already exists", error="duplicate_domain")
    company = {
        "id": ctx.rows.next_id(CrmCompany),
        "name": name,
        "domain": domain,
        "industry": industry,
        "owner_email": (owner_email or me(ctx)).lower(),
        "lifecycle": lifecycle,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(CrmCompany, company)
    return company


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
    update_given(
        ctx, CrmCompany, company, name=name, industry=industry, owner_email=_lower(owner_email), lifecycle=lifecycle
    )
    return company


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
    return ctx.rows.page(CONTACTS, page, per_page, query=query, company_id=company_id)


@tool(SERVICE, "GET", "/crm/contacts/{contact_id}")
def crm_get_contact(ctx: ToolContext, contact_id: ContactId) -> dict[str, Any]:
    """Get one CRM contact, with the name of their company."""
    contact = ctx.rows.need(CrmContact, contact_id, "contact")
    return {**contact, "company_name": _company(ctx, contact["company_id"])["name"]}


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
    if ctx.rows.count(CrmContact, email=email):
        raise Conflict(f"a contact with email {email} already exists", error="duplicate_email")
    contact = {
        "id": ctx.rows.next_id(CrmContact),
        "company_id": company["id"],
        "name": name,
        "email": email,
        "title": title,
        "phone": phone,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(CrmContact, contact)
    return contact


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
    contact = ctx.rows.need(CrmContact, contact_id, "contact")
    if email is not None:
        email = email.lower()
        other = ctx.rows.value(EMAIL_TAKEN, email=email, id=contact["id"])
        if other is not None:
            raise Conflict(f"contact {other} already has email {email}", error="duplicate_email")
    update_given(ctx, CrmContact, contact, name=name, email=email, title=title, phone=phone)
    return contact


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
    return ctx.rows.page(
        DEALS,
        page,
        per_page,
        query=query,
        company_id=company_id,
        stage=stage,
        owner_email=_lower(owner_email),
        open_only=open_only or None,
    )


@tool(SERVICE, "GET", "/crm/deals/{deal_id}")
def crm_get_deal(ctx: ToolContext, deal_id: DealId) -> dict[str, Any]:
    """Get one deal, with its company's name and its notes."""
    deal = ctx.rows.need(CrmDeal, deal_id, "deal")
    return {
        **deal,
        "company_name": _company(ctx, deal["company_id"])["name"],
        "notes": ctx.rows.find(CrmNote, ("created_at", "id"), deal_id=deal["id"]),
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
        _contact_of(ctx, contact_id, company["id"])
    deal = {
        "id": ctx.rows.next_id(CrmDeal),
        "company_id": company["id"],
        "contact_id": contact_id,
        "name": name,
        "amount": round(amount, 2),
        "stage": stage,
        "owner_email": (owner_email or me(ctx)).lower(),
        "close_date": close_date,
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(CrmDeal, deal)
    return deal


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
        _contact_of(ctx, contact_id, deal["company_id"])
    changed = update_given(
        ctx,
        CrmDeal,
        deal,
        name=name,
        amount=None if amount is None else round(amount, 2),
        close_date=close_date,
        owner_email=_lower(owner_email),
        contact_id=contact_id,
    )
    if changed:
        ctx.rows.change(CrmDeal, deal, {"updated_at": ctx.timestamp})
    return deal


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
    if deal["stage"] == stage:
        raise Conflict(f"deal {deal['id']} is already at {stage}", error="same_stage")
    moved = {"stage": stage, "updated_at": ctx.timestamp}
    if stage in CLOSED_STAGES:
        moved["close_date"] = ctx.timestamp[:10]
    ctx.rows.change(CrmDeal, deal, moved)
    if stage == "closed_won":
        ctx.rows.change(CrmCompany, _company(ctx, deal["company_id"]), {"lifecycle": "customer"})
    if note is not None:
        ctx.rows.insert(CrmNote, _note(ctx, deal["company_id"], None, deal["id"], note))
    return deal


# --- notes ---------------------------------------------------------------------------------------


def _note(ctx: ToolContext, company_id: str, contact_id: str | None, deal_id: str | None, body: str) -> Row:
    """A new note by the acting employee (its id taken, not yet written)."""
    return {
        "id": ctx.rows.next_id(CrmNote),
        "company_id": company_id,
        "contact_id": contact_id,
        "deal_id": deal_id,
        "author_email": me(ctx),
        "body": body,
        "created_at": ctx.timestamp,
    }


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
        companies.add(_company(ctx, company_id)["id"])
    if contact_id is not None:
        companies.add(ctx.rows.need(CrmContact, contact_id, "contact")["company_id"])
    if deal_id is not None:
        companies.add(ctx.rows.need(CrmDeal, deal_id, "deal")["company_id"])
    if len(companies) > 1:
        raise InvalidArgument("the company, contact and deal given belong to different companies", error="mismatch")
    note = _note(ctx, companies.pop(), contact_id, deal_id, body)
    ctx.rows.insert(CrmNote, note)
    return note


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
        if key is not None and ctx.rows.get(model, key) is None:
            raise NotFound(f"{model.__tablename__[4:-1]} {key!r} not found")
    return ctx.rows.page(NOTES, page, per_page, company_id=company_id, contact_id=contact_id, deal_id=deal_id)
