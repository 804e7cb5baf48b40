"""Incident tools: look-ups and lists, templates, creation (derived priority, SLA clocks,
suggested knowledge), updates and assignment; the lifecycle is in ``incidents_lifecycle``, work
notes, child incidents and affected CIs in ``incidents_links``. Every rule of the policy on
incidents is enforced in these three modules."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Boolean, bindparam, select

from ...errors import Conflict, InvalidArgument
from ...schema.itsm.cmdb import ConfigurationItem
from ...schema.itsm.identity import GroupMember, SysUser, UserGroup
from ...schema.itsm.incidents import (
    CATEGORIES,
    HOLD_REASONS,
    INCIDENT_STATUSES,
    RESOLUTION_CODES,
    Incident,
    IncidentAffectedCI,
    IncidentTemplate,
    IncidentWorkNote,
)
from ...schema.itsm.knowledge import IncidentKnowledge, KnowledgeArticle
from ...schema.itsm.services import Service, ServiceOffering
from ...schema.itsm.sla import IncidentSLA, SLADefinition
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains, one_of
from .common import (
    InOrg,
    Page,
    PerPage,
    acting_user,
    audit,
    filled,
    get_in_scope,
    later,
    listed_orgs,
    person_in_scope,
    priority_of,
    related,
    require,
    require_somewhere,
)
from .identity import active_group

SERVICE = "itsm.incidents"
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "new": ("in_progress", "on_hold", "resolved", "cancelled"),
    "in_progress": ("on_hold", "resolved", "cancelled"),
    "on_hold": ("in_progress", "resolved", "cancelled"),
    "resolved": ("closed", "in_progress"),
    "closed": (),
    "cancelled": (),
}
OPEN_STATUSES = ("new", "in_progress", "on_hold")
MOVE_TOOLS = {  # the tool for a move to in_progress, by the status it leaves
    ("new", "in_progress"): "start_incident_work",
    ("on_hold", "in_progress"): "resume_incident",
    ("resolved", "in_progress"): "reopen_incident",
}
RESOLUTION_FIELDS = ("resolution_code", "resolution_notes", "resolved_by_id", "resolved_at")

IncidentNumber = Annotated[str, Field(description="The incident number, e.g. INC0001001")]
UserId = Annotated[str, Field(description="A user id, e.g. USR-0003")]
CIId = Annotated[str, Field(description="A configuration item id, e.g. CI-00001")]
Category = Literal[CATEGORIES]  # type: ignore[valid-type]
Status = Literal[INCIDENT_STATUSES]  # type: ignore[valid-type]
HoldReason = Literal[HOLD_REASONS]  # type: ignore[valid-type]
ResolutionCode = Literal[RESOLUTION_CODES]  # type: ignore[valid-type]
Impact = Annotated[int, Field(ge=1, le=3, description="Impact: 1 high (many users), 2 medium, 3 low (one user)")]
Urgency = Annotated[int, Field(ge=1, le=3, description="Urgency: 1 high (work stopped), 2 medium, 3 low")]
Priority = Annotated[int, Field(ge=1, le=5, description="Priority, 1 critical … 5 planning")]

_INCIDENTS, _TEMPLATES = Incident.__table__, IncidentTemplate.__table__
_LISTED = Filtered(
    select(_INCIDENTS),
    (_INCIDENTS.c.id,),
    orgs=one_of(_INCIDENTS.c.org_id, "orgs"),
    open=one_of(_INCIDENTS.c.status, "open"),
    status=_INCIDENTS.c.status == bindparam("status"),
    priority=_INCIDENTS.c.priority == bindparam("priority"),
    assignment_group_id=_INCIDENTS.c.assignment_group_id == bindparam("assignment_group_id"),
    assigned_to_id=_INCIDENTS.c.assigned_to_id == bindparam("assigned_to_id"),
    caller_id=_INCIDENTS.c.caller_id == bindparam("caller_id"),
    category=_INCIDENTS.c.category == bindparam("category"),
    service_id=_INCIDENTS.c.service_id == bindparam("service_id"),
    text=contains(_INCIDENTS.c.short_description, "text"),
)
_CHILD_IDS = Statement.of(
    select(_INCIDENTS.c.id).where(_INCIDENTS.c.parent_id == bindparam("parent_id")).order_by(_INCIDENTS.c.id)
)
_TEMPLATES_IN = Filtered(
    select(_TEMPLATES),
    (_TEMPLATES.c.id,),
    orgs=one_of(_TEMPLATES.c.org_id, "orgs"),
    active=_TEMPLATES.c.active.is_(bindparam("active", type_=Boolean)),
)


# --- shared by the incident, SLA and knowledge modules ------------------------------------------


def incident_in_scope(ctx: ToolContext, number: str, action: str = "read") -> Row:
    """The incident, if the acting user may ``action`` it; 404 outside their organizations, 403 without
    rights, and 409 for any change to a closed or cancelled incident (they are final)."""
    incident = get_in_scope(ctx, Incident, number, "incident", "incident", action)
    if action != "read" and incident["status"] in ("closed", "cancelled"):
        raise Conflict(
            f"incident {incident['id']} is {incident['status']}: it can no longer change", error="record_closed"
        )
    return incident


def start_clock(ctx: ToolContext, tool_name: str, incident: Row, definition: Row) -> Row:
    """Start an SLA clock of ``definition`` on the incident now; it breaches after the target minutes."""
    clock = {
        "org_id": incident["org_id"],
        "incident_id": incident["id"],
        "sla_id": definition["id"],
        "stage": definition["stage"],
        "state": "in_progress",
        "started_at": ctx.timestamp,
        "breach_at": later(ctx.timestamp, definition["target_minutes"]),
        "completed_at": None,
        "breached": False,
    }
    clock = {"id": ctx.rows.insert(IncidentSLA, clock), **clock}
    audit(ctx, tool_name, "create", IncidentSLA, clock, filled(clock))
    return clock


def clocks_of(ctx: ToolContext, incident_id: str) -> list[Row]:
    return ctx.rows.find(IncidentSLA, ("id",), incident_id=incident_id)


def _mentions(text: str, keyword: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", text) is not None


def keywords_of(article: Row) -> list[str]:
    return [k.strip().lower() for k in (article["keywords"] or "").split(",") if k.strip()]


def matching_articles(ctx: ToolContext, org_id: str, text: str) -> list[Row]:
    """Published articles of the organization with a keyword that occurs in ``text``
    (case-insensitive, as a whole word or phrase)."""
    lowered = text.lower()
    articles = ctx.rows.find(KnowledgeArticle, ("id",), org_id=org_id, state="published")
    return [a for a in articles if any(_mentions(lowered, k) for k in keywords_of(a))]


def write_note(ctx: ToolContext, tool_name: str, incident: Row, text: str) -> Row:
    note = {
        "org_id": incident["org_id"],
        "incident_id": incident["id"],
        "author_id": acting_user(ctx)["id"],
        "note": text,
        "created_at": ctx.timestamp,
    }
    note = {"id": ctx.rows.insert(IncidentWorkNote, note), **note}
    audit(ctx, tool_name, "create", IncidentWorkNote, note, filled(note))
    return note


# --- shared by the incident modules --------------------------------------------------------------


def change_incident(ctx: ToolContext, tool_name: str, incident: Row, updates: dict[str, Any]) -> list[str]:
    """Apply ``updates``; when something changed, stamp updated_at and write the audit entry."""
    changed = [name for name, value in updates.items() if incident[name] != value]
    if changed:
        ctx.rows.change(Incident, incident, {**updates, "updated_at": ctx.timestamp})
        audit(ctx, tool_name, "update", Incident, incident, changed)
    return changed


def check_move(incident: Row, target: str, sources: tuple[str, ...] | None = None) -> None:
    """Refuse a status move the lifecycle (or this tool, through ``sources``) does not allow."""
    status = incident["status"]
    if target in TRANSITIONS[status] and (sources is None or status in sources):
        return
    allowed_moves = ", ".join(TRANSITIONS[status]) or "none"
    message = f"incident {incident['id']} is {status}; moves allowed from {status}: {allowed_moves}"
    if target in TRANSITIONS[status]:  # legal, but another tool makes this move
        message += f"; to go from {status} to {target} use {MOVE_TOOLS[status, target]}"
    raise Conflict(message, error="illegal_transition")


def move_incident(ctx: ToolContext, tool_name: str, incident: Row, target: str, **fields: Any) -> dict[str, Any]:
    """Move the incident to ``target`` (already checked), clearing hold_reason when it leaves on_hold."""
    previous = incident["status"]
    updates: dict[str, Any] = {"status": target, **fields}
    if previous == "on_hold" and target != "on_hold":
        updates["hold_reason"] = None
    changed = change_incident(ctx, tool_name, incident, updates)
    return {**incident, "previous_status": previous, "changed": changed}


def _check_member(ctx: ToolContext, user: Row, group: Row) -> None:
    member = ctx.rows.get(GroupMember, (group["id"], user["id"]))
    if member is None or not user["active"]:
        why = "inactive" if member is not None else "not a member"
        raise Conflict(
            f"{user['id']} ({user['name']}) cannot be assigned: {why} of group {group['id']} ({group['name']})",
            error="not_in_group",
        )


def _check_service(
    ctx: ToolContext, org_id: str, service_id: str | None, offering_id: str | None, new_service: bool = False
) -> None:
    """The service and offering of an incident: of its organization, the offering of that service; a
    service newly given must not be retired (409 retired_service)."""
    service = related(ctx, Service, service_id, "service", org_id) if service_id else None
    if service is not None and new_service and service["status"] == "retired":
        raise Conflict(
            f"service {service['id']} ({service['name']}) is retired: incidents are not recorded against it",
            error="retired_service",
        )
    offering = related(ctx, ServiceOffering, offering_id, "service offering", org_id) if offering_id else None
    if service is not None and offering is not None and offering["service_id"] != service["id"]:
        raise InvalidArgument(
            f"offering {offering['id']} belongs to service {offering['service_id']}, not {service['id']}",
            error="invalid_value",
        )


def _list(
    ctx: ToolContext,
    page: int,
    per_page: int,
    open_only: bool,
    text: str | None = None,
    org_id: str | None = None,
    **filters: Any,
) -> dict[str, Any]:
    orgs = listed_orgs(ctx, "incident", org_id)
    return ctx.rows.page(
        _LISTED,
        page,
        per_page,
        orgs=orgs,
        open=list(OPEN_STATUSES) if open_only else None,
        text=text or None,
        **filters,
    )


# --- reads ---------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/itsm/incidents/get")
def get_incident_by_number(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """Look up one incident by its number: every field, with the names of its caller, assignee
    and assignment group, its child incidents and its affected CIs."""
    incident = incident_in_scope(ctx, incident_number)
    view = dict(incident)
    for field, model in (("caller", SysUser), ("assigned_to", SysUser), ("assignment_group", UserGroup)):
        key = incident[f"{field}_id"]
        view[f"{field}_name"] = ctx.rows.get(model, key)["name"] if key else None
    view["child_incidents"] = [c["id"] for c in ctx.rows.all(_CHILD_IDS, parent_id=incident["id"])]
    links = ctx.rows.find(IncidentAffectedCI, ("ci_id",), incident_id=incident["id"])
    view["affected_cis"] = [link["ci_id"] for link in links]
    return view


@tool(SERVICE, "GET", "/itsm/incidents/list")
def list_incidents(
    ctx: ToolContext,
    status: Annotated[Status | None, Field(description="Only incidents in this status")] = None,
    open_only: Annotated[bool, Field(description="Only open incidents (new, in_progress or on_hold)")] = False,
    priority: Annotated[Priority | None, Field(description="Only incidents of this priority")] = None,
    assignment_group_id: Annotated[str | None, Field(description="Only incidents of this group")] = None,
    assigned_to_id: Annotated[str | None, Field(description="Only incidents assigned to this user")] = None,
    caller_id: Annotated[str | None, Field(description="Only incidents this user reported")] = None,
    category: Annotated[Category | None, Field(description="Only incidents of this category")] = None,
    service_id: Annotated[str | None, Field(description="Only incidents recorded against this service")] = None,
    short_description_contains: Annotated[
        str | None, Field(description="Only incidents whose short description contains this text")
    ] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List incidents in number order, optionally filtered; paginated (total gives the full count)."""
    return _list(
        ctx,
        page,
        per_page,
        open_only,
        short_description_contains,
        org_id,
        status=status,
        priority=priority,
        assignment_group_id=assignment_group_id,
        assigned_to_id=assigned_to_id,
        caller_id=caller_id,
        category=category,
        service_id=service_id,
    )


@tool(SERVICE, "GET", "/itsm/incidents/assigned-to")
def get_incidents_assigned_to(
    ctx: ToolContext,
    user_id: UserId,
    status: Annotated[Status | None, Field(description="Only incidents in this status")] = None,
    open_only: Annotated[bool, Field(description="Only open incidents (new, in_progress or on_hold)")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the incidents assigned to a user, in number order; paginated."""
    person_in_scope(ctx, user_id)
    return _list(ctx, page, per_page, open_only, assigned_to_id=user_id, status=status)


@tool(SERVICE, "GET", "/itsm/incidents/by-caller")
def get_incidents_by_caller(
    ctx: ToolContext,
    caller_id: UserId,
    status: Annotated[Status | None, Field(description="Only incidents in this status")] = None,
    open_only: Annotated[bool, Field(description="Only open incidents (new, in_progress or on_hold)")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the incidents a user reported (is the caller of), in number order; paginated."""
    person_in_scope(ctx, caller_id)
    return _list(ctx, page, per_page, open_only, caller_id=caller_id, status=status)


@tool(SERVICE, "GET", "/itsm/incidents/templates")
def list_incident_templates(
    ctx: ToolContext,
    active: Annotated[bool | None, Field(description="Only templates in use (true) or withdrawn (false)")] = None,
    org_id: InOrg = None,
) -> Any:
    """List the incident templates: each gives default short description, category, impact,
    urgency, assignment group and service for create_incident(template_id=...); an inactive
    template cannot be used."""
    return {"templates": ctx.rows.all(_TEMPLATES_IN, orgs=listed_orgs(ctx, "incident", org_id), active=active)}


# --- create and update ---------------------------------------------------------------------------


@tool(SERVICE, "POST", "/itsm/incidents/create")
def create_incident(
    ctx: ToolContext,
    caller_id: Annotated[str, Field(description="The user reporting the incident (an active user), e.g. USR-0005")],
    short_description: Annotated[Text | None, Field(description="One line: what is wrong")] = None,
    category: Annotated[Category | None, Field(description="The incident's category")] = None,
    impact: Annotated[Impact | None, Field(description="Impact 1-3: 1 many users … 3 one user")] = None,
    urgency: Annotated[Urgency | None, Field(description="Urgency 1-3: 1 work stopped … 3 can wait")] = None,
    description: Annotated[Text | None, Field(description="The full description")] = None,
    assignment_group_id: Annotated[str | None, Field(description="The group to work it, e.g. GRP-001")] = None,
    service_id: Annotated[str | None, Field(description="The affected service, e.g. SVC-001")] = None,
    offering_id: Annotated[str | None, Field(description="The affected offering of that service")] = None,
    ci_id: Annotated[str | None, Field(description="The main configuration item affected")] = None,
    template_id: Annotated[
        str | None,
        Field(description="A template (list_incident_templates) whose values fill whatever is not given"),
    ] = None,
) -> Any:
    """Open an incident (status new). Priority is derived from impact and urgency
    (impact + urgency - 1: 1 critical … 5 planning), never given. The response and resolution
    SLA clocks of that priority start now, and published knowledge articles whose keywords occur
    in the short description are linked as suggested. short_description, category, impact and
    urgency are required unless a template supplies them. The incident is opened in the caller's
    organization, with that organization's SLAs and knowledge; the template, group, service,
    offering and CI given must be of that organization too (400 cross_organization)."""
    require_somewhere(ctx, "incident", "crud")
    caller = person_in_scope(ctx, caller_id)
    org = caller["org_id"]
    require(ctx, "incident", "crud", org)
    template = related(ctx, IncidentTemplate, template_id, "incident template", org) if template_id else None
    if template is not None:
        if not template["active"]:
            raise Conflict(
                f"incident template {template['id']} ({template['name']}) is inactive and cannot be used",
                error="inactive_template",
            )
        short_description = short_description or template["short_description"]
        category = category or template["category"]
        impact = impact or template["impact"]
        urgency = urgency or template["urgency"]
        assignment_group_id = assignment_group_id or template["assignment_group_id"]
        service_id = service_id or template["service_id"]
    given = {"short_description": short_description, "category": category, "impact": impact, "urgency": urgency}
    missing = [name for name, value in given.items() if value is None]
    if missing:
        raise InvalidArgument(f"missing {', '.join(missing)} (give them or a template)", error="missing_field")
    if not caller["active"]:
        raise Conflict(f"caller {caller['id']} ({caller['name']}) is not an active user", error="inactive_user")
    if assignment_group_id:
        active_group(related(ctx, UserGroup, assignment_group_id, "group", org))
    _check_service(ctx, org, service_id, offering_id, new_service=True)
    if ci_id:
        related(ctx, ConfigurationItem, ci_id, "configuration item", org)
    assert short_description is not None and impact is not None and urgency is not None
    incident = {
        "id": ctx.rows.next_id(Incident),
        "org_id": org,
        "caller_id": caller["id"],
        "short_description": short_description,
        "description": description,
        "category": category,
        "impact": impact,
        "urgency": urgency,
        "priority": priority_of(impact, urgency),
        "status": "new",
        "assignment_group_id": assignment_group_id,
        "assigned_to_id": None,
        "service_id": service_id,
        "offering_id": offering_id,
        "ci_id": ci_id,
        "problem_id": None,
        "change_id": None,
        "parent_id": None,
        "hold_reason": None,
        "resolution_code": None,
        "resolution_notes": None,
        "close_notes": None,
        "resolved_by_id": None,
        "resolved_at": None,
        "opened_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(Incident, incident)
    audit(ctx, "create_incident", "create", Incident, incident, filled(incident))
    definitions = ctx.rows.find(SLADefinition, ("id",), org_id=org, priority=incident["priority"])
    clocks = [start_clock(ctx, "create_incident", incident, d) for d in definitions]
    suggested = matching_articles(ctx, org, short_description)
    for article in suggested:
        link = {"incident_id": incident["id"], "article_id": article["id"], "org_id": org, "relation": "suggested"}
        ctx.rows.insert(IncidentKnowledge, link)
        audit(ctx, "create_incident", "create", IncidentKnowledge, link, filled(link))
    return {
        **incident,
        "slas": clocks,
        "suggested_knowledge": [{"article_id": a["id"], "title": a["title"]} for a in suggested],
    }


@tool(SERVICE, "POST", "/itsm/incidents/update")
def update_incident(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    short_description: Annotated[Text | None, Field(description="New short description")] = None,
    description: Annotated[Text | None, Field(description="New full description")] = None,
    category: Annotated[Category | None, Field(description="New category")] = None,
    impact: Annotated[Impact | None, Field(description="New impact (priority is recomputed)")] = None,
    urgency: Annotated[Urgency | None, Field(description="New urgency (priority is recomputed)")] = None,
    assignment_group_id: Annotated[
        str | None, Field(description="New assignment group; the current assignee must be an active member of it")
    ] = None,
    service_id: Annotated[str | None, Field(description="New affected service")] = None,
    offering_id: Annotated[str | None, Field(description="New affected offering")] = None,
    ci_id: Annotated[str | None, Field(description="New main configuration item")] = None,
) -> Any:
    """Change fields of an incident; only the fields given change. Changing impact or urgency
    recomputes the priority. To change the assignee use assign_incident; a new group is refused
    (409 not_in_group) while the current assignee is not an active member of it."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    updates: dict[str, Any] = {
        k: v
        for k, v in {
            "short_description": short_description,
            "description": description,
            "category": category,
            "impact": impact,
            "urgency": urgency,
            "assignment_group_id": assignment_group_id,
            "service_id": service_id,
            "offering_id": offering_id,
            "ci_id": ci_id,
        }.items()
        if v is not None
    }
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    org = incident["org_id"]
    if assignment_group_id:
        group = active_group(related(ctx, UserGroup, assignment_group_id, "group", org))
        if incident["assigned_to_id"] and group["id"] != incident["assignment_group_id"]:
            _check_member(ctx, ctx.rows.get(SysUser, incident["assigned_to_id"]), group)
    _check_service(
        ctx,
        org,
        updates.get("service_id", incident["service_id"]),
        updates.get("offering_id", incident["offering_id"]),
        new_service=service_id is not None and service_id != incident["service_id"],
    )
    if ci_id:
        related(ctx, ConfigurationItem, ci_id, "configuration item", org)
    if impact is not None or urgency is not None:
        updates["priority"] = priority_of(
            updates.get("impact", incident["impact"]), updates.get("urgency", incident["urgency"])
        )
    changed = change_incident(ctx, "update_incident", incident, updates)
    return {**incident, "changed": changed}


@tool(SERVICE, "POST", "/itsm/incidents/assign")
def assign_incident(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    assigned_to_id: Annotated[str, Field(description="The user to assign, an active member of the group")],
    assignment_group_id: Annotated[
        str | None, Field(description="The assignment group; the incident's current group when omitted")
    ] = None,
    work_note: Annotated[
        Text | None,
        Field(description="Why; required when the incident already has a different assignee (a reassignment)"),
    ] = None,
) -> Any:
    """Assign an incident to a user of its assignment group (or of the group given, which becomes
    its group). The assignee must be an active member of that group (409 not_in_group).
    Reassigning from someone else requires work_note naming the reason; the note is recorded
    with the previous assignee."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    org = incident["org_id"]
    group_id = assignment_group_id or incident["assignment_group_id"]
    if group_id is None:
        raise InvalidArgument(
            f"incident {incident['id']} has no assignment group; give assignment_group_id", error="missing_field"
        )
    group = active_group(related(ctx, UserGroup, group_id, "group", org))
    user = related(ctx, SysUser, assigned_to_id, "user", org)
    _check_member(ctx, user, group)
    previous = incident["assigned_to_id"]
    reassigning = previous is not None and previous != user["id"]
    if reassigning and work_note is None:
        raise InvalidArgument(
            f"incident {incident['id']} is assigned to {previous}; reassigning needs a work_note with the reason",
            error="missing_field",
        )
    changed = change_incident(
        ctx, "assign_incident", incident, {"assignment_group_id": group["id"], "assigned_to_id": user["id"]}
    )
    note = None
    if changed and work_note is not None:
        text = (
            f"Reassigned from {previous} to {user['id']}: {work_note}"
            if reassigning
            else f"Assigned to {user['id']}: {work_note}"
        )
        note = write_note(ctx, "assign_incident", incident, text)
    return {**incident, "previous_assignee": previous, "changed": changed, "work_note": note}
