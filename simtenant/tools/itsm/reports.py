"""Reports: counts and averages computed in SQL (GROUP BY) over the records the acting user may
read. Each answers {group_by, counts: [{key, count}, ...] sorted by key (none last), total}."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Select, func, or_, select

from ...schema.itsm.changes import CHANGE_CATEGORIES, ChangeRequest
from ...schema.itsm.cmdb import CI_STATUSES, ConfigurationItem
from ...schema.itsm.identity import SysUser, UserGroup
from ...schema.itsm.incidents import CATEGORIES, INCIDENT_STATUSES, Incident
from ...schema.itsm.notifications import Notification
from ...schema.itsm.sla import STAGES, IncidentSLA, SLADefinition
from ..engine.dispatch import ToolContext
from ..engine.registry import tool
from .common_orm import InOrg, scoped

IncidentStatus = Literal[INCIDENT_STATUSES]  # type: ignore[valid-type]
Category = Literal[CATEGORIES]  # type: ignore[valid-type]
Stage = Literal[STAGES]  # type: ignore[valid-type]
ChangeCategory = Literal[CHANGE_CATEGORIES]  # type: ignore[valid-type]
CIStatus = Literal[CI_STATUSES]  # type: ignore[valid-type]
OPEN = ("new", "in_progress", "on_hold")


def _sort_key(row: dict[str, Any]) -> tuple[bool, Any]:
    return (row["key"] is None, row["key"] if row["key"] is not None else 0)


def _counts(ctx: ToolContext, query: Select, group_by: str, named: Any = None) -> dict[str, Any]:
    """Run ``query`` (selecting key, count) and shape the answer; ``named`` (a model with ``id``
    and ``name``) labels the keys with the names of its rows."""
    rows: list[dict[str, Any]] = [{"key": key, "count": count} for key, count in ctx.session.execute(query)]
    if named is not None:
        keys = [r["key"] for r in rows if r["key"] is not None]
        names = {key: name for key, name in ctx.session.execute(select(named.id, named.name).where(named.id.in_(keys)))}
        for row in rows:
            row["name"] = names.get(row["key"])
    rows.sort(key=_sort_key)
    return {"group_by": group_by, "counts": rows, "total": sum(r["count"] for r in rows)}


def _grouped(ctx: ToolContext, column: Any, model: Any, resource: str, org_id: str | None, *where: Any) -> Select:
    query = select(column, func.count()).select_from(model).where(*where).group_by(column)
    return scoped(ctx, query, model, resource, org_id)


OpenOnly = Annotated[bool, Field(description="Only open incidents (new, in_progress or on_hold)")]


def _incident_filters(
    status: str | None, category: str | None, group: str | None, open_only: bool = False
) -> list[Any]:
    where = [Incident.status.in_(OPEN)] if open_only else []
    if status is not None:
        where.append(Incident.status == status)
    if category is not None:
        where.append(Incident.category == category)
    if group is not None:
        where.append(Incident.assignment_group_id == group)
    return where


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
    return _counts(ctx, _grouped(ctx, Incident.priority, Incident, "incident", org_id, *where), "priority")


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
    query = _grouped(ctx, Incident.assignment_group_id, Incident, "incident", org_id, *where)
    return _counts(ctx, query, "assignment_group_id", UserGroup)


@tool("itsm.reports", "GET", "/itsm/reports/incidents-by-status")
def count_incidents_by_status(
    ctx: ToolContext,
    category: Annotated[Category | None, Field(description="Only incidents of this category")] = None,
    assignment_group_id: Annotated[str | None, Field(description="Only incidents assigned to this group")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count incidents per status."""
    where = _incident_filters(None, category, assignment_group_id)
    return _counts(ctx, _grouped(ctx, Incident.status, Incident, "incident", org_id, *where), "status")


@tool("itsm.reports", "GET", "/itsm/reports/open-incidents-by-assignee")
def count_open_incidents_by_assignee(
    ctx: ToolContext,
    assignment_group_id: Annotated[str | None, Field(description="Only incidents assigned to this group")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count open incidents (new, in_progress, on_hold) per assignee (key null: unassigned), with names."""
    where = [Incident.status.in_(OPEN), *_incident_filters(None, None, assignment_group_id)]
    query = _grouped(ctx, Incident.assigned_to_id, Incident, "incident", org_id, *where)
    return _counts(ctx, query, "assigned_to_id", SysUser)


@tool("itsm.reports", "GET", "/itsm/reports/breached-slas-by-stage")
def count_breached_slas_by_stage(
    ctx: ToolContext,
    priority: Annotated[int | None, Field(ge=1, le=5, description="Only clocks of incidents of this priority")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count breached SLA clocks per stage (response, resolution): clocks marked breached, and
    clocks still running past their breach time at the current time."""
    breached = or_(
        IncidentSLA.breached.is_(True),
        (IncidentSLA.state == "in_progress") & (IncidentSLA.breach_at < ctx.timestamp),
    )
    query = _grouped(ctx, IncidentSLA.stage, IncidentSLA, "sla", org_id, breached)
    if priority is not None:
        query = query.join(Incident, Incident.id == IncidentSLA.incident_id).where(Incident.priority == priority)
    return _counts(ctx, query, "stage")


@tool("itsm.reports", "GET", "/itsm/reports/notifications-by-channel")
def count_notifications_by_channel(
    ctx: ToolContext,
    recipient_id: Annotated[str | None, Field(description="Only notifications sent to this user")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count notifications sent per channel (email, sms, portal)."""
    where = [] if recipient_id is None else [Notification.recipient_id == recipient_id]
    return _counts(ctx, _grouped(ctx, Notification.channel, Notification, "notification", org_id, *where), "channel")


@tool("itsm.reports", "GET", "/itsm/reports/sla-target-by-priority")
def average_sla_target_by_priority(
    ctx: ToolContext,
    stage: Annotated[Stage | None, Field(description="Only SLAs of this stage")] = None,
    org_id: InOrg = None,
) -> Any:
    """Average SLA target (minutes) per priority, over the SLA definitions; each row also counts them."""
    where = [] if stage is None else [SLADefinition.stage == stage]
    query = scoped(
        ctx,
        select(SLADefinition.priority, func.avg(SLADefinition.target_minutes), func.count())
        .where(*where)
        .group_by(SLADefinition.priority),
        SLADefinition,
        "sla",
        org_id,
    )
    rows = [
        {"key": key, "average_target_minutes": round(float(avg), 2), "count": count}
        for key, avg, count in ctx.session.execute(query)
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
    where = [] if category is None else [ChangeRequest.category == category]
    return _counts(ctx, _grouped(ctx, ChangeRequest.status, ChangeRequest, "change", org_id, *where), "status")


@tool("itsm.reports", "GET", "/itsm/reports/configuration-items-by-class")
def count_configuration_items_by_class(
    ctx: ToolContext,
    status: Annotated[CIStatus | None, Field(description="Only items in this status")] = None,
    org_id: InOrg = None,
) -> Any:
    """Count configuration items per class (laptop, server, ...)."""
    where = [] if status is None else [ConfigurationItem.status == status]
    query = _grouped(ctx, ConfigurationItem.ci_class, ConfigurationItem, "cmdb", org_id, *where)
    return _counts(ctx, query, "ci_class")
