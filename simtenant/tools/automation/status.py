"""Status page tools: the components customers see (and their state), incidents with their public
timeline of updates, scheduled maintenance windows, and the subscribers notified of both.

The rules the tools keep: an incident or maintenance names at least one component, none archived;
a resolved incident takes no more updates, and resolving one puts its components back to operational
unless another open incident still affects them; maintenance is scheduled in the future, ends after it
starts, and only a scheduled window changes or is cancelled; a subscriber is subscribed once to a
component (or to every one). Updates and notices go to the active subscribers of the components
affected (and those subscribed to every component) unless told not to notify; ``notified`` counts them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, distinct, func, literal, or_, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.automation.status import (
    COMPONENT_STATES,
    IMPACTS,
    INCIDENT_STATUSES,
    MAINTENANCE_STATUSES,
    SUBSCRIBER_STATUSES,
    StatusComponent,
    StatusIncident,
    StatusIncidentComponent,
    StatusIncidentUpdate,
    StatusMaintenance,
    StatusMaintenanceComponent,
    StatusSubscriber,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains, one_of
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.status"
FORMAT = "%Y-%m-%dT%H:%M:%SZ"

ComponentId = Annotated[str, Field(description="A status page component id, e.g. COMP-02")]
IncidentId = Annotated[str, Field(description="A status page incident id, e.g. INC-0004")]
MaintenanceId = Annotated[str, Field(description="A maintenance window id, e.g. MNT-0003")]
SubscriberId = Annotated[str, Field(description="A subscriber id, e.g. SBR-0004")]
ComponentIds = Annotated[
    list[str], Field(min_length=1, max_length=20, description="The affected component ids, e.g. ['COMP-02']")
]
DateTime = Annotated[
    str,
    Field(
        pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$",
        description="A UTC date and time, e.g. 2026-09-26T06:00:00Z",
    ),
]
State = Literal[COMPONENT_STATES]  # type: ignore[valid-type]
IncidentStatus = Literal[INCIDENT_STATUSES]  # type: ignore[valid-type]
OpenStatus = Literal[INCIDENT_STATUSES[:3]]  # type: ignore[valid-type]
Impact = Literal[IMPACTS]  # type: ignore[valid-type]
MaintenanceStatus = Literal[MAINTENANCE_STATUSES]  # type: ignore[valid-type]
SubscriberStatus = Literal[SUBSCRIBER_STATUSES]  # type: ignore[valid-type]
Notify = Annotated[bool, Field(description="Send it to the subscribers of the affected components (default true)")]
DISRUPTED = tuple(s for s in COMPONENT_STATES if s not in ("operational", "under_maintenance"))

_COMPONENTS, _INCIDENTS, _UPDATES = StatusComponent.__table__, StatusIncident.__table__, StatusIncidentUpdate.__table__
_AFFECTS, _WINDOWS, _COVERS = (
    StatusIncidentComponent.__table__,
    StatusMaintenance.__table__,
    StatusMaintenanceComponent.__table__,
)
_SUBSCRIBERS = StatusSubscriber.__table__

COMPONENTS = Filtered(
    select(_COMPONENTS),
    (_COMPONENTS.c.position, _COMPONENTS.c.id),
    shown=_COMPONENTS.c.archived.is_(False),
    query=contains(_COMPONENTS.c.name, "query"),
)
INCIDENTS = Filtered(
    select(_INCIDENTS),
    (_INCIDENTS.c.started_at.desc(), _INCIDENTS.c.id.desc()),
    status=_INCIDENTS.c.status == bindparam("status"),
    open_only=_INCIDENTS.c.status != "resolved",
    query=contains(_INCIDENTS.c.title, "query"),
    component_id=_INCIDENTS.c.id.in_(
        select(_AFFECTS.c.incident_id).where(_AFFECTS.c.component_id == bindparam("component_id"))
    ),
)
MAINTENANCES = Filtered(
    select(_WINDOWS),
    (_WINDOWS.c.starts_at, _WINDOWS.c.id),
    status=_WINDOWS.c.status == bindparam("status"),
    component_id=_WINDOWS.c.id.in_(
        select(_COVERS.c.maintenance_id).where(_COVERS.c.component_id == bindparam("component_id"))
    ),
    after=_WINDOWS.c.ends_at > bindparam("after"),
    before=_WINDOWS.c.starts_at < bindparam("before"),
)
SUBSCRIBERS = Filtered(
    select(_SUBSCRIBERS),
    (_SUBSCRIBERS.c.id,),
    component_id=_SUBSCRIBERS.c.component_id == bindparam("component_id"),
    every_component=_SUBSCRIBERS.c.component_id.is_(None),
    email=contains(_SUBSCRIBERS.c.email, "email"),
    status=_SUBSCRIBERS.c.status == bindparam("status"),
)
_NAMED = select(_COMPONENTS.c.id, _COMPONENTS.c.name, _COMPONENTS.c.status)
INCIDENT_COMPONENTS = Statement.of(
    _NAMED.where(
        _COMPONENTS.c.id.in_(select(_AFFECTS.c.component_id).where(_AFFECTS.c.incident_id == bindparam("incident_id")))
    ).order_by(_COMPONENTS.c.position)
)
MAINTENANCE_COMPONENTS = Statement.of(
    _NAMED.where(
        _COMPONENTS.c.id.in_(
            select(_COVERS.c.component_id).where(_COVERS.c.maintenance_id == bindparam("maintenance_id"))
        )
    ).order_by(_COMPONENTS.c.position)
)
TIMELINE = Statement.of(
    select(_UPDATES)
    .where(_UPDATES.c.incident_id == bindparam("incident_id"))
    .order_by(_UPDATES.c.posted_at, _UPDATES.c.id)
)
# the active subscribers notified about these components: theirs and everyone's
AUDIENCE = Statement.of(
    select(func.count(distinct(func.lower(_SUBSCRIBERS.c.email))).label("people")).where(
        _SUBSCRIBERS.c.status == "active",
        or_(_SUBSCRIBERS.c.component_id.is_(None), one_of(_SUBSCRIBERS.c.component_id, "components")),
    )
)
# another open incident on the component (it stays disrupted when one is resolved)
OTHER_OPEN = Statement.of(
    select(_AFFECTS.c.incident_id)
    .select_from(_AFFECTS.join(_INCIDENTS, _INCIDENTS.c.id == _AFFECTS.c.incident_id))
    .where(
        _AFFECTS.c.component_id == bindparam("component_id"),
        _AFFECTS.c.incident_id != bindparam("incident_id"),
        _INCIDENTS.c.status != "resolved",
    )
    .limit(1)
)
ACTIVE_MAINTENANCE = Statement.of(
    select(_COVERS.c.maintenance_id)
    .select_from(_COVERS.join(_WINDOWS, _WINDOWS.c.id == _COVERS.c.maintenance_id))
    .where(
        _COVERS.c.component_id == bindparam("component_id"),
        _COVERS.c.maintenance_id != bindparam("maintenance_id"),
        _WINDOWS.c.status == literal("in_progress"),
    )
    .limit(1)
)
_ACTIVE_EMAIL = select(_SUBSCRIBERS.c.id).where(
    func.lower(_SUBSCRIBERS.c.email) == bindparam("email"), _SUBSCRIBERS.c.status == "active"
)
SUBSCRIBED_TO = Statement.of(_ACTIVE_EMAIL.where(_SUBSCRIBERS.c.component_id == bindparam("component_id")))
SUBSCRIBED_TO_ALL = Statement.of(_ACTIVE_EMAIL.where(_SUBSCRIBERS.c.component_id.is_(None)))
NAME_TAKEN = Statement.of(select(_COMPONENTS.c.id).where(func.lower(_COMPONENTS.c.name) == bindparam("name")))
LAST_POSITION = Statement.of(select(func.coalesce(func.max(_COMPONENTS.c.position), 0).label("last")))


def _moment(value: str, field: str) -> datetime:
    try:
        return datetime.strptime(value, FORMAT)
    except ValueError:
        raise InvalidArgument(f"{field}: {value!r} is not a valid date and time", error="invalid_value") from None


def _component(ctx: ToolContext, component_id: str) -> Row:
    return ctx.rows.need(StatusComponent, component_id, "component")


def _shown(ctx: ToolContext, component_ids: list[str]) -> list[Row]:
    """The components named (each once, none archived), in the order given."""
    if len(set(component_ids)) != len(component_ids):
        raise InvalidArgument("a component is named twice", error="duplicate_component")
    components = [_component(ctx, c) for c in component_ids]
    for component in components:
        if component["archived"]:
            raise Conflict(
                f"component {component['id']} ({component['name']}) is archived and no longer shown",
                error="component_archived",
            )
    return components


def _audience(ctx: ToolContext, component_ids: list[str]) -> int:
    return ctx.rows.value(AUDIENCE, components=component_ids)


def _set_state(ctx: ToolContext, component: Row, state: str) -> None:
    ctx.rows.change(StatusComponent, component, {"status": state, "updated_at": ctx.timestamp})


def _incident(ctx: ToolContext, incident_id: str) -> Row:
    return ctx.rows.need(StatusIncident, incident_id, "incident")


def _incident_view(ctx: ToolContext, incident: Row) -> dict[str, Any]:
    return {
        **incident,
        "components": ctx.rows.all(INCIDENT_COMPONENTS, incident_id=incident["id"]),
        "updates": ctx.rows.all(TIMELINE, incident_id=incident["id"]),
    }


def _affected(ctx: ToolContext, incident_id: str) -> list[str]:
    return [c["id"] for c in ctx.rows.all(INCIDENT_COMPONENTS, incident_id=incident_id)]


def _post(ctx: ToolContext, incident: Row, status: str, body: str, notify: bool) -> Row:
    update = {
        "id": ctx.rows.next_id(StatusIncidentUpdate),
        "incident_id": incident["id"],
        "status": status,
        "body": body,
        "notified": _audience(ctx, _affected(ctx, incident["id"])) if notify else 0,
        "posted_by": me(ctx),
        "posted_at": ctx.timestamp,
    }
    ctx.rows.insert(StatusIncidentUpdate, update)
    return update


def _maintenance(ctx: ToolContext, maintenance_id: str) -> Row:
    return ctx.rows.need(StatusMaintenance, maintenance_id, "maintenance")


def _maintenance_view(ctx: ToolContext, window: Row) -> dict[str, Any]:
    return {**window, "components": ctx.rows.all(MAINTENANCE_COMPONENTS, maintenance_id=window["id"])}


def _window_state(ctx: ToolContext, maintenance_id: str, status: str) -> Row:
    window = _maintenance(ctx, maintenance_id)
    if window["status"] != status:
        raise Conflict(f"maintenance {maintenance_id} is {window['status']}, not {status}", error="wrong_state")
    return window


def _check_window(ctx: ToolContext, starts_at: str, ends_at: str) -> None:
    start, end = _moment(starts_at, "starts_at"), _moment(ends_at, "ends_at")
    if end <= start:
        raise InvalidArgument(f"ends_at {ends_at} must be after starts_at {starts_at}", error="invalid_range")
    if starts_at < ctx.timestamp:
        raise InvalidArgument(f"starts_at {starts_at} is in the past", error="in_the_past")


# --- components ----------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/status/components")
def status_list_components(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the component's name, e.g. portal")] = None,
    include_archived: Annotated[bool, Field(description="Also list archived (retired) components")] = False,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """List the status page's components (the services customers see, e.g. online store, Trade Portal) with
    their current state: operational, degraded_performance, partial_outage, major_outage or under_maintenance."""
    return ctx.rows.page(COMPONENTS, page, per_page, query=query, shown=None if include_archived else True)


@tool(SERVICE, "POST", "/status/components")
def status_create_component(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The service's name as customers know it (unique)")],
    description: Annotated[Text, Field(description="What the service is, one line")],
) -> dict[str, Any]:
    """Add a component (a service) to the status page, operational, shown last; a name in use is refused (409)."""
    taken = ctx.rows.value(NAME_TAKEN, name=name.lower())
    if taken is not None:
        raise Conflict(f"component {taken} is already named {name!r}", error="duplicate_component")
    component = {
        "id": ctx.rows.next_id(StatusComponent),
        "name": name,
        "description": description,
        "status": "operational",
        "archived": False,
        "position": ctx.rows.value(LAST_POSITION) + 1,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(StatusComponent, component)
    return component


@tool(SERVICE, "PATCH", "/status/components/{component_id}")
def status_update_component(
    ctx: ToolContext,
    component_id: ComponentId,
    status: Annotated[State | None, Field(description="Its new state, e.g. degraded_performance")] = None,
    name: Annotated[Text | None, Field(description="New name")] = None,
    description: Annotated[Text | None, Field(description="New description")] = None,
    archived: Annotated[
        bool | None, Field(description="true to retire it from the page, false to show it again")
    ] = None,
) -> dict[str, Any]:
    """Set a status page component's state (e.g. operational or degraded performance) by hand, rename it,
    describe it, or archive (retire) it; an archived component's state cannot change."""
    component = _component(ctx, component_id)
    if status is not None and (component["archived"] or archived):
        raise Conflict(f"component {component_id} is archived", error="component_archived")
    if name is not None and name.lower() != component["name"].lower():
        taken = ctx.rows.value(NAME_TAKEN, name=name.lower())
        if taken is not None:
            raise Conflict(f"component {taken} is already named {name!r}", error="duplicate_component")
    if update_given(
        ctx, StatusComponent, component, status=status, name=name, description=description, archived=archived
    ):
        ctx.rows.change(StatusComponent, component, {"updated_at": ctx.timestamp})
    return component


# --- incidents -----------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/status/incidents")
def status_list_incidents(
    ctx: ToolContext,
    status: Annotated[IncidentStatus | None, Field(description="Only incidents in this status")] = None,
    open_only: Annotated[bool, Field(description="Only unresolved (ongoing) incidents")] = False,
    component_id: Annotated[str | None, Field(description="Only incidents affecting this component")] = None,
    query: Annotated[str | None, Field(description="Text in the incident's title")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List status page incidents (outages and disruptions), newest first, by status, component or title, or
    only the ongoing ones."""
    return ctx.rows.page(
        INCIDENTS,
        page,
        per_page,
        status=status,
        open_only=open_only or None,
        component_id=component_id,
        query=query,
    )


@tool(SERVICE, "GET", "/status/incidents/{incident_id}")
def status_get_incident(ctx: ToolContext, incident_id: IncidentId) -> dict[str, Any]:
    """Get one incident with the components it affects and its timeline of public updates."""
    return _incident_view(ctx, _incident(ctx, incident_id))


@tool(SERVICE, "POST", "/status/incidents")
def status_create_incident(
    ctx: ToolContext,
    title: Annotated[Text, Field(max_length=200, description="What customers see, e.g. 'Trade Portal login errors'")],
    component_ids: ComponentIds,
    component_status: Annotated[
        State, Field(description="The state the affected components are in: degraded_performance, partial_outage...")
    ],
    message: Annotated[Text, Field(description="The first public update: what is wrong and what we are doing")],
    impact: Annotated[Impact, Field(description="How bad it is: none, minor, major or critical")] = "minor",
    status: Annotated[
        OpenStatus, Field(description="investigating (default), identified or monitoring")
    ] = "investigating",
    notify: Notify = True,
) -> dict[str, Any]:
    """Create (report, declare) an incident on the status page for an outage or disruption: it marks the affected
    components' state and posts the first public update, sent to their subscribers."""
    if component_status not in DISRUPTED:
        raise InvalidArgument(
            f"an incident's components are {', '.join(DISRUPTED)}; not {component_status}", error="invalid_state"
        )
    components = _shown(ctx, component_ids)
    incident = {
        "id": ctx.rows.next_id(StatusIncident),
        "title": title,
        "status": status,
        "impact": impact,
        "created_by": me(ctx),
        "started_at": ctx.timestamp,
        "resolved_at": None,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(StatusIncident, incident)
    for component in components:
        ctx.rows.insert(StatusIncidentComponent, {"incident_id": incident["id"], "component_id": component["id"]})
        _set_state(ctx, component, component_status)
    _post(ctx, incident, status, message, notify)
    return _incident_view(ctx, incident)


@tool(SERVICE, "POST", "/status/incidents/{incident_id}/updates")
def status_post_incident_update(
    ctx: ToolContext,
    incident_id: IncidentId,
    status: Annotated[
        IncidentStatus,
        Field(description="The incident's status now: investigating, identified, monitoring, or resolved to close it"),
    ],
    message: Annotated[Text, Field(description="The public update text")],
    component_status: Annotated[
        State | None, Field(description="A new state for its components while it lasts (resolving restores them)")
    ] = None,
    notify: Notify = True,
) -> dict[str, Any]:
    """Post an update on a status page incident (identified, monitoring a fix, or resolved when it is over):
    resolving closes it and puts its components back to operational; the update goes to subscribers."""
    incident = _incident(ctx, incident_id)
    if incident["status"] == "resolved":
        raise Conflict(f"incident {incident_id} is resolved and takes no more updates", error="incident_resolved")
    if component_status is not None and (status == "resolved" or component_status not in (*DISRUPTED, "operational")):
        raise InvalidArgument(
            "component_status is for an open incident: operational or a disrupted state", error="invalid_state"
        )
    changes: dict[str, Any] = {"status": status, "updated_at": ctx.timestamp}
    if status == "resolved":
        changes["resolved_at"] = ctx.timestamp
    ctx.rows.change(StatusIncident, incident, changes)
    for component_id in _affected(ctx, incident["id"]):
        component = _component(ctx, component_id)
        if status == "resolved":
            if ctx.rows.value(OTHER_OPEN, component_id=component_id, incident_id=incident["id"]) is None:
                _set_state(ctx, component, "operational")
        elif component_status is not None:
            _set_state(ctx, component, component_status)
    _post(ctx, incident, status, message, notify)
    return _incident_view(ctx, incident)


@tool(SERVICE, "PATCH", "/status/incidents/{incident_id}")
def status_update_incident(
    ctx: ToolContext,
    incident_id: IncidentId,
    title: Annotated[Text | None, Field(max_length=200, description="New title")] = None,
    impact: Annotated[Impact | None, Field(description="New impact: none, minor, major or critical")] = None,
    add_component_ids: Annotated[
        list[str] | None, Field(description="More components it turns out to affect (they take its state)")
    ] = None,
) -> dict[str, Any]:
    """Change an unresolved incident's title or impact, or add components it also affects (no public update)."""
    incident = _incident(ctx, incident_id)
    if incident["status"] == "resolved":
        raise Conflict(f"incident {incident_id} is resolved", error="incident_resolved")
    if title is None and impact is None and not add_component_ids:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if add_component_ids:
        affected = _affected(ctx, incident["id"])
        state = _component(ctx, affected[0])["status"] if affected else "partial_outage"
        for component in _shown(ctx, add_component_ids):
            if component["id"] in affected:
                raise Conflict(f"{incident_id} already affects {component['id']}", error="already_affected")
            ctx.rows.insert(StatusIncidentComponent, {"incident_id": incident["id"], "component_id": component["id"]})
            _set_state(ctx, component, state)
    changes = {k: v for k, v in (("title", title), ("impact", impact)) if v is not None}
    ctx.rows.change(StatusIncident, incident, {**changes, "updated_at": ctx.timestamp})
    return _incident_view(ctx, incident)


# --- maintenance ---------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/status/maintenances")
def status_list_maintenances(
    ctx: ToolContext,
    status: Annotated[
        MaintenanceStatus | None, Field(description="Only scheduled, in_progress, completed or cancelled windows")
    ] = None,
    component_id: Annotated[str | None, Field(description="Only windows covering this component")] = None,
    after: Annotated[DateTime | None, Field(description="Only windows ending after this time")] = None,
    before: Annotated[DateTime | None, Field(description="Only windows starting before this time")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List scheduled maintenance windows (planned downtime) of the status page, earliest first, with the
    components each covers; filter by status, component or time range."""
    found = ctx.rows.page(
        MAINTENANCES, page, per_page, status=status, component_id=component_id, after=after, before=before
    )
    found["rows"] = [_maintenance_view(ctx, w) for w in found["rows"]]
    return found


@tool(SERVICE, "POST", "/status/maintenances")
def status_schedule_maintenance(
    ctx: ToolContext,
    title: Annotated[Text, Field(max_length=200, description="What customers see, e.g. 'Trade Portal upgrade'")],
    description: Annotated[Text, Field(description="What will be unavailable and why")],
    component_ids: ComponentIds,
    starts_at: Annotated[DateTime, Field(description="When it starts, UTC")],
    ends_at: Annotated[DateTime, Field(description="When it ends, UTC")],
    notify: Notify = True,
) -> dict[str, Any]:
    """Schedule (plan, announce) a maintenance window of planned downtime on the status page for some
    components, in the future; the notice goes to their subscribers."""
    _check_window(ctx, starts_at, ends_at)
    components = _shown(ctx, component_ids)
    window = {
        "id": ctx.rows.next_id(StatusMaintenance),
        "title": title,
        "description": description,
        "status": "scheduled",
        "starts_at": starts_at,
        "ends_at": ends_at,
        "notified": _audience(ctx, [c["id"] for c in components]) if notify else 0,
        "cancel_reason": None,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(StatusMaintenance, window)
    for component in components:
        ctx.rows.insert(StatusMaintenanceComponent, {"maintenance_id": window["id"], "component_id": component["id"]})
    return _maintenance_view(ctx, window)


@tool(SERVICE, "PATCH", "/status/maintenances/{maintenance_id}")
def status_update_maintenance(
    ctx: ToolContext,
    maintenance_id: MaintenanceId,
    title: Annotated[Text | None, Field(max_length=200, description="New title")] = None,
    description: Annotated[Text | None, Field(description="New description")] = None,
    starts_at: Annotated[DateTime | None, Field(description="New start, UTC")] = None,
    ends_at: Annotated[DateTime | None, Field(description="New end, UTC")] = None,
) -> dict[str, Any]:
    """Move a scheduled maintenance window to a new start or end time, or change its title or description.

    A window in progress or over no longer changes."""
    window = _window_state(ctx, maintenance_id, "scheduled")
    if starts_at is not None or ends_at is not None:
        _check_window(ctx, starts_at or window["starts_at"], ends_at or window["ends_at"])
    if update_given(
        ctx, StatusMaintenance, window, title=title, description=description, starts_at=starts_at, ends_at=ends_at
    ):
        ctx.rows.change(StatusMaintenance, window, {"updated_at": ctx.timestamp})
    return _maintenance_view(ctx, window)


@tool(SERVICE, "POST", "/status/maintenances/{maintenance_id}/cancel")
def status_cancel_maintenance(
    ctx: ToolContext,
    maintenance_id: MaintenanceId,
    reason: Annotated[Text, Field(description="Why it is called off")],
) -> dict[str, Any]:
    """Cancel (call off) a scheduled maintenance window that has not started."""
    window = _window_state(ctx, maintenance_id, "scheduled")
    ctx.rows.change(
        StatusMaintenance, window, {"status": "cancelled", "cancel_reason": reason, "updated_at": ctx.timestamp}
    )
    return _maintenance_view(ctx, window)


@tool(SERVICE, "POST", "/status/maintenances/{maintenance_id}/start")
def status_start_maintenance(ctx: ToolContext, maintenance_id: MaintenanceId) -> dict[str, Any]:
    """Start a scheduled maintenance window now: its components show under_maintenance."""
    window = _window_state(ctx, maintenance_id, "scheduled")
    ctx.rows.change(StatusMaintenance, window, {"status": "in_progress", "updated_at": ctx.timestamp})
    for component in ctx.rows.all(MAINTENANCE_COMPONENTS, maintenance_id=window["id"]):
        _set_state(ctx, _component(ctx, component["id"]), "under_maintenance")
    return _maintenance_view(ctx, window)


@tool(SERVICE, "POST", "/status/maintenances/{maintenance_id}/complete")
def status_complete_maintenance(ctx: ToolContext, maintenance_id: MaintenanceId) -> dict[str, Any]:
    """Complete (finish) a maintenance window in progress: its components go back to operational."""
    window = _window_state(ctx, maintenance_id, "in_progress")
    ctx.rows.change(StatusMaintenance, window, {"status": "completed", "updated_at": ctx.timestamp})
    for component in ctx.rows.all(MAINTENANCE_COMPONENTS, maintenance_id=window["id"]):
        if ctx.rows.value(ACTIVE_MAINTENANCE, component_id=component["id"], maintenance_id=window["id"]) is None:
            _set_state(ctx, _component(ctx, component["id"]), "operational")
    return _maintenance_view(ctx, window)


# --- subscribers ---------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/status/subscribers")
def status_list_subscribers(
    ctx: ToolContext,
    email: Annotated[str | None, Field(description="Text in the subscriber's email address")] = None,
    component_id: Annotated[str | None, Field(description="Only subscribers of this component")] = None,
    every_component_only: Annotated[bool, Field(description="Only those subscribed to every component")] = False,
    status: Annotated[SubscriberStatus | None, Field(description="Only active or unsubscribed ones")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """List the status page's subscribers (people who get incident and maintenance notices), by email,
    component or status."""
    return ctx.rows.page(
        SUBSCRIBERS,
        page,
        per_page,
        email=email,
        component_id=component_id,
        every_component=every_component_only or None,
        status=status,
    )


@tool(SERVICE, "POST", "/status/subscribers")
def status_add_subscriber(
    ctx: ToolContext,
    email: Email,
    name: Annotated[Text | None, Field(description="The person's name")] = None,
    component_id: Annotated[
        str | None, Field(description="Subscribe to this component only; leave out for every component")
    ] = None,
) -> dict[str, Any]:
    """Subscribe someone to status page notices (incident and maintenance updates), of one component or of all;
    someone already subscribed to it is refused (409)."""
    email = email.lower()
    if component_id is not None:
        _shown(ctx, [component_id])
    if component_id is None:
        taken = ctx.rows.value(SUBSCRIBED_TO_ALL, email=email)
    else:
        taken = ctx.rows.value(SUBSCRIBED_TO, email=email, component_id=component_id)
    if taken is not None:
        raise Conflict(f"{email} is already subscribed ({taken})", error="already_subscribed")
    subscriber = {
        "id": ctx.rows.next_id(StatusSubscriber),
        "email": email,
        "name": name,
        "component_id": component_id,
        "status": "active",
        "created_at": ctx.timestamp,
        "unsubscribed_at": None,
    }
    ctx.rows.insert(StatusSubscriber, subscriber)
    return subscriber


@tool(SERVICE, "POST", "/status/subscribers/{subscriber_id}/unsubscribe")
def status_remove_subscriber(ctx: ToolContext, subscriber_id: SubscriberId) -> dict[str, Any]:
    """Remove a subscriber from the status page's notice list; they get no more notices."""
    subscriber = ctx.rows.get(StatusSubscriber, subscriber_id)
    if subscriber is None:
        raise NotFound(f"subscriber {subscriber_id!r} not found")
    if subscriber["status"] != "active":
        raise Conflict(f"subscriber {subscriber_id} is already unsubscribed", error="already_unsubscribed")
    ctx.rows.change(StatusSubscriber, subscriber, {"status": "unsubscribed", "unsubscribed_at": ctx.timestamp})
    return subscriber
