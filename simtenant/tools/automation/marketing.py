"""Marketing: mailing lists, their subscribers (subscribed, unsubscribed or bounced; one row per list
and address) and email campaigns (draft -> scheduled -> sent, or cancelled)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.marketing import (
    CAMPAIGN_STATUSES,
    SUBSCRIBER_SOURCES,
    SUBSCRIBER_STATUSES,
    MktCampaign,
    MktList,
    MktSubscriber,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Pages, Row, Statement, contains
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.marketing"
ListId = Annotated[str, Field(description="The mailing list id, e.g. LIST-01")]
SubscriberId = Annotated[str, Field(description="The subscriber id (one address on one list), e.g. SUB-0012")]
CampaignId = Annotated[str, Field(description="The campaign id, e.g. CMP-003")]
SubscriberStatus = Literal[SUBSCRIBER_STATUSES]  # type: ignore[valid-type]
Source = Literal[SUBSCRIBER_SOURCES]  # type: ignore[valid-type]
CampaignStatus = Literal[CAMPAIGN_STATUSES]  # type: ignore[valid-type]
Subject = Annotated[Text, Field(max_length=200, description="The email subject line")]
Body = Annotated[Text, Field(max_length=50_000, description="The email body text")]
WhenText = Annotated[
    str,
    Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z$", description="A UTC time, e.g. 2026-09-20T15:00:00Z"),
]

_LISTS, _SUBSCRIBERS, _CAMPAIGNS = MktList.__table__, MktSubscriber.__table__, MktCampaign.__table__
LISTS = Pages.of(select(_LISTS).order_by(_LISTS.c.id))
COUNTS = Statement.of(
    select(_SUBSCRIBERS.c.status, func.count().label("n"))
    .where(_SUBSCRIBERS.c.list_id == bindparam("list_id"))
    .group_by(_SUBSCRIBERS.c.status)
)
ON_LIST = Statement.of(
    select(_SUBSCRIBERS)
    .where(_SUBSCRIBERS.c.list_id == bindparam("list_id"), func.lower(_SUBSCRIBERS.c.email) == bindparam("email"))
    .order_by(_SUBSCRIBERS.c.id)
    .limit(1)
)
SUBSCRIBERS = Filtered(
    select(_SUBSCRIBERS),
    (_SUBSCRIBERS.c.email, _SUBSCRIBERS.c.list_id),
    list_id=_SUBSCRIBERS.c.list_id == bindparam("list_id"),
    status=_SUBSCRIBERS.c.status == bindparam("status"),
    query=or_(contains(_SUBSCRIBERS.c.email, "query"), contains(_SUBSCRIBERS.c.name, "query")),
)
CAMPAIGNS = Filtered(
    select(*(c for c in _CAMPAIGNS.c if c.name != "body")),
    (_CAMPAIGNS.c.id.desc(),),
    status=_CAMPAIGNS.c.status == bindparam("status"),
    list_id=_CAMPAIGNS.c.list_id == bindparam("list_id"),
)


def _list(ctx: ToolContext, list_id: str) -> Row:
    return ctx.rows.need(MktList, list_id, "mailing list")


def _campaign(ctx: ToolContext, campaign_id: str) -> Row:
    return ctx.rows.need(MktCampaign, campaign_id, "campaign")


def _draft(ctx: ToolContext, campaign_id: str) -> Row:
    campaign = _campaign(ctx, campaign_id)
    if campaign["status"] != "draft":
        raise Conflict(f"campaign {campaign_id} is {campaign['status']}; only a draft can change", error="not_draft")
    return campaign


def _counts(ctx: ToolContext, list_id: str) -> dict[str, int]:
    found = {r["status"]: r["n"] for r in ctx.rows.all(COUNTS, list_id=list_id)}
    return {status: found.get(status, 0) for status in SUBSCRIBER_STATUSES}


def _utc(text: str) -> str:
    """The time as canonical UTC text (seconds included), or a 400."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgument(f"{text!r} is not a valid time", error="invalid_time") from None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@tool(SERVICE, "GET", "/marketing/lists")
def mkt_list_lists(ctx: ToolContext, page: Page = 1, per_page: PerPage = 20) -> Any:
    """List the email marketing (mailing) lists, by id."""
    return ctx.rows.page(LISTS, page, per_page)


@tool(SERVICE, "GET", "/marketing/lists/{list_id}")
def mkt_get_list(ctx: ToolContext, list_id: ListId) -> Any:
    """Get one mailing list with how many of its addresses are subscribed, opted out and bounced."""
    return {**_list(ctx, list_id), "counts": _counts(ctx, list_id)}


@tool(SERVICE, "GET", "/marketing/subscribers")
def mkt_list_subscribers(
    ctx: ToolContext,
    list_id: Annotated[str | None, Field(description="Only subscribers of this list, e.g. LIST-01")] = None,
    status: Annotated[SubscriberStatus | None, Field(description="Only subscribers in this status")] = None,
    query: Annotated[str | None, Field(description="Only addresses or names containing this")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> Any:
    """List or search subscribers (contacts on mailing lists) by list, status, email or name, by address."""
    return ctx.rows.page(SUBSCRIBERS, page, per_page, list_id=list_id, status=status, query=query)


@tool(SERVICE, "POST", "/marketing/lists/{list_id}/subscribers")
def mkt_add_subscriber(
    ctx: ToolContext,
    list_id: ListId,
    email: Annotated[Email, Field(description="The contact's email address")],
    name: Annotated[Text | None, Field(description="The contact's full name")] = None,
    source: Annotated[Source, Field(description="Where the contact came from")] = "manual",
) -> Any:
    """Add (subscribe) an email address to a mailing list. An address already on that list, in any
    status, is refused (409): resubscribe it with mkt_update_subscriber instead."""
    _list(ctx, list_id)
    existing = ctx.rows.one(ON_LIST, list_id=list_id, email=email.lower())
    if existing is not None:
        raise Conflict(
            f"{email} is already on {list_id} as {existing['id']} ({existing['status']})", error="duplicate_subscriber"
        )
    subscriber = {
        "id": ctx.rows.next_id(MktSubscriber),
        "list_id": list_id,
        "email": email.lower(),
        "name": name,
        "status": "subscribed",
        "source": source,
        "subscribed_at": ctx.timestamp,
        "unsubscribed_at": None,
    }
    ctx.rows.insert(MktSubscriber, subscriber)
    return subscriber


@tool(SERVICE, "PATCH", "/marketing/subscribers/{subscriber_id}")
def mkt_update_subscriber(
    ctx: ToolContext,
    subscriber_id: SubscriberId,
    name: Annotated[Text | None, Field(description="New name")] = None,
    status: Annotated[
        Literal["subscribed", "unsubscribed"] | None,
        Field(description="unsubscribed to opt the address out of this list; subscribed to opt back in"),
    ] = None,
) -> Any:
    """Unsubscribe (opt out) a subscriber from their list or resubscribe them; or change their name. A
    bounced address cannot be resubscribed (409)."""
    subscriber = ctx.rows.need(MktSubscriber, subscriber_id, "subscriber")
    if status == "subscribed" and subscriber["status"] == "bounced":
        raise Conflict(f"{subscriber['email']} bounced and cannot be resubscribed", error="bounced_address")
    if "status" in update_given(ctx, MktSubscriber, subscriber, name=name, status=status):
        dates = {"unsubscribed_at": ctx.timestamp if status == "unsubscribed" else None}
        if status == "subscribed":
            dates["subscribed_at"] = ctx.timestamp
        ctx.rows.change(MktSubscriber, subscriber, dates)
    return subscriber


@tool(SERVICE, "DELETE", "/marketing/subscribers/{subscriber_id}")
def mkt_remove_subscriber(ctx: ToolContext, subscriber_id: SubscriberId) -> Any:
    """Delete a subscriber row from its list entirely (e.g. a data-deletion request); opting out is a status."""
    removed = ctx.rows.need(MktSubscriber, subscriber_id, "subscriber")
    ctx.rows.delete(MktSubscriber, subscriber_id)
    return {"removed": removed}


@tool(SERVICE, "GET", "/marketing/campaigns")
def mkt_list_campaigns(
    ctx: ToolContext,
    status: Annotated[CampaignStatus | None, Field(description="Only campaigns in this status")] = None,
    list_id: Annotated[str | None, Field(description="Only campaigns to this list")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List email campaigns (newest first) by status or list; bodies are left out, get one to read it."""
    return ctx.rows.page(CAMPAIGNS, page, per_page, status=status, list_id=list_id)


@tool(SERVICE, "GET", "/marketing/campaigns/{campaign_id}")
def mkt_get_campaign(ctx: ToolContext, campaign_id: CampaignId) -> Any:
    """Get one email campaign with its subject, body, list, status and schedule."""
    campaign = _campaign(ctx, campaign_id)
    return {**campaign, "list_name": _list(ctx, campaign["list_id"])["name"]}


@tool(SERVICE, "POST", "/marketing/campaigns")
def mkt_create_campaign(
    ctx: ToolContext,
    name: Annotated[Text, Field(max_length=200, description="An internal name for the campaign")],
    list_id: Annotated[str, Field(description="The mailing list it goes to, e.g. LIST-01")],
    subject: Annotated[Subject | None, Field(description="The email subject line")] = None,
    body: Annotated[Body | None, Field(description="The email body text")] = None,
) -> Any:
    """Create a draft email campaign to a mailing list (subject and body may come later)."""
    _list(ctx, list_id)
    campaign = {
        "id": ctx.rows.next_id(MktCampaign),
        "name": name,
        "list_id": list_id,
        "subject": subject,
        "body": body,
        "status": "draft",
        "scheduled_for": None,
        "sent_at": None,
        "recipients": None,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(MktCampaign, campaign)
    return campaign


@tool(SERVICE, "PATCH", "/marketing/campaigns/{campaign_id}")
def mkt_update_campaign(
    ctx: ToolContext,
    campaign_id: CampaignId,
    name: Annotated[Text | None, Field(max_length=200, description="New internal name")] = None,
    list_id: Annotated[str | None, Field(description="Another mailing list to send to")] = None,
    subject: Annotated[Subject | None, Field(description="New subject line")] = None,
    body: Annotated[Body | None, Field(description="New body text")] = None,
) -> Any:
    """Edit a draft campaign's name, list, subject or body (409 once scheduled, sent or cancelled)."""
    campaign = _draft(ctx, campaign_id)
    if list_id is not None:
        _list(ctx, list_id)
    if update_given(ctx, MktCampaign, campaign, name=name, list_id=list_id, subject=subject, body=body):
        ctx.rows.change(MktCampaign, campaign, {"updated_at": ctx.timestamp})
    return campaign


@tool(SERVICE, "POST", "/marketing/campaigns/{campaign_id}/schedule")
def mkt_schedule_campaign(
    ctx: ToolContext,
    campaign_id: CampaignId,
    scheduled_for: Annotated[WhenText, Field(description="When to send, a future UTC time, e.g. 2026-09-20T15:00:00Z")],
) -> Any:
    """Schedule a draft campaign to send at a future time: draft -> scheduled. It needs a subject, a
    body and at least one subscribed address on its list (409 otherwise)."""
    campaign = _draft(ctx, campaign_id)
    when = _utc(scheduled_for)
    if when <= ctx.timestamp:
        raise InvalidArgument(f"{when} is not in the future (now is {ctx.timestamp})", error="time_in_past")
    if not campaign["subject"] or not campaign["body"]:
        raise Conflict(f"campaign {campaign_id} needs a subject and a body before scheduling", error="incomplete")
    if _counts(ctx, campaign["list_id"])["subscribed"] == 0:
        raise Conflict(f"list {campaign['list_id']} has no subscribed address", error="empty_list")
    ctx.rows.change(MktCampaign, campaign, {"status": "scheduled", "scheduled_for": when, "updated_at": ctx.timestamp})
    return campaign


@tool(SERVICE, "POST", "/marketing/campaigns/{campaign_id}/cancel")
def mkt_cancel_campaign(ctx: ToolContext, campaign_id: CampaignId) -> Any:
    """Cancel a draft or scheduled campaign so it never sends (409 once sent or already cancelled)."""
    campaign = _campaign(ctx, campaign_id)
    if campaign["status"] not in ("draft", "scheduled"):
        raise Conflict(
            f"campaign {campaign_id} is {campaign['status']} and cannot be cancelled", error="not_cancellable"
        )
    ctx.rows.change(MktCampaign, campaign, {"status": "cancelled", "updated_at": ctx.timestamp})
    return campaign
