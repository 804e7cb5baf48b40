"""Notification tools: send a user an email, SMS or portal message, optionally about a record,
and list what was sent."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.itsm.changes import ChangeRequest
from ...schema.itsm.cmdb import ConfigurationItem
from ...schema.itsm.identity import SysUser
from ...schema.itsm.incidents import Incident
from ...schema.itsm.knowledge import KnowledgeArticle
from ...schema.itsm.notifications import CHANNELS, Notification
from ...schema.itsm.problems import Problem
from ...schema.itsm.services import CatalogRequest, Service
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, one_of
from .common import (
    InOrg,
    Page,
    PerPage,
    audit,
    get_in_scope,
    in_scope,
    listed_orgs,
    related,
    require,
    require_somewhere,
)

# The records a notification may be about: table name → (model, permission resource).
RECORDS: dict[str, tuple[type, str]] = {
    "incidents": (Incident, "incident"),
    "problems": (Problem, "problem"),
    "change_requests": (ChangeRequest, "change"),
    "knowledge_articles": (KnowledgeArticle, "knowledge"),
    "catalog_requests": (CatalogRequest, "request"),
    "configuration_items": (ConfigurationItem, "cmdb"),
    "services": (Service, "service"),
    "sys_users": (SysUser, "user"),
}
RecordTable = Literal[tuple(RECORDS)]  # type: ignore[valid-type]
Channel = Literal[CHANNELS]  # type: ignore[valid-type]
SVC = "itsm.notifications"

_NOTIFICATIONS = Notification.__table__
LISTED = Filtered(
    select(_NOTIFICATIONS),
    (_NOTIFICATIONS.c.id,),
    orgs=one_of(_NOTIFICATIONS.c.org_id, "orgs"),
    recipient_id=_NOTIFICATIONS.c.recipient_id == bindparam("recipient_id"),
    record_table=_NOTIFICATIONS.c.record_table == bindparam("record_table"),
    record_id=_NOTIFICATIONS.c.record_id == bindparam("record_id"),
    channel=_NOTIFICATIONS.c.channel == bindparam("channel"),
)


@tool(SVC, "POST", "/itsm/notifications/send")
def send_notification(
    ctx: ToolContext,
    recipient_id: Annotated[str, Field(description="The user to notify (user id)")],
    channel: Annotated[Channel, Field(description="email, sms or portal")],
    subject: Annotated[Text, Field(description="Subject line")],
    body: Annotated[Text, Field(description="Message text")],
    record_table: Annotated[
        RecordTable | None, Field(description="The kind of record it is about, e.g. incidents (with record_id)")
    ] = None,
    record_id: Annotated[str | None, Field(description="The id of the record it is about, e.g. INC0001001")] = None,
) -> Any:
    """Send a notification to an active user, optionally about a record (give both record_table and
    record_id). It belongs to the record's organization, and the recipient must be of it or work
    there (provider staff with a role in it), else 400 cross_organization; without a record, it
    belongs to the recipient's organization."""
    if (record_table is None) != (record_id is None):
        raise InvalidArgument("give record_table and record_id together, or neither", error="missing_field")
    require_somewhere(ctx, "notification", "crud")
    if record_table is not None and record_id is not None:
        model, resource = RECORDS[record_table]
        what = record_table.removesuffix("s").replace("_", " ")
        org = get_in_scope(ctx, model, record_id, what, resource)["org_id"]
        recipient = related(ctx, SysUser, recipient_id, "recipient", org)
    else:
        recipient = ctx.rows.get(SysUser, recipient_id)
        if recipient is None or not in_scope(ctx, recipient["org_id"]):
            raise NotFound(f"recipient {recipient_id!r} not found")
        org = recipient["org_id"]
    require(ctx, "notification", "crud", org)
    if not recipient["active"]:
        raise Conflict(f"recipient {recipient_id} ({recipient['name']}) is not an active user", error="inactive_user")
    values = {
        "org_id": org,
        "recipient_id": recipient["id"],
        "channel": channel,
        "subject": subject,
        "body": body,
        "record_table": record_table,
        "record_id": record_id,
        "created_at": ctx.timestamp,
    }
    notification = {"id": ctx.rows.insert(Notification, values), **values}
    audit(ctx, "send_notification", "create", Notification, notification, notification)
    return notification


@tool(SVC, "GET", "/itsm/notifications")
def list_notifications(
    ctx: ToolContext,
    recipient_id: Annotated[str | None, Field(description="Only notifications sent to this user")] = None,
    record_table: Annotated[
        RecordTable | None, Field(description="Only notifications about this kind of record")
    ] = None,
    record_id: Annotated[str | None, Field(description="Only notifications about this record")] = None,
    channel: Annotated[Channel | None, Field(description="Only notifications sent on this channel")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List notifications sent, oldest first, optionally filtered."""
    return ctx.rows.page(
        LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "notification", org_id),
        recipient_id=recipient_id,
        record_table=record_table,
        record_id=record_id,
        channel=channel,
    )
