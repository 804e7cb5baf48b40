"""Marketing: mailing lists, their subscribers (subscribed, unsubscribed or bounced; one row per list
and address) and email campaigns (draft -> scheduled -> sent, or cancelled)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import func, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.marketing import (
    CAMPAIGN_STATUSES,
    SUBSCRIBER_SOURCES,
    SUBSCRIBER_STATUSES,
    MktCampaign,
    MktList,
    MktSubscriber,
)
from ..engine.dispatch import ToolContext, paged, row_dict
from ..engine.registry import Text, tool
from .common import Email, Page, PerPage, apply_updates, containing, me, where_given

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


def _list(ctx: ToolContext, list_id: str) -> MktList:
    return ctx.get(MktList, list_id, "mailing list")


def _campaign(ctx: ToolContext, campaign_id: str) -> MktCampaign:
    return ctx.get(MktCampaign, campaign_id, "campaign")


def _draft(ctx: ToolContext, campaign_id: str) -> MktCampaign:
    campaign = _campaign(ctx, campaign_id)
    if campaign.status != "draft":
        raise Conflict(f"campaign {campaign_id} is {campaign.status}; only a draft can change", error="not_draft")
    return campaign


def _counts(ctx: ToolContext, list_id: str) -> dict[str, int]:
    rows = ctx.session.execute(
        select(MktSubscriber.status, func.count())
        .where(MktSubscriber.list_id == list_id)
        .group_by(MktSubscriber.status)
    ).all()
    found = dict(rows)
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
    return paged(ctx, select(MktList).order_by(MktList.id), page, per_page)


@tool(SERVICE, "GET", "/marketing/lists/{list_id}")
def mkt_get_list(ctx: ToolContext, list_id: ListId) -> Any:
    """Get one mailing list with how many of its addresses are subscribed, opted out and bounced."""
    return {**row_dict(_list(ctx, list_id)), "counts": _counts(ctx, list_id)}


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
    selected = where_given(
        select(MktSubscriber),
        None if list_id is None else MktSubscriber.list_id == list_id,
        None if status is None else MktSubscriber.status == status,
        None if query is None else or_(containing(MktSubscriber.email, query), containing(MktSubscriber.name, query)),
    )
    return paged(ctx, selected.order_by(MktSubscriber.email, MktSubscriber.list_id), page, per_page)


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
    existing = ctx.session.scalar(
        select(MktSubscriber).where(MktSubscriber.list_id == list_id, func.lower(MktSubscriber.email) == email.lower())
    )
    if existing is not None:
        raise Conflict(
            f"{email} is already on {list_id} as {existing.id} ({existing.status})", error="duplicate_subscriber"
        )
    subscriber = MktSubscriber(
        id=ctx.next_id(MktSubscriber),
        list_id=list_id,
        email=email.lower(),
        name=name,
        status="subscribed",
        source=source,
        subscribed_at=ctx.timestamp,
    )
    ctx.session.add(subscriber)
    return row_dict(subscriber)


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
    subscriber = ctx.get(MktSubscriber, subscriber_id, "subscriber")
    if status == "subscribed" and subscriber.status == "bounced":
        raise Conflict(f"{subscriber.email} bounced and cannot be resubscribed", error="bounced_address")
    changed = apply_updates(subscriber, name=name, status=status)
    if "status" in changed:
        subscriber.unsubscribed_at = ctx.timestamp if status == "unsubscribed" else None
        if status == "subscribed":
            subscriber.subscribed_at = ctx.timestamp
    return row_dict(subscriber)


@tool(SERVICE, "DELETE", "/marketing/subscribers/{subscriber_id}")
def mkt_remove_subscriber(ctx: ToolContext, subscriber_id: SubscriberId) -> Any:
    """Delete a subscriber row from its list entirely (e.g. a data-deletion request); opting out is a status."""
    subscriber = ctx.get(MktSubscriber, subscriber_id, "subscriber")
    removed = row_dict(subscriber)
    ctx.session.delete(subscriber)
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
    query = where_given(
        select(MktCampaign),
        None if status is None else MktCampaign.status == status,
        None if list_id is None else MktCampaign.list_id == list_id,
    )
    result = paged(ctx, query.order_by(MktCampaign.id.desc()), page, per_page)
    for row in result["rows"]:
        row.pop("body")
    return result


@tool(SERVICE, "GET", "/marketing/campaigns/{campaign_id}")
def mkt_get_campaign(ctx: ToolContext, campaign_id: CampaignId) -> Any:
    """Get one email campaign with its subject, body, list, status and schedule."""
    campaign = _campaign(ctx, campaign_id)
    return {**row_dict(campaign), "list_name": _list(ctx, campaign.list_id).name}


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
    campaign = MktCampaign(
        id=ctx.next_id(MktCampaign),
        name=name,
        list_id=list_id,
        subject=subject,
        body=body,
        status="draft",
        created_by=me(ctx),
        created_at=ctx.timestamp,
        updated_at=ctx.timestamp,
    )
    ctx.session.add(campaign)
    return row_dict(campaign)


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
    if apply_updates(campaign, name=name, list_id=list_id, subject=subject, body=body):
        campaign.updated_at = ctx.timestamp
    return row_dict(campaign)


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
    if not campaign.subject or not campaign.body:
        raise Conflict(f"campaign {campaign_id} needs a subject and a body before scheduling", error="incomplete")
    if _counts(ctx, campaign.list_id)["subscribed"] == 0:
        raise Conflict(f"list {campaign.list_id} has no subscribed address", error="empty_list")
    campaign.status = "scheduled"
    campaign.scheduled_for = when
    campaign.updated_at = ctx.timestamp
    return row_dict(campaign)


@tool(SERVICE, "POST", "/marketing/campaigns/{campaign_id}/cancel")
def mkt_cancel_campaign(ctx: ToolContext, campaign_id: CampaignId) -> Any:
    """Cancel a draft or scheduled campaign so it never sends (409 once sent or already cancelled)."""
    campaign = _campaign(ctx, campaign_id)
    if campaign.status not in ("draft", "scheduled"):
        raise Conflict(f"campaign {campaign_id} is {campaign.status} and cannot be cancelled", error="not_cancellable")
    campaign.status = "cancelled"
    campaign.updated_at = ctx.timestamp
    return row_dict(campaign)
