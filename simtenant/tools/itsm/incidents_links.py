"""Incident links: work notes, child incidents (a major incident and its reports) and affected CIs."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import bindparam, select

from ...errors import Conflict, NotFound
from ...schema.itsm.cmdb import ConfigurationItem
from ...schema.itsm.incidents import (
    Incident,
    IncidentAffectedCI,
    IncidentWorkNote,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Row, Statement
from .common import (
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
    incident_in_scope,
    write_note,
)

_LINKS, _CIS = IncidentAffectedCI.__table__, ConfigurationItem.__table__
_AFFECTED = Statement.of(
    select(_CIS.c.id, _CIS.c.name, _CIS.c.ci_class, _CIS.c.status)
    .select_from(_LINKS)
    .join(_CIS, _CIS.c.id == _LINKS.c.ci_id)
    .where(_LINKS.c.incident_id == bindparam("incident_id"))
    .order_by(_LINKS.c.ci_id)
)

# --- work notes ----------------------------------------------------------------------------------


@tool(SERVICE, "POST", "/itsm/incidents/work-notes/add")
def add_work_note(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    note: Annotated[Text, Field(description="The note: what was found or done")],
) -> Any:
    """Add an internal work note to an incident, as the acting user."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    return write_note(ctx, "add_work_note", incident, note)


@tool(SERVICE, "GET", "/itsm/incidents/work-notes")
def list_work_notes(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """List an incident's work notes, oldest first."""
    incident = incident_in_scope(ctx, incident_number)
    notes = ctx.rows.find(IncidentWorkNote, ("id",), incident_id=incident["id"])
    return {"incident_id": incident["id"], "work_notes": notes}


# --- child incidents -----------------------------------------------------------------------------


def _new_parent(ctx: ToolContext, child: Row, parent_number: str) -> Row:
    """The incident ``child`` may become a child of: of its organization (400 cross_organization), open
    (409 record_closed: a closed or cancelled incident takes no more children), not its parent already
    (409 duplicate) and not the child itself or one of its descendants (409 cycle)."""
    parent = incident_in_scope(ctx, parent_number)
    same_org(child["org_id"], Incident, parent, "parent incident")
    if child["parent_id"] == parent["id"]:
        raise Conflict(f"{child['id']} is already a child of {parent['id']}", error="duplicate")
    ancestor: Row | None = parent
    while ancestor is not None:
        if ancestor["id"] == child["id"]:
            raise Conflict(f"making {child['id']} a child of {parent['id']} would make a cycle", error="cycle")
        ancestor = ctx.rows.get(Incident, ancestor["parent_id"]) if ancestor["parent_id"] else None
    if parent["status"] in ("closed", "cancelled"):
        raise Conflict(
            f"parent incident {parent['id']} is {parent['status']}: it takes no more child incidents",
            error="record_closed",
        )
    return parent


def _current_parent(child: Row, parent_number: str | None) -> str:
    """The child's parent (which must be ``parent_number`` when given); 409 not_a_child otherwise."""
    if child["parent_id"] is None:
        raise Conflict(f"{child['id']} is not the child of any incident", error="not_a_child")
    if parent_number is not None and parent_number != child["parent_id"]:
        raise Conflict(f"{child['id']} is a child of {child['parent_id']}, not of {parent_number}", error="not_a_child")
    return child["parent_id"]


@tool(SERVICE, "POST", "/itsm/incidents/children/add")
def add_child_incident(
    ctx: ToolContext,
    parent_number: Annotated[str, Field(description="The parent incident's number")],
    child_number: Annotated[str, Field(description="The incident that becomes its child")],
) -> Any:
    """Make one incident the child of another (sets the child's parent). Both must be of the same
    organization (400 cross_organization); the parent must be open (409 record_closed); an incident
    cannot be its own ancestor (409 cycle). To move a child from one parent to another, use
    update_child_incident."""
    child = incident_in_scope(ctx, child_number, "crud")
    parent = _new_parent(ctx, child, parent_number)
    previous = child["parent_id"]
    change_incident(ctx, "add_child_incident", child, {"parent_id": parent["id"]})
    return {**child, "previous_parent_id": previous}


@tool(SERVICE, "POST", "/itsm/incidents/children/move")
def update_child_incident(
    ctx: ToolContext,
    child_number: Annotated[str, Field(description="The child incident to move")],
    parent_number: Annotated[str, Field(description="The incident that becomes its parent instead")],
    work_note: Annotated[Text, Field(description="Why it moves (recorded as a work note on the child)")],
    current_parent_number: Annotated[
        str | None, Field(description="Its parent now, to make sure the right link is moved")
    ] = None,
) -> Any:
    """Move a child incident from its parent to another parent incident (a report filed under the wrong
    outage), with the reason as a work note on the child. The child must have a parent (409 not_a_child);
    the new parent must be of the same organization, open and not the child or one of its descendants."""
    child = incident_in_scope(ctx, child_number, "crud")
    previous = _current_parent(child, current_parent_number)
    parent = _new_parent(ctx, child, parent_number)
    change_incident(ctx, "update_child_incident", child, {"parent_id": parent["id"]})
    note = write_note(
        ctx, "update_child_incident", child, f"Moved from parent {previous} to parent {parent['id']}: {work_note}"
    )
    return {**child, "previous_parent_id": previous, "work_note": note}


@tool(SERVICE, "POST", "/itsm/incidents/children/remove")
def remove_child_incident(
    ctx: ToolContext,
    child_number: Annotated[str, Field(description="The child incident to detach")],
    work_note: Annotated[Text, Field(description="Why it is detached (recorded as a work note on the child)")],
    parent_number: Annotated[
        str | None, Field(description="Its parent now, to make sure the right link is removed")
    ] = None,
) -> Any:
    """Detach a child incident from its parent (a report that turns out to be a different fault), so it
    is worked on its own, with the reason as a work note on the child. 409 not_a_child when it has no
    parent (or another parent than the one given)."""
    child = incident_in_scope(ctx, child_number, "crud")
    previous = _current_parent(child, parent_number)
    change_incident(ctx, "remove_child_incident", child, {"parent_id": None})
    note = write_note(ctx, "remove_child_incident", child, f"Detached from parent {previous}: {work_note}")
    return {**child, "previous_parent_id": previous, "work_note": note}


@tool(SERVICE, "GET", "/itsm/incidents/children")
def list_child_incidents(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """List the child incidents of an incident, in number order."""
    parent = incident_in_scope(ctx, incident_number)
    return {"incident_id": parent["id"], "children": ctx.rows.find(Incident, ("id",), parent_id=parent["id"])}


# --- affected CIs --------------------------------------------------------------------------------


@tool(SERVICE, "POST", "/itsm/incidents/affected-cis/link")
def link_affected_ci(ctx: ToolContext, incident_number: IncidentNumber, ci_id: CIId) -> Any:
    """Record a configuration item as affected by an incident (409 duplicate if it already is)."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    ci = related(ctx, ConfigurationItem, ci_id, "configuration item", incident["org_id"])
    if ctx.rows.get(IncidentAffectedCI, (incident["id"], ci["id"])) is not None:
        raise Conflict(f"{ci['id']} is already an affected CI of {incident['id']}", error="duplicate")
    link = {"incident_id": incident["id"], "ci_id": ci["id"], "org_id": incident["org_id"]}
    ctx.rows.insert(IncidentAffectedCI, link)
    audit(ctx, "link_affected_ci", "create", IncidentAffectedCI, link, filled(link))
    return {**link, "ci_name": ci["name"]}


@tool(SERVICE, "POST", "/itsm/incidents/affected-cis/unlink")
def unlink_affected_ci(ctx: ToolContext, incident_number: IncidentNumber, ci_id: CIId) -> Any:
    """Remove a configuration item from an incident's affected CIs."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    link = ctx.rows.get(IncidentAffectedCI, (incident["id"], ci_id))
    if link is None:
        raise NotFound(f"{ci_id!r} is not an affected CI of {incident['id']}")
    audit(ctx, "unlink_affected_ci", "delete", IncidentAffectedCI, link, filled(link))
    ctx.rows.delete(IncidentAffectedCI, (incident["id"], ci_id))
    return {"incident_id": incident["id"], "ci_id": ci_id, "unlinked": True}


@tool(SERVICE, "GET", "/itsm/incidents/affected-cis")
def list_affected_cis(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """List the configuration items affected by an incident (with name, class and status when
    the acting user may read the CMDB)."""
    incident = incident_in_scope(ctx, incident_number)
    cmdb = may(ctx, incident["org_id"], "cmdb", "read")
    cis = []
    for ci in ctx.rows.all(_AFFECTED, incident_id=incident["id"]):
        entry: dict[str, Any] = {"ci_id": ci["id"]}
        if cmdb:
            entry.update(name=ci["name"], ci_class=ci["ci_class"], status=ci["status"])
        cis.append(entry)
    return {"incident_id": incident["id"], "affected_cis": cis}
