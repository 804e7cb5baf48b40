"""Incident lifecycle tools: start work, hold and resume, resolve, close, reopen, cancel (every
move as the policy's transitions allow, one step at a time)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ...schema.itsm.sla import IncidentSLA
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from .common import acting_user, audit, require_role
from .incidents import (
    RESOLUTION_FIELDS,
    SERVICE,
    HoldReason,
    IncidentNumber,
    ResolutionCode,
    check_move,
    clocks_of,
    incident_in_scope,
    move_incident,
    write_note,
)

# --- lifecycle -----------------------------------------------------------------------------------


@tool(SERVICE, "POST", "/itsm/incidents/start")
def start_incident_work(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """Start work on an incident (new or on_hold → in_progress; leaving on_hold clears the hold
    reason). A resolved incident goes back to work with reopen_incident."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    check_move(incident, "in_progress", sources=("new", "on_hold"))
    return move_incident(ctx, "start_incident_work", incident, "in_progress")


@tool(SERVICE, "POST", "/itsm/incidents/hold")
def put_incident_on_hold(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    hold_reason: Annotated[HoldReason, Field(description="Why the incident waits")],
) -> Any:
    """Put a new or in-progress incident on hold, with the reason it waits."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    check_move(incident, "on_hold")
    return move_incident(ctx, "put_incident_on_hold", incident, "on_hold", hold_reason=hold_reason)


@tool(SERVICE, "POST", "/itsm/incidents/resume")
def resume_incident(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """Resume an incident that is on hold (on_hold → in_progress); its hold reason is cleared."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    check_move(incident, "in_progress", sources=("on_hold",))
    return move_incident(ctx, "resume_incident", incident, "in_progress")


@tool(SERVICE, "POST", "/itsm/incidents/resolve")
def resolve_incident(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    resolution_code: Annotated[ResolutionCode, Field(description="How it was resolved")],
    resolution_notes: Annotated[Text, Field(description="What was done to resolve it")],
) -> Any:
    """Resolve an open incident (new, in_progress or on_hold → resolved), recording the code, the
    notes, who resolved it and when. Its running SLA clocks complete now (breached if past due)."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    check_move(incident, "resolved")
    result = move_incident(
        ctx,
        "resolve_incident",
        incident,
        "resolved",
        resolution_code=resolution_code,
        resolution_notes=resolution_notes,
        resolved_by_id=acting_user(ctx)["id"],
        resolved_at=ctx.timestamp,
    )
    completed = []
    for clock in clocks_of(ctx, incident["id"]):
        if clock["state"] != "in_progress":
            continue
        updates = {"state": "completed", "completed_at": ctx.timestamp, "breached": ctx.timestamp > clock["breach_at"]}
        changed = ctx.rows.change(IncidentSLA, clock, updates)
        audit(ctx, "resolve_incident", "update", IncidentSLA, clock, changed)
        completed.append(clock)
    return {**result, "completed_slas": completed}


@tool(SERVICE, "POST", "/itsm/incidents/close")
def close_incident(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    close_notes: Annotated[Text, Field(description="Closing notes")],
) -> Any:
    """Close a resolved incident (resolved → closed). Only a manager (or admin) may close."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    require_role(ctx, "manager", incident["org_id"])
    check_move(incident, "closed")
    return move_incident(ctx, "close_incident", incident, "closed", close_notes=close_notes)


@tool(SERVICE, "POST", "/itsm/incidents/reopen")
def reopen_incident(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    reason: Annotated[Text | None, Field(description="Why it is reopened (recorded as a work note)")] = None,
) -> Any:
    """Reopen a resolved incident (resolved → in_progress); its resolution code, notes, resolver
    and resolved time are cleared."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    check_move(incident, "in_progress", sources=("resolved",))
    result = move_incident(ctx, "reopen_incident", incident, "in_progress", **dict.fromkeys(RESOLUTION_FIELDS))
    if reason is not None:
        write_note(ctx, "reopen_incident", incident, f"Reopened: {reason}")
    return result


@tool(SERVICE, "POST", "/itsm/incidents/cancel")
def cancel_incident(
    ctx: ToolContext,
    incident_number: IncidentNumber,
    reason: Annotated[Text | None, Field(description="Why it is cancelled (recorded as a work note)")] = None,
) -> Any:
    """Cancel an open incident (new, in_progress or on_hold → cancelled), e.g. one logged by mistake.
    Its running SLA clocks are cancelled."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    check_move(incident, "cancelled")
    result = move_incident(ctx, "cancel_incident", incident, "cancelled")
    for clock in clocks_of(ctx, incident["id"]):
        if clock["state"] in ("in_progress", "paused"):
            updates = {"state": "cancelled", "completed_at": ctx.timestamp}
            changed = ctx.rows.change(IncidentSLA, clock, updates)
            audit(ctx, "cancel_incident", "update", IncidentSLA, clock, changed)
    if reason is not None:
        write_note(ctx, "cancel_incident", incident, f"Cancelled: {reason}")
    return result
