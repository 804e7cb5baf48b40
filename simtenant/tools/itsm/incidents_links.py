"""Incident links: work notes, child incidents (a major incident and its reports) and affected CIs."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import select

from ...errors import Conflict, NotFound
from ...schema.itsm.cmdb import ConfigurationItem
from ...schema.itsm.incidents import (
    Incident,
    IncidentAffectedCI,
    IncidentWorkNote,
)
from ..engine.dispatch import ToolContext, row_dict
from ..engine.registry import Text, tool
from .common_orm import (
    audit,
    filled,
    may,
    related,
    same_org,
)
from .incidents import (
    SERVICE,
    CIId,
    IncidentNumber,
    change_incident,
    incident_object,
    write_note,
)

# --- work notes ----------------------------------------------------------------------------------


@tool(SERVICE, "POST", "/itsm/incidents/work-notes/add")
def add_work_note(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    note: Annotated[Text, Field(description="The note: what was found or done")],
) -> Any:
    """Add an internal work note to an incident, as the acting user."""
    incident = incident_object(ctx, incident_number, "crud")
    return row_dict(write_note(ctx, "add_work_note", incident, note))


@tool(SERVICE, "GET", "/itsm/incidents/work-notes")
def list_work_notes(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """List an incident's work notes, oldest first."""
    incident = incident_object(ctx, incident_number)
    notes = ctx.session.scalars(
        select(IncidentWorkNote).where(IncidentWorkNote.incident_id == incident.id).order_by(IncidentWorkNote.id)
    )
    return {"incident_id": incident.id, "work_notes": [row_dict(n) for n in notes]}


# --- child incidents -----------------------------------------------------------------------------


@tool(SERVICE, "POST", "/itsm/incidents/children/add")
def add_child_incident(
    ctx: ToolContext,
    parent_number: Annotated[str, Field(description="The parent incident's number")],
    child_number: Annotated[str, Field(description="The incident that becomes its child")],
) -> Any:
    """Make one incident the child of another (sets the child's parent). Both must be of the same
    organization (400 cross_organization); an incident cannot be its own ancestor (409 cycle)."""
    parent = incident_object(ctx, parent_number)
    child = incident_object(ctx, child_number, "crud")
    same_org(child.org_id, parent, "parent incident")
    if child.parent_id == parent.id:
        raise Conflict(f"{child.id} is already a child of {parent.id}", error="duplicate")
    ancestor: Incident | None = parent
    while ancestor is not None:
        if ancestor.id == child.id:
            raise Conflict(f"making {child.id} a child of {parent.id} would make a cycle", error="cycle")
        ancestor = ctx.session.get(Incident, ancestor.parent_id) if ancestor.parent_id else None
    previous = child.parent_id
    change_incident(ctx, "add_child_incident", child, {"parent_id": parent.id})
    return {**row_dict(child), "previous_parent_id": previous}


@tool(SERVICE, "GET", "/itsm/incidents/children")
def list_child_incidents(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """List the child incidents of an incident, in number order."""
    parent = incident_object(ctx, incident_number)
    children = ctx.session.scalars(select(Incident).where(Incident.parent_id == parent.id).order_by(Incident.id))
    return {"incident_id": parent.id, "children": [row_dict(c) for c in children]}


# --- affected CIs --------------------------------------------------------------------------------


@tool(SERVICE, "POST", "/itsm/incidents/affected-cis/link")
def link_affected_ci(ctx: ToolContext, incident_number: IncidentNumber, ci_id: CIId) -> Any:
    """Record a configuration item as affected by an incident (409 duplicate if it already is)."""
    incident = incident_object(ctx, incident_number, "crud")
    ci = related(ctx, ConfigurationItem, ci_id, "configuration item", incident.org_id)
    if ctx.session.get(IncidentAffectedCI, (incident.id, ci.id)) is not None:
        raise Conflict(f"{ci.id} is already an affected CI of {incident.id}", error="duplicate")
    link = IncidentAffectedCI(incident_id=incident.id, ci_id=ci.id, org_id=incident.org_id)
    ctx.session.add(link)
    audit(ctx, "link_affected_ci", "create", link, filled(link))
    return {**row_dict(link), "ci_name": ci.name}


@tool(SERVICE, "POST", "/itsm/incidents/affected-cis/unlink")
def unlink_affected_ci(ctx: ToolContext, incident_number: IncidentNumber, ci_id: CIId) -> Any:
    """Remove a configuration item from an incident's affected CIs."""
    incident = incident_object(ctx, incident_number, "crud")
    link = ctx.session.get(IncidentAffectedCI, (incident.id, ci_id))
    if link is None:
        raise NotFound(f"{ci_id!r} is not an affected CI of {incident.id}")
    audit(ctx, "unlink_affected_ci", "delete", link, filled(link))
    ctx.session.delete(link)
    return {"incident_id": incident.id, "ci_id": ci_id, "unlinked": True}


@tool(SERVICE, "GET", "/itsm/incidents/affected-cis")
def list_affected_cis(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """List the configuration items affected by an incident (with name, class and status when
    the acting user may read the CMDB)."""
    incident = incident_object(ctx, incident_number)
    cmdb = may(ctx, incident.org_id, "cmdb", "read")
    rows = ctx.session.execute(
        select(IncidentAffectedCI, ConfigurationItem)
        .join(ConfigurationItem, ConfigurationItem.id == IncidentAffectedCI.ci_id)
        .where(IncidentAffectedCI.incident_id == incident.id)
        .order_by(IncidentAffectedCI.ci_id)
    )
    cis = []
    for _link, ci in rows:
        entry: dict[str, Any] = {"ci_id": ci.id}
        if cmdb:
            entry.update(name=ci.name, ci_class=ci.ci_class, status=ci.status)
        cis.append(entry)
    return {"incident_id": incident.id, "affected_cis": cis}
