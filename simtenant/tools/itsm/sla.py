"""SLA tools: the SLA definitions and the SLA clocks of incidents. Clocks are started by
create_incident and completed by resolve_incident; the only manual start is for an open
incident that lacks its clocks."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, select

from ...errors import Conflict
from ...schema.itsm.sla import STAGES, SLADefinition
from ..engine.dispatch import ToolContext
from ..engine.registry import tool
from ..engine.rows import Filtered, one_of
from .common import InOrg, listed_orgs, require
from .incidents import OPEN_STATUSES, IncidentNumber, clocks_of, incident_in_scope, start_clock

SERVICE = "itsm.sla"
Stage = Literal[STAGES]  # type: ignore[valid-type]

_DEFINITIONS = SLADefinition.__table__
_LISTED = Filtered(
    select(_DEFINITIONS),
    (_DEFINITIONS.c.priority, _DEFINITIONS.c.stage, _DEFINITIONS.c.id),
    orgs=one_of(_DEFINITIONS.c.org_id, "orgs"),
    priority=_DEFINITIONS.c.priority == bindparam("priority"),
    stage=_DEFINITIONS.c.stage == bindparam("stage"),
)


@tool(SERVICE, "GET", "/itsm/sla/definitions")
def list_sla_definitions(
    ctx: ToolContext,
    priority: Annotated[int | None, Field(ge=1, le=5, description="Only the SLAs of this priority")] = None,
    stage: Annotated[Stage | None, Field(description="Only response or only resolution SLAs")] = None,
    org_id: InOrg = None,
) -> Any:
    """List the SLA definitions: for each priority a response and a resolution target, in minutes."""
    orgs = listed_orgs(ctx, "sla", org_id)
    return {"definitions": ctx.rows.all(_LISTED, orgs=orgs, priority=priority, stage=stage)}


@tool(SERVICE, "GET", "/itsm/sla/incident")
def get_incident_slas(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """The SLA clocks of an incident: stage, state, start, breach time, completion and whether it
    breached; a running clock past its breach time is marked overdue."""
    incident = incident_in_scope(ctx, incident_number)
    require(ctx, "sla", "read", incident["org_id"])
    clocks = []
    for clock in clocks_of(ctx, incident["id"]):
        definition = ctx.rows.get(SLADefinition, clock["sla_id"])
        clocks.append(
            {
                **clock,
                "sla_name": definition["name"],
                "target_minutes": definition["target_minutes"],
                "overdue": clock["state"] == "in_progress" and ctx.timestamp > clock["breach_at"],
            }
        )
    return {"incident_id": incident["id"], "priority": incident["priority"], "slas": clocks}


@tool(SERVICE, "POST", "/itsm/sla/incident/link-new")
def link_new_incident_sla(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """Start the missing SLA clocks of an open incident that lacks them: the response and
    resolution SLAs of its current priority, started now. Refused (409 duplicate) when the
    incident already has a clock for every stage."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    if incident["status"] not in OPEN_STATUSES:
        raise Conflict(
            f"incident {incident['id']} is {incident['status']}; SLA clocks run on open incidents only",
            error="not_open",
        )
    held = {c["stage"] for c in clocks_of(ctx, incident["id"]) if c["state"] != "cancelled"}
    definitions = ctx.rows.find(SLADefinition, ("id",), org_id=incident["org_id"], priority=incident["priority"])
    missing = [d for d in definitions if d["stage"] not in held]
    if not missing:
        raise Conflict(f"incident {incident['id']} already has its SLA clocks", error="duplicate")
    clocks = [start_clock(ctx, "link_new_incident_sla", incident, d) for d in missing]
    return {"incident_id": incident["id"], "priority": incident["priority"], "slas": clocks}
