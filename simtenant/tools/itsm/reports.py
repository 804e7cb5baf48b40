"""Reports: counts and averages computed in SQL (GROUP BY) over the records the acting user may
read. Each answers {group_by, counts: [{key, count}, ...] sorted by key (none last), total}."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, or_, select

from ...schema.itsm.changes import CHANGE_CATEGORIES, ChangeRequest
from ...schema.itsm.cmdb import CI_STATUSES, ConfigurationItem
from ...schema.itsm.identity import SysUser, UserGroup
from ...schema.itsm.incidents import CATEGORIES, INCIDENT_STATUSES, Incident
from ...schema.itsm.notifications import NOTIFICATION_STATUSES, Notification
from ...schema.itsm.sla import STAGES, IncidentSLA, SLADefinition
from ..engine.dispatch import ToolContext
from ..engine.registry import tool
from ..engine.rows import Filtered, Row, Statement, one_of
from .common import InOrg, listed_orgs

IncidentStatus = Literal[INCIDENT_STATUSES]  # type: ignore[valid-type]
Category = Literal[CATEGORIES]  # type: ignore[valid-type]
Stage = Literal[STAGES]  # type: ignore[valid-type]
ChangeCategory = Literal[CHANGE_CATEGORIES]  # type: ignore[valid-type]
CIStatus = Literal[CI_STATUSES]  # type: ignore[valid-type]
NotificationStatus = Literal[NOTIFICATION_STATUSES]  # type: ignore[valid-type]
OPEN = ("new", "in_progress", "on_hold")

_INCIDENTS, _CLOCKS, _SLAS = Incident.__table__, IncidentSLA.__table__, SLADefinition.__table__
_CHANGES, _CIS, _NOTIFICATIONS = ChangeRequest.__table__, ConfigurationItem.__table__, Notification.__table__


def _grouped(column: Any, *where: Any, **conditions: Any) -> Filtered:
    """Rows {key, count} of ``column``'s table grouped by ``column``, in the organizations bound as
    ``orgs``, with optional ``conditions``."""
    table = column.table
    query = select(column.label("key"), func.count().label("count")).where(*where).group_by(column)
    return Filtered(query, (), orgs=one_of(table.c.org_id, "orgs"), **conditions)


def _incidents_by(column: Any) -> Filtered:
    return _grouped(
        column,
        open=one_of(_INCIDENTS.c.status, "open"),
        status=_INCIDENTS.c.status == bindparam("status"),
        category=_INCIDENTS.c.category == bindparam("category"),
        group=_INCIDENTS.c.assignment_group_id == bindparam("group"),
    )


BY_PRIORITY = _incidents_by(_INCIDENTS.c.priority)
BY_GROUP = _incidents_by(_INCIDENTS.c.assignment_group_id)
BY_STATUS = _incidents_by(_INCIDENTS.c.status)
BY_ASSIGNEE = _incidents_by(_INCIDENTS.c.assigned_to_id)
BREACHED_BY_STAGE = _grouped(
    _CLOCKS.c.stage,
    or_(
        _CLOCKS.c.breached.is_(True),
        (_CLOCKS.c.state == "in_progress") & (_CLOCKS.c.breach_at < bindparam("now")),
    ),
    priority=_CLOCKS.c.incident_id.in_(
        select(_INCIDENTS.c.id).where(_INCIDENTS.c.priority == bindparam("priority")).scalar_subquery()
    ),
)
NOTIFICATIONS_BY_CHANNEL = _grouped(
    _NOTIFICATIONS.c.channel,
    recipient_id=_NOTIFICATIONS.c.recipient_id == bindparam("recipient_id"),
    status=_NOTIFICATIONS.c.status == bindparam("status"),
)
CHANGES_BY_STATE = _grouped(_CHANGES.c.status, category=_CHANGES.c.category == bindparam("category"))
CIS_BY_CLASS = _grouped(_CIS.c.ci_class, status=_CIS.c.status == bindparam("status"))
SLA_TARGETS = Filtered(
    select(
        _SLAS.c.priority.label("key"),
        func.avg(_SLAS.c.target_minutes).label("average"),
        func.count().label("count"),
    ).group_by(_SLAS.c.priority),
    (),
    orgs=one_of(_SLAS.c.org_id, "orgs"),
    stage=_SLAS.c.stage == bindparam("stage"),
)
NAMES = {
    model: Statement.of(
        select(model.__table__.c.id, model.__table__.c.name).where(one_of(model.__table__.c.id, "keys"))
    )
    for model in (UserGroup, SysUser)
}


def _sort_key(row: dict[str, Any]) -> tuple[bool, Any]:
    return (row["key"] is None, row["key"] if row["key"] is not None else 0)


def _counts(
    ctx: ToolContext,
    query: Filtered,
    group_by: str,
    resource: str,
    org_id: str | None,
    named: Any = None,
    **values: Any,
) -> dict[str, Any]:
    """Run ``query`` (rows {key, count}) over the organizations where the acting user may read
    ``resource`` (``org_id`` alone when given) and shape the answer; ``named`` (a model with ``id``
    and ``name``) labels the keys with the names of its rows."""
    rows: list[Row] = ctx.rows.all(query, orgs=listed_orgs(ctx, resource, org_id), **values)
    if named is not None:
        keys = [r["key"] for r in rows if r["key"] is not None]
        names = {found["id"]: found["name"] for found in ctx.rows.all(NAMES[named], keys=keys)}
        for row in rows:
            row["name"] = names.get(row["key"])
    rows.sort(key=_sort_key)
    return {"group_by": group_by, "counts": rows, "total": sum(r["count"] for r in rows)}


OpenOnly = Annotated[bool, Field(description="Only open incidents (new, in_progress or on_hold)")]


def _incident_filters(
    status: str | None, category: str | None, group: str | None, open_only: bool = False
) -> dict[str, Any]:
    return {"open": list(OPEN) if open_only else None, "status": status, "category": category, "group": group}


@tool("itsm.reports", "GET", "/itsm/reports/incidents-by-priority")
def count_incidents_by_priority(
    ctx: ToolContext,
    status: Annotated[IncidentStatus | None, Field(description="Only incidents in this status")] = None,
    category: Annotated[Category | None, Field(description="Only incidents of this category")] = None,
    assignment_group_id: Annotated[str | None, Field(description="Only incidents assigned to this group")] = None,
    open_only: OpenOnly = False,
    org_id: InOrg = None,
) -> Any:
    """Count incidents per priority (1 critical … 5 planning)."""
    where = _incident_filters(status, category, assignment_group_id, open_only)
    return _counts(ctx, BY_PRIORITY, "priority", "incident", org_id, **where)


@tool("itsm.reports", "GET", "/itsm/reports/incidents-by-group")
def count_incidents_by_group(
    ctx: ToolContext,
    status: Annotated[IncidentStatus | None, Field(description="Only incidents in this status")] = None,
    category: Annotated[Category | None, Field(description="Only incidents of this category")] = None,
    open_only: OpenOnly = False,
    org_id: InOrg = None,
) -> Any:
    """Count incidents per assignment group (key null: unassigned), with each group's name."""
    where = _incident_filters(status, category, None, open_only)
    return _counts(ctx, BY_GROUP, "assignment_group_id", "incident", org_id, UserGroup, **where)


@tool("itsm.reports", "GET", "/itsm/reports/incidents-by-status")
def count_incidents_by_status(
    ctx: ToolContext,
    category: Annotated[Category | None, Field(description="Only incidents of this category")] = None,
    assignment_group_id: Annotated[str | None, Field(description="Only incidents assigned to this group")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count incidents per status."""
    where = _incident_filters(None, category, assignment_group_id)
    return _counts(ctx, BY_STATUS, "status", "incident", org_id, **where)


@tool("itsm.reports", "GET", "/itsm/reports/open-incidents-by-assignee")
def count_open_incidents_by_assignee(
    ctx: ToolContext,
    assignment_group_id: Annotated[str | None, Field(description="Only incidents assigned to this group")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count open incidents (new, in_progress, on_hold) per assignee (key null: unassigned), with names."""
    where = _incident_filters(None, None, assignment_group_id, open_only=True)
    return _counts(ctx, BY_ASSIGNEE, "assigned_to_id", "incident", org_id, SysUser, **where)


@tool("itsm.reports", "GET", "/itsm/reports/breached-slas-by-stage")
def count_breached_slas_by_stage(
    ctx: ToolContext,
    priority: Annotated[int | None, Field(ge=1, le=5, description="Only clocks of incidents of this priority")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count breached SLA clocks per stage (response, resolution): clocks marked breached, and
    clocks still running past their breach time at the current time."""
    return _counts(ctx, BREACHED_BY_STAGE, "stage", "sla", org_id, now=ctx.timestamp, priority=priority)


@tool("itsm.reports", "GET", "/itsm/reports/notifications-by-channel")
def count_notifications_by_channel(
    ctx: ToolContext,
    recipient_id: Annotated[str | None, Field(description="Only notifications sent to this user")] = None,
    status: Annotated[
        NotificationStatus | None, Field(description="Only notifications in this status: scheduled, sent, read, failed")
    ] = None,
    org_id: InOrg = None,
) -> Any:
    """Count notifications per channel (email, sms, portal), of every status or of one."""
    return _counts(
        ctx, NOTIFICATIONS_BY_CHANNEL, "channel", "notification", org_id, recipient_id=recipient_id, status=status
    )


@tool("itsm.reports", "GET", "/itsm/reports/sla-target-by-priority")
def average_sla_target_by_priority(
    ctx: ToolContext,
    stage: Annotated[Stage | None, Field(description="Only SLAs of this stage")] = None,
    org_id: InOrg = None,
) -> Any:
    """Average SLA target (minutes) per priority, over the SLA definitions; each row also counts them."""
    found = ctx.rows.all(SLA_TARGETS, orgs=listed_orgs(ctx, "sla", org_id), stage=stage)
    rows = [
        {"key": r["key"], "average_target_minutes": round(float(r["average"]), 2), "count": r["count"]} for r in found
    ]
    rows.sort(key=_sort_key)
    return {"group_by": "priority", "counts": rows, "total": sum(r["count"] for r in rows)}


@tool("itsm.reports", "GET", "/itsm/reports/changes-by-state")
def count_changes_by_state(
    ctx: ToolContext,
    category: Annotated[ChangeCategory | None, Field(description="Only changes of this category")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count change requests per state (new, assess, authorize, scheduled, ...)."""
    return _counts(ctx, CHANGES_BY_STATE, "status", "change", org_id, category=category)


@tool("itsm.reports", "GET", "/itsm/reports/configuration-items-by-class")
def count_configuration_items_by_class(
    ctx: ToolContext,
    status: Annotated[CIStatus | None, Field(description="Only items in this status")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count configuration items per class (laptop, server, ...)."""
    return _counts(ctx, CIS_BY_CLASS, "ci_class", "cmdb", org_id, status=status)
