"""Notification tools: send a user an email, SMS or portal message, optionally about a record, now
or scheduled for later; change or withdraw one still scheduled; list what was sent; and the
analytics of what went out — per status (read or not), per record, per recipient.

A notification that went out (sent, read or failed) is the record of what was said: it is never
changed or deleted (409 already_sent); a correction is a new notification. Only a scheduled one may
still be changed (update_notification) or withdrawn (delete_notification).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, case, func, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.itsm.changes import ChangeRequest
from ...schema.itsm.cmdb import ConfigurationItem
from ...schema.itsm.identity import SysUser
from ...schema.itsm.incidents import Incident
from ...schema.itsm.knowledge import KnowledgeArticle
from ...schema.itsm.notifications import CHANNELS, NOTIFICATION_STATUSES, Notification
from ...schema.itsm.problems import Problem
from ...schema.itsm.services import CatalogRequest, Service
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, one_of
from .common import (
    InOrg,
    Page,
    PerPage,
    apply_updates,
    audit,
    filled,
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
Status = Literal[NOTIFICATION_STATUSES]  # type: ignore[valid-type]
SVC = "itsm.notifications"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
NotificationId = Annotated[int, Field(description="A notification's id (list_notifications shows them), e.g. 12")]
ScheduledFor = Annotated[
    str | None,
    Field(description="Send it later, at this UTC time like 2026-05-20T07:00:00Z (it stays scheduled until then)"),
]

_NOTIFICATIONS = Notification.__table__
LISTED = Filtered(
    select(_NOTIFICATIONS),
    (_NOTIFICATIONS.c.id,),
    orgs=one_of(_NOTIFICATIONS.c.org_id, "orgs"),
    recipient_id=_NOTIFICATIONS.c.recipient_id == bindparam("recipient_id"),
    record_table=_NOTIFICATIONS.c.record_table == bindparam("record_table"),
    record_id=_NOTIFICATIONS.c.record_id == bindparam("record_id"),
    channel=_NOTIFICATIONS.c.channel == bindparam("channel"),
    status=_NOTIFICATIONS.c.status == bindparam("status"),
)
_USERS = SysUser.__table__
_NAMES = Statement.of(select(_USERS.c.id, _USERS.c.name).where(one_of(_USERS.c.id, "keys")))


def _analysed(key: Any, *extra: Any) -> Filtered:
    """Notifications grouped by ``key`` (and ``extra`` columns): how many, and how many read, unread (sent
    and not read), failed and still scheduled, in the organizations bound as ``orgs``, with the filters."""
    status = _NOTIFICATIONS.c.status

    def share(value: str) -> Any:
        return func.sum(case((status == value, 1), else_=0))

    query = select(
        key.label("key"),
        *extra,
        func.count().label("count"),
        share("read").label("read"),
        share("sent").label("unread"),
        share("failed").label("failed"),
        share("scheduled").label("scheduled"),
    ).group_by(key, *extra)
    return Filtered(
        query,
        (),
        orgs=one_of(_NOTIFICATIONS.c.org_id, "orgs"),
        recipient_id=_NOTIFICATIONS.c.recipient_id == bindparam("recipient_id"),
        record_table=_NOTIFICATIONS.c.record_table == bindparam("record_table"),
        record_id=_NOTIFICATIONS.c.record_id == bindparam("record_id"),
        channel=_NOTIFICATIONS.c.channel == bindparam("channel"),
        status=_NOTIFICATIONS.c.status == bindparam("status"),
    )


BY_STATUS = _analysed(_NOTIFICATIONS.c.status)
BY_RECORD = _analysed(_NOTIFICATIONS.c.record_id, _NOTIFICATIONS.c.record_table)
BY_RECIPIENT = _analysed(_NOTIFICATIONS.c.recipient_id)


def _utc_time(value: str, name: str) -> str:
    try:
        datetime.strptime(value, TIME_FORMAT)
    except ValueError:
        raise InvalidArgument(
            f"{name} must be a UTC time like 2026-05-20T07:00:00Z, got {value!r}", error="invalid_value"
        ) from None
    return value


def _later(ctx: ToolContext, value: str) -> str:
    """A scheduled time: well formed, and after now (400 invalid_value)."""
    _utc_time(value, "scheduled_for")
    if value <= ctx.timestamp:
        raise InvalidArgument(
            f"scheduled_for {value} is not after now ({ctx.timestamp}): send it now instead", error="invalid_value"
        )
    return value


def _view(ctx: ToolContext, notification: Row) -> dict[str, Any]:
    recipient = ctx.rows.get(SysUser, notification["recipient_id"])
    return {**notification, "recipient_name": recipient["name"] if recipient else None}


def _scheduled(ctx: ToolContext, notification_id: int) -> Row:
    """A notification the acting user may change that has not gone out yet; 409 already_sent otherwise."""
    notification = get_in_scope(ctx, Notification, notification_id, "notification", "notification", "crud")
    if notification["status"] != "scheduled":
        raise Conflict(
            f"notification {notification['id']} went out at {notification['created_at']} (status "
            f"{notification['status']}): what was sent stays on record; send a correction as a new notification",
            error="already_sent",
        )
    return notification


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
    scheduled_for: ScheduledFor = None,
) -> Any:
    """Send a notification to an active user, optionally about a record (give both record_table and
    record_id), now (status sent) or at a later time (scheduled_for: status scheduled, and until then it
    may still be changed or withdrawn). It belongs to the record's organization, and the recipient must
    be of it or work there (provider staff with a role in it), else 400 cross_organization; without a
    record, it belongs to the recipient's organization."""
    if (record_table is None) != (record_id is None):
        raise InvalidArgument("give record_table and record_id together, or neither", error="missing_field")
    if scheduled_for is not None:
        _later(ctx, scheduled_for)
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
        "status": "sent" if scheduled_for is None else "scheduled",
        "scheduled_for": scheduled_for,
        "read_at": None,
    }
    notification = {"id": ctx.rows.insert(Notification, values), **values}
    audit(ctx, "send_notification", "create", Notification, notification, filled(notification))
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
    status: Annotated[
        Status | None, Field(description="Only scheduled, sent (not read), read or failed notifications")
    ] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List notifications (sent, read, failed or still scheduled), oldest first, optionally filtered."""
    return ctx.rows.page(
        LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "notification", org_id),
        recipient_id=recipient_id,
        record_table=record_table,
        record_id=record_id,
        channel=channel,
        status=status,
    )


@tool(SVC, "GET", "/itsm/notifications/get")
def get_notification(ctx: ToolContext, notification_id: NotificationId) -> Any:
    """Look up one notification: recipient, channel, subject, body, the record it is about, its status
    (scheduled, sent, read, failed), when it was sent or is scheduled for, and when it was read."""
    return _view(ctx, get_in_scope(ctx, Notification, notification_id, "notification", "notification"))


@tool(SVC, "POST", "/itsm/notifications/update")
def update_notification(
    ctx: ToolContext,
    notification_id: NotificationId,
    recipient_id: Annotated[str | None, Field(description="Another recipient (an active user)")] = None,
    channel: Annotated[Channel | None, Field(description="Another channel: email, sms or portal")] = None,
    subject: Annotated[Text | None, Field(description="New subject line")] = None,
    body: Annotated[Text | None, Field(description="New message text")] = None,
    scheduled_for: ScheduledFor = None,
) -> Any:
    """Change a scheduled notification before it goes out (only the fields given): its recipient,
    channel, subject, body or time. One that went out already (sent, read or failed) is never changed
    (409 already_sent): send a correction as a new notification."""
    notification = _scheduled(ctx, notification_id)
    updates: dict[str, Any] = {
        k: v
        for k, v in {
            "recipient_id": recipient_id,
            "channel": channel,
            "subject": subject,
            "body": body,
            "scheduled_for": scheduled_for,
        }.items()
        if v is not None
    }
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if scheduled_for is not None:
        _later(ctx, scheduled_for)
    if recipient_id is not None:
        recipient = related(ctx, SysUser, recipient_id, "recipient", notification["org_id"])
        if not recipient["active"]:
            raise Conflict(
                f"recipient {recipient_id} ({recipient['name']}) is not an active user", error="inactive_user"
            )
    changed = apply_updates(ctx, Notification, notification, updates, updates)
    if changed:
        audit(ctx, "update_notification", "update", Notification, notification, changed)
    return {**_view(ctx, notification), "changed": changed}


@tool(SVC, "POST", "/itsm/notifications/delete")
def delete_notification(ctx: ToolContext, notification_id: NotificationId) -> Any:
    """Withdraw (delete) a scheduled notification that should not go out. One that went out already
    (sent, read or failed) is never deleted (409 already_sent)."""
    notification = _scheduled(ctx, notification_id)
    audit(ctx, "delete_notification", "delete", Notification, notification, filled(notification))
    ctx.rows.delete(Notification, notification["id"])
    return {**_view(ctx, notification), "deleted": True}


# --- analytics: what went out, to whom, read or not ------------------------------------------------


def _analytics(ctx: ToolContext, query: Filtered, org_id: str | None, **filters: Any) -> list[Row]:
    rows: list[Row] = ctx.rows.all(query, orgs=listed_orgs(ctx, "notification", org_id), **filters)
    rows.sort(key=lambda r: (r["key"] is None, r["key"] if r["key"] is not None else ""))
    return rows


AboutTable = Annotated[RecordTable | None, Field(description="Only notifications about this kind of record")]
AboutRecord = Annotated[str | None, Field(description="Only notifications about this record, e.g. INC0001007")]
ToRecipient = Annotated[str | None, Field(description="Only notifications sent to this user")]
OnChannel = Annotated[Channel | None, Field(description="Only notifications sent on this channel")]


@tool(SVC, "GET", "/itsm/notifications/analytics/by-status")
def count_notifications_by_status(
    ctx: ToolContext,
    record_table: AboutTable = None,
    record_id: AboutRecord = None,
    recipient_id: ToRecipient = None,
    channel: OnChannel = None,
    org_id: InOrg = None,
) -> Any:
    """Count notifications per status — read, sent (out but not read yet), failed, scheduled — e.g.
    how many of the notifications about an incident were read."""
    rows = _analytics(
        ctx,
        BY_STATUS,
        org_id,
        record_table=record_table,
        record_id=record_id,
        recipient_id=recipient_id,
        channel=channel,
    )
    counts = [{"key": r["key"], "count": r["count"]} for r in rows]
    return {"group_by": "status", "counts": counts, "total": sum(r["count"] for r in rows)}


@tool(SVC, "GET", "/itsm/notifications/analytics/by-record")
def count_notifications_by_record(
    ctx: ToolContext,
    record_table: AboutTable = None,
    recipient_id: ToRecipient = None,
    channel: OnChannel = None,
    status: Annotated[Status | None, Field(description="Only notifications in this status")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count notifications per record they are about (key null: about no record), each with how many
    were read, are unread (sent, not read), failed or still scheduled; and the average number of
    notifications per record that has any."""
    rows = _analytics(
        ctx, BY_RECORD, org_id, record_table=record_table, recipient_id=recipient_id, channel=channel, status=status
    )
    about = [r for r in rows if r["key"] is not None]
    average = round(sum(r["count"] for r in about) / len(about), 2) if about else 0.0
    return {
        "group_by": "record_id",
        "counts": rows,
        "total": sum(r["count"] for r in rows),
        "records": len(about),
        "average_per_record": average,
    }


@tool(SVC, "GET", "/itsm/notifications/analytics/by-recipient")
def count_notifications_by_recipient(
    ctx: ToolContext,
    record_table: AboutTable = None,
    record_id: AboutRecord = None,
    channel: OnChannel = None,
    status: Annotated[Status | None, Field(description="Only notifications in this status")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count notifications per recipient (with their names), each with how many they read, have not read
    (sent), could not be delivered (failed) or are still scheduled for them: who was told, and who has
    not read it."""
    rows = _analytics(
        ctx, BY_RECIPIENT, org_id, record_table=record_table, record_id=record_id, channel=channel, status=status
    )
    names = {n["id"]: n["name"] for n in ctx.rows.all(_NAMES, keys=[r["key"] for r in rows])}
    for row in rows:
        row["name"] = names.get(row["key"])
    return {"group_by": "recipient_id", "counts": rows, "total": sum(r["count"] for r in rows)}
